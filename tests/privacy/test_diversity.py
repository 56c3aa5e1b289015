"""l-diversity and t-closeness: the definitions on hand-made classes (checked against a
separate reading of pycanon's definitions), the constraint on random tables for several
methods, the certificate against the exact constrained optimum, and clear errors."""

from __future__ import annotations

import json
import math
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from incrowd import Categorical, Numeric, Schema, anonymize, verify
from incrowd.algorithms.exact import solve
from incrowd.cli.app import run
from incrowd.errors import InfeasibleError, ParameterError
from incrowd.privacy.models import (
    Diversity,
    class_measures,
    published_counts,
    published_figures,
    satisfied,
    sensitive_codes,
)
from incrowd.space.metric_space import MetricSpace


def independent(values: list[object], whole: list[object], ordered: bool) -> dict[str, float]:
    """The definitions written out again, straight from the text (pycanon's)."""
    counts = pd.Series(values).value_counts()
    p = counts / counts.sum()
    entropy = -sum(x * math.log(x) for x in p)
    domain = sorted(set(whole))
    q = pd.Series(whole).value_counts() / len(whole)
    pp = [float(p.get(v, 0.0)) for v in domain]
    qq = [float(q.get(v, 0.0)) for v in domain]
    if ordered:
        running, total = 0.0, 0.0
        for a, b in zip(pp, qq, strict=True):
            running += a - b
            total += abs(running)
        t = total / (len(domain) - 1)
    else:
        t = 0.5 * sum(abs(a - b) for a, b in zip(pp, qq, strict=True))
    return {"distinct": len(counts), "entropy_l": math.exp(entropy), "t": t}


def table_of(classes: list[list[object]]) -> np.ndarray:
    domain = sorted({v for c in classes for v in c})
    return np.array([[c.count(v) for v in domain] for c in classes])


def test_definitions_on_hand_made_classes():
    classes = [[1, 1, 1], [1, 2, 3], [2, 2, 3, 3]]
    whole = [v for c in classes for v in c]
    for ordered in (False, True):
        found = class_measures(table_of(classes), ordered)
        for i, c in enumerate(classes):
            expected = independent(c, whole, ordered)
            assert found["distinct"][i] == expected["distinct"]
            assert found["entropy_l"][i] == pytest.approx(expected["entropy_l"])
            assert found["t"][i] == pytest.approx(expected["t"])
    # the textbook case: p = (1, 0, 0) against a uniform q over three ordered values
    assert class_measures(np.array([[3, 0, 0], [0, 3, 0], [0, 0, 3]]), True)["t"][0] == (
        pytest.approx(0.5)
    )


def test_recursive_diversity():
    spec = Diversity(l=2, l_kind="recursive", c=2)
    # r1 < c (r2 + ...): 3 < 2 * 2 holds; 5 < 2 * 2 does not
    assert satisfied(np.array([[3, 2], [5, 2]]), spec, numeric=False).tolist() == [True, False]


SPECS = [Diversity(l=2), Diversity(l=1.4, l_kind="entropy"), Diversity(t=0.45)]


