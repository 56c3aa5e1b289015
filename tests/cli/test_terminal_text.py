"""Nothing incrowd prints to a terminal holds a control character of the user's (issue 58
#2): a column name or a cell with an escape sequence (clear the screen, set the title, CSI as
one C1 byte) or a line break is shown escaped (``\\x1b``, ``\\n``) in ``inspect``'s table,
its JSON, error lines (with their flag hints and "the table has:" lists), warning lines
and the app's one-line errors, so a hostile file cannot clear the screen or hide a line."""

from __future__ import annotations

import csv
import json
import re
import subprocess
import sys

import pandas as pd
import pytest

from incrowd.cli.app import run
from incrowd.errors import InputError, one_line, printable

#: Any control character but the line feed that ends each printed line.
CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f]")
NAMES = ["age\x1b[2J", "city\x1b]0;title\x07", "zip\x9b31m", "a\rb", "two\nlines"]


@pytest.fixture
def hostile(tmp_path, monkeypatch):
    """A table whose names and cells hold escape sequences, C1 CSI, CR and LF."""
    rows = [[30 + i % 5, f"c{i % 3}\x1b[2J", f"z{i % 4}\x9b", f"x\ry{i % 2}", f"n\n{i % 2}"]
            for i in range(12)]  # fmt: skip
    pd.DataFrame(rows, columns=NAMES).to_csv(tmp_path / "esc.csv", index=False,
                                             quoting=csv.QUOTE_NONNUMERIC)  # fmt: skip
    monkeypatch.chdir(tmp_path)
    return tmp_path / "esc.csv"


def _clean(text: str) -> None:
    found = CONTROL.search(text)
    assert found is None, f"raw {found.group()!r} in {text!r}"


def test_printable_escapes_every_control_character_and_nothing_else():
    controls = "".join(map(chr, [*range(0x20), 0x7F, *range(0x80, 0xA0)]))
    shown = printable(controls)
    assert CONTROL.search(shown) is None and "\n" not in shown
    assert shown.startswith("\\x00\\x01") and "\\t\\n\\x0b\\x0c\\r" in shown
    assert shown.endswith("\\x7f\\x80" + "".join(f"\\x{c:02x}" for c in range(0x81, 0xA0)))
    plain = "Zürich 中 [b]\\x1b ü\u00a0é"
    assert printable(plain) == plain
    assert printable(shown) == shown  # escaping twice changes nothing


def test_inspect_table_shows_names_and_cells_escaped(hostile, capsys):
    assert run(["inspect", str(hostile)]) == 0
    out, err = capsys.readouterr()
    _clean(out + err)
    lines = out.splitlines()
    assert len(lines) == 2 + len(NAMES)  # a newline in a name adds no line
    for shown in ("age\\x1b[2J", "city\\x1b]0;title\\x07", "zip\\x9b31m", "a\\rb",
                  "two\\nlines", "c0\\x1b[2J", "z0\\x9b", "n\\n0"):  # fmt: skip
        assert shown in out
    # the columns stay aligned: the examples start in the same place on every row
    at = lines[1].index("examples")
    assert all(line[at - 2 : at] == "  " and line[at] != " " for line in lines[2:]), out


def test_inspect_json_escapes_del_and_c1_and_reads_back(hostile, capsys):
    assert run(["inspect", str(hostile), "--json"]) == 0
    out, err = capsys.readouterr()
    _clean(out + err)
    assert [c["column"] for c in json.loads(out)["columns"]] == NAMES


def test_an_error_lists_the_table_s_names_escaped(hostile, capsys):
    assert run(["anonymize", str(hostile), "--qi", "nope", "--k", "2", "--out", "o.csv"]) == 2
    out, err = capsys.readouterr()
    _clean(out + err)
    (line,) = err.strip().splitlines()
    assert line.startswith("error: unknown column 'nope'")
    assert (
        "the table has: age\\x1b[2J, city\\x1b]0;title\\x07, zip\\x9b31m, a\\rb, two\\nlines"
        in line
    )


def test_a_flag_hint_naming_a_column_is_escaped(hostile, capsys):
    city = NAMES[1]
    argv = ["anonymize", str(hostile), "--qi", city, "--numeric", city, "--k", "2", "--out",
            "o.csv"]  # fmt: skip
    assert run(argv) == 2
    out, err = capsys.readouterr()
    _clean(out + err)
    (line,) = err.strip().splitlines()
    assert "--numeric 'city\\x1b]0;title\\x07'" in line, line


def test_warning_lines_are_escaped():
    """Ours and a library's (in a process of its own: pytest records warnings itself)."""
    code = ("import warnings\nfrom incrowd.cli._output import errors\n"
            "from incrowd.errors import IncrowdWarning\nwith errors():\n"
            "    warnings.warn(\"column 'a\\x1b[2J' \\x9b1;1H\\nhidden\", IncrowdWarning)\n"
            "    warnings.warn('library says \\x1b]0;x\\x07', UserWarning)\n")  # fmt: skip
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    _clean(done.stdout + done.stderr)
    assert "warning: column 'a\\x1b[2J' \\x9b1;1H\\nhidden" in done.stderr
    assert "UserWarning: library says \\x1b]0;x\\x07" in done.stderr


def test_error_and_internal_error_lines_are_escaped(capsys):
    import typer

    from incrowd.cli._output import errors

    for raised in (InputError("bad \x1b[2J name\nhere"), RuntimeError("\x9b2J")):
        with pytest.raises(typer.Exit), errors():
            raise raised
    out, err = capsys.readouterr()
    _clean(out + err)
    lines = err.strip().splitlines()
    assert lines[0] == "error: bad \\x1b[2J name\\nhere"
    assert lines[1].startswith("internal error: RuntimeError: \\x9b2J")


def test_the_app_s_one_line_is_escaped():
    assert one_line(InputError("no column 'a\x1b[2J\nb'")) == "error: no column 'a\\x1b[2J\\nb'"
    assert one_line(OSError(2, "gone", "f\x1b[2J")) == "error: gone: f\\x1b[2J"
