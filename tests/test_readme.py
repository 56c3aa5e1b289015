"""Every code block of the README runs: Python blocks are executed, ``incrowd`` command lines
are run, and ``make`` lines name targets of the Makefile. The README stays short: the
documentation site (``docs/``, run by ``tests/test_docs.py``) holds the rest."""

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
BLOCKS = re.findall(r"```(\w+)\n(.*?)```", README, flags=re.S)


def commands(block: str) -> list[str]:
    joined = re.sub(r"\\\n\s*", " ", block)
    lines = [line.split(" #")[0].strip() for line in joined.splitlines()]
    return [line for line in lines if line and not line.startswith("#")]


def test_the_readme_has_code_blocks():
    kinds = {kind for kind, _ in BLOCKS}
    assert {"sh", "python"} <= kinds, kinds


def test_the_readme_is_short_and_shows_its_two_commands():
    assert len(README.splitlines()) <= 250
    commands_shown = [line.split("#")[0].strip() for kind, body in BLOCKS if kind == "sh"
                      for line in body.splitlines()]  # fmt: skip
    assert "make demo" in commands_shown and "make test" in commands_shown
    assert "## Data attribution" in README


@pytest.fixture
def workdir(tmp_path):
    (tmp_path / "src").symlink_to(ROOT / "src")  # the README's paths are repo-relative
    return tmp_path


def run_shell(block: str, workdir: Path, where: str) -> None:
    """Run a block's ``incrowd`` command lines in ``workdir``; a ``make`` line must name a
    target of the Makefile (the README's and the docs' blocks alike)."""
    makefile = (ROOT / "Makefile").read_text()
    for line in commands(block):
        words = shlex.split(line)
        if words[0] == "make":
            assert re.search(rf"^{re.escape(words[1])}:", makefile, flags=re.M), (where, line)
            continue
        assert words[0] == "incrowd", f"{where}: unexpected command: {line}"
        done = subprocess.run(
            [sys.executable, "-m", "incrowd", *words[1:]], cwd=workdir, capture_output=True,
            text=True,
        )  # fmt: skip
        assert done.returncode == 0, (where, line, done.stdout, done.stderr)


@pytest.mark.parametrize("index", [i for i, (kind, _) in enumerate(BLOCKS) if kind == "sh"])
def test_shell_blocks_run(workdir, index):
    run_shell(BLOCKS[index][1], workdir, "the README")


@pytest.mark.parametrize("index", [i for i, (kind, _) in enumerate(BLOCKS) if kind == "python"])
def test_python_blocks_run(workdir, monkeypatch, index):
    monkeypatch.chdir(workdir)
    exec(compile(BLOCKS[index][1], f"README.md block {index}", "exec"), {})
