"""Algorithms, one problem family per package, and the registry the CLI offers.

Each family is a package (``recoding``, ``global_recoding``, ``forest``, ``factors``, ``gather``,
``cellular``, ``mdav``, ``single_attribute``) whose private modules only it imports;
what several families use is in ``_shared``; ``exact`` (the subset dynamic program)
and ``release_polish`` (after any method) are single modules.

A module is imported when one of its methods is first asked for (by name in
:data:`METHODS`, or as an attribute of this package): a run loads the method it uses, not
every method's dependencies (the command line starts a fifth of a second sooner).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..base import Algorithm
    from .cellular import CellularClustering, RCellular, RCellularOutliers
    from .exact import ExactPartition
    from .factors import ThreeAnonymity, TwoAnonymity, TwoMicroaggregation
    from .forest import ForestKAnonymity, MuApprox
    from .gather import KRCenter, KRCenterOutliers, RGather, RGatherOutliers
    from .global_recoding import GlobalRecoding
    from .mdav import MDAV
    from .recoding import LocalRecoding
    from .single_attribute.bincover import BinCovering
    from .single_attribute.kd_rectangles import KDRectangles
    from .single_attribute.planar_regions import PlanarRegions

__all__ = [
    "METHODS",
    "MDAV",
    "BinCovering",
    "CellularClustering",
    "ExactPartition",
    "ForestKAnonymity",
    "GlobalRecoding",
    "LocalRecoding",
    "MuApprox",
    "RCellular",
    "RCellularOutliers",
    "KDRectangles",
    "KRCenter",
    "KRCenterOutliers",
    "PlanarRegions",
    "RGather",
    "RGatherOutliers",
    "ThreeAnonymity",
    "TwoAnonymity",
    "TwoMicroaggregation",
]

#: Where each method lives: its name on the command line, its module and its class.
_REGISTRY = {
    "mdav": ("mdav", "MDAV"),
    "exact": ("exact", "ExactPartition"),
    "r-gather": ("gather", "RGather"),
    "r-gather-outliers": ("gather", "RGatherOutliers"),
    "kr-center": ("gather", "KRCenter"),
    "kr-center-outliers": ("gather", "KRCenterOutliers"),
    "cellular": ("cellular", "CellularClustering"),
    "r-cellular": ("cellular", "RCellular"),
    "r-cellular-outliers": ("cellular", "RCellularOutliers"),
    "local-recoding": ("recoding", "LocalRecoding"),
    "global-recoding": ("global_recoding", "GlobalRecoding"),
    "forest": ("forest", "ForestKAnonymity"),
    "mu-approx": ("forest", "MuApprox"),
    "2-anonymity": ("factors", "TwoAnonymity"),
    "3-anonymity": ("factors", "ThreeAnonymity"),
    "2-microaggregation": ("factors", "TwoMicroaggregation"),
    "kd-rectangles": ("single_attribute.kd_rectangles", "KDRectangles"),
    "planar-regions": ("single_attribute.planar_regions", "PlanarRegions"),
    "bin-covering": ("single_attribute.bincover", "BinCovering"),
}
_MODULE_OF = {cls: module for module, cls in _REGISTRY.values()}


def _load(module: str, name: str) -> Any:
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)


class _Methods(Mapping[str, "type[Algorithm]"]):
    """The methods by name, each imported on first use."""

    def __getitem__(self, name: str) -> type[Algorithm]:
        return _load(*_REGISTRY[name])

    def __iter__(self) -> Iterator[str]:
        return iter(_REGISTRY)

    def __len__(self) -> int:
        return len(_REGISTRY)


#: Methods offered by ``incrowd anonymize --method``, by name.
METHODS: Mapping[str, type[Algorithm]] = _Methods()


def __getattr__(name: str) -> Any:
    if name in _MODULE_OF:
        return _load(_MODULE_OF[name], name)
    msg = f"module {__name__!r} has no attribute {name!r}"
    raise AttributeError(msg)
