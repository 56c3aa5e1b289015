"""What :mod:`incrowd.data.types` finds of a column: its :class:`ColumnType` (kind and how its
text is read) and the :class:`Inference` (the type with its counts, examples, warnings, and
what ``incrowd inspect`` shows beside them)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..errors import ParameterError
from . import number_format as nf

__all__ = ["KINDS", "ColumnKind", "ColumnType", "Inference"]

ColumnKind = Literal["number", "code", "category", "date"]
KINDS: tuple[str, ...] = ("number", "code", "category", "date")


@dataclass(frozen=True)
class ColumnType:
    """A column's kind, and how its text is read: ``thousands`` / ``decimal`` for numbers,
    ``date_format`` (strftime; None: detected, ISO first) for dates, ``width`` for codes that
    lost their leading zeros to a number type (a zip read as a float: ``2142`` is ``02142``)."""

    kind: ColumnKind
    thousands: str | None = None
    decimal: str = "."
    date_format: str | None = None
    width: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            msg = f"column kind must be one of {', '.join(KINDS)}, got {self.kind!r}"
            raise ParameterError(msg)
        nf.check_number_format(self.thousands, self.decimal)
        if self.kind != "number" and (self.thousands is not None or self.decimal != "."):
            msg = f"a {self.kind} column has no thousands separator or decimal mark"
            raise ParameterError(msg)
        if self.kind != "date" and self.date_format is not None:
            msg = f"a {self.kind} column has no date format"
            raise ParameterError(msg)
        if self.width is not None and (self.kind != "code" or self.width < 1):
            msg = f"a {self.kind} column has no code width" if self.kind != "code" else (
                f"a code width must be positive, got {self.width!r}")  # fmt: skip
            raise ParameterError(msg)


@dataclass(frozen=True)
class Inference:
    """What :func:`infer_column` found: the type, counts of missing cells and distinct present
    values, a few present values, one-line warnings (each naming its override setting), and
    one line saying why this kind; a setting is marked (:func:`~incrowd.errors.option`):
    :func:`~incrowd.errors.python_text` shows the keyword, :func:`~incrowd.errors.cli_text`
    the flag."""

    name: str
    type: ColumnType
    n_missing: int
    n_distinct: int
    examples: tuple[str, ...]
    warnings: tuple[str, ...]
    reason: str
    #: Words a distinct present text holds on average (0 for numbers, dates): free text is long.
    words: float = 0.0
    #: The column's missing-value marker (:mod:`.markers`) and its cells, when proposed (the
    #: inspection's): the type, counts and examples are those of the other cells.
    marker: str | None = None
    marker_cells: int = 0
    #: Why no kind reads the column (the error the schema would raise; the inspection's).
    problem: str | None = None
    #: The type of list, struct or binary values (:func:`~incrowd.io.tables.value_type`).
    nested: str | None = None
