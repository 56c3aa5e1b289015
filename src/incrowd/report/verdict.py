"""The report's verdict: the privacy model checked from the published table, and every
warning a steward must read before signing the release off.

The check is :func:`incrowd.privacy.verify.verify`'s (the same as ``incrowd verify``): k
from the metadata, and the l-diversity / t-closeness the release was made to hold. The
verdict is ``"fails"`` when the check fails (or the release on disk is not the one its
metadata describes), ``"warnings"`` when any warning is raised, else ``"holds"``.

Warnings, one plain line each (:class:`Notice`'s ``name`` is the page's
``data-warning``):

- ``constant-sensitive``: classes holding a single value of a sensitive column (placing a
  person in one discloses it; ``--l 2`` makes every class hold two values);
- ``risk-above-threshold``: records whose re-identification probability exceeds the
  threshold (prosecutor: in a class smaller than 1 / threshold; linkage attack: consistent
  with fewer than 1 / threshold original records);
- ``published-identifying``: a column published as it is (sensitive or insensitive) that
  looks like an identifier or free text (a name, a note; :mod:`incrowd.pipeline.cautions`):
  k-anonymity protects the quasi-identifiers only;
- ``blank-quasi-identifier``: a quasi-identifier published as ``*`` in every record;
- ``suppressed`` and ``missing``: records not published, cells published with no value
  (``(missing)``, or empty);
- ``stale`` / ``input-differs``: the files given are not those the metadata describes.

The metadata records no guess of the input's reading (types, hierarchies chosen by
inference are recorded as chosen), so there is no warning for one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..io.metadata import ReleaseMetadata
from ..measures.risk import RiskReport
from ..params import outlier_budget
from ..privacy.models import Diversity
from ..privacy.verify import VerificationReport, diversity_of, verify
from .data import missing_cells as count_missing

__all__ = ["Check", "Notice", "check_release", "diversity_of", "model_text"]


@dataclass(frozen=True)
class Notice:
    """One warning: its kebab name (the page's ``data-warning``) and its line."""

    name: str
    text: str


@dataclass(frozen=True)
class Check:
    """The verdict, its sentence, the warnings and the checker's own report."""

    verdict: str
    sentence: str
    warnings: tuple[Notice, ...]
    report: VerificationReport
    diversity: Diversity | None
    missing_cells: int


def model_text(k: int, diversity: Diversity | None, sensitive: Sequence[str]) -> str:
    """The privacy model in words: ``5-anonymity``, with l-diversity and t-closeness.

    >>> model_text(5, Diversity(l=2), ["salary"])
    '5-anonymity and distinct 2-diversity on salary'
    """
    parts = [f"{k}-anonymity"]
    on = f" on {', '.join(sensitive)}" if sensitive else ""
    if diversity is not None and diversity.l is not None:
        parts.append(f"{diversity.l_kind} {diversity.l:g}-diversity{on}")
    if diversity is not None and diversity.t is not None:
        parts.append(f"{diversity.t:g}-closeness{on}")
    return " and ".join(parts)


def _share(part: float, whole: float) -> str:
    return f"{100 * part / whole:.1f} %" if whole else "0 %"


def check_release(
    published: pd.DataFrame,
    qi: Sequence[str],
    meta: ReleaseMetadata,
    risk: RiskReport,
    sensitive: Sequence[str],
    sources: Mapping[str, tuple[str, str]] | None,
) -> Check:
    """The verdict on ``published`` (module docstring); ``risk`` is its
    :func:`~incrowd.measures.risk.assess_risk` at the report's threshold."""
    k = int(meta.k or 1)
    spec = diversity_of(meta)
    report = verify(
        published, list(qi), k, metadata=meta, diversity=spec, sensitive=list(sensitive) or None
    )
    warnings: list[Notice] = []
    problems = list(report.problems)
    if meta.k is None:  # checked at k = 1, which every table holds: nothing is proven
        problems.append("no metadata names the k this release was made for: nothing is "
                        "checked beyond 1-anonymity")  # fmt: skip
    limit = meta.parameters.get("suppression_limit")
    if limit and meta.n_input and meta.n_suppressed is not None:
        allowed = outlier_budget(float(limit), meta.n_input - (meta.n_dropped_missing or 0))
        if meta.n_suppressed > allowed:
            problems.append(f"{meta.n_suppressed:,} records suppressed, above the "
                            f"suppression limit {limit:g} ({allowed:,} records)")  # fmt: skip
    stale = _stale(meta, sources)
    problems += [w.text for w in stale if w.name == "stale"]
    warnings += stale
    records = report.n_records
    for name, found in risk.attribute_disclosure.items():
        if found.get("classes"):
            share = _share(found["records"], records)
            text = (
                f"{found['classes']:,} of {report.n_classes:,} classes ({found['records']:,} "
                f"records, {share} of the published) hold a single value of {name}: placing "
                "a person in one of them discloses it; publish with --l 2 to make every "
                "class hold at least 2 values"
            )
            warnings.append(Notice("constant-sensitive", text))
    warnings += _cautions(published, qi, meta, sensitive)
    threshold = risk.threshold
    above = _records_above(risk, threshold)
    if above:
        text = (
            f"{above:,} records ({_share(above, risk.n_input)} of the input) can be "
            f"re-identified with a probability above {threshold:g}: they are consistent "
            f"with fewer than {1 / threshold:g} published records"
        )
        warnings.append(Notice("risk-above-threshold", text))
    unpublished = meta.n_suppressed or report.n_suppressed_rows
    n_input = meta.n_input or (records + unpublished)
    if unpublished:
        shown = (
            " (published as rows of *)"
            if report.n_suppressed_rows
            else " (left out of the release)"
        )
        warnings.append(
            Notice(
                "suppressed",
                (
                    f"{unpublished:,} records ({_share(unpublished, n_input)} of the input) are "
                    f"suppressed{shown}: an analysis of the release does not see them"
                ),
            )
        )
    missing_cells = count_missing(published)  # (missing) or empty
    dropped = meta.n_dropped_missing or 0
    if missing_cells or dropped:
        said = [f"{missing_cells:,} published cells hold no value"] if missing_cells else []
        said += [f"{dropped:,} records were left out for a missing value"] if dropped else []
        warnings.append(Notice("missing", "; ".join(said)))
    model = model_text(k, spec, sensitive if spec is not None else ())
    if problems:
        verdict = "fails"
        sentence = f"The release fails {model}, checked from the published file: {problems[0]}."
        warnings = [
            Notice("check-failed", p) for p in problems if p not in {w.text for w in warnings}
        ] + warnings
    elif warnings:
        verdict = "warnings"
        sentence = (
            f"The release holds {model}, checked from the published file (every one "
            f"of its {report.n_classes:,} classes has at least {k} records), but "
            f"{len(warnings)} warning{'s' if len(warnings) > 1 else ''} below must be "
            "read before it is signed off."
        )
    else:
        verdict = "holds"
        sentence = (
            f"The release holds {model}, checked from the published file: every one "
            f"of its {report.n_classes:,} classes has at least {k} records, and "
            "nothing else needs attention."
        )
    return Check(verdict, sentence, tuple(warnings), report, spec, missing_cells)


def _cautions(
    published: pd.DataFrame, qi: Sequence[str], meta: ReleaseMetadata, sensitive: Sequence[str]
) -> list[Notice]:
    """A published column that looks like an identifier or free text, and a quasi-identifier
    published as * in every record (the lines ``anonymize`` gives: worded for the command
    line, as the page's other lines are)."""
    from ..errors import cli_text
    from ..pipeline.cautions import blank_quasi_identifiers, exposed_columns

    insensitive = list((meta.schema or {}).get("insensitive") or ())
    out = [Notice("published-identifying", cli_text(line))
           for _, line in exposed_columns(published, list(sensitive), insensitive)]  # fmt: skip
    out += [Notice("blank-quasi-identifier", cli_text(line))
            for _, line in blank_quasi_identifiers(published, qi)]  # fmt: skip
    return out


def _records_above(risk: RiskReport, threshold: float) -> int:
    """Records above the threshold: prosecutor (published records in small classes) or
    linkage attack (original records consistent with few published ones), the larger."""
    prosecutor = int(risk.prosecutor.get("records_at_risk") or 0)
    consistent = risk.consistent
    if consistent.size:
        probability = np.where(consistent > 0, 1.0 / np.maximum(consistent, 1), 0.0)
        linkage = int((probability > threshold + 1e-12).sum())
    else:
        linkage = 0
    return max(prosecutor, linkage)


def _stale(meta: ReleaseMetadata, sources: Mapping[str, tuple[str, str]] | None) -> list[Notice]:
    out: list[Notice] = []
    if not sources:
        return out
    if "release" in sources and meta.table_sha256 and sources["release"][1] != meta.table_sha256:
        out.append(
            Notice(
                "stale",
                (
                    f"{sources['release'][0]} is not the table its metadata describes (SHA-256 "
                    "differs): it was changed or replaced after the release was written"
                ),
            )
        )
    recorded: Any = (meta.input or {}).get("sha256")
    if "input" in sources and recorded and sources["input"][1] != recorded:
        out.append(
            Notice(
                "input-differs",
                (
                    f"{sources['input'][0]} is not the input the release was made from (SHA-256 "
                    "differs): the figures compare the release with another table"
                ),
            )
        )
    return out
