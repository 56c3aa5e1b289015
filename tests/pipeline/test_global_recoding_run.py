"""Global recoding through the pipeline and the command line: consistent categories, a
suppression limit, suppressed records as rows of ``*``, and the follow-up commands."""

from __future__ import annotations

import dataclasses
import json
import warnings

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from incrowd import Diversity, IncrowdWarning, anonymize, verify
from incrowd.algorithms import ForestKAnonymity, GlobalRecoding
from incrowd.cli.app import app
from incrowd.datasets import adult_hierarchy_path, load_adult
from incrowd.errors import InfeasibleError, ParameterError
from incrowd.pipeline.full_domain import diversity_check, suppressed_form
from incrowd.pipeline.settings import Settings
from incrowd.privacy.models import class_counts, satisfied


@pytest.fixture(scope="module")
def adult_sample():
    data, schema = load_adult(age="hierarchy")
    return data.sample(3000, random_state=1).reset_index(drop=True), schema


def test_every_kept_record_is_published_at_the_node_and_the_rest_as_stars(adult_sample):
    data, schema = adult_sample
    release = anonymize(data, schema, 5, method="global-recoding", suppression_limit=0.05,
                        seed=1)  # fmt: skip
    meta = release.metadata
    table = release.table
    assert len(table) == len(data)  # no record lost: the suppressed are rows of *
    stars = (table[list(schema.qi_names)] == "*").all(axis=1)
    assert int(stars.sum()) == meta.n_suppressed <= int(0.05 * len(data))
    assert meta.suppressed_rows == "star" and meta.levels is not None
    # one set of categories per attribute: every kept cell is a label of the node's level
    for name in schema.qi_names:
        hierarchy = schema.quasi_identifiers[name].hierarchy
        allowed = set(hierarchy.labels[meta.levels[name]])
        assert set(table.loc[~stars, name]) <= allowed, name
        counted = dict(meta.categories[name])
        assert counted == table.loc[~stars, name].value_counts().to_dict()
    assert verify(table, schema.qi_names, 5, metadata=meta).ok
    assert meta.certificate["optimal"]


def test_a_number_without_a_hierarchy_gets_intervals_with_a_warning():
    rng = np.random.default_rng(0)
    table = pd.DataFrame({"age": rng.integers(18, 90, 400), "sex": rng.choice(["f", "m"], 400)})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        release = anonymize(table, qi=["age", "sex"], k=5, method="global-recoding", seed=0)
    lines = [str(w.message) for w in caught if issubclass(w.category, IncrowdWarning)]
    assert any("'age'" in line and "intervals:" in line for line in lines), lines
    # 72 ages x 2 sexes in 400 rows: exact ages cannot make classes of 5, so bands do
    assert release.metadata.levels["age"] >= 1
    ages = release.table["age"].astype(str)
    banded = ages[ages != "*"]  # with only value-or-*, every age would be *
    assert len(banded) and banded.str.fullmatch(r"\d+-\d+").all(), ages.unique()


def test_l_and_t_are_constraints_of_the_search(adult_sample):
    data, schema = adult_sample
    for spec in (Diversity(l=2), Diversity(t=0.3)):
        release = anonymize(data, schema, 5, method="global-recoding", suppression_limit=0.1,
                            diversity=spec, seed=1)  # fmt: skip
        report = verify(release.table, schema.qi_names, 5, metadata=release.metadata,
                        diversity=spec, sensitive=schema.sensitive)  # fmt: skip
        assert report.ok, report.problems
        assert release.metadata.levels is not None


def test_suppressed_records_can_be_left_out(adult_sample):
    data, schema = adult_sample
    release = anonymize(data, schema, 5, method="global-recoding", suppressed="drop", seed=1)
    assert len(release.table) == len(data) - release.metadata.n_suppressed
    assert not (release.table[list(schema.qi_names)] == "*").all(axis=1).any()


def test_settings_that_do_not_apply_are_refused(adult_sample):
    data, schema = adult_sample
    with pytest.raises(ParameterError, match="publishes hierarchy levels"):
        anonymize(data, schema, 5, method="global-recoding", release="microaggregated")
    star = Settings(suppressed="star")
    with pytest.raises(InfeasibleError, match="fewer than k"):  # rows of * below k
        suppressed_form(star, ForestKAnonymity, n_suppressed=2, k=5)
    assert suppressed_form(star, ForestKAnonymity, n_suppressed=5, k=5) == "star"
    assert suppressed_form(Settings(), ForestKAnonymity, n_suppressed=2, k=5) == "drop"
    assert suppressed_form(Settings(), GlobalRecoding) == "star"
    with pytest.raises(ParameterError, match="suppression_limit applies"):
        anonymize(data, schema, 5, method="r-gather", release="centers", suppression_limit=0.05)
    with pytest.raises(ParameterError, match="blockwise"):
        from incrowd.distributed import anonymize_blocks

        anonymize_blocks(data, schema, 5, method="global-recoding", scheduler="sync")


