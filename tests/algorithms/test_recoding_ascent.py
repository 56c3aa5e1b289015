"""The dual-ascent bound of local recoding: a worked example, dual feasibility over every
crowd by enumeration, and the exact optimum."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from incrowd import Hierarchical, Hierarchy, LocalRecoding, MetricSpace, ParameterError, Schema
from incrowd.algorithms.exact import optimum
from incrowd.algorithms.recoding._ascent import FIRST_CAP, GAIN_DECAY, _top_k, ascent_bound
from incrowd.algorithms.recoding.bounds import lattice_bound
from incrowd.costs import GeneralizationCost
from incrowd.costs.kernels import record_cost
from incrowd.testing import random_table


def _quality_model() -> GeneralizationCost:
    """Three records A+, A, B+ under Fig. 1's hierarchy of Aggarwal et al. (A+, A, A− under
    A; B+, B, B− under B; then ``*``); k = 2 puts all three in one crowd."""
    rows = [[v, v[0], "*"] for v in ("A+", "A", "A-", "B+", "B", "B-")]
    table = pd.DataFrame({"q": ["A+", "A", "B+"]})
    schema = Schema({"q": Hierarchical(Hierarchy.from_rows(rows))})
    return GeneralizationCost.on(MetricSpace.from_table(table, schema, norm=1))


def test_the_ascent_climbs_from_the_lattice_bound_to_the_linear_optimum() -> None:
    """With the values present as the domain, ``A`` costs 1/2 and ``*`` 1. The lattice bound
    is 1/2 + 1/2 + 1 (A+ and A share ``A``; B+ shares only ``*``); the optimum is 3 (one
    crowd under ``*``). The linear relaxation takes {A+, B+}, {A, B+} and {A+, A} half each:
    2.5, the most any dual reaches. One round raises B+ by 1/4: the top class's two largest
    ``u − cost`` are 0 and −1/2, so its room is 1/4 a member; ``A``'s class has none."""
    model = _quality_model()
    lam = lattice_bound(model, 2)
    assert lam.tolist() == pytest.approx([0.5, 0.5, 1.0])
    one = ascent_bound(model, 2, lam, 1, first_cap=np.inf)
    assert one.tolist() == pytest.approx([0.5, 0.5, 1.25])
    # capped, the first round raises B+ by FIRST_CAP of its cost under *
    assert ascent_bound(model, 2, lam, 1).tolist() == pytest.approx([0.5, 0.5, 1 + FIRST_CAP])
    many = ascent_bound(model, 2, lam, 60)
    assert many.sum() == pytest.approx(2.5, abs=1e-6)
    assert many.sum() <= 2.5
    assert optimum(model, 3, 2)[0] == pytest.approx(3.0)
    assert ascent_bound(model, 2, lam, 0).tolist() == lam.tolist()


def _every_crowd_covers_its_terms(model: GeneralizationCost, u: np.ndarray, k: int) -> None:
    """Dual feasibility, by enumeration: every set of at least ``k`` records costs at least
    the sum of its members' terms."""
    n = model.n
    cm = model.kernel_args()
    stamp = np.zeros(max(model.ancestors.shape[2], int(model.domain.max(initial=1))) + 1,
                     dtype=np.int64)  # fmt: skip
    tick = 1
    for size in range(k, n + 1):
        for members in itertools.combinations(range(n), size):
            members = np.array(members)
            tick += model.codes.shape[1] + 1
            cost = size * record_cost(members, cm, stamp, tick)
            assert u[members].sum() <= cost + 1e-9 * (1 + cost)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 4), st.sampled_from([1, 2, 5]))
