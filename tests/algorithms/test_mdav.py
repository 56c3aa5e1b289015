import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from incrowd import (
    MDAV,
    Categorical,
    Hierarchical,
    InfeasibleError,
    MetricSpace,
    Numeric,
    ParameterError,
    Partition,
    Schema,
)
from incrowd.algorithms.mdav._kernel import KERNELS, State
from incrowd.costs import SSE
from incrowd.costs import l_sse as l_sse_of
from incrowd.datasets import casc_matrix
from incrowd.testing import random_hierarchy


def l_sse(X, labels):
    return l_sse_of(SSE.on(MetricSpace.from_array(X)), labels)


# Independent reference values of ../shared/datasets/README.md: SSE on data standardized to
# zero mean and unit population variance.
REFERENCE = {
    ("tarragona", 2): (1011.4138, 1005.5945),
    ("tarragona", 3): (1835.8312, 1839.4611),
    ("tarragona", 5): (2435.3148, 2473.9939),
    ("tarragona", 10): (3598.7726, 3601.2120),
    ("census", 2): (446.2076, 444.3914),
    ("census", 3): (799.1830, 793.7597),
    ("census", 5): (1276.0163, 1247.3173),
    ("census", 10): (1987.4926, 1966.5217),
    ("eia", 2): (140.7115, 140.3424),
    ("eia", 3): (217.3804, 215.1094),
    ("eia", 5): (750.2038, 783.0259),
    ("eia", 10): (1728.3124, 1580.8010),
}


def standardized(datasets, name):
    return casc_matrix(datasets, name)


@pytest.mark.parametrize(("name", "k"), sorted(REFERENCE))
def test_reproduces_reference_sse(datasets, name, k):
    X = standardized(datasets, name)
    classic, single = REFERENCE[name, k]
    for variant, expected in (("classic", classic), ("single", single)):
        model = MDAV(k=k, variant=variant).fit(X)
        assert model.cost_ == pytest.approx(expected, rel=5e-5), variant  # 4 significant digits
        assert model.partition_.min_size >= k


def test_published_l_sse(datasets):
    # Published MDAV figures: Tarragona k=2 L_SSE 9.27499 (single), Census k=3 5.69, EIA k=3 0.48
    X = standardized(datasets, "tarragona")
    assert l_sse(X, MDAV(k=2, variant="single").fit(X).labels_) == pytest.approx(9.27499, abs=1e-5)
    X = standardized(datasets, "census")
    assert round(l_sse(X, MDAV(k=3).fit(X).labels_), 2) == 5.69
    X = standardized(datasets, "eia")
    assert round(l_sse(X, MDAV(k=3).fit(X).labels_), 2) == 0.48


def reference_mdav(X: np.ndarray, k: int, single: bool) -> Partition:
    """A plain numpy MDAV written from the description, for cross-checking the compiled one."""
    remaining = list(range(len(X)))
    groups = []

    def sq(a, idx):
        return ((X[idx] - a) ** 2).sum(axis=1)

    def farthest(a, idx):
        d = sq(a, idx)
        return idx[int(np.flatnonzero(d == d.max())[0])]  # lowest index among ties

    def group_around(r):
        others = [i for i in remaining if i != r]
        d = sq(X[r], others)
        order = sorted(range(len(others)), key=lambda t: (d[t], others[t]))
        grp = [r] + [others[t] for t in order[: k - 1]]
        for i in grp:
            remaining.remove(i)
        groups.append(grp)

    while len(remaining) >= (2 * k if single else 3 * k):
        idx = np.array(remaining)
        r = farthest(X[idx].mean(axis=0), idx)
        if single:
            group_around(r)
            continue
        s = farthest(X[r], idx)
        group_around(r)
        if s not in remaining:
            s = farthest(X[r], np.array(remaining))
        group_around(s)
    if not single and len(remaining) >= 2 * k:
        idx = np.array(remaining)
        group_around(farthest(X[idx].mean(axis=0), idx))
    groups.append(list(remaining))
    return Partition.from_groups(groups, len(X))


@given(
    arrays(np.int8, st.tuples(st.integers(4, 60), st.integers(1, 3)), elements=st.integers(-3, 3)),
    st.integers(2, 4),
    st.booleans(),
)
def test_matches_plain_reference_including_ties(X, k, single):
    X = X.astype(float)
    if len(X) < k:
        return
    got = MDAV(k=k, variant="single" if single else "classic").fit(X).partition_
    want = reference_mdav(X, k, single)
    assert got == want
    assert got.min_size >= k and got.sizes.max() <= 2 * k - 1


def run_kernel(geometry, k, parallel, chunks, single=False):
    """MDAV by one variant of the compiled loop, in epochs as the driver runs it."""
    state = State(geometry.numeric, geometry.codes, geometry.entries, geometry.offsets)
    coded = geometry.codes.shape[1] > 0
    while True:
        before = state.m
        state.m, state.g = KERNELS[parallel, coded]["steps"](
            *state.arrays(), state.m, state.g, k, single, 50, chunks
        )
        if state.m == before:
            break
    KERNELS[False, coded]["finish"](*state.arrays(), state.m, state.g, k, single)
    return Partition(state.labels)


