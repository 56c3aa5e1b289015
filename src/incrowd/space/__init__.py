"""Geometry: the quasi-identifiers as coordinates and codes (:mod:`.geometry`), the
:class:`MetricSpace` an algorithm sees (:mod:`.metric_space`), compiled distance kernels
(:mod:`.kernels`) and the neighbour index (:mod:`.neighbours`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .metric_space import MetricSpace

__all__ = ["MetricSpace"]


def __getattr__(name: str) -> Any:
    # the metric space loads the neighbour index and compiled kernels: only on first use
    if name == "MetricSpace":
        from .metric_space import MetricSpace

        return MetricSpace
    msg = f"module {__name__!r} has no attribute {name!r}"
    raise AttributeError(msg)
