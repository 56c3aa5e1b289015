"""Release forms: partition + table → published table (generalized, microaggregated, centers)."""

from __future__ import annotations

from ._release import RELEASE_FORMS, Release, ReleaseForm, metadata_path
from .centers import release_centers
from .generalize import release_generalized
from .microaggregate import release_microaggregated

__all__ = [
    "RELEASE_FORMS",
    "Release",
    "ReleaseForm",
    "metadata_path",
    "release_centers",
    "release_generalized",
    "release_microaggregated",
]