def test_the_ascent_is_a_feasible_dual_below_the_optimum(seed, k, rounds) -> None:
    """On random tables (hierarchy labels priced by NCP or h / l, value sets and ranges,
    random weights): the terms never fall below the lattice bound, equal records get equal
    terms, every crowd covers its members' terms, and the sum is at most the exact
    optimum."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(k + 1, 10))
    kinds = ("hierarchical", "categorical") if seed % 2 == 0 else None
    table, schema = random_table(rng, n, kinds)
    space = MetricSpace.from_table(table, schema, norm=1)
    loss = "height" if seed % 5 == 0 else "ncp"  # the paper's h / l cost too
    model = GeneralizationCost.on(space, "sets" if seed % 3 == 0 else "levels", loss=loss)
    lam = lattice_bound(model, k)
    u = ascent_bound(model, k, lam, rounds)
    assert (u >= lam - 1e-12).all()
    _, inverse = np.unique(np.column_stack([model.num, model.codes]), axis=0,
                           return_inverse=True)  # fmt: skip
    for row in np.unique(inverse):
        assert np.ptp(u[inverse.ravel() == row]) == 0.0
    _every_crowd_covers_its_terms(model, u, k)
    best, _ = optimum(model, n, k)
    assert u.sum() <= best + 1e-9 * (1 + best)


def test_more_rounds_never_lower_the_bound() -> None:
    rng = np.random.default_rng(5)
    table, schema = random_table(rng, 300, ["hierarchical", "categorical"])
    space = MetricSpace.from_table(table, schema, norm=1)
    model = GeneralizationCost.on(space)
    lam = lattice_bound(model, 5)
    sums = [ascent_bound(model, 5, lam, rounds).sum() for rounds in range(4)]
    assert sums == sorted(sums)
    assert sums[-1] > sums[0]
    assert sums[-1] <= LocalRecoding(k=5).fit(space).cost_ + 1e-9


def test_no_round_starts_where_it_would_not_reach_the_bound_at_hand() -> None:
    """``reach``: the ascent stops after a round whose gain, shrunk by ``GAIN_DECAY``, would
    leave its sum below the bound the caller has; below every sum it changes nothing."""
    rng = np.random.default_rng(5)
    table, schema = random_table(rng, 300, ["hierarchical", "categorical"])
    model = GeneralizationCost.on(MetricSpace.from_table(table, schema, norm=1))
    lam = lattice_bound(model, 5)
    one, three = (ascent_bound(model, 5, lam, rounds) for rounds in (1, 3))
    assert three.sum() > one.sum()
    unreachable = ascent_bound(model, 5, lam, 3, reach=10 * three.sum())
    assert unreachable.tolist() == one.tolist()
    reached = ascent_bound(model, 5, lam, 3, reach=lam.sum())
    assert reached.tolist() == three.tolist()
    # just out of reach of the first round's gain: the second round does not start
    gain = one.sum() - lam.sum()
    edge = one.sum() + GAIN_DECAY * gain
    assert ascent_bound(model, 5, lam, 3, reach=edge * (1 + 1e-6)).tolist() == one.tolist()
    assert ascent_bound(model, 5, lam, 3, reach=edge * (1 - 1e-6)).sum() > one.sum()


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.integers(-5, 5), st.integers(1, 4)), min_size=1, max_size=30),
    st.integers(1, 40),
)
def test_the_k_largest_with_copies_match_a_sort(rows, k) -> None:
    vals = np.array([v / 2 for v, _ in rows])
    wts = np.array([w for _, w in rows], dtype=np.intp)
    k = min(k, int(wts.sum()))
    copies = np.sort(np.repeat(vals, wts))[::-1]
    total, theta = _top_k(vals.copy(), wts.copy(), len(rows), k)
    assert total == pytest.approx(copies[:k].sum())
    assert theta == copies[k - 1]


def test_local_recoding_certifies_with_the_ascent_and_bound_rounds_is_checked() -> None:
    """``bound_rounds`` rounds of ascent give the lower bound: more rounds never less, the
    crowds the same; a negative number is refused."""
    rng = np.random.default_rng(9)
    table, schema = random_table(rng, 300, ["hierarchical", "categorical"])
    space = MetricSpace.from_table(table, schema, norm=1)
    fits = [LocalRecoding(k=5, bound_rounds=r).fit(space) for r in (0, 1, 3)]
    bounds = [fit.lower_bound_ for fit in fits]
    assert bounds == sorted(bounds) and bounds[-1] > bounds[0]
    assert all((fit.labels_ == fits[0].labels_).all() for fit in fits)
    assert bounds[-1] <= fits[0].cost_ + 1e-9
    with pytest.raises(ParameterError, match="bound_rounds must be a whole number"):
        LocalRecoding(k=5, bound_rounds=-1).fit(space)
