"""What the page shows of a finished run beside the report: the figures the comparison of
runs puts side by side, and the report's own plots of the data before and after.

Taken, in the run's worker, from what the run's report measured
(:class:`incrowd.report.Measured`: :func:`~incrowd.measures.loss.evaluate_release`,
:func:`~incrowd.measures.risk.assess_risk`, :func:`~incrowd.report.verdict.check_release`),
never measured again, and drawn by the report's own plots (:mod:`incrowd.report.data`:
small SVG images as ``data:`` URIs, which the page's Content-Security-Policy allows as
images, where no script runs). Every value is also given as the report shows it
(:func:`incrowd.report.words.figure`).

Groups of :func:`look`'s ``"compare"``, each a list of ``[label, shown, sentence]`` rows:

- **loss per attribute**: each quasi-identifier's NCP (generalized releases), and the
  whole table's;
- **risk**: the prosecutor risk (highest, its bound 1 / smallest class, the records above
  the threshold), then the report's other risk figures (journalist, marketer, the linkage
  attack), each with the report's sentence;
- **classes**: how many, the smallest, the records suppressed (the report's key figures,
  from the release's check by :func:`~incrowd.privacy.verify.verify`), and the classes by
  size (the report's plot).
"""

from __future__ import annotations

from typing import Any

__all__ = ["look"]


def _row(label: str, value: Any, sentence: str = "") -> list[str]:
    from ..report.words import figure

    return [label, figure(label, label, value).text, sentence]


def _said(found: Any) -> list[str]:
    return [found.label, found.text, found.sentence]


def look(loaded: Any, measured: Any) -> dict[str, Any]:
    """The comparison's groups (``"compare"``: group name → rows) and the plots
    (``"plots"``: per quasi-identifier its ``before`` and ``after``; the ``risk``
    distribution; the ``classes`` by size) of the release ``loaded`` holds
    (:class:`~incrowd.report.reading.Loaded`), from what its report ``measured``
    (:class:`~incrowd.report.Measured`)."""
    from ..io.metadata import ReleaseMetadata
    from ..report import data, words

    meta = ReleaseMetadata.of(loaded.files.metadata)
    published = loaded.files.table
    form, qi, figures = measured.form, measured.qi, measured.figures
    risk, check, n_input = measured.risk, measured.check, measured.n_input
    k = check.report.k_achieved
    key = {f.name: f for f in words.key_figures(meta, check, figures, form, n_input)}
    loss = [_row(f"NCP of {row['column']}", row["ncp"]) for row in data.loss_rows(
        published, qi, figures, form)]  # fmt: skip
    loss.append(_row("NCP, the whole table", figures.get("ncp")))
    said = {f.name: f for f in words.risk_figures(risk, k)}
    prosecutor = said["prosecutor-highest"]
    risky = [
        _said(prosecutor),
        _row("prosecutor bound, 1 / smallest class", 1 / max(k, 1)),
        _row(f"records above the threshold {risk.threshold:g}", risk.prosecutor["records_at_risk"]),
        *(_said(f) for name, f in said.items() if name != prosecutor.name),
    ]  # fmt: skip
    classes = [_said(key[name]) for name in ("classes", "smallest-class", "suppressed-records")
               if name in key]  # fmt: skip
    return {
        "compare": {"loss per attribute": loss, "risk": risky, "classes": classes},
        "plots": {
            "distributions": measured.distributions,
            "risk": data.risk_plot(risk),
            "classes": data.class_sizes_plot(risk.class_sizes),
        },
    }
