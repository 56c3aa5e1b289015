"""r-Gather family benchmark: seconds, peak memory, radius, lower bound, certified ratio.

Inputs: the Adult data (30,162 records, 8 QIs as in the demo), and standard Gaussian points
with n = 10^4, 10^5 (R^8) and 10^6 (R^4); r = 5. Each run is its own process so its peak
RSS is its own. Budgets from the issue: Adult <= 3 s, 10^5 x R^8 <= 30 s, 10^6 x R^4 <= 90 s
and <= 4 GB (RGather). No peer tool implements these methods; the table shows the certified
ratio instead (radius / a proven lower bound on the optimum).

    python benchmarks/gather.py                 # every method, n up to 10^5, plus Adult
    python benchmarks/gather.py --million       # add n = 10^6
    python benchmarks/gather.py --methods r-gather --million
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time

from _results import save, table, titled

PARAMS = {
    "r-gather": {},
    "r-gather-outliers": {"epsilon": 0.02},
    "kr-center": {"max_clusters": 100},
    "kr-center-outliers": {"max_clusters": 100, "epsilon": 0.02},
}


def run_one(method: str, data: str) -> dict:
    import numpy as np

    from incrowd import METHODS, MetricSpace, load_adult

    if data == "adult":
        table, schema = load_adult()
        space = MetricSpace.from_table(table, schema)
    else:
        n, d = (int(v) for v in data.split("x"))
        space = MetricSpace.from_array(np.random.default_rng(7).standard_normal((n, d)))
    cls = METHODS[method]
    model = cls(k=5, **PARAMS[method])
    start = time.perf_counter()
    model.fit(space)
    seconds = time.perf_counter() - start
    part = model.partition_
    return {
        "method": method,
        "data": data,
        "n": space.n,
        "dim": space.dim,
        "seconds": round(seconds, 2),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "clusters": part.n_clusters,
        "suppressed": part.n_suppressed,
        "radius": round(model.radius_, 5),
        "lower_bound": round(model.lower_bound_, 5),
        "certified_ratio": round(model.certified_ratio_ or float("nan"), 4),
        "tests": model.n_tests_,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--million", action="store_true")
    parser.add_argument("--methods", default=",".join(PARAMS))
    parser.add_argument("--one", nargs=2, metavar=("METHOD", "DATA"))
    args = parser.parse_args()
    if args.one:
        print(json.dumps(run_one(*args.one)))
        return
    datasets = ["adult", "10000x8", "100000x8"] + (["1000000x4"] if args.million else [])
    rows = []
    for method in args.methods.split(","):
        for data in datasets:
            cmd = [sys.executable, __file__, "--one", method, data]
            out = subprocess.run(cmd, capture_output=True, text=True)
            if out.returncode:
                print(f"{method} {data} failed: {out.stderr.strip()[-300:]}", file=sys.stderr)
                continue
            rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
            print(f"done {method} {data}: {rows[-1]['seconds']} s", file=sys.stderr)
    lines = [[r["method"], r["data"], f"{r['n']:,}", r["seconds"], r["peak_rss_mb"],
              r["clusters"], r["suppressed"], f"{r['radius']:.4g}", f"{r['lower_bound']:.4g}",
              r["certified_ratio"], r["tests"]] for r in rows]  # fmt: skip
    done = titled("k = 5, ε = 0.02, at most 100 crowds; seconds of fit in a fresh process",
                  ["method", "data", "n", "s", "peak MB", "clusters", "suppressed", "radius",
                   "lower bound", "certified ratio", "tests"], lines)  # fmt: skip
    save("gather", rows, [done])
    print(table(done["header"], done["rows"]))


if __name__ == "__main__":
    main()
