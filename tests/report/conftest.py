"""Fixtures of the report's browser tests: four Adult releases with their reports, each
built once per test run (the browser itself: ``tests/conftest.py``).

The releases take seconds to minutes each, so they are built into one folder shared by the
pytest-xdist workers of the run, under a lock: whichever worker needs a release first builds
it, the other reads it. Without a browser the tests skip with the reason; under ``CI=true``
that is a failure instead (``.ci/run`` installs chromium with apt-get).
"""

from __future__ import annotations

import fcntl
import json
import os
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from incrowd.cli.app import app

ADULT = Path(__file__).resolve().parents[2] / "src" / "incrowd" / "datasets" / "adult"
INPUT = ADULT / "adult.csv"
DEMO = ("--config", ADULT / "incrowd.toml", "--k", "5", "--seed", "1")
# the demo release (`make demo`) and three variants; blockwise in one process (sync). The
# centers and blockwise releases are of Adult's first SAMPLE records: their pages are what
# is checked, and the whole table would add half a minute to the suite
RELEASES = {
    "demo": DEMO,
    "l2": (*DEMO, "--l", "2"),
    "centers": (*DEMO, "--release", "centers"),
    "blockwise": (*DEMO, "--blocks", "3", "--scheduler", "sync"),
}
SAMPLED = {"centers", "blockwise"}
SAMPLE = 6000


@dataclass(frozen=True)
class Built:
    """A release of ``input`` on disk (``path``, its metadata ``meta``) and its report."""

    name: str
    input: Path
    path: Path
    meta: dict
    report: Path


def _shared_folder(tmp_path_factory) -> Path:
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):  # the run's folder, above each worker's own
        base = base.parent
    folder = base / "report-releases"
    folder.mkdir(exist_ok=True)
    return folder


def _build(name: str, folder: Path) -> Built:
    # named as `make demo` names its files: the page's title is the release's name
    stem = "adult-k5" if name == "demo" else f"adult-k5-{name}"
    path, report = folder / f"{stem}.csv", folder / f"{stem}-report.html"
    source = folder / "adult-sample.csv" if name in SAMPLED else INPUT
    with open(folder / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not report.is_file():
            if name in SAMPLED and not source.is_file():  # each sampled build under its lock
                lines = INPUT.read_text().splitlines(keepends=True)[: SAMPLE + 1]
                part = source.with_suffix(f".{name}.tmp")
                part.write_text("".join(lines))
                part.replace(source)
            runner = CliRunner()
            made = runner.invoke(app, ["anonymize", str(source), *map(str, RELEASES[name]),
                                       "--out", str(path)])  # fmt: skip
            assert made.exit_code == 0, made.output
            page = runner.invoke(app, ["report", str(source), str(path),
                                       "--out", str(report)])  # fmt: skip
            assert report.is_file(), page.output
    return Built(name, source, path, json.loads(path.with_suffix(".json").read_text()), report)


@pytest.fixture(scope="module", params=list(RELEASES))
def built(request, tmp_path_factory) -> Built:
    """Each of the four releases in turn."""
    return _build(request.param, _shared_folder(tmp_path_factory))


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> Built:
    return _build("demo", _shared_folder(tmp_path_factory))


@pytest.fixture(scope="module")
def l2(tmp_path_factory) -> Built:
    return _build("l2", _shared_folder(tmp_path_factory))
