"""How far below local recoding's labels release of Adult can a table-wide exact search go?

Issue 11 asks for NCP ≤ 0.075 at k = 10 and ≤ 0.110 at k = 25 with every QI a label of ARX's
hierarchies; ``LocalRecoding`` gives 0.0763 and 0.1148, and ``recoding_local_optimality.py``
finds no better crowds in four neighbourhoods. This script searches one that spans the whole
table at once, exactly, by a mixed-integer program (HiGHS's branch and cut through
``highspy``, started from the release; ``pip install -e '.[research]'``).

Every crowd is a subset of one class of the lattice node of its labels (the records sharing
its labels), and each member pays that class's price. So a release is an assignment of the
records to classes, each class taking none or at least ``k``; the program minimizes the
total price over a **pool** of classes:

- the class of every crowd of the release (so the release is a solution);
- every class of every one of the lattice nodes that the duals of the certificate's ascent
  (``bound_rounds`` rounds) price as nearly worth opening: its ``k`` largest
  ``u_r − price`` sum to at least ``−eps · k``. A class far below that adds to every release
  at least what the duals say it costs beyond its members' share of the bound;
- a record joins a pooled class only where it would pay at most ``slack`` (a cost per
  record, summed over the attributes) more than it pays now;
- or (``--support``) the classes of the cheapest fractional release that
  ``recoding_lp_bound.py --support`` found, with the rows it gives them, instead of the
  classes the duals price (as well as them, with ``--duals``).

Copies of a row are one integer variable per class (how many of them join it), at most the
row's copies times the class's open flag: one such row of the program per member, which
makes its relaxation set partitioning's over the pool (with one row per class instead,
``Σ y ≤ W·z``, the default pool at k = 25 took 300 s to reach the release and bound that
this form reaches in 60). The result is
two figures: the best release found in the pool (checked by ``GeneralizationCost.of``, every
crowd at least ``k``), and HiGHS's proven lower bound on every release that the pool holds.
A pool bound above a goal says that no release built from these classes meets it; releases
using other classes are not ruled out.

    python experiments/recoding_class_pool.py                 # k = 25, 300 s for the program
    python experiments/recoding_class_pool.py --k 10 --duals u10.npy --seconds 1200
    python experiments/recoding_class_pool.py --k 10 --support f10.npz --seconds 1200
    python experiments/recoding_class_pool.py --k 10 --support f10.npz --seconds 1200 \
        --start searched.npy --save pooled.npy   # from recoding_neighbourhood_mip.py --save

With ``--start``, the pool holds the classes of the crowds of the labels given (of a
neighbourhood search, say) instead of ``LocalRecoding``'s, and the program starts from them.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import time
from pathlib import Path

import highspy
import numpy as np
from recoding_local_optimality import crowd_levels, crowd_members, node_classes, releases

from incrowd.algorithms.recoding._ascent import ascent_bound
from incrowd.algorithms.recoding._search import placed, split_program
from incrowd.algorithms.recoding.bounds import lattice_bound
from incrowd.io.atomic import Output, commit


def top_k_sums(cls: np.ndarray, v: np.ndarray, weight: np.ndarray, k: int):
    """Per class: its number of records and the sum of its ``k`` largest ``v`` (a row's
    copies counted apart)."""
    order = np.lexsort((-v, cls))
    c, wt = cls[order], weight[order]
    before = np.cumsum(wt) - wt  # records ahead of each row, within the whole order
    first = np.r_[0, np.flatnonzero(c[1:] != c[:-1]) + 1]
    before -= np.repeat(before[first], np.diff(np.r_[first, c.size]))
    take = np.clip(k - before, 0, wt)
    size = np.bincount(c, weights=wt)
    return size, np.bincount(c, weights=take * v[order], minlength=size.size)


def class_pool(model, labels, k, u, eps, slack):
    """The pool (``(price, member rows, the release's records of each)`` per class), each
    distinct row's number of records and each record's row."""
    rows, inverse, weight = np.unique(model.codes, axis=0, return_inverse=True,
                                      return_counts=True)  # fmt: skip
    inverse = inverse.ravel()
    u_row = np.full(rows.shape[0], np.inf)
    if u is not None:
        np.minimum.at(u_row, inverse, u)
    levels, _, price = crowd_levels(model, labels)
    held_by = crowd_members(labels)
    paid = np.zeros(rows.shape[0])
    np.maximum.at(paid, inverse, price)
    pool = []
    for node in itertools.product(*[range(h + 1) for h in model.height]):
        cls, cost = node_classes(model, rows, node)
        now: dict[int, list[int]] = {}
        for crowd in np.flatnonzero((levels == node).all(axis=1)):
            held = inverse[held_by[crowd]]
            now.setdefault(cls[held[0]], []).extend(held.tolist())
        wanted = set(now)
        if u is not None:
            size, top = top_k_sums(cls, u_row - cost, weight, k)
            wanted |= set(np.flatnonzero((size >= k) & (top >= -eps * k)).tolist())
        order = np.argsort(cls, kind="stable")
        bounds = np.searchsorted(cls[order], np.arange(cls.max() + 2))
        for c in sorted(wanted):
            members = order[bounds[c] : bounds[c + 1]]
            keep = (cost[members] <= paid[members] + slack) | np.isin(members, now.get(c, []))
            if weight[members[keep]].sum() >= k:
                held_now = np.bincount(now.get(c, []), minlength=rows.shape[0])
                pool.append((cost[members[0]], members[keep], held_now[members[keep]]))
    return pool, weight, inverse


def support_pool(path: str) -> list:
    """The classes of a fractional release (``recoding_lp_bound.py --support``), each with
    every row that any of its blocks gives records (the release's crowds' own classes are
    left to :func:`class_pool`)."""
    saved = np.load(path)
    ends = np.cumsum(saved["size"])
    rows = np.split(saved["rows"], ends[:-1])
    merged: dict[int, tuple[float, set]] = {}
    for c, price, r in zip(saved["cls"], saved["price"], rows, strict=True):
        if c >= 0:
            merged.setdefault(int(c), (float(price), set()))[1].update(r.tolist())
    return [(price, np.array(sorted(r)), np.zeros(len(r), dtype=np.int64))
            for price, r in merged.values()]  # fmt: skip


def crowd_pool(model, labels, inverse) -> list:
    """Every crowd of ``labels`` as a class of the pool: its rows, at its price per record
    (solution merging: the program may then mix the crowds of several releases)."""
    pool = []
    for members in crowd_members(labels):
        rows = np.unique(inverse[members])
        pool.append(
            (model.crowd(members) / members.size, rows, np.zeros(rows.size, dtype=np.int64))
        )
    return pool


def solve(pool, weight, k, seconds, log=False, relaxed=False):
    """The program over the pool (``split_program``'s, by HiGHS's branch and cut, started
    from the release; its linear relaxation if ``relaxed``): per class an open flag ``z`` and
    per member row a count ``y``. Returns HiGHS, each class's counts' first column, and the
    release's cost in the program."""
    members = [m for _, m, _ in pool]
    a, low, high, cap, flag = split_program(members, weight, k)
    price, x0 = np.zeros(cap.size), np.zeros(cap.size)
    for p, (cost, rows, now) in enumerate(pool):
        y = flag[p] + 1 + np.arange(rows.size)
        price[y], x0[y], x0[flag[p]] = cost, now, float(now.any())
    h = highspy.Highs()
    h.setOptionValue("output_flag", log)
    h.setOptionValue("time_limit", float(seconds))
    h.setOptionValue("mip_rel_gap", 1e-4)
    n_vars = cap.size
    h.addVars(n_vars, np.zeros(n_vars), cap)
    every = np.arange(n_vars, dtype=np.int32)
    h.changeColsCost(n_vars, every, price)
    if not relaxed:
        h.changeColsIntegrality(n_vars, every, np.full(n_vars, highspy.HighsVarType.kInteger))
    h.addRows(low.size, low, high, a.nnz, a.indptr[:-1].astype(np.int32),
              a.indices.astype(np.int32), a.data)  # fmt: skip
    if not relaxed:
        start = highspy.HighsSolution()
        start.col_value = x0.tolist()
        start.value_valid = True
        h.setSolution(start)
    h.run()
    return h, flag + 1, float(price @ x0)


def release(pool, counts, rows_of, inverse) -> np.ndarray:
    """Crowd labels from the program's counts: each class's count of each row's records."""
    members = [m for _, m, _ in pool]
    taken = [np.rint(counts[rows_of[p] : rows_of[p] + m.size]).astype(np.int64)
             for p, m in enumerate(members)]  # fmt: skip
    return placed(members, taken, inverse)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, nargs="*", default=[25])
    parser.add_argument("--rounds", type=int, default=5, help="ascent rounds of the duals")
    parser.add_argument("--eps", type=float, default=0.05)
    parser.add_argument("--slack", type=float, default=0.3)
    parser.add_argument("--support", help="the pool: the classes of this fractional release "
                        "(recoding_lp_bound.py --support) and the crowds'")  # fmt: skip
    parser.add_argument("--relaxation", action="store_true",
                        help="first solve the program's linear relaxation")  # fmt: skip
    parser.add_argument("--seconds", type=float, default=300.0)
    parser.add_argument("--log", action="store_true", help="show HiGHS's progress")
    parser.add_argument("--start", help="the release to start from and whose crowds' classes "
                        "join the pool: labels that recoding_neighbourhood_mip.py --save "
                        "wrote (one k), instead of LocalRecoding's")  # fmt: skip
    parser.add_argument("--merge", nargs="*", default=[],
                        help="more releases (labels, as --start) whose crowds join the pool, "
                        "each as a class of its own rows")  # fmt: skip
    parser.add_argument("--save", help="write the best release found (its labels) to this "
                        "new .npy file (one k)")  # fmt: skip
    parser.add_argument("--duals", help="price the pool by these terms instead (one per "
                        "record, as recoding_lp_bound.py --save writes them; one k)")  # fmt: skip
    args = parser.parse_args()
    for path in (args.start, args.save, *args.merge):
        if path and len(args.k) != 1:
            parser.error(f"--start, --merge and --save take one k: {path}")
    if args.save and Path(args.save).exists():
        parser.error(f"--save takes a new file: {args.save}")
    for k, _, est, model, scale in releases(args.k):
        if args.support and not args.duals:
            u = None  # no class of the lattice priced in: only the crowds'
        elif args.duals:
            u = np.load(args.duals)
            assert u.shape == (model.n,), f"{args.duals} holds no term per record of Adult"
        else:
            u = ascent_bound(model, k, lattice_bound(model, k), args.rounds)
        start = time.perf_counter()
        labels = est.labels_ if args.start is None else np.load(args.start)
        others = [np.load(path) for path in args.merge]
        for path, given in zip([args.start, *args.merge], [labels, *others], strict=True):
            if given.shape != (model.n,) or given.min() < 0 or np.bincount(given).min() < k:
                parser.error(f"not a k = {k} release of {model.n} records: {path}")
        pool, weight, inverse = class_pool(model, labels, k, u, args.eps, args.slack)
        if args.support:
            pool += support_pool(args.support)
        for other in others:
            pool += crowd_pool(model, other, inverse)
        entries = sum(members.size for _, members, _ in pool)
        source = ("the release's classes" if u is None
                  else f"duals {args.duals or f'of {args.rounds} ascent rounds'}, "
                  f"{u.sum() / scale:.5f} NCP") + (f", {args.support}'s" if args.support
                                                   else "") + (
                  f", the crowds of {len(others)} more releases" if others else "")  # fmt: skip
        print(f"  pool: {len(pool)} classes, {entries} (class, row) entries; {source} "
              f"({time.perf_counter() - start:.0f} s)", flush=True)  # fmt: skip
        if args.relaxation:
            start = time.perf_counter()
            h, _, _ = solve(pool, weight, k, args.seconds, args.log, relaxed=True)
            print(f"  relaxation: {h.modelStatusToString(h.getModelStatus())} "
                  f"({time.perf_counter() - start:.0f} s), the cheapest fractional release "
                  f"in the pool {h.getInfo().objective_function_value / scale:.5f} NCP",
                  flush=True)  # fmt: skip
        start = time.perf_counter()
        h, rows_of, now = solve(pool, weight, k, args.seconds, args.log)
        info = h.getInfo()
        # After a restart, HiGHS 1.16's info can leave out the objective offset of the
        # columns its presolve fixed (ERGO-Code/HiGHS#2439): its objective then read below
        # the solution it returned (0.07489 for 0.07504 at k = 10), so the best is priced
        # from the solution itself; the bound printed is HiGHS's, unchecked.
        print(f"  program: {h.modelStatusToString(h.getModelStatus())} "
              f"({time.perf_counter() - start:.0f} s, {info.mip_node_count} nodes); the release "
              f"{now / scale:.5f} NCP in it; proven bound over the pool "
              f"{info.mip_dual_bound / scale:.5f} NCP", flush=True)  # fmt: skip
        labels = release(pool, np.array(h.getSolution().col_value), rows_of, inverse)
        sizes = np.bincount(labels)
        assert sizes.min() >= k and labels.size == model.n
        print(f"  best release found in the pool: NCP {model.of(labels) / scale:.5f}, "
              f"{sizes.size} crowds, every one of at least {k}")  # fmt: skip
        if args.save:  # whole or not at all, never over another file
            commit([Output(Path(args.save), functools.partial(np.save, arr=labels),
                           lambda _: False)])  # fmt: skip


if __name__ == "__main__":
    main()
