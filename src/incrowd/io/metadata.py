"""A release's metadata, typed: what was published, from what, how, and at what loss.

:class:`ReleaseMetadata` is the one definition of the JSON file written beside every release
(``out.json``): the pipeline and a blockwise run build it, the writer adds the table's
SHA-256, and every reader (the checker, the loss and risk measures, the report, the CLI)
reads its fields by name. :meth:`ReleaseMetadata.to_json` and
:meth:`ReleaseMetadata.from_json` are the only translation to and from the file; a key this
version does not know (a newer incrowd's) is kept in :attr:`~ReleaseMetadata.extra` and
written back unchanged.

It lives in :mod:`incrowd.io`, beside the file format, because the independent checker reads
it and must not load the release forms.

Reading is forgiving about what is absent (a hand-written or older file: a missing field is
None, or empty) and strict about what is there: a field of the wrong type is an
:class:`~incrowd.InputError` naming it, never a guess.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import InputError

__all__ = ["ReleaseMetadata", "SUPPRESSED_ROWS", "STAR"]

_TEXT, _INT, _FLOAT, _NAMES, _OBJECT, _PARTS, _ANY, _LEVELS, _COUNTS = (
    "text",
    "int",
    "float",
    "names",
    "object",
    "parts",
    "any",
    "levels",
    "counts",
)

#: The forms of suppressed records: a row of ``*`` in every quasi-identifier, or left out.
SUPPRESSED_ROWS = ("star", "drop")
#: A cell that stands for any value: every quasi-identifier of a suppressed record's row.
STAR = "*"


def _f(
    kind: str,
    *,
    default: Any = None,
    optional: bool = False,
    doc: str = "",
    choices: tuple[str, ...] = (),
) -> Any:
    """A metadata field: its JSON kind (checked on reading), and whether the file omits it
    when unset (``optional``; the others are written as ``null``); a text field may name its
    ``choices``."""
    meta = {"kind": kind, "optional": optional, "doc": doc, "choices": choices}
    if isinstance(default, tuple | dict):
        return field(default_factory=lambda: type(default)(default), metadata=meta)
    return field(default=default, metadata=meta)


@dataclass(frozen=True)
class ReleaseMetadata(Mapping[str, Any]):
    """The metadata of one release (each field is the JSON key of the same name).

    Read the fields by name (``meta.k``, ``meta.loss["ncp"]``); it also reads as a mapping of
    the JSON keys (``meta["k"]``), for code written against the JSON file.

    >>> meta = ReleaseMetadata(release="generalized", k=5, qi=("age", "zip"), n_input=10)
    >>> meta.k, meta["qi"], meta.n_released is None
    (5, ('age', 'zip'), True)
    >>> ReleaseMetadata.from_json(meta.to_json()) == meta
    True
    """

    # what was published, and how
    release: str | None = _f(_TEXT, doc="the release form: generalized, microaggregated, centers")
    method: str | None = _f(_TEXT, doc="the method's name in the catalogue")
    parameters: Mapping[str, Any] = _f(_OBJECT, default={}, doc="the method's parameters")
    seed: int | None = _f(_INT, doc="the seed of the run (None: not reproducible)")
    version: str | None = _f(_TEXT, doc="the incrowd version that wrote the release")
    generalize: str | None = _f(_TEXT, optional=True, doc="generalized release: labels or sets")
    center: str | None = _f(_TEXT, optional=True, doc="centers release: centroid or medoid")
    k: int | None = _f(_INT, doc="the k asked for")
    qi: tuple[str, ...] = _f(_NAMES, default=(), doc="the quasi-identifiers")
    sensitive: tuple[str, ...] = _f(_NAMES, default=(), doc="the sensitive columns")
    withheld_columns: tuple[str, ...] = _f(_NAMES, default=(), doc="input columns not published")
    schema: Mapping[str, Any] | None = _f(
        _OBJECT, optional=True, doc="how the input was read: roles, types, hierarchies, options"
    )
    input: Mapping[str, Any] | None = _f(_OBJECT, optional=True,
                                         doc="the input file: name, bytes, SHA-256")  # fmt: skip
    created: str | None = _f(_TEXT, optional=True, doc="when the release was made (UTC)")
    # records
    n_input: int | None = _f(_INT, doc="records in the input")
    n_released: int | None = _f(_INT, doc="records in the release")
    n_suppressed: int | None = _f(_INT, doc="records suppressed for privacy")
    n_dropped_missing: int | None = _f(_INT, doc="records dropped for a missing value")
    n_crowds: int | None = _f(_INT, doc="crowds the method formed")
    n_groups: int | None = _f(_INT, doc="groups of identical published quasi-identifiers")
    k_achieved: int | None = _f(_INT, doc="the smallest crowd")
    suppressed_rows: str | None = _f(
        _TEXT, optional=True, choices=SUPPRESSED_ROWS,
        doc="suppressed records: star (one row of * in every quasi-identifier each, counted "
        "in n_suppressed, not n_released) or drop (left out; also when absent)",
    )  # fmt: skip
    # consistent categories (a global recoding)
    levels: Mapping[str, int | None] | None = _f(
        _LEVELS, optional=True, doc="the hierarchy level of each quasi-identifier, table-wide"
    )
    categories: Mapping[str, tuple[tuple[str, int], ...]] | None = _f(
        _COUNTS, optional=True,
        doc="per quasi-identifier: each published label and its records, [label, count]",
    )  # fmt: skip
    # loss and guarantee
    loss: Mapping[str, float | None] = _f(_OBJECT, default={}, doc="information loss figures")
    cost: float | None = _f(_FLOAT, doc="the method's objective on the release")
    objective: str | None = _f(_TEXT, doc="the objective's name")
    lower_bound: float | None = _f(_FLOAT, doc="a lower bound on the optimum objective")
    certified_ratio: float | None = _f(_FLOAT, doc="cost / lower bound")
    approximation_ratio: float | None = _f(_FLOAT, doc="the ratio proven for every input")
    certificate: Any = _f(_ANY, doc="how the lower bound was obtained")
    guarantee_text: str | None = _f(_TEXT, doc="the method's guarantee in words")
    reference: str | None = _f(_TEXT, doc="where the method is published")
    polish: Mapping[str, Any] | None = _f(_OBJECT, doc="what polishing the crowds changed")
    diversity: Mapping[str, Any] | None = _f(_OBJECT, doc="l-diversity / t-closeness merges")
    homogeneous: Mapping[str, Any] | None = _f(
        _OBJECT, optional=True, doc="per sensitive column: classes of one value, and records"
    )
    # a blockwise run
    blocked_lower_bound: float | None = _f(_FLOAT, optional=True, doc="sum of block bounds")
    blocked_certified_ratio: float | None = _f(_FLOAT, optional=True, doc="cost / that sum")
    blocking: Mapping[str, Any] | None = _f(_OBJECT, optional=True, doc="the blocks")
    seconds: float | None = _f(_FLOAT, doc="wall time of the run")
    # written by the file writer
    format: str | None = _f(_TEXT, optional=True, doc="the file format marker")
    table_sha256: str | None = _f(_TEXT, optional=True, doc="SHA-256 of the table file")
    table_bytes: int | None = _f(_INT, optional=True, doc="size of the table file")
    files: tuple[Mapping[str, Any], ...] | None = _f(_PARTS, optional=True,
                                                       doc="a dataset's part files")  # fmt: skip
    #: Keys this version does not know, kept as read and written back.
    extra: Mapping[str, Any] = field(default_factory=dict, compare=True)

    def __post_init__(self) -> None:
        # one spelling of the categories (pairs as tuples), however they were built
        if self.categories is not None:
            pairs = {str(q): tuple((str(a), int(b)) for a, b in v)
                     for q, v in self.categories.items()}  # fmt: skip
            object.__setattr__(self, "categories", pairs)

    # -- JSON -------------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """The JSON object of the metadata file (before :func:`~incrowd.io.release_format.
        strict_json`): lists for tuples; optional fields only when set."""
        out: dict[str, Any] = {}
        for f in _FIELDS:
            value = getattr(self, f.name)
            if value is None and f.metadata["optional"]:
                continue
            out[f.name] = _plain(value)
        return out | {k: v for k, v in self.extra.items() if k not in out}

    @classmethod
    def from_json(cls, data: Mapping[str, Any], *, where: str = "metadata") -> ReleaseMetadata:
        """The metadata a JSON object describes; an :class:`InputError` naming ``where`` and
        the field when a field has the wrong type."""
        if not isinstance(data, Mapping):
            msg = f"{where}: metadata must be a JSON object, got {type(data).__name__}"
            raise InputError(msg)
        known, extra = {}, {}
        for key, value in data.items():
            f = _BY_NAME.get(str(key))
            if f is None:
                extra[str(key)] = value
            else:
                known[f.name] = _read(f, value, where)
        return cls(**known, extra=extra)

    @classmethod
    def of(cls, value: ReleaseMetadata | Mapping[str, Any] | None) -> ReleaseMetadata:
        """``value`` as metadata: itself, read from a mapping of JSON keys, or empty."""
        if isinstance(value, ReleaseMetadata):
            return value
        return cls() if value is None else cls.from_json(value)

    @property
    def suppressed_form(self) -> str:
        """How the release shows its suppressed records: ``"star"`` (a row of ``*`` in every
        quasi-identifier per record) or ``"drop"`` (left out; a release that does not say)."""
        return "star" if self.suppressed_rows == "star" else "drop"

    @property
    def n_unpublished(self) -> int | None:
        """Records of the input not in the release: suppressed, or left out for a missing
        value (None when the metadata does not count them)."""
        if self.n_suppressed is None:
            return None
        if self.schema is None:  # written before 0.1's schema record: dropped were counted in
            return self.n_suppressed
        return self.n_suppressed + (self.n_dropped_missing or 0)

    def replace(self, **changes: Any) -> ReleaseMetadata:
        """A copy with ``changes`` (field names)."""
        return dataclasses.replace(self, **changes)

    # -- read as a mapping of the JSON keys ----------------------------------------------

    def __getitem__(self, key: str) -> Any:
        f = _BY_NAME.get(key)
        if f is not None:
            value = getattr(self, f.name)
            if value is None and f.metadata["optional"]:
                raise KeyError(key)
            return value
        return self.extra[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.to_json())

    def __len__(self) -> int:
        return len(self.to_json())

    __hash__ = None  # type: ignore[assignment]  # holds dicts


_FIELDS = tuple(f for f in dataclasses.fields(ReleaseMetadata) if f.name != "extra")
_BY_NAME = {f.name: f for f in _FIELDS}


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _read(f: dataclasses.Field[Any], value: Any, where: str) -> Any:
    kind = f.metadata["kind"]
    if value is None:
        return () if kind == _NAMES else ({} if f.name in ("parameters", "loss") else None)
    ok = True
    if kind == _TEXT:
        ok = isinstance(value, str)
    elif kind == _INT:
        ok = isinstance(value, numbers.Integral) and not isinstance(value, bool)
        if isinstance(value, float) and value.is_integer():  # 30162.0 from another writer
            value, ok = int(value), True
        value = int(value) if ok else value
    elif kind == _FLOAT:
        ok = isinstance(value, numbers.Real) and not isinstance(value, bool)
        value = float(value) if ok else value
        ok = ok and not math.isnan(value)
    elif kind == _NAMES:
        ok = isinstance(value, list | tuple) and all(isinstance(v, str) for v in value)
        value = tuple(value) if ok else value
    elif kind == _OBJECT:
        ok = isinstance(value, Mapping)
        value = dict(value) if ok else value
    elif kind == _PARTS:
        ok = isinstance(value, list | tuple) and all(isinstance(v, Mapping) for v in value)
        value = tuple(dict(v) for v in value) if ok else value
    elif kind == _LEVELS:
        ok = isinstance(value, Mapping) and all(
            v is None or (_whole(v) and v >= 0) for v in value.values())  # fmt: skip
        value = {str(q): None if v is None else int(v) for q, v in value.items()} if (
            ok) else value  # fmt: skip
    elif kind == _COUNTS:
        ok = isinstance(value, Mapping) and all(
            isinstance(pairs, list | tuple) and all(
                isinstance(p, list | tuple) and len(p) == 2 and isinstance(p[0], str)
                and _whole(p[1]) for p in pairs)
            for pairs in value.values())  # fmt: skip
        value = {str(q): tuple((a, int(b)) for a, b in v) for q, v in value.items()} if (
            ok) else value  # fmt: skip
    choices = f.metadata["choices"]
    if ok and choices and value not in choices:
        msg = f"{where}: {f.name!r} must be one of {', '.join(choices)}, got {value!r:.60}"
        raise InputError(msg)
    if not ok:
        want = {_TEXT: "text", _INT: "an integer", _FLOAT: "a number", _NAMES: "a list of names",
                _OBJECT: "an object", _PARTS: "a list of objects",
                _LEVELS: "an object of levels (whole numbers from 0)",
                _COUNTS: "an object of [label, count] lists"}[kind]  # fmt: skip
        msg = f"{where}: {f.name!r} must be {want}, got {value!r:.60}"
        raise InputError(msg)
    return value


def _whole(value: Any) -> bool:
    """Whether a JSON value is a whole number (not a boolean)."""
    if isinstance(value, float):
        return value.is_integer()
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)
