"""Shared fixtures: the real datasets (skipped with a reason when ../shared is absent)."""

from __future__ import annotations

import os
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
