"""How much can a linear program prove about the best labels release of Adult?

The certificate of ``LocalRecoding`` with hierarchy labels is a feasible solution ``u`` of
the dual of the linear relaxation of set partitioning into crowds (one ``u`` per record;
``algorithms/recoding/_ascent.py`` holds the proof):

    maximize ``Σ_r u_r``  subject to  ``Σ_{r ∈ S} u_r ≤ |S| · price_C``
    for every class ``C`` of every lattice node and every ``S ⊆ C`` with ``|S| ≥ k``,

which holds for all ``S`` exactly when the ``k`` largest ``u_r − price_C`` of ``C`` sum to
at most 0. Its rounds of ascent stall (15 rounds prove 0.1024 NCP at k = 25, against the
release's 0.1148 and the goal's 0.110). This script solves that linear program itself, to
tell how much any bound of this kind can prove, by cutting planes on the dual:

- the program holds one variable per distinct row (equal records get equal ``u`` at some
  optimum, by symmetry), weighted by its number of records;
- a **scan** of every class of every one of the lattice's nodes finds, for the current ``u``,
  each class whose ``k`` largest ``u − price`` sum above 0; its ``k`` largest (copies of a
  row counted apart) give the cut ``Σ_S u ≤ k · price_C``;
- a violated class enters the program as a **block**: its ``2k`` members of largest ``u``
  (records, copies counted) must have ``k`` largest ``u − price`` summing to at most 0,
  written as the top-k sum's own linear program (``k·t + Σ w_r s_r ≤ 0``,
  ``u_r − s_r − t ≤ price``, ``s ≥ 0``), which cuts off every subset of them at once: with one cut
  per subset (``--block 0``), 16–35 classes were still violated after 60 programs in the
  first box, which blocks settle in 4;
- the program (HiGHS's dual simplex through ``highspy``, warm-started as blocks are added)
  keeps ``u`` within a box around the best proven ``u`` (the box step method of Marsten,
  Hogan and Blankenship, *Operations Research* 23(3), 1975), which keeps the early
  programs, with few blocks, from running off. When the box's optimum violates no class,
  three rounds of the certificate's ascent from it move the box on (``--between 0``: the
  box grows instead; past a width of 0.25 each program then took 75–130 s at k = 25);
- every ``u`` the program returns is made **feasible** before it is counted, by one round
  of the certificate's ascent taken from it (each record raised, or lowered where its
  classes are violated, by the least room its classes leave; the proof in
  ``algorithms/recoding/_ascent.py`` holds for negative rooms too). A second scan checks that no
  class is violated by the result, so every figure printed as "proven" is a lower bound
  on every k-anonymization with these hierarchies.

The program's optimum is also the best that the certificate's kind of bound can prove; it
may lie below the best release (set partitioning has an integrality gap). When a box's
optimum violates no class and no variable sits on the box, it is that optimum. Otherwise
the run ends with an **upper bound** on it (``--upper`` minutes): the program with every
block found and the class of every crowd of the release (all of its records), without the
box. It has only some of the constraints, so its optimum is at least the relaxation's.

Needs ``highspy`` (``pip install -e '.[research]'``). One pass over the 1.1 million classes
of 25 records or more (78 million entries) takes about a second:

    python experiments/recoding_lp_bound.py     # k = 25: 28 minutes of cuts, ≤ 25 for the upper
    python experiments/recoding_lp_bound.py --k 10 --minutes 12 --save u10.npy
"""

from __future__ import annotations

import argparse
import functools
import itertools
import time
from pathlib import Path

import highspy
import numpy as np
from recoding_local_optimality import crowd_members, node_classes, releases

from incrowd._runtime import jit
from incrowd.algorithms.recoding._ascent import SAFETY, _top_k, ascent_bound
from incrowd.algorithms.recoding.bounds import lattice_bound
from incrowd.io.atomic import Output, commit

#: A class counts as violated (a cut to add) when its ``k`` largest ``u − price`` exceed 0
#: by more than this a record; below it, the simplex's own tolerances. Whatever is left is
#: taken off by the ascent step before a bound is counted.
FEASIBLE = 1e-6