@pytest.mark.parametrize("coded", [False, True])
def test_serial_and_parallel_passes_agree(coded):
    """Passes split into chunks on threads give the same crowds as one serial pass, with
    ties everywhere (the tie rule is applied when chunks are merged)."""
    rng = np.random.default_rng(0)
    if coded:
        table = pd.DataFrame({"a": rng.integers(0, 5, 6000), "b": rng.integers(0, 30, 6000)})
        schema = Schema({"a": Categorical(), "b": Categorical(weight=0.5)})
        geometry = MetricSpace.from_table(table.astype(str), schema).geometry
    else:
        geometry = MetricSpace.from_array(np.round(rng.normal(size=(9000, 3)), 1)).geometry
    one = run_kernel(geometry, 3, False, 1)
    assert run_kernel(geometry, 3, True, 2) == one
    assert run_kernel(geometry, 3, True, 3) == one


@given(st.integers(0, 10_000), st.integers(2, 4), st.booleans())
def test_codes_give_the_crowds_of_the_dense_one_hot_embedding(seed, k, single):
    """MDAV on codes (categorical and hierarchical attributes as counts) forms the crowds
    that MDAV on the dense one-hot matrix forms, with SSE equal to the dense SSE. (A small
    continuous attribute breaks exact ties, which the two arithmetics may round apart.)"""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2 * k, 40))
    hierarchy = random_hierarchy(rng, 5, 3)
    table = pd.DataFrame(
        {
            "c": [f"c{v}" for v in rng.integers(0, 3, n)],
            "h": [f"v{v}" for v in rng.integers(0, 5, n)],
            "x": rng.random(n),
        }
    )
    schema = Schema({"c": Categorical(), "h": Hierarchical(hierarchy), "x": Numeric(weight=0.1)})
    space = MetricSpace.from_table(table, schema)
    got = MDAV(k=k, variant="single" if single else "classic").fit(space)
    dense = space.points
    want = reference_mdav(dense, k, single)
    sse = sum(((dense[g] - dense[g].mean(axis=0)) ** 2).sum() for g in want.groups())
    assert got.cost_ == pytest.approx(sse, abs=1e-9)
    assert got.partition_ == want


def test_sklearn_style_use_and_contract():
    X = np.array([[0.0], [0.1], [0.2], [5.0], [5.1], [5.2], [5.3]])
    model = MDAV(k=3)
    assert model.get_params() == {"k": 3, "variant": "classic"}
    assert model.fit(X) is model
    assert model.labels_.tolist() == [0, 0, 0, 1, 1, 1, 1]
    assert model.fit_predict(X).tolist() == model.labels_.tolist()
    assert model.lower_bound_ is None and model.certified_ratio_ is None
    assert model.guarantee.ratio is None and not model.guarantee.proven
    assert model.cost_ == pytest.approx(SSE.on(MetricSpace.from_array(X)).of(model.labels_))
    assert MDAV(k=3).fit(MetricSpace.from_array(X)).partition_ == model.partition_


@pytest.mark.parametrize(
    ("params", "error"),
    [
        ({"k": 1}, ParameterError),
        ({"k": 2.5}, ParameterError),
        ({"k": 9}, InfeasibleError),
        ({"k": 2, "variant": "double"}, ParameterError),
    ],
)
def test_bad_parameters(params, error):
    with pytest.raises(error):
        MDAV(**params).fit(np.zeros((4, 2)))


def test_a_dominant_value_leaves_no_record_out():
    """Distances to the centroid are computed less a constant, so they can be negative
    (a value held by most records); every record must still be placed."""
    table = pd.DataFrame({"c": ["a"] * 70 + ["b"] * 20 + ["c"] * 10})
    space = MetricSpace.from_table(table, Schema({"c": Categorical(weight=3.0)}))
    for variant in ("classic", "single"):
        part = MDAV(k=4, variant=variant).fit(space).partition_
        assert part.n_suppressed == 0 and part.min_size >= 4


def test_the_chooser_leaves_threads_that_do_not_pay():
    """On a loaded machine parallel epochs measure slower: MDAV then runs serial epochs and
    times the parallel variant again only rarely (after 8, 16, 32, ... epochs)."""
    from incrowd.algorithms.mdav import _Chooser

    chooser = _Chooser(n_threads=2)
    timeline = []
    for _ in range(200):
        parallel = chooser.next(m=100_000)
        timeline.append(parallel)
        chooser.record(parallel, 3e-9 if parallel else 1e-9)  # parallel 3x slower
    assert sum(timeline[-100:]) <= 3  # almost only serial once it knows
    probes = [i for i, p in enumerate(timeline) if p and i > 5]
    gaps = np.diff(probes)
    assert np.all(gaps[1:] >= gaps[:-1])  # the probes thin out
    # an idle machine: parallel faster, and it stays parallel
    chooser = _Chooser(n_threads=2)
    timeline = []
    for _ in range(100):
        parallel = chooser.next(m=100_000)
        timeline.append(parallel)
        chooser.record(parallel, 1e-9 if parallel else 2e-9)
    assert sum(timeline) >= 90
    assert not _Chooser(n_threads=1).next(m=100_000)  # one thread: serial
    assert not _Chooser(n_threads=2).next(m=100)  # short passes: serial
