"""Cellular clustering against the exact optimum on small random instances.

For each metric (Euclidean, L1 with hierarchies, Hamming on labels) and method, prints
the distribution of cost / OPT (OPT: the cellular optimum with centers at input records,
under the method's limits, from the exact subset solver) and of the certified ratio
cost / lower_bound, and asserts the proven ratios (3 for cellular clustering, 36 for
r-cellular) and that no lower bound exceeds the optimum.

    python experiments/cellular_vs_optimum.py [--instances 100]
"""

from __future__ import annotations

import argparse

import numpy as np
from gather_vs_optimum import space_for

from incrowd import CellularClustering, RCellular, RCellularOutliers
from incrowd.algorithms.exact import optimum
from incrowd.testing import limits


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--instances", type=int, default=100)
    args = parser.parse_args()
    print("| metric | method | instances | cost/OPT median | p90 | max | proven | "
          "certified median | max |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|")
    for metric in ("euclidean", "hierarchical-l1", "hamming"):
        rng = np.random.default_rng(0)
        ratios: dict[str, list[tuple[float, float]]] = {}
        proven: dict[str, float | None] = {}
        for _ in range(args.instances):
            n, r = int(rng.integers(6, 12)), int(rng.integers(2, 4))
            space = space_for(metric, rng, n)
            setup = float(rng.choice([0.5, 1.0, 3.0]))
            models = {
                "cellular (setup 0.5-3)": CellularClustering(setup_cost=setup),
                "r-cellular": RCellular(k=r),
                "cellular, k and setup": CellularClustering(setup_cost=setup, k=r),
                "r-cellular-outliers (eps=0.15)": RCellularOutliers(k=r, epsilon=0.15),
            }
            for name, model in models.items():
                model.fit(space)
                cost = model.cost(space)
                opt = optimum(cost, n, int(model.k), **limits(model, n, cost))[0]
                ratio = model.cost_ / opt if opt > 0 else 1.0
                bound = model.approximation_ratio_
                assert model.lower_bound_ <= opt + 1e-9, (name, model.lower_bound_, opt)
                assert bound is None or model.cost_ <= bound * opt + 1e-9, (name, ratio)
                proven[name] = bound
                ratios.setdefault(name, []).append((ratio, model.certified_ratio_ or 1.0))
        for name, vals in ratios.items():
            a = np.array(vals)
            print(
                f"| {metric} | {name} | {len(a)} | {np.median(a[:, 0]):.3f} | "
                f"{np.quantile(a[:, 0], 0.9):.3f} | {a[:, 0].max():.3f} | "
                f"{proven[name] or '—'} | {np.median(a[:, 1]):.3f} | {a[:, 1].max():.3f} |"
            )


if __name__ == "__main__":
    main()
