"""The forest algorithm against the exact optimum on random small tables.

Random tables of 4–10 records with 2–4 quasi-identifiers (numeric, categorical, or
hierarchical with a random hierarchy of 1–3 levels; random weights), k = 2, 3, 4. For each
configuration: the distribution of cost / OPT for the paper's algorithm alone and with the
improvement pass, of lower bound / OPT, and how often the result is optimal. The proven
factor is max(2k − 1, 3k − 5): 3, 5, 7.

    python experiments/forest_vs_optimum.py [--trials 300]
"""

from __future__ import annotations

import argparse

import numpy as np

from incrowd import MetricSpace
from incrowd.algorithms.exact import optimum
from incrowd.algorithms.forest import ForestKAnonymity
from incrowd.algorithms.forest._core import size_limit
from incrowd.testing import random_table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=300)
    args = parser.parse_args()
    rng = np.random.default_rng(1)
    print("| k | form | loss | deletion | paper: median / p90 / max | improved: median / max"
          " | optimal | LB/OPT median | factor |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|")
    configs = [
        ("levels", "height", False),
        ("levels", "ncp", False),
        ("sets", "height", False),
        ("levels", "height", True),
    ]
    for k in (2, 3, 4):
        for form, loss, deletion in configs:
            paper, improved, bounds = [], [], []
            for _ in range(args.trials):
                n = int(rng.integers(k + 2, 11))
                table, schema = random_table(rng, n)
                space = MetricSpace.from_table(table, schema, norm=1)
                est = ForestKAnonymity(
                    k=k, generalize=form, loss=loss, allow_deletion=deletion
                ).fit(space)
                cost = est.cost(space)
                leave = cost.row_cost if deletion else 0.0
                opt = optimum(cost, space.n, k, leave_cost=leave)[0]
                if opt <= 0:
                    continue
                paper.append(est.paper_cost_ / opt)
                improved.append(est.cost_ / opt)
                bounds.append(est.lower_bound_ / opt)
            p, i = np.array(paper), np.array(improved)
            print(
                f"| {k} | {form} | {loss} | {'yes' if deletion else 'no'} | "
                f"{np.median(p):.3f} / {np.quantile(p, 0.9):.3f} / {p.max():.3f} | "
                f"{np.median(i):.3f} / {i.max():.3f} | {np.mean(i <= 1 + 1e-9):.0%} | "
                f"{np.median(bounds):.3f} | {size_limit(k)} |"
            )


if __name__ == "__main__":
    main()
