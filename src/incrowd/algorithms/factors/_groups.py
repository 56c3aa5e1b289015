"""Crowds from a factor's components: paths and cycles cut into consecutive pieces.

Lemma 11 of Aggarwal et al. (*Approximation Algorithms for k-Anonymity*) cuts a long cycle of
the 2-factor into pieces of 3 and 4 and bounds the average over the cuts; choosing the
least costly cut over all cut points and rotations is never worse than that average.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

__all__ = ["factor_groups", "group_labels"]


def _walks(n: int, edges: np.ndarray) -> list[tuple[list[int], bool]]:
    """Each component of a graph of degree ≤ 2, as its vertices in order and whether it is
    a cycle."""
    adj: list[list[int]] = [[] for _ in range(n)]
    for a, b in edges.tolist():
        adj[a].append(b)
        adj[b].append(a)
    seen = [False] * n
    out = []
    for start in [v for v in range(n) if len(adj[v]) <= 1] + list(range(n)):
        if seen[start]:
            continue
        order, prev, x = [start], -1, start
        seen[start] = True
        while True:
            nxt = next((y for y in adj[x] if y != prev and not seen[y]), None)
            if nxt is None:
                break
            order.append(nxt)
            seen[nxt] = True
            prev, x = x, nxt
        out.append((order, len(order) >= 3 and len(adj[start]) == 2))
    return out


def _best_segments(
    order: list[int], sizes: tuple[int, ...], cost: Callable[[list[int]], float]
) -> tuple[float, list[list[int]]]:
    """Cut a path into consecutive groups with sizes in ``sizes``, cheapest total cost."""
    length = len(order)
    best = [np.inf] * (length + 1)
    back = [0] * (length + 1)
    best[0] = 0.0
    for i in range(1, length + 1):
        for s in sizes:
            if s <= i and best[i - s] < np.inf:
                c = best[i - s] + cost(order[i - s : i])
                if c < best[i]:
                    best[i], back[i] = c, s
    groups, i = [], length
    while i > 0 and best[length] < np.inf:
        groups.append(order[i - back[i] : i])
        i -= back[i]
    return best[length], groups[::-1]


def factor_groups(
    n: int,
    edges: np.ndarray,
    sizes: tuple[int, ...],
    cost: Callable[[list[int]], float],
) -> list[list[int]]:
    """Groups from a factor's components: each path or cycle is cut into consecutive pieces
    with sizes in ``sizes`` (a component of an allowed size stays whole), choosing among all
    cuts and rotations the one of least total ``cost``."""
    groups: list[list[int]] = []
    for order, cycle in _walks(n, edges):
        if not cycle:
            groups.extend(_best_segments(order, sizes, cost)[1])
            continue
        # some group boundary falls within the first max(sizes) positions of any cut
        options = [
            _best_segments(order[r:] + order[:r], sizes, cost)
            for r in range(min(max(sizes), len(order)))
        ]
        groups.extend(min(options, key=lambda o: o[0])[1])
    return groups


def group_labels(groups: list[list[int]], n: int) -> np.ndarray:
    labels = np.full(n, -1, dtype=np.intp)
    for g, members in enumerate(groups):
        labels[members] = g
    return labels
