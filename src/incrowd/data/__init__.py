"""The table's description: schema and attribute metrics, encoded columns, hierarchies, NCP.

No file I/O (:mod:`incrowd.io`) and no geometry (:mod:`incrowd.space`) lives here.
"""

from __future__ import annotations

from .hierarchy import Hierarchy
from .schema import Categorical, Hierarchical, Numeric, Schema

__all__ = ["Categorical", "Hierarchical", "Hierarchy", "Numeric", "Schema"]
