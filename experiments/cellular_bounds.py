"""Which lower bound proves the most for cellular clustering (k = 1): the dual Σα (grown over
each center's nearest radii, checked against every candidate, scaled when violated) or the
share bound (each record's least radius plus share of the setup cost).

Standard Gaussian points, one setup cost per run; prints cost, both bounds and the certified
ratio each would give.

    python experiments/cellular_bounds.py
"""

from __future__ import annotations

import time

import numpy as np

from incrowd import CellularClustering

RUNS = [(2_000, 2, 0.5), (10_000, 4, 1.0), (10_000, 8, 5.0)]


def main() -> None:
    rng = np.random.default_rng(1)
    print("| n | dimensions | setup cost | cost | dual bound | share bound | ratio (dual) | "
          "ratio (share) | seconds |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|")
    for n, d, setup in RUNS:
        X = rng.normal(size=(n, d))
        start = time.perf_counter()
        model = CellularClustering(setup_cost=setup).fit(X)
        seconds = time.perf_counter() - start
        dual = model.dual_bound_ or 0.0
        share = model.share_bound_
        assert model.lower_bound_ == max(dual, share, model.radius_bound_)
        print(f"| {n:,} | {d} | {setup} | {model.cost_:.1f} | {dual:.1f} | {share:.1f} | "
              f"{model.cost_ / dual if dual else float('inf'):.2f} | {model.cost_ / share:.2f} "
              f"| {seconds:.2f} |")  # fmt: skip


if __name__ == "__main__":
    main()