class Lattice:
    """Every class of ``k`` records or more at every lattice node, over the distinct rows:
    its members (``members[start[c]:start[c + 1]]``) and its price."""

    def __init__(self, model, k: int) -> None:
        rows, inverse, weight = np.unique(model.codes, axis=0, return_inverse=True,
                                          return_counts=True)  # fmt: skip
        self.inverse = inverse.ravel()
        self.weight = weight.astype(np.int64)
        members, starts, prices = [], [0], []
        for node in itertools.product(*[range(h + 1) for h in model.height]):
            cls, price = node_classes(model, rows, node)
            size = np.bincount(cls, weights=weight)
            keep = np.flatnonzero(size[cls] >= k)
            order = keep[np.argsort(cls[keep], kind="stable")]
            edges = np.flatnonzero(np.diff(cls[order])) + 1
            members.append(order.astype(np.int32))
            starts.extend((starts[-1] + np.r_[edges, order.size]).tolist())
            prices.append(price[order[np.r_[0, edges]]] if order.size else [])
        self.members = np.concatenate(members)
        self.start = np.array(starts, dtype=np.int64)
        self.price = np.concatenate(prices).astype(np.float64)
        self.tol = SAFETY * float(self.price.max() + 1.0)


@jit()  # cached, and dropped when the package's sources (its _top_k) change
def _scan(u, members, start, price, weight, k, eps, cut_rows, cut_take, cut_class, cut_excess):
    """One pass over every class: each row's ascent step (its least room over its classes,
    negative where a class is violated) and, for the violated classes (up to the buffers'
    length, the first found), their ``k`` largest members as cuts. Returns the number of
    violated classes found (by more than ``eps`` a record) and the steps."""
    step = np.full(u.size, np.inf)
    vals = np.empty(u.size)
    wts = np.empty(u.size, dtype=np.int64)
    found = 0
    for c in range(start.size - 1):
        lo, hi = start[c], start[c + 1]
        p = price[c]
        for i in range(lo, hi):
            vals[i - lo] = u[members[i]] - p
            wts[i - lo] = weight[members[i]]
        total, theta = _top_k(vals, wts, hi - lo, k)
        room = -total / k
        for i in range(lo, hi):
            x = members[i]
            a = room + max(theta - (u[x] - p), 0.0)
            if a < step[x]:
                step[x] = a
        if total > eps * k:
            if found < cut_excess.size:
                cut_excess[found] = total
                cut_class[found] = c
                need = k
                t = 0
                for i in range(lo, hi):  # above the k-th largest: every copy
                    x = members[i]
                    if u[x] - p > theta:
                        cut_rows[found, t] = x
                        cut_take[found, t] = weight[x]
                        need -= weight[x]
                        t += 1
                for i in range(lo, hi):  # at it: as many copies as are still needed
                    x = members[i]
                    if need > 0 and u[x] - p == theta:
                        cut_rows[found, t] = x
                        cut_take[found, t] = min(need, weight[x])
                        need -= min(need, weight[x])
                        t += 1
                cut_rows[found, t:] = -1
            found += 1
    return found, step


def scan(lat: Lattice, u: np.ndarray, k: int, buffer: int, eps: float = 0.0):
    """The number of violated classes, each row's ascent step, and the cuts of (at most
    ``buffer``) violated classes: member rows (−1: none), copies taken, class, excess."""
    rows = np.empty((buffer, k), dtype=np.int64)
    take = np.zeros((buffer, k), dtype=np.int64)
    cls = np.zeros(buffer, dtype=np.int64)
    excess = np.zeros(buffer)
    found, step = _scan(u, lat.members, lat.start, lat.price, lat.weight, k, eps, rows, take,
                        cls, excess)  # fmt: skip
    kept = min(found, buffer)
    return found, step, rows[:kept], take[:kept], cls[:kept], excess[:kept]


def proven(lat: Lattice, u: np.ndarray, step: np.ndarray, k: int) -> np.ndarray:
    """``u`` made feasible by its ``step`` of ascent, checked by a second scan."""
    v = u + np.where(np.isfinite(step), step - np.abs(step) * SAFETY, 0.0) - lat.tol
    found, *_ = scan(lat, v, k, 0)
    assert found == 0, "the stepped terms still violate a class"
    return v


def largest(lat: Lattice, u: np.ndarray, c: int, k: int, block: float) -> np.ndarray:
    """The members of class ``c`` with the largest ``u``, ``block · k`` records or just over."""
    members = lat.members[lat.start[c] : lat.start[c + 1]]
    order = members[np.argsort(-u[members], kind="stable")]
    return order[: np.searchsorted(np.cumsum(lat.weight[order]), block * k) + 1]


