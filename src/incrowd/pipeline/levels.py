"""What a run does with the level bounds (``min_level`` / ``max_level``, :class:`.Settings`):
the method honours them (global recoding cuts its lattice, local recoding and the forest
raise and block their crowds: :mod:`incrowd.algorithms._shared.levels`); the run gives
them to it, refuses a method that cannot, publishes the crowds at their floors, and checks
the final crowds (after an l-diversity repair, say) against the ceilings.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import InfeasibleError, ParameterError, option

if TYPE_CHECKING:
    from ..base import Algorithm
    from ..data.schema import Schema
    from .settings import Settings

__all__ = ["check_ceilings", "level_parameters", "published_floors"]

#: The two settings, in the order messages name them.
BOUNDS = ("min_level", "max_level")


def level_parameters(cls: type[Algorithm], settings: Settings) -> dict[str, Any]:
    """The bounds as the method's parameters; a :class:`~incrowd.ParameterError` naming the
    setting when the method takes none of them."""
    fixed: dict[str, Any] = {}
    for name in BOUNDS:
        given = getattr(settings, name)
        if not given:
            continue
        if name not in cls.parameters:
            from ..algorithms import METHODS

            takers = ", ".join(m for m, c in METHODS.items() if name in c.parameters)
            msg = (f"{option(name)} applies to the methods that publish hierarchy levels "
                   f"({takers}), not to {cls.__name__}")  # fmt: skip
            raise ParameterError(msg)
        fixed[name] = dict(given)
    return fixed


def published_floors(settings: Settings, schema: Schema) -> list[int | None] | None:
    """Each quasi-identifier's floor (schema order; None: its crowd's own level), or None
    when no ``min_level`` is set: a local method's crowds are published at them."""
    if not settings.min_level:
        return None
    return [settings.min_level.get(name) for name in schema.qi_names]


def check_ceilings(objective: Any, labels: np.ndarray, settings: Settings) -> None:
    """An :class:`~incrowd.InfeasibleError` when a crowd of ``labels`` agrees on an
    attribute only above its ``max_level`` (the method keeps its crowds within the ceilings;
    a repair that merges crowds for l-diversity may not)."""
    ceilings = settings.max_level
    if not ceilings or not hasattr(objective, "ancestors") or not (labels >= 0).any():
        return
    kept = np.flatnonzero(labels >= 0)
    order = kept[np.argsort(labels[kept], kind="stable")]
    starts = np.flatnonzero(np.r_[True, labels[order][1:] != labels[order][:-1]])
    coded: Sequence[str] = [n for n, num in zip(objective.names, objective.numeric, strict=True)
                            if not num]  # fmt: skip
    for j, name in enumerate(coded):
        top = ceilings.get(name)
        if top is None or top >= objective.height[j]:
            continue
        # a crowd within the ceiling agrees on its ancestor there
        node = objective.ancestors[j, top][objective.codes[order, j]]
        if (np.minimum.reduceat(node, starts) != np.maximum.reduceat(node, starts)).any():
            msg = (f"{option('max_level', {name: top})} cannot hold with the l-diversity / "
                   "t-closeness asked: crowds merged for it span values of "
                   f"{name!r} above level {top} (relax one of them)")  # fmt: skip
            raise InfeasibleError(msg)
