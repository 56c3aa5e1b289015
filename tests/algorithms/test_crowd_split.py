"""Splitting large crowds: the peeling, and the cut into pieces of large crowds first."""

import numpy as np
import pytest

from incrowd import MetricSpace
from incrowd.algorithms._shared.crowd_split import CHUNK, split_crowds


def peel(X: np.ndarray, center: int, k: int) -> np.ndarray:
    """The peeling by full distances: the member farthest from the center and its k − 1
    nearest left (earlier member first among ties), until fewer than 2k are left."""
    m = len(X)
    to_center = np.linalg.norm(X - X[center], axis=1)
    part = np.zeros(m, dtype=int)
    left = np.ones(m, dtype=bool)
    p = 0
    while left.sum() >= 2 * k:
        alive = np.flatnonzero(left)
        far = alive[np.argmax(to_center[alive])]
        gap = np.linalg.norm(X[alive] - X[far], axis=1)
        take = alive[np.argsort(gap, kind="stable")[:k]]
        part[take], left[take] = p, False
        p += 1
    part[left] = p
    return part


@pytest.mark.parametrize("seed", range(6))
def test_a_crowd_up_to_a_chunk_is_peeled(seed):
    rng = np.random.default_rng(seed)
    m, k = int(rng.integers(10, 300)), int(rng.integers(2, 6))
    X = np.round(rng.standard_normal((m, 2)), 1)  # ties among distances
    center = int(rng.integers(m))
    labels, parent = split_crowds(MetricSpace.from_array(X).geometry, np.zeros(m, int),
                                  np.array([center]), k)  # fmt: skip
    assert labels.tolist() == peel(X, center, k).tolist()
    assert (parent == 0).all()


def test_a_large_crowd_is_cut_into_pieces_then_peeled():
    rng = np.random.default_rng(1)
    k = 5
    X = rng.standard_normal((CHUNK + 517, 3))
    labels = np.r_[np.zeros(len(X) - 40, int), np.ones(40, int)]  # a large and a small crowd
    centers = np.array([0, len(X) - 1])
    split, parent = split_crowds(MetricSpace.from_array(X).geometry, labels, centers, k)
    sizes = np.bincount(split)
    assert sizes.sum() == len(X) and k <= sizes.min() and sizes.max() < 2 * k
    assert (labels == parent[split]).all()  # every part within its own crowd
    # about as tight as peeling the whole crowd at once
    big = labels == 0
    whole = peel(X[big], 0, k)

    def spread(points, part):
        return sum(np.linalg.norm(points[part == p] - points[part == p].mean(0), axis=1).sum()
                   for p in np.unique(part))  # fmt: skip

    assert spread(X[big], split[big]) <= 1.05 * spread(X[big], whole)
