"""Neighbour lists of many distinct rows: the compiled scan against the KD-tree routes.

The exact k-nearest lists (k = 12, the forest's and local recoding's) of three tables whose
rows are nearly all distinct, each searched both ways on its distinct rows
(``NeighbourIndex._scan_lists`` and ``_split_lists``: a KD-tree on the dense embedding of the
narrow attributes, split by agreement on the wide ones), then the whole ``forest`` release
with the route incrowd chooses (:data:`incrowd.space.neighbours.index.SCAN_LISTS_MAX_DISTINCT`):

- ``mixed``: two numbers and three labels (7, 3 and 30 values), random, 200,000 rows;
- ``labels``: six labels of 30 values each, random, 100,000 rows;
- ``zip``: census rows (``make_census``) with the zip code and seven Adult hierarchies,
  100,000 and 200,000 rows (with ``--large``: 400,000 and 800,000).

    python benchmarks/neighbour_lists.py
    python benchmarks/neighbour_lists.py --scan-only   # the KD-tree routes not timed
    python benchmarks/neighbour_lists.py --large       # the zip tables of 400,000 and 800,000
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from _results import save, table, titled

Q = 12
#: A route still running after this many seconds is reported as not finished.
LIMIT = 600


def mixed(n: int) -> tuple:
    from incrowd import Categorical, Numeric, Schema

    rng = np.random.default_rng(0)
    frame = pd.DataFrame({
        "a": rng.normal(size=n).round(2), "b": rng.integers(0, 90, n),
        "c": rng.choice(list("abcdefg"), n), "d": rng.choice(list("xyz"), n),
        "e": rng.choice([f"v{i}" for i in range(30)], n),
    })  # fmt: skip
    return frame, Schema({"a": Numeric(), "b": Numeric(), "c": Categorical(),
                          "d": Categorical(), "e": Categorical()})  # fmt: skip


def labels(n: int) -> tuple:
    from incrowd import Categorical, Schema

    rng = np.random.default_rng(0)
    frame = pd.DataFrame({c: rng.choice([f"v{i}" for i in range(30)], n) for c in "abcdef"})
    return frame, Schema({c: Categorical() for c in "abcdef"})


def zips(n: int) -> tuple:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from blockwise import census

    return census(n, "zip")


def route(name: str, n: int, way: str) -> float | str:
    """Seconds of one route's lists on the distinct rows, in a process of its own (so that a
    slow route can be stopped)."""
    cmd = [sys.executable, __file__, "--route", name, str(n), way]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, check=True, timeout=LIMIT)
    except subprocess.TimeoutExpired:
        return f"> {LIMIT}"
    return round(float(done.stdout.strip().splitlines()[-1]), 1)


def time_route(name: str, n: int, way: str) -> float:
    from incrowd.costs import GeneralizationCost
    from incrowd.space.metric_space import MetricSpace

    warm, warm_schema = mixed(3_000)
    for frame, schema in ((warm, warm_schema), TABLES[name](n)):
        space = MetricSpace.from_table(frame, schema, norm=1)
        rows = space.index(GeneralizationCost.on(space).geometry).distinct_rows[3]
        start = time.perf_counter()
        getattr(rows, f"_{way}_lists")(rows._rows(), Q + 1)
    return time.perf_counter() - start


TABLES = {"mixed": mixed, "labels": labels, "zip": zips}
CASES = [("mixed", 200_000), ("labels", 100_000), ("zip", 100_000), ("zip", 200_000)]
LARGE = [("zip", 400_000), ("zip", 800_000)]


def main() -> None:
    import incrowd

    if sys.argv[1:2] == ["--route"]:
        print(time_route(sys.argv[2], int(sys.argv[3]), sys.argv[4]))
        return
    scan_only = "--scan-only" in sys.argv[1:]
    warm, schema = mixed(3_000)
    incrowd.anonymize(warm, schema, 5, method="forest", seed=1)  # compile the kernels
    rows, lines = [], []
    for name, n in LARGE if "--large" in sys.argv[1:] else CASES:
        frame, schema = TABLES[name](n)
        scan = route(name, n, "scan")
        split = "not timed" if scan_only else route(name, n, "split")
        start = time.perf_counter()
        release = incrowd.anonymize(frame, schema, 5, method="forest", seed=1)
        seconds = round(time.perf_counter() - start, 1)
        ncp = round(release.metadata["loss"]["ncp"], 4)
        row = {"table": name, "rows": n, "scan_seconds": scan, "split_seconds": split,
               "forest_seconds": seconds, "ncp": ncp}  # fmt: skip
        rows.append(row)
        print(row, flush=True)
        lines.append([name, f"{n:,}", scan, split, seconds, row["ncp"]])
    done = titled("each distinct row's nearest rows by both exact routes, then the whole "
                  "forest release (k = 5) by the route incrowd chooses",
                  ["table", "rows", "scan s", "KD-tree / split s", "forest release s", "NCP"],
                  lines)  # fmt: skip
    print()
    print(table(done["header"], done["rows"]))
    name = "neighbour_lists_large" if "--large" in sys.argv[1:] else "neighbour_lists"
    save(name, rows, [done])


if __name__ == "__main__":
    main()
