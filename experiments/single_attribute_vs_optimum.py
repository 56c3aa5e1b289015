"""Single-attribute generalization against the exact optimum on small random instances.

- connected regions (Thm 3) on the Delaunay graph of 5–9 random points (one record each):
  the optimum over all partitions into connected regions of ≥ k (subset DP);
- kd boxes (Thm 4) on 6–10 records of a 4 × 4 grid (copies happen): the optimum over
  partitions whose bounding boxes hold no other record (a relaxation of box partitions of
  the plane, so the ratio shown is at least the true one);
- bin covering (Thms 7, 9, 10 and Spread) on 4–12 values with 1–20 records: the optimum by
  the subset DP.

Prints the distribution of largest / OPT and of the certified ratio largest / lower bound,
and asserts the proven bounds and that no lower bound exceeds the optimum.

    python experiments/single_attribute_vs_optimum.py [--instances 300]
"""

from __future__ import annotations

import argparse

import numpy as np

from incrowd import KDRectangles, MetricSpace, PlanarRegions
from incrowd.algorithms.exact import optimum
from incrowd.algorithms.single_attribute import bincover


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--instances", type=int, default=300)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    rows: dict[str, list[tuple[float, float, float]]] = {}

    def record(name: str, largest: float, opt: float, lower: float, proven: float) -> None:
        assert lower <= opt + 1e-9, f"{name}: lower bound above the optimum"
        assert largest <= proven * opt + 1e-9, f"{name}: above the proven ratio"
        rows.setdefault(name, []).append((largest / opt, largest / lower, proven))

    for _ in range(args.instances):
        n = int(rng.integers(5, 10))
        points = rng.random((n, 2))
        k = int(rng.integers(2, 4))
        model = PlanarRegions(k=k).fit(points)
        space = MetricSpace.from_array(points)
        opt = optimum(model.cost(space), n, k)[0]
        record("regions (Thm 3)", model.cost_, opt, model.lower_bound_, model.approximation_ratio_)

        grid = rng.integers(0, 4, size=(int(rng.integers(6, 11)), 2)).astype(float)
        k = int(rng.integers(2, 4))
        model = KDRectangles(k=k).fit(grid)
        space = MetricSpace.from_array(grid)
        opt = optimum(model.cost(space), len(grid), k)[0]
        record("kd boxes (Thm 4)", model.cost_, opt, model.lower_bound_, model.approximation_ratio_)

        x = rng.integers(1, 21, int(rng.integers(4, 13)))
        k = int(rng.integers(int(x.max()) // 2 + 1, max(int(x.max()) + 2, int(x.sum()) // 2)))
        if x.sum() < k:
            continue
        opt = bincover.exact(x, k).largest
        for name, found, proven in (
            ("Fold (Thm 7)", bincover.fold(x, k), 3.0),
            ("Theorem 9", bincover.theorem9(x, k), 2.5),
            ("PTAS, ε = 0.5 (Thm 10)", bincover.ptas(x, k, 0.5), 1.5 * (opt + k) / opt),
            ("Spread (no bound)", bincover.spread(x, k), np.inf),
        ):
            record(name, found.largest, opt, found.lower_bound, proven)

    print("| method | instances | largest/OPT median | p90 | max | certified median | max |")
    print("|---|---|---|---|---|---|---|")
    for name, values in rows.items():
        ratio = np.array([v[0] for v in values])
        cert = np.array([v[1] for v in values])
        print(f"| {name} | {len(values)} | {np.median(ratio):.3f} | "
              f"{np.percentile(ratio, 90):.3f} | {ratio.max():.3f} | {np.median(cert):.3f} | "
              f"{cert.max():.3f} |")  # fmt: skip


if __name__ == "__main__":
    main()
