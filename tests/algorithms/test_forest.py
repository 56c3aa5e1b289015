"""ForestKAnonymity and MuApprox: the paper's examples, the forest and decomposition
invariants, and the ratio to the exact optimum on random tables with random hierarchies."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import incrowd
from incrowd import Categorical, Hierarchical, Hierarchy, MetricSpace, Schema
from incrowd.algorithms.exact import optimum
from incrowd.algorithms.forest import ForestKAnonymity, MuApprox
from incrowd.algorithms.forest._core import (
    Tree,
    decompose,
    forest_trees,
    grow_forest,
    size_limit,
    split_tree,
)
from incrowd.costs import SSE, GeneralizationCost
from incrowd.testing import random_table


def optimal_generalization(model, k, allow_deletion=False):
    """The exact optimal generalization cost (rows deleted at a full row's cost if allowed)."""
    leave = model.row_cost if allow_deletion else 0.0
    return optimum(model, model.n, k, leave_cost=leave)[0]


# ----------------------------------------------------------------------------- paper examples


def test_introduction_table_2_anonymized_as_in_the_paper() -> None:
    """Sec. 1: the 4-record medical table, suppression only, k = 2."""
    table = pd.DataFrame(
        {
            "Age": ["47", "35", "27", "27"],
            "Race": ["White", "White", "Hispanic", "White"],
            "Gender": ["Male", "Female", "Female", "Female"],
            "Zip": ["21004", "21004", "92010", "92010"],
            "Disease": ["Common Cold", "Flu", "Flu", "Hypertension"],
        }
    )
    schema = Schema({c: Categorical() for c in ("Age", "Race", "Gender", "Zip")},
                    sensitive=["Disease"])  # fmt: skip
    release = incrowd.anonymize(table, schema, 2, method="forest", seed=0)
    expected = {
        ("*", "White", "*", "21004", "Common Cold"),
        ("*", "White", "*", "21004", "Flu"),
        ("27", "*", "Female", "92010", "Flu"),
        ("27", "*", "Female", "92010", "Hypertension"),
    }
    got = set(release.table[["Age", "Race", "Gender", "Zip", "Disease"]].itertuples(index=False))
    assert got == expected
    assert release.metadata["cost"] == pytest.approx(6.0)  # 2 rows x 2 stars + 2 x 1
    space = MetricSpace.from_table(table, schema, norm=1)
    model = GeneralizationCost.from_columns(space.columns)
    assert optimal_generalization(model, 2) == pytest.approx(6.0)


def _quality_hierarchy() -> Hierarchy:
    """Fig. 1 of the paper: A+, A, A− | B+, B, B−, two levels of generalization."""
    rows = [[v, "A" if v.startswith("A") else "B", "*"] for v in ("A+", "A", "A-", "B+", "B", "B-")]
    return Hierarchy.from_rows(rows)


def test_quality_hierarchy_costs_h_over_l() -> None:
    table = pd.DataFrame({"Quality": ["A+", "A", "B+", "B"]})
    schema = Schema({"Quality": Hierarchical(_quality_hierarchy())})
    space = MetricSpace.from_table(table, schema, norm=1)
    model = ForestKAnonymity(k=2, loss="height").fit(space)
    # {A+, A} and {B+, B} meet at level 1 of 2: cost 1/2 per entry
    assert model.cost_ == pytest.approx(4 * 0.5)
    assert model.labels_.tolist() == [0, 0, 1, 1]
    release = incrowd.anonymize(table, schema, 2, method="forest", seed=0)
    assert sorted(release.table["Quality"]) == ["A", "A", "B", "B"]
    gm = GeneralizationCost.from_columns(space.columns, loss="height")
    assert gm.pair(0, 1) == pytest.approx(0.5)  # A+ and A meet at level 1
    assert gm.pair(0, 2) == pytest.approx(1.0)  # A+ and B+ meet at the top
    # NCP prices A by the input values under it: A+ and A of the 4 present, 1/3
    assert GeneralizationCost.from_columns(space.columns).pair(0, 1) == pytest.approx(1 / 3)


def test_figure_1_3_five_anonymity_suppresses_all_20_entries() -> None:
    """Clustering paper, Fig. 1.3: no attribute is common to all 5 records."""
    X = np.ones((5, 4), dtype=int)
    for i in range(1, 5):
        X[i, i - 1] = 0
    table = pd.DataFrame(X.astype(str), columns=["a1", "a2", "a3", "a4"])
    schema = Schema({c: Categorical() for c in table.columns})
    release = incrowd.anonymize(table, schema, 5, method="forest", seed=0)
    assert (release.table.to_numpy() == "*").all()
    assert release.metadata["cost"] == pytest.approx(20.0)
    # a clustering release does better: center (1,1,1,1), radius 1, distortion bound 5
    gather = incrowd.RGather(k=5).fit(MetricSpace.from_array(X.astype(float), norm=1))
    assert gather.radius_ == pytest.approx(1.0)
    assert 5 * gather.radius_ < release.metadata["cost"]


# -------------------------------------------------------------------- forest and decomposition


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(3, 60),
    k=st.integers(2, 6),
    seed=st.integers(0, 10_000),
)
def test_forest_invariants(n: int, k: int, seed: int) -> None:
    k = min(k, n)
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, size=(n, 2)).astype(float)  # many ties and copies
    dist, idx = MetricSpace.from_array(X, norm=1).index().neighbours(k - 1)
    head, weight = grow_forest(dist, idx, k)
    # out-degree <= 1 by construction; acyclic: following out-edges ends at a sink
    for u in range(n):
        seen, x = set(), u
        while head[x] >= 0:
            assert x not in seen, "FOREST made a cycle"
            seen.add(x)
            x = int(head[x])
    linked = head >= 0
    # each edge goes to one of the k-1 nearest neighbours, so it costs at most d_{k-1}(u)
    assert np.all(weight[linked] <= dist[linked, k - 2] + 1e-12)
    for u in np.flatnonzero(linked):
        assert head[u] in idx[u]
    trees = forest_trees(head, weight)
    assert sorted(r for t in trees for r in t.records()) == list(range(n))
    assert all(t.size >= k for t in trees)
    assert weight.sum() <= dist[:, k - 2].sum() + 1e-9


