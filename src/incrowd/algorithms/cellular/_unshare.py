"""From the primal-dual's clusters to crowds of at least ``k`` (Aggarwal et al., Thm 3.8).

**Sharing**: each open cluster ``o`` (center ``p_o``) also takes the ``k`` records nearest
its center (``p_o`` and its ``k − 1`` nearest), whatever their assignment; ``R_o`` is the
largest distance from ``p_o`` to a shared member (the *actual* radius, which the proof of
Lemma 3.7 needs). Every cluster now has ``k`` members, some shared.

**Unsharing**: clusters by increasing ``R``; a cluster with ``k`` unassigned members opens
and takes them; otherwise it is a *leftover*, whose parent is the open cluster of one of its
members assigned at that moment (so ``R_parent ≤ R``). Each record still unassigned goes
to the leftover of least radius that holds it. Per open cluster, a two-level tree: its own
records, and its leftovers weighted by their records. Leftovers are grouped greedily until
a group reaches ``k`` records; with ``W < k`` left over, if ``W + m ≥ 2k`` (``m`` its own
records) the rest takes the ``k − W`` own records nearest ``p_o`` and the others form a
crowd, else everything left forms one crowd. Every crowd of a tree is centered at ``p_o``:
a crowd with leftovers has < 2k records within ``3 R`` of its largest leftover (Lemmas
3.6–3.7), so the cost is at most 6 × the shared cost.
"""

from __future__ import annotations

import numpy as np

from ..._runtime import jit
from ...space.kernels import pair_distance

__all__ = ["unshare"]


@jit()
def _shared(num, codes, ent, norm, owner_order, owner_start, centers, idx, k):
    """Shared members of every cluster (CSR) and its actual radius."""
    m = centers.size
    count = np.zeros(m + 1, dtype=np.intp)
    for o in range(m):
        count[o + 1] = count[o] + owner_start[o + 1] - owner_start[o] + k
    members = np.empty(count[m], dtype=np.intp)
    radius = np.zeros(m)
    stamp = np.full(idx.shape[0], -1, dtype=np.intp)
    size = np.zeros(m, dtype=np.intp)
    for o in range(m):
        p = centers[o]
        f = count[o]
        for e in range(-1, k - 1 + owner_start[o + 1] - owner_start[o]):
            if e < 0:
                i = p
            elif e < k - 1:
                i = idx[p, e]
            else:
                i = owner_order[owner_start[o] + e - (k - 1)]
            if stamp[i] == o:
                continue
            stamp[i] = o
            members[f] = i
            f += 1
            d = pair_distance(num, codes, ent, p, i, norm)
            if d > radius[o]:
                radius[o] = d
        size[o] = f - count[o]
    return members, count, size, radius


