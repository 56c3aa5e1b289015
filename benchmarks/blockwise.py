"""Blockwise anonymization at scale (issue 15's goals), on census-like records from
``incrowd.datasets.make_census``, k = 5, with two sets of 8 quasi-identifiers:

- ``adult``: age, sex, race, marital-status, education, native-country, workclass,
  occupation. Resampled from Adult's 30,162 records, a million rows hold few combinations
  that are not already repeated k times: the loss is near 0 at any blocking, and the
  figures show speed and certificates more than loss;
- ``zip``: native-country replaced by the zip code (33,774 values, a hierarchy of its
  leading digits): every record is nearly unique, as in real registers, and the loss is
  real.

| work | goal |
|---|---|
| 10,000,000 records, LocalCluster-like cluster of 2 workers | ≤ 15 min, ≤ 4 GB per worker |
| 1,000,000 records: blocked vs unblocked | loss within 2 % of unblocked |
| speed-up from 1 to 2 workers on 1,000,000 records | ≥ 1.7× |

The cluster is a ``dask scheduler`` and ``dask worker --nworkers N --nthreads 1`` started as
separate processes (so that each worker's peak memory can be read at the end); the release
is written with :func:`incrowd.distributed.write_blocks` to a Parquet dataset and then read
back by :func:`incrowd.verify`. NCP is the metadata's figure: every block is scored against
the whole table's domain, so it is the whole release's NCP (``ncp-definition.md``), and the
loss comparison scores the unblocked release the same way. Writes
``benchmarks/results/blockwise.json``.

    python benchmarks/blockwise.py [loss] [speedup] [scale] [--rows N] [--block-size B]
        [--qis adult|zip] [--method forest|mdav|...] [--repeat R]

``speedup --repeat R`` runs one worker and two workers in turn R times and reports the
median run of each (the machine's load drifts: single runs gave 1.53–1.92×); ``--warm``
runs on workers that have anonymized a small table first, as a long-lived cluster's have.
``contention`` times one block alone and two at once in separate processes: twice the
first over the slower of the pair is the speed-up perfectly parallel work can reach here.

``file`` runs the command line as a user would on a table file: the records are written
to CSV first (not timed), then ``incrowd anonymize in.csv --scheduler tcp://… --spill
always|never`` runs in a process of its own, whose peak memory is the driver's; with
``always`` the driver reads only the quasi-identifiers whole and streams the rest into its
blocks on disk.

The figures quoted in the README and the closing notes come from::

    python benchmarks/blockwise.py loss
    python benchmarks/blockwise.py speedup --repeat 5
    python benchmarks/blockwise.py loss --qis zip --rows 200000 --block-size 50000
    python benchmarks/blockwise.py scale --qis zip --method mdav --block-size 10000
    python benchmarks/blockwise.py file --block-size 50000
    python benchmarks/blockwise.py file --block-size 10000 --qis zip
    python benchmarks/blockwise.py speedup --repeat 3 --warm
    python benchmarks/blockwise.py contention
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _results import RESULTS, command, save, table, titled

import incrowd
from incrowd.datasets import make_census
from incrowd.distributed import verify_release, write_blocks
from incrowd.testing import dask_cluster

BASE = ["age", "sex", "race", "marital-status", "education", "workclass", "occupation"]
QI_SETS = {"adult": [*BASE, "native-country"], "zip": [*BASE, "zip"]}
K = 5


def census(n: int, qis: str, seed: int = 1) -> tuple:
    frame, schema = make_census(n, random_state=seed)
    names = QI_SETS[qis]
    metrics = {q: schema.quasi_identifiers[q] for q in names}
    return frame, incrowd.Schema(metrics, sensitive=["income"])


def worker_peaks(address: str) -> list[float]:
    """Peak resident memory of each worker process, GB."""
    from distributed import Client

    def peak() -> int:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

    with Client(address, timeout=60) as client:
        return sorted(round(v / 2**20, 2) for v in client.run(peak).values())


def blocked_run(frame, schema, workers: int, block_size: int, folder: Path, method: str,
                warm: bool = False) -> dict:  # fmt: skip
    """One blockwise release on fresh workers; ``warm``: each has run ``method`` on a small
    table first (a long-lived cluster's workers have imported incrowd and loaded its
    compiled kernels; fresh ones spend about a second of the run on it)."""
    from distributed import Client

    out = folder / "release.parquet"
    with dask_cluster(workers) as address, Client(address, timeout=60) as watch:
        if warm:
            watch.run(_warm_up, method)
        watch.get_task_stream(start=time.time())  # the scheduler records tasks from now
        began = time.time()
        start = time.perf_counter()
        written = write_blocks(frame, schema, K, out, block_size=block_size, method=method,
                               scheduler=address, seed=1)  # fmt: skip
        seconds = time.perf_counter() - start
        stream = _computing(watch.get_task_stream(start=began), began)
        peaks = worker_peaks(address)
    start = time.perf_counter()
    report = incrowd.verify(out, schema.qi_names, K)
    verify_seconds = time.perf_counter() - start
    meta = written.metadata
    shutil.rmtree(out)
    return {"rows": len(frame), "workers": workers, "block_size": block_size,
            "blocks": meta["blocking"]["n_blocks"], "seconds": round(seconds, 1),
            "ncp": round(meta["loss"]["ncp"], 5), "verified": report.ok,
            "verify_seconds": round(verify_seconds, 1), "worker_peak_gb": peaks,
            "certified_ratio": _round(meta["certified_ratio"]),
            "blocked_certified_ratio": _round(meta["blocked_certified_ratio"]),
            "k_achieved": meta["k_achieved"], **stream}  # fmt: skip


def _warm_up(method: str) -> None:
    import incrowd
    from incrowd.datasets import make_census

    frame, schema = make_census(3_000, random_state=0)
    incrowd.anonymize(frame, schema, K, method=method, seed=0)


def _computing(tasks: list[dict], began: float) -> dict:
    """From Dask's task stream: when the first block started computing and the last ended
    (seconds after the call), and each worker's seconds of computing."""
    spans = [(t["worker"], s["start"] - began, s["stop"] - began)
             for t in tasks for s in t["startstops"] if s["action"] == "compute"]  # fmt: skip
    if not spans:
        return {}
    busy: dict[str, float] = {}
    for worker, a, b in spans:
        busy[worker] = busy.get(worker, 0.0) + b - a
    return {"first_block_starts": round(min(a for _, a, _ in spans), 2),
            "last_block_ends": round(max(b for _, _, b in spans), 2),
            "worker_compute_seconds": sorted(round(v, 2) for v in busy.values())}  # fmt: skip


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 3)


