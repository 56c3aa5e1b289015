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

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..errors import InputError, PrivacyViolation
from ..io.metadata import STAR, ReleaseMetadata
from ..io.release_format import changed_files, read_release, read_release_parts
from .models import Diversity, published_figures
from .parts import (
    PartCheck,
    add_up,
    check_part,
    group_sizes,
    merge_checks,
    part_metadata,
    reads_stars,
    split_starred,
    star_rows,
)

if TYPE_CHECKING:
    from ..release import Release

__all__ = ["VerificationReport", "verify", "check_k_anonymity", "group_sizes", "add_up",
           "PartCheck", "check_part", "merge_checks", "finish_check", "part_metadata",
           "checked_request", "star_rows", "reads_stars", "split_starred",
           "diversity_of"]  # fmt: skip


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
    #: The l-diversity / t-closeness checked (None: k alone).
    diversity: Diversity | None = None

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

    ``release`` may be a :class:`Release`, a published DataFrame (pandas, polars or Arrow), or
    the path of a written release (its JSON metadata beside it is read when ``metadata`` is
    not given, and the table must be the one the metadata describes). A table with a
    ``count`` column and ``"release": "centers"`` in its metadata (or no metadata) is read as
    a centers release: each row stands for ``count`` records. Rows of ``*`` in every
    quasi-identifier are read as suppressed records (module docstring).

    Every class must also hold ``diversity`` (l-diversity and/or t-closeness,
    :mod:`incrowd.privacy.models`) for each ``sensitive`` column (default: the metadata's).
    ``diversity`` defaults to what the metadata records (:func:`diversity_of`), so a release
    made l-diverse is checked for it unless told otherwise; ``Diversity()`` checks k alone.
    A missing sensitive value (empty, or ``(missing)``) counts as one more value.

    Raises :class:`~incrowd.InputError` for a usage error (a quasi-identifier the table
    does not have, a k below 1); a release that fails a check is reported, not raised.
    """
    qi, k = checked_request(qi, k)
    if _foreign(release):  # a polars or Arrow table
        release = release.to_pandas()
    if isinstance(release, pd.DataFrame):
        table, meta, altered = release, ReleaseMetadata.of(metadata), []
    elif not isinstance(release, str | os.PathLike):  # a Release (not imported: see above)
        if not (hasattr(release, "table") and hasattr(release, "metadata")):
            msg = (f"cannot verify a {type(release).__name__}: give a Release, a pandas "
                   "DataFrame or the path of a written release")  # fmt: skip
            raise InputError(msg)
        given = release.metadata if metadata is None else metadata
        table = release.table.to_pandas() if _foreign(release.table) else release.table
        meta, altered = ReleaseMetadata.of(given), []
    else:
        files = read_release_parts(release, sep=sep)
        meta = ReleaseMetadata.of(files.metadata if metadata is None else metadata)
        spec = diversity_of(meta) if diversity is None else diversity
        if spec is None or not spec.active:  # a written release, one part at a time
            checked = merge_checks(check_part(t, qi, meta) for t in files.parts)
            return finish_check(checked, int(k), meta, changed_files(meta, files.digest),
                                release)  # fmt: skip
        whole = read_release(release, sep=sep)
        table, altered = whole.table, changed_files(meta, whole.sha256)
    spec = diversity_of(meta) if diversity is None else diversity
    checked = check_part(table, qi, meta)
    extra = []
    constrained = spec is not None and spec.active
    if constrained and checked.n_rows and checked.sizes is not None:
        assert spec is not None
        extra = _check_diversity(table, qi, spec, sensitive, meta, checked.form)
    report = finish_check(checked, int(k), meta, altered, release, extra)
    return replace(report, diversity=spec) if constrained else report


def diversity_of(meta: ReleaseMetadata) -> Diversity | None:
    """The l-diversity / t-closeness a release was made to hold, as its metadata records it
    (its ``diversity``, else an ``l`` of 2 or more among its parameters), or None.

    >>> diversity_of(ReleaseMetadata(parameters={"l": 2}))
    Diversity(l=2, l_kind='distinct', c=1.0, t=None, t_kind='auto')
    >>> diversity_of(ReleaseMetadata(parameters={"l": 1})) is None
    True
    """
    names = {f.name for f in fields(Diversity)}
    given = {k: v for k, v in (meta.diversity or {}).items() if k in names and v is not None}
    if not given and isinstance(meta.parameters.get("l"), int | float):
        if meta.parameters["l"] >= 2:
            given = {"l": meta.parameters["l"]}
    if not given.get("l") and given.get("t") is None:
        return None
    return Diversity(**given)


def _foreign(table: object) -> bool:
    """Whether ``table`` is a polars or Arrow table (read as pandas)."""
    return not isinstance(table, pd.DataFrame | str | os.PathLike) and callable(
        getattr(table, "to_pandas", None))  # fmt: skip


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
