"""Factor-method benchmark: 2-μ-Approx (the [1,2]-factor) at the sizes of the issue.

EIA-600 and the full EIA (4,092 records, 11 numeric attributes, standardized) and 100,000
standard Gaussian points in R^8, k = 2. For each: seconds of the whole fit (neighbours,
exact factor, certificate), SSE, L_SSE, whether the factor is proven minimum over all
pairs (else the proven gap), and the certified ratio SSE / lower bound. The paper needed
81 minutes for EIA-600. Each configuration runs in its own process (peak memory is its own).

    python benchmarks/factors.py [--shared ../shared/datasets] [--quick]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

from _results import save, table, titled

SHARED = Path(__file__).resolve().parents[2] / "shared" / "datasets"


def run_one(name: str, shared: Path) -> dict:
    import numpy as np

    from incrowd import MetricSpace, TwoMicroaggregation
    from incrowd.costs import SSE, l_sse
    from incrowd.datasets import casc_matrix

    TwoMicroaggregation().fit(np.random.default_rng(0).normal(size=(40, 3)))  # warm-up
    if name == "gauss-100k":
        X = np.random.default_rng(12345).standard_normal((100_000, 8))
        X = (X - X.mean(axis=0)) / X.std(axis=0)
    else:
        X = casc_matrix(shared, "eia", rows=600 if name == "eia-600" else None)
    start = time.perf_counter()
    model = TwoMicroaggregation().fit(X)
    seconds = time.perf_counter() - start
    gap = model.factor_gap_
    return {
        "data": name,
        "n": int(X.shape[0]),
        "seconds": round(seconds, 2),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "sse": float(f"{model.cost_:.6g}"),
        "l_sse": float(f"{l_sse(SSE.on(MetricSpace.from_array(X)), model.labels_):.6g}"),
        "factor_optimal": bool(model.factor_optimal_),
        "factor_gap": float(f"{gap:.3g}"),
        "candidate_edges": int(model.n_candidate_edges_),
        "certified_ratio": round(float(model.certified_ratio_), 4),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=SHARED)
    parser.add_argument("--quick", action="store_true", help="EIA only")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(run_one(args.one, args.shared)))
        return
    names = ["eia-600", "eia-4092"] + ([] if args.quick else ["gauss-100k"])
    rows, lines = [], []
    for name in names:
        out = subprocess.run(
            [sys.executable, __file__, "--one", name, "--shared", str(args.shared)],
            check=True, capture_output=True, text=True,
        )  # fmt: skip
        row = json.loads(out.stdout.strip().splitlines()[-1])
        rows.append(row)
        factor = "proven optimal" if row["factor_optimal"] else f"within {row['factor_gap']:.3%}"
        lines.append([row["data"], row["n"], row["seconds"], row["peak_rss_mb"], row["sse"],
                      row["l_sse"], factor, row["certified_ratio"]])  # fmt: skip
        print(lines[-1], flush=True)
    done = titled("k = 2; each configuration in its own process",
                  ["data", "n", "seconds", "peak MB", "SSE", "L_SSE %", "the [1,2]-factor",
                   "certified ratio"], lines)  # fmt: skip
    save("factors", rows, [done])
    print(table(done["header"], done["rows"]))


if __name__ == "__main__":
    main()
