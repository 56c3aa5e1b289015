"""One self-contained HTML page that a data steward can sign a release off with.

:func:`build_report` reads the original table and a written release (its table and
metadata) and renders, from the published file and the original alone, in this order:

- the **verdict** (:mod:`incrowd.report.verdict`): the privacy model checked from the
  published table by the project's checker (:func:`incrowd.privacy.verify.verify`) — holds,
  holds with warnings, or fails — and one line per warning (constant sensitive values,
  records above the risk threshold, suppressed records, empty cells, stale files);
- the key **figures**, each with a sentence of what it means for this release
  (:mod:`incrowd.report.words`): records, classes, loss (NCP, discernibility or SSE), cost,
  lower bound and certified ratio;
- the **provenance** (:mod:`incrowd.report.provenance`): files and their SHA-256, schema,
  method, guarantee, reference, parameters, seed, version, date;
- the **data** (:mod:`incrowd.report.data`): the first published rows, every
  quasi-identifier before and after, the loss per attribute, class sizes; a global
  recoding's levels and categories; the **risk** distribution; the sensitive values per
  class (**diversity**); a map for a longitude / latitude release;
- a **glossary**.

Plots are small SVG images (:mod:`incrowd.report.plots`) embedded as ``data:`` URIs, the
style is inline and there is no script: the page opens offline, prints to A4, and is the
same bytes for the same inputs (it shows the release's ``created`` date, never "now").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib.resources import files
from typing import Any

import pandas as pd

from .._version import __version__
from ..data.schema import Schema
from ..errors import InputError
from ..io.metadata import ReleaseMetadata
from ..io.release_format import COUNT
from ..measures.loss import evaluate_release
from ..measures.risk import assess_risk
from ..params import RISK_THRESHOLD_DEFAULT
from . import data, provenance, words
from .verdict import check_release

__all__ = ["Measured", "Report", "build_report"]


@dataclass(frozen=True)
class Measured:
    """What the report measured of a release: its form, quasi-identifiers, the loss
    (:func:`~incrowd.measures.loss.evaluate_release`), the risk
    (:func:`~incrowd.measures.risk.assess_risk`), the release's check
    (:func:`~incrowd.report.verdict.check_release`), the input's size and each
    quasi-identifier's plots before and after; the app's comparison reads them too."""

    form: str
    qi: list[str]
    figures: dict[str, Any]
    risk: Any
    check: Any
    n_input: int
    distributions: list[Any]


@dataclass(frozen=True)
class Report:
    """A built report: the page, its verdict (``"holds"``, ``"warnings"`` or ``"fails"``),
    its warnings, one plain line each (the page shows them too), and what it measured."""

    html: str
    verdict: str
    warnings: tuple[str, ...]
    measured: Measured | None = field(default=None, compare=False, repr=False)


def _jinja() -> Any:
    try:
        import jinja2
    except ImportError:
        msg = (
            "the report needs jinja2: install incrowd with its report extra "
            "(pip install 'incrowd[report]')"
        )
        raise InputError(msg) from None
    return jinja2.Environment(
        loader=jinja2.FunctionLoader(
            lambda name: files(__package__).joinpath(name).read_text(encoding="utf-8")
        ),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def build_report(
    original: pd.DataFrame,
    release_table: pd.DataFrame,
    schema: Schema,
    metadata: ReleaseMetadata | Mapping[str, Any] | None = None,
    *,
    title: str = "incrowd release report",
    sources: Mapping[str, tuple[str, str]] | None = None,
    risk_threshold: float = RISK_THRESHOLD_DEFAULT,
) -> Report:
    """The report on ``release_table``, a release of ``original`` under ``schema``.

    ``sources``: ``{"input": (file name, sha256), "release": (file name, sha256)}`` of the
    files on disk (the command line gives them; without them the page shows what the
    metadata records, and a release whose digest differs is marked stale). Records whose
    re-identification probability exceeds ``risk_threshold`` are warned about.
    """
    env = _jinja()
    meta = ReleaseMetadata.of(metadata)
    published = release_table
    qi = list(schema.qi_names)
    form = meta.release or ("centers" if COUNT in published.columns else "records")
    sensitive = [c for c in (schema.sensitive or meta.sensitive) if c in published.columns]
    figures = evaluate_release(original, published, schema, meta)
    risk = assess_risk(original, published, schema, metadata=meta, threshold=risk_threshold)
    check = check_release(published, qi, meta, risk, sensitive, sources)
    n_input = int(meta.n_input if meta.n_input is not None else len(original))
    distributions = data.distributions(original, published, qi, form, schema)
    files_ = provenance.files_of(meta, sources)
    method = provenance.method_of(meta)
    identity = provenance.identity(meta, files_, method)
    diversity = []
    for name in sensitive:
        plot, numeric = data.diversity_of_column(published, qi, name, form)
        found = risk.attribute_disclosure.get(name, {})
        rows = words.diversity_figures(name, found, figures, numeric)
        diversity.append({"column": name, "figures": rows, "plot": plot})
    levels = [
        words.figure(
            "level",
            name,
            level,
            "the hierarchy level every value is published at (0: as it is)",
            name,
        )
        for name, level in (meta.levels or {}).items()
    ]
    page = env.get_template("report.html.j2").render(
        title=title,
        generator_version=__version__,
        check=check,
        key=words.key_figures(meta, check, figures, form, n_input),
        risk_figures=words.risk_figures(risk, check.report.k_achieved),
        identity=identity,
        files=files_,
        method=method,
        parameters=provenance.parameters_of(meta),
        schema_rows=provenance.schema_rows(meta, schema),
        withheld=list(meta.withheld_columns),
        levels=levels,
        categories=meta.categories or {},
        form=form,
        preview=data.preview(published),
        distributions=distributions,
        loss=data.loss_rows(published, qi, figures, form),
        class_sizes=data.class_sizes_plot(risk.class_sizes),
        risk_plot=data.risk_plot(risk),
        risk=risk,
        diversity=diversity,
        map=data.map_plot(published, qi, form),
        glossary=words.GLOSSARY,
    )
    measured = Measured(form, qi, figures, risk, check, n_input, distributions)
    return Report(page, check.verdict, tuple(w.text for w in check.warnings), measured)