@jit()
def _unshare(num, codes, ent, norm, members, mstart, msize, radius, centers, n, k):
    m = centers.size
    order = np.argsort(radius, kind="mergesort")
    owner = np.full(n, -1, dtype=np.intp)  # the open cluster a record belongs to
    is_open = np.zeros(m, dtype=np.bool_)
    parent = np.full(m, -1, dtype=np.intp)
    for o in order:
        free = 0
        first_taken = -1
        for e in range(mstart[o], mstart[o] + msize[o]):
            i = members[e]
            if owner[i] < 0:
                free += 1
            elif first_taken < 0:
                first_taken = owner[i]
        if free >= k:
            is_open[o] = True
            for e in range(mstart[o], mstart[o] + msize[o]):
                if owner[members[e]] < 0:
                    owner[members[e]] = o
        else:
            parent[o] = first_taken
    temp = np.full(n, -1, dtype=np.intp)  # the leftover holding a record still unassigned
    for o in order:
        if is_open[o]:
            continue
        for e in range(mstart[o], mstart[o] + msize[o]):
            i = members[e]
            if owner[i] < 0 and temp[i] < 0:
                temp[i] = o
    labels = np.full(n, -1, dtype=np.intp)
    crowd_center = np.empty(n, dtype=np.intp)
    n_crowds = 0
    # records held by each leftover, and owned by each open cluster
    held = np.zeros(m, dtype=np.intp)
    for i in range(n):
        if temp[i] >= 0:
            held[temp[i]] += 1
    own = np.zeros(m, dtype=np.intp)
    for i in range(n):
        if owner[i] >= 0:
            own[owner[i]] += 1
    hs = np.zeros(m + 1, dtype=np.intp)
    os_ = np.zeros(m + 1, dtype=np.intp)
    for o in range(m):
        hs[o + 1] = hs[o] + held[o]
        os_[o + 1] = os_[o] + own[o]
    held_list = np.empty(hs[m], dtype=np.intp)
    own_list = np.empty(os_[m], dtype=np.intp)
    fh = hs[:m].copy()
    fo = os_[:m].copy()
    for i in range(n):
        if temp[i] >= 0:
            held_list[fh[temp[i]]] = i
            fh[temp[i]] += 1
        if owner[i] >= 0:
            own_list[fo[owner[i]]] = i
            fo[owner[i]] += 1
    # children of each open cluster, by increasing radius
    nkids = np.zeros(m + 1, dtype=np.intp)
    for o in range(m):
        if parent[o] >= 0 and held[o] > 0:
            nkids[parent[o] + 1] += 1
    for o in range(m):
        nkids[o + 1] += nkids[o]
    kids = np.empty(nkids[m], dtype=np.intp)
    fk = nkids[:m].copy()
    for o in order:
        if parent[o] >= 0 and held[o] > 0:
            kids[fk[parent[o]]] = o
            fk[parent[o]] += 1
    for o in range(m):
        if not is_open[o]:
            continue
        p = centers[o]
        weight = 0
        group_start = nkids[o]
        for e in range(nkids[o], nkids[o + 1]):
            weight += held[kids[e]]
            if weight >= k:
                for e2 in range(group_start, e + 1):
                    c = kids[e2]
                    for t in range(hs[c], hs[c + 1]):
                        labels[held_list[t]] = n_crowds
                crowd_center[n_crowds] = p
                n_crowds += 1
                weight = 0
                group_start = e + 1
        own_here = own_list[os_[o] : os_[o + 1]]
        mine = own_here.size
        if weight > 0:
            for e2 in range(group_start, nkids[o + 1]):
                c = kids[e2]
                for t in range(hs[c], hs[c + 1]):
                    labels[held_list[t]] = n_crowds
            if weight + mine >= 2 * k:
                d = np.empty(mine)
                for t in range(mine):
                    d[t] = pair_distance(num, codes, ent, p, own_here[t], norm)
                near = np.argsort(d, kind="mergesort")
                for t in range(k - weight):
                    labels[own_here[near[t]]] = n_crowds
                crowd_center[n_crowds] = p
                n_crowds += 1
                for t in range(k - weight, mine):
                    labels[own_here[near[t]]] = n_crowds
            else:
                for t in range(mine):
                    labels[own_here[t]] = n_crowds
        else:
            for t in range(mine):
                labels[own_here[t]] = n_crowds
        crowd_center[n_crowds] = p
        n_crowds += 1
    return labels, crowd_center[:n_crowds]


def unshare(
    geometry_args: tuple, owner: np.ndarray, centers: np.ndarray, idx: np.ndarray, k: int
) -> tuple[np.ndarray, np.ndarray, float]:
    """Crowds of at least ``k`` from the primal-dual's clusters.

    ``owner[i]``: the cluster (``0..m-1``) of record ``i``, −1 for a record left out;
    ``centers[o]``: its center record; ``idx``: neighbour lists with at least ``k − 1``
    columns. Returns the crowd labels, each crowd's center record and the shared cost
    ``Σ_o |shared members| · R_o``.
    """
    num, codes, ent, norm = geometry_args
    n = owner.size
    kept = np.flatnonzero(owner >= 0)
    owner_order = kept[np.argsort(owner[kept], kind="stable")].astype(np.intp)
    owner_start = np.concatenate(
        ([0], np.cumsum(np.bincount(owner[kept], minlength=centers.size)))
    ).astype(np.intp)
    members, mstart, msize, radius = _shared(
        num, codes, ent, norm, owner_order, owner_start, centers, idx, k
    )
    labels, crowd_centers = _unshare(
        num, codes, ent, norm, members, mstart, msize, radius, centers, n, k
    )
    return labels, crowd_centers, float((msize * radius).sum())
