"""The command line's progress bar (``cli/_output.py``): stages one by one, counted work
(``stage(name, done, total)``), and the stages again after a count."""

from __future__ import annotations

import io

from rich.console import Console
from rich.progress import Progress

from incrowd.cli import _output


def test_a_stage_after_counted_work_shows_the_stages_again(monkeypatch):
    monkeypatch.setattr(_output.err_console, "_console",
                        Console(file=io.StringIO(), force_terminal=True, width=100))  # fmt: skip
    shown: list[dict] = []
    update = Progress.update

    def recording(self, task, **fields):
        shown.append(fields)
        update(self, task, **fields)

    monkeypatch.setattr(Progress, "update", recording)
    with _output.progress(True) as stage:
        stage("checking the data")
        stage("forming crowds", 3, 11)
        stage("forming crowds", 11, 11)
        stage("publishing the generalized table")
    assert shown[1] == {"description": "forming crowds 3/11", "completed": 3, "total": 11}
    assert shown[-1] == {"description": "publishing the generalized table", "completed": 2,
                         "total": _output.STAGES}  # fmt: skip