def _random_tree(rng: np.random.Generator, n: int) -> tuple[Tree, np.ndarray]:
    pts = rng.normal(size=(n, 2))
    adj: list[dict[int, float]] = [{} for _ in range(n)]
    for v in range(1, n):
        u = int(rng.integers(0, v)) if rng.random() < 0.7 else 0  # some stars (hubs)
        w = float(np.abs(pts[u] - pts[v]).sum())
        adj[u][v] = adj[v][u] = w
    return Tree(list(range(n)), [True] * n, adj), pts


@pytest.mark.parametrize("k", [2, 3, 4, 5, 7])
def test_decomposition_sizes_and_weight(k: int) -> None:
    rng = np.random.default_rng(k)
    for _ in range(40):
        n = int(rng.integers(k, 12 * k))
        tree, pts = _random_tree(rng, n)

        def distance(a: int, b: int, pts: np.ndarray = pts) -> float:
            return float(np.abs(pts[a] - pts[b]).sum())

        for refine in (False, True):
            parts, stuck = decompose([tree], k, distance, refine)
            assert stuck == 0
            records = sorted(r for t in parts for r in t.records())
            assert records == list(range(n)), "every record in exactly one crowd"
            for part in parts:
                assert k <= part.size <= size_limit(k)
                if refine and part.size >= 2 * k:
                    assert split_tree(part, k, distance) is None, "refining stopped early"
                # Steiner nodes connect at least three branches (leaves and paths are pruned)
                for node, real in enumerate(part.real):
                    assert real or len(part.adj[node]) >= 3
                assert part.records() == [r for r, q in zip(part.nodes, part.real, strict=True)
                                          if q]  # fmt: skip
            assert sum(t.weight for t in parts) <= tree.weight + 1e-9


