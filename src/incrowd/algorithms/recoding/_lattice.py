"""Steps of a walk of the generalization lattice, shared by the walks of local recoding.

The seeds (:mod:`._seed`), the candidate lists (:mod:`._class_lists`), the bounds
(:mod:`.bounds.lattice`) and the dual ascent (:mod:`._ascent`) walk the lattice down from
its top, one attribute one level at a time, each node once: the classes of the records at
a node split by each record's rank among its node's siblings.

Guarantee: each node of the lattice is reached once (:func:`next_lowered` lowers attributes
in order). Time: :math:`O(m)` per step for ``m`` records, compiled (a step whose keys are
too wide to name densely sorts them: :math:`O(m \\log m)`).
"""

from __future__ import annotations

import numpy as np

from ..._runtime import jit

__all__ = ["child_ranks", "dense_keys", "next_lowered", "split_classes"]


def child_ranks(cm: tuple) -> tuple[np.ndarray, np.ndarray]:
    """``(rank, fan)``: ``rank[j, l, v]`` numbers node ``v`` of level ``l`` among the children
    of its parent (at ``l + 1``); ``fan[j, l]`` is the most children a parent has."""
    codes, ancestors, height = cm[2], cm[3], cm[5]
    b, levels, width = ancestors.shape
    rank = np.zeros((b, levels, width), dtype=np.intp)
    fan = np.ones((b, levels), dtype=np.intp)
    for j in range(b):
        present = np.unique(codes[:, j])
        for level in range(int(height[j])):
            pairs = np.unique(
                np.stack([ancestors[j, level + 1, present], ancestors[j, level, present]], 1),
                axis=0,
            )  # (parent, child), sorted by parent
            first = np.flatnonzero(np.r_[True, pairs[1:, 0] != pairs[:-1, 0]])
            sibling = np.arange(len(pairs)) - np.repeat(first, np.diff(np.r_[first, len(pairs)]))
            rank[j, level, pairs[:, 1]] = sibling
            fan[j, level] = int(sibling.max()) + 1
    return rank, fan


@jit()
def next_lowered(nxt, lv, cnt, d):
    """The next attribute a lattice walk lowers below its node at depth ``d`` (levels
    ``lv[d]``; ``nxt[d]``: the first not yet tried, advanced past it), or −1 when none is
    left or no record is: each node is reached once, lowering attributes in order."""
    b = lv.shape[1]
    while cnt[d] > 0 and nxt[d] < b:
        j = nxt[d]
        nxt[d] = j + 1
        if lv[d, j] > 0:
            return j
    return -1


@jit()
def split_classes(rec, cls, m, n_cls, ranks, f, names, key, rec_out, cls_out):
    """One step down a lattice walk: the classes ``cls[:m]`` (``n_cls`` of them) of the
    records ``rec[:m]`` split by each record's rank among its node's siblings
    (``ranks[u]``, fewer than ``f``), into ``rec_out`` / ``cls_out`` in the same order;
    returns the number of classes. ``names`` (−1 everywhere, left so) numbers the keys;
    ``key``: scratch."""
    for t in range(m):
        key[t] = cls[t] * f + ranks[rec[t]]
    if n_cls * f > names.size:  # too wide to name densely: compress by sorting
        dense_keys(key[:m])
    c = 0
    for t in range(m):
        if names[key[t]] < 0:
            names[key[t]] = c
            c += 1
        rec_out[t] = rec[t]
        cls_out[t] = names[key[t]]
    for t in range(m):
        names[key[t]] = -1
    return c


@jit()
def dense_keys(key):
    """Renumber ``key`` in place ``0 ..`` by sorting (equal keys, equal numbers); returns
    how many distinct keys there are."""
    m = key.size
    order = np.argsort(key)
    dense = np.empty(m, dtype=np.intp)
    d = -1
    for t in range(m):
        if t == 0 or key[order[t]] != key[order[t - 1]]:
            d += 1
        dense[order[t]] = d
    key[:] = dense
    return d + 1
