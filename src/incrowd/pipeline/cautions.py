"""The warnings a run gives beside its release, one line each, the same from the command line
(``incrowd anonymize``) and from Python (:func:`incrowd.anonymize`); the report's verdict
carries the same findings (:mod:`incrowd.report.verdict`):

- attribute disclosure: published classes holding one sensitive value
  (:func:`~.homogeneity.homogeneity_warnings`);
- a column published as it is (sensitive or insensitive) that looks like an identifier or
  free text (:func:`exposed_columns`, by :func:`incrowd.data.column_names.identifying`'s
  rules): k-anonymity protects the quasi-identifiers only, so a name in a published column
  is published;
- a quasi-identifier published as ``*`` in every record (:func:`blank_quasi_identifiers`):
  the release says nothing of it.

Complexity: one pass over each published column's distinct values.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from ..data.columns import shows_missing
from ..errors import IncrowdError, option
from ..io.metadata import STAR
from .homogeneity import homogeneity_warnings

__all__ = ["blank_quasi_identifiers", "exposed_columns", "run_warnings"]


def exposed_columns(
    table: Any, sensitive: Sequence[str], insensitive: Sequence[str]
) -> list[tuple[str, str]]:
    """``(column, line)`` per column of ``table`` published as it is that looks like an
    identifier or free text. ``table``: a pandas table (the input's cells, or the
    release's), or a table file not read whole (a blockwise run): its names only are judged.

    >>> frame = pd.DataFrame({"notes": ["Jan phoned"] * 3, "days": [1, 2, 3]})
    >>> [line for _, line in exposed_columns(frame, (), ["notes", "days"])]
    ... # doctest: +ELLIPSIS
    ["column 'notes' is published as it is (insensitive), but its header reads as notes or ..."]
    """
    from ..data.column_names import identifying

    out = []
    for role, names in (("sensitive", sensitive), ("insensitive", insensitive)):
        for name in names:
            if name not in table.columns:
                continue
            why = identifying(*_inferred(table, name))
            if why is not None:
                out.append((name, f"column {name!r} is published as it is ({role}), but {why}: "
                                  f"{option('identifiers', [name])} withholds it"))  # fmt: skip
    return out


def _inferred(table: Any, name: str) -> tuple[Any, int]:
    """The column's inference and row count; of a table not read, its name alone."""
    from ..data.column_type import ColumnType, Inference
    from ..data.types import infer_column

    if not isinstance(table, pd.DataFrame):
        return Inference(name, ColumnType("category"), 0, 0, (), (), ""), 0
    # a release spells a missing cell "(missing)": judged as missing, as the input's is
    column = table[name].mask(shows_missing(table[name]))
    try:
        return infer_column(column, name), len(table)
    except IncrowdError:  # numbers with some text: judged as the labels they are
        return infer_column(column, name, declared="category"), len(table)


def blank_quasi_identifiers(table: pd.DataFrame, qi: Sequence[str]) -> list[tuple[str, str]]:
    """``(column, line)`` per quasi-identifier of a generalized release published as ``*``
    in every record; one line for them all when every one is (one crowd of every record,
    or every record suppressed as a row of ``*``: the release says nothing of anyone).

    >>> frame = pd.DataFrame({"age": ["*", "*"], "zip": ["021*", "*"]})
    >>> blank_quasi_identifiers(frame, ["age", "zip"])[0][0]
    'age'
    >>> blank_quasi_identifiers(frame[["age"]], ["age"])[0][1][:40]
    'every quasi-identifier is published as *'
    """
    names = [name for name in qi if name in table.columns]
    if not len(table) or not names:
        return []
    blank = [name for name in names
             if table[name].astype(str).str.strip().eq(STAR).all()]  # fmt: skip
    if len(blank) == len(names):
        line = (f"every quasi-identifier is published as {STAR} in every record: the release "
                f"says nothing of anyone; a smaller {option('k')} or "
                f"{option('max_level', {names[0]: ...})} keeps some of them")  # fmt: skip
        return [(names[0], line)]
    return [(name, f"quasi-identifier {name!r} is published as {STAR} in every record: the "
                   f"release says nothing of it; {option('max_level', {name: ...})} bounds "
                   "how far it is generalized") for name in blank]  # fmt: skip


def run_warnings(release: Any, source: Any, schema: Any) -> list[str]:
    """Every warning line of a run (the module's list): ``release`` (a
    :class:`~incrowd.release.Release`, or a blockwise release written to disk: no table to
    read), ``source`` the input (a pandas table, or a table file) and its ``schema``."""
    lines = homogeneity_warnings(release.metadata)
    lines += [line for _, line in exposed_columns(source, schema.sensitive, schema.insensitive)]
    published = getattr(release, "table", None)
    if isinstance(published, pd.DataFrame):
        lines += [line for _, line in blank_quasi_identifiers(published, schema.qi_names)]
    return lines
