"""Domingo-Ferrer & Sebé's Tables 1 and 2, reproduced.

Table 1: MDAV, μ-Approx and 2-μ-Approx at k = 2 on Tarragona (834 records, 13 attributes)
and EIA-600 (the first 600 EIA records, the 11 numeric attributes), each attribute
standardized to zero mean and unit population variance; SSE and L_SSE to six significant
digits. Table 2: 10 random samples of 15 Census records (standardized over the whole file),
the optimal SSE by exhaustive search (subset dynamic programming) against 2-μ-Approx.

    python experiments/table1_2microaggregation.py [--shared ../shared/datasets]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from incrowd import MDAV, MetricSpace, MuApprox, TwoMicroaggregation
from incrowd.algorithms.exact import optimum
from incrowd.costs import SSE, l_sse
from incrowd.datasets import casc_matrix

SHARED = Path(__file__).resolve().parents[2] / "shared" / "datasets"


def table1(folder: Path) -> None:
    print("Table 1 (k = 2)\n")
    print("| data | method | SSE | L_SSE (%) | seconds | notes |")
    print("|---|---|---|---|---|---|")
    for label, X in (
        ("Tarragona", casc_matrix(folder, "tarragona")),
        ("EIA-600", casc_matrix(folder, "eia", rows=600)),
    ):
        methods = (
            ("MDAV (classic)", MDAV(k=2)),
            ("MDAV (single)", MDAV(k=2, variant="single")),
            ("μ-Approx", MuApprox(k=2)),
            ("2-μ-Approx", TwoMicroaggregation()),
        )
        for name, model in methods:
            start = time.perf_counter()
            model.fit(X)
            seconds = time.perf_counter() - start
            notes = ""
            if isinstance(model, TwoMicroaggregation):
                proven = "proven optimal" if model.factor_optimal_ else "not proven"
                notes = (
                    f"factor weight {model.factor_weight_:.6g} ({proven}); "
                    f"certified ratio {model.certified_ratio_:.4f}"
                )
            sse = SSE.on(MetricSpace.from_array(X))
            print(
                f"| {label} | {name} | {sse.of(model.labels_):.6g} | "
                f"{l_sse(sse, model.labels_):.6g} | {seconds:.2f} | {notes} |"
            )


def table2(folder: Path, samples: int = 10, seed: int = 2005) -> None:
    print("\nTable 2: 10 samples of 15 Census records (k = 2)\n")
    print("| sample | optimal SSE | 2-μ-Approx SSE | ratio |")
    print("|---|---|---|---|")
    X = casc_matrix(folder, "census")
    rng = np.random.default_rng(seed)
    ratios = []
    for s in range(1, samples + 1):
        rows = X[rng.choice(len(X), size=15, replace=False)]
        opt = optimum(SSE.on(MetricSpace.from_array(rows)), len(rows), 2)[0]
        approx = TwoMicroaggregation().fit(rows).cost_
        ratios.append(approx / opt)
        print(f"| {s} | {opt:.6g} | {approx:.6g} | {approx / opt:.4f} |")
    print(f"\nratio: mean {np.mean(ratios):.4f}, max {np.max(ratios):.4f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=SHARED)
    args = parser.parse_args()
    table1(args.shared)
    table2(args.shared)


if __name__ == "__main__":
    main()