def add_block(h, rows: np.ndarray, weight: np.ndarray, price: float, k: int) -> tuple:
    """Add to the program that the ``k`` largest ``u − price`` over ``rows`` (all of a class,
    ``weight`` copies each) sum to at most 0, in the form ``k·t + Σ w_r s_r ≤ 0``,
    ``u_r − s_r − t ≤ price``, ``s ≥ 0`` (the top-k sum's linear program): every subset of
    them at once. Returns the block's price, rows and first row of ``u_r − s_r − t``: their
    duals are the fractional release's records of each row in the class."""
    rows = rows.astype(np.int32)
    p = rows.size
    first, row = h.getNumCol(), h.getNumRow()
    none = np.array([], dtype=np.int32)
    h.addCols(p + 1, np.zeros(p + 1), np.r_[-np.inf, np.zeros(p)], np.full(p + 1, np.inf), 0,
              none, none, np.array([]))  # fmt: skip
    t, s = first, first + 1 + np.arange(p, dtype=np.int32)
    h.addRow(-np.inf, 0.0, p + 1, np.r_[t, s].astype(np.int32),
             np.r_[float(k), weight[rows].astype(np.float64)])  # fmt: skip
    index = np.column_stack([rows, s, np.full(p, t, dtype=np.int32)]).ravel()
    h.addRows(p, np.full(p, -np.inf), np.full(p, price), 3 * p,
              np.arange(p, dtype=np.int32) * 3, index.astype(np.int32),
              np.tile([1.0, -1.0, -1.0], p))  # fmt: skip
    return price, rows, row + 1


