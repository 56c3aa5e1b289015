"""Release forms: partition + table → published table (generalized, microaggregated, centers).

Names load on first use (PEP 562): the checker reads release
files through :mod:`incrowd.io.release_format` without loading the release forms, their
costs and compiled kernels.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..io.release_format import ReleaseFiles, metadata_path, read_release, write_release
    from ._release import RELEASE_FORMS, Release, ReleaseForm
    from .centers import release_centers
    from .generalize import release_generalized
    from .microaggregate import release_microaggregated

_WHERE = {
    "RELEASE_FORMS": "._release",
    "Release": "._release",
    "ReleaseForm": "._release",
    "release_centers": ".centers",
    "ReleaseFiles": "..io.release_format",
    "metadata_path": "..io.release_format",
    "read_release": "..io.release_format",
    "write_release": "..io.release_format",
    "release_generalized": ".generalize",
    "release_microaggregated": ".microaggregate",
}

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


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        msg = f"module {__name__!r} has no attribute {name!r}"
        raise AttributeError(msg)
    value = getattr(importlib.import_module(_WHERE[name], __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
