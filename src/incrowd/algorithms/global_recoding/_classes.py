"""The equivalence classes of one node of the generalization lattice, and what they cost.

A node gives each quasi-identifier one level of its hierarchy. The table's distinct rows
(with their record counts) are grouped by their labels at those levels, read as one integer
in mixed radix, with an open-addressing hash table; a class is suppressed when it holds
fewer than ``k`` records or fewer than ``l`` distinct sensitive values.
:func:`node_classes` returns each row's class; :func:`node_figures` the figures the lattice
search needs.

Time: :math:`O(m b)` per node for ``m`` distinct rows and ``b`` attributes (expected, for the
hash table), the labels read as contiguous streams (on Adult, 18,109 rows, ~0.2 ms a node;
``benchmarks/global_recoding.py``); memory :math:`O(m)` per node and the labels of every
level, :math:`O(m \\sum_j (h_j + 1))`. Compiled.
"""

from __future__ import annotations

import numpy as np

from ..._runtime import jit

__all__ = ["group", "key_layout", "node_classes", "node_figures", "suppressed_classes"]

_MIX = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing


@jit()
def group(key):
    """``(cls, n_classes)``: equal keys in one class, classes numbered from 0 in the order
    of their first key (an open-addressing hash table)."""
    m = key.size
    size, bits = 1, 0
    while size < 2 * m + 2:
        size *= 2
        bits += 1
    shift = np.uint64(64 - bits)
    mask = np.uint64(size - 1)
    slot_key = np.empty(size, dtype=np.int64)
    slot_cls = np.full(size, -1, dtype=np.intp)
    cls = np.empty(m, dtype=np.intp)
    n_classes = 0
    for i in range(m):
        s = (np.uint64(key[i]) * _MIX) >> shift
        while True:
            c = slot_cls[s]
            if c < 0:
                slot_cls[s] = n_classes
                slot_key[s] = key[i]
                cls[i] = n_classes
                n_classes += 1
                break
            if slot_key[s] == key[i]:
                cls[i] = c
                break
            s = (s + np.uint64(1)) & mask
    return cls, n_classes


@jit()
def node_classes(levels, labels, stride, scale, rank_after):
    """``(cls, n_classes)``: the class of each distinct row at the node ``levels``.

    A row's key is its labels (``labels[j, level]``: attribute ``j``'s label of each row
    at ``level``, read as contiguous streams) in mixed radix (``stride``); where the radix
    would pass 64 bits, the key so far is replaced by its class number (``rank_after``),
    which the next attributes extend (``scale``): :func:`key_layout`.
    """
    b, _, m = labels.shape
    key = np.zeros(m, dtype=np.int64)
    for j in range(b):
        lab = labels[j, levels[j]]
        step, grow = stride[j], scale[j]
        for i in range(m):
            key[i] = key[i] * grow + lab[i] * step
        if rank_after[j]:
            key = group(key)[0].astype(np.int64)
    return group(key)


def key_layout(radix: np.ndarray, m: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(stride, scale, rank_after)`` for :func:`node_classes`: attributes in chunks whose
    keys fit in 62 bits (after the first, with a class number below ``m`` in front)."""
    b = radix.size
    stride = np.ones(b, dtype=np.int64)
    scale = np.ones(b, dtype=np.int64)
    rank_after = np.zeros(b, dtype=np.bool_)
    start, product = 0, 1
    for j in range(b + 1):
        lead = m if start > 0 else 1
        if j < b and lead * product * int(radix[j]) < 2**62:
            product *= int(radix[j])
            continue
        # close the chunk start .. j - 1
        inner = 1
        for i in range(j - 1, start - 1, -1):
            stride[i] = inner
            inner *= int(radix[i])
        if start > 0:
            scale[start] = inner
        if j < b:
            rank_after[j - 1] = True
            start, product = j, int(radix[j])
    return stride, scale, rank_after


@jit()
def suppressed_classes(cls, n_classes, counts, sens, k, ell, meets):
    """Per class: its records, and whether it is suppressed (fewer than ``k`` records,
    fewer than ``ell`` distinct sensitive values ``sens`` of its rows when ``ell`` ≥ 2, or
    not ``meets``: another privacy model's verdict)."""
    m = cls.size
    size = np.zeros(n_classes, dtype=np.int64)
    for i in range(m):
        size[cls[i]] += counts[i]
    bad = (size < k) | ~meets
    if ell >= 2:
        # distinct (class, value) pairs: rows sorted by class, values counted once per class
        order = np.argsort(cls, kind="mergesort")
        distinct = np.zeros(n_classes, dtype=np.int64)
        start = 0
        while start < m:
            c = cls[order[start]]
            end = start
            while end < m and cls[order[end]] == c:
                end += 1
            values = np.sort(sens[order[start:end]])
            seen = 1
            for t in range(1, values.size):
                if values[t] != values[t - 1]:
                    seen += 1
            distinct[c] = seen
            start = end
        for c in range(n_classes):
            if distinct[c] < ell:
                bad[c] = True
    return size, bad


@jit()
def node_figures(levels, labels, cls, n_classes, counts, price, sens, k, ell, meets):
    """``(suppressed, suppressed_price, kept_square, all_square)`` at the node ``levels``
    whose classes are ``cls`` (:func:`node_classes`): the records suppressed, what they
    would cost at the node's labels (``price[j, level, label]``, weighted), and the sums of
    the squared class sizes over the kept classes and over all classes (discernibility)."""
    size, bad = suppressed_classes(cls, n_classes, counts, sens, k, ell, meets)
    suppressed = 0
    total = 0.0
    for i in range(cls.size):
        if bad[cls[i]]:
            suppressed += counts[i]
            row = 0.0
            for j in range(labels.shape[0]):
                row += price[j, levels[j], labels[j, levels[j], i]]
            total += counts[i] * row
    kept_square = 0.0
    all_square = 0.0
    for c in range(n_classes):
        square = float(size[c]) * float(size[c])
        all_square += square
        if not bad[c]:
            kept_square += square
    return suppressed, total, kept_square, all_square
