"""Adult k-anonymity benchmark: incrowd's generalized releases against ARX and Mondrian.

Adult (30,162 records; QIs age, sex, race, marital-status, education, native-country,
workclass, occupation; ARX's hierarchies) at k = 2, 5, 10, 25, 50, in three settings:

- ``labels``: every QI, age included, published as a label of its ARX hierarchy — the
  setting of ARX local recoding — by the default method (``local-recoding``), by it with
  its former seeds (``seeds=rounds``: iterated global recodings) and by the paper's
  ``forest``;
- ``sets``: categorical QIs published as the set of values present, age as a range — the
  setting of Mondrian (anonypy / anonypyx) — by the default method.

Every release is written to a file, read back and scored by ``ncp_checker.py`` (the NCP of
``ncp-definition.md``, sharing no code with incrowd), and verified k-anonymous by
``incrowd.verify`` from the published table alone. Seconds are the whole
``incrowd.anonymize`` call (crowds, release, verification, loss) after a warm-up, so a
process adds start-up (about 1 s) to them. The peers' figures are quoted from
``ncp-definition.md`` (measured on this machine with the same definition; ARX 3.9.2 local
recoding as in ARX's example: suppression limit 1, loss metric with weight 0, then
``optimizeIterativeFast(output, 0.01)``; Mondrian as anonypy with value sets).

    python benchmarks/adult.py           # k = 2, 5, 10, 25, 50
    python benchmarks/adult.py --k 5     # one k
    python benchmarks/adult.py --k 25 --bound-rounds 2 3   # also the labels release with
                                         # 2 and 3 rounds of dual ascent on its certificate
    python benchmarks/adult.py --k 10 25 --only-variants --search-seconds 600
                                         # only the labels release with 10 minutes of
                                         # neighbourhood search (search_seconds)

It writes ``results/adult.json``, or with ``--only-variants`` ``results/adult-variants.json``;
``--save NAME`` writes ``results/NAME.json`` instead, so that runs of several variants each
keep their own file.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import ncp_checker
import pandas as pd
from _results import save, table, titled

#: NCP of the peers on Adult, from ../shared/notes/ncp-definition.md (2026-11-22)
ARX_LOCAL = {2: 0.0308, 5: 0.0611, 10: 0.0847, 25: 0.1228}
MONDRIAN = {2: 0.0095, 5: 0.0320, 10: 0.0584, 25: 0.1062}
#: The goals of issue 11 (labels, sets)
GOALS = {2: (0.020, 0.0050), 5: (0.052, 0.0170), 10: (0.075, 0.0340), 25: (0.110, 0.0700)}

SETTINGS = {
    # name: (age, generalize, method, params)
    "labels, local-recoding": ("hierarchy", "levels", None, None),
    "labels, seeds=rounds": ("hierarchy", "levels", None, {"seeds": "rounds"}),
    "labels, forest": ("hierarchy", "levels", "forest", None),
    "sets, local-recoding": ("numeric", "sets", None, None),
}


def run(
    k: int, age: str, form: str, method: str | None, folder: Path, params: dict | None = None
) -> dict:
    import incrowd
    from incrowd.datasets import ADULT_QIS, adult_hierarchy_path

    data, schema = incrowd.load_adult(age=age)
    start = time.perf_counter()
    release = incrowd.anonymize(
        data, schema, k, method=method, params=params, generalize=form, seed=1
    )
    seconds = time.perf_counter() - start
    path = folder / f"adult-k{k}.csv"
    release.write(path)
    published = pd.read_csv(path, dtype=str, keep_default_na=False)
    original = data.astype(str)
    named = [q for q in ADULT_QIS if age == "hierarchy" or q != "age"]
    hierarchies = {q: ncp_checker.read_hierarchy(adult_hierarchy_path(q)) for q in named}
    meta = release.metadata
    report = incrowd.verify(published, list(ADULT_QIS), k, metadata=meta)
    assert report.ok, report.problems
    return {
        "k": k,
        "method": meta["method"],
        "ncp": round(ncp_checker.ncp(original, published, list(ADULT_QIS), hierarchies), 4),
        "ncp_reported": round(meta["loss"]["ncp"], 4),
        "avg_crowd": round(meta["loss"]["avg_crowd_size"], 2),
        "certified_ratio": round(meta["certified_ratio"], 3),
        # the lower bound in NCP (unit weights: the cost is NCP times records times QIs)
        "bound_ncp": round(meta["lower_bound"] / (len(data) * len(ADULT_QIS)), 4),
        "seconds": round(seconds, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, nargs="*", default=[2, 5, 10, 25, 50])
    parser.add_argument("--bound-rounds", type=int, nargs="*", default=[],
                        help="also run the labels release with these bound_rounds")  # fmt: skip
    parser.add_argument("--search-seconds", type=float, nargs="*", default=[],
                        help="also run it with these seconds of neighbourhood search")  # fmt: skip
    parser.add_argument("--only-variants", action="store_true",
                        help="only those, not the four settings of the main table")  # fmt: skip
    parser.add_argument("--save", help="results/NAME.json to write")
    args = parser.parse_args()
    rows, lines = [], []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        run(5, "numeric", "levels", None, folder)  # warm-up: imports and kernels
        for k in [] if args.only_variants else args.k:
            found = {}
            for name, (age, form, method, params) in SETTINGS.items():
                row = run(k, age, form, method, folder, params) | {"setting": name}
                rows.append(row)
                found[name] = row
                print(name, row, flush=True)
            labels, forest = found["labels, local-recoding"], found["labels, forest"]
            rounds, sets = found["labels, seeds=rounds"], found["sets, local-recoding"]
            goal = GOALS.get(k, ("—", "—"))
            lines.append([
                k, f"**{labels['ncp']:.4f}**", f"{rounds['ncp']:.4f}", f"{forest['ncp']:.4f}",
                ARX_LOCAL.get(k, "—"), goal[0], f"**{sets['ncp']:.4f}**", MONDRIAN.get(k, "—"),
                goal[1], f"{labels['certified_ratio']} / {sets['certified_ratio']}",
                f"{labels['seconds']} / {rounds['seconds']} / {sets['seconds']}",
            ])  # fmt: skip
    tables = []
    if lines:
        tables.append(titled(
            "NCP by the independent checker; peers (ARX local recoding, Mondrian) as measured "
            "on this machine type (ncp-definition.md, 2026-11-22); certified ratio labels / sets",
            ["k", "labels: incrowd", "labels: seeds=rounds", "labels: forest",
             "ARX local recoding", "goal", "sets: incrowd", "Mondrian", "goal",
             "certified ratio", "s (labels / rounds / sets)"],
            lines,
        ))  # fmt: skip
        print()
        print(table(tables[-1]["header"], tables[-1]["rows"]))
    variants = [("bound_rounds", n) for n in args.bound_rounds]
    variants += [("search_seconds", s) for s in args.search_seconds]
    if variants:
        deeper = []
        with tempfile.TemporaryDirectory() as tmp:
            for k in args.k:
                for name, value in variants:
                    row = run(k, "hierarchy", "levels", None, Path(tmp), {name: value})
                    rows.append(row | {"setting": f"labels, {name}={value}"})
                    deeper.append([k, f"{name}={value}", f"{row['ncp']:.4f}",
                                   f"{row['bound_ncp']:.4f}", row["certified_ratio"],
                                   row["seconds"]])  # fmt: skip
                    print(deeper[-1], flush=True)
        tables.append(
            titled(
                "the labels release with more rounds of the certificate or a longer search",
                ["k", "labels release", "NCP", "lower bound (NCP)", "certified ratio", "seconds"],
                deeper,
            )
        )
        print()
        print(table(tables[-1]["header"], tables[-1]["rows"]))
    save(args.save or ("adult-variants" if args.only_variants else "adult"), rows, tables)


if __name__ == "__main__":
    main()
