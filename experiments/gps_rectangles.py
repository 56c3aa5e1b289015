"""GPS points as rectangles (Du et al., Thm 4) on located people.

Stand-in for located people: the 33,774 zip points of ``../shared/datasets/us_zip_population.csv``
(longitude, latitude), each carrying its residents. The kd cuts of Theorem 4 group them into
boxes of at least k people for k = 1,000 / 10,000 / 100,000. Printed per k: the number of
boxes, the largest box, κ = max(k, the most people at one point), largest / κ, the proven
bound m + 4(k − 1), the lower bound on any partition into classes of k (κ or the average
bound ⌈W/⌊W/k⌋⌉) with the certified ratio, and the connected regions of Thm 3 on the same
points beside them. Writes ``experiments/results/gps_rectangles.md``.

    python experiments/gps_rectangles.py [--shared ../shared/datasets]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import pandas as pd

from incrowd.algorithms.single_attribute.kd_rectangles import kd_rectangles
from incrowd.algorithms.single_attribute.planar_regions import planar_regions

SHARED = Path(__file__).resolve().parents[2] / "shared" / "datasets"
RESULTS = Path(__file__).resolve().parent / "results"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--shared", type=Path, default=SHARED)
    args = parser.parse_args()
    z = pd.read_csv(args.shared / "us_zip_population.csv", dtype={"zip": str})
    points = z[["lon", "lat"]].to_numpy()
    weights = z["population"].to_numpy()
    m = int(weights.max())
    lines = [
        "# GPS points as rectangles: zip points weighted by residents",
        "",
        f"{len(z):,} points, {weights.sum():,} people; the most at one point m = {m:,} "
        "(`python experiments/gps_rectangles.py`).",
        "",
        "| k | boxes | largest box | κ | largest / κ | bound m + 4(k−1) | lower bound | "
        "certified | s | regions (Thm 3) | largest region | region certified |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for k in (1_000, 10_000, 100_000):
        start = time.perf_counter()
        boxes = kd_rectangles(points, weights, k)
        seconds = time.perf_counter() - start
        regions = planar_regions(points, weights, k)
        kappa = max(k, m)
        lines.append(
            f"| {k:,} | {boxes.loads.size:,} | {boxes.largest:,} | {kappa:,} | "
            f"{boxes.largest / kappa:.3f} | {boxes.bound:,} | {boxes.lower_bound:,} | "
            f"{boxes.certified_ratio:.3f} | {seconds:.2f} | {regions.loads.size:,} | "
            f"{regions.largest:,} | {regions.certified_ratio:.3f} |"
        )
    text = "\n".join(lines) + "\n"
    print(text)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "gps_rectangles.md").write_text(text)


if __name__ == "__main__":
    main()
