"""The command line's progress bar (``cli/_output.py``): stages one by one, the counts of a
stage within its share of the bar (never going back, the stage's name kept), and a
blockwise run's blocks on a scale of their own."""

from __future__ import annotations

import io

import pytest
from rich.console import Console
from rich.progress import Progress

from incrowd.cli import _output
from incrowd.pipeline.run import PIPELINE_STAGES

STAGES = PIPELINE_STAGES + 2  # the command's: reading the input, the pipeline's, writing


@pytest.fixture
def shown(monkeypatch) -> list[dict]:
    """The fields of each update of the bar."""
    monkeypatch.setattr(_output.err_console, "_console",
                        Console(file=io.StringIO(), force_terminal=True, width=100))  # fmt: skip
    seen: list[dict] = []
    update = Progress.update

    def recording(self, task, **fields):
        seen.append(fields)
        update(self, task, **fields)

    monkeypatch.setattr(Progress, "update", recording)
    return seen


def test_counts_within_a_stage_never_take_the_bar_back(shown):
    with _output.progress(True, STAGES) as stage:
        stage("checking the data")
        stage("forming crowds (mdav)")
        for done in (500, 20_000, 48_842):
            stage.count(done, 48_842)
        stage("publishing the generalized table")
        stage("writing the release")
    assert {fields["total"] for fields in shown} == {STAGES}
    share = [fields["completed"] / fields["total"] for fields in shown]
    assert share == sorted(share), share
    assert [fields["completed"] for fields in shown] == [
        1, 2, 2 + 500 / 48_842, 2 + 20_000 / 48_842, 3, 3, 4,
    ]  # fmt: skip
    assert shown[2]["description"] == "forming crowds (mdav) 500/48842"
    assert shown[-2]["description"] == "publishing the generalized table"


def test_a_count_past_its_total_stays_within_its_stage(shown):
    with _output.progress(True, STAGES) as stage:
        stage("forming crowds (mdav)")
        stage.count(7, 5)
        stage.count(1, 0)  # no total: nothing to show
    assert [fields["completed"] for fields in shown] == [1, 2]


def test_a_blockwise_run_counts_its_blocks(shown):
    with _output.progress(True, STAGES) as stage:
        stage("cutting blocks")
        stage.blocks(1, 4)
        stage.blocks(4, 4)
    assert shown[0] == {"description": "cutting blocks", "completed": 1, "total": STAGES}
    assert shown[1:] == [{"description": "blocks 1/4", "completed": 1, "total": 4},
                         {"description": "blocks 4/4", "completed": 4, "total": 4}]  # fmt: skip


def test_without_the_bar_nothing_is_shown(shown):
    with _output.progress(False, STAGES) as stage:
        stage("checking the data")
        stage.count(1, 2)
        stage.blocks(1, 2)
    assert shown == []