def _patients(seed: int) -> tuple[int, pd.DataFrame, Schema]:
    """A random table of 20–80 patients: age and sex, and a disease of skewed frequency."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 80))
    table = pd.DataFrame({
        "age": rng.integers(20, 70, n), "sex": rng.choice(["f", "m"], n),
        "disease": rng.choice(["flu", "cold", "asthma"], n, p=[0.6, 0.3, 0.1]),
    })  # fmt: skip
    return n, table, Schema({"age": Numeric(), "sex": Categorical()}, sensitive=["disease"])


@pytest.mark.parametrize(("seed", "method"), [(59, "mdav"), (107, "forest"), (119, "forest")])
def test_the_repairs_end(seed, method):
    # these tables made moves of records that did not repair their class cycle for ever
    n, table, schema = _patients(seed)
    spec = Diversity(l=1.4, l_kind="entropy")
    pool = ThreadPoolExecutor(1)  # a repair loop that never ends fails the test
    try:
        job = pool.submit(anonymize, table, schema, 3, method=method, seed=seed, diversity=spec)
        release = job.result(timeout=60)
    finally:
        pool.shutdown(wait=False)
    report = verify(release.table, ["age", "sex"], 3, diversity=spec, sensitive=["disease"])
    assert report.ok, report.problems


@settings(max_examples=30)
@given(st.integers(0, 10_000), st.sampled_from(["forest", "mdav", "r-gather", "local-recoding"]),
       st.sampled_from(SPECS))  # fmt: skip
def test_every_crowd_holds_the_constraint(seed, method, spec):
    n, table, schema = _patients(seed)
    try:
        release = anonymize(table, schema, 3, method=method, seed=seed, diversity=spec)
    except InfeasibleError:
        everyone = satisfied(table_of([list(table["disease"])]), spec, numeric=False)
        assert not everyone[0]  # refused only when the whole table fails
        return
    meta = release.metadata
    assert meta["n_released"] + meta["n_suppressed"] == n
    report = verify(release.table, ["age", "sex"], 3, diversity=spec, sensitive=["disease"])
    assert report.ok, report.problems
    assert meta["diversity"]["merges"] >= 0
    if meta["diversity"]["merges"]:
        assert meta["approximation_ratio"] is None
        if meta["lower_bound"]:
            assert meta["certified_ratio"] == pytest.approx(meta["cost"] / meta["lower_bound"])


@pytest.mark.parametrize("seed", range(12))
def test_certificate_bounds_the_constrained_optimum(seed):
    rng = np.random.default_rng(seed)
    n = 8
    table = pd.DataFrame({
        "x": rng.integers(0, 10, n), "y": rng.integers(0, 10, n),
        "s": rng.choice(["a", "b"], n),
    })  # fmt: skip
    if table["s"].nunique() < 2:
        table.loc[0, "s"] = "b" if table.loc[1, "s"] == "a" else "a"
    schema = Schema({"x": Numeric(), "y": Numeric()}, sensitive=["s"])
    release = anonymize(table, schema, 2, method="forest", seed=0, diversity=Diversity(l=2))
    meta = release.metadata
    space = MetricSpace.from_table(table, schema, norm=1)
    from incrowd import ForestKAnonymity

    cost = ForestKAnonymity(k=2).cost(space)
    codes = pd.factorize(table["s"])[0]
    costs = np.full(1 << n, np.inf)
    bits = np.arange(n)
    for s in range(1, 1 << n):
        members = bits[(s >> bits) & 1 == 1]
        if members.size >= 2 and np.unique(codes[members]).size >= 2:
            costs[s] = cost.crowd(members)
    opt, _ = solve(costs, n, 1, "sum")
    assert meta["lower_bound"] <= opt + 1e-9 <= meta["cost"] + 2e-9


def test_bad_requests_are_clear_errors():
    table = pd.DataFrame({"age": range(10), "s": ["a"] * 10})
    schema = Schema({"age": Numeric()}, sensitive=["s"])
    with pytest.raises(InfeasibleError, match="cannot be met"):
        anonymize(table, schema, 2, diversity=Diversity(l=2))
    with pytest.raises(ParameterError, match="sensitive"):
        anonymize(table, Schema({"age": Numeric()}), 2, diversity=Diversity(l=2))
    with pytest.raises(ParameterError, match="whole l"):
        Diversity(l=2.5)
    with pytest.raises(ParameterError, match="t must be"):
        Diversity(t=1.5)


def test_verify_finds_a_class_without_diversity(tmp_path):
    published = pd.DataFrame(
        {"age": ["1-3"] * 3 + ["4-6"] * 3, "s": ["a", "b", "a", "a", "a", "a"]}
    )
    report = verify(published, ["age"], 3, diversity=Diversity(l=2), sensitive=["s"])
    assert not report.ok and "1 class(es) break" in report.problems[0]
    path = tmp_path / "rel.csv"
    published.to_csv(path, index=False)
    assert run(["verify", str(path), "--qi", "age", "--k", "3", "--sensitive", "s"]) == 0
    assert run(["verify", str(path), "--qi", "age", "--k", "3", "--sensitive", "s",
                "--l", "2"]) == 1  # fmt: skip


def test_cli_anonymize_with_l_and_t(tmp_path):
    rng = np.random.default_rng(0)
    table = pd.DataFrame({"age": rng.integers(20, 70, 300), "sex": rng.choice(["f", "m"], 300),
                          "s": rng.choice(["a", "b", "c"], 300)})  # fmt: skip
    source, out = tmp_path / "t.csv", tmp_path / "r.csv"
    table.to_csv(source, index=False)
    args = ["anonymize", str(source), "--qi", "age,sex", "--sensitive", "s", "--k", "4",
            "--l", "2", "--t", "0.4", "--method", "mdav", "--out", str(out), "--quiet"]  # fmt: skip
    assert run(args) == 0
    assert run(["verify", str(out), "--qi", "age,sex", "--k", "4", "--l", "2", "--t", "0.4"]) == 0
    assert run([*args[:-3], "--l-kind", "sideways", "--out", str(tmp_path / "x.csv")]) == 2


# issue 57, item 1: a missing sensitive value is one more value (as in ARX), whichever way it
# is missing: NaN, None, pandas' NA, an empty or blank cell, or the published "(missing)"
GAPS = [np.nan, None, pd.NA, "", "  ", "(missing)"]


def test_sensitive_codes_count_every_missing_cell_as_one_value():
    values = pd.Series(["flu", *GAPS, "cold", "flu"], dtype=object)
    codes, numeric = sensitive_codes(values)
    assert not numeric
    assert len(set(codes[1:7].tolist())) == 1  # every gap: one value
    assert len(set(codes.tolist())) == 3 and codes[0] == codes[-1] != codes[-2]


@pytest.mark.parametrize("dtype", ["float64", "Int64", "object"])
def test_numbers_with_missing_cells_stay_numbers_and_the_missing_value_sorts_last(dtype):
    values = pd.Series([3, None, 1, 3, 2], dtype=dtype)
    codes, numeric = sensitive_codes(values)
    assert numeric and codes.tolist() == [2, 3, 0, 2, 1]


def _with_gaps(cells: list[object]) -> pd.DataFrame:
    """Three published classes of three; ``cells`` are the sensitive values in class order."""
    return pd.DataFrame({"age": ["1-3"] * 3 + ["4-6"] * 3 + ["7-9"] * 3, "s": cells})


@pytest.mark.parametrize("gap", GAPS, ids=repr)
def test_l_diversity_t_closeness_and_homogeneity_count_a_missing_value(gap):
    cells = ["a", gap, "a", gap, np.nan, None, "a", "b", ""]
    published = _with_gaps(cells)
    spec = Diversity(l=2)
    f = published_figures(published, ["age"], ["s"], centers=False, spec=spec)["s"]
    # the class 4-6 holds only missing values: homogeneous, one distinct value, not 2-diverse
    assert f["distinct_l"] == 1 and f["classes_failing"] == 1
    assert (f["homogeneous_classes"], f["homogeneous_records"]) == (1, 3)
    # the figures of the definitions, with a missing value spelled as one label
    spelled = ["(missing)" if pd.isna(v) or str(v).strip() in ("", "(missing)") else v
               for v in cells]  # fmt: skip
    expected = [independent(spelled[i : i + 3], spelled, ordered=False) for i in (0, 3, 6)]
    assert f["entropy_l"] == pytest.approx(min(e["entropy_l"] for e in expected))
    assert f["t_equal"] == pytest.approx(max(e["t"] for e in expected))
    report = verify(published, ["age"], 3, diversity=spec, sensitive=["s"])
    assert not report.ok and "1 class(es) break" in report.problems[0]
    fixed = _with_gaps(["a", gap, "a", gap, "b", None, "a", "b", ""])
    assert verify(fixed, ["age"], 3, diversity=spec, sensitive=["s"]).ok


def test_entropy_recursive_and_ordered_t_count_a_missing_value():
    cells = [1.0, np.nan, 1.0, np.nan, np.nan, 2.0, 3.0, 2.0, np.nan]
    published = _with_gaps(cells)
    counts, numeric = published_counts(published, ["age"], "s", centers=False)
    assert numeric and counts.tolist() == [[2, 0, 0, 1], [0, 1, 0, 2], [0, 1, 1, 1]]
    spelled = [math.inf if math.isnan(v) else v for v in cells]  # missing: after the numbers
    ordered = class_measures(counts, ordered=True)
    for i in range(3):
        assert ordered["t"][i] == pytest.approx(
            independent(spelled[3 * i : 3 * i + 3], spelled, ordered=True)["t"]
        )
    assert satisfied(counts, Diversity(l=2, l_kind="entropy"), numeric).tolist() == [
        False, False, True]  # fmt: skip
    assert satisfied(counts, Diversity(l=2, l_kind="recursive", c=3), numeric).tolist() == [
        True, True, True]  # fmt: skip


@pytest.mark.parametrize("release", ["microaggregated", "centers"])
def test_other_release_forms_publish_and_count_a_missing_sensitive_value(release):
    rng = np.random.default_rng(2)
    table = pd.DataFrame({"age": rng.integers(20, 70, 90), "s": rng.choice(["a", "b"], 90)})
    table["s"] = table["s"].astype(object).where(rng.random(90) > 0.2, None)
    schema = Schema({"age": Numeric()}, sensitive=["s"])
    out = anonymize(table, schema, 5, method="mdav", release=release, seed=0,
                    diversity=Diversity(l=3))  # fmt: skip
    cells = out.table["s"]
    if release == "centers":  # every crowd's multiset holds the three values, gaps included
        multisets = cells.map(json.loads)
        assert all(set(m) == {"a", "b", "(missing)"} for m in multisets)
        assert sum(m["(missing)"] for m in multisets) == table["s"].isna().sum()
    else:
        assert (cells == "(missing)").sum() == table["s"].isna().sum() and cells.notna().all()
    assert verify(out, ["age"], 5).ok  # the recorded l = 3, a gap one of the three


def test_verify_checks_the_l_the_metadata_records_unless_told_otherwise():
    # issue 57, item 9: a release made 2-diverse is checked for it without being asked
    rng = np.random.default_rng(5)
    table = pd.DataFrame({"age": rng.integers(20, 70, 60), "s": rng.choice(["a", "b"], 60)})
    schema = Schema({"age": Numeric()}, sensitive=["s"])
    made = anonymize(table, schema, 3, method="mdav", release="microaggregated", seed=0,
                     diversity=Diversity(l=2))  # fmt: skip
    assert verify(made, ["age"], 3).diversity == Diversity(l=2.0)
    broken = made.table.copy()
    broken.loc[broken["age"] == broken["age"].iloc[0], "s"] = "a"  # one crowd made homogeneous
    found = verify(broken, ["age"], 3, metadata=made.metadata)
    assert not found.ok and "1 class(es) break {'l': 2" in found.problems[0]
    assert verify(broken, ["age"], 3, metadata=made.metadata, diversity=Diversity()).ok
