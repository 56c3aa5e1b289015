"""The first run after installing: `make demo`'s anonymize with no compiled kernel cached,
and how long the commands that do no work take to answer (``--version``, ``--help``,
``methods``: issue 44's start-up targets, 0.35 s for ``--help``).

Each run gets an empty kernel cache (``NUMBA_CACHE_DIR`` in a fresh temporary folder, and the
package's own ``__pycache__`` kernels ignored by pointing numba there), so the first figure
is what a new user waits; the second run in the same cache is the warm figure. Seconds are
wall time of the whole command (``incrowd anonymize ...`` in a new process), as the user sees.

Start-up figures are the median of seven runs, each a new process (after one unmeasured
run, so that Python's own bytecode cache is warm, as after installing).

    python benchmarks/cold_start.py
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _results import save, titled

ROOT = Path(__file__).resolve().parents[1]
ADULT = ROOT / "src" / "incrowd" / "datasets" / "adult"
QIS = "age,sex,race,marital-status,education,native-country,workclass,occupation"


def command(out: Path) -> list[str]:
    hier = []
    for a in ("sex", "race", "marital-status", "education", "native-country", "workclass",
              "occupation"):  # fmt: skip
        hier += ["--hierarchy", f"{a}={ADULT / f'adult_hierarchy_{a}.csv'}"]
    return [sys.executable, "-m", "incrowd", "anonymize", str(ADULT / "adult.csv"), "--qi", QIS,
            "--sensitive", "salary-class", *hier, "--k", "5", "--method", "forest",
            "--release", "generalized", "--seed", "1", "--out", str(out), "--quiet"]  # fmt: skip


#: The commands that answer without reading a table, and issue 44's target for each.
QUICK = (("--version", None), ("--help", 0.35), ("methods", None), ("anonymize --help", None))


def startup() -> tuple[list[dict], dict]:
    rows = []
    for args, target in QUICK:
        line = [sys.executable, "-m", "incrowd", *args.split()]
        subprocess.run(line, capture_output=True, check=True)
        times = []
        for _ in range(7):
            start = time.perf_counter()
            subprocess.run(line, capture_output=True, check=True)
            times.append(time.perf_counter() - start)
        median = sorted(times)[len(times) // 2]
        print(f"incrowd {args}: {median:.2f} s (median of 7)")
        rows.append({"run": f"incrowd {args}", "seconds": round(median, 2), "target": target})
    table = titled("commands that read no table, in a new process (median of 7)",
                   ["command", "seconds", "issue 44's target"],
                   [[r["run"], r["seconds"], "—" if r["target"] is None else r["target"]]
                    for r in rows])  # fmt: skip
    return rows, table


def main() -> None:
    quick_rows, quick_table = startup()
    rows = []
    with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as out:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        for label in ("cold (nothing compiled)", "warm (kernels cached)"):
            start = time.perf_counter()
            done = subprocess.run(command(Path(out) / "adult-k5.csv"), env=env,
                                  capture_output=True, text=True)  # fmt: skip
            seconds = time.perf_counter() - start
            assert done.returncode == 0, done.stderr
            reported = [line for line in done.stdout.splitlines() if line.startswith("loss")]
            print(f"{label}: {seconds:.1f} s for the command; {reported[0].split('; ')[-1]}")
            rows.append({"run": label, "seconds": round(seconds, 1),
                         "reported": reported[0].split("; ")[-1]})  # fmt: skip
    lines = [[r["run"], r["seconds"], r["reported"]] for r in rows]
    done = titled("incrowd anonymize of Adult (k = 5, forest) in a new process, as make demo "
                  "runs it",
                  ["run", "seconds of the command", "anonymize reports"], lines)  # fmt: skip
    save("cold_start", rows + quick_rows, [done, quick_table])


if __name__ == "__main__":
    main()
