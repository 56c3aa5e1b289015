"""``incrowd report`` as a command: provenance hashes passed to the page, a stale release
refused, the exit code by ``--fail-on``, replacing only its own report (sealed, and never
edited since), and ``--pdf`` through headless Chromium (a skip under ``CI=true`` is a
failure)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import incrowd.report
from incrowd.cli.app import app, run
from incrowd.errors import OutputError
from incrowd.io import targets
from incrowd.io.targets import REPORT_GENERATOR, REPORT_SEAL, is_report, seal_report
from incrowd.report import pdf as pdf_engine

runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """A small table whose young records all have the flu, and its k = 5 release written by
    the command line (so its metadata records the input's SHA-256): some published classes
    hold a single value of ``disease``."""
    folder = tmp_path_factory.mktemp("made")
    rng = np.random.default_rng(0)
    n = 120
    age = rng.integers(20, 70, n)
    disease = np.where(age < 35, "flu", rng.choice(["flu", "cold", "asthma"], n))
    table = pd.DataFrame({"age": age, "sex": rng.choice(["f", "m"], n), "disease": disease})
    table.to_csv(folder / "t.csv", index=False)
    args = ["anonymize", folder / "t.csv", "--qi", "age,sex", "--sensitive", "disease", "--k",
            "5", "--seed", "0", "--method", "kd-rectangles", "--out", folder / "r.csv"]  # fmt: skip
    assert run([str(a) for a in args]) == 0
    return folder


@pytest.fixture
def work(made, tmp_path):
    for name in ("t.csv", "r.csv", "r.json"):
        shutil.copy(made / name, tmp_path / name)
    return tmp_path


def report(work, *extra, out="r.html"):
    return invoke("report", work / "t.csv", work / "r.csv", "--out", work / out, *extra)


def one_error(result, *fragments):
    assert result.exit_code == 2, result.output
    lines = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(lines) == 1, result.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    assert "Traceback" not in result.output


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_the_hashes_of_the_files_on_disk_and_the_threshold_reach_the_page(work, monkeypatch):
    seen = {}
    real = incrowd.report.build_report

    def spy(*args, **kwargs):
        seen.update(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(incrowd.report, "build_report", spy)
    result = report(work, "--risk-threshold", "0.5")
    assert result.exit_code == 0, result.output
    assert seen["sources"] == {"input": ("t.csv", sha256(work / "t.csv")),
                               "release": ("r.csv", sha256(work / "r.csv"))}  # fmt: skip
    assert seen["risk_threshold"] == 0.5
    assert seen["title"] == "incrowd report: r.csv"
    assert is_report(work / "r.html")


def test_a_stale_release_is_refused_and_nothing_is_written(work):
    table = (work / "r.csv").read_text()
    (work / "r.csv").write_text(table.replace("flu", "cold", 1))  # edited after its metadata
    one_error(report(work), str(work / "r.csv"), "no longer matches its metadata r.json")
    assert sorted(p.name for p in work.iterdir()) == ["r.csv", "r.json", "t.csv"]


def test_another_input_is_reported_but_the_report_is_written(work):
    table = (work / "t.csv").read_text()
    (work / "t.csv").write_text(table + table.splitlines()[1] + "\n")
    result = report(work)
    assert result.exit_code == 0, result.output
    said = [line for line in result.stderr.splitlines() if "is not the input" in line]
    assert len(said) == 1 and said[0].startswith("warning: t.csv"), result.stderr  # once
    assert (work / "r.html").is_file()


def test_fail_on_warning_fails_on_a_constant_sensitive_class(work):
    result = report(work, "--fail-on", "warning")
    assert result.exit_code == 1, result.output
    assert (work / "r.html").is_file()  # written whatever the verdict
    assert "verdict: warnings" in result.stdout.splitlines()
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert any("disease" in line for line in warnings), result.stderr
    again = report(work, "--fail-on", "failure", out="again.html")
    assert again.exit_code == 0, again.output
    assert "verdict: warnings" in again.stdout.splitlines()


def test_a_failing_verdict_exits_1_with_the_report_written(work):
    """A release re-published by hand (its metadata's SHA-256 updated to match) in which one
    record stands alone: k fails, read from the published file."""
    lines = (work / "r.csv").read_text().splitlines()
    age = lines[1].split(",")
    lines[1] = ",".join(["0-1", *age[1:]])
    (work / "r.csv").write_text("\n".join(lines) + "\n")
    meta = json.loads((work / "r.json").read_text())
    meta["table_sha256"] = sha256(work / "r.csv")
    meta["table_bytes"] = (work / "r.csv").stat().st_size
    (work / "r.json").write_text(json.dumps(meta))
    result = report(work)
    assert result.exit_code == 1, result.output
    assert "verdict: fails" in result.stdout.splitlines()
    assert (work / "r.html").is_file()  # written whatever the verdict


@pytest.mark.parametrize(
    ("flag", "value"),
    [("--fail-on", "warnings"), ("--risk-threshold", "0"), ("--risk-threshold", "1.5")],
)
def test_bad_options_are_one_line_before_any_work(work, flag, value):
    one_error(report(work, flag, value), flag)
    assert not (work / "r.html").exists()


def test_the_report_replaces_its_own_report_only(work):
    assert report(work).exit_code == 0
    page = work / "r.html"
    first = page.read_bytes()
    head = first.decode().split("<body", 1)[0]
    assert REPORT_GENERATOR in head and REPORT_SEAL in head
    result = report(work)  # sealed and unchanged: replaced, by the same bytes
    assert result.exit_code == 0, result.output
    assert page.read_bytes() == first
    foreign = work / "notes.html"
    foreign.write_text("<html><head><title>my notes</title></head><body>mine</body></html>")
    one_error(report(work, out="notes.html"), str(foreign), "is not a report incrowd wrote")
    assert (
        foreign.read_text() == "<html><head><title>my notes</title></head><body>mine</body></html>"
    )
    (work / "r.pdf").write_bytes(b"%PDF-1.4 someone else's")
    one_error(report(work, "--pdf"), str(work / "r.pdf"), "is not a report incrowd wrote")
    assert (work / "r.pdf").read_bytes() == b"%PDF-1.4 someone else's"


@pytest.mark.parametrize("edit", ["one character", "a comment appended", "an older page"])
def test_an_edited_or_unsealed_report_is_never_replaced(work, edit):
    """A steward's edit of a written report (one character of its body, or a note appended),
    or a page written before the seal (the generator's meta, no seal): refused with one
    line, before any work, the file unchanged byte for byte, also with --pdf."""
    assert report(work).exit_code == 0
    page = work / "r.html"
    text = page.read_text()
    if edit == "one character":
        body = text.index("<body")
        at = text.index("incrowd report", body)
        text = text[:at] + "I" + text[at + 1 :]
    elif edit == "a comment appended":
        text += "<!-- checked by the steward -->"
    else:
        seal = text.index(REPORT_SEAL)
        text = text[: seal - 1] + text[text.index(">", seal) + 1 :]  # its line, as before
        assert REPORT_GENERATOR in text and "incrowd-seal" not in text
    page.write_text(text)
    edited = page.read_bytes()
    assert not is_report(page)
    for extra in ((), ("--pdf",)):
        one_error(report(work, *extra), str(page), "was changed since incrowd wrote it",
                  "not written by this version", "choose another name")  # fmt: skip
        assert page.read_bytes() == edited
        assert not (work / "r.pdf").exists()


def test_the_seal_is_the_sha256_of_the_page_and_the_same_for_the_same_page(tmp_path):
    page = (f'<!DOCTYPE html>\n<html><head>\n{REPORT_GENERATOR} 1.0">\n<title>t</title>'
            "</head><body>é</body></html>").encode()  # fmt: skip
    sealed = seal_report(page)
    assert sealed == seal_report(page) == seal_report(sealed)  # deterministic, idempotent
    line = sealed.split(b"\n")[3].decode()
    assert line.startswith(REPORT_SEAL) and line.endswith('">')
    digest = line[len(REPORT_SEAL) : -2]
    assert sealed.replace(b"\n" + line.encode(), b"") == page  # one line added, after generator
    blank = sealed.replace(digest.encode(), b"0" * 64)
    assert digest == hashlib.sha256(blank).hexdigest()
    target = tmp_path / "r.html"
    target.write_bytes(sealed)
    assert is_report(target)
    target.write_bytes(sealed.replace("é".encode(), b"e"))
    assert not is_report(target)
    target.write_bytes(blank)
    assert not is_report(target)
    with pytest.raises(ValueError, match="not a report page"):
        seal_report(b"<!DOCTYPE html><html><head></head><body>mine</body></html>")


def test_a_page_over_the_size_limit_is_not_read(tmp_path, monkeypatch):
    """A file at a report's name larger than a report can be is refused, read in blocks up to
    the limit, never whole."""
    page = tmp_path / "r.html"
    page.write_bytes(seal_report(f'<!DOCTYPE html>\n<head>{REPORT_GENERATOR} 1">'.encode()
                                 + b"<body>" + b"x" * 5000))  # fmt: skip
    assert is_report(page)
    monkeypatch.setattr(targets, "_PAGE_MAX", 4096)
    assert not is_report(page)


def test_a_printed_report_is_recognized_by_its_title(tmp_path):
    pdf = tmp_path / "r.pdf"
    skia = b"\n/Producer (Skia/PDF m150)>>\n%%EOF\n"
    pdf.write_bytes(b"%PDF-1.4\n1 0 obj\n<</Title (incrowd report: r.csv)" + skia)
    assert is_report(pdf)
    title = "incrowd report: ö.csv".encode("utf-16-be").hex().upper()
    pdf.write_bytes(b"%PDF-1.4\n<</Title <FEFF" + title.encode() + b">" + skia)
    assert is_report(pdf)
    pdf.write_bytes(b"%PDF-1.4\n<</Title (annual report)" + skia)
    assert not is_report(pdf)
    # the same title, but printed by another program, or signed since (an update appended)
    pdf.write_bytes(b"%PDF-1.4\n<</Title (incrowd report review)/Producer (Word)>>\n%%EOF\n")
    assert not is_report(pdf)
    pdf.write_bytes(b"%PDF-1.4\n<</Title (incrowd report: r.csv)" + skia + b"signed" + skia)
    assert not is_report(pdf)
    page = tmp_path / "r.html"
    page.write_text(f'<html><head></head><body>{REPORT_GENERATOR} 1"></body></html>')
    assert not is_report(page)  # named in the body, not as the page's generator
    page.write_text(f'<!-- quoting <meta name="generator" content="{REPORT_GENERATOR} 1"> -->'
                    "<html><body>my notes</body></html>")  # fmt: skip
    assert not is_report(page)  # not an HTML page incrowd starts


def test_other_quasi_identifiers_than_the_release_s_are_refused(work):
    """Checking a narrower set could pass a release that fails on its own: one line, no page."""
    one_error(report(work, "--qi", "age", out="narrow.html"), "same --qi")
    assert not (work / "narrow.html").exists()


def test_a_release_without_metadata_or_over_its_limit_fails(work):
    """Without metadata no k is known: the verdict cannot hold. A release that suppressed
    more records than its suppression limit fails."""
    shutil.copy(work / "t.csv", work / "copy.csv")
    result = invoke("report", work / "t.csv", work / "copy.csv", "--qi", "age,sex",
                    "--out", work / "bare.html")  # fmt: skip
    assert result.exit_code == 1, result.output
    assert "verdict: fails" in result.stdout.splitlines()
    meta = json.loads((work / "r.json").read_text())
    meta["parameters"]["suppression_limit"] = 0.01
    meta["n_suppressed"] = 5  # ⌊0.01 · 120⌋ = 1 allowed
    (work / "r.json").write_text(json.dumps(meta))
    result = report(work)
    assert result.exit_code == 1, result.output
    assert "above the suppression limit 0.01" in (work / "r.html").read_text()


def chromium():
    """The browser engine, or a skip (a failure under CI=true, where .ci/run installs it)."""
    try:
        return pdf_engine.find_engine()
    except OutputError as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true but {exc}")
        pytest.skip(str(exc))


def test_pdf_is_printed_beside_the_page(work):
    engine = chromium()
    result = report(work, "--pdf")
    assert result.exit_code == 0, result.output
    printed = work / "r.pdf"
    assert printed.read_bytes().startswith(b"%PDF")
    assert f"with {engine.version}" in result.stdout
    assert is_report(printed)  # so the next run may replace it
    assert report(work, "--pdf").exit_code == 0


def test_pdf_without_an_engine_keeps_the_page_and_says_how_to_install_one(work, monkeypatch):
    monkeypatch.setattr(pdf_engine, "CANDIDATES", (str(work / "no-chromium"),))
    one_error(report(work, "--pdf"), "no browser engine found", "apt-get install chromium")
    assert is_report(work / "r.html")
    assert not (work / "r.pdf").exists()


def fake_browser(folder: Path, script: str) -> Path:
    folder.mkdir()
    path = folder / "chromium"
    path.write_text("#!/bin/sh\n" + script)
    path.chmod(0o755)
    return path


def test_an_engine_others_can_replace_is_refused(tmp_path):
    good = fake_browser(tmp_path / "bin", 'echo "Chromium 1.2.3 fake"\n')
    assert pdf_engine.find_engine((str(good),)).version == "Chromium 1.2.3 fake"
    shared = fake_browser(tmp_path / "shared", 'echo "Chromium 6.6.6"\n')
    shared.parent.chmod(0o777)
    with pytest.raises(OutputError, match="writable by every user"):
        pdf_engine.find_engine((str(shared),))
    shared.parent.chmod(stat.S_IRWXU)


def test_a_browser_that_prints_nothing_is_one_error(tmp_path):
    script = (
        '[ "$1" = --version ] && echo "Chromium 1.2.3" && exit 0\necho "no display" >&2\nexit 3\n'
    )
    broken = fake_browser(tmp_path / "bin", script)
    engine = pdf_engine.find_engine((str(broken),))
    page = tmp_path / "r.html"
    page.write_text("<html></html>")
    with pytest.raises(OutputError, match=r"could not print .* \(exit 3: no display\)"):
        pdf_engine.print_pdf(page, engine)
