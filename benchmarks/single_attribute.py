"""Single-attribute generalization (Du, Eppstein, Goodrich, Lueker): seconds for the goals of
issue 13, each measured after one warm-up run (so the kernels are compiled):

| work | goal |
|---|---|
| Fig. 7 in full: every k, three lists, four curves, 5 random orders | ≤ 60 s |
| Zip regions, all 33,774 zips, k = 20,000 | ≤ 10 s |
| GPS rectangles, 1,000,000 points | ≤ 10 s |
| Bin covering, 100,000 labels, one k, Fold / Theorem 9 | ≤ 1 s |

Fig. 7 and the zip regions read ``../shared/datasets``. The GPS points are 1,000,000 people
drawn from the zip points by population, each moved by up to ±0.05° (random_state 0), with
k = 1,000; the labels are 100,000 Zipf(1.3) counts (random_state 0) with k = 1 % of the
records. There is no peer tool for these problems (ARX builds hierarchies by hand or by
prefix; the closest tool, spopt's max-p regionalization, maximizes the number of regions
and needs libpysal weights), so the figures stand alone. Writes
``benchmarks/results/single_attribute.json``.

    python benchmarks/single_attribute.py [--shared ../shared/datasets]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from _results import save, table, titled

from incrowd.algorithms.single_attribute.bincover import fold, sweep, theorem9
from incrowd.algorithms.single_attribute.kd_rectangles import kd_rectangles
from incrowd.algorithms.single_attribute.planar_regions import planar_regions

SHARED = Path(__file__).resolve().parents[2] / "shared" / "datasets"
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "experiments"))


def timed(work) -> tuple[float, object]:
    work()  # warm-up: compile the kernels
    start = time.perf_counter()
    out = work()
    return time.perf_counter() - start, out


def main() -> None:
    from fig7_bin_covering import LISTS, sizes

    parser = argparse.ArgumentParser()
    parser.add_argument("--shared", type=Path, default=SHARED)
    args = parser.parse_args()
    rows = []

    items = [sizes(args.shared / "names1990" / f) for f in LISTS.values()]

    def fig7() -> int:
        runs = 0
        for x in items:
            ks = np.arange(int(x.max()), int(x.sum()) // 2 + 1)
            for algorithm in ("fold", "spread"):
                for order, seed in [("ascending", None), ("descending", None)] + [
                    ("random", s) for s in range(5)
                ]:
                    sweep(x, ks, algorithm, order=order, seed=seed)  # type: ignore[arg-type]
                    runs += ks.size
        return runs

    seconds, runs = timed(fig7)
    rows.append({"work": "Fig. 7 in full (3 lists × 2 algorithms × 7 orders × every k)",
                 "seconds": seconds, "goal": 60, "detail": f"{runs:,} coverings"})  # fmt: skip

    z = pd.read_csv(args.shared / "us_zip_population.csv", dtype={"zip": str})
    points, people = z[["lon", "lat"]].to_numpy(), z["population"].to_numpy()
    seconds, found = timed(lambda: planar_regions(points, people, 20_000))
    rows.append({"work": "zip regions, 33,774 zips, k = 20,000", "seconds": seconds, "goal": 10,
                 "detail": f"{found.loads.size:,} regions, largest {found.largest:,}, "
                           f"degree {found.degree}"})  # fmt: skip

    rng = np.random.default_rng(0)
    where = rng.choice(len(z), size=1_000_000, p=people / people.sum())
    gps = points[where] + rng.uniform(-0.05, 0.05, size=(1_000_000, 2))
    seconds, found = timed(lambda: kd_rectangles(gps, None, 1_000))
    rows.append({"work": "GPS rectangles, 1,000,000 points, k = 1,000", "seconds": seconds,
                 "goal": 10, "detail": f"{found.loads.size:,} boxes, largest {found.largest:,}"
                 f" (bound {found.bound:,})"})  # fmt: skip

    counts = np.minimum(rng.zipf(1.3, 100_000), 10**6)
    k = int(counts.sum() // 100)
    for name, algorithm in (("Fold", fold), ("Theorem 9", theorem9)):
        seconds, found = timed(lambda algorithm=algorithm: algorithm(counts, k))
        rows.append({"work": f"bin covering, 100,000 labels, {name}", "seconds": seconds,
                     "goal": 1, "detail": f"k = {k:,}: {found.n_classes} classes, certified "
                     f"{found.certified_ratio:.3f}"})  # fmt: skip

    cells = [[r["work"], f"{r['seconds']:.2f}", r["goal"], r["detail"]] for r in rows]
    done = titled("after one warm-up run", ["work", "seconds", "goal (s)", "result"], cells)
    print(table(done["header"], done["rows"]))
    save("single_attribute", rows, [done])


if __name__ == "__main__":
    main()
