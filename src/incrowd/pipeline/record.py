"""What a release records of how its input was read, so that it can be read again the same
way: the schema (each column's role, type, hierarchy and weight), the reading options, the
input file's SHA-256, and when the release was made.

:func:`schema_record` writes it into the metadata (``schema``, ``input``, ``created``);
:func:`settings_of_record` turns it back into the :class:`~.settings.Settings` a follow-up
command (``verify``, ``risk``, ``evaluate``, ``report``) starts from, so that it needs no
``--qi`` or ``--hierarchy`` again; flags still override it.

A hierarchy is recorded by its spelling (a file, ``prefix``, ``intervals:...``, ``dates``)
and by the SHA-256 of its content (every value's label at every level), so a follow-up that
rebuilds it from a changed file is told so (:func:`changed_hierarchies`), not misled. The
number and date formats each column was read with are recorded for the reader; a follow-up
detects them again from the same cells (the same answer, or a warning).
"""

from __future__ import annotations

import hashlib
import json
import os
import time
import weakref
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from ..data.hierarchy import Hierarchy
    from ..data.schema import Schema
    from .settings import Settings

__all__ = [
    "recorded_parameters",
    "changed_hierarchies",
    "hierarchy_sha256",
    "input_record",
    "now",
    "schema_record",
    "settings_of_record",
]

#: The reading options a record keeps (fields of Settings).
READING = ("sep", "encoding", "na_values", "thousands", "decimal", "date_format", "missing")


def hierarchy_sha256(hierarchy: Hierarchy) -> str:
    """SHA-256 of a hierarchy's content: each value with its label at every level, in the
    hierarchy's own order (the same file read twice gives the same digest)."""
    # A hierarchy is immutable and a blockwise run records it once per block: hash it once
    # (a zip hierarchy's digest was most of a small block's run: tests/pipeline's cluster
    # test of 223 blocks).
    known = _DIGESTS.get(hierarchy)
    if known is None:
        levels = [np.asarray(labels, dtype=object)[hierarchy.codes[:, j]]
                  for j, labels in enumerate(hierarchy.labels)]  # fmt: skip
        dumps = json.JSONEncoder(ensure_ascii=False).encode
        lines = (dumps(list(row)).encode() + b"\n" for row in zip(*levels, strict=True))
        known = _DIGESTS[hierarchy] = hashlib.sha256(b"".join(lines)).hexdigest()
    return known


_DIGESTS: weakref.WeakKeyDictionary[Hierarchy, str] = weakref.WeakKeyDictionary()


def schema_record(schema: Schema, settings: Settings) -> dict[str, Any]:
    """The metadata's ``schema``: roles, each quasi-identifier's metric, type, hierarchy
    (spelling and content SHA-256) and weight, and the reading options."""
    from ..data.schema import Categorical, Hierarchical, Numeric

    qis: dict[str, dict[str, Any]] = {}
    for name, metric in schema.quasi_identifiers.items():
        entry: dict[str, Any] = {"weight": metric.weight}
        cells = getattr(metric, "cells", None)
        if isinstance(metric, Numeric):
            entry["metric"], entry["type"] = "numeric", "number"
        elif isinstance(metric, Categorical):
            entry["metric"], entry["type"] = "categorical", "category"
        elif isinstance(metric, Hierarchical):
            entry["metric"], entry["type"] = "hierarchical", None
            # a spelling a follow-up can build again; a Hierarchy given in Python is named
            entry["hierarchy"] = _spelling(metric.spec or settings.hierarchy.get(name))
            if entry["hierarchy"] is None:
                entry["hierarchy_source"] = metric.hierarchy.source
            entry["hierarchy_sha256"] = hierarchy_sha256(metric.hierarchy)
        if cells is not None:  # how the cells were read (a number format, a date format)
            entry["type"] = cells.kind
            formats = {
                "number": {"thousands": cells.thousands, "decimal": cells.decimal},
                "date": {"date_format": cells.date_format},
            }.get(cells.kind, {})
            entry |= {k: v for k, v in formats.items() if v}  # fmt: skip
        qis[name] = entry
    reading = {key: _plain(getattr(settings, key)) for key in READING}
    return {
        "quasi_identifiers": qis,
        "sensitive": list(schema.sensitive),
        "insensitive": list(schema.insensitive),
        "identifiers": list(schema.identifiers),
        "reading": {k: v for k, v in reading.items() if v not in (None, [], ())},
    }


