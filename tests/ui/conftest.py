"""Fixtures of the browser app's tests: the app on a loopback port with a folder to work in,
a test client that holds its token cookie (the browser: ``tests/conftest.py``)."""

from __future__ import annotations

import os
import threading
import time
import warnings

import pytest

try:
    import starlette  # noqa: F401
except ImportError:  # under CI=true the app's tests must run (make test installs the extra)
    if os.environ.get("CI") == "true":
        raise
    pytest.skip("incrowd ui needs its extra: pip install -e '.[ui]'", allow_module_level=True)


@pytest.fixture
def local(tmp_path):
    """The app (not serving: requests go through the test client) on ``tmp_path / "work"``."""
    from incrowd.ui.server import LocalApp

    (tmp_path / "work").mkdir()
    app = LocalApp([tmp_path / "work"])
    yield app
    app.close()


@pytest.fixture
def client(local):
    """A test client that opened the printed URL (it holds the cookie), sending the app's
    own Host."""
    with warnings.catch_warnings():  # starlette 1.x asks for httpx2; httpx works
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient

        client = TestClient(local.app, base_url=f"http://127.0.0.1:{local.port}")
    assert client.get(local.url).status_code == 200
    return client


@pytest.fixture
def origin(local):
    return {"Origin": f"http://127.0.0.1:{local.port}"}


@pytest.fixture
def served(local):
    """The app serving on its loopback port in a thread (for the browser tests)."""
    thread = threading.Thread(target=local.serve, daemon=True)
    thread.start()
    end = time.monotonic() + 20
    while not (local.server is not None and local.server.started):
        assert time.monotonic() < end, "the server did not start"
        time.sleep(0.05)
    yield local
    local.stop()
    thread.join(timeout=10)
