"""Cellular clustering and the refined r-Gather family: loss, seconds, memory, certificates.

- Adult (30,162 records, 8 QIs, every QI a label of its ARX hierarchy, k = 5), generalized
  release: ``r-cellular``, ``r-gather`` and ``kr-center`` (at most ⌊n/k⌋ = 6,032 crowds), each
  scored by ``ncp_checker.py`` (the NCP of ``ncp-definition.md``) as in ``adult.py``, with
  the whole ``incrowd.anonymize`` call timed; ARX's local recoding (0.0611 at k = 5,
  ``ncp-definition.md``) beside them; ``r-gather`` and ``kr-center`` also with age as a
  number.
- Standard Gaussian points: ``r-cellular`` on 100,000 × R^8 and 1,000,000 × R^4 (k = 5),
  ``kr-center-outliers`` on 1,000,000 × R^4 (k = 5, at most 100 crowds, ε = 0.02). Each in
  its own process, so its peak RSS is its own; seconds include the neighbour search.

Goals (issue 12): r-cellular on Adult ≤ 10 s and NCP ≤ 0.090; 100k × R^8 ≤ 60 s;
1M × R^4 ≤ 120 s and ≤ 8 GB; r-Gather / (k,r)-Center on Adult ≤ 5 s and NCP ≤ 0.15, and
with every QI a label no slower than with age as a number;
(k,r,ε)-Center 1M × R^4 ≤ 120 s.

    python benchmarks/cellular.py            # Adult and 100k
    python benchmarks/cellular.py --million  # also the 10^6 rows
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _results import save, table, titled
from adult import ARX_LOCAL
from adult import run as run_adult

ADULT_METHODS = {
    "r-cellular": None,
    "r-gather": None,
    "kr-center": {"max_clusters": 6032},  # ⌊n / k⌋: the cap never binds
}
#: Also timed on Adult with age as a number (published as a range), beside all labels.
GATHER_NUMERIC_AGE = ("r-gather", "kr-center")
#: Seconds after which a numeric run is stopped and reported as not finished.
LIMIT = 900
NUMERIC = [
    ("r-cellular", "100000x8", {}),
    ("r-cellular", "1000000x4", {}),
    ("kr-center-outliers", "1000000x4", {"max_clusters": 100, "epsilon": 0.02}),
]


def run_numeric(method: str, data: str, params: dict) -> dict:
    import numpy as np

    from incrowd import METHODS, MetricSpace

    n, d = (int(v) for v in data.split("x"))
    start = time.perf_counter()
    space = MetricSpace.from_array(np.random.default_rng(7).standard_normal((n, d)))
    model = METHODS[method](k=5, **params).fit(space)
    seconds = time.perf_counter() - start
    part = model.partition_
    return {
        "method": method,
        "data": data,
        "seconds": round(seconds, 1),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "crowds": part.n_clusters,
        "suppressed": part.n_suppressed,
        "cost": float(f"{model.cost_:.6g}"),
        "lower_bound": float(f"{model.lower_bound_:.6g}"),
        "certified_ratio": round(model.certified_ratio_ or float("nan"), 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--million", action="store_true")
    parser.add_argument("--one", nargs=3, metavar=("METHOD", "DATA", "PARAMS"))
    args = parser.parse_args()
    if args.one:
        method, data, params = args.one
        print(json.dumps(run_numeric(method, data, json.loads(params))))
        return
    rows = []
    lines = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        run_adult(5, "hierarchy", "levels", "r-cellular", folder)  # warm-up
        for method, params in ADULT_METHODS.items():
            row = run_adult(5, "hierarchy", "levels", method, folder, params)
            row |= {"data": "adult (labels)", "arx_local": ARX_LOCAL[5]}
            rows.append(row)
            print(row, flush=True)
            lines.append([method, "Adult, k = 5", row["ncp"], ARX_LOCAL[5], row["seconds"], "—",
                          row["certified_ratio"]])  # fmt: skip
        for method in GATHER_NUMERIC_AGE:  # the goal: no slower with every QI a label
            row = run_adult(5, "numeric", "levels", method, folder, ADULT_METHODS[method])
            row |= {"data": "adult (age a number)"}
            rows.append(row)
            print(row, flush=True)
            lines.append([method, "Adult, age a number", row["ncp"], "—", row["seconds"], "—",
                          row["certified_ratio"]])  # fmt: skip
    for method, data, params in NUMERIC:
        if data.startswith("1000000") and not args.million:
            continue
        cmd = [sys.executable, __file__, "--one", method, data, json.dumps(params)]
        try:
            out = subprocess.run(cmd, capture_output=True, text=True, check=True,
                                 timeout=LIMIT)  # fmt: skip
            row = json.loads(out.stdout.strip().splitlines()[-1])
        except subprocess.TimeoutExpired:
            row = {"method": method, "data": data, "seconds": f"> {LIMIT}",
                   "peak_rss_mb": "—", "certified_ratio": "—"}  # fmt: skip
        rows.append(row)
        print(row, flush=True)
        lines.append([method, data, "—", "—", row["seconds"], row["peak_rss_mb"],
                      row["certified_ratio"]])  # fmt: skip
    done = titled("k = 5; NCP by the independent checker, ARX local recoding's beside it",
                  ["method", "data", "NCP", "ARX local", "s", "peak MB", "certified ratio"],
                  lines)  # fmt: skip
    print()
    print(table(done["header"], done["rows"]))
    save("cellular", rows, [done])


if __name__ == "__main__":
    main()
