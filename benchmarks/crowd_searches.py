"""What ``local-recoding``'s crowd and excess searches cost on large tables.

The two searches (``crowd_bound``, ``excess_bound``) only raise the certificate's lower bound
(the release is the same with or without them), and need every record's 48 nearest records.
Each size is run both ways in a process of its own, at k = 5 on ``make_census(n,
random_state=0)`` with all its quasi-identifiers (zip code and native country included):
the whole ``anonymize`` call's seconds, the NCP and the certified ratio. They run up to
``CROWD_BOUND_MAX_ROWS`` records; here the limit is set either way for the run.

    python benchmarks/crowd_searches.py [--rows 100000 200000]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

from _results import save, table, titled

K = 5


def one(n: int, searched: bool) -> dict:
    """One release in this process: the searches on (or off) whatever ``n``."""
    import incrowd
    from incrowd.algorithms import recoding

    recoding.CROWD_BOUND_MAX_ROWS = n if searched else 0
    data, schema = incrowd.make_census(n, random_state=0)
    start = time.perf_counter()
    meta = incrowd.anonymize(data, schema, K, seed=1).metadata
    return {"rows": n, "searches": searched, "seconds": round(time.perf_counter() - start, 1),
            "ncp": round(meta["loss"]["ncp"], 4),
            "certified_ratio": round(meta["certified_ratio"], 3)}  # fmt: skip


def main() -> None:
    if sys.argv[1:2] == ["--one"]:
        print(json.dumps(one(int(sys.argv[2]), sys.argv[3] == "on")))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="*", default=[100_000, 200_000])
    args = parser.parse_args()
    rows, lines = [], []
    for n in args.rows:
        for mode in ("on", "off"):
            done = subprocess.run([sys.executable, __file__, "--one", str(n), mode],
                                  capture_output=True, text=True, check=True)  # fmt: skip
            row = json.loads(done.stdout.strip().splitlines()[-1])
            rows.append(row)
            print(row, flush=True)
            lines.append([f"{n:,}", mode, row["seconds"], row["ncp"], row["certified_ratio"]])
    done = titled(
        "census rows with zip codes, the bound's crowd searches on and off",
        ["records", "searches", "seconds", "NCP", "certified ratio"],
        lines,
    )
    print()
    print(table(done["header"], done["rows"]))
    save("crowd_searches", rows, [done])


if __name__ == "__main__":
    main()