def test_decomposition_around_a_steiner_hub() -> None:
    """A Steiner hub with branches the paper's case analysis cannot split at the hub."""
    k = 3
    # hub 0 (Steiner) with four branches of 2 real records each: 8 real > max(5, 4)
    nodes, real = [0], [False]
    adj: list[dict[int, float]] = [{}]
    for b in range(4):
        a, c = len(nodes), len(nodes) + 1
        nodes += [a, c]
        real += [True, True]
        adj += [{}, {}]
        adj[0][a] = adj[a][0] = 1.0 + b
        adj[a][c] = adj[c][a] = 0.5
    tree = Tree(nodes, real, adj)
    parts, stuck = decompose([tree], k, lambda a, b: 10.0, refine=False)
    assert stuck == 0
    assert sorted(p.size for p in parts) == [4, 4]


# -------------------------------------------------------------------- ratio to the optimum


def test_ratio_to_the_exact_optimum_on_300_random_tables() -> None:
    rng = np.random.default_rng(2024)
    paper, improved = [], []
    for trial in range(300):
        k = int(rng.integers(2, 5))
        n = int(rng.integers(k + 1, 10))
        table, schema = random_table(rng, n)
        space = MetricSpace.from_table(table, schema, norm=1)
        form = "sets" if trial % 3 == 0 else "levels"
        loss = "ncp" if trial % 2 else "height"
        deletion = trial % 5 == 0
        est = ForestKAnonymity(k=k, generalize=form, loss=loss, allow_deletion=deletion)
        est.fit(space)
        model = est.cost(space)
        opt = optimal_generalization(model, k, allow_deletion=deletion)
        tol = 1e-9 * max(1.0, opt)
        limit = size_limit(k)
        assert est.n_stuck_ == 0
        assert est.approximation_ratio_ == limit
        assert est.forest_weight_ <= est.lower_bound_ + tol
        assert est.lower_bound_ <= opt + tol, "lower bound above the optimum"
        assert est.paper_cost_ <= limit * opt + tol, "Theorem 5 violated"
        assert opt - tol <= est.cost_ <= est.paper_cost_ + tol
        sizes = est.paper_partition_.sizes
        assert sizes.min() >= k
        for crowd in np.flatnonzero(sizes > limit):  # only copies of one record are kept whole
            assert model.merge_price(np.flatnonzero(est.paper_partition_.labels == crowd)) == 0
        assert est.partition_.min_size >= k or est.partition_.n_clusters == 0
        assert est.cost_ == pytest.approx(model.of(est.labels_))
        if not deletion:
            assert est.n_deleted_ == 0
        paper.append(est.paper_cost_ / opt if opt > 0 else 1.0)
        improved.append(est.cost_ / opt if opt > 0 else 1.0)
    # the analysis allows up to 10x at k = 4; in practice it is far closer
    assert np.median(improved) <= np.median(paper) <= 1.5


# ------------------------------------------------------------------------ weights, deletion


def test_weights_decide_which_attribute_is_kept() -> None:
    table = pd.DataFrame({"a": ["0", "0", "1", "1"], "b": ["0", "1", "0", "1"]})
    schema = Schema({"a": Categorical(), "b": Categorical()})
    space = MetricSpace.from_table(table, schema, norm=1)
    keep_a = ForestKAnonymity(k=2, weights={"a": 10.0}).fit(space)
    keep_b = ForestKAnonymity(k=2, weights={"b": 10.0}).fit(space)
    assert keep_a.labels_.tolist() == [0, 0, 1, 1]
    assert keep_b.labels_.tolist() == [0, 1, 0, 1]
    assert keep_a.cost_ == pytest.approx(4.0)  # b suppressed in 4 rows at weight 1
    with pytest.raises(incrowd.ParameterError, match="unknown quasi-identifier"):
        ForestKAnonymity(k=2, weights={"zzz": 1.0}).fit(space)


def test_deleting_an_outlier_row_is_reported() -> None:
    table = pd.DataFrame([["0"] * 4] * 4 + [["1"] * 4], columns=list("abcd"))
    schema = Schema({c: Categorical() for c in "abcd"})
    kept = ForestKAnonymity(k=2).fit(MetricSpace.from_table(table, schema, norm=1))
    assert kept.n_deleted_ == 0 and kept.cost_ == pytest.approx(8.0)
    release = incrowd.anonymize(
        table, schema, 2, method="forest", params={"allow_deletion": True}, seed=0
    )
    meta = release.metadata
    assert meta["n_suppressed"] == 1 and meta["n_released"] == 4
    assert len(release.table) == 4 and meta["cost"] == pytest.approx(4.0)
    assert incrowd.verify(release.table, schema.qi_names, 2, metadata=meta).ok


