"""A crowd's summary under the generalization cost, from which a join is priced in O(b).

Per crowd: each number's range, each hierarchy label's level (the lowest at which every
member shares the crowd's anchor's ancestor), each value set's number of distinct values
and, when they fit, its counts per value (:func:`summarize`). :func:`joined_cost` prices the
crowd with one more record from the summary alone, in :math:`O(b)` for ``b`` attributes
(a value set without counts looks the value up among the members: :math:`O(b + m)`).
Used by the moves of :mod:`.improve`; compiled.
"""

from __future__ import annotations

import numpy as np

from ..._runtime import jit

__all__ = ["joined_cost", "present", "set_offsets", "summarize"]


@jit()
def set_offsets(cm):
    """Start of each value-set attribute's values in a crowd's row of counts (−1: not a
    value-set attribute), and the row's length."""
    codes, domain, sets = cm[2], cm[6], cm[7]
    offs = np.full(codes.shape[1], -1, dtype=np.intp)
    width = 0
    for j in range(codes.shape[1]):
        if sets[j] and domain[j] > 1 and codes.shape[0] > 0:
            offs[j] = width
            width += codes[:, j].max() + 1  # codes may run past the values present
    return offs, width


@jit()
def summarize(c, head, nxt, cm, lo, hi, anchor, level, counts, distinct, offs, stamp, tick):
    """The summary of crowd ``c`` from its members: each number's range, each label's
    level (the lowest at which every member shares ``anchor[c]``'s ancestor), each value
    set's number of distinct values and, when kept, counts. ``stamp``/``tick``: as for
    :func:`~incrowd.costs.kernels.record_cost` (marks ``tick .. tick + b − 1``)."""
    num, codes, ancestors, height, sets = cm[0], cm[2], cm[3], cm[5], cm[7]
    x = head[c]
    anchor[c] = x
    for j in range(num.shape[1]):
        lo[c, j] = num[x, j]
        hi[c, j] = num[x, j]
    for j in range(codes.shape[1]):
        level[c, j] = 0
        distinct[c, j] = 0
    if counts.shape[0] > 0:
        counts[c, :] = 0
    while x >= 0:
        for j in range(num.shape[1]):
            v = num[x, j]
            if v < lo[c, j]:
                lo[c, j] = v
            elif v > hi[c, j]:
                hi[c, j] = v
        for j in range(codes.shape[1]):
            if not sets[j]:
                v, first = codes[x, j], codes[anchor[c], j]
                while level[c, j] < height[j] and (
                    ancestors[j, level[c, j], v] != ancestors[j, level[c, j], first]
                ):
                    level[c, j] += 1
        x = nxt[x]
    for j in range(codes.shape[1]):
        if offs[j] < 0:
            continue
        x = head[c]  # one attribute at a time: its marks are tick + j
        while x >= 0:
            v = codes[x, j]
            if stamp[v] != tick + j:
                stamp[v] = tick + j
                distinct[c, j] += 1
            if counts.shape[0] > 0:
                counts[c, offs[j] + v] += 1
            x = nxt[x]


@jit()
def present(head, nxt, c, x, codes, j):
    """Whether a member of crowd ``c`` has the value ``codes[x, j]``."""
    y = head[c]
    while y >= 0:
        if codes[y, j] == codes[x, j]:
            return True
        y = nxt[y]
    return False


@jit()
def joined_cost(c, x, head, nxt, cm, lo, hi, anchor, level, counts, distinct, offs):
    """Per-record cost of crowd ``c`` with record ``x`` added, from ``c``'s summary: the
    value :func:`~incrowd.costs.kernels.record_cost` gives for its members and ``x``, term
    by term in the same order (so the same float), in O(b) (O(b · |c|) for value sets
    whose counts are not kept)."""
    num, num_weight, codes, ancestors, node_cost, height, domain, sets, cat_weight = cm
    total = 0.0
    for j in range(num.shape[1]):
        v = num[x, j]
        low = lo[c, j] if lo[c, j] < v else v
        high = hi[c, j] if hi[c, j] > v else v
        total += num_weight[j] * (high - low)
    for j in range(codes.shape[1]):
        if sets[j]:
            if domain[j] <= 1:
                continue
            if counts.shape[0] > 0:
                new = counts[c, offs[j] + codes[x, j]] == 0
            else:
                new = not present(head, nxt, c, x, codes, j)
            total += cat_weight[j] * (distinct[c, j] + (1 if new else 0) - 1) / (domain[j] - 1)
            continue
        h = height[j]
        if h == 0:
            continue
        first = codes[anchor[c], j]
        lv = level[c, j]
        while lv < h and ancestors[j, lv, codes[x, j]] != ancestors[j, lv, first]:
            lv += 1
        total += cat_weight[j] * node_cost[j, lv, ancestors[j, lv, first]]
    return total
