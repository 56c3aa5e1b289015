"""Large-neighbourhood search: many neighbouring crowds of hierarchy labels re-split exactly.

:func:`~incrowd.algorithms.recoding.polish` re-splits two neighbouring crowds at a time,
exactly only up to 9 records. This search (a large-neighbourhood search: Shaw, *Using
constraint programming and local search methods to solve vehicle routing problems*, CP 1998)
frees the records of a crowd chosen at random and of the crowds nearest to it — the least
price a record would pay in one crowd with it — about :data:`NEIGHBOURHOOD_RECORDS` in all,
and splits them afresh by the best split there is, found by a mixed-integer program:

- with every attribute a hierarchy label, a crowd publishes its records' labels at one node
  of the generalization lattice (a level per attribute), so it is a subset of that node's
  **class** (the records sharing those labels) and each member pays the class's price; the
  program's classes are the classes of the freed records at every node of the lattice
  holding at least ``k`` of them, each set of members once, at its least price, where some
  member would pay no more than it does now (a class dearer for every member is seldom
  part of a cheaper split, and leaving those out makes each program smaller: on Adult,
  ten minutes of search, one program at a time, reach 0.0757 / 0.1140 NCP at k = 10 / 25
  with them left out, 0.0759 / 0.1142 with them in; of 15 neighbourhoods at k = 10, the
  smaller program's optimum was the same in 13, worse in one, better in one where the
  whole program ran out of time);
- per class an open flag ``z`` and per member row (equal records are one row of ``w``
  copies) a count ``y`` of its records placed there: every record placed once
  (``Σ_c y_{c,r} = w_r``), an open class takes at least ``k`` (``Σ_r y_{c,r} ≥ k z_c``), a
  shut one none (``y_{c,r} ≤ w_r z_c``); minimize ``Σ price_c y_{c,r}``;
- HiGHS's branch and cut (:func:`scipy.optimize.milp`), at most :data:`PROGRAM_SECONDS`
  a program; one program per thread (:func:`~incrowd._runtime.threads`) at once, as memory
  allows (:data:`ENTRY_BYTES`), each on crowds no other program holds (HiGHS releases the
  GIL): on Adult at k = 10, four minutes solved 165 programs on two threads against 81 on
  one, and reached 0.07576 NCP against 0.07602
  (``experiments/recoding_neighbourhood_mip.py --minutes 4``, ``INCROWD_THREADS`` 2 and 1).

The freed crowds are a solution of the program (each is a subset of the class of its own
labels' node, at that class's price, which its members pay now, so the class is kept), so
its optimum never costs more than they do. A split
is taken only when :meth:`~incrowd.costs.GeneralizationCost.crowd` prices its crowds below
the freed ones, so the search **never raises the cost** and keeps every guarantee of the
release it starts from; every crowd keeps at least ``k`` records and no record is lost.

On Adult with ARX's eight hierarchies (``benchmarks/adult.py --search-seconds 600``), ten
minutes on two threads take the NCP from 0.0763 to 0.0755 at k = 10 and from 0.1148 to
0.1138 at k = 25 (one program at a time: 0.0757 and 0.1140).
HiGHS stops a program within the mixed-integer gap ``mip_rel_gap = 1e-4`` of its optimum, or
at its time limit, which it does not check everywhere: the last program may run over the
budget (on Adult by up to 20 s). Time per neighbourhood: :math:`O(N f \\log (N f))` for
``N`` lattice nodes and ``f`` distinct freed rows, then the program (0.01–20 s on Adult);
memory :math:`O(N f)`, at most :data:`NODE_ROWS` entries.
"""

from __future__ import annotations

import time
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait

import numpy as np
from scipy.sparse import csr_matrix

from ..._runtime import available_memory, threads
from ...costs import GeneralizationCost
from ...partition import Partition

__all__ = ["lattice_nodes", "neighbourhood_classes", "node_keys", "search", "split_program"]

#: Records freed at a time (or ``16 k`` if more): larger neighbourhoods solve fewer, slower
#: programs (``experiments/recoding_neighbourhood_mip.py``).
NEIGHBOURHOOD_RECORDS = 300
#: Each program's time limit; one not solved by then is passed over.
PROGRAM_SECONDS = 20.0
#: No program is started with less time left than this.
LEAST_SECONDS = 1.0
#: (lattice node, freed row) entries a neighbourhood lists at most: fewer records are freed
#: on larger lattices (Adult: 6,480 nodes × about 300 rows).
NODE_ROWS = 4_000_000
#: Bytes per entry a program takes while its classes are found (Adult, k = 10: 91 MB at the
#: peak for 6,480 nodes × 217 rows): no more programs run at once than memory holds.
ENTRY_BYTES = 64


