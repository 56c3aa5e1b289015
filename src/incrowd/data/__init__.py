"""Table → metric space: schema and attribute metrics, hierarchies, I/O, bundled data."""

from __future__ import annotations

from .hierarchy import Hierarchy
from .io import read_table, write_table
from .schema import Categorical, Hierarchical, Numeric, Schema
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