def changed_hierarchies(schema: Schema, record: Mapping[str, Any] | None) -> list[str]:
    """One line per quasi-identifier whose hierarchy, built again for a follow-up, is not
    the one the release recorded (its content's SHA-256 differs: a changed file, or values
    that differ)."""
    from ..data.schema import Hierarchical

    recorded = dict((record or {}).get("quasi_identifiers") or {})
    lines = []
    for name, metric in schema.quasi_identifiers.items():
        digest = (recorded.get(name) or {}).get("hierarchy_sha256")
        if digest and isinstance(metric, Hierarchical) and (
                hierarchy_sha256(metric.hierarchy) != digest):  # fmt: skip
            lines.append(
                f"the hierarchy of {name!r} is not the one the release was made "
                "with (its content's SHA-256 differs): figures may not compare"
            )
    return lines


def input_record(path: str | os.PathLike[str] | None) -> dict[str, Any] | None:
    """The metadata's ``input``: the input file's name, size and SHA-256 (None for a table
    given in memory)."""
    if path is None:
        return None
    from ..io.release_format import file_sha256

    file = Path(path)
    if not file.is_file():  # a Parquet dataset's folder: its parts are the input
        return {"file": file.name}
    return {"file": file.name, "bytes": file.stat().st_size, "sha256": file_sha256(file)}


def now() -> str:
    """The time of a release, ISO 8601 in UTC to the second (``2026-11-27T15:04:05Z``)."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def settings_of_record(record: Mapping[str, Any] | None) -> dict[str, Any]:
    """The settings (keywords of :class:`~.settings.Settings`) a recorded schema gives: the
    columns by role and type, the hierarchies by spelling, weights, and reading options.
    Empty for a release that recorded none (made before records were kept)."""
    if not record:
        return {}
    qis = dict(record.get("quasi_identifiers") or {})
    by_type: dict[str, list[str]] = {"number": [], "category": [], "code": [], "date": []}
    hierarchy, weights = {}, {}
    for name, entry in qis.items():
        kind = entry.get("type")
        if kind == "number" and entry.get("metric") == "numeric":
            by_type["number"].append(name)
        elif kind in by_type and kind != "number":
            by_type[kind].append(name)
        spec = entry.get("hierarchy")
        if spec:
            hierarchy[name] = str(spec)
        if entry.get("weight", 1.0) != 1.0:
            weights[name] = float(entry["weight"])
    reading = dict(record.get("reading") or {})
    if "na_values" in reading:
        reading["na_values"] = tuple(reading["na_values"])
    return {
        "qi": tuple(qis),
        "sensitive": tuple(record.get("sensitive") or ()),
        "insensitive": tuple(record.get("insensitive") or ()),
        "identifier": tuple(record.get("identifiers") or ()),
        "numeric": tuple(by_type["number"]),
        "categorical": tuple(by_type["category"]),
        "code": tuple(by_type["code"]),
        "date": tuple(by_type["date"]),
        "hierarchy": hierarchy,
        "weights": weights,
        **reading,
    }


def _spelling(spec: str | None) -> str | None:
    """A hierarchy's spelling as a follow-up can use it from any folder: a file by its
    absolute path."""
    if spec is not None and Path(spec).is_file():
        return str(Path(spec).resolve())
    return spec


def _plain(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def recorded_parameters(params: Mapping[str, Any]) -> dict[str, Any]:
    """A method's parameters as the metadata records them: JSON values as they are, others
    by their repr; a function the run gave (the diversity check) is left out, as the
    metadata's ``diversity`` field records the model."""
    return {
        key: value if isinstance(value, str | int | float | bool | type(None)) else repr(value)
        for key, value in params.items()
        if not callable(value)
    }
