"""Score saved crowds of Adult independently of incrowd's cost model and release code.

Each crowd of the labels given (``.npy`` files that ``recoding_neighbourhood_mip.py`` or
``recoding_class_pool.py`` ``--save``) publishes, for each QI, the lowest level of ARX's
hierarchy file on which its members agree, read from the file itself; the published table
is then checked k-anonymous by grouping equal rows and scored by ``benchmarks/
ncp_checker.py`` (the NCP of ``ncp-definition.md``, sharing no code with incrowd):

    python experiments/recoding_score_labels.py k10.npy 10 k25.npy 25
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

import incrowd
from incrowd.datasets import ADULT_QIS, adult_hierarchy_path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import ncp_checker  # noqa: E402 - beside the benchmarks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pairs", nargs="+", help="a labels file and its k, repeated")
    args = parser.parse_args()
    if len(args.pairs) % 2:
        parser.error("give each labels file with its k")
    data, _ = incrowd.load_adult(age="hierarchy")
    original = data.astype(str)
    qis = list(ADULT_QIS)
    files = {q: ncp_checker.read_hierarchy(adult_hierarchy_path(q)) for q in qis}
    for path, k in zip(args.pairs[::2], map(int, args.pairs[1::2]), strict=True):
        labels = np.load(path)
        if labels.shape != (len(data),):
            parser.error(f"{path} holds no label per record of Adult")
        published = original.copy()
        order = np.argsort(labels, kind="stable")
        crowds = np.split(order, np.flatnonzero(np.diff(labels[order])) + 1)
        for q in qis:
            rows = {row[0]: row for row in files[q]}  # leaf, then its label at each level
            values = original[q].to_numpy()
            out = np.empty(values.size, dtype=object)
            for members in crowds:
                paths = [rows[v] for v in values[members]]
                level = next(t for t in range(len(paths[0])) if len({p[t] for p in paths}) == 1)
                out[members] = paths[0][level]
            published[q] = out
        smallest = int(published.groupby(qis).size().min())
        verdict = "k-anonymous" if smallest >= k else "NOT k-anonymous"
        print(f"{path}: {len(published)} records, smallest group {smallest} ({verdict} at "
              f"k = {k}), NCP {ncp_checker.ncp(original, published, qis, files):.5f}")  # fmt: skip


if __name__ == "__main__":
    main()
