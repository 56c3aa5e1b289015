import numpy as np
import pytest

from incrowd import Partition, PrivacyViolation


def test_labels_are_canonical_and_read_only():
    p = Partition(np.array([5, 5, -1, 2, 2, 5]))
    assert p.labels.tolist() == [0, 0, -1, 1, 1, 0]
    assert p.sizes.tolist() == [3, 2]
    assert (p.n, p.n_clusters, p.n_suppressed, p.n_assigned, p.min_size) == (6, 2, 1, 5, 2)
    with pytest.raises(ValueError):
        p.labels[0] = 1
    assert p == Partition(np.array([0, 0, -1, 7, 7, 0]))


def test_groups_round_trip():
    p = Partition.from_groups([[4, 1], [0, 2, 3]], n=6)
    assert [g.tolist() for g in p.groups()] == [[0, 2, 3], [1, 4]]
    assert p.labels[5] == -1


@pytest.mark.parametrize(("groups", "n"), [([[0, 1], [1, 2]], 3), ([[0, 5]], 3), ([[0, 0]], 2)])
def test_from_groups_rejects_overlaps_and_bad_indices(groups, n):
    with pytest.raises(ValueError):
        Partition.from_groups(groups, n)


def test_rejects_bad_labels():
    with pytest.raises(ValueError):
        Partition(np.array([0, -2]))
    with pytest.raises(ValueError):
        Partition(np.array([0.5, 1.0]))


def test_validate_names_small_crowds():
    with pytest.raises(PrivacyViolation, match="1 crowd"):
        Partition(np.array([0, 0, 0, 1, 1])).validate(3)
    Partition(np.array([0, 0, 0, 1, 1, 1])).validate(3)
