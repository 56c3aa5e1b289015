"""How far is MDAV from the optimal SSE on tiny instances? (MDAV has no guarantee.)

For many random Gaussian instances (n = 8..16, p = 2, k = 2..4) compare MDAV's SSE with the
exact optimum of the subset DP and print the distribution of the ratio.

    python experiments/mdav_vs_optimum.py [--instances 300]
"""

from __future__ import annotations

import argparse

import numpy as np

from incrowd import MDAV, ExactPartition


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--instances", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    print("| k | variant | instances | min | median | p90 | max | optimal (ratio 1) |")
    print("|---|---|---|---|---|---|---|---|")
    for k in (2, 3, 4):
        cases = []
        for _ in range(args.instances):
            n = int(rng.integers(max(2 * k, 8), 17))
            cases.append(rng.normal(size=(n, 2)))
        opts = [ExactPartition(k=k).fit(X).cost_ for X in cases]
        for variant in ("classic", "single"):
            r = np.array(
                [
                    MDAV(k=k, variant=variant).fit(X).cost_ / o
                    for X, o in zip(cases, opts, strict=True)
                ]
            )
            print(
                f"| {k} | {variant} | {r.size} | {r.min():.4f} | {np.median(r):.4f} | "
                f"{np.quantile(r, 0.9):.4f} | {r.max():.4f} | {np.mean(r < 1 + 1e-9):.0%} |"
            )


if __name__ == "__main__":
    main()
