import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from incrowd import MDAV, InfeasibleError, MetricSpace, ParameterError, Partition
from incrowd.datasets import casc_matrix
from incrowd.metrics import l_sse, sse_loss

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


def test_large_input_uses_all_chunks_consistently():
    # Above 4096 rows the passes are split per thread; the result must not change with that.
    rng = np.random.default_rng(0)
    X = np.round(rng.normal(size=(9000, 3)), 1)  # many exact ties
    import numba

    from incrowd.algorithms._mdav_kernel import mdav_labels

    one = mdav_labels(X, 3, False, 1)
    many = mdav_labels(X, 3, False, numba.get_num_threads())
    assert Partition(one) == Partition(many)


def test_sklearn_style_use_and_contract():
    X = np.array([[0.0], [0.1], [0.2], [5.0], [5.1], [5.2], [5.3]])
    model = MDAV(k=3)
    assert model.get_params() == {"k": 3, "variant": "classic"}
    assert model.fit(X) is model
    assert model.labels_.tolist() == [0, 0, 0, 1, 1, 1, 1]
    assert model.fit_predict(X).tolist() == model.labels_.tolist()
    assert model.lower_bound_ is None and model.certified_ratio_ is None
    assert model.guarantee.factor is None
    assert model.cost_ == pytest.approx(sse_loss(X, model.labels_))
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
