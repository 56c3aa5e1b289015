"""Can exact re-splits of many neighbouring crowds at once take local recoding below the goals?

Issue 11 asks for NCP ≤ 0.075 at k = 10 and ≤ 0.110 at k = 25 on Adult with ARX's
hierarchies; ``LocalRecoding`` gives 0.0763 and 0.1148. Its polish re-splits two crowds at a
time, exactly only up to 9 records. This script is a large-neighbourhood search: it frees
``--records`` records at a time — a crowd and the crowds nearest to it (the least joint
price of their labels) — and splits them afresh **exactly**, by a mixed-integer program over
every way of doing so:

- every crowd of the freed records is a subset of one class of the lattice node of its
  labels, so the program's classes are the classes of the freed rows at every one of the
  lattice's nodes holding at least ``k`` freed records; classes with the same members are
  kept once, at their least price (a crowd's own class is its cheapest);
- the program is ``recoding_class_pool.py``'s (HiGHS, started from the crowds as they
  are), so its optimum never costs more than they do, and the split is the best one
  unless HiGHS runs out of ``--seconds``.

The release stays k-anonymous and loses no record at every step (each re-split's crowd
sizes are checked, and it is taken only if ``GeneralizationCost.of`` prices the whole
release lower). In 30 minutes it takes the release from 0.0763 to 0.0756 at k = 10 and from
0.1148 to 0.1139 at k = 25. Needs ``highspy`` (``pip install -e '.[research]'``):

    python experiments/recoding_neighbourhood_mip.py --k 10 --minutes 30
    python experiments/recoding_neighbourhood_mip.py --k 25 --minutes 30 --records 400
"""

from __future__ import annotations

import argparse
import itertools
import time

import numpy as np
from recoding_class_pool import release, solve
from recoding_local_optimality import crowd_levels, crowd_members, node_keys, releases


class AllNodes:
    """The lattice's nodes, and per attribute each level's ancestor and price of every leaf."""

    def __init__(self, model) -> None:
        anc, nc, height = model.ancestors, model.node_cost, model.height
        self.model = model
        self.nodes = np.array(list(itertools.product(*[range(h + 1) for h in height])))
        self.up = [anc[j, : h + 1] for j, h in enumerate(height)]  # (levels, leaves)
        self.cost = [np.take_along_axis(nc[j, : h + 1], up, axis=1)
                     for j, (h, up) in enumerate(zip(height, self.up, strict=True))]  # fmt: skip

    def joint_price(self, levels, anchor, seed: int) -> np.ndarray:
        """Per crowd, the price a record would pay in one crowd with crowd ``seed``."""
        price = np.zeros(levels.shape[0])
        for j, (up, cost) in enumerate(zip(self.up, self.cost, strict=True)):
            lv = np.maximum(levels[:, j], levels[seed, j])
            meet = up[:, anchor[:, j]] == up[:, [anchor[seed, j]]]  # (levels, crowds)
            meet &= np.arange(up.shape[0])[:, None] >= lv
            first = np.argmax(meet, axis=0)  # the top level always meets
            price += cost[first, anchor[:, j]]
        return price

    def classes(self, rows: np.ndarray, weight: np.ndarray, k: int):
        """Every class of ``k`` records or more among ``rows`` (leaf codes) at any node, each
        member set once at its least price: prices and member lists; and for every node and
        row, the pool entry of the row's class there (−1: none)."""
        n_nodes, f = self.nodes.shape[0], rows.shape[0]
        key, price = node_keys(self.model, rows, self.nodes)
        order = np.lexsort((key.ravel(), np.arange(n_nodes).repeat(f)))
        flat_key, flat_node = key.ravel()[order], order // f
        new = np.r_[True, (flat_key[1:] != flat_key[:-1]) | (flat_node[1:] != flat_node[:-1])]
        cls = np.cumsum(new) - 1
        member = order % f
        size = np.bincount(cls, weights=weight[member])
        # a class's member set, by a random 64-bit tag per row summed (wrapping); a collision
        # could only mislead the program, whose split main() prices afresh before taking it
        tag = np.random.default_rng(0).integers(0, 2**63, size=f, dtype=np.uint64)
        starts = np.flatnonzero(new)
        with np.errstate(over="ignore"):
            sig = np.add.reduceat(tag[member], starts)
        cprice = price.ravel()[order][starts]
        big = np.flatnonzero(size >= k)
        by = big[np.lexsort((cprice[big], sig[big]))]
        first = by[np.r_[True, sig[by][1:] != sig[by][:-1]]]  # least price per member set
        ends = np.r_[starts[1:], member.size]
        members = [member[starts[c] : ends[c]] for c in first]
        entry_of_cls = np.full(size.size, -1, dtype=np.intp)
        by_sig = np.argsort(sig[first])
        entry_of_cls[big] = by_sig[np.searchsorted(sig[first][by_sig], sig[big])]
        entry = np.empty(n_nodes * f, dtype=np.intp)
        entry[order] = entry_of_cls[cls]
        return cprice[first], members, entry.reshape(n_nodes, f)


