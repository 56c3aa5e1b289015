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

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .types import Inference

__all__ = ["column_row", "shown_type"]


def shown_type(inference: Inference) -> str:
    """The column's type as the table of ``incrowd inspect`` shows it: the kind, with the
    number format (``number (1.234,5)``) or the date format when it is not the default."""
    t = inference.type
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
    from .types import propose_hierarchy, propose_role

    role, why = propose_role(inference, n_rows)
    t = inference.type
    return {
        "column": inference.name, "type": t.kind, "shown_type": shown_type(inference),
        "thousands": t.thousands, "decimal": t.decimal, "date_format": t.date_format,
        "distinct": inference.n_distinct, "missing": inference.n_missing,
        "role": role, "role_reason": why, "hierarchy": propose_hierarchy(inference),
        "examples": list(inference.examples), "reason": cli_text(inference.reason),
        "warnings": [cli_text(w) for w in inference.warnings],
    }  # fmt: skip
