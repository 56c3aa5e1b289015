"""The part of the lattice a global recoding searches (``min_level`` / ``max_level``), and
the node it refuses to publish (every attribute ``*``, or every record suppressed)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from ...errors import ParameterError, option
from ...params import check_level_bounds

if TYPE_CHECKING:
    from ...costs import GeneralizationCost
    from ._search import LatticeResult

__all__ = ["level_range", "nothing_published", "nothing_qualifies"]


def level_range(
    model: GeneralizationCost,
    order: Sequence[int],
    min_level: Mapping[str, int] | None,
    max_level: Mapping[str, int] | None,
) -> tuple[np.ndarray, np.ndarray]:
    """``(low, high)``: the lowest and highest level of each attribute, in the search's
    order (``order[i]``: the position of ``model.names[i]``); a one-line
    :class:`~incrowd.ParameterError` naming the setting for an unknown attribute, a level its
    hierarchy does not have, or a minimum above the maximum."""
    names = list(model.names)
    coded = iter(np.asarray(model.height).tolist())
    # a number without a hierarchy has two levels (its values, then *); a category too
    height = [1 if numeric else next(coded) for numeric in np.asarray(model.numeric)]
    low = np.zeros(len(names), dtype=np.intp)
    high = np.zeros(len(names), dtype=np.intp)
    for i in range(len(names)):
        high[order[i]] = height[i]
    for setting, given in (("min_level", min_level), ("max_level", max_level)):
        for name, level in (given or {}).items():
            where = option(setting, {name: level})
            if name not in names:
                known = ", ".join(map(repr, names))
                msg = f"{where}: {name!r} is not a quasi-identifier (they are {known})"
                raise ParameterError(msg)
            top = height[names.index(name)]
            if level > top:  # worded as the local methods word it (_shared/levels.py)
                msg = f"{where}: {name!r} has levels 0 (its values) to {top} (*)"
                raise ParameterError(msg)
    check_level_bounds(min_level, max_level)
    for name, level in (min_level or {}).items():
        low[order[names.index(name)]] = int(level)
    for name, level in (max_level or {}).items():
        high[order[names.index(name)]] = int(level)
    return low, high


def nothing_qualifies(
    high: np.ndarray, height: np.ndarray, max_level: Mapping | None, star_class: bool
) -> str:
    """Why no node qualified: on the whole lattice, the top (the whole table as one class)
    breaks the privacy model; on a lattice cut by ``max_level``, its ceilings may be why."""
    if not bool((np.asarray(high) < np.asarray(height)).any()):
        return ("no generalization qualifies within the suppression limit: even the whole "
                "table as one class breaks the privacy model (l-diversity or the class "
                "check)")  # fmt: skip
    stars = (f" (or, as rows of *, fewer than k: {option('suppressed', 'drop')} withholds "
             "them)" if star_class else "")  # fmt: skip
    return (f"no generalization within {option('max_level', dict(max_level or {}))} "
            f"qualifies: each suppresses more records than the suppression limit allows"
            f"{stars}; raise a maximum level or {option('suppression_limit')}")  # fmt: skip


def nothing_published(
    found: LatticeResult,
    height: np.ndarray,
    n: int,
    time_limit: float,
    given: tuple[str, ...] = (),
) -> str | None:
    """Why the node ``found`` must not be published (every attribute ``*``, or every record
    suppressed: nothing of the quasi-identifiers left), and what to relax — k, the
    suppression limit, and of ``l`` and ``min_level`` those ``given``; None if it may."""
    every = all(int(v) == int(h) for v, h in zip(found.levels, height, strict=True))
    if not (every or (n > 0 and found.suppressed >= n)):
        return None
    what = "every quasi-identifier *" if every else "every record suppressed"
    named = [option("k"), *(option(name) for name in ("l", "min_level") if name in given)]
    relax = f"{', '.join(named)} or {option('suppression_limit')}"
    if found.optimal:
        return (f"no generalization publishes anything: the least loss that qualifies has "
                f"{what}; relax {relax}")  # fmt: skip
    stop = (f"its time limit ({time_limit:g} s)" if found.stopped == "time"
            else "its memory limit")  # fmt: skip
    return (f"the search stopped at {stop} with {what} as the best found: raise "
            f"{option('params', {'time_limit': ...})}, cut the lattice with a "
            f"{option('max_level')}, or relax {relax}")  # fmt: skip
