"""Shared fixtures: the real datasets (skipped with a reason when ../shared is absent) and one
headless Chromium per test process for the browser tests (the report's and the app's)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("INCROWD_SHARED", ROOT.parent / "shared")) / "datasets"

settings.register_profile(
    "default", deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


@pytest.fixture(scope="session")
def datasets() -> Path:
    """The shared benchmark datasets folder; tests using it skip on a user's clone."""
    if not (SHARED / "census.csv").is_file():
        pytest.skip(f"real datasets not available at {SHARED} (only in the development tree)")
    return SHARED


# a closed network: nothing of Chromium's own (updates, sync, QUIC probes) may reach out
FLAGS = ["--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]  # fmt: skip


def unavailable(reason: str) -> None:
    """Skip with ``reason``; under ``CI=true`` a missing browser is a failure."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason} (CI=true: the browser tests must run)", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def browser():
    """Headless Chromium; Playwright launches it with a fresh temporary profile."""
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    if binary is None:
        unavailable("no chromium on PATH (Debian: apt-get install chromium; .ci/run does it)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("playwright is not installed (pip install -e '.[test]')")
    flags = [*FLAGS, "--no-sandbox"] if os.geteuid() == 0 else FLAGS
    with sync_playwright() as play:
        engine = play.chromium.launch(executable_path=binary, headless=True, args=flags)
        yield engine
        engine.close()


@pytest.fixture
def raw_progress(monkeypatch) -> list[tuple[int, int]]:
    """Every ``(done, total)`` a method reports while a reporter is set, as it reaches the
    reporter, before the reporter holds it back or keeps it from going back (the methods
    call ``report_progress`` imported into their own modules; every call lands in
    ``_Reporter.__call__``)."""
    from incrowd._runtime import progress

    seen: list[tuple[int, int]] = []
    deliver = progress._Reporter.__call__

    def raw(self, done: int, total: int) -> None:
        seen.append((done, total))
        deliver(self, done, total)

    monkeypatch.setattr(progress._Reporter, "__call__", raw)
    return seen
