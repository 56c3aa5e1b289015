"""Safe by default (issue 57, item 3): the job file ``inspect --write`` proposes publishes no
name, note, phone or id, whatever language or spelling its headers use, and says why each
column got its role; a column the steward publishes as it is that looks like an identifier
or free text is one warning line from ``anonymize`` and a warning of the report's verdict."""

from __future__ import annotations

import json
import tomllib

import numpy as np
import pytest
from typer.testing import CliRunner

from incrowd.cli.app import app

runner = CliRunner()
N = 300
SYLLABLES = ("jan", "ma", "rie", "pi", "et", "zo", "ë", "bjö", "rn", "fran", "çoi", "se", "jo",
             "sé", "an", "na", "lu", "ca", "dub", "ois", "gar", "cí", "a", "vries")  # fmt: skip
#: Header spellings a steward's table may use, per column, in several languages.
HEADERS = {
    "name": ("patient_name", "Naam", "nom", "Nombre y apellidos", "Vorname", "client"),
    "notes": ("notes", "Opmerkingen", "Bemerkung", "remarque", "comentarios", "Info"),
    "phone": ("phone", "telefoon", "Telefon", "téléphone", "telefono", "GSM"),
    "age": ("age", "leeftijd", "Alter", "âge", "edad", "age"),
    "sex": ("sex", "geslacht", "Geschlecht", "sexe", "sexo", "gender"),
    "zip": ("zip", "postcode", "PLZ", "code_postal", "codigo_postal", "zip"),
    "diagnosis": ("diagnosis", "diagnose", "Diagnose", "diagnostic", "diagnostico", "icd"),
    "relat": ("relat", "relat", "relat", "relat", "relat", "relat"),
}
SEPARATORS = (",", ";", "\t", "|", ",", ";")


def invoke(*args):
    result = runner.invoke(app, [str(a) for a in args])
    assert "Traceback" not in result.output and "internal error" not in result.output, result.output
    return result


def person(rng: np.random.Generator) -> str:
    def word() -> str:
        return "".join(rng.choice(SYLLABLES, 2)).capitalize()

    return f"{word()} {word()}"


def write_table(path, variant: int) -> tuple[dict[str, str], list[str]]:
    """A table with a name, notes naming people, a phone, three quasi-identifiers, a
    diagnosis and an integer code, its headers and separator chosen by ``variant``; the
    headers used and every name written."""
    rng = np.random.default_rng(variant)
    header = {key: spellings[variant] for key, spellings in HEADERS.items()}
    names = [person(rng) for _ in range(N)]
    rows = {
        "name": names,
        "notes": [
            f"{nm} phoned, spoke with {person(rng)} about form {i % 7}"
            for i, nm in enumerate(names)
        ],  # fmt: skip
        "phone": [f"06-{rng.integers(10_000_000, 99_999_999)}" for _ in range(N)],
        "age": [str(a) for a in rng.integers(18, 90, N)],
        "sex": list(rng.choice(["F", "M"], N)),
        "zip": [f"{z:05d}" for z in rng.choice([1001, 2142, 2139, 60615, 60614], N)],
        "diagnosis": list(rng.choice(["flu", "asthma", "diabetes"], N)),
        "relat": [str(r) for r in rng.integers(1, 8, N)],
    }
    sep = SEPARATORS[variant]
    lines = [sep.join(header.values())]
    lines += [sep.join(rows[key][i] for key in header) for i in range(N)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    every_name = names + [
        note.split(", spoke with ")[1].split(" about")[0] for note in rows["notes"]
    ]
    return header, every_name


@pytest.mark.parametrize("variant", range(len(SEPARATORS)))
def test_the_proposed_job_publishes_no_name_and_says_why(tmp_path, variant):
    source = tmp_path / "extract.csv"
    header, names = write_table(source, variant)
    job = tmp_path / "incrowd.toml"
    looked = invoke("inspect", source, "--write", job)
    assert looked.exit_code == 0, looked.output
    text = job.read_text(encoding="utf-8")
    written = tomllib.loads(text)["columns"]
    published = set(written["insensitive"]) | set(written["sensitive"])
    for key in ("name", "notes", "phone"):
        assert header[key] in written["identifier"], text
    assert header["relat"] not in published | set(written["qi"]), text  # withheld
    assert not published - {header["diagnosis"]}, text
    # each column's comment says why it got its role
    assert f'"{header["relat"]}" (not published: no list names it)' in text, text
    assert "withheld: nothing says what it is" in text, text
    assert "identifier: " in text and "quasi-identifier: " in text, text

    out = tmp_path / "release.csv"
    qi = ",".join(header[key] for key in ("age", "sex", "zip"))
    made = invoke("anonymize", "--config", job, "--qi", qi, "--k", "5", "--out", out)
    assert made.exit_code == 0, made.output
    assert "looks like" not in made.stderr, made.stderr  # nothing published raw looks so
    report = tmp_path / "report.html"
    reported = invoke("report", source, out, "--out", report)
    assert reported.exit_code == 0, reported.output
    files = [out, out.with_suffix(".json"), report]
    written_text = "\n".join(path.read_text(encoding="utf-8") for path in files)
    leaked = [name for name in names if name in written_text]
    assert not leaked, leaked[:5]


def test_a_column_the_steward_publishes_that_looks_identifying_is_warned_about(tmp_path):
    source = tmp_path / "extract.csv"
    header, names = write_table(source, 1)
    notes, relat = header["notes"], header["relat"]
    out = tmp_path / "release.csv"
    made = invoke("anonymize", source, "--qi", "leeftijd,geslacht,postcode", "--k", "5",
                  "--sensitive", "diagnose", "--insensitive", notes, "--out", out)  # fmt: skip
    assert made.exit_code == 0, made.output
    lines = [line for line in made.stderr.splitlines() if repr(notes) in line]
    assert len(lines) == 1, made.stderr
    assert lines[0].startswith("warning:") and "free text" in lines[0], lines
    assert f"--identifier {notes}" in lines[0], lines
    # the steward's word is honoured: the notes are published; a column with no role is not
    meta = json.loads(out.with_suffix(".json").read_text())
    assert notes not in meta["withheld_columns"] and relat in meta["withheld_columns"]
    assert any(name in out.read_text(encoding="utf-8") for name in names[:20])
    assert f"not published: {header['name']}" in made.stdout, made.stdout

    report = tmp_path / "report.html"
    reported = invoke("report", source, out, "--out", report)
    assert reported.exit_code == 0, reported.output
    assert "verdict: warnings" in reported.stdout, reported.stdout
    said = [line for line in reported.stderr.splitlines() if repr(notes) in line]
    assert len(said) == 1 and "free text" in said[0], reported.stderr
    assert 'data-warning="published-identifying"' in report.read_text(encoding="utf-8")