def loss(rows: int, block_size: int, folder: Path, qis: str, method: str) -> list[dict]:
    frame, schema = census(rows, qis)
    incrowd.anonymize(frame.iloc[:5_000], schema, K, method=method, seed=1)  # warm-up
    start = time.perf_counter()
    whole = incrowd.anonymize(frame, schema, K, method=method, seed=1)
    seconds = time.perf_counter() - start
    blocked = blocked_run(frame, schema, 2, block_size, folder, method)
    base = whole.metadata["loss"]["ncp"]
    tag = f"{rows:,} records ({qis} QIs, {method})"
    return [
        {"work": f"{tag} unblocked (one process)", "seconds": round(seconds, 1),
         "ncp": round(base, 5), "certified_ratio": _round(whole.metadata["certified_ratio"])},
        {"work": f"{tag} in {blocked['blocks']} blocks of ≤ {block_size:,}",
         **blocked, "ncp_vs_unblocked": f"{100 * (blocked['ncp'] / base - 1):+.2f} %"},
    ]  # fmt: skip


def speedup(rows: int, block_size: int, folder: Path, qis: str, method: str,
            repeat: int = 1, warm: bool = False) -> list[dict]:  # fmt: skip
    frame, schema = census(rows, qis)
    ones, twos = [], []
    for _ in range(repeat):  # interleaved: a drift in the machine's load meets both
        ones.append(blocked_run(frame, schema, 1, block_size, folder, method, warm))
        twos.append(blocked_run(frame, schema, 2, block_size, folder, method, warm))
    one, two = (sorted(runs, key=lambda r: r["seconds"])[len(runs) // 2] for runs in (ones, twos))
    two["speed_up"] = round(one["seconds"] / two["seconds"], 2)  # of the median runs
    if repeat > 1:
        one["runs_seconds"] = [r["seconds"] for r in ones]
        two["runs_seconds"] = [r["seconds"] for r in twos]
        pairs = zip(ones, twos, strict=True)
        two["speed_ups"] = [round(a["seconds"] / b["seconds"], 2) for a, b in pairs]
    tag = f"{rows:,} records ({qis} QIs, {method}){', warm workers' if warm else ''}"
    return [{"work": f"{tag}, 1 worker", **one}, {"work": f"{tag}, 2 workers", **two}]


def scale(rows: int, block_size: int, folder: Path, qis: str, method: str) -> list[dict]:
    start = time.perf_counter()
    frame, schema = census(rows, qis)
    generated = time.perf_counter() - start
    run = blocked_run(frame, schema, 2, block_size, folder, method)
    run["generate_seconds"] = round(generated, 1)
    run["driver_peak_gb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20, 2)
    return [{"work": f"{rows:,} records ({qis} QIs, {method}), 2 workers", **run}]


#: Runs the command line and prints its peak memory (KiB) last, on standard error.
DRIVER = (
    "import resource, sys\n"
    "from incrowd.cli.app import run\n"
    "code = run(sys.argv[1:])\n"
    "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
    "sys.exit(code)\n"
)


def file(rows: int, block_size: int, folder: Path, qis: str, method: str,
         spills: list[str]) -> list[dict]:  # fmt: skip
    frame, schema = census(rows, qis)
    hierarchies = []  # the same metrics as the Python runs: Adult's hierarchies, zip prefixes
    for name, metric in schema.quasi_identifiers.items():
        if isinstance(metric, incrowd.Hierarchical):
            spec = metric.hierarchy.source
            spec = spec if Path(spec).is_file() else "prefix"
            hierarchies += ["--hierarchy", f"{name}={spec}"]
    source = folder / "in.csv"
    frame[[*QI_SETS[qis], "income"]].to_csv(source, index=False)
    del frame
    size = source.stat().st_size
    results = []
    for spill in spills:
        out = folder / "release.parquet"
        with dask_cluster(2) as address:
            argv = ["anonymize", str(source), "--qi", ",".join(QI_SETS[qis]),
                    "--sensitive", "income", "--k", str(K), "--method", method, "--seed", "1",
                    "--scheduler", address, "--block-size", str(block_size),
                    "--spill", spill, "--out", str(out), "--quiet", *hierarchies]  # fmt: skip
            start = time.perf_counter()
            done = subprocess.run([sys.executable, "-c", DRIVER, *argv], capture_output=True,
                                  text=True, check=False)  # fmt: skip
            seconds = time.perf_counter() - start
            peaks = worker_peaks(address)
            start = time.perf_counter()
            on_dask = verify_release(out, QI_SETS[qis], K, scheduler=address) if (
                not done.returncode) else None  # fmt: skip
            dask_verify_seconds = time.perf_counter() - start
        if done.returncode:
            raise SystemExit(f"incrowd anonymize failed:\n{done.stdout}\n{done.stderr}")
        driver_gb = int(done.stderr.strip().splitlines()[-1]) / 2**20
        meta = json.loads(out.with_suffix(".json").read_text())
        start = time.perf_counter()
        report = incrowd.verify(out, QI_SETS[qis], K)
        verify_seconds = time.perf_counter() - start
        shutil.rmtree(out)
        results.append({
            "work": f"{rows:,} records ({qis} QIs, {method}) from a CSV file, --spill {spill}",
            "rows": rows, "csv_gb": round(size / 2**30, 2), "workers": 2,
            "block_size": block_size, "blocks": meta["blocking"]["n_blocks"],
            "seconds": round(seconds, 1), "ncp": round(meta["loss"]["ncp"], 5),
            "verified": report.ok and on_dask == report,
            "verify_seconds": round(verify_seconds, 1),
            "verify_on_dask_seconds": round(dask_verify_seconds, 1),
            "driver_peak_gb": round(driver_gb, 2), "worker_peak_gb": peaks,
            "certified_ratio": _round(meta["certified_ratio"]),
            "blocked_certified_ratio": _round(meta["blocked_certified_ratio"]),
            "k_achieved": meta["k_achieved"],
        })  # fmt: skip
    return results


def contention(rows: int, block_size: int, folder: Path, qis: str, method: str) -> list[dict]:
    """The machine's ceiling for the speed-up: one block (``block_size`` records) anonymized
    in one process alone, then in two processes side by side (one thread each)."""
    code = (
        "import os, sys, time\n"
        "sys.path.insert(0, sys.argv[1])\n"
        "from blockwise import census, K\n"
        "import incrowd\n"
        "frame, schema = census(int(sys.argv[2]), sys.argv[3])\n"
        "incrowd.anonymize(frame.iloc[:2000], schema, K, method=sys.argv[4], seed=1)\n"
        "sys.stdin.readline()\n"  # start together
        "start = time.perf_counter()\n"
        "incrowd.anonymize(frame, schema, K, method=sys.argv[4], seed=1)\n"
        "print(time.perf_counter() - start)\n"
    )
    env = dict(os.environ, INCROWD_THREADS="1", NUMBA_NUM_THREADS="1", OMP_NUM_THREADS="1")
    args = [sys.executable, "-c", code, str(Path(__file__).resolve().parent), str(block_size),
            qis, method]  # fmt: skip

    def together(n: int) -> list[float]:
        procs = [subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  text=True, env=env) for _ in range(n)]  # fmt: skip
        time.sleep(15)  # every process loaded and warm
        for p in procs:
            p.stdin.write("go\n")
            p.stdin.flush()
        return [float(p.communicate()[0].strip().splitlines()[-1]) for p in procs]

    alone = together(1)[0]
    pair = together(2)
    ceiling = 2 * alone / max(pair)
    return [{
        "work": f"one {block_size:,}-record block ({qis} QIs, {method}): alone, and two at once",
        "seconds": round(alone, 2), "ncp": None,
        "side_by_side_seconds": [round(x, 2) for x in pair], "speed_up_ceiling": round(ceiling, 2),
    }]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("parts", nargs="*", default=["loss", "speedup", "scale"])
    parser.add_argument("--rows", type=int, default=None)
    parser.add_argument("--block-size", type=int, default=None)
    parser.add_argument("--qis", choices=sorted(QI_SETS), default="adult")
    parser.add_argument("--method", default="forest")
    parser.add_argument("--spill", nargs="+", default=["always"], choices=["always", "never"])
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="speedup: interleaved runs of each; the median is reported",
    )
    parser.add_argument(
        "--warm",
        action="store_true",
        help="speedup: workers that have run the method once before (a long-lived cluster)",
    )
    args = parser.parse_args()
    defaults = {"loss": (1_000_000, 250_000), "speedup": (1_000_000, 100_000),
                "scale": (10_000_000, 100_000), "file": (10_000_000, 50_000),
                "contention": (70_000, 70_000)}  # fmt: skip
    path = RESULTS / "blockwise.json"
    saved = json.loads(path.read_text()) if path.exists() else []
    saved = saved["rows"] if isinstance(saved, dict) else saved  # files from before the record
    done = {r["part"] + r["work"]: r for r in saved}
    for part in args.parts:
        rows, block = defaults[part]
        rows, block = args.rows or rows, args.block_size or block
        with tempfile.TemporaryDirectory() as folder:
            extra = {"spills": args.spill} if part == "file" else {}
            extra = {"repeat": args.repeat, "warm": args.warm} if part == "speedup" else extra
            results = globals()[part](rows, block, Path(folder), args.qis, args.method, **extra)
        for r in results:
            done[part + r["work"]] = {"part": part, "command": command(), **r}
            print(json.dumps(r), flush=True)
    out = list(done.values())
    shown = titled("each part's latest run (its command in the JSON's rows)",
                   ["part", "work", "seconds", "ncp", "blocks", "worker peak GB"],
                   [[r["part"], r["work"], r["seconds"], r["ncp"], r.get("blocks", 1),
                     r.get("worker_peak_gb", "")] for r in out])  # fmt: skip
    save("blockwise", out, [shown])
    print(table(shown["header"], shown["rows"]))


if __name__ == "__main__":
    main()
