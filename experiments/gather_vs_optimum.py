"""The r-Gather family against the exact optimum on small random instances.

For each metric (Euclidean, L1 with hierarchies, Hamming) and method, prints the
distribution of radius / OPT (OPT: largest radius with centers at input points, under the
method's limits) and of the certified ratio radius / lower_bound.

    python experiments/gather_vs_optimum.py [--instances 100]
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

from incrowd import (
    Categorical,
    Hierarchical,
    Hierarchy,
    KRCenter,
    KRCenterOutliers,
    MetricSpace,
    RGather,
    RGatherOutliers,
    Schema,
)
from incrowd.algorithms.exact import optimum
from incrowd.testing import limits

LETTERS = Hierarchy.from_rows(
    [[c, "ab" if c in "ab" else "cd" if c in "cd" else "ef", "*"] for c in "abcdef"]
)


def space_for(metric: str, rng: np.random.Generator, n: int) -> MetricSpace:
    if metric == "euclidean":
        return MetricSpace.from_array(rng.normal(size=(n, 2)))
    if metric == "hierarchical-l1":
        table = pd.DataFrame({f"h{j}": rng.choice(list("abcdef"), size=n) for j in range(3)})
        return MetricSpace.from_table(
            table, Schema({c: Hierarchical(LETTERS) for c in table.columns}), norm=1
        )
    table = pd.DataFrame({f"c{j}": rng.integers(0, 3, size=n) for j in range(4)})
    return MetricSpace.from_table(table, Schema({c: Categorical() for c in table.columns}), norm=1)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--instances", type=int, default=100)
    args = parser.parse_args()
    print(
        "| metric | method | instances | radius/OPT median | p90 | max | certified median | max |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for metric in ("euclidean", "hierarchical-l1", "hamming"):
        rng = np.random.default_rng(0)
        ratios: dict[str, list[tuple[float, float]]] = {}
        for _ in range(args.instances):
            n, r = int(rng.integers(6, 13)), int(rng.integers(2, 4))
            space = space_for(metric, rng, n)
            models = {
                "r-gather": RGather(k=r),
                "kr-center (max_clusters=2)": KRCenter(max_clusters=2, k=r),
                "r-gather-outliers (eps=0.15)": RGatherOutliers(k=r, epsilon=0.15),
                "r-gather-outliers points": RGatherOutliers(k=r, epsilon=0.15, centers="points"),
                "kr-center-outliers": KRCenterOutliers(max_clusters=2, k=r, epsilon=0.15),
            }
            for name, model in models.items():
                model.fit(space)
                cost = model.cost(space)
                opt = optimum(cost, n, r, **limits(model, n, cost))[0]
                ratio = model.radius_ / opt if opt > 0 else 1.0
                ratios.setdefault(name, []).append((ratio, model.certified_ratio_ or 1.0))
        for name, vals in ratios.items():
            a = np.array(vals)
            print(
                f"| {metric} | {name} | {len(a)} | {np.median(a[:, 0]):.3f} | "
                f"{np.quantile(a[:, 0], 0.9):.3f} | {a[:, 0].max():.3f} | "
                f"{np.median(a[:, 1]):.3f} | {a[:, 1].max():.3f} |"
            )


if __name__ == "__main__":
    main()
