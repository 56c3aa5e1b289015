"""Partition of records into crowds (clusters), the common output of every algorithm."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from .errors import PrivacyViolation

__all__ = ["Partition", "SUPPRESSED"]

#: Label of a record that is not published (suppressed or left out under an outlier budget).
SUPPRESSED = -1


@dataclass(frozen=True, eq=False)
class Partition:
    """An assignment of each record to a crowd, or to no crowd (``SUPPRESSED``).

    Labels are canonical: crowds are numbered ``0 .. n_clusters - 1`` in the order of their
    first record, so two partitions with the same crowds compare equal and a partition's
    labels do not depend on how an algorithm happened to number its clusters.

    Parameters
    ----------
    labels : array of int, shape (n,)
        Crowd of each record, ``-1`` for a suppressed record.
    """

    labels: np.ndarray
    sizes: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        raw = np.asarray(self.labels)
        if raw.ndim != 1:
            msg = f"labels must be one-dimensional, got shape {raw.shape}"
            raise ValueError(msg)
        if raw.size and not np.issubdtype(raw.dtype, np.integer):
            msg = f"labels must be integers, got dtype {raw.dtype}"
            raise ValueError(msg)
        labels = _canonical(raw.astype(np.intp, copy=False))
        labels.setflags(write=False)
        sizes = np.bincount(labels[labels >= 0], minlength=0).astype(np.intp)
        sizes.setflags(write=False)
        object.__setattr__(self, "labels", labels)
        object.__setattr__(self, "sizes", sizes)

    @classmethod
    def from_groups(cls, groups: Iterable[Sequence[int] | np.ndarray], n: int) -> Partition:
        """Build a partition from lists of record indices; records in no group are suppressed.

        Raises ``ValueError`` if a record appears in two groups or an index is out of range.
        """
        labels = np.full(n, SUPPRESSED, dtype=np.intp)
        for g, members in enumerate(groups):
            idx = np.asarray(members, dtype=np.intp)
            if idx.size and (idx.min() < 0 or idx.max() >= n):
                msg = f"group {g} has a record index outside 0..{n - 1}"
                raise ValueError(msg)
            if np.any(labels[idx] != SUPPRESSED) or np.unique(idx).size != idx.size:
                msg = f"group {g} contains a record that is already in another group"
                raise ValueError(msg)
            labels[idx] = g
        return cls(labels)

    @property
    def n(self) -> int:
        """Number of records, published or not."""
        return int(self.labels.size)

    @property
    def n_clusters(self) -> int:
        """Number of crowds."""
        return int(self.sizes.size)

    @property
    def n_suppressed(self) -> int:
        """Number of records that belong to no crowd."""
        return int(np.count_nonzero(self.labels == SUPPRESSED))

    @property
    def n_assigned(self) -> int:
        """Number of records in some crowd (the records a release publishes)."""
        return self.n - self.n_suppressed

    @property
    def min_size(self) -> int:
        """Size of the smallest crowd (0 when there are no crowds)."""
        return int(self.sizes.min()) if self.sizes.size else 0

    def groups(self) -> list[np.ndarray]:
        """Record indices of each crowd, in crowd order, each sorted ascending."""
        order = np.argsort(self.labels, kind="stable")
        start = self.n_suppressed
        bounds = np.cumsum(self.sizes)[:-1] + start
        return list(np.split(order[start:], bounds - start)) if self.sizes.size else []

    def validate(self, min_size: int) -> None:
        """Raise :class:`PrivacyViolation` if some crowd has fewer than ``min_size`` records."""
        small = np.flatnonzero(self.sizes < min_size)
        if small.size:
            msg = (
                f"{small.size} crowd(s) have fewer than {min_size} records "
                f"(smallest has {int(self.sizes[small].min())})"
            )
            raise PrivacyViolation(msg)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Partition) and np.array_equal(self.labels, other.labels)

    def __hash__(self) -> int:
        return hash(self.labels.tobytes())

    def __repr__(self) -> str:
        return (
            f"Partition(n={self.n}, n_clusters={self.n_clusters}, "
            f"min_size={self.min_size}, n_suppressed={self.n_suppressed})"
        )


def _canonical(labels: np.ndarray) -> np.ndarray:
    """Renumber crowds 0..m-1 by first occurrence; keep -1; reject other negatives."""
    out = np.full(labels.shape, SUPPRESSED, dtype=np.intp)
    kept = labels >= 0
    if np.any(labels[~kept] != SUPPRESSED):
        msg = "labels must be >= 0, or -1 for a suppressed record"
        raise ValueError(msg)
    if not kept.any():
        return out
    values, first, inverse = np.unique(labels[kept], return_index=True, return_inverse=True)
    rank = np.empty(values.size, dtype=np.intp)
    rank[np.argsort(first, kind="stable")] = np.arange(values.size)
    out[kept] = rank[inverse]
    return out
