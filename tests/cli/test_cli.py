import json
import os
import signal
import subprocess
import sys
import time

import pandas as pd
import pytest
from strategies import PEOPLE
from typer.testing import CliRunner

from incrowd.cli import app as cli
from incrowd.cli.app import app
from incrowd.datasets import adult_hierarchy_path

runner = CliRunner()
QI_ARGS = ("--qi", "age,sex,zip", "--hierarchy", "zip=prefix",
           "--hierarchy", f"sex={adult_hierarchy_path('sex')}")  # fmt: skip


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture
def people(tmp_path):
    frame = PEOPLE
    path = tmp_path / "people.csv"
    frame.to_csv(path, index=False, sep=";")
    return path


def assert_clean_failure(result, tmp_path, pattern):
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), result.stderr
    assert pattern in lines[0], lines[0]
    assert "Traceback" not in result.output
    leftovers = [p.name for p in tmp_path.iterdir() if p.name.startswith(("out", ".out"))]
    assert leftovers == []


def anonymize(path, tmp_path, *extra):
    return invoke("anonymize", path, "--out", tmp_path / "out.csv", *extra)


def test_round_trip_anonymize_verify_evaluate(people, tmp_path):
    result = anonymize(
        people, tmp_path, *QI_ARGS, "--sensitive", "disease", "--identifier", "name",
        "--k", "3", "--seed", "4",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "k achieved" in result.stdout and "wrote" in result.stdout
    out = pd.read_csv(tmp_path / "out.csv", dtype=str, sep=";")  # the input's separator
    assert list(out.columns) == ["age", "sex", "zip", "disease"]
    assert "(separator ';', as the input's)" in result.stdout
    meta = json.loads((tmp_path / "out.json").read_text())
    assert meta["n_input"] == 12 and meta["k"] == 3 and meta["seed"] == 4
    ok = invoke("verify", tmp_path / "out.csv", "--qi", "age,sex,zip", "--k", "3")
    assert ok.exit_code == 0 and "OK" in ok.stdout
    too_much = invoke("verify", tmp_path / "out.csv", "--qi", "age,sex,zip", "--k", "7")
    assert too_much.exit_code == 1 and "FAILED" in too_much.stderr
    ev = invoke("evaluate", people, tmp_path / "out.csv", *QI_ARGS)
    assert ev.exit_code == 0 and "ncp" in ev.stdout


@pytest.mark.parametrize("form", ["microaggregated", "centers"])
def test_other_release_forms(people, tmp_path, form):
    result = anonymize(
        people,
        tmp_path,
        "--qi",
        "age,sex",
        "--sensitive",
        "disease",
        "--k",
        "4",
        "--release",
        form,
        "--param",
        "variant='single'",
    )
    assert result.exit_code == 0, result.output
    assert invoke("verify", tmp_path / "out.csv", "--qi", "age,sex", "--k", "4").exit_code == 0


def test_job_file_with_flags_overriding(people, tmp_path):
    job = tmp_path / "job.toml"
    job.write_text(
        f'input = "{people.name}"\nout = "out.csv"\nk = 2\nseed = 1\nmethod = "mdav"\n'
        '[columns]\nqi = ["age", "zip"]\nidentifier = ["name"]\n'
        '[hierarchy]\nzip = "prefix"\n[params]\nvariant = "single"\n'
    )
    result = invoke("anonymize", "--config", job, "--k", "4")
    assert result.exit_code == 0, result.output
    meta = json.loads((tmp_path / "out.json").read_text())
    assert meta["k"] == 4 and meta["parameters"]["variant"] == "single"
    assert meta["withheld_columns"] == ["name", "sex", "disease"]


def test_missing_input_and_no_out(tmp_path):
    result = invoke(
        "anonymize", tmp_path / "nope.csv", "--qi", "a", "--k", "2", "--out", tmp_path / "out.csv"
    )
    assert_clean_failure(result, tmp_path, "input file not found")
    result = invoke("anonymize", tmp_path / "nope.csv", "--qi", "a", "--k", "2")
    assert_clean_failure(result, tmp_path, "missing --out")


def test_numbers_with_some_text_name_row_and_value(tmp_path):
    ages = [str(20 + i) for i in range(30)]
    ages[17] = "unknown"
    path = tmp_path / "in.csv"
    pd.DataFrame({"age": ages}).to_csv(path, index=False)
    result = anonymize(path, tmp_path, "--qi", "age", "--k", "2")
    assert_clean_failure(result, tmp_path, "row 18 holds 'unknown'")
    assert "categorical" in result.stderr and "--na-values" in result.stderr
    fixed = anonymize(path, tmp_path, "--qi", "age", "--k", "2", "--categorical", "age")
    assert fixed.exit_code == 0, fixed.output


def test_missing_values_are_kept_dropped_apart_or_refused(tmp_path):
    path = tmp_path / "in.csv"
    path.write_text("age,sex\n30,F\n,M\n31,\n32,F\n33,M\n34,F\n")
    refused = anonymize(path, tmp_path, "--qi", "age,sex", "--k", "2", "--missing", "error")
    assert_clean_failure(refused, tmp_path, "column 'age' has 1 missing value(s) (first in row 2)")
    assert "--missing drop" in refused.stderr and "--missing keep" in refused.stderr
    dropped = anonymize(path, tmp_path, "--qi", "age,sex", "--k", "2", "--missing", "drop")
    assert dropped.exit_code == 0, dropped.output
    assert "(0 suppressed, 2 left out for a missing value)" in dropped.stdout
    meta = json.loads((tmp_path / "out.json").read_text())
    assert (meta["n_input"], meta["n_released"], meta["n_suppressed"]) == (6, 4, 0)
    assert meta["n_dropped_missing"] == 2
    assert invoke("verify", tmp_path / "out.csv").exit_code == 0
    kept = anonymize(path, tmp_path, "--qi", "age,sex", "--k", "2")  # the default: keep
    assert kept.exit_code == 0, kept.output
    assert "column 'age' has 1 missing value(s), kept" in kept.stderr
    meta = json.loads((tmp_path / "out.json").read_text())
    assert (meta["n_released"], meta["n_suppressed"], meta["n_dropped_missing"]) == (6, 0, 0)
    published = pd.read_csv(tmp_path / "out.csv", dtype=str, keep_default_na=False)
    assert "" not in set(published["sex"])  # a missing cell is (missing) or *, never blank


def test_verify_bad_input_and_methods(tmp_path):
    result = invoke("verify", tmp_path / "none.csv", "--qi", "a", "--k", "2")
    assert result.exit_code == 2 and "not found" in result.stderr
    listing = invoke("methods")
    assert listing.exit_code == 0 and "mdav" in listing.stdout and "exact" in listing.stdout


def test_console_script_runs(people, tmp_path):
    exe = [sys.executable, "-m", "incrowd.cli.app"]
    ok = subprocess.run(
        exe
        + [
            "anonymize",
            str(people),
            "--qi",
            "age,sex",
            "--k",
            "3",
            "--out",
            str(tmp_path / "out.csv"),
        ],
        capture_output=True,
        text=True,
    )
    assert ok.returncode == 0, ok.stderr
    bad = subprocess.run(
        exe
        + ["anonymize", str(people), "--qi", "age", "--k", "1", "--out", str(tmp_path / "o2.csv")],
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert not (tmp_path / "o2.csv").exists()


def test_gather_methods_from_the_command_line(people, tmp_path):
    result = anonymize(people, tmp_path, "--qi", "age,sex", "--k", "3", "--method",
                       "kr-center-outliers", "--epsilon", "0.2", "--max-clusters", "3",
                       "--norm", "1", "--release", "centers")  # fmt: skip
    assert result.exit_code == 0, result.output
    meta = json.loads((tmp_path / "out.json").read_text())
    assert meta["parameters"]["max_clusters"] == 3 and meta["parameters"]["epsilon"] == 0.2
    assert meta["parameters"]["norm"] == 1 and meta["approximation_ratio"] == 4.0
    assert meta["lower_bound"] > 0 and "certified ratio" in result.stdout
    assert meta["n_suppressed"] <= 2
    assert invoke("verify", tmp_path / "out.csv", "--qi", "age,sex", "--k", "3").exit_code == 0


def test_forest_with_sets_weights_and_deletion(people, tmp_path):
    result = anonymize(
        people, tmp_path, *QI_ARGS, "--sensitive", "disease", "--k", "3", "--seed", "2",
        "--method", "forest", "--generalize", "sets", "--weights", "zip=3,age=0.5",
        "--allow-deletion",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    meta = json.loads((tmp_path / "out.json").read_text())
    assert meta["generalize"] == "sets" and meta["method"] == "forest"
    assert meta["parameters"]["allow_deletion"] is True
    assert meta["n_released"] + meta["n_suppressed"] == 12
    assert meta["certified_ratio"] >= 1.0 and meta["approximation_ratio"] == 5.0
    out = pd.read_csv(tmp_path / "out.csv", dtype=str, sep=";")
    assert len(out) == meta["n_released"]
    check = invoke("verify", tmp_path / "out.csv", "--qi", "age,sex,zip", "--k", "3")
    assert check.exit_code == 0, check.output


def test_job_file_weights_and_generalize(people, tmp_path):
    job = tmp_path / "job.toml"
    job.write_text(
        f'input = "{people.name}"\nout = "out.csv"\nk = 3\nmethod = "forest"\n'
        'generalize = "sets"\n[columns]\nqi = ["age", "sex"]\n[weights]\nsex = 4\n'
    )
    result = invoke("anonymize", "--config", job)
    assert result.exit_code == 0, result.output
    meta = json.loads((tmp_path / "out.json").read_text())
    assert meta["generalize"] == "sets"
    out = pd.read_csv(tmp_path / "out.csv", dtype=str, sep=";")
    assert not out["sex"].str.startswith("{").any()  # sex weighs 4: crowds keep it exact


@pytest.mark.parametrize(
    ("method", "k", "extra"),
    [("2-microaggregation", "2", ("--release", "microaggregated")),
     ("2-anonymity", "2", ()), ("3-anonymity", "3", ())],
)  # fmt: skip
def test_factor_methods_from_the_command_line(people, tmp_path, method, k, extra):
    result = anonymize(people, tmp_path, *QI_ARGS, "--k", k, "--method", method, *extra)
    assert result.exit_code == 0, result.output
    meta = json.loads((tmp_path / "out.json").read_text())
    assert meta["k_achieved"] >= int(k) and meta["certified_ratio"] >= 1.0


def test_help_marks_required_options_and_shows_defaults():
    result = runner.invoke(app, ["anonymize", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    text = " ".join(result.output.split())
    bare = "".join(text.split())  # click wraps at 80 columns, also inside "local-recoding"
    assert text.count("(required unless given in --config)") >= 3  # INPUT, --qi, --k, --out
    assert "[default:(local-recoding(generalizedrelease),mdav(theothers))]" in bare
    assert "[default: (generalized)]" in text
    assert "--drop-missing" not in text  # one missing-values flag: --missing


def test_crowds_and_published_groups_are_both_explained(people, tmp_path):
    # ages alone, k = 3: crowds whose ranges coincide merge into one published group
    result = anonymize(people, tmp_path, "--qi", "sex", "--k", "3", "--method", "forest")
    assert result.exit_code == 0, result.output
    meta = json.loads((tmp_path / "out.json").read_text())
    assert meta["n_groups"] <= meta["n_crowds"]
    if meta["n_groups"] < meta["n_crowds"]:
        assert "groups of identical quasi-identifiers" in result.stdout
    check = invoke("verify", tmp_path / "out.csv", "--qi", "sex", "--k", "3")
    assert f"in {meta['n_groups']} groups of identical quasi-identifiers" in check.stdout


def test_python_dash_m_incrowd_works():
    done = subprocess.run([sys.executable, "-m", "incrowd", "--version"], capture_output=True,
                          text=True)  # fmt: skip
    assert done.returncode == 0 and done.stdout.startswith("incrowd ")


def test_help_imports_nothing_heavy():
    """``incrowd --help`` lists the commands and their defaults without pandas or the
    compiled kernels (0.2 s instead of 0.9 s on the development machine)."""
    probe = ("import sys; sys.argv = ['incrowd', 'anonymize', '--help']\n"
             "from incrowd.cli.app import main\n"
             "try:\n    main()\nexcept SystemExit:\n    pass\n"
             "heavy = ('pandas', 'numba', 'scipy', 'sklearn')\n"
             "print(sorted(m for m in heavy if m in sys.modules))")  # fmt: skip
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "--qi" in done.stdout and "generalized" in done.stdout
    assert done.stdout.strip().splitlines()[-1] == "[]"


@pytest.mark.parametrize("argv", [["--help"], ["methods"]])
def test_listing_the_commands_or_the_methods_loads_no_heavy_library(argv):
    """The command modules import their libraries when they run, so ``incrowd --help`` and
    ``incrowd methods`` start without the kernels, the tables, the algorithms (the catalogue
    only) or the validators typer builds for option values (pydantic)."""
    probe = ("import sys\n"
             "from incrowd.cli.app import main\n"
             f"sys.argv = ['incrowd', *{argv!r}]\n"
             "try:\n    main()\nexcept SystemExit as e:\n    assert not e.code, e.code\n"
             "heavy = ('numba', 'pandas', 'scipy', 'pydantic', 'incrowd.algorithms.')\n"
             "print(sorted(m for m in sys.modules if m.startswith(heavy)\n"
             "             and m != 'incrowd.algorithms.catalogue'))")  # fmt: skip
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "anonymize" in done.stdout or "mdav" in done.stdout
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_a_release_loads_the_solvers_only_where_it_solves(tmp_path):
    """``scipy.optimize`` (0.1–0.2 s to import) loads on first use: not for a labels or
    value-set release of local recoding without its search."""
    table = tmp_path / "t.csv"
    table.write_text("age,sex,zip\n" + "".join(f"{30 + i % 7},{'MF'[i % 2]},{100 + i % 5}\n"
                                                 for i in range(60)))  # fmt: skip
    probe = ("import sys\n"
             "from incrowd.cli.app import main\n"
             "table, out = sys.argv[1:]\n"
             "for n, form in enumerate(('levels', 'sets')):\n"
             "    sys.argv = ['incrowd', 'anonymize', table, '--qi', 'age,sex,zip', '--k', '5',\n"
             "                '--release', 'generalized', '--generalize', form,\n"
             "                '--categorical', 'sex,zip', '--out', f'{out}{n}.csv']\n"
             "    try:\n        main()\n    except SystemExit as e:\n        assert not e.code\n"
             "print('scipy.optimize' in sys.modules)")  # fmt: skip
    done = subprocess.run([sys.executable, "-c", probe, str(table), str(tmp_path / "out")],
                          capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out0.csv").exists() and (tmp_path / "out1.csv").exists()
    assert done.stdout.strip().splitlines()[-1] == "False"


#: A command line whose search calls ``noisy()``, which the caller's code (``{noisy}``)
#: defines, before each of its programs; the command's arguments follow.
SEARCH_PROBE = ("import os, sys\n"
                "from incrowd.algorithms.recoding import _search as s\n"
                "real = s._resplit\n"
                "{noisy}"
                "def resplit(*a):\n"
                "    noisy()\n"
                "    return real(*a)\n"
                "s._resplit = resplit\n"
                "from incrowd.cli.app import main\n"
                "sys.argv = ['incrowd', *sys.argv[1:]]\n"
                "main()\n")  # fmt: skip


def search_probe(people, out, noisy: str, mark, seconds: float) -> subprocess.Popen:
    """``incrowd anonymize`` of ``people`` (its labels searched for ``seconds``) with
    ``noisy`` run before each of the search's programs; ``mark`` names a file in ``MARK``."""
    args = ["anonymize", people, "--out", out, "--qi", "sex,zip", "--hierarchy", "zip=prefix",
            "--hierarchy", f"sex={adult_hierarchy_path('sex')}", "--k", "3", "--param",
            f"search_seconds={seconds}", "--quiet"]  # fmt: skip
    return subprocess.Popen([sys.executable, "-c", SEARCH_PROBE.format(noisy=noisy),
                             *map(str, args)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=os.environ | {"MARK": str(mark)})  # fmt: skip


def test_a_native_librarys_console_line_stays_out_of_the_summary(people, tmp_path):
    """HiGHS prints a debugging line on descriptor 1 now and then inside the search's
    programs; a stand-in writes one there before every program, and standard output must
    hold the summary alone."""
    noisy = ("def noisy():\n"
             "    os.write(1, b'NATIVE NOISE\\n')\n"
             "    open(os.environ['MARK'], 'a').write('x')\n")  # fmt: skip
    mark = tmp_path / "programs"
    proc = search_probe(people, tmp_path / "out.csv", noisy, mark, 1.5)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert mark.read_text().startswith("x")  # the search ran its programs
    assert "NATIVE NOISE" not in out and "NATIVE NOISE" not in err
    assert out.startswith("released 12 of 12 records") and "wrote" in out


def test_a_kill_while_the_search_runs_its_programs_stops_quietly(people, tmp_path):
    """SIGTERM once the search's worker threads run programs: exit 143, with no traceback,
    nothing printed and no file left behind."""
    noisy = ("import time\n"
             "def noisy():\n"
             "    open(os.environ['MARK'], 'a').write('x')\n"
             "    time.sleep(0.05)  # many programs: a kill lands while one runs\n")  # fmt: skip
    mark, outs = tmp_path / "programs", tmp_path / "release"
    outs.mkdir()
    proc = search_probe(people, outs / "out.csv", noisy, mark, 60.0)
    deadline = time.monotonic() + 60
    while not (mark.exists() and len(mark.read_text()) >= 5) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert mark.exists(), "the search never started"
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert "Traceback" not in err and "internal error" not in err and out == "", err
    assert list(outs.iterdir()) == []


def test_descriptor_1_is_hidden_and_given_back_or_left_where_it_cannot_be(monkeypatch, tmp_path):
    from incrowd.cli import _output as _cli_output

    def where() -> tuple[int, int]:
        status = os.fstat(1)
        return status.st_dev, status.st_ino

    null = os.stat(os.devnull)
    before = where()
    with _cli_output.native_stdout_hidden():
        assert where() == (null.st_dev, null.st_ino)
    assert where() == before
    monkeypatch.setattr(_cli_output.os, "devnull", str(tmp_path / "none" / "null"))
    with _cli_output.native_stdout_hidden():  # no null device: nothing to hide it in
        assert where() == before
    assert where() == before


def test_a_kill_swallowed_by_a_c_callback_stops_at_the_next_stage(monkeypatch):
    """numba's compiler calls back into Python; SystemExit raised there by the SIGTERM
    handler is swallowed (and reported as unraisable). The next stage must stop, quietly."""
    from types import SimpleNamespace

    from incrowd.cli import _output as _cli_output

    monkeypatch.setattr(_cli_output, "TERMINATED", [])
    with _cli_output.progress(False) as stage:
        stage("forming crowds")  # no kill yet: goes on
        _cli_output.TERMINATED.append(15)
        with pytest.raises(SystemExit) as stopped:
            stage("publishing")
    assert stopped.value.code == 128 + 15
    shown = []
    monkeypatch.setattr(sys, "__unraisablehook__", shown.append)
    _cli_output.quiet_unraisable(SimpleNamespace(exc_value=SystemExit(143)))
    assert shown == []  # the swallowed kill is not a traceback to show
    other = SimpleNamespace(exc_value=ValueError("x"))
    _cli_output.quiet_unraisable(other)
    assert shown == [other]  # anything else is reported as Python does


def test_a_kill_put_off_as_the_work_ends_is_not_lost(monkeypatch):
    """A kill that the handler put off (its frame unsafe) while the command finished: the
    redelivery would come after the exit, so the exit code says the kill (143), not 0.
    (``benchmarks/kill_anytime.py`` saw a killed run end 0, 0.01 s after its kill.)"""
    terminated: list[int] = []
    monkeypatch.setattr(cli, "TERMINATED", terminated)

    def finished(**_: object) -> int:
        terminated.append(signal.SIGTERM)  # as terminate() does before it puts the kill off
        return 0

    monkeypatch.setattr(cli, "app", finished)
    assert cli.run(["anonymize"]) == 128 + signal.SIGTERM
    terminated.clear()
    monkeypatch.setattr(cli, "app", lambda **_: 0)
    assert cli.run(["anonymize"]) == 0


def test_a_kill_waits_while_native_threads_or_the_compiler_hold_our_arrays(monkeypatch):
    """Inside a wait for worker threads (SciPy's threaded queries) or a JIT callback the
    SIGTERM handler must not unwind: it delivers the signal again a moment later."""
    import threading
    from types import SimpleNamespace

    from incrowd.cli import _output as _cli_output

    def frame(filename, name, back=None):  # noqa: ANN001, ANN202
        return SimpleNamespace(f_code=SimpleNamespace(co_filename=filename, co_name=name),
                               f_back=back)  # fmt: skip

    sent = threading.Event()
    monkeypatch.setattr(_cli_output.os, "kill", lambda pid, sig: sent.set())
    monkeypatch.setattr(_cli_output, "TERMINATED", [])
    ours = frame("/src/incrowd/space/neighbours/index.py", "_tree_lists")
    joining = frame("/usr/lib/python3.11/threading.py", "join", ours)
    compiling = frame("/site/llvmlite/binding/executionengine.py", "_notify", ours)
    loading = frame("/site/numba/core/caching.py", "load_overload",
                    frame("/site/numba/core/dispatcher.py", "_compile_for_args", ours))  # fmt: skip
    starting = frame("/usr/lib/python3.11/threading.py", "wait",
                     frame("/usr/lib/python3.11/threading.py", "start", ours))  # fmt: skip
    for unsafe in (joining, compiling, loading, starting):
        sent.clear()
        _cli_output.terminate(15, unsafe)  # returns: no unwinding here
        assert sent.wait(5), "the kill was not delivered again"
    with pytest.raises(SystemExit) as stopped:
        _cli_output.terminate(15, ours)
    assert stopped.value.code == 143 and _cli_output.TERMINATED == [15]


@pytest.mark.parametrize(
    ("method", "extra"),
    [("r-cellular", ()), ("r-cellular-outliers", ("--epsilon", "0.1")),
     ("cellular", ("--param", "setup_cost=5"))],
)  # fmt: skip
@pytest.mark.parametrize("form", ["centers", "generalized", "microaggregated"])
def test_cellular_methods_from_the_command_line(people, tmp_path, method, extra, form):
    result = anonymize(
        people, tmp_path, *QI_ARGS, "--sensitive", "disease", "--identifier", "name",
        "--k", "3", "--method", method, "--release", form, *extra,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    meta = json.loads((tmp_path / "out.json").read_text())
    assert meta["method"] == method and meta["objective"] == "cellular"
    assert meta["cost"] == pytest.approx(meta["loss"]["cellular"])
    assert 0 <= meta["lower_bound"] <= meta["cost"] + 1e-9
    assert meta["certificate"]["lower_bound_from"] in (
        "dual",
        "least radius per record",
        "least radius and setup share per record",
    )
    out = pd.read_csv(tmp_path / "out.csv", dtype=str, sep=";")
    if form == "centers":
        counts = out["count"].astype(int)
        assert (counts >= 3).all() and counts.sum() == meta["n_released"]
    ok = invoke("verify", tmp_path / "out.csv", "--qi", "age,sex,zip", "--k", "3")
    assert ok.exit_code == 0, ok.output


# ---------------------------------------------------------------- issue 43: files and options
def test_verify_fails_a_release_with_no_records(tmp_path):
    (tmp_path / "empty.csv").write_text("age,sex\n")
    result = invoke("verify", tmp_path / "empty.csv", "--qi", "age,sex", "--k", "2")
    assert result.exit_code == 1, result.output
    assert "holds no records" in result.stderr and "OK" not in result.stdout


def test_an_unwritable_output_folder_is_refused_before_the_input_is_read():
    """The check comes before any work: the input named here does not even exist. Root
    writes anywhere, so as root the command runs with another user's rights (in a folder
    that user can reach: pytest's own are private)."""
    import shutil
    import tempfile
    from pathlib import Path

    base = Path(tempfile.mkdtemp(prefix="incrowd-test-"))
    try:
        _unwritable_folder_case(base)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _unwritable_folder_case(base):
    (base / "ro").mkdir(mode=0o555)
    base.chmod(0o755)
    argv = ["anonymize", str(base / "nope.csv"), "--qi", "age", "--k", "2",
            "--out", str(base / "ro" / "sub" / "out.csv")]  # fmt: skip
    env = {**os.environ, "HOME": str(base)}
    command = [sys.executable, "-m", "incrowd", *argv]
    if os.geteuid() == 0:
        command = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", *command]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith("error: cannot write"), done.stderr
    assert "ro is not writable" in done.stderr, done.stderr
    assert sorted(p.name for p in base.rglob("*")) == ["ro"]


def test_a_scheduler_that_would_not_be_used_is_one_warning(people, tmp_path):
    """A table that fits one block is anonymized in this process: --scheduler and --workers
    then do nothing, and the user is told so (once), not silently ignored."""
    result = anonymize(people, tmp_path, "--qi", "age", "--k", "3",
                       "--scheduler", "tcp://127.0.0.1:1")  # fmt: skip
    assert result.exit_code == 0, result.output
    warned = [x for x in result.stderr.splitlines() if x.startswith("warning:")]
    assert len(warned) == 1 and "--scheduler has no effect" in warned[0], result.stderr
    result = invoke("verify", tmp_path / "out.csv", "--qi", "age", "--k", "3", "--workers", "2")
    assert result.exit_code == 0, result.output
    assert result.stderr.count("warning:") == 1 and "no effect" in result.stderr


def test_homogeneous_classes_are_one_warning_line_and_a_risk_line(tmp_path):
    # two crowds of 3: one holds only "flu" (attribute disclosure), the other two values
    table = pd.DataFrame({"age": [20, 21, 22, 60, 61, 62], "sex": ["f"] * 3 + ["m"] * 3,
                          "disease": ["flu"] * 3 + ["cold", "flu", "cold"]})  # fmt: skip
    path = tmp_path / "small.csv"
    table.to_csv(path, index=False)
    made = anonymize(path, tmp_path, "--qi", "age,sex", "--sensitive", "disease", "--k", "3",
                     "--seed", "1")  # fmt: skip
    assert made.exit_code == 0, made.output
    warned = [line for line in made.stderr.splitlines() if line.startswith("warning:")]
    assert len(warned) == 1, made.stderr
    assert "1 of 2 published classes (3 records)" in warned[0] and "--l 2" in warned[0]
    risk = invoke("risk", path, tmp_path / "out.csv", "--qi", "age,sex")
    assert risk.exit_code == 0, risk.output
    assert "attribute disclosure of 'disease': 3 records in 1 classes" in risk.stdout