def resplit(nodes: AllNodes, model, labels, levels, crowds, chosen, k: int, seconds: float):
    """The chosen crowds' records split afresh by the program (``levels`` and ``crowds``:
    every crowd's label levels and records): new labels, or None when no split costs less."""
    held = np.concatenate([crowds[c] for c in chosen])
    rows, inverse, weight = np.unique(model.codes[held], axis=0, return_inverse=True,
                                      return_counts=True)  # fmt: skip
    inverse = inverse.ravel()
    prices, members, entry = nodes.classes(rows, weight, k)
    now = [np.zeros(m.size, dtype=np.int64) for m in members]
    for crowd in chosen:  # each crowd in its own class, the cheapest holding it
        mine = inverse[labels[held] == crowd]
        node = np.ravel_multi_index(levels[crowd], model.height + 1)
        e = entry[node, mine[0]]
        counts = np.bincount(mine, minlength=rows.shape[0])
        now[e] += counts[members[e]]
    pool = list(zip(prices, members, now, strict=True))
    h, rows_of, before = solve(pool, weight, k, seconds)
    if h.getInfo().objective_function_value >= before - 1e-9:
        return None
    placed = release(pool, np.array(h.getSolution().col_value), rows_of, inverse, held.size)
    out = labels.copy()
    out[held] = labels.max() + 1 + placed
    return np.unique(out, return_inverse=True)[1].astype(np.intp)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--records", type=int, default=300, help="records freed at a time")
    parser.add_argument("--seconds", type=float, default=20.0, help="per program")
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    ((k, _, est, model, scale),) = releases([args.k])
    nodes = AllNodes(model)
    labels, cost = est.labels_, model.of(est.labels_)
    rng = np.random.default_rng(args.seed)
    start, tries, better = time.perf_counter(), 0, 0
    levels, anchor, _ = crowd_levels(model, labels)
    crowds = crowd_members(labels)
    while time.perf_counter() - start < 60 * args.minutes:
        sizes = np.array([m.size for m in crowds])
        seed = int(rng.integers(sizes.size))
        near = np.argsort(nodes.joint_price(levels, anchor, seed), kind="stable")
        chosen = near[: np.searchsorted(np.cumsum(sizes[near]), args.records) + 1]
        found = resplit(nodes, model, labels, levels, crowds, chosen, k, args.seconds)
        tries += 1
        if found is not None:
            assert np.bincount(found).min() >= k and found.size == model.n
            new = model.of(found)  # priced afresh: taken only if it truly costs less
            if new < cost:
                labels, cost, better = found, new, better + 1
                levels, anchor, _ = crowd_levels(model, labels)
                crowds = crowd_members(labels)
        if tries % 20 == 0:
            print(f"  {tries} neighbourhoods, {better} improved: NCP {cost / scale:.5f} "
                  f"({time.perf_counter() - start:.0f} s)", flush=True)  # fmt: skip
    print(
        f"k = {k}: NCP {cost / scale:.5f} after {tries} neighbourhoods of about "
        f"{args.records} records ({better} improved), release {est.cost_ / scale:.5f}"
    )


if __name__ == "__main__":
    main()
