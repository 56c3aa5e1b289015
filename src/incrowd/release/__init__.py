"""Release forms: partition + table → published table (generalized, microaggregated, centers)."""

from __future__ import annotations

from ._release import RELEASE_FORMS, Release, ReleaseForm
from .centers import release_centers
from .files import ReleaseFiles, metadata_path, read_release, write_release
from .generalize import release_generalized
from .microaggregate import release_microaggregated

__all__ = [
    "RELEASE_FORMS",
    "Release",
    "ReleaseFiles",
    "ReleaseForm",
    "metadata_path",
    "read_release",
    "release_centers",
    "release_generalized",
    "release_microaggregated",
    "write_release",
]
