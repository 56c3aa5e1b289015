"""The parts of a release, checked one at a time: what :func:`incrowd.privacy.verify.verify`
reads of a published table besides l and t.

A part (a dataset's file, a file's chunk, a block of a blockwise run) is checked on its own
(:func:`check_part`: its form, rows, records, withheld columns, centers' multisets and the
sizes of its groups of identical published quasi-identifiers); the parts' checks join by
:func:`merge_checks`, a group's records adding up across the parts that hold it. Rows of
``*`` in every quasi-identifier are counted apart (:func:`star_rows`, :func:`split_starred`).
Memory: a few words per group, whatever the rows.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..errors import InputError
from ..io.metadata import STAR, ReleaseMetadata
from ..io.release_format import COUNT
from ..io.tables import check_plain_values

__all__ = ["PartCheck", "add_up", "check_part", "group_sizes", "merge_checks", "part_metadata",
           "reads_stars", "split_starred", "star_rows"]  # fmt: skip


#: Two 16-character keys of independent 64-bit hashes: a group is known by 128 bits.
_HASH_KEYS = ("0123456789123456", "incrowd-groups-2")


def group_sizes(table: pd.DataFrame, qi: Sequence[str], weights: Any = None) -> pd.Series:
    """Records (``weights`` per row, default 1) per group of identical published
    quasi-identifiers, keyed by a 128-bit hash of the group's values: groups of several
    parts (blocks, chunks) add up by key, in memory of a few words per group. Values are
    compared as published text."""
    weights = np.ones(len(table), dtype=np.int64) if weights is None else np.asarray(
        weights, dtype=np.int64)  # fmt: skip
    keys = table[list(qi)].astype(str)
    h1, h2 = (pd.util.hash_pandas_object(keys, index=False, hash_key=key).to_numpy()
              for key in _HASH_KEYS)  # fmt: skip
    return pd.Series(weights).groupby([h1, h2], sort=False).sum()


def add_up(sizes: Sequence[pd.Series]) -> pd.Series:
    """Group sizes of several parts (:func:`group_sizes`) as one: a group's counts add up
    across the parts that hold it (sorting the keys once, not merging indexes)."""
    if len(sizes) == 1:
        return sizes[0]
    if not sizes:
        return pd.Series(dtype=np.int64)
    h1, h2 = (np.concatenate([s.index.get_level_values(i).to_numpy(dtype=np.uint64)
                              for s in sizes]) for i in (0, 1))  # fmt: skip
    counts = np.concatenate([s.to_numpy(dtype=np.int64) for s in sizes])
    order = np.lexsort((h2, h1))
    h1, h2, counts = h1[order], h2[order], counts[order]
    first = np.ones(h1.size, dtype=bool)
    first[1:] = (h1[1:] != h1[:-1]) | (h2[1:] != h2[:-1])
    starts = np.flatnonzero(first)
    total = np.add.reduceat(counts, starts) if counts.size else counts
    return pd.Series(total, index=pd.MultiIndex.from_arrays([h1[starts], h2[starts]]))


def part_metadata(meta: ReleaseMetadata) -> ReleaseMetadata:
    """What a part's check reads of the metadata (a worker gets this, not the whole)."""
    return ReleaseMetadata(release=meta.release, withheld_columns=meta.withheld_columns,
                           sensitive=meta.sensitive,
                           suppressed_rows=meta.suppressed_rows)  # fmt: skip


def reads_stars(meta: ReleaseMetadata) -> bool:
    """Whether rows of ``*`` in every quasi-identifier are suppressed records: the metadata
    says so, or there is no metadata to say otherwise."""
    return meta.suppressed_rows == "star" or (meta.release is None and meta.suppressed_rows is None)


def star_rows(table: pd.DataFrame, qi: Sequence[str]) -> np.ndarray:
    """Which rows show ``*`` in every quasi-identifier (a boolean mask)."""
    mask = np.ones(len(table), dtype=bool)
    for name in qi:
        column = table[name]
        if column.dtype.kind in "biufcmM":  # numbers or times: never *
            return np.zeros(len(table), dtype=bool)
        mask &= column.eq(STAR).to_numpy(dtype=bool, na_value=False)
    return mask


