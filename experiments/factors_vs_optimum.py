"""The factor methods against the exact optimum on random small instances.

2-anonymity and 3-anonymity on random binary tables (4 attributes) and on random tables with
numeric, categorical and hierarchical attributes (random hierarchies); 2-microaggregation on
Gaussian points in R^3. n = 4..11; the optimum by subset dynamic programming. Prints the
distribution of cost / OPT and of lower bound / OPT next to each proven factor.

    python experiments/factors_vs_optimum.py [--trials 200]
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

from incrowd import Categorical, MetricSpace, Schema
from incrowd.algorithms.exact import optimum
from incrowd.algorithms.factors import ThreeAnonymity, TwoAnonymity, TwoMicroaggregation
from incrowd.costs import SSE
from incrowd.testing import random_table


def instance(rng: np.random.Generator, kind: str, n: int) -> tuple[object, float, object]:
    if kind == "2-microaggregation":
        X = rng.normal(size=(n, 3))
        model = TwoMicroaggregation().fit(X)
        return model, optimum(SSE.on(MetricSpace.from_array(X)), len(X), 2)[0], model
    binary = kind.endswith("binary")
    if binary:
        table = pd.DataFrame(rng.integers(0, 2, size=(n, 4)).astype(str), columns=list("abcd"))
        schema = Schema({c: Categorical() for c in table.columns})
    else:
        table, schema = random_table(rng, n)
    space = MetricSpace.from_table(table, schema, norm=1)
    three = kind.startswith("3")
    model = (ThreeAnonymity() if three else TwoAnonymity()).fit(space)
    return model, optimum(model.cost(space), space.n, 3 if three else 2)[0], model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=200)
    args = parser.parse_args()
    rng = np.random.default_rng(5)
    print("| method | data | cost/OPT median / p90 / max | optimal | LB/OPT median | factor |")
    print("|---|---|---|---|---|---|")
    for kind in ("2-anonymity binary", "2-anonymity mixed", "3-anonymity binary",
                 "3-anonymity mixed", "2-microaggregation"):  # fmt: skip
        ratios, bounds, factors = [], [], set()
        for _ in range(args.trials):
            model, opt, _ = instance(rng, kind, int(rng.integers(4, 12)))
            if opt <= 0:
                continue
            ratios.append(model.cost_ / opt)
            bounds.append(model.lower_bound_ / opt)
            factors.add(model.approximation_ratio_)
        r = np.array(ratios)
        method, _, data = kind.partition(" ")
        print(
            f"| {method} | {data or 'Gaussian R^3'} | {np.median(r):.3f} / "
            f"{np.quantile(r, 0.9):.3f} / {r.max():.3f} | {np.mean(r <= 1 + 1e-9):.0%} | "
            f"{np.median(bounds):.3f} | {', '.join(f'{f:g}' for f in sorted(factors))} |"
        )


if __name__ == "__main__":
    main()