def _rounding(model: GeneralizationCost) -> float:
    """How far two sums of the same prices, added in another order, may differ."""
    return 1e-9 * max(model.row_cost, 1.0)


def lattice_nodes(model: GeneralizationCost) -> np.ndarray:
    """Every node of the lattice of ``model``'s hierarchies (one line of levels each), in
    the order of :func:`numpy.ravel_multi_index` over ``height + 1``."""
    grids = np.meshgrid(*[np.arange(h + 1) for h in model.height], indexing="ij")
    return np.stack([g.ravel() for g in grids], axis=1).astype(np.intp)


def node_keys(model: GeneralizationCost, rows: np.ndarray, nodes: np.ndarray):
    """Each row's class key and price per record (weighted) at each of the lattice's
    ``nodes``: two arrays of one line per node, one column per row of ``rows`` (leaf codes
    of every attribute)."""
    anc, nc, weight = model.ancestors, model.node_cost, model.cat_weight
    key = np.zeros((nodes.shape[0], rows.shape[0]), dtype=np.int64)
    price = np.zeros(key.shape)
    radix, bound = anc.shape[2] + 1, 1  # every key is below bound
    for j in range(nodes.shape[1]):
        if bound * radix >= 2**62:  # the keys renumbered first, so they never wrap
            key = np.unique(key, return_inverse=True)[1].reshape(key.shape).astype(np.int64)
            bound = key.size
        up = anc[j, nodes[:, j][:, None], rows[:, j]]
        key = key * radix + up
        bound *= radix
        price += weight[j] * nc[j, nodes[:, j][:, None], up]
    return key, price


def joint_price(model: GeneralizationCost, levels: np.ndarray, anchor: np.ndarray, seed: int):
    """Per crowd (``levels`` and ``anchor``: :meth:`GeneralizationCost.agreed_levels`), the
    price per record of one crowd holding it and crowd ``seed``."""
    joint = np.empty_like(levels)
    for j, h in enumerate(model.height):
        up = model.ancestors[j, : h + 1]  # (levels, leaves)
        low = np.maximum(levels[:, j], levels[seed, j])
        meet = up[:, anchor[:, j]] == up[:, [anchor[seed, j]]]  # (levels, crowds)
        meet &= np.arange(h + 1)[:, None] >= low
        joint[:, j] = np.argmax(meet, axis=0)  # the top level always meets
    return model.level_price(joint, anchor)


def neighbourhood_classes(
    model: GeneralizationCost,
    nodes: np.ndarray,
    rows: np.ndarray,
    weight: np.ndarray,
    k: int,
    paid: np.ndarray | None = None,
) -> tuple[np.ndarray, list[np.ndarray]]:
    """Every class of at least ``k`` records (``weight`` copies of each of ``rows``) at any
    of the ``nodes``, each set of members once at its least price: prices and member rows.
    With ``paid`` (per row, the most one of its records pays now), only the classes where
    some member would pay no more than it does."""
    key, price = node_keys(model, rows, nodes)
    f = rows.shape[0]
    order = np.lexsort((key.ravel(), np.repeat(np.arange(nodes.shape[0]), f)))
    flat_key, flat_node = key.ravel()[order], order // f
    new = np.r_[True, (flat_key[1:] != flat_key[:-1]) | (flat_node[1:] != flat_node[:-1])]
    starts = np.flatnonzero(new)
    member = order % f
    size = np.add.reduceat(weight[member], starts)
    # a set of members by the sum of a random 64-bit tag per row (wrapping): a collision
    # could only drop a class from the program, whose split is priced afresh before use
    tag = np.random.default_rng(0).integers(0, 2**63, size=f, dtype=np.uint64)
    with np.errstate(over="ignore"):
        sig = np.add.reduceat(tag[member], starts)
    cprice = price.ravel()[order][starts]
    wanted = size >= k
    if paid is not None:
        wanted &= cprice <= np.maximum.reduceat(paid[member], starts) + _rounding(model)
    big = np.flatnonzero(wanted)
    by = big[np.lexsort((cprice[big], sig[big]))]
    first = by[np.r_[True, sig[by][1:] != sig[by][:-1]]]  # the cheapest of equal members
    ends = np.r_[starts[1:], member.size]
    return cprice[first], [member[starts[c] : ends[c]] for c in first]


