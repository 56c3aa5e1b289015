"""The hierarchies the page offers for each column, and where a hierarchy file is looked for.

Offers (:func:`hierarchy_options`), each a spec as the command line and the job file spell
it (:mod:`incrowd.data.hierarchy_specs`), with the type it fits:

- a number: nested intervals built from the data (the widths
  :func:`~incrowd.data.hierarchy_specs.default_widths` gives its values);
- a code: ``prefix``; a date: ``dates`` and a few choices of levels;
- any type: the ARX hierarchy files (CSV, ``hierarchy`` in the name) beside the table
  (:func:`hierarchy_files`; the page lists those named after the column first).

A file spec is taken relative to the table's folder and must lie inside the opened folders
(:func:`resolve_specs`); it is never looked for in the server's or the worker's current
folder.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING

from .security import Folders

if TYPE_CHECKING:
    import pandas as pd

    from ..data.types import Inference
    from ..pipeline.settings import Settings

__all__ = ["hierarchy_files", "hierarchy_options", "resolve_specs", "shown_spec"]

#: Date hierarchies offered (``dates`` alone: month, quarter, year).
_DATES = ("dates", "dates:month,year", "dates:week,month,quarter,year", "dates:year")
#: Hierarchy files listed beside a table, at most.
_MAX_FILES = 200
#: The builder kinds of :mod:`incrowd.data.hierarchy_specs` (its message for an unknown one).
_BUILDERS = ("prefix", "intervals", "dates")


def hierarchy_files(folder: Path) -> list[str]:
    """The names of the ARX hierarchy files in ``folder``: CSV files with ``hierarchy`` in
    their name, sorted."""
    try:
        names = sorted(p.name for p in folder.iterdir()
                       if p.suffix.lower() == ".csv" and "hierarch" in p.name.lower()
                       and p.is_file())  # fmt: skip
    except OSError:
        return []
    return names[:_MAX_FILES]


def hierarchy_options(table: pd.DataFrame,
                      found: dict[str, Inference]) -> dict[str, list[dict[str, str]]]:  # fmt: skip
    """Per column, the hierarchies built from its data that it may take (the files beside
    the table: :func:`hierarchy_files`): ``{"spec", "label", "fits"}``, where ``fits`` is
    the type the spec fits (``number``, ``code``, ``date``)."""
    from ..data.cells import normalize
    from ..data.hierarchy_specs import default_widths

    out: dict[str, list[dict[str, str]]] = {}
    for name, inference in found.items():
        offered = []
        if inference.type.kind == "number":
            try:
                values = normalize(table[name], inference.type, name).to_numpy(dtype=float)
                widths = default_widths(values)
            except Exception:  # no finite number: nothing to build from
                widths = []
            if widths:
                spec = "intervals:" + ",".join(f"{w:g}" for w in widths)
                offered.append({"spec": spec, "label": f"{spec} (from the data)",
                                "fits": "number"})  # fmt: skip
        offered.append({"spec": "prefix", "label": "prefix: mask from the right",
                        "fits": "code"})  # fmt: skip
        offered += [{"spec": s, "label": s, "fits": "date"} for s in _DATES]
        out[name] = offered
    return out


def resolve_specs(folders: Folders, job: Settings, base: Path) -> Settings:
    """``job`` with each hierarchy file as an absolute path, inside ``folders``
    (:class:`~incrowd.ui.security.Forbidden` else): a relative one is taken from ``base``
    (the table's folder), never from the current folder. A spec of an unknown kind
    (``bogus:1``, no such file beside the table) is the command line's
    :class:`~incrowd.errors.HierarchyError`."""
    from ..data.hierarchy_specs import HIERARCHY_SPECS, is_builder, kind_named
    from ..errors import HierarchyError

    specs: dict[str, str] = {}
    for column, spec in job.hierarchy.items():
        if is_builder(spec):
            specs[column] = spec
            continue
        path = base / Path(spec).expanduser()
        kind = kind_named(spec)
        if kind is not None and not path.exists():
            word = spec if kind in _BUILDERS else kind
            msg = f"unknown hierarchy kind {word!r}; use {HIERARCHY_SPECS}"
            raise HierarchyError(msg)
        specs[column] = str(folders.resolve(path))
    return dataclasses.replace(job, hierarchy=specs)


def shown_spec(spec: str | None, base: Path) -> str:
    """A spec as the page shows it: a file inside ``base`` by its path from there."""
    if spec and Path(spec).is_absolute() and Path(spec).is_relative_to(base):
        return str(Path(spec).relative_to(base))
    return spec or ""
