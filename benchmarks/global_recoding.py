"""Global recoding (issue 46): incrowd's optimal full-domain generalization with a 5 %
suppression limit, side by side with ARX's, on Adult, and on 1,000,000 census records.

Adult: 30,162 records, the 8 quasi-identifiers with ARX's hierarchies (age included),
salary-class insensitive (not a constraint), k = 2, 5, 10, 25. Each run is the whole
command (``incrowd anonymize --method global-recoding --suppression-limit 0.05``) in a new
process, as ARX's figures are the whole process with the JVM. The release is scored by the
independent checker (``ncp_checker.py``, ``../shared/notes/ncp-definition.md``: a
suppressed record costs 1 in every cell) and checked by ``incrowd verify``.

ARX 3.9.2, measured on this machine type (``../shared/notes/ncp-definition.md``,
2026-11-22): optimal global recoding (Flash), k-anonymity, suppression limit 5 %, its loss
metric; NCP 0.1836 / 0.2933 / 0.3453 / 0.4322 at k = 2 / 5 / 10 / 25, in 1.5 / 2.3 / 2.8 /
2.2 s whole process.

Census: ``make_census(1_000_000)`` written to CSV, the same 8 quasi-identifiers (age with
ARX's hierarchy), k = 5; whole process and its peak memory (the child's maximum resident
set).

    python benchmarks/global_recoding.py [--census N] [--save]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import ncp_checker
import pandas as pd
from _results import save, table, titled

ROOT = Path(__file__).resolve().parents[1]
ADULT = ROOT / "src" / "incrowd" / "datasets" / "adult"
QIS = ("age", "sex", "race", "marital-status", "education", "native-country", "workclass",
       "occupation")  # fmt: skip
#: ARX 3.9.2 optimal global recoding, 5 % suppression: (NCP, whole-process seconds).
ARX = {2: (0.1836, 1.5), 5: (0.2933, 2.3), 10: (0.3453, 2.8), 25: (0.4322, 2.2)}
#: Issue 46's goals: whole-process seconds.
GOALS = {2: 1.5, 5: 2.0, 10: 2.0, 25: 2.0}


def command(source: Path, out: Path, k: int, sep: str) -> list[str]:
    hier = []
    for q in QIS:
        hier += ["--hierarchy", f"{q}={ADULT / f'adult_hierarchy_{q}.csv'}"]
    return [sys.executable, "-m", "incrowd", "anonymize", str(source), "--qi", ",".join(QIS),
            "--insensitive", "salary-class", *hier, "--k", str(k), "--method", "global-recoding",
            "--suppression-limit", "0.05", "--seed", "1", "--out", str(out), "--quiet"]  # fmt: skip


def run(source: Path, out: Path, k: int, sep: str) -> dict:
    start = time.perf_counter()
    done = subprocess.run(command(source, out, k, sep), capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(done.stderr)
    check = subprocess.run([sys.executable, "-m", "incrowd", "verify", str(out)],
                           capture_output=True, text=True)  # fmt: skip
    meta = json.loads(out.with_suffix(".json").read_text())
    original = pd.read_csv(source, sep=sep, dtype=str, keep_default_na=False)
    published = pd.read_csv(out, sep=sep, dtype=str, keep_default_na=False)
    hierarchies = {q: ncp_checker.read_hierarchy(ADULT / f"adult_hierarchy_{q}.csv") for q in QIS}
    return {
        "k": k,
        "ncp": round(ncp_checker.ncp(original, published, list(QIS), hierarchies), 4),
        "ncp_reported": round(meta["loss"]["ncp"], 4),
        "levels": meta["levels"],
        "suppressed": meta["n_suppressed"],
        "optimal": meta["certificate"]["optimal"],
        "lattice_nodes": meta["certificate"]["lattice_nodes"],
        "nodes_evaluated": meta["certificate"]["nodes_evaluated"],
        "verify_ok": check.returncode == 0,
        "seconds": round(seconds, 2),
        "peak_gb": round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 2**20, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, nargs="*", default=[2, 5, 10, 25])
    parser.add_argument("--census", type=int, default=1_000_000, help="records (0: none)")
    parser.add_argument("--save", action="store_true", help="write results/global_recoding.json")
    args = parser.parse_args()
    rows, lines = [], []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        run(ADULT / "adult.csv", folder / "warm.csv", 5, ";")  # Python's bytecode cache
        for k in args.k:
            row = run(ADULT / "adult.csv", folder / f"adult-k{k}.csv", k, ";")
            rows.append(row | {"table": "adult"})
            print(row, flush=True)
            arx = ARX.get(k, ("—", "—"))
            lines.append([k, f"**{row['ncp']:.4f}**", arx[0], row["suppressed"],
                          "yes" if row["optimal"] else "no",
                          f"{row['nodes_evaluated']} / {row['lattice_nodes']}",
                          f"**{row['seconds']}**", arx[1], GOALS.get(k, "—")])  # fmt: skip
        tables = [titled(
            "Adult, 5 % suppression limit: NCP by the independent checker; whole process "
            "(ARX: Flash, its loss metric, JVM included)",
            ["k", "incrowd NCP", "ARX NCP", "suppressed", "proven optimal",
             "nodes evaluated / lattice", "incrowd s", "ARX s", "goal s"],
            lines,
        )]  # fmt: skip
        print()
        print(table(tables[-1]["header"], tables[-1]["rows"]))
        if args.census:
            from incrowd.datasets import make_census

            data, _ = make_census(args.census, random_state=0)
            source = folder / "census.csv"
            data.drop(columns=["zip", "state"]).rename(columns={"income": "salary-class"}).to_csv(
                source, sep=";", index=False
            )
            row = run(source, folder / "census-k5.csv", 5, ";") | {
                "table": "census",
                "n": args.census,
            }
            rows.append(row)
            print(row, flush=True)
            tables.append(titled(
                f"census ({args.census:,} records, 8 QIs), k = 5, 5 % suppression limit",
                ["NCP", "suppressed", "proven optimal", "nodes evaluated / lattice", "s",
                 "peak GB", "goal"],
                [[row["ncp"], row["suppressed"], "yes" if row["optimal"] else "no",
                  f"{row['nodes_evaluated']} / {row['lattice_nodes']}", row["seconds"],
                  row["peak_gb"], "≤ 60 s, ≤ 4 GB"]],
            ))  # fmt: skip
            print(table(tables[-1]["header"], tables[-1]["rows"]))
    if args.save:
        save("global_recoding", rows, tables)


if __name__ == "__main__":
    main()
