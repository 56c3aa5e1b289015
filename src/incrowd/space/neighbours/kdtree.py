"""KD-trees (scipy's ``cKDTree``) over the dense embedding: neighbour lists of rows of numbers,
and the tree behind ball and nearest queries where the index does not scan."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..._runtime import threads
from ..geometry import Geometry

if TYPE_CHECKING:
    from scipy.spatial import cKDTree

__all__ = [
    "DEDUP_MAX_FRACTION", "DEDUP_MIN_DIM", "WIDE_DIM", "WIDE_LEAF_SIZE", "kd_tree", "self_first",
    "tree_lists",
]  # fmt: skip

#: Deduplicate rows for the dense tree when it is at least this wide (trees are weak there)
#: and the distinct rows are at most this fraction of the records.
DEDUP_MIN_DIM = 9
DEDUP_MAX_FRACTION = 0.9
#: KD-tree leaf size for wide embeddings (one-hot blocks query fastest with big leaves).
WIDE_LEAF_SIZE = 256
WIDE_DIM = 32


def kd_tree(points: np.ndarray, leafsize: int = 16) -> cKDTree:
    """scipy's KD-tree, imported on first use: queries over labels scan rows instead, and
    the import is a tenth of a second of every start-up (the command line, a Dask worker)."""
    from scipy.spatial import cKDTree

    return cKDTree(points, leafsize=leafsize)


def tree_lists(rows: Geometry, q: int, norm: int) -> tuple[np.ndarray, np.ndarray]:
    """Neighbour lists (``q`` long, each row itself first) of the dense ``rows``."""
    points = rows.dense()
    leaf = WIDE_LEAF_SIZE if points.shape[1] > WIDE_DIM else 16
    tree = kd_tree(points, leafsize=leaf)
    dist, idx = tree.query(points, k=q, p=norm, workers=threads())
    dist, idx = np.asarray(dist).reshape(rows.n, q), np.asarray(idx).reshape(rows.n, q)
    return self_first(dist, idx)


def self_first(dist: np.ndarray, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Lists with each row itself first: distinct rows can still be at distance 0 (a node
    that costs nothing to generalize), and a tree may list such a twin first."""
    q = idx.shape[1]
    for u in np.flatnonzero(idx[:, 0] != np.arange(idx.shape[0])):
        others = idx[u] != u
        idx[u] = np.concatenate(([u], idx[u][others]))[:q]
        dist[u] = np.concatenate(([0.0], dist[u][others]))[:q]
    return dist, idx