def upper_bound(h, lat: Lattice, est, model, k: int, minutes: float, blocks: list):
    """An upper bound on the relaxation's optimum (None if HiGHS ran out of time) and the
    fractional release that attains it (per block: its class, −1 for a crowd's, price, rows
    and records of each row): the program with every block found, plus the class of every
    crowd of the release, and no box. It has only some of the constraints, so its optimum
    is at least the relaxation's; it is the cheapest fractional release using those
    classes, which the release's crowds make feasible."""
    for members in crowd_members(est.labels_):
        blocks.append((-1, *add_block(h, np.unique(lat.inverse[members]), lat.weight,
                                      model.crowd(members) / members.size, k)))  # fmt: skip
    m = lat.weight.size
    h.changeColsBounds(m, np.arange(m, dtype=np.int32), np.zeros(m), np.full(m, np.inf))
    h.setOptionValue("time_limit", h.getRunTime() + 60.0 * minutes)  # HiGHS's clock runs on
    h.run()
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        return None, []
    dual = np.abs(np.array(h.getSolution().row_dual))
    support = []
    for c, price, rows, first in blocks:
        y = dual[first : first + rows.size]
        if y.max() > FEASIBLE:
            support.append((c, price, rows[y > FEASIBLE], y[y > FEASIBLE]))
    return h.getInfo().objective_function_value, support


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, nargs="*", default=[25])
    parser.add_argument("--rounds", type=int, default=5, help="ascent rounds of the start")
    parser.add_argument("--box", type=float, default=0.1, help="half-width of the box")
    parser.add_argument("--between", type=int, default=3,
                        help="ascent rounds from each box optimum (0: the box grows)")  # fmt: skip
    parser.add_argument("--growth", type=float, default=2.0, help="the box's growth")
    parser.add_argument("--cuts", type=int, default=500, help="most blocks added per program")
    parser.add_argument("--block", type=float, default=2.0,
                        help="records (times k) of largest u a violated class enters with "
                        "(0: its k largest, as one cut)")  # fmt: skip
    parser.add_argument("--save", help="write the best proven terms (one per record) to this "
                        "new .npy file (for recoding_class_pool.py --duals; one k)")  # fmt: skip
    parser.add_argument("--support", help="write the fractional release of the upper bound "
                        "(per class: price, rows, records) to this new .npz file")  # fmt: skip
    parser.add_argument("--minutes", type=float, default=28.0, help="minutes of cuts")
    parser.add_argument("--upper", type=float, default=25.0,
                        help="minutes for the upper bound on the relaxation (0: none)")  # fmt: skip
    args = parser.parse_args()
    for path in (args.save, args.support):
        if path and (len(args.k) != 1 or Path(path).exists() or args.save == args.support):
            parser.error(f"--save and --support take one k and a new file each: {path}")
    for k, _space, est, model, scale in releases(args.k):
        t0 = time.perf_counter()
        lat = Lattice(model, k)
        m = lat.weight.size
        print(f"  {m} distinct rows, {lat.start.size - 1} classes of {k} or more "
              f"({lat.members.size} entries), {time.perf_counter() - t0:.0f} s",
              flush=True)  # fmt: skip
        start = ascent_bound(model, k, lattice_bound(model, k), args.rounds)
        center = np.full(m, np.inf)
        np.minimum.at(center, lat.inverse, start)
        w = lat.weight.astype(np.float64)
        best = float(w @ center)
        print(f"  ascent, {args.rounds} rounds: proven {best / scale:.5f}", flush=True)

        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        h.setOptionValue("solver", "simplex")
        none = np.array([], dtype=np.int32)
        h.addCols(m, w, np.zeros(m), np.full(m, np.inf), 0, none, none, np.array([]))
        h.changeObjectiveSense(highspy.ObjSense.kMaximize)
        every = np.arange(m, dtype=np.int32)
        width = args.box
        lo, hi = np.maximum(center - width, 0.0), center + width
        h.changeColsBounds(m, every, lo, hi)
        n_cuts, blocks = 0, []
        while time.perf_counter() - t0 < 60 * args.minutes:
            t1 = time.perf_counter()
            h.run()
            u = np.array(h.getSolution().col_value[:m])
            lp = h.getInfo().objective_function_value
            t2 = time.perf_counter()
            found, step, rows, take, cls, excess = scan(lat, u, k, 50 * args.cuts, FEASIBLE)
            v = proven(lat, u, step, k)
            if float(w @ v) > best:
                best, center = float(w @ v), v
            print(f"  box {width:.3g}: program {lp / scale:.5f} ({t2 - t1:.1f} s, {n_cuts} cuts), "
                  f"{found} classes violated (most {excess.max(initial=0) / k:.2g} a record), "
                  f"proven {best / scale:.5f} "
                  f"({time.perf_counter() - t2:.1f} s)", flush=True)  # fmt: skip
            if found == 0:  # the box's optimum: done unless the box binds
                if not ((u >= hi - 1e-9) | ((u <= lo + 1e-9) & (lo > 0))).any():
                    print(f"  converged: the relaxation's optimum is {lp / scale:.5f}")
                    break
                if args.between:  # rounds of ascent carry the center further than the box can
                    lifted = ascent_bound(model, k, center[lat.inverse], args.between,
                                          first_cap=np.inf)  # fmt: skip
                    center = np.full(m, np.inf)
                    np.minimum.at(center, lat.inverse, lifted)  # equal rows, equal terms
                    best = float(w @ center)
                    print(f"  {args.between} rounds of ascent: proven {best / scale:.5f}")
                else:
                    width *= args.growth
                lo, hi = np.maximum(center - width, 0.0), center + width
                h.changeColsBounds(m, every, lo, hi)
                continue
            top = np.argsort(-excess)[: args.cuts]
            if args.block:
                for c in cls[top]:
                    blocks.append((c, *add_block(h, largest(lat, u, c, k, args.block),
                                                 lat.weight, lat.price[c], k)))  # fmt: skip
            else:
                sel = rows[top] >= 0
                starts = np.r_[0, np.cumsum(sel.sum(axis=1))[:-1]].astype(np.int32)
                h.addRows(top.size, np.full(top.size, -np.inf), k * lat.price[cls[top]],
                          int(sel.sum()), starts, rows[top][sel].astype(np.int32),
                          take[top][sel].astype(np.float64))  # fmt: skip
            n_cuts += top.size
        print(f"  k = {k}: proven lower bound {best / scale:.5f} NCP, release "
              f"{est.cost_ / scale:.5f}, {time.perf_counter() - t0:.0f} s", flush=True)  # fmt: skip
        if args.upper:
            t1 = time.perf_counter()
            ub, support = upper_bound(h, lat, est, model, k, args.upper, blocks)
            print(f"  the relaxation's optimum is at most {ub / scale:.5f} NCP "
                  f"({time.perf_counter() - t1:.0f} s)" if ub is not None
                  else f"  no upper bound on the relaxation in {args.upper} minutes"
                  + (f"; nothing written to {args.support}" if args.support else ""))  # fmt: skip
        if args.save:  # whole or not at all, never over another file
            terms = center[lat.inverse]
            commit([Output(Path(args.save), functools.partial(np.save, arr=terms),
                           lambda _: False)])  # fmt: skip
        if args.support and support:
            cls, price, rows, y = zip(*support, strict=True)
            arrays = {"cls": np.array(cls), "price": np.array(price),
                      "size": np.array([r.size for r in rows]),
                      "rows": np.concatenate(rows), "records": np.concatenate(y)}  # fmt: skip
            commit([Output(Path(args.support), functools.partial(np.savez, **arrays),
                           lambda _: False)])  # fmt: skip


if __name__ == "__main__":
    main()
