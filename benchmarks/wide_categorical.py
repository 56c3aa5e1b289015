"""A quasi-identifier with 200,000 distinct values: forest and MDAV at 200,000 records.

Issue 9: a categorical QI with many values was one-hot encoded densely (200,000 names asked
for a 298 GiB array). Now it is kept as codes. The table: a first name that is unique per
record (200,000 values), a county (2,008 values), age and sex; k = 5. Each method runs in
its own process; the figure is the whole ``incrowd.anonymize`` call and the process's peak
memory.

    python benchmarks/wide_categorical.py
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time

from _results import save, titled
from _results import table as markdown

N = 200_000


def table(n: int):  # noqa: ANN201
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(7)
    return pd.DataFrame(
        {
            "name": [f"name{i:06d}" for i in rng.permutation(n)],
            "county": [f"county{c:04d}" for c in rng.integers(0, 2008, n)],
            "age": rng.integers(18, 90, n),
            "sex": rng.choice(["F", "M"], n),
        }
    )


def run_one(method: str) -> dict:
    import incrowd
    from incrowd import Categorical, Numeric, Schema

    frame = table(N)
    schema = Schema({"name": Categorical(), "county": Categorical(), "age": Numeric(),
                     "sex": Categorical()})  # fmt: skip
    incrowd.anonymize(frame.iloc[:300], schema, 5, method=method, seed=1)  # compile
    start = time.perf_counter()
    rel = incrowd.anonymize(frame, schema, 5, method=method, seed=1)
    seconds = time.perf_counter() - start
    meta = rel.metadata
    return {
        "method": method,
        "records": N,
        "distinct_names": int(frame["name"].nunique()),
        "seconds": round(seconds, 1),
        "peak_rss_gb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20, 2),
        "k_achieved": meta["k_achieved"],
        "ncp": round(meta["loss"]["ncp"], 4),
        "certified_ratio": meta["certified_ratio"],
    }


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--one":
        print(json.dumps(run_one(sys.argv[2])))
        return
    rows = []
    for method in ("forest", "mdav"):
        done = subprocess.run([sys.executable, __file__, "--one", method], capture_output=True,
                              text=True, check=True)  # fmt: skip
        rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
        print(rows[-1])
    header = ["method", "records", "distinct names", "seconds", "peak memory", "NCP"]
    lines = [[r["method"], f"{r['records']:,}", f"{r['distinct_names']:,}", r["seconds"],
              f"{r['peak_rss_gb']} GB", r["ncp"]] for r in rows]  # fmt: skip
    done = titled("a name, county, age and sex per record; k = 5; each method in its own process",
                  header, lines)  # fmt: skip
    save("wide_categorical", rows, [done])
    print("\n" + markdown(header, lines))


if __name__ == "__main__":
    main()
