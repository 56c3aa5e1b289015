"""Table → metric space: schema and attribute metrics, hierarchies, I/O, bundled data."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .hierarchy import Hierarchy
from .io import read_table, write_table
from .schema import Categorical, Hierarchical, Numeric, Schema

if TYPE_CHECKING:
    from .space import MetricSpace

__all__ = [
    "Categorical",
    "Hierarchical",
    "Hierarchy",
    "MetricSpace",
    "Numeric",
    "Schema",
    "read_table",
    "write_table",
]


def __getattr__(name: str) -> Any:
    # the metric space loads the neighbour index and compiled kernels: only when asked for,
    # so that reading tables and schemas (the checker does) does not
    if name == "MetricSpace":
        from .space import MetricSpace

        return MetricSpace
    msg = f"module {__name__!r} has no attribute {name!r}"
    raise AttributeError(msg)
