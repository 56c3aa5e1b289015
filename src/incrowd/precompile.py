"""Compile incrowd's kernels ahead of time, into the kernel cache.

The numba kernels are compiled on first use and cached on disk (:mod:`incrowd._runtime`);
that first use costs seconds. ``incrowd precompile`` (``make`` runs it when it installs the
package) runs every method once on tiny tables so the first real run is as fast as any
other. Build it into a container image so that a read-only container starts warm.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
import pandas as pd

__all__ = ["precompile"]


def precompile(*, parallel: bool = False, on_step: Callable[[str], None] | None = None) -> float:
    """Compile the kernels every method uses (``parallel``: also MDAV's multi-threaded
    variants, used on tables of 50,000 records or more). Returns the seconds spent."""
    from . import algorithms, costs
    from .algorithms.cellular import compile_kernels
    from .algorithms.mdav import compile_parallel
    from .data.schema import Categorical, Hierarchical, Numeric, Schema
    from .space.metric_space import MetricSpace
    from .testing import configured, random_hierarchy

    say = on_step or (lambda _name: None)
    start = time.perf_counter()
    rng = np.random.default_rng(0)
    n = 40
    table = pd.DataFrame(
        {
            "x": rng.normal(size=n),
            "c": [f"c{v}" for v in rng.integers(0, 3, n)],
            "h": [f"v{v}" for v in rng.integers(0, 4, n)],
        }
    )
    schema = Schema(
        {"x": Numeric(), "c": Categorical(), "h": Hierarchical(random_hierarchy(rng, 4, 2))}
    )
    spaces = [
        MetricSpace.from_array(rng.normal(size=(n, 2))),
        MetricSpace.from_table(table, schema),
    ]
    for name, cls in sorted(algorithms.METHODS.items()):
        say(name)
        for space in spaces[:1] if cls.tags.coordinates else spaces:
            small = (
                space
                if cls.tags.max_records is None
                else MetricSpace.from_array(rng.normal(size=(8, 2)))
            )
            for deletion in (False, True) if cls.tags.deletion else (False,):
                configured(cls, 3, allow_deletion=deletion).fit(small)
    say("bin covering sweeps")
    from .algorithms.single_attribute.bincover import sweep

    for algorithm in ("fold", "spread"):
        sweep(np.array([3, 1, 4, 1, 5, 9, 2, 6]), np.arange(9, 16), algorithm)
    say("local-recoding (l-diverse; value sets)")
    algorithms.LocalRecoding(k=3, l=2).fit(spaces[1], rng.integers(0, 2, n))
    algorithms.LocalRecoding(k=3, generalize="sets").fit(spaces[1])
    say("cellular certificates")
    compile_kernels()
    say("costs")
    for space in spaces:
        costs.MaxRadius.on(space).of(np.arange(n) % 5)
        costs.GeneralizationCost.on(space).subset_costs(6, 2)
    if parallel:
        say("mdav (parallel)")
        for space in spaces:
            compile_parallel(space.geometry_in(2))
    return time.perf_counter() - start