def split_program(members: list[np.ndarray], weight: np.ndarray, k: int):
    """The program's columns (per class its open flag, then a count per member row), rows
    and each class's flag column: ``(A, low, high, cap, flag)`` with ``low ≤ A x ≤ high``
    and ``0 ≤ x ≤ cap``, every ``x`` whole."""
    sizes = np.array([m.size for m in members], dtype=np.intp)
    flag = np.r_[0, np.cumsum(sizes + 1)[:-1]].astype(np.intp)
    n_cols, m = int((sizes + 1).sum()), weight.size
    cls = np.repeat(np.arange(sizes.size), sizes)
    rows = np.concatenate(members) if members else np.zeros(0, dtype=np.intp)
    y = np.delete(np.arange(n_cols), flag)
    w = weight[rows].astype(np.float64)
    at_least, shut = m + np.arange(sizes.size), m + sizes.size + np.arange(rows.size)
    r = np.concatenate([rows, at_least[cls], at_least, shut, shut])
    c = np.concatenate([y, y, flag, y, flag[cls]])
    v = np.concatenate([np.ones(rows.size), np.ones(rows.size), np.full(sizes.size, -float(k)),
                        np.ones(rows.size), -w])  # fmt: skip
    a = csr_matrix((v, (r, c)), shape=(m + sizes.size + rows.size, n_cols))
    low = np.r_[weight.astype(np.float64), np.zeros(sizes.size), np.full(rows.size, -np.inf)]
    high = np.r_[weight.astype(np.float64), np.full(sizes.size, np.inf), np.zeros(rows.size)]
    cap = np.ones(n_cols)
    cap[y] = w
    return a, low, high, cap, flag


def best_split(prices: np.ndarray, members: list[np.ndarray], weight: np.ndarray, k: int,
               seconds: float) -> list[np.ndarray] | None:  # fmt: skip
    """Per class, its count of each member row in the cheapest split of the rows into the
    classes (``None`` if HiGHS found none in ``seconds``)."""
    from scipy.optimize import Bounds, LinearConstraint, milp  # on first use (start-up)

    a, low, high, cap, flag = split_program(members, weight, k)
    cost = np.zeros(cap.size)
    for p, (price, rows) in enumerate(zip(prices, members, strict=True)):
        cost[flag[p] + 1 : flag[p] + 1 + rows.size] = price
    result = milp(cost, integrality=np.ones(cap.size), bounds=Bounds(0.0, cap),
                  constraints=LinearConstraint(a, low, high),
                  options={"time_limit": seconds, "mip_rel_gap": 1e-4})  # fmt: skip
    if result.x is None:
        return None
    x = np.rint(result.x).astype(np.int64)
    return [x[flag[p] + 1 : flag[p] + 1 + rows.size] for p, rows in enumerate(members)]


def placed(members: list[np.ndarray], counts: list[np.ndarray], inverse: np.ndarray):
    """Each record's crowd (numbered from 0, in the order of the classes) when class ``p``
    takes ``counts[p][i]`` of the records of row ``members[p][i]`` (``inverse``: each
    record's row)."""
    labels = np.full(inverse.size, -1, dtype=np.intp)
    by_row = np.argsort(inverse, kind="stable")  # each row's records, side by side
    next_of = np.searchsorted(inverse[by_row], np.arange(int(inverse.max()) + 1))
    for p, (rows, taken) in enumerate(zip(members, counts, strict=True)):
        for r, t in zip(rows, taken, strict=True):
            labels[by_row[next_of[r] : next_of[r] + t]] = p
            next_of[r] += t
    if (labels < 0).any():
        msg = "a split left a record unplaced"
        raise AssertionError(msg)
    return np.unique(labels, return_inverse=True)[1].ravel().astype(np.intp)


def _crowds(model: GeneralizationCost, labels: np.ndarray):
    """``labels`` numbered as :class:`~incrowd.partition.Partition` numbers them (a new,
    writable array), per crowd in that order its agreed levels, anchor and records, and what
    each record pays in its crowd."""
    partition = Partition(labels)
    levels, anchor = model.agreed_levels(partition.labels)
    paid = model.level_price(levels, anchor)[partition.labels]
    return partition.labels.copy(), levels, anchor, partition.groups(), paid


def _neighbourhood(model: GeneralizationCost, levels: np.ndarray, anchor: np.ndarray,
                   sizes: np.ndarray, free: np.ndarray, records: int,
                   rng: np.random.Generator) -> np.ndarray:  # fmt: skip
    """A free crowd chosen at random and the free crowds nearest to it, about ``records``
    records in all (per crowd, its ``sizes`` and whether it is ``free``: no program holds
    it now)."""
    candidates = np.flatnonzero(free)
    seed = int(candidates[rng.integers(candidates.size)])
    price = joint_price(model, levels, anchor, seed)
    price[~free] = np.inf  # the crowds a program holds stay where they are
    near = np.argsort(price, kind="stable")[: int(free.sum())]
    return near[: np.searchsorted(np.cumsum(sizes[near]), records, side="right")]


