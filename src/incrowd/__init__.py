"""incrowd: publish tables of personal records so that everyone hides in a crowd of at least k.

The flow: a table and its :class:`Schema` → a :class:`MetricSpace` → an algorithm's
:class:`Partition` into crowds → a :class:`Release` in one of three forms → :func:`verify`.
:func:`anonymize` runs all of it.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("incrowd")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0+unknown"

from .algorithms import (  # noqa: E402
    MDAV,
    METHODS,
    ExactPartition,
    ForestKAnonymity,
    KRCenter,
    KRCenterOutliers,
    MuApprox,
    RGather,
    RGatherOutliers,
    ThreeAnonymity,
    TwoAnonymity,
    TwoMicroaggregation,
)
from .anonymize import anonymize  # noqa: E402
from .base import Algorithm, Guarantee  # noqa: E402
from .data import (  # noqa: E402
    Categorical,
    Hierarchical,
    Hierarchy,
    MetricSpace,
    Numeric,
    Schema,
    read_table,
    write_table,
)
from .datasets import load_adult, make_microdata  # noqa: E402
from .errors import (  # noqa: E402
    HierarchyError,
    IncrowdError,
    InfeasibleError,
    InputError,
    ParameterError,
    PrivacyViolation,
    SchemaError,
)
from .partition import Partition  # noqa: E402
from .privacy import VerificationReport, check_k_anonymity, verify  # noqa: E402
from .release import (  # noqa: E402
    Release,
    release_centers,
    release_generalized,
    release_microaggregated,
)

__all__ = [
    "METHODS",
    "MDAV",
    "Algorithm",
    "Categorical",
    "ExactPartition",
    "ForestKAnonymity",
    "Guarantee",
    "Hierarchical",
    "Hierarchy",
    "HierarchyError",
    "IncrowdError",
    "InfeasibleError",
    "InputError",
    "KRCenter",
    "KRCenterOutliers",
    "MetricSpace",
    "MuApprox",
    "Numeric",
    "ParameterError",
    "Partition",
    "PrivacyViolation",
    "RGather",
    "RGatherOutliers",
    "Release",
    "Schema",
    "SchemaError",
    "ThreeAnonymity",
    "TwoAnonymity",
    "TwoMicroaggregation",
    "VerificationReport",
    "__version__",
    "anonymize",
    "check_k_anonymity",
    "load_adult",
    "make_microdata",
    "read_table",
    "release_centers",
    "release_generalized",
    "release_microaggregated",
    "verify",
    "write_table",
]
