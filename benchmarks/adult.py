"""Adult k-anonymity benchmark: the forest algorithm against ARX and Mondrian.

Adult (30,162 records; QIs age, sex, race, marital-status, education, native-country,
workclass, occupation; ARX's hierarchies) at k = 2, 5, 10, 25, 50, in three settings:

- ``levels, age range``: categorical QIs published as hierarchy labels, age as the crowd's
  own range (the bundled schema);
- ``levels, age hierarchy``: every QI, age included, published as a label of its ARX
  hierarchy: hierarchy levels only, the setting of ARX local recoding;
- the same with ``loss="ncp"``: labels priced by the values they cover, as NCP counts them;
- ``sets``: categorical QIs published as the set of values present, age as a range: the
  setting of Mondrian (anonypy / anonypyx).

NCP is measured as in ../shared/notes/peer-tools-survey.md: age (max − min of the ages a cell
covers, within the data's 17–90) / 73, categorical (leaves covered − 1) / (domain − 1). Each
row shows the paper's algorithm alone and with the improvement pass; DM = Σ|E|²; seconds are
the whole ``incrowd.anonymize`` call (crowds, release, verification, loss figures) after a
warm-up. Peer figures are those measured on this machine in the survey.

    python benchmarks/adult.py           # k = 2, 5, 10, 25, 50
    python benchmarks/adult.py --k 5     # one k
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"
#: Peer results on Adult (NCP, seconds) from ../shared/notes/peer-tools-survey.md
PEERS = {
    "ARX local recoding": {2: (0.053, 10.93), 5: (0.096, 9.07), 10: (0.114, 13.95)},
    "ARX global, <=5% suppression": {2: (0.182, 7.84), 5: (0.291, 10.04), 10: (0.344, 11.99)},
    "Mondrian (anonypy)": {2: (0.0095, 123.3), 5: (0.032, 52.7), 10: (0.058, 26.8)},
}


def settings() -> dict:
    import incrowd
    from incrowd import Hierarchical, Hierarchy, Schema
    from incrowd.datasets import adult_hierarchy_path

    table, schema = incrowd.load_adult()
    age = Hierarchical(Hierarchy.from_csv(adult_hierarchy_path("age")))
    hier = Schema({**schema.quasi_identifiers, "age": age}, sensitive=schema.sensitive)
    return {
        "levels, age range": (table, schema, "levels", "height"),
        "levels, age hierarchy": (table, hier, "levels", "height"),
        "levels, age hierarchy, loss=ncp": (table, hier, "levels", "ncp"),
        "sets": (table, schema, "sets", "height"),
    }


def survey_ncp(table, release, schema) -> float:  # noqa: ANN001
    """NCP of a published table by the survey's definition (age through its covered range)."""
    import numpy as np

    import incrowd
    from incrowd import Numeric, Schema
    from incrowd.evaluate import evaluate_release, parse_range

    published = release.table.copy()
    lo, hi = 17.0, 90.0

    def clip(cell: str) -> str:
        if cell == "*":
            return f"{lo:g}-{hi:g}"
        a, b = parse_range(cell)
        a, b = max(a, lo), min(b, hi)
        return f"{a:g}-{b:g}" if a < b else f"{a:g}"

    published["age"] = np.array([clip(str(c)) for c in published["age"]], dtype=object)
    numeric_age = Schema({**schema.quasi_identifiers, "age": Numeric()}, sensitive=schema.sensitive)
    meta = dict(release.metadata)
    out = evaluate_release(table, published, numeric_age, meta)
    assert incrowd.verify(release.table, schema.qi_names, meta["k"], metadata=meta).ok
    return float(out["ncp"])


def run(k: int, name: str, table, schema, form: str, loss: str, improve: bool) -> dict:  # noqa: ANN001
    import incrowd

    start = time.perf_counter()
    release = incrowd.anonymize(
        table, schema, k, method="forest", generalize=form, seed=1,
        params={"improve": improve, "loss": loss},
    )  # fmt: skip
    seconds = time.perf_counter() - start
    meta = release.metadata
    return {
        "k": k,
        "setting": name,
        "improve": improve,
        "ncp": round(survey_ncp(table, release, schema), 4),
        "dm": meta["loss"]["discernibility"],
        "avg_crowd": round(meta["loss"]["avg_crowd_size"], 2),
        "k_achieved": meta["k_achieved"],
        "certified_ratio": round(meta["certified_ratio"], 3),
        "seconds": round(seconds, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, nargs="*", default=[2, 5, 10, 25, 50])
    args = parser.parse_args()
    configs = settings()
    table, schema, _, _ = configs["sets"]
    run(5, "warm-up", table.head(500), schema, "levels", "height", True)
    rows = []
    print("| k | setting | NCP paper → improved | DM | avg crowd | cert. ratio | s |")
    print("|---|---|---|---|---|---|---|")
    for k in args.k:
        for name, (tab, sch, form, loss) in configs.items():
            plain = run(k, name, tab, sch, form, loss, improve=False)
            best = run(k, name, tab, sch, form, loss, improve=True)
            rows += [plain, best]
            print(
                f"| {k} | {name} | {plain['ncp']:.4f} → **{best['ncp']:.4f}** | "
                f"{best['dm']:.3g} | {best['avg_crowd']} | {best['certified_ratio']} | "
                f"{best['seconds']} |"
            )
        for peer, figures in PEERS.items():
            if k in figures:
                ncp, sec = figures[k]
                print(f"| {k} | *{peer}* | {ncp} | | | — | {sec} |")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "adult.json").write_text(json.dumps(rows, indent=2) + "\n")


if __name__ == "__main__":
    main()