def _resplit(model: GeneralizationCost, nodes: np.ndarray, held: np.ndarray,
             paid: np.ndarray, k: int, deadline: float):  # fmt: skip
    """The best split of the ``held`` records (paying ``paid`` now) into the classes of the
    lattice's ``nodes``: each record's part (numbered from 0), or ``None`` if HiGHS found
    none by the ``deadline`` (or within :data:`PROGRAM_SECONDS`)."""
    rows, inverse, weight = np.unique(model.codes[held], axis=0, return_inverse=True,
                                      return_counts=True)  # fmt: skip
    inverse = inverse.ravel()
    most = np.zeros(rows.shape[0])
    np.maximum.at(most, inverse, paid)
    prices, members = neighbourhood_classes(model, nodes, rows, weight, k, most)
    left = deadline - time.perf_counter()
    counts = best_split(prices, members, weight, k, min(PROGRAM_SECONDS, max(left, 0.0)))
    return None if counts is None else placed(members, counts, inverse)


def _workers(requested: int | None, entries: int) -> int:
    """Programs to run at once: ``requested``, else one per thread
    (:func:`~incrowd._runtime.threads`) but no more than the memory available holds, each
    listing up to ``entries`` (lattice node, row) entries; at least one."""
    if requested:
        return max(1, requested)
    return max(1, min(threads(), available_memory() // (ENTRY_BYTES * max(entries, 1))))


def search(labels: np.ndarray, model: GeneralizationCost, k: int, seconds: float,
           rng: np.random.Generator, neighbourhoods: int | None = None,
           records: int | None = None, workers: int | None = None,
           ) -> tuple[np.ndarray, int, int]:  # fmt: skip
    """The crowds of ``labels`` (every record in one, ``k`` or more each, every attribute of
    ``model`` a hierarchy label) improved by exact re-splits of neighbourhoods for up to
    ``seconds`` (and at most ``neighbourhoods`` of them): the new labels, the number of
    neighbourhoods tried and the number improved. Never raises the cost.

    ``workers`` programs (default: one per thread, as memory allows) run at once, each on
    crowds no other holds (HiGHS releases the GIL); a split is taken when its program ends,
    so with more than one worker the result depends on the programs' times as well as on
    ``rng``. With one, it is the same for the same ``rng`` and ``neighbourhoods`` (unless
    a program stops at its time limit)."""
    deadline = time.perf_counter() + seconds
    nodes = lattice_nodes(model)
    records = records or max(NEIGHBOURHOOD_RECORDS, 16 * k)
    records = min(records, NODE_ROWS // nodes.shape[0])
    labels, levels, anchor, crowds, paid = _crowds(model, labels)
    tried = improved = 0
    if records < 2 * k:  # no two crowds to re-split
        return labels, tried, improved
    workers = _workers(workers, nodes.shape[0] * records)
    tol = _rounding(model)
    held_now = np.zeros(labels.size, dtype=bool)  # the records some program holds
    running: dict[Future, tuple[np.ndarray, float]] = {}

    def start(pool: ThreadPoolExecutor) -> bool:
        """Start a program on a free neighbourhood; False when none can start now."""
        nonlocal tried
        free = np.ones(len(crowds), dtype=bool)
        free[labels[held_now]] = False
        if not free.any():
            return False
        chosen = _neighbourhood(model, levels, anchor, np.bincount(labels), free, records, rng)
        if chosen.size < 2 and running:  # the free crowds may be too few: wait for a program
            return False
        tried += 1
        if chosen.size < 2:
            return True
        held = np.concatenate([crowds[c] for c in chosen])
        held_now[held] = True
        before = sum(model.crowd(crowds[c]) for c in chosen)
        running[pool.submit(_resplit, model, nodes, held, paid[held], k, deadline)] = held, before
        return True

    with ThreadPoolExecutor(max_workers=workers) as pool:
        while True:
            while (len(running) < workers and time.perf_counter() < deadline - LEAST_SECONDS
                   and (neighbourhoods is None or tried < neighbourhoods)):  # fmt: skip
                if not start(pool):
                    break
            if not running:
                break
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                held, before = running.pop(future)
                held_now[held] = False
                split = future.result()
                if split is None:
                    continue
                parts = [held[split == p] for p in range(split.max() + 1)]
                if (min(p.size for p in parts) < k
                        or sum(model.crowd(p) for p in parts) >= before - tol):  # fmt: skip
                    continue
                labels[held] = labels.max() + 1 + split
                labels, levels, anchor, crowds, paid = _crowds(model, labels)
                improved += 1
    return labels, tried, improved
