"""What ``incrowd inspect`` shows of one column: the one row both the command line
(:mod:`incrowd.cli.inspect`) and the browser app (:mod:`incrowd.ui.tables`) show, built from
the column's :class:`~incrowd.data.types.Inference` with the proposals of
:func:`~incrowd.data.types.propose_role` and :func:`~incrowd.data.types.propose_hierarchy`.

>>> import pandas as pd
>>> from incrowd.data.types import infer_column
>>> row = column_row(infer_column(pd.Series(["02142", "60615"]), "zip"), 2)
>>> row["type"], row["role"], row["hierarchy"]
('code', 'quasi-identifier', 'prefix')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd

if TYPE_CHECKING:
    from ..errors import IncrowdError
    from .types import Inference

__all__ = ["column_row", "proposed_na_values", "proposed_role", "shown_type", "unreadable"]

#: How each kind's values are named in a line about a marker.
_VALUES = {"number": "numbers", "date": "dates", "code": "codes", "category": "numbers"}


def shown_type(inference: Inference) -> str:
    """The column's type as the table of ``incrowd inspect`` shows it: the kind, with the
    number format (``number (1.234,5)``) or the date format when it is not the default;
    the type of list or binary values; ``mixed`` for cells no kind reads."""
    t = inference.type
    if inference.nested is not None:
        return inference.nested
    if inference.problem is not None:
        return "mixed"
    if t.kind == "number" and (t.thousands or t.decimal != "."):
        return f"number (1{t.thousands or ''}234{t.decimal}5)"
    if t.kind == "date" and t.date_format:
        return f"date ({t.date_format})"
    return t.kind


def column_row(inference: Inference, n_rows: int) -> dict[str, Any]:
    """The column's row of ``incrowd inspect --json``: its type and formats, distinct values,
    missing cells, the proposed role (and why, as marked text) and hierarchy, its examples,
    the reason of its type and its warnings (as the command line words them)."""
    from ..errors import cli_text
    from .types import propose_hierarchy

    role, why = proposed_role(inference, n_rows)
    t = inference.type
    return {
        "column": inference.name, "type": t.kind, "shown_type": shown_type(inference),
        "thousands": t.thousands, "decimal": t.decimal, "date_format": t.date_format,
        "distinct": inference.n_distinct, "missing": inference.n_missing,
        "marker": inference.marker, "marker_cells": inference.marker_cells,
        "role": role, "role_reason": why,
        "hierarchy": None if inference.problem else propose_hierarchy(inference),
        "examples": list(inference.examples), "reason": cli_text(inference.reason),
        "warnings": [cli_text(w) for w in inference.warnings],
        "problem": None if inference.problem is None else cli_text(inference.problem),
    }  # fmt: skip


def proposed_role(inference: Inference, n_rows: int) -> tuple[str, str]:
    """:func:`~incrowd.data.types.propose_role`'s, but a column of lists, structs or bytes is
    withheld: it can be neither a quasi-identifier nor published."""
    from .types import propose_role

    if inference.nested is not None:
        return "withheld", f"it holds {inference.nested} values"
    return propose_role(inference, n_rows)


def unreadable(column: pd.Series, name: str, error: IncrowdError) -> Inference:
    """The inspection of a column no kind reads (lists or bytes; numbers with a slip of text;
    cells that do not fit a declared kind): a category of its texts, with ``error``'s line
    as its ``problem`` and its warning (the schema raises it)."""
    from ..io.plain_values import value_type
    from .cells import distinct_texts
    from .column_type import ColumnType, Inference

    line = error.marked()
    nested = value_type(column)
    if nested is not None:
        present = column[column.notna()]
        examples = tuple(str(v) for v in present.iloc[:3])
        n_missing, n_distinct = len(column) - len(present), int(present.map(str).nunique())
    else:
        d = distinct_texts(column)
        examples = tuple(str(t) for t in d.texts.iloc[:5])
        n_missing, n_distinct = int((d.codes < 0).sum()), len(d.texts)
    return Inference(name, ColumnType("category"), n_missing, n_distinct, examples, (line,),
                     line, problem=line, nested=nested)  # fmt: skip


def proposed_na_values(
    table: pd.DataFrame, found: Mapping[str, Inference], na_values: Sequence[str] = (),
    *, job_file: str | None = None,
) -> tuple[tuple[str, ...], list[str]]:  # fmt: skip
    """The ``na_values`` ``incrowd inspect --write`` proposes: those given, then each
    column's marker (:func:`~incrowd.data.types.infer_types`'s) unless it has digits and
    another column holds it as a value (``na_values`` applies to every column: ``99999`` may
    be an age's marker and a zip); and one line per marker naming the column, the marker,
    its cells and how to undo it (``job_file``: the file written; None: nothing is written,
    the line names the option)."""
    from ..errors import option

    tokens = list(na_values)
    markers = {name: inf.marker for name, inf in found.items() if inf.marker is not None}
    lines = []
    for name, marker in markers.items():
        inference = found[name]
        cells = inference.marker_cells
        said = (f"column {name!r} holds {_VALUES[inference.type.kind]} and {cells} "
                f"cell{'s' if cells > 1 else ''} {marker!r}")  # fmt: skip
        others = [c for c in table.columns if c != name and markers.get(c) != marker]
        elsewhere = [c for c in others if _holds(table[c], marker)]
        if elsewhere and any(ch.isdigit() for ch in marker):
            lines.append(f"{said}: not proposed as missing, as column {elsewhere[0]!r} holds "
                         f"{marker!r} too (na_values applies to every column); fix those "
                         f"cells, or declare {name!r} categorical")  # fmt: skip
            continue
        tokens.extend([marker] if marker not in tokens else [])
        also = f", and in column {elsewhere[0]!r} too" if elsewhere else ""
        if job_file is not None:
            lines.append(f"{said}: proposed as missing (na_values in {job_file}{also}); "
                         "delete it there to read them as text")  # fmt: skip
        else:
            lines.append(f"{said}: {option('na_values', [marker])} reads them as missing"
                         f"{also} (inspect --write proposes it)")  # fmt: skip
    return tuple(tokens), lines


def _holds(column: pd.Series, text: str) -> bool:
    """Whether a cell of ``column`` is ``text`` (blanks around it ignored)."""
    from ..io.plain_values import value_type

    if value_type(column) is not None:
        return False
    if isinstance(column.dtype, pd.CategoricalDtype):
        return text in set(column.cat.categories.astype(str).str.strip())
    if pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column):
        try:
            return bool((column == float(text)).any())
        except ValueError:
            return False
    return bool(column.astype(str).str.strip().eq(text).any())
