"""Progress of ``anonymize_with`` while the crowds form (``pipeline/run.py``): counted by the
method through ``on_progress``, the stages still named one by one through ``on_stage``, and
the release the same byte for byte whether anyone watches or not."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import incrowd
from incrowd.pipeline.run import PIPELINE_STAGES, anonymize_with
from incrowd.pipeline.settings import Settings
from incrowd.privacy.models import Diversity
from incrowd.release import metadata_path

#: What differs between two runs of one release: when it was made and how long it took.
CLOCK = {"created", "seconds"}


def _table() -> pd.DataFrame:
    rng = np.random.default_rng(4)
    n = 240
    return pd.DataFrame({
        "age": rng.integers(17, 90, n),
        "zip": [f"{z:05d}" for z in rng.choice([2138, 2139, 2141, 10002, 10003, 10011], n)],
        "sex": rng.choice(["F", "M"], n),
        "disease": rng.choice(["flu", "cold", "none"], n),
    })  # fmt: skip


def _run(method: str, tmp_path, name: str, on_progress=None):
    table = _table()
    hierarchies = {"zip": "prefix", "age": "intervals:0-17,18-64,65-120"}
    schema = incrowd.Schema.infer(table, ["age", "zip", "sex"], sensitive=["disease"],
                                  hierarchies=hierarchies)  # fmt: skip
    stages: list[str] = []
    settings = Settings.of_run(4, method=method, seed=7)
    release = anonymize_with(table, schema, settings, on_stage=stages.append,
                             on_progress=on_progress)  # fmt: skip
    path = tmp_path / f"{name}.csv"
    release.write(path)
    meta = json.loads(metadata_path(path).read_text())
    return release, path.read_bytes(), {key: meta[key] for key in set(meta) - CLOCK}, stages


@pytest.mark.parametrize("method", ["local-recoding", "global-recoding", "mdav", "forest"])
def test_the_release_is_the_same_with_and_without_progress(method, tmp_path):
    seen: list[tuple[int, int]] = []
    plain, plain_bytes, plain_meta, plain_stages = _run(method, tmp_path, "plain")
    watched, watched_bytes, watched_meta, stages = _run(
        method, tmp_path, "watched", lambda done, total: seen.append((done, total))
    )
    assert np.array_equal(plain.partition.labels, watched.partition.labels)
    assert plain_bytes == watched_bytes
    assert plain_meta == watched_meta
    assert stages == plain_stages and all(isinstance(s, str) for s in stages)
    assert seen and seen[-1][0] == seen[-1][1]  # the count ends at its total


def test_the_default_method_counts_at_least_two_steps(tmp_path, raw_progress):
    # the counts as the method reports them, before the reporter holds them from going back
    raw = raw_progress
    _run("local-recoding", tmp_path, "counted", lambda _done, _total: None)
    done = [d for d, _ in raw]
    assert len({total for _, total in raw}) == 1
    assert len(set(done)) >= 2
    assert all(a <= b for a, b in zip(done, done[1:], strict=False)), done
    assert raw[-1][0] == raw[-1][1]


def test_a_run_names_at_most_the_pipeline_stages():
    # cellular polishes its crowds for a generalized release, and l-diversity merges them:
    # both stages that run only sometimes (the command line's bar and the app's count them)
    table = _table().iloc[:60]
    schema = incrowd.Schema.infer(table, ["age", "zip", "sex"], sensitive=["disease"],
                                  hierarchies={"zip": "prefix"})  # fmt: skip
    stages: list[str] = []
    settings = Settings.of_run(4, method="cellular", seed=7, diversity=Diversity(l=2))
    anonymize_with(table, schema, settings, on_stage=stages.append)
    assert len(stages) == len(set(stages)) == PIPELINE_STAGES, stages


def test_anonymize_passes_progress_on():
    seen: list[tuple[int, int]] = []
    incrowd.anonymize(_table(), qi=["age", "zip"], k=4, seed=1, method="mdav",
                      release="microaggregated",
                      on_progress=lambda done, total: seen.append((done, total)))  # fmt: skip
    assert seen and seen[-1] == (240, 240)
