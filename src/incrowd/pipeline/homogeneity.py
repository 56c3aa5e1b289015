"""Attribute disclosure in a release: published classes holding one sensitive value.

k-anonymity hides who a person is among k records, not what they share: when every record
of a published class has the same sensitive value, placing a person in the class tells it.
:func:`homogeneous_classes` counts such classes for the metadata; :func:`homogeneity_warnings`
words them as the one line per column ``anonymize`` prints. A missing sensitive value is one
value of its own (:func:`~incrowd.privacy.models.sensitive_codes`): a class whose records all
lack it is homogeneous too.
"""

from __future__ import annotations

import pandas as pd

from ..data.schema import Schema
from ..errors import option
from ..io.metadata import ReleaseMetadata
from ..privacy.models import published_figures

__all__ = ["homogeneity_warnings", "homogeneous_classes"]


def homogeneous_classes(
    table: pd.DataFrame, schema: Schema, form: str, n_classes: int
) -> dict[str, dict[str, int]] | None:
    """Per sensitive column, the published classes (of ``n_classes``) holding a single value
    of it and their records (None without sensitive columns): :func:`homogeneity_warnings`."""
    names = [c for c in schema.sensitive if c in table.columns]
    if not names or not len(table):
        return None
    figures = published_figures(table, schema.qi_names, names, form == "centers")
    return {name: {"classes": int(f["homogeneous_classes"]), "of_classes": n_classes,
                   "records": int(f["homogeneous_records"])}
            for name, f in figures.items()}  # fmt: skip


def homogeneity_warnings(metadata: ReleaseMetadata) -> list[str]:
    """One line per sensitive column that some published classes hold a single value of:
    attribute disclosure (placing a person in such a class tells their value), which
    k-anonymity does not prevent and l-diversity does."""
    lines = []
    for name, f in (metadata.homogeneous or {}).items():
        if f.get("classes"):
            lines.append(
                f"{f['classes']} of {f.get('of_classes', '?')} published classes "
                f"({f.get('records', '?')} records) hold a single value of the sensitive column "
                f"{name!r}: placing a person in one of them discloses it; "
                f"{option('l', 2)} makes every class hold at least 2 values"
            )
    return lines
