"""incrowd: publish tables of personal records so that everyone hides in a crowd of at least k.

The flow: a table and its :class:`Schema` → a :class:`MetricSpace` → an algorithm's
:class:`Partition` into crowds → a :class:`Release` in one of three forms → :func:`verify`.
:func:`anonymize` runs all of it.

Names are imported on first use (PEP 562), so ``import incrowd`` and ``incrowd --version``
stay fast and never compile a kernel.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ._version import __version__

#: Where each public name lives.
_SOURCES = {
    "METHODS": "algorithms",
    "MDAV": "algorithms",
    "BinCovering": "algorithms",
    "CellularClustering": "algorithms",
    "KDRectangles": "algorithms",
    "PlanarRegions": "algorithms",
    "RCellular": "algorithms",
    "RCellularOutliers": "algorithms",
    "ExactPartition": "algorithms",
    "ForestKAnonymity": "algorithms",
    "LocalRecoding": "algorithms",
    "KRCenter": "algorithms",
    "KRCenterOutliers": "algorithms",
    "MuApprox": "algorithms",
    "RGather": "algorithms",
    "RGatherOutliers": "algorithms",
    "ThreeAnonymity": "algorithms",
    "TwoAnonymity": "algorithms",
    "TwoMicroaggregation": "algorithms",
    "anonymize": "pipeline.api",
    "Diversity": "privacy.models",
    "assess_risk": "measures.risk",
    "Algorithm": "base",
    "Guarantee": "base",
    "Categorical": "data",
    "Hierarchical": "data",
    "Hierarchy": "data",
    "MetricSpace": "space.metric_space",
    "Numeric": "data",
    "Schema": "data",
    "read_table": "io.tables",
    "write_table": "io.tables",
    "load_adult": "datasets",
    "make_microdata": "datasets",
    "make_census": "datasets",
    "HierarchyError": "errors",
    "IncrowdError": "errors",
    "IncrowdWarning": "errors",
    "InfeasibleError": "errors",
    "InputError": "errors",
    "OutputError": "errors",
    "ParameterError": "errors",
    "PrivacyViolation": "errors",
    "SchemaError": "errors",
    "Partition": "partition",
    "VerificationReport": "privacy.verify",
    "check_k_anonymity": "privacy.verify",
    "verify": "privacy.verify",
    "Release": "release",
    "ReleaseMetadata": "io.metadata",
    "read_release": "release",
    "release_centers": "release",
    "release_generalized": "release",
    "release_microaggregated": "release",
}

__all__ = [
    "__version__",
    "Algorithm",
    "BinCovering",
    "Categorical",
    "CellularClustering",
    "Diversity",
    "ExactPartition",
    "ForestKAnonymity",
    "LocalRecoding",
    "Guarantee",
    "Hierarchical",
    "Hierarchy",
    "HierarchyError",
    "IncrowdError",
    "IncrowdWarning",
    "InfeasibleError",
    "InputError",
    "KDRectangles",
    "KRCenter",
    "KRCenterOutliers",
    "MDAV",
    "METHODS",
    "MetricSpace",
    "MuApprox",
    "Numeric",
    "OutputError",
    "ParameterError",
    "Partition",
    "PlanarRegions",
    "PrivacyViolation",
    "RCellular",
    "RCellularOutliers",
    "RGather",
    "RGatherOutliers",
    "Release",
    "ReleaseMetadata",
    "Schema",
    "SchemaError",
    "ThreeAnonymity",
    "TwoAnonymity",
    "TwoMicroaggregation",
    "VerificationReport",
    "anonymize",
    "assess_risk",
    "check_k_anonymity",
    "load_adult",
    "make_census",
    "make_microdata",
    "read_release",
    "read_table",
    "release_centers",
    "release_generalized",
    "release_microaggregated",
    "verify",
    "write_table",
]


def __dir__() -> list[str]:
    """The public API (what ``__all__`` lists), not this module's own helpers."""
    return sorted(__all__)


def __getattr__(name: str) -> Any:
    source = _SOURCES.get(name)
    if source is None:
        msg = f"module 'incrowd' has no attribute {name!r}"
        raise AttributeError(msg)
    value = getattr(importlib.import_module(f".{source}", __name__), name)
    globals()[name] = value
    return value


if TYPE_CHECKING:  # pragma: no cover
    from .algorithms import (
        MDAV,
        METHODS,
        BinCovering,
        CellularClustering,
        ExactPartition,
        ForestKAnonymity,
        KDRectangles,
        KRCenter,
        KRCenterOutliers,
        LocalRecoding,
        MuApprox,
        PlanarRegions,
        RCellular,
        RCellularOutliers,
        RGather,
        RGatherOutliers,
        ThreeAnonymity,
        TwoAnonymity,
        TwoMicroaggregation,
    )
    from .base import Algorithm, Guarantee
    from .data import Categorical, Hierarchical, Hierarchy, Numeric, Schema
    from .datasets import load_adult, make_census, make_microdata
    from .errors import (
        HierarchyError,
        IncrowdError,
        IncrowdWarning,
        InfeasibleError,
        InputError,
        OutputError,
        ParameterError,
        PrivacyViolation,
        SchemaError,
    )
    from .io.metadata import ReleaseMetadata
    from .io.tables import read_table, write_table
    from .measures.risk import assess_risk
    from .partition import Partition
    from .pipeline.api import anonymize
    from .privacy.models import Diversity
    from .privacy.verify import VerificationReport, check_k_anonymity, verify
    from .release import (
        Release,
        read_release,
        release_centers,
        release_generalized,
        release_microaggregated,
    )
    from .space.metric_space import MetricSpace
