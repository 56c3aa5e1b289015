"""Starting crowds for the specialization: global recodings of what is left, one after another.

Each round looks for one set of hierarchy levels (a node of the generalization lattice) for
the records not yet placed: generalized to those levels, the records fall into classes of
equal labels; classes of at least ``k`` records are kept as crowds, the others wait for the
next round. The levels descend greedily from the top, one attribute one level at a time,
while that lowers ``Σ kept costs + wait · (records waiting)``, where ``wait`` prices a
waiting record (what it is expected to cost later); fewer than ``k`` records never wait
alone. This is the iterated global recoding of ARX's local recoding, with a greedy lattice
walk in place of ARX's search; the specialization then refines every class on its own.
"""

from __future__ import annotations

import numpy as np

__all__ = ["global_classes"]

#: The running key of a class is compressed when it would pass this bound.
_KEY_LIMIT = 2**52


def _classes(
    records: np.ndarray, levels: np.ndarray, k: int, wait: float, cm: tuple
) -> tuple[float, np.ndarray | None, np.ndarray | None]:
    """Objective, class of every record and which are kept, for ``records`` at ``levels``;
    an infinite objective when fewer than ``k`` (but some) records would wait."""
    codes, ancestors, node_cost, weight = cm[2], cm[3], cm[4], cm[8]
    key = np.zeros(records.size, dtype=np.int64)
    cost = np.zeros(records.size)
    bound = 1
    for j in range(codes.shape[1]):
        node = ancestors[j, levels[j], codes[records, j]]
        cost += weight[j] * node_cost[j, levels[j], node]
        width = int(node.max()) + 1
        if bound * width > _KEY_LIMIT:
            _, key = np.unique(key, return_inverse=True)
            key = key.ravel().astype(np.int64)
            bound = int(key.max()) + 1
        key = key * width + node
        bound *= width
    _, inverse, counts = np.unique(key, return_inverse=True, return_counts=True)
    inverse = inverse.ravel()
    kept = counts[inverse] >= k
    waiting = int(records.size - kept.sum())
    if 0 < waiting < k:
        return np.inf, None, None
    return float(cost[kept].sum() + wait * waiting), inverse, kept


def global_classes(
    n: int, k: int, wait: float, cm: tuple
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(perm, bounds, levels)``: class ``c`` is ``perm[bounds[c]:bounds[c + 1]]``, published
    at the hierarchy levels ``levels[c]`` (``cm``: the cost's kernel arrays)."""
    height = cm[5]
    b = height.size
    left = np.arange(n)
    parts: list[np.ndarray] = []
    part_levels: list[np.ndarray] = []
    while left.size:
        levels = height.copy()
        value, inverse, kept = _classes(left, levels, k, wait, cm)
        while True:
            best = (value, -1, inverse, kept)
            for j in range(b):
                if levels[j] == 0:
                    continue
                levels[j] -= 1
                trial = _classes(left, levels, k, wait, cm)
                levels[j] += 1
                if trial[0] < best[0]:
                    best = (trial[0], j, trial[1], trial[2])
            if best[1] < 0:
                break
            levels[best[1]] -= 1
            value, _, inverse, kept = best
        assert inverse is not None and kept is not None
        if not kept.any():  # nothing worth keeping below the top: one class of all that is left
            levels = height.copy()
            inverse = np.zeros(left.size, dtype=np.intp)
            kept = np.ones(left.size, dtype=bool)
        order = np.argsort(inverse[kept], kind="stable")
        members = left[kept][order]
        cls = inverse[kept][order]
        starts = np.flatnonzero(np.r_[True, cls[1:] != cls[:-1]])
        parts += np.split(members, starts[1:])
        part_levels += [levels.copy()] * starts.size
        left = left[~kept]
    perm = np.concatenate(parts) if parts else np.zeros(0, dtype=np.intp)
    bounds = np.r_[0, np.cumsum([p.size for p in parts])].astype(np.intp)
    levels_out = np.array(part_levels, dtype=np.intp).reshape(len(parts), b)
    return perm.astype(np.intp), bounds, levels_out
