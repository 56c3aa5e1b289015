"""Every code block of the documentation site (``docs/**/*.md``) runs, and the site and the
README hang together.

Each page is run as a script: its blocks in order, in one working folder whose ``src`` is
the repository's ``src/`` (the pages' paths are repo-relative), the ``python`` blocks in one
namespace, so a later block may use what an earlier one wrote or defined. ``sh`` blocks hold
``incrowd`` command lines (run) and ``make`` lines (checked to name a Makefile target).
Blocks that show output or a snippet that is not meant to run use another fence language
(``text``, ``toml``, ``json``, ``csv``), deliberately: any other language is an error here,
so a block cannot silently escape the tests.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_readme import run_shell

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.rglob("*.md"))
RUN = {"sh", "python"}
SHOWN = {"text", "toml", "json", "csv"}
FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", flags=re.S | re.M)


def blocks(path: Path) -> list[tuple[str, str]]:
    return [(kind.strip(), body) for kind, body in FENCE.findall(path.read_text())]


def page_id(path: Path) -> str:
    return str(path.relative_to(DOCS))


def test_the_site_has_pages_and_runnable_blocks():
    assert (DOCS / "index.md").is_file()
    kinds = {kind for page in PAGES for kind, _ in blocks(page)}
    assert RUN <= kinds, kinds


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_every_fence_names_a_known_language(page):
    for kind, body in blocks(page):
        assert kind in RUN | SHOWN, f"{page_id(page)}: a ```{kind} block:\n{body[:200]}"


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_every_page_is_in_the_navigation(page):
    nav = (ROOT / "mkdocs.yml").read_text()
    assert re.search(rf":\s*{re.escape(page_id(page))}\s*$", nav, flags=re.M), page_id(page)


RUNNABLE = [page for page in PAGES if any(kind in RUN for kind, _ in blocks(page))]


@pytest.mark.parametrize("page", RUNNABLE, ids=page_id)
def test_the_code_blocks_of_a_page_run_in_order(page, tmp_path, monkeypatch):
    (tmp_path / "src").symlink_to(ROOT / "src")
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": "__docs__"}
    for index, (kind, body) in enumerate(blocks(page)):
        where = f"{page_id(page)} block {index}"
        if kind == "sh":
            run_shell(body, tmp_path, where)
        elif kind == "python":
            exec(compile(body, where, "exec"), namespace)


def local_links(path: Path) -> list[str]:
    text = FENCE.sub("", path.read_text())
    links = re.findall(r"\]\(([^)\s]+)\)", text)
    return [link for link in links if not re.match(r"[a-z]+:", link) and not link.startswith("#")]


@pytest.mark.parametrize("path", [ROOT / "README.md", *PAGES], ids=lambda p: p.name)
def test_local_links_lead_to_files(path):
    for link in local_links(path):
        target = (path.parent / link.split("#")[0]).resolve()
        assert target.exists(), f"{path.name}: {link}"


def documented_layers() -> dict[str, int]:
    """The layer table of docs/architecture.md: ``N  name, name, …  description`` lines."""
    page = (DOCS / "architecture.md").read_text()
    section = page.split("## The layers", 1)[1]
    table = next(body for kind, body in FENCE.findall(section) if kind.strip() == "text")
    layers = {}
    for line in table.splitlines():
        found = re.match(r"(\d)\s+(\S.*?)(?:\s{2,}.*)?$", line)
        assert found, line
        for name in found[2].split(","):
            layers[name.strip()] = int(found[1])
    return layers


def test_the_architecture_page_shows_the_layers_the_tests_check():
    import ast

    tree = ast.parse((ROOT / "tests" / "test_layers.py").read_text())
    checked = next(
        ast.literal_eval(node.value) for node in tree.body
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "LAYERS"
    )  # fmt: skip
    assert documented_layers() == checked


def performance_page():
    """``benchmarks/make_performance_page.py``, which renders docs/performance.md."""
    import importlib.util

    path = ROOT / "benchmarks" / "make_performance_page.py"
    spec = importlib.util.spec_from_file_location("make_performance_page", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_performance_page_is_what_the_benchmarks_json_renders():
    generator = performance_page()
    assert (DOCS / "performance.md").read_text() == generator.render(), (
        "docs/performance.md is stale: run python benchmarks/make_performance_page.py"
    )


def test_the_performance_page_changes_with_any_figure_of_the_json(tmp_path):
    import json
    import shutil

    generator = performance_page()
    files = sorted(generator.RESULTS.glob("*.json"))
    assert files, "no benchmark results in benchmarks/results/"
    for path in files:
        shutil.copy(path, tmp_path / path.name)
    assert generator.render(tmp_path) == generator.render()
    records = {path: json.loads(path.read_text()) for path in files}
    changed = next(path for path, r in records.items() if isinstance(r, dict) and r["tables"])
    record = records[changed]
    record["tables"][0]["rows"][0][-1] = "987654.321"  # one figure of the copy's first table
    (tmp_path / changed.name).write_text(json.dumps(record))
    page = generator.render(tmp_path)
    assert "987654.321" in page
    assert page != (DOCS / "performance.md").read_text()
