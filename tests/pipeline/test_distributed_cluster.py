"""Blockwise runs on real Dask clusters: a scheduler and two workers started as separate
processes (``dask scheduler`` / ``dask worker``) and reached through ``--scheduler tcp://``;
and a worker killed in the middle of a run."""

from __future__ import annotations

import os
import signal
import socket
import sys
from pathlib import Path

import pytest

pytest.importorskip("distributed", reason="the Dask extra (incrowd[dask]) is not installed")

from incrowd import verify  # noqa: E402
from incrowd.cli.app import run  # noqa: E402
from incrowd.datasets import make_census  # noqa: E402
from incrowd.distributed import write_blocks  # noqa: E402
from incrowd.testing import dask_cluster  # noqa: E402

DASK = Path(sys.executable).with_name("dask")
QI = ["age", "sex", "race", "zip"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def cluster():
    if not DASK.exists():
        pytest.skip(f"no dask command beside {sys.executable}")
    with dask_cluster(2) as address:
        yield address


@pytest.fixture(scope="module")
def census_csv(tmp_path_factory):
    table, _ = make_census(6_000, random_state=3)
    path = tmp_path_factory.mktemp("census") / "census.csv"
    table.to_csv(path, index=False)
    return path


def test_a_running_cluster_through_the_command_line(cluster, census_csv, tmp_path):
    out = tmp_path / "release.parquet"
    args = ["anonymize", str(census_csv), "--qi", ",".join(QI), "--hierarchy", "zip=prefix",
            "--sensitive", "income", "--k", "5", "--method", "mdav", "--scheduler", cluster,
            "--block-size", "1500", "--out", str(out), "--quiet"]  # fmt: skip
    assert run(args) == 0
    assert out.is_dir() and out.with_suffix(".json").is_file()
    assert run(["verify", str(out), "--qi", ",".join(QI), "--k", "5"]) == 0
    report = verify(out, QI, 5)
    assert report.ok and report.n_records == 6_000
    assert run(["verify", str(out), "--qi", ",".join(QI), "--k", "5", "--scheduler", cluster]) == 0


def test_a_dataset_of_many_parts_is_verified_on_a_running_cluster(cluster, tmp_path):
    """Its metadata (a line per part) is large: Dask once made a task of it and failed."""
    from incrowd.distributed import verify_release

    table, schema = make_census(30_000, random_state=4)
    written = write_blocks(table, schema, 5, tmp_path / "r.parquet", block_size=200, floor=100,
                           method="mdav", scheduler="sync", seed=1)  # fmt: skip
    assert written.metadata["blocking"]["n_blocks"] >= 150
    there = verify_release(written.path, schema.qi_names, 5, scheduler=cluster)
    assert there.ok and there == verify(written.path, schema.qi_names, 5)


def test_an_unreachable_scheduler_is_a_clear_error(census_csv, tmp_path, capsys):
    out = tmp_path / "release.csv"
    args = ["anonymize", str(census_csv), "--qi", ",".join(QI), "--hierarchy", "zip=prefix",
            "--k", "5", "--method", "mdav", "--block-size", "1500", "--out", str(out),
            "--scheduler", f"tcp://127.0.0.1:{_free_port()}", "--quiet"]  # fmt: skip
    assert run(args) == 2
    assert "cannot reach the Dask scheduler" in capsys.readouterr().err
    assert not out.exists()


def test_a_worker_killed_during_the_run(tmp_path):
    """The nanny restarts the worker and its block runs again: the release completes."""
    from distributed import Client

    table, schema = make_census(8_000, random_state=4)
    table = table[[*QI, "income"]]
    schema = schema.__class__({q: schema.quasi_identifiers[q] for q in QI}, sensitive=["income"])
    with dask_cluster(2) as address:
        with Client(address) as client:
            pids = list(client.run(os.getpid).values())
        killed = []

        def kill_one(done: int, _total: int) -> None:
            if done == 1:
                os.kill(pids[0], signal.SIGKILL)
                killed.append(pids[0])

        written = write_blocks(table, schema, 5, tmp_path / "r.parquet", block_size=1_000,
                               floor=300, method="mdav", scheduler=address, seed=1,
                               on_block=kill_one)  # fmt: skip
    assert killed
    assert written.metadata["n_released"] + written.metadata["n_suppressed"] == len(table)
    assert verify(written.path, QI, 5).ok
