"""The suppression limit of the local methods (issue 46): how much loss deleting up to 1 % or
5 % of the records saves local recoding and the forest, on Adult and on census records with
zip codes.

Adult: 30,162 records, 8 quasi-identifiers (age numeric, the rest with ARX's hierarchies);
census: ``make_census(N)`` (the same attributes and a 5-digit zip code with a prefix
hierarchy, income sensitive and not a constraint). Each run is ``incrowd.anonymize`` in this
process with ``suppression_limit`` 0, 0.01 and 0.05; NCP as every comparison scores it
(``../shared/notes/ncp-definition.md``: a deleted record costs 1 in every cell), with the
records deleted and the seconds of the run (the compiled kernels warmed first).

    python benchmarks/suppression_limit.py [--census N] [--k 5 10] [--save]
"""

from __future__ import annotations

import argparse
import time

from _results import save, table, titled

import incrowd
from incrowd.datasets import load_adult, make_census

LIMITS = (0.0, 0.01, 0.05)
METHODS = ("local-recoding", "forest")


def measure(name: str, data, schema, k: int, method: str, limit: float) -> dict:
    start = time.perf_counter()
    release = incrowd.anonymize(data, schema, k, method=method, suppression_limit=limit, seed=1)
    seconds = time.perf_counter() - start
    meta = release.metadata
    return {
        "table": name, "n": len(data), "k": k, "method": method, "limit": limit,
        "ncp": round(float(meta.loss["ncp"]), 4), "deleted": int(meta.n_suppressed),
        "certified_ratio": round(float(meta.certified_ratio), 3), "seconds": round(seconds, 1),
    }  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, nargs="*", default=[5, 10])
    parser.add_argument("--census", type=int, default=30_000, help="census records (0: none)")
    parser.add_argument("--save", action="store_true", help="write results/suppression_limit.json")
    args = parser.parse_args()
    tables = [("adult", *load_adult())]
    if args.census:
        tables.append(("census", *make_census(args.census, random_state=0)))
    small, small_schema = tables[0][1].head(200), tables[0][2]
    for method in METHODS:  # compile the kernels before timing
        incrowd.anonymize(small, small_schema, 5, method=method, suppression_limit=0.05, seed=1)
    rows = []
    for name, data, schema in tables:
        for k in args.k:
            for method in METHODS:
                for limit in LIMITS:
                    rows.append(measure(name, data, schema, k, method, limit))
                    print(rows[-1], flush=True)
    header = ["table", "k", "method", "limit", "NCP", "deleted", "certified ratio", "s"]
    cells = [[r["table"], r["k"], r["method"], r["limit"], r["ncp"], r["deleted"],
              r["certified_ratio"], r["seconds"]] for r in rows]  # fmt: skip
    result = [titled("Local methods with a suppression limit: NCP (a deleted record costs 1 "
                     "per cell), records deleted, seconds", header, cells)]  # fmt: skip
    print()
    print(table(header, cells))
    if args.save:
        save("suppression_limit", rows, result)


if __name__ == "__main__":
    main()
