"""Algorithms, one problem family per module, and the registry the CLI offers."""

from __future__ import annotations

from ..base import Algorithm
from .bincover import BinCovering
from .cellular import CellularClustering, RCellular, RCellularOutliers
from .exact import ExactPartition
from .factors import ThreeAnonymity, TwoAnonymity, TwoMicroaggregation
from .forest import ForestKAnonymity, MuApprox
from .gather import KRCenter, KRCenterOutliers, RGather, RGatherOutliers
from .kd_rectangles import KDRectangles
from .mdav import MDAV
from .planar_regions import PlanarRegions
from .recoding import LocalRecoding

__all__ = [
    "METHODS",
    "MDAV",
    "BinCovering",
    "CellularClustering",
    "ExactPartition",
    "ForestKAnonymity",
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

#: Methods offered by ``incrowd anonymize --method``, by name.
METHODS: dict[str, type[Algorithm]] = {
    "mdav": MDAV,
    "exact": ExactPartition,
    "r-gather": RGather,
    "r-gather-outliers": RGatherOutliers,
    "kr-center": KRCenter,
    "kr-center-outliers": KRCenterOutliers,
    "cellular": CellularClustering,
    "r-cellular": RCellular,
    "r-cellular-outliers": RCellularOutliers,
    "local-recoding": LocalRecoding,
    "forest": ForestKAnonymity,
    "mu-approx": MuApprox,
    "2-anonymity": TwoAnonymity,
    "3-anonymity": ThreeAnonymity,
    "2-microaggregation": TwoMicroaggregation,
    "kd-rectangles": KDRectangles,
    "planar-regions": PlanarRegions,
    "bin-covering": BinCovering,
}
