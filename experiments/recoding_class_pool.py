"""How far below local recoding's labels release of Adult can a table-wide exact search go?

Issue 11 asks for NCP ≤ 0.075 at k = 10 and ≤ 0.110 at k = 25 with every QI a label of ARX's
hierarchies; ``LocalRecoding`` gives 0.0763 and 0.1148, and ``recoding_local_optimality.py``
finds no better crowds in four neighbourhoods. This script searches one that spans the whole
table at once, exactly, by a mixed-integer program (scipy's HiGHS ``milp``).

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
  record, summed over the attributes) more than it pays now.

Copies of a row are one integer variable per class (how many of them join it). The result is
two figures: the best release found in the pool (checked by ``GeneralizationCost.of``, every
crowd at least ``k``), and HiGHS's proven lower bound on every release that the pool holds.
A pool bound above a goal says that no release built from these classes meets it; releases
using other classes are not ruled out.

    python experiments/recoding_class_pool.py                 # k = 25, 300 s for the program
    python experiments/recoding_class_pool.py --k 10 --eps 0.05 --slack 0.3
"""

from __future__ import annotations

import argparse
import itertools
import time

import numpy as np
from recoding_local_optimality import crowd_levels, crowd_members, node_classes, releases
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import csr_matrix

from incrowd.algorithms._recoding_ascent import ascent_bound
from incrowd.algorithms._recoding_bound import lattice_bound


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
    """The pool (``(price, member rows)`` per class), each distinct row's number of records
    and each record's row."""
    rows, inverse, weight = np.unique(model.codes, axis=0, return_inverse=True,
                                      return_counts=True)  # fmt: skip
    inverse = inverse.ravel()
    u_row = np.full(rows.shape[0], np.inf)
    np.minimum.at(u_row, inverse, u)
    levels, _, price = crowd_levels(model, labels)
    held_by = crowd_members(labels)
    paid = np.zeros(rows.shape[0])
    np.maximum.at(paid, inverse, price)
    pool = []
    for node in itertools.product(*[range(h + 1) for h in model.height]):
        cls, cost = node_classes(model, rows, node)
        size, top = top_k_sums(cls, u_row - cost, weight, k)
        now: dict[int, list[int]] = {}
        for crowd in np.flatnonzero((levels == node).all(axis=1)):
            held = inverse[held_by[crowd]]
            now.setdefault(cls[held[0]], []).extend(held.tolist())
        wanted = set(np.flatnonzero((size >= k) & (top >= -eps * k)).tolist()) | set(now)
        order = np.argsort(cls, kind="stable")
        bounds = np.searchsorted(cls[order], np.arange(size.size + 1))
        for c in sorted(wanted):
            members = order[bounds[c] : bounds[c + 1]]
            keep = (cost[members] <= paid[members] + slack) | np.isin(members, now.get(c, []))
            if weight[members[keep]].sum() >= k:
                pool.append((cost[members[0]], members[keep]))
    return pool, weight, inverse


def solve(pool, weight, k, seconds):
    """The program over the pool: per class an open flag and per member row a count."""
    columns, rows_of, prices, upper = [], [], [], []
    for price, members in pool:
        columns.append(len(prices))
        prices.append(0.0)
        upper.append(1.0)
        rows_of.append(len(prices))
        prices.extend([price] * members.size)
        upper.extend(weight[members].tolist())
    n_vars = len(prices)
    m = weight.size
    entries_r, entries_c, entries_v = [], [], []
    for p, (_, members) in enumerate(pool):
        y = rows_of[p] + np.arange(members.size)
        entries_r += [members]  # every row's records placed once
        entries_c += [y]
        entries_v += [np.ones(members.size)]
        # open: at least k records (Σ y − k·z ≥ 0); shut: none (W·z − Σ y ≥ 0)
        for row, flag, sign in ((m + 2 * p, -k, 1.0), (m + 2 * p + 1, weight[members].sum(), -1.0)):
            entries_r += [np.full(members.size + 1, row)]
            entries_c += [np.r_[columns[p], y]]
            entries_v += [np.r_[float(flag), np.full(members.size, sign)]]
    a = csr_matrix(
        (np.concatenate(entries_v), (np.concatenate(entries_r), np.concatenate(entries_c))),
        shape=(m + 2 * len(pool), n_vars),
    )
    lower = np.r_[weight.astype(float), np.tile([0.0, 0.0], len(pool))]
    higher = np.r_[weight.astype(float), np.tile([np.inf, np.inf], len(pool))]
    return milp(
        np.array(prices),
        constraints=LinearConstraint(a, lower, higher),
        integrality=np.ones(n_vars),
        bounds=Bounds(np.zeros(n_vars), np.array(upper)),
        options={"time_limit": seconds, "mip_rel_gap": 1e-4},
    ), rows_of


def release(pool, counts, rows_of, inverse, n) -> np.ndarray:
    """Crowd labels from the program's counts: each class's count of each row's records."""
    labels = np.full(n, -1, dtype=np.intp)
    by_row = np.argsort(inverse, kind="stable")  # each row's records, side by side
    next_of = np.searchsorted(inverse[by_row], np.arange(inverse.max() + 1))
    for p, (_, members) in enumerate(pool):
        for i, r in enumerate(members):
            taken = int(round(counts[rows_of[p] + i]))
            labels[by_row[next_of[r] : next_of[r] + taken]] = p
            next_of[r] += taken
    return np.unique(labels, return_inverse=True)[1].astype(np.intp)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, nargs="*", default=[25])
    parser.add_argument("--rounds", type=int, default=5, help="ascent rounds of the duals")
    parser.add_argument("--eps", type=float, default=0.05)
    parser.add_argument("--slack", type=float, default=0.3)
    parser.add_argument("--seconds", type=float, default=300.0)
    parser.add_argument("--duals", help="price the pool by these terms instead (one per "
                        "record, as recoding_lp_bound.py --save writes them; one k)")  # fmt: skip
    args = parser.parse_args()
    for k, _, est, model, scale in releases(args.k):
        if args.duals:
            u = np.load(args.duals)
            assert u.shape == (model.n,), f"{args.duals} holds no term per record of Adult"
        else:
            u = ascent_bound(model, k, lattice_bound(model, k), args.rounds)
        start = time.perf_counter()
        pool, weight, inverse = class_pool(model, est.labels_, k, u, args.eps, args.slack)
        entries = sum(members.size for _, members in pool)
        print(
            f"  pool: {len(pool)} classes, {entries} (class, row) entries; duals "
            f"{args.duals or f'of {args.rounds} ascent rounds'}, {u.sum() / scale:.5f} NCP "
            f"({time.perf_counter() - start:.0f} s)",
            flush=True,
        )
        start = time.perf_counter()
        result, rows_of = solve(pool, weight, k, args.seconds)
        took = time.perf_counter() - start
        bound = getattr(result, "mip_dual_bound", None)
        print(f"  program: {result.message} ({took:.0f} s); proven bound over the pool "
              f"{bound / scale:.5f} NCP" if bound is not None
              else f"  program: {result.message} ({took:.0f} s): no bound yet")  # fmt: skip
        if result.x is not None:
            labels = release(pool, result.x, rows_of, inverse, model.n)
            sizes = np.bincount(labels)
            assert sizes.min() >= k and labels.size == model.n
            print(f"  best release found in the pool: NCP {model.of(labels) / scale:.5f}, "
                  f"{sizes.size} crowds, every one of at least {k}")  # fmt: skip


if __name__ == "__main__":
    main()
