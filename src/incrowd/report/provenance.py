"""What ties a report to its files: the input and the release with their SHA-256, the
schema (each column's role, type, hierarchy and its hash), the withheld columns, the method
with its guarantee and reference, its parameters, the seed, the incrowd version and the
release's date — all read from the metadata (and, for the files, from ``sources``: the
names and digests of the files on disk, which the command line computes).

The method's guarantee and reference come from the method catalogue
(:mod:`incrowd.algorithms.catalogue`), falling back on what the metadata records.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import PurePath
from typing import Any

from ..algorithms.catalogue import CATALOGUE
from ..data.schema import Schema
from ..io.metadata import ReleaseMetadata
from .words import Figure, figure

__all__ = ["files_of", "identity", "method_of", "parameters_of", "schema_rows", "plain"]

#: What each parameter of a registered method means (a test checks that none is missing).
PARAMETERS = {
    "k": "every published class holds at least this many records",
    "l": "every class holds at least this many distinct sensitive values (1: not asked)",
    "loss": "the information loss the method minimizes",
    "generalize": "how a crowd's values are published (levels of a hierarchy, or sets)",
    "suppression_limit": "the largest share of records that may be suppressed",
    "min_level": "the lowest hierarchy level each named quasi-identifier is published at",
    "max_level": "the highest hierarchy level each named quasi-identifier is published at",
    "time_limit": "seconds the search may take before it stops with a certified gap",
    "random_state": "the seed of the method's random choices",
    "norm": "the distance used between records (1: Manhattan, 2: Euclidean)",
    "weights": "the weight of each quasi-identifier in the loss (none: equal)",
    "variant": "the variant of the algorithm",
    "star_class": "whether suppressed records are published as rows of *",
    "algorithm": "which of the paper's algorithms computes the bins",
    "allow_deletion": "whether a record may be left out where that costs less than keeping it",
    "bound_rounds": "rounds that raise the certificate's lower bound (more: a tighter ratio)",
    "centers": "whether crowd centers may be anywhere or must be input records",
    "class_check": "another privacy model every class must meet",
    "epsilon": "the largest share of records that may be left out as outliers",
    "improve": "whether crowds are split and records moved after the paper's algorithm",
    "max_clusters": "the largest number of crowds",
    "objective": "what the exact search minimizes (squared error or the largest radius)",
    "order": "the order in which the values are taken",
    "places": "where each place's point is looked up",
    "ptas_epsilon": "the approximation scheme's epsilon",
    "refine": "whether crowds of 2k or more records are split around their centers",
    "search_seconds": "seconds of a search that moves records between nearby crowds",
    "seeds": "how the first classes are chosen",
    "setup_cost": "the cost of opening a crowd",
    "tol": "how finely the radius threshold is searched",
}


def plain(value: Any) -> str:
    """A value as a steward reads it: ``none`` for None, JSON for lists and mappings.

    >>> plain(None), plain(0.25), plain([1, 2]), plain(True)
    ('none', '0.25', '[1, 2]', 'yes')
    """
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, list | tuple | dict):
        return json.dumps(value, ensure_ascii=False, default=str)
    return str(value)


def files_of(
    meta: ReleaseMetadata, sources: Mapping[str, tuple[str, str]] | None
) -> dict[str, tuple[str, str]]:
    """``{"input": (name, sha256), "release": (name, sha256)}``: the files on disk when
    given, else what the metadata records (an empty string for what it does not)."""
    recorded = meta.input or {}
    out = {
        "input": (str(recorded.get("file") or ""), str(recorded.get("sha256") or "")),
        "release": ("", meta.table_sha256 or ""),
    }
    return out | {k: (str(v[0]), str(v[1])) for k, v in (sources or {}).items() if k in out}


def method_of(meta: ReleaseMetadata) -> dict[str, str]:
    """The method's name, guarantee, objective and reference."""
    guarantee, objective, reference = CATALOGUE.get(meta.method or "", ("", "", ""))
    return {
        "name": meta.method or "not recorded",
        "guarantee": meta.guarantee_text or guarantee or "none recorded",
        "objective": meta.objective or objective,
        "reference": meta.reference or reference or "none recorded",
    }


def identity(
    meta: ReleaseMetadata, files: Mapping[str, tuple[str, str]], method: Mapping[str, str]
) -> dict[str, Figure]:
    """The figures that identify the release: the files' SHA-256, method, seed, version and
    date (``files``: :func:`files_of`; ``method``: :func:`method_of`)."""
    release, source = files["release"][1], files["input"][1]
    out = [
        figure("release-sha256", "release SHA-256", release or None,
               text=None if release else "none: the release is not a file"),
        figure("input-sha256", "input SHA-256", source or None,
               text=None if source else "none: the input was not read from a file"),
        figure("method", "method", method["name"]),
        figure("seed", "seed", meta.seed, "the same seed, input and version give the same release"),
        figure("version", "incrowd version", meta.version),
        figure("created", "created (UTC)", meta.created),
    ]  # fmt: skip
    return {f.name: f for f in out}


def parameters_of(meta: ReleaseMetadata) -> list[tuple[str, str, str]]:
    """The method's parameters as ``(name, value, what it means)`` rows."""
    return [
        (str(name), plain(value), PARAMETERS.get(str(name), ""))
        for name, value in sorted(meta.parameters.items())
    ]


def _hierarchy_name(spelling: Any) -> str:
    text = str(spelling)
    if "/" in text or text.endswith(".csv"):
        return PurePath(text).name
    return text


def _no_hierarchy(kind: Any, form: str | None) -> str:
    """What a number without a hierarchy publishes, for the hierarchy cell."""
    if str(kind) not in ("number", "numeric"):
        return ""
    return "none: published as ranges" if form == "generalized" else "none: published as means"


def schema_rows(meta: ReleaseMetadata, schema: Schema) -> list[dict[str, str]]:
    """One row per column of the input: its role, type, hierarchy (or builder) and the
    hierarchy's SHA-256, from the metadata's schema record (else from ``schema``)."""
    record = meta.schema or {}
    qis: Mapping[str, Any] = record.get("quasi_identifiers") or {}
    rows = []
    for name in meta.qi or schema.qi_names:
        entry = qis.get(name, {})
        metric = schema.quasi_identifiers.get(name)
        kind = (
            entry.get("type")
            or entry.get("metric")
            or (type(metric).__name__.lower() if metric is not None else "")
        )
        spelling = entry.get("hierarchy") or entry.get("hierarchy_source")
        if spelling is None and metric is not None and getattr(metric, "spec", None):
            spelling = metric.spec
        rows.append(
            {
                "column": name,
                "role": "quasi-identifier",
                "type": str(kind),
                "hierarchy": _hierarchy_name(spelling)
                if spelling
                else _no_hierarchy(kind, meta.release),
                "sha256": str(entry.get("hierarchy_sha256") or ""),
            }
        )
    roles = (
        ("sensitive", "sensitive"),
        ("insensitive", "published as it is"),
        ("identifiers", "identifier (withheld)"),
    )
    for key, role in roles:
        names = record.get(key) if record else getattr(schema, key, ())
        if key == "sensitive" and not names:
            names = meta.sensitive
        for name in names or ():
            rows.append(
                {"column": str(name), "role": role, "type": "", "hierarchy": "", "sha256": ""}
            )
    listed = {row["column"] for row in rows}
    for name in meta.withheld_columns:
        if name not in listed:
            rows.append(
                {"column": name, "role": "withheld", "type": "", "hierarchy": "", "sha256": ""}
            )
    return rows
