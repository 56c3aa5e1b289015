"""Independent verification of a published table.

:func:`verify` knows nothing of the algorithm or the partition behind a release: it
re-derives the crowds from the published quasi-identifier values alone (records whose
published values are identical are indistinguishable, whatever crowd the algorithm meant
them for) and checks that each has at least k records, that no column the publisher
withheld appears, and that the record counts reconcile with the metadata. It imports no
algorithm, cost or compiled kernel (``tests/test_layers.py`` checks it): what it checks
cannot share a bug with what made the release.

Suppressed records published as rows of ``*`` in every quasi-identifier (the metadata's
``suppressed_rows`` is ``"star"``; a table without metadata is read so too) are counted
apart (``n_suppressed_rows``) and must number at least the metadata's ``n_suppressed``;
rows of ``*`` beyond that (a node at the top of every hierarchy) are records of one class.
They still form a group an attacker can point at — a person missing from the published
categories is one of them — so there must be none or at least k of them, and with
l-diversity or t-closeness they are checked as one class. A
release whose metadata says ``"drop"`` (or does not say) is read as before: a row of ``*``
is a row of its class.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..errors import InputError, PrivacyViolation
from ..io.metadata import STAR, ReleaseMetadata
from ..io.release_format import COUNT, changed_files, read_release, read_release_parts
from ..io.tables import check_plain_values
from .models import Diversity, published_figures

if TYPE_CHECKING:
    from ..release import Release

__all__ = ["VerificationReport", "verify", "check_k_anonymity", "group_sizes", "add_up",
           "PartCheck", "check_part", "merge_checks", "finish_check", "part_metadata",
           "checked_request", "star_rows", "reads_stars", "split_starred"]  # fmt: skip


@dataclass(frozen=True)
class VerificationReport:
    """Outcome of :func:`verify`. ``ok`` is True only when ``problems`` is empty."""

    k: int
    k_achieved: int
    n_rows: int
    n_records: int
    n_classes: int
    form: str
    problems: tuple[str, ...]
    #: Suppressed records shown as rows of ``*`` (not in ``n_records`` nor in any class).
    n_suppressed_rows: int = 0

    @property
    def ok(self) -> bool:
        return not self.problems

    def raise_if_failed(self) -> None:
        """Raise :class:`PrivacyViolation` naming the first problem."""
        if self.problems:
            more = f" (and {len(self.problems) - 1} more)" if len(self.problems) > 1 else ""
            raise PrivacyViolation(self.problems[0] + more)


def verify(
    release: Release | pd.DataFrame | str | os.PathLike[str],
    qi: Sequence[str],
    k: int,
    *,
    metadata: ReleaseMetadata | Mapping[str, Any] | None = None,
    sep: str | None = None,
    diversity: Diversity | None = None,
    sensitive: Sequence[str] | None = None,
) -> VerificationReport:
    """Check that a published table is k-anonymous on ``qi`` and reconciles with its metadata.

    ``release`` may be a :class:`Release`, a published DataFrame, or the path of a written
    release (its JSON metadata beside it is read when ``metadata`` is not given, and the
    table must be the one the metadata describes). A table with a ``count`` column and
    ``"release": "centers"`` in its metadata (or no metadata) is read as a centers release:
    each row stands for ``count`` records. Rows of ``*`` in every quasi-identifier are read
    as suppressed records (module docstring).

    With ``diversity`` (l-diversity and/or t-closeness, :mod:`incrowd.privacy.models`), every
    class must also hold it for each ``sensitive`` column (default: the metadata's).

    Raises :class:`~incrowd.InputError` for a usage error (a quasi-identifier the table
    does not have, a k below 1); a release that fails a check is reported, not raised.
    """
    qi, k = checked_request(qi, k)
    constrained = diversity is not None and diversity.active
    if isinstance(release, pd.DataFrame):
        table, meta, altered = release, ReleaseMetadata.of(metadata), []
    elif not isinstance(release, str | os.PathLike):  # a Release (not imported: see above)
        if not (hasattr(release, "table") and hasattr(release, "metadata")):
            msg = (f"cannot verify a {type(release).__name__}: give a Release, a pandas "
                   "DataFrame or the path of a written release")  # fmt: skip
            raise InputError(msg)
        given = release.metadata if metadata is None else metadata
        table, meta, altered = release.table, ReleaseMetadata.of(given), []
    elif not constrained:  # a written release, one part at a time
        files = read_release_parts(release, sep=sep)
        meta = ReleaseMetadata.of(files.metadata if metadata is None else metadata)
        checked = merge_checks(check_part(t, qi, meta) for t in files.parts)
        return finish_check(checked, int(k), meta, changed_files(meta, files.digest), release)
    else:
        files = read_release(release, sep=sep)
        table = files.table
        meta = ReleaseMetadata.of(files.metadata if metadata is None else metadata)
        altered = changed_files(meta, files.sha256)
    checked = check_part(table, qi, meta)
    extra = []
    if constrained and checked.n_rows and checked.sizes is not None:
        assert diversity is not None
        extra = _check_diversity(table, qi, diversity, sensitive, meta, checked.form)
    return finish_check(checked, int(k), meta, altered, release, extra)


def checked_request(qi: Sequence[str], k: int) -> tuple[list[str], int]:
    """The quasi-identifiers (as text) and k of a verification; an :class:`InputError` for
    none given or a k below 1."""
    if isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 1:
        msg = f"k must be a positive integer, got {k!r}"
        raise InputError(msg)
    names = [str(c) for c in qi]
    if not names:
        msg = "no quasi-identifiers given to check"
        raise InputError(msg)
    return names, int(k)


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


def finish_check(
    checked: PartCheck,
    k: int,
    meta: ReleaseMetadata,
    altered: list[str],
    release: object,
    extra: Sequence[str] = (),
) -> VerificationReport:
    """The report on a whole release from its merged check: k, the metadata's counts, the
    files' SHA-256 (``altered``: those that differ) and ``extra`` problems."""
    problems = list(checked.problems)
    sizes = checked.sizes
    if sizes is None:  # no usable counts
        return VerificationReport(k, 0, checked.n_rows, 0, 0, checked.form, tuple(problems))
    n_records = checked.n_records
    seen, kept = split_starred(checked.n_starred, meta)
    if kept:  # the rows of * beyond the suppressed records: one class of its own
        sizes = pd.concat([sizes, pd.Series([kept])], ignore_index=True)
        n_records += kept
    if 0 < seen < k:
        problems.append(
            f"{seen} suppressed record(s) are published as rows of {STAR}, fewer than k={k}: "
            "a person missing from the published values is one of them (withhold them, "
            "or suppress at least k)"
        )
    if meta.suppressed_form == "star" and meta.n_suppressed is not None and (
            seen < meta.n_suppressed):  # fmt: skip
        problems.append(
            f"the release shows {seen} suppressed record(s) as rows of {STAR} but its "
            f"metadata says {meta.n_suppressed} were suppressed"
        )
    k_achieved = int(sizes.min()) if len(sizes) else 0
    if n_records == 0:  # k-anonymous vacuously, but no release to sign off
        problems.append("the release holds no records: there is nothing to publish")
    small = int((sizes < k).sum())
    if small:
        problems.append(
            f"{small} group(s) of identical quasi-identifiers have fewer than k={k} "
            f"records (smallest has {k_achieved})"
        )
    problems += _reconcile(meta, n_records)
    problems += extra
    if altered:
        which = "" if altered == ["the table"] else f" ({', '.join(altered)})"
        problems.append(
            f"{release} is not the table its metadata describes (SHA-256 differs{which}): "
            "it was changed after the release was written"
        )
    return VerificationReport(k, k_achieved, checked.n_rows, n_records, len(sizes),
                              checked.form, tuple(problems), seen)  # fmt: skip


def _check_diversity(
    table: pd.DataFrame,
    qi: Sequence[str],
    spec: Diversity,
    sensitive: Sequence[str] | None,
    meta: ReleaseMetadata,
    form: str,
) -> list[str]:
    names = list(sensitive if sensitive is not None else meta.sensitive)
    if not names:
        return ["l-diversity / t-closeness asked, but no sensitive column is named"]
    absent = [c for c in names if c not in table.columns]
    if absent:
        return [f"sensitive column {absent[0]!r} is not in the published table"]
    figures = published_figures(table, qi, names, form == "centers", spec)
    return [
        f"{f['classes_failing']} class(es) break {spec.describe()} on {name!r}"
        for name, f in figures.items()
        if f.get("classes_failing")
    ]


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


def _reconcile(meta: ReleaseMetadata, n_records: int) -> list[str]:
    problems = []
    released, n_input, suppressed = meta.n_released, meta.n_input, meta.n_unpublished
    if released is not None and released != n_records:
        problems.append(
            f"the table holds {n_records} records but the metadata says {released} were released"
        )
    if n_input is not None and suppressed is not None and released is not None:
        if released + suppressed != n_input:
            dropped = f" + {meta.n_dropped_missing} left out for a missing value" if (
                meta.n_dropped_missing) else ""  # fmt: skip
            problems.append(
                f"records do not add up: {released} released + {meta.n_suppressed} suppressed"
                f"{dropped} != {n_input} input"
            )
    return problems


def check_k_anonymity(release: Release | pd.DataFrame, qi: Sequence[str], k: int) -> None:
    """Raise :class:`PrivacyViolation` unless ``release`` passes :func:`verify`."""
    verify(release, qi, k).raise_if_failed()
