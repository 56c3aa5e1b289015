"""The package's shape: imports run one way, bottom to top, and never into another
package's private modules; no module is over 400 lines; every docstring example runs.

Layers (docs/architecture.md shows the same table): errors, partition, params, _runtime →
io → data → space → costs → base, algorithms → release → privacy, measures, postprocess →
pipeline, distributed, … → cli, report. A module may import from its own layer or below,
never above; a private module or package (``_name``) is imported only by modules of the
package it lives in (and its subpackages): a family's private modules
(``algorithms/recoding/_seed.py``) only by that family, ``algorithms/_shared`` by any module
under ``algorithms``, a top-level one (``_runtime``) by all.
"""

from __future__ import annotations

import ast
import doctest
import importlib
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "incrowd"

LAYERS = {
    "errors": 0, "partition": 0, "params": 0, "_runtime": 0, "_version": 0,
    "io": 1,
    "data": 2, "datasets": 2,
    "space": 3,
    "costs": 4,
    "base": 5, "algorithms": 5,
    "release": 6,
    "privacy": 7, "measures": 7, "postprocess": 7,
    "pipeline": 8, "distributed": 8, "hierarchies": 8, "testing": 8, "precompile": 8,
    "cli": 9, "report": 9, "ui": 9, "__main__": 9, "__init__": 9,
}  # fmt: skip


def modules() -> list[tuple[str, Path]]:
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        out.append((".".join(parts), path))
    return out


def top(name: str) -> str:
    return name.split(".")[0]


def imports(name: str, path: Path) -> list[str]:
    """The incrowd modules ``name`` imports (absolute dotted names inside the package),
    except those only imported for type checking."""
    tree = ast.parse(path.read_text())
    package = name.split(".")[:-1]  # a package's __init__ too: "algorithms.forest.__init__"
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in ast.walk(node):
                child._typing_only = True  # type: ignore[attr-defined]
    for node in ast.walk(tree):
        if getattr(node, "_typing_only", False):
            continue
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package[: len(package) - node.level + 1]
            target = ".".join([*base, node.module] if node.module else base)
            names = [f"{target}.{a.name}" if target else a.name for a in node.names]
            found += [n for n in names if _is_module(n)] or [target]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("incrowd."):
            found.append(node.module.removeprefix("incrowd."))
    return [f for f in found if f]


def _is_module(dotted: str) -> bool:
    path = PACKAGE.joinpath(*dotted.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


MODULES = modules()


def test_every_top_level_module_has_a_layer():
    assert {top(name) for name, _ in MODULES} <= set(LAYERS)


@pytest.mark.parametrize(("name", "path"), MODULES, ids=[m for m, _ in MODULES])
def test_imports_run_down_and_respect_private_modules(name, path):
    own = LAYERS[top(name)]
    for target in imports(name, path):
        assert LAYERS[top(target)] <= own, f"{name} imports {target}, a higher layer"
        parts = target.split(".")
        for i in range(1, len(parts)):
            if parts[i].startswith("_"):  # private: only its own package's modules import it
                home = parts[:i]
                assert name.split(".")[:i] == home, f"{name} reaches into private {target}"


#: One problem, one step or one role per module: a module that grows past this is split
#: along its seams (issue 44), so that a reader can hold it in their head.
MAX_LINES = 400


def test_no_module_is_over_400_lines():
    long = {
        name: n for name, path in MODULES if (n := len(path.read_text().splitlines())) > MAX_LINES
    }
    assert long == {}, f"split these along their seams: {long}"


def test_the_import_graph_has_no_cycle_between_packages():
    edges = {(top(n), top(t)) for n, p in MODULES for t in imports(n, p) if top(n) != top(t)}
    for a, b in edges:
        assert (b, a) not in edges, f"{a} and {b} import each other"


DOCTESTED = [name for name, _ in MODULES if not name.endswith("__main__")]


@pytest.mark.parametrize("name", DOCTESTED)
def test_docstring_examples_run(name):
    module = importlib.import_module("incrowd" if name == "__init__" else f"incrowd.{name}")
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0


@pytest.mark.parametrize(
    ("module", "absent"),
    [
        # the independent checker shares no code with what made the release
        ("incrowd.privacy.verify", ("incrowd.algorithms", "incrowd.costs", "incrowd.postprocess",
                             "numba", "scipy")),
        ("incrowd.measures.risk", ("incrowd.algorithms", "incrowd.postprocess")),
    ],
)  # fmt: skip
def test_the_checkers_load_no_algorithm(module, absent):
    import subprocess
    import sys

    code = (f"import sys, {module}; "
            "print(' '.join(sorted(m for m in sys.modules if m.startswith(('incrowd', "
            "'numba', 'scipy')))))")  # fmt: skip
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)  # fmt: skip
    loaded = done.stdout.split()
    assert module in loaded
    found = [m for m in loaded if m.startswith(absent)]
    assert found == [], found


def test_the_method_catalogue_is_what_the_classes_say():
    """``incrowd methods`` lists the catalogue without importing an algorithm; it must say
    what the classes say (on failure, paste the printed table into algorithms/catalogue.py)."""
    import pprint

    from incrowd.algorithms import METHODS
    from incrowd.algorithms.catalogue import CATALOGUE, from_classes

    fresh = from_classes()
    assert CATALOGUE == fresh, pprint.pformat(fresh, width=100)
    assert sorted(CATALOGUE) == sorted(METHODS)


def test_precompile_fits_every_method_of_the_registry(monkeypatch):
    """``incrowd precompile`` fits every method of ``incrowd.algorithms.METHODS`` (so a method
    added to the registry is compiled ahead of time with no other change): the fits are
    spied on here, and the run stops at the first step after the methods."""
    from incrowd import algorithms, testing
    from incrowd.precompile import precompile

    fitted, steps = [], []

    class Spy:
        def __init__(self, cls: type) -> None:
            self.cls = cls

        def fit(self, space: object) -> None:
            fitted.append(self.cls)

    class Done(Exception):
        pass

    def step(name: str) -> None:
        if name not in algorithms.METHODS:
            raise Done
        steps.append(name)

    monkeypatch.setattr(testing, "configured", lambda cls, *args, **kwargs: Spy(cls))
    with pytest.raises(Done):
        precompile(on_step=step)
    assert steps == sorted(algorithms.METHODS)
    assert set(fitted) == set(algorithms.METHODS.values())