def split_starred(n_starred: int, meta: ReleaseMetadata) -> tuple[int, int]:
    """Records in rows of ``*`` read as ``(suppressed, kept)``: with the metadata's count of
    suppressed records, rows beyond it are kept records of one class (a node at the top of
    every hierarchy publishes its records as ``*`` too)."""
    if meta.suppressed_form == "star" and meta.n_suppressed is not None:
        seen = min(n_starred, meta.n_suppressed)
        return seen, n_starred - seen
    return n_starred, 0


@dataclass
class PartCheck:
    """What one part of a release (a block, a file, a chunk) shows on its own: its form,
    rows, records, group sizes (:func:`group_sizes`) and problems."""

    form: str
    n_rows: int = 0
    n_records: int = 0
    sizes: pd.Series | None = None
    problems: list[str] = field(default_factory=list)
    n_starred: int = 0  # records in rows of *, kept out of n_records and the groups


def check_part(table: pd.DataFrame, qi: Sequence[str], meta: ReleaseMetadata) -> PartCheck:
    """One part of a release, checked on its own (:func:`merge_checks` joins the parts)."""
    missing = [c for c in qi if c not in table.columns]
    if missing:
        msg = (
            f"the published table has no column {missing[0]!r}; its columns are: "
            f"{', '.join(map(str, table.columns))}"
        )
        raise InputError(msg)
    check_plain_values(table, dict.fromkeys(qi, "quasi-identifier"))
    form = meta.release or ("centers" if COUNT in table.columns else "records")
    checked = PartCheck(form, n_rows=len(table))
    leaked = [c for c in meta.withheld_columns if c in table.columns]
    if leaked:
        checked.problems.append(f"column {leaked[0]!r} should have been withheld but is published")
    if form == "centers":
        counts = pd.to_numeric(table[COUNT], errors="coerce") if COUNT in table else None
        if counts is None or counts.isna().any() or (counts < 0).any() or (
                counts % 1 != 0).any():  # fmt: skip
            checked.problems.append("a centers release needs a non-negative integer 'count' column")
            return checked
        weights = counts.to_numpy(dtype=np.int64)
        checked.problems += _check_multisets(table, counts.astype(np.int64), meta.sensitive)
    else:
        weights = np.ones(len(table), dtype=np.int64)
    if reads_stars(meta) and len(table):
        star = star_rows(table, qi)
        if star.any():
            checked.n_starred = int(weights[star].sum())
            table, weights = table[~star], weights[~star]
    checked.n_records = int(weights.sum())
    checked.sizes = group_sizes(table, qi, weights)
    return checked


def merge_checks(parts: Iterable[PartCheck]) -> PartCheck:
    """The checks of the parts of one release, as one: records and group sizes add up
    across parts (a group may span several); a problem is reported once."""
    merged: PartCheck | None = None
    sizes: list[pd.Series] = []
    usable = True
    for part in parts:
        if merged is None:
            merged = PartCheck(part.form)
        merged.n_rows += part.n_rows
        merged.n_records += part.n_records
        merged.n_starred += part.n_starred
        merged.problems += [p for p in part.problems if p not in merged.problems]
        if part.sizes is None:
            usable = False
        elif usable:
            sizes.append(part.sizes)
    if merged is None:
        return PartCheck("records", sizes=pd.Series(dtype=np.int64))
    if usable:
        total = add_up(sizes)
        merged.sizes = total[total > 0]
    return merged


def _check_multisets(table: pd.DataFrame, counts: pd.Series, sensitive: Sequence[str]) -> list[str]:
    problems = []
    for name in sensitive:
        if name not in table.columns:
            problems.append(f"sensitive column {name!r} is missing from the centers release")
            continue
        for row, (cell, count) in enumerate(zip(table[name], counts, strict=True), start=1):
            try:
                multiset = json.loads(str(cell))
                total = sum(int(v) for v in multiset.values())
            except (json.JSONDecodeError, AttributeError, TypeError, ValueError):
                problems.append(f"row {row}: {name!r} is not a JSON multiset of values")
                break
            if total != count:
                problems.append(
                    f"row {row}: the {name!r} multiset holds {total} values but count is {count}"
                )
                break
    return problems
