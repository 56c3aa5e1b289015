"""Blockwise anonymization: blocks cover every record once within their size and floor and
are cut where crowds rarely span; the union is k-anonymous and loses little against the
unblocked release; one block is the single-machine release; Dask's local cluster gives the
same release as one process; a written release is a dataset (or one CSV) that appears only
when complete; the blocked certificate is the blocked problem's and the global one bounds
the whole table's optimum."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import incrowd
from incrowd import anonymize, verify
from incrowd.cli.app import run
from incrowd.datasets import make_census
from incrowd.distributed import anonymize_blocks, cut_blocks
from incrowd.distributed._run import largest_first
from incrowd.errors import InfeasibleError, InputError, ParameterError


@pytest.fixture(scope="module")
def census():
    table, schema = make_census(6_000, random_state=2)
    return table[["age", "sex", "race", "zip", "state", "income"]], schema.__class__(
        {"age": schema.quasi_identifiers["age"], "sex": schema.quasi_identifiers["sex"],
         "race": schema.quasi_identifiers["race"], "zip": schema.quasi_identifiers["zip"]},
        sensitive=["income"],
    )  # fmt: skip


def test_blocks_cover_every_record_within_size_and_floor(census):
    table, schema = census
    blocks = cut_blocks(table, schema, block_size=1_000, floor=200)
    rows = np.sort(np.concatenate(blocks))
    assert (rows == np.arange(len(table))).all()
    assert all(200 <= b.size <= 1_000 for b in blocks)
    by_state = cut_blocks(table, schema, block_size=10_000, by=["state"], floor=150)
    assert all(b.size >= 150 for b in by_state)
    big = [b for b in by_state if table["state"].iloc[b].nunique() == 1]
    assert big, "large states are blocks of their own"


def test_union_is_k_anonymous_with_a_blocked_certificate(census):
    table, schema = census
    release = anonymize_blocks(table, schema, 5, block_size=2_000, floor=500, method="forest",
                               scheduler="sync", seed=3)  # fmt: skip
    meta = release.metadata
    assert meta["blocking"]["n_blocks"] >= 3
    assert meta["n_released"] + meta["n_suppressed"] == len(table)
    assert verify(release.table, schema.qi_names, 5, metadata=meta).ok
    assert 0 < meta["lower_bound"] <= meta["blocked_lower_bound"]  # global: see below
    bounds = [b["lower_bound"] for b in meta["blocking"]["blocks"]]
    assert meta["blocked_lower_bound"] == pytest.approx(sum(bounds))
    assert meta["blocked_certified_ratio"] == pytest.approx(meta["cost"] / sum(bounds))


def test_one_block_is_the_single_machine_release(census):
    table, schema = census
    one = anonymize_blocks(table, schema, 5, blocks=1, method="mdav", scheduler="local",
                           workers=1, seed=4)  # fmt: skip
    alone = anonymize(table, schema, 5, method="mdav", seed=4)
    pd.testing.assert_frame_equal(one.table, alone.table)
    assert one.metadata["cost"] == alone.metadata["cost"]
    assert one.metadata["blocking"]["n_blocks"] == 1


def test_local_cluster_gives_the_same_release(census):
    table, schema = census
    options = {"block_size": 2_000, "floor": 500, "method": "mdav", "seed": 5}
    sync = anonymize_blocks(table, schema, 5, scheduler="sync", **options)
    local = anonymize_blocks(table, schema, 5, scheduler="local", workers=2, **options)
    pd.testing.assert_frame_equal(sync.table, local.table)


def test_results_are_awaited_on_the_runs_own_client_when_another_is_current(census, monkeypatch):
    # Dask's as_completed otherwise follows the process's current client: the user's own,
    # whose loop saw each block's result up to a second late
    import distributed

    table, schema = census
    loops = []
    tracked = distributed.as_completed

    def recording(*args, loop=None, **kwargs):
        loops.append(loop)
        return tracked(*args, loop=loop, **kwargs)

    monkeypatch.setattr(distributed, "as_completed", recording)
    options = {"block_size": 2_000, "floor": 500, "method": "mdav", "seed": 5}
    with distributed.LocalCluster(n_workers=1, processes=False, dashboard_address=":0") as other, \
            distributed.Client(other) as theirs:  # fmt: skip
        local = anonymize_blocks(table, schema, 5, scheduler="local", workers=1, **options)
    assert loops and all(loop is not None and loop is not theirs.loop for loop in loops)
    sync = anonymize_blocks(table, schema, 5, scheduler="sync", **options)
    pd.testing.assert_frame_equal(sync.table, local.table)


def test_the_largest_blocks_go_first_so_the_last_to_finish_are_small():
    blocks = [np.arange(n) for n in (5, 9, 2, 9, 7)]
    assert largest_first(blocks) == [1, 3, 4, 0, 2]


def test_bad_blocking_is_a_clear_error(census, tmp_path):
    table, schema = census
    with pytest.raises(ParameterError, match="block floor"):
        anonymize_blocks(table, schema, 5, block_size=100, floor=500, scheduler="sync")
    with pytest.raises(InputError, match="no column 'county'"):
        anonymize_blocks(table, schema, 5, by=["county"], scheduler="sync")
    with pytest.raises(ParameterError, match="scheduler"):
        anonymize_blocks(table, schema, 5, block_size=2_000, floor=500, scheduler="carrier")
    source, out = tmp_path / "c.csv", tmp_path / "r.csv"
    table.to_csv(source, index=False)
    args = ["anonymize", str(source), "--qi", "age,sex,race,zip", "--categorical", "zip",
            "--sensitive", "income", "--k", "5", "--method", "mdav", "--scheduler", "sync",
            "--block-size", "2000", "--out", str(out), "--quiet"]  # fmt: skip
    assert run(args) == 0
    assert run(["verify", str(out), "--qi", "age,sex,race,zip", "--k", "5"]) == 0
    one, alone = tmp_path / "one.csv", tmp_path / "alone.csv"
    base = [a for a in args if a not in ("--scheduler", "sync", "--block-size", "2000")]
    base = base[: base.index("--out")] + ["--seed", "7", "--quiet"]
    assert run([*base, "--blocks", "1", "--out", str(one)]) == 0
    assert run([*base, "--out", str(alone)]) == 0
    assert one.read_bytes() == alone.read_bytes()  # --blocks 1: byte for byte
    assert run([*base, "--spill", "sometimes", "--out", str(tmp_path / "no.csv")]) == 2
    assert not (tmp_path / "no.csv").exists()


@pytest.mark.parametrize("scheduler", ["sync", "local"])
def test_an_error_in_one_block_names_it_and_writes_nothing(census, tmp_path, scheduler):
    from incrowd.privacy.models import Diversity

    table, schema = census
    table = table.copy()
    first = cut_blocks(table, schema, block_size=100_000, by=["state"], floor=300)[0]
    table.loc[first, "income"] = 1  # one block holds a single sensitive value
    with pytest.raises(InfeasibleError, match=r"block \d+ \(\d+ records\)"):
        anonymize_blocks(table, schema, 5, by=["state"], floor=300, method="mdav",
                         scheduler=scheduler, workers=2, diversity=Diversity(l=2))  # fmt: skip
    source, out = tmp_path / "c.csv", tmp_path / "r.csv"
    table["income"] = np.where(table["state"] == "CA", table["income"], 1)  # only CA diverse
    table.to_csv(source, index=False)
    args = ["anonymize", str(source), "--qi", "age,sex,race,zip", "--categorical", "zip",
            "--sensitive", "income", "--k", "5", "--method", "mdav", "--scheduler", scheduler,
            "--block-by", "state", "--l", "2", "--out", str(out), "--quiet"]  # fmt: skip
    assert run(args) == 2
    assert not out.exists() and not out.with_suffix(".json").exists()


def _log_noise() -> None:
    import logging

    logging.getLogger("distributed.worker").error("WORKER NOISE")


def test_the_local_workers_log_nothing_to_the_terminal(capfd):
    """A kill during a blockwise run left the workers logging their lost scheduler, with
    tracebacks, on the terminal (loops of kills like ``benchmarks/kill_anytime.py``'s: 3
    kills in at most 75); the local cluster's logs are silenced (a task's error still
    reaches the client as an exception: ``test_an_error_in_one_block_names_it…``)."""
    from incrowd.distributed._client import client as local_client

    with local_client("local", 1) as client:
        client.run(_log_noise)
        client.run_on_scheduler(_log_noise)
    assert "WORKER NOISE" not in capfd.readouterr().err


# --------------------------------------------------------------------------- where to cut
def test_a_cut_separates_dissimilar_values_not_neighbours():
    from incrowd import Categorical, Numeric, Schema

    rng = np.random.default_rng(0)
    table = pd.DataFrame({"age": rng.integers(20, 60, 4_000),
                          "sex": rng.choice(["F", "M"], 4_000)})  # fmt: skip
    schema = Schema({"age": Numeric(), "sex": Categorical()})
    blocks = cut_blocks(table, schema, block_size=2_500, floor=100)
    assert len(blocks) == 2
    assert all(table["sex"].iloc[b].nunique() == 1 for b in blocks)  # by sex, not mid-age


def test_among_top_level_cuts_the_attribute_of_fewest_values_is_cut_first():
    """Crowds span a top-level cut of a many-valued attribute more often: with a fine label
    as balanced as sex and as dissimilar across its cut, sex is cut."""
    from incrowd import Categorical, Numeric, Schema

    rng = np.random.default_rng(1)
    n = 4_000
    table = pd.DataFrame({"age": rng.integers(20, 60, n),
                          "place": [f"p{v:02d}" for v in rng.integers(0, 40, n)],
                          "sex": rng.choice(["F", "M"], n)})  # fmt: skip
    schema = Schema({"age": Numeric(), "place": Categorical(), "sex": Categorical()})
    blocks = cut_blocks(table, schema, block_size=2_500, floor=100)
    assert len(blocks) == 2
    assert all(table["sex"].iloc[b].nunique() == 1 for b in blocks)
    assert all(table["place"].iloc[b].nunique() == 40 for b in blocks)


def test_blocked_loss_stays_close_to_unblocked(census):
    table, schema = census
    whole = anonymize(table, schema, 5, method="forest", seed=1)
    blocked = anonymize_blocks(table, schema, 5, block_size=1_600, floor=400, method="forest",
                               scheduler="sync", seed=1)  # fmt: skip
    assert blocked.metadata["blocking"]["n_blocks"] >= 4
    from incrowd.measures.loss import evaluate_release

    scored = evaluate_release(table, blocked.table, schema, blocked.metadata)["ncp"]
    # each block is scored against the whole table's domain: the metadata's NCP is the
    # whole release's
    assert blocked.metadata["loss"]["ncp"] == pytest.approx(scored)
    assert scored <= 1.10 * whole.metadata["loss"]["ncp"]


def test_a_pinned_domain_scores_a_part_as_part_of_the_whole(census):
    from incrowd.measures.loss import evaluate_release

    table, schema = census
    part = table[table["age"] < 40].reset_index(drop=True)
    pinned = schema.with_domain(table)
    release = anonymize(part, pinned, 5, method="mdav", seed=2)
    whole_view = evaluate_release(table, release.table, schema, release.metadata)
    assert release.metadata["loss"]["ncp"] == pytest.approx(whole_view["ncp"], abs=1e-12)
    own = anonymize(part, schema, 5, method="mdav", seed=2)
    assert release.metadata["loss"]["ncp"] < own.metadata["loss"]["ncp"]  # ages 17-39 of 17-90
    with pytest.raises(InputError, match="outside its declared domain"):
        anonymize(table.assign(age=table["age"] + 100), pinned, 5, method="mdav")


# --------------------------------------------------------------------------- written releases
def _write(table, schema, out, **options):
    from incrowd.distributed import write_blocks

    options = {"block_size": 2_000, "floor": 500, "method": "mdav", "scheduler": "sync",
               "seed": 5} | options  # fmt: skip
    return write_blocks(table, schema, 5, out, **options)


def test_a_parquet_release_is_a_dataset_of_one_file_per_block(census, tmp_path):
    from incrowd.release import read_release

    table, schema = census
    written = _write(table, schema, tmp_path / "r.parquet")
    meta = written.metadata
    parts = sorted(p.name for p in written.path.iterdir())
    assert parts == [f["file"] for f in meta["files"]]
    assert len(parts) == meta["blocking"]["n_blocks"] >= 3
    assert sum(f["rows"] for f in meta["files"]) == meta["n_released"]
    assert sum(b["records"] for b in meta["blocking"]["blocks"]) == meta["n_input"] == len(table)
    assert verify(written.path, schema.qi_names, 5).ok
    back = read_release(written.path)
    in_memory = anonymize_blocks(table, schema, 5, block_size=2_000, floor=500, method="mdav",
                                 scheduler="sync", seed=5)  # fmt: skip
    assert _rows(back.table) == _rows(in_memory.table)  # the same blocks, in another order
    assert meta["n_groups"] == verify(in_memory.table, schema.qi_names, 5).n_classes
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no staging left


def _rows(frame):
    return sorted(map(tuple, frame.astype(str).to_numpy().tolist()))


def test_a_csv_release_is_one_file_with_one_header(census, tmp_path):
    from incrowd.release import read_release

    table, schema = census
    written = _write(table, schema, tmp_path / "r.csv")
    text = written.path.read_text()
    assert text.count("age,sex,race,zip") == 1
    assert len(read_release(written.path).table) == written.metadata["n_released"]
    assert verify(written.path, schema.qi_names, 5).ok


def test_a_changed_part_fails_verification_by_name(census, tmp_path):
    table, schema = census
    written = _write(table, schema, tmp_path / "r.parquet")
    part = sorted(written.path.iterdir())[1]
    frame = pd.read_parquet(part)
    frame.iloc[:2].to_parquet(part)  # a part cut short: still k-anonymous on its own rows?
    report = verify(written.path, schema.qi_names, 5)
    assert not report.ok
    assert any(part.name in p for p in report.problems)


def test_an_earlier_dataset_is_replaced_and_other_directories_are_refused(census, tmp_path):
    from incrowd.errors import OutputError

    table, schema = census
    first = _write(table, schema, tmp_path / "r.parquet", seed=6)
    second = _write(table, schema, tmp_path / "r.parquet", seed=7)
    assert second.metadata["seed"] == 7 and verify(second.path, schema.qi_names, 5).ok
    assert first.path == second.path
    other = tmp_path / "mine.parquet"
    other.mkdir()
    (other / "keep.txt").write_text("mine")
    with pytest.raises(OutputError, match="not part of an earlier incrowd release"):
        _write(table, schema, other)
    assert (other / "keep.txt").read_text() == "mine"


def test_an_error_in_a_block_leaves_no_dataset(census, tmp_path):
    from incrowd.privacy.models import Diversity

    table, schema = census
    table = table.copy()
    table["income"] = np.where(table["state"] == "CA", table["income"], 1)
    with pytest.raises(InfeasibleError, match=r"block \d+"):
        _write(table, schema, tmp_path / "r.parquet", by=["state"], floor=300,
               diversity=Diversity(l=2))  # fmt: skip
    assert list(tmp_path.iterdir()) == []


# --------------------------------------------------------------------------- certificates
@pytest.mark.parametrize(
    ("method", "params"),
    [("forest", None), ("mu-approx", None), ("r-cellular", None),
     ("r-cellular-outliers", {"epsilon": 0.05})],
)  # fmt: skip
def test_the_global_bound_holds_for_the_whole_table(census, method, params):
    """The blocks' capped bounds sum to at most the whole table's own neighbour bound (the
    bound an unblocked run proves; r-cellular's radius bound, with outliers less the largest
    terms the whole table may leave out), and so to at most the optimum."""
    table, schema = census
    release = anonymize_blocks(table, schema, 4, block_size=1_500, floor=400, method=method,
                               params=params, scheduler="sync", seed=2)  # fmt: skip
    meta = release.metadata
    whole = anonymize(table, schema.with_domain(table), 4, method=method, params=params, seed=2)
    assert meta["blocking"]["n_blocks"] >= 4
    own = (whole.metadata["certificate"] or {}).get("radius_bound") or whole.metadata[
        "lower_bound"]  # fmt: skip
    assert 0 < meta["lower_bound"] <= own * (1 + 1e-9) <= whole.metadata["lower_bound"] * (
        1 + 1e-9) ** 2  # fmt: skip
    assert meta["lower_bound"] <= meta["blocked_lower_bound"] * (1 + 1e-9)
    assert meta["certified_ratio"] == pytest.approx(meta["cost"] / meta["lower_bound"])
    assert meta["certified_ratio"] >= meta["blocked_certified_ratio"]


@pytest.mark.parametrize("method", ["forest", "mu-approx"])
def test_the_caps_are_each_records_distance_to_its_copies_across_the_cuts(census, method):
    """A block's share of the global bound caps each record's neighbour distances at its
    distance to its copies with the value across each cut: measured here on the block and
    all its copies embedded together, as a record of the far side would be."""
    from incrowd.distributed._bound import global_bound_part
    from incrowd.distributed._plan import make_plan
    from incrowd.space.metric_space import MetricSpace

    table, schema = census
    plan = make_plan(table, schema, 4, 1_500, None, (), 400, "sync", 2)
    block = max(range(len(plan.blocks)), key=lambda i: len(plan.paths[i]))
    part = table.iloc[plan.blocks[block]].reset_index(drop=True)
    path = plan.paths[block]
    assert len(path) >= 2
    fitted = {}
    anonymize(part, plan.schema, 4, method=method, seed=1,
              on_fitted=lambda m, s: fitted.update(method=m, space=s))  # fmt: skip
    qis = part[list(schema.qi_names)]
    copies = []
    for cut in path:
        copy = qis.copy()
        copy[cut.column] = [cut.across] * len(copy)
        copies.append(copy)
    qi_only = incrowd.Schema(dict(plan.schema.quasi_identifiers))
    space = MetricSpace.from_table(pd.concat([qis, *copies], ignore_index=True), qi_only,
                                   norm=fitted["space"].norm)  # fmt: skip
    geometry = fitted["method"].bound_geometry(space)
    n = len(part)
    own = np.arange(n)
    cap = np.min([geometry.distance(own, own + (c + 1) * n) for c in range(len(path))], axis=0)
    assert cap.min() > 0
    expected = fitted["method"].capped_lower_bound(cap)
    assert global_bound_part(part, plan.schema, fitted, path) == pytest.approx(expected, rel=1e-12)
    assert expected < fitted["method"].lower_bound_  # the caps bind


def test_no_global_bound_when_blocks_follow_other_columns(census):
    table, schema = census
    release = anonymize_blocks(table, schema, 5, by=["state"], floor=300, method="forest",
                               scheduler="sync", seed=2)  # fmt: skip
    assert release.metadata["lower_bound"] is None
    assert release.metadata["certified_ratio"] is None
    assert release.metadata["blocked_lower_bound"] > 0


def test_a_dataset_is_verified_part_by_part(census, tmp_path, monkeypatch):
    """verify reads a dataset one part at a time (never the whole table at once), and finds
    a group below k that only exists across parts as well as within one."""
    import incrowd.io.release_format as files

    table, schema = census
    written = _write(table, schema, tmp_path / "r.parquet")
    seen = []
    real = files.read_table

    def spy(path, **kw):
        frame = real(path, **kw)
        seen.append(len(frame))
        return frame

    monkeypatch.setattr(files, "read_table", spy)
    report = verify(written.path, schema.qi_names, 5)
    assert report.ok and report.n_records == len(table)
    assert len(seen) == written.metadata["blocking"]["n_blocks"]
    assert max(seen) < len(table)
    monkeypatch.undo()
    parts = sorted(written.path.iterdir())
    first = pd.read_parquet(parts[0])
    odd = first.iloc[:1].assign(age="17-90", sex="*", race="*", zip="*****")
    odd.to_parquet(parts[0])  # one record alone in its group
    report = verify(written.path, schema.qi_names, 5)
    assert any("fewer than k=5" in p for p in report.problems)
    assert any(parts[0].name in p for p in report.problems)


def test_a_killed_run_leaves_only_a_hidden_directory_that_the_next_run_removes(census, tmp_path):
    """A driver killed mid-run leaves its staging directory (named with its process id); the
    next write to the same target removes it, since that process is no longer alive."""
    import subprocess
    import sys

    table, schema = census
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()  # a process id that is no longer alive
    stale = tmp_path / f".r.parquet.incrowd-{gone.pid}-0badf00d.tmp"
    stale.mkdir()
    (stale / "part-00001.parquet").write_bytes(b"half a block")
    assert not (tmp_path / "r.parquet").exists()  # nothing at the destination
    written = _write(table, schema, tmp_path / "r.parquet")
    assert not stale.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json", "r.parquet"]
    assert verify(written.path, schema.qi_names, 5).ok


# --------------------------------------------------------------------------- larger than memory
@pytest.fixture
def small_chunks(monkeypatch):
    """Spill in chunks of 700 rows, so that every block is pieced from several chunks."""
    import incrowd.distributed._source as source

    monkeypatch.setattr(source, "MIN_CHUNK_ROWS", 700)
    monkeypatch.setattr(source, "CHUNK_BYTES", 1)


@pytest.mark.parametrize("form", ["r.csv", "r.parquet"])
@pytest.mark.parametrize("given", ["in.csv", "in.parquet"])
def test_a_spilled_file_gives_the_release_read_whole(census, tmp_path, small_chunks, form, given):
    """A table file streamed into its blocks on disk gives, byte for byte, the release of the
    same file read whole; the driver reads only the quasi-identifiers whole, and the spill
    directory is gone afterwards."""
    from incrowd.io.tables import TableFile

    table, schema = census
    source = tmp_path / given
    if given.endswith(".csv"):
        table.to_csv(source, index=False)
    else:
        table.astype({"age": "int64"}).to_parquet(source)
    read = []

    class Spy(TableFile):
        def read(self, columns):
            read.append(list(columns))
            return super().read(columns)

    whole = _write(TableFile(source), schema, tmp_path / "whole" / form, spill=False)
    spilled = _write(Spy(source), schema, tmp_path / "spilled" / form, spill=True)
    assert read == [list(schema.qi_names)]
    assert spilled.metadata["blocking"]["n_blocks"] >= 3
    for a, b in [(whole.path, spilled.path)] + (
        list(zip(sorted(whole.path.iterdir()), sorted(spilled.path.iterdir()), strict=True))
        if whole.path.is_dir() else []):  # fmt: skip
        if a.is_file():
            assert a.read_bytes() == b.read_bytes(), a.name
    drop = ("seconds", "created", "files", "table_sha256")
    assert {k: v for k, v in whole.metadata.items() if k not in drop} == {
        k: v for k, v in spilled.metadata.items() if k not in drop}  # fmt: skip
    assert verify(spilled.path, schema.qi_names, 5).ok
    assert sorted(p.name for p in (tmp_path / "spilled").iterdir()) == sorted(
        [Path(form).name, "r.json"])  # fmt: skip


def test_a_file_that_changes_while_spilled_is_refused(census, tmp_path, small_chunks):
    from incrowd.io.tables import TableFile

    table, schema = census
    source = tmp_path / "in.csv"
    table.to_csv(source, index=False)

    class Growing(TableFile):
        def chunks(self, rows=1 << 20):
            yield from super().chunks(rows)
            yield table.iloc[:5].astype(str).astype("category")

    with pytest.raises(InputError, match="changed while being read"):
        _write(Growing(source), schema, tmp_path / "out" / "r.parquet", spill=True)
    assert not (tmp_path / "out").exists() or list((tmp_path / "out").iterdir()) == []


def test_the_command_line_spills_a_large_file(census, tmp_path, small_chunks, monkeypatch):
    """From the command line a blocked run of a file larger than its share of the memory
    available is spilled (as with ``--spill always``), and reads back verified."""
    import incrowd.distributed as distributed

    monkeypatch.setattr(distributed, "SPILL_SHARE", 0.0)
    spilled = []
    real = distributed.SpilledBlocks

    def spy(*args, **kwargs):
        spilled.append(True)
        return real(*args, **kwargs)

    monkeypatch.setattr(distributed, "SpilledBlocks", spy)
    table, _ = census
    table.to_csv(tmp_path / "in.csv", index=False)
    out = tmp_path / "r.parquet"
    code = run(["anonymize", str(tmp_path / "in.csv"), "--qi", "age,sex,race,zip",
                "--sensitive", "income", "--k", "5", "--out", str(out), "--scheduler", "sync",
                "--block-size", "2000", "--method", "mdav", "--seed", "1"])  # fmt: skip
    assert code == 0 and spilled == [True]
    assert run(["verify", str(out), "--qi", "age,sex,race,zip", "--k", "5"]) == 0
    monkeypatch.setattr(distributed, "SPILL_SHARE", 1e9)
    again = tmp_path / "again.parquet"
    code = run(["anonymize", str(tmp_path / "in.csv"), "--qi", "age,sex,race,zip",
                "--sensitive", "income", "--k", "5", "--out", str(again), "--scheduler", "sync",
                "--block-size", "2000", "--method", "mdav", "--seed", "1",
                "--spill", "always"])  # fmt: skip
    assert code == 0 and spilled == [True, True]
    assert [p.read_bytes() for p in sorted(out.iterdir())] == [
        p.read_bytes() for p in sorted(again.iterdir())]  # fmt: skip


# --------------------------------------------------------------------------- verification at scale
def test_a_dataset_is_verified_on_dask_workers_as_in_one_process(census, tmp_path):
    from incrowd.distributed import verify_release

    table, schema = census
    written = _write(table, schema, tmp_path / "r.parquet")
    here = verify(written.path, schema.qi_names, 5)
    there = verify_release(written.path, schema.qi_names, 5, scheduler="local", workers=1)
    assert there == here and there.ok and there.n_records == len(table)
    parts = sorted(written.path.iterdir())
    pd.read_parquet(parts[1]).iloc[:3].to_parquet(parts[1])
    report = verify_release(written.path, schema.qi_names, 5, scheduler="local", workers=1)
    assert report == verify(written.path, schema.qi_names, 5)
    assert any(parts[1].name in p for p in report.problems)
    assert any("metadata says" in p for p in report.problems)
    code = run(["verify", str(written.path), "--qi", ",".join(schema.qi_names), "--k", "5",
                "--scheduler", "local", "--workers", "1"])  # fmt: skip
    assert code == 1


def test_a_csv_release_is_verified_chunk_by_chunk(census, tmp_path, monkeypatch):
    """A CSV release is read a chunk at a time; a group split across chunks counts whole,
    and a group below k is found whichever chunks hold its records."""
    from incrowd.io.release_format import ReleaseParts

    table, schema = census
    written = _write(table, schema, tmp_path / "r.csv")
    whole = verify(written.path, schema.qi_names, 5)
    monkeypatch.setattr(ReleaseParts, "CHUNK_ROWS", 7)  # every group spans chunks
    chunked = verify(written.path, schema.qi_names, 5)
    assert chunked == whole and chunked.ok  # 858 chunks: most groups span two
    lines = written.path.read_text().splitlines(keepends=True)
    header, first = lines[0], lines[1]
    odd = first.split(",")
    odd[0] = "17-90" if odd[0] != "17-90" else "18-90"  # a group of its own
    edited = tmp_path / "edited.csv"
    edited.write_text(header + ",".join(odd) + "".join(lines[2:]))
    report = verify(edited, schema.qi_names, 5)
    assert any("fewer than k=5" in p and "smallest has 1" in p for p in report.problems)


def test_a_table_file_is_never_its_own_output(census, tmp_path):
    from incrowd.errors import OutputError

    table, schema = census
    source = _write(table, schema, tmp_path / "r.csv").path  # replaceable as a release
    before = source.read_bytes()
    with pytest.raises(OutputError, match="input"):
        _write(str(source), schema, source)
    assert source.read_bytes() == before


def test_verifying_on_dask_checks_the_request_first(census, tmp_path):
    from incrowd.distributed import verify_release

    table, schema = census
    written = _write(table, schema, tmp_path / "r.parquet")
    with pytest.raises(InputError, match="no quasi-identifiers"):
        verify_release(written.path, [], 5, scheduler="local")
    with pytest.raises(InputError, match="positive integer"):
        verify_release(written.path, schema.qi_names, 0, scheduler="local")


@pytest.mark.parametrize("missing", ["keep", "drop"])
def test_missing_labels_are_cut_on_as_a_value_of_their_own(missing):
    """A blank label cell (kept by default) neither crashes the planning of blocks nor is
    lost: every record is released, dropped apart, or suppressed, and each block verifies."""
    rng = np.random.default_rng(0)
    n = 3000
    sex = rng.choice(["M", "F", ""], n)
    table = pd.DataFrame({"sex": sex, "g": rng.choice(list("abcdefgh"), n)})
    schema = incrowd.Schema.infer(table, ["sex", "g"], missing=missing)
    release = anonymize_blocks(table, schema, 5, block_size=1000, floor=500, scheduler="sync",
                               missing=missing, seed=1)  # fmt: skip
    meta = release.metadata
    assert meta.blocking["n_blocks"] >= 2
    dropped = int((sex == "").sum()) if missing == "drop" else 0
    assert meta.n_dropped_missing == dropped
    assert meta.n_released + meta.n_suppressed + dropped == n
    assert verify(release, ["sex", "g"], 5).ok
    assert not release.table["sex"].isna().any()  # a kept missing cell is never blank
    assert not (release.table["sex"].astype(str).str.strip() == "").any()