# ---------------------------------------------------------------------------- releases


@pytest.mark.parametrize("form", ["levels", "sets"])
def test_generalized_release_forms_verify_and_measure(form: str) -> None:
    rng = np.random.default_rng(7)
    table, schema = random_table(rng, 200)
    release = incrowd.anonymize(table, schema, 4, method="forest", generalize=form, seed=3)
    meta = release.metadata
    assert meta["generalize"] == form
    assert incrowd.verify(release.table, schema.qi_names, 4, metadata=meta).ok
    measured = incrowd.measures.loss.evaluate_release(table, release.table, schema, meta)
    assert measured["ncp"] == pytest.approx(meta["loss"]["ncp"])
    if form == "sets":
        # with unit weights the cost is the NCP summed over cells
        unit = Schema({n: type(m)(**{**m.__dict__, "weight": 1.0})
                       for n, m in schema.quasi_identifiers.items()})  # fmt: skip
        r2 = incrowd.anonymize(table, unit, 4, method="forest", generalize="sets", seed=3)
        ncp = r2.metadata["loss"]["ncp"]
        assert r2.metadata["cost"] == pytest.approx(ncp * len(table) * len(schema.qi_names))


def test_value_sets_need_a_generalized_release() -> None:
    table, schema = incrowd.make_microdata(20, 2, random_state=0)
    with pytest.raises(incrowd.ParameterError, match="value sets"):
        incrowd.anonymize(table, schema, 3, release="microaggregated", generalize="sets")


# ------------------------------------------------------------------------------- MuApprox


def test_mu_approx_bounds_against_the_exact_sse() -> None:
    rng = np.random.default_rng(5)
    ratios = []
    for _ in range(60):
        k = int(rng.integers(2, 4))
        n = int(rng.integers(k + 1, 11))
        X = rng.normal(size=(n, 3))
        est = MuApprox(k=k).fit(X)
        opt = optimum(SSE.on(MetricSpace.from_array(X)), n, k)[0]
        assert est.lower_bound_ <= opt + 1e-9
        assert opt - 1e-9 <= est.cost_ <= est.approximation_ratio_ * opt + 1e-9
        sizes = est.partition_.sizes
        assert sizes.min() >= k and sizes.max() <= size_limit(k)
        ratios.append(est.cost_ / opt)
    assert np.median(ratios) < 1.5


def test_crowd_cost_matches_pair_cost_and_its_geometry() -> None:
    from scipy.spatial import cKDTree

    rng = np.random.default_rng(11)
    table, schema = random_table(rng, 30)
    space = MetricSpace.from_table(table, schema, norm=1)
    for form, loss in (("levels", "height"), ("levels", "ncp"), ("sets", "height")):
        model = GeneralizationCost.from_columns(space.columns, form, loss=loss)
        emb = model.geometry.dense()
        for a, b in rng.integers(0, 30, size=(40, 2)):
            pair = model.pair(int(a), int(b))
            assert pair == pytest.approx(np.abs(emb[a] - emb[b]).sum())
            assert model.geometry.distance(np.array([a]), np.array([b]))[0] == pytest.approx(pair)
            assert model.crowd(np.array([a, b])) == pytest.approx(2 * pair)
        # the space's index (a compiled scan here) and a KD-tree on the dense embedding
        # find the same distances
        scan_d, scan_i = space.index(model.geometry).neighbours(5)
        tree_d, _ = cKDTree(emb).query(emb, k=6, p=1)
        np.testing.assert_allclose(np.sort(scan_d, axis=1), tree_d[:, 1:], atol=1e-12)
        for u in range(30):
            for d, v in zip(scan_d[u], scan_i[u], strict=True):
                assert v != u and d == pytest.approx(model.pair(u, int(v)))