def test_the_command_line_runs_it_and_verify_reads_the_stars(tmp_path, adult_sample):
    data, _ = adult_sample
    source = tmp_path / "adult.csv"
    data.to_csv(source, index=False)
    qis = ["age", "sex", "race", "marital-status", "education"]
    flags = [f"--hierarchy={q}={adult_hierarchy_path(q)}" for q in qis]
    runner = CliRunner()
    out = tmp_path / "out.csv"
    result = runner.invoke(app, ["anonymize", str(source), "--qi", ",".join(qis), *flags,
                                 "--sensitive", "salary-class", "--k", "10", "--method",
                                 "global-recoding", "--suppression-limit", "0.02",
                                 "--out", str(out)])  # fmt: skip
    assert result.exit_code == 0, result.output
    meta = json.loads(out.with_suffix(".json").read_text())
    assert set(meta["levels"]) == set(qis) and meta["n_suppressed"] <= 60
    assert f"levels: age {meta['levels']['age']}, " in result.output
    assert "proven optimal (" in result.output
    checked = runner.invoke(app, ["verify", str(out)])
    assert checked.exit_code == 0, checked.output
    if meta["n_suppressed"]:
        assert "suppressed records published as rows of *" in checked.output


def test_a_column_unique_per_record_does_not_stall_the_search(adult_sample):
    """Issue 58.1: with l = 2 on ``salary-class`` and on ``secret`` (unique per record), a
    search stopped by its time limit still publishes a real node (it published the top of
    the lattice, NCP 1.0, after 304 s of 9-million-cell class tables per node)."""
    data, schema = adult_sample
    data = data.assign(secret=[f"s{i}" for i in range(len(data))])
    schema = dataclasses.replace(schema, sensitive=["salary-class", "secret"])
    spec = Diversity(l=2)
    release = anonymize(data, schema, 5, method="global-recoding", diversity=spec, seed=1,
                        params={"time_limit": 1.0})  # fmt: skip
    meta = release.metadata
    tops = {q: schema.quasi_identifiers[q].hierarchy.height for q in schema.qi_names}
    assert meta.levels != tops  # not every attribute *
    assert meta.loss["ncp"] < 0.9
    report = verify(release.table, schema.qi_names, 5, metadata=meta, diversity=spec,
                    sensitive=schema.sensitive)  # fmt: skip
    assert report.ok, report.problems


@pytest.mark.parametrize("kind", ["distinct", "entropy", "recursive"])
def test_the_search_s_l_check_agrees_with_the_privacy_model(kind):
    """The class check global recoding runs at every node counts what a class holds (an
    id-like column: its size) instead of a classes × values table; same verdicts."""
    rng = np.random.default_rng(0)
    spec = Diversity(l=2 if kind != "entropy" else 1.8, l_kind=kind, c=2.0)
    for trial in range(200):
        n = int(rng.integers(1, 80))
        n_classes = int(rng.integers(1, 12))
        labels = rng.integers(-1, n_classes, n)
        codes = (
            rng.permutation(n) if trial % 3 == 0 else rng.integers(0, int(rng.integers(1, 90)), n)
        )
        whole = np.bincount(codes)
        expected = satisfied(class_counts(labels, codes, n_classes, whole.size), spec, False, whole)
        check = diversity_check([(codes, False)], spec)
        assert (check(labels, n_classes) == expected).all(), trial


def test_a_release_of_nothing_but_stars_is_an_error(tmp_path):
    """Issue 58.1: when the least-loss node is the top of the lattice (every attribute *),
    nothing is published: one line saying why and what to relax, a non-zero exit."""
    table = pd.DataFrame({"a": list("abcdef"), "b": list("uvwxyz"), "s": list("xyxyxy")})
    with pytest.raises(InfeasibleError, match="publishes anything"):
        anonymize(table, qi=["a", "b"], k=3, method="global-recoding", suppression_limit=0.0)
    source, out = tmp_path / "t.csv", tmp_path / "out.csv"
    table.to_csv(source, index=False)
    result = CliRunner().invoke(app, ["anonymize", str(source), "--qi", "a,b", "--k", "3",
                                      "--method", "global-recoding", "--suppression-limit",
                                      "0", "--out", str(out)])  # fmt: skip
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: no generalization publishes"), lines
    assert "--k" in lines[0] and "--suppression-limit" in lines[0]
    assert not out.exists() and not out.with_suffix(".json").exists()
