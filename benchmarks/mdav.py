"""MDAV benchmark: standardized Gaussian microdata, p = 8, n = 10,000 and 100,000, k = 3 and 5.

Each configuration runs in its own process so that peak memory (ru_maxrss) is its own. The
first run of a fresh checkout compiles the numba kernels (cached afterwards); a warm-up run
on tiny data happens before timing. Prints a markdown table next to sdcMicro's MDAV as
measured on this machine type (../shared/notes: ~55 s CPU, L_SSE ≈ 8.16 % at n = 100,000,
p = 8, k = 5) and writes benchmarks/results/mdav.json.

    python benchmarks/mdav.py            # all configurations
    python benchmarks/mdav.py --quick    # n = 10,000 only
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time

from _results import save, table, titled

SDCMICRO = {(100_000, 5): {"seconds": 55.0, "l_sse": 8.16}}


def run_one(n: int, p: int, k: int, variant: str) -> dict:
    import numpy as np

    from incrowd import MDAV, MetricSpace
    from incrowd.costs import SSE, l_sse

    MDAV(k=k, variant=variant).fit(np.random.default_rng(0).normal(size=(50, p)))  # warm-up
    X = np.random.default_rng(12345).standard_normal((n, p))
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    start = time.perf_counter()
    cpu = time.process_time()
    model = MDAV(k=k, variant=variant).fit(X)
    seconds = time.perf_counter() - start
    cpu = time.process_time() - cpu
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {
        "n": n,
        "p": p,
        "k": k,
        "variant": variant,
        "seconds": round(seconds, 3),
        "cpu_seconds": round(cpu, 3),
        "peak_rss_mb": round(peak_mb, 1),
        "l_sse": round(l_sse(SSE.on(MetricSpace.from_array(X)), model.labels_), 4),
        "min_crowd": model.partition_.min_size,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--one", nargs=4, metavar=("N", "P", "K", "VARIANT"))
    args = parser.parse_args()
    if args.one:
        n, p, k, variant = args.one
        print(json.dumps(run_one(int(n), int(p), int(k), variant)))
        return
    sizes = [10_000] if args.quick else [10_000, 100_000]
    rows = []
    for n in sizes:
        for k in (3, 5):
            for variant in ("classic", "single"):
                cmd = [sys.executable, __file__, "--one", str(n), "8", str(k), variant]
                out = subprocess.run(cmd, capture_output=True, text=True, check=True)
                rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
                print(f"done n={n} k={k} {variant}: {rows[-1]['seconds']} s", file=sys.stderr)
    lines = []
    for r in rows:
        peer = SDCMICRO.get((r["n"], r["k"])) if r["variant"] == "classic" else None
        lines.append([f"{r['n']:,}", r["k"], r["variant"], f"{r['seconds']:.2f}",
                      f"{r['cpu_seconds']:.2f}", f"{r['peak_rss_mb']:.0f}", f"{r['l_sse']:.3f}",
                      f"{peer['seconds']:.0f} (CPU)" if peer else "–",
                      f"{peer['l_sse']:.2f}" if peer else "–"])  # fmt: skip
    done = titled("standardized Gaussian, p = 8; sdcMicro's MDAV as measured on this machine "
                  "type (shared notes)",
                  ["n", "k", "variant", "incrowd s (wall)", "CPU s", "peak RSS MB", "L_SSE %",
                   "sdcMicro s", "sdcMicro L_SSE %"], lines)  # fmt: skip
    save("mdav", rows, [done])
    print(table(done["header"], done["rows"]))


if __name__ == "__main__":
    main()
