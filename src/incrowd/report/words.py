"""Every key figure of the report with one sentence of what it means for this release, and
the glossary.

A :class:`Figure` is what the page shows as ``data-figure="NAME" data-value="..."``: the
machine-readable value (``repr`` of the number, or the text) beside the human-readable one.
Only figures that apply to the release form are made (no SSE for a generalized release, no
NCP for centers), so the page never shows a row of "—"; a figure that is bounded by
construction (the prosecutor risk at k) is said to be so.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..io.metadata import ReleaseMetadata
from ..measures.risk import RiskReport
from .verdict import Check

__all__ = ["GLOSSARY", "Figure", "diversity_figures", "figure", "key_figures", "risk_figures"]


@dataclass(frozen=True)
class Figure:
    """One figure: its name, machine value, shown text, sentence and column (if any)."""

    name: str
    label: str
    value: str
    text: str
    sentence: str = ""
    column: str = ""


def figure(
    name: str, label: str, value: Any, sentence: str = "", column: str = "", text: str | None = None
) -> Figure:
    """A figure; ``value`` is shown with thousands separators (floats to 4 significant
    digits, whole from 1,000) unless ``text`` is given.

    >>> figure("k", "k", 5).text, figure("ncp", "NCP", 0.041207).value
    ('5', '0.041207')
    >>> figure("cost", "cost", 21830.4).text
    '21,830'
    """
    if value is None:
        machine, shown = "", "not recorded"
    elif isinstance(value, bool):
        machine = shown = str(value)
    elif isinstance(value, int):
        machine, shown = str(value), f"{value:,}"
    elif isinstance(value, float):
        machine = repr(value)
        # whole units from 1,000 up (4 significant digits would print 2.183e+04)
        whole = abs(value) >= 1000 or (value.is_integer() and abs(value) >= 1)
        shown = f"{value:,.0f}" if whole else f"{value:,.4g}"
    else:
        machine = shown = str(value)
    return Figure(name, label, machine, shown if text is None else text, sentence, column)


def _pct(x: float) -> str:
    return f"{100 * x:.1f} %"


def key_figures(
    meta: ReleaseMetadata, check: Check, figures: Mapping[str, Any], form: str, n_input: int
) -> list[Figure]:
    """The release's figures in plain words (records, classes, loss, the guarantee)."""
    report = check.report
    k = int(meta.k or 1)
    out = [
        figure(
            "records-input",
            "records in the input",
            n_input,
            "the records the release was made from",
        ),
        figure(
            "records-published",
            "records published",
            report.n_records,
            f"{_pct(report.n_records / n_input) if n_input else '0 %'} of the input"
            + (
                f"; besides them, {report.n_suppressed_rows:,} suppressed records are rows of *"
                if report.n_suppressed_rows
                else ""
            ),
        ),
        figure("k", "k asked for", meta.k, f"every published class must hold at least {k} records"),
        figure(
            "smallest-class",
            "smallest class",
            report.k_achieved,
            f"no published class is smaller than {report.k_achieved}, so a person matched "
            f"to a row is one of at least {report.k_achieved}",
        ),
        figure(
            "classes",
            "classes",
            report.n_classes,
            "groups of published rows with identical quasi-identifiers; on average "
            f"{report.n_records / max(report.n_classes, 1):.1f} records each",
        ),
        figure(
            "suppressed-records",
            "records suppressed",
            int(meta.n_suppressed or report.n_suppressed_rows),
            "records withheld, or published as rows of *, so that the rest could stay precise",
        ),
        figure(
            "missing-cells",
            "missing cells",
            check.missing_cells,
            "published cells with no value: (missing), or empty",
        ),
    ]
    if form in ("generalized", "records") and figures.get("ncp") is not None:
        ncp = float(figures["ncp"])
        out.append(
            figure(
                "ncp",
                "NCP (information loss)",
                ncp,
                f"on average a quasi-identifier cell lost {_pct(ncp)} of its "
                "precision (0 %: published as it was; 100 %: published as *)",
                text=_pct(ncp),
            )
        )
    if figures.get("discernibility") is not None and n_input:
        d = float(figures["discernibility"])
        out.append(
            figure(
                "discernibility",
                "discernibility",
                d,
                f"on average a record is indistinguishable from {d / n_input:.1f} "
                "published records (a suppressed one from the whole input)",
            )
        )
    if form in ("microaggregated", "centers") and figures.get("l_sse") is not None:
        lost = float(figures["l_sse"]) / 100
        out.append(
            figure(
                "sse",
                "SSE",
                figures.get("sse"),
                "the squared distance of every record to its published mean, "
                "summed (scaled as the schema's metrics)",
            )
        )
        out.append(
            figure(
                "l-sse",
                "share of the spread lost",
                lost,
                f"the published means keep {_pct(1 - lost)} of the spread of the quasi-identifiers",
                text=_pct(lost),
            )
        )
    if form == "centers" and figures.get("max_radius") is not None:
        out.append(
            figure(
                "max-radius",
                "largest radius",
                figures["max_radius"],
                "no record is farther than this from the center it is published as",
            )
        )
    if meta.cost is not None:
        objective = f" ({meta.objective})" if meta.objective else ""
        out.append(
            figure(
                "cost",
                "cost",
                meta.cost,
                f"the method's objective{objective} on this release: lower is better",
            )
        )
    if meta.lower_bound is not None:
        out.append(
            figure(
                "lower-bound",
                "lower bound (at most the optimum)",
                meta.lower_bound,
                "no release of this input under the same model can cost less",
            )
        )
    if meta.certified_ratio is not None:
        r = meta.certified_ratio
        out.append(
            figure(
                "certified-ratio",
                "certified ratio",
                r,
                f"cost / lower bound: this release costs at most {r:.2f} times the "
                "best possible, proven for this input",
            )
        )
    blocks = (meta.blocking or {}).get("n_blocks")
    if blocks:
        out.append(
            figure(
                "blocks",
                "blocks",
                int(blocks),
                "the table was anonymized block by block (blockwise run); every class lies "
                "within one block",
            )
        )
    if meta.blocked_certified_ratio is not None:
        r = meta.blocked_certified_ratio
        out.append(
            figure(
                "blocked-certified-ratio",
                "blocked certified ratio",
                meta.blocked_certified_ratio,
                f"cost / the sum of the blocks' own lower bounds: at most {r:.2f} times the "
                "best release made block by block",
            )
        )
    if meta.approximation_ratio is not None:
        out.append(
            figure(
                "approximation-ratio",
                "approximation ratio",
                meta.approximation_ratio,
                "the factor the method proves for every input (the certified ratio "
                "is usually far better)",
            )
        )
    return out


def risk_figures(risk: RiskReport, k_achieved: int) -> list[Figure]:
    """The re-identification figures, each in words; the prosecutor risk is said to be
    bounded by the smallest class, not shown as news."""
    t = risk.threshold
    bound = 1 / max(k_achieved, 1)
    out = [
        figure(
            "prosecutor-highest",
            "prosecutor risk, highest",
            risk.prosecutor["highest"],
            f"at most 1 / {k_achieved} = {bound:.3g} by construction (the smallest class "
            "has "
            + f"{k_achieved} records); "
            + (
                "below the threshold, so no record is above it"
                if bound <= t
                else f"above the threshold {t:g}"
            ),
        ),
        figure(
            "prosecutor-average",
            "prosecutor risk, average",
            risk.prosecutor["average"],
            "the chance of picking a known person's row, averaged over the published records",
        ),
    ]
    if risk.journalist.get("highest") is not None:
        out.append(
            figure(
                "journalist-highest",
                "journalist risk, highest",
                risk.journalist["highest"],
                "the same chance when the attacker does not know whether the "
                "person is in the release",
            )
        )
    if risk.marketer is not None:
        out.append(
            figure(
                "marketer",
                "marketer risk",
                risk.marketer,
                "the share of published records an attacker matching everyone "
                f"would re-identify: {_pct(risk.marketer)}",
            )
        )
    link = risk.linkage
    if link.get("max_reidentification_probability") is not None:
        out.append(
            figure(
                "linkage-highest",
                "linkage attack, highest probability",
                link["max_reidentification_probability"],
                "the best chance of an attacker who knows a person's "
                "quasi-identifiers to pick that person's row",
            )
        )
        out.append(
            figure(
                "records-below-k",
                "input records linked to fewer than k",
                link["records_below_k"],
                f"input records consistent with fewer than {risk.k} published records",
            )
        )
        out.append(
            figure(
                "records-unmatched",
                "input records linked to none",
                link["records_unmatched"],
                "input records no published row could stand for (not published, "
                "or published beyond recognition)",
            )
        )
    return out


def diversity_figures(
    name: str, found: Mapping[str, int], figures: Mapping[str, Any], numeric: bool
) -> list[Figure]:
    """The figures of sensitive column ``name``: its classes of a single value (``found``,
    the risk's attribute disclosure), the smallest l and the largest t (the ordered
    distance only for numbers)."""
    rows = [
        ("constant-sensitive-classes", "classes with a single value", found.get("classes"),
         "placing a person in one of these classes tells their value"),
        ("constant-sensitive-records", "records in them", found.get("records"),
         "the people whose value a match discloses"),
        ("distinct-l", "smallest distinct l", figures.get(f"distinct_l ({name})"),
         "the fewest distinct values in any class"),
        ("entropy-l", "smallest entropy l", figures.get(f"entropy_l ({name})"),
         "the least even class, as a number of equally common values"),
        ("t-equal", "largest t (equal distance)", figures.get(f"t_equal ({name})"),
         "how far the most unusual class is from the whole table (0: the same, 1: disjoint)"),
    ]  # fmt: skip
    if numeric:  # the ordered distance is for values with an order
        rows.append(("t-ordered", "largest t (ordered distance)",
                     figures.get(f"t_ordered ({name})"),
                     "the same, counting how far apart the values are"))  # fmt: skip
    return [figure(key, label, value, sentence, name) for key, label, value, sentence in rows]


#: term → what it means (the page's glossary).
GLOSSARY = {
    "quasi-identifier": "a column an attacker may know from elsewhere (age, sex, place); "
    "these are generalized so that people cannot be singled out by them",
    "sensitive column": "a column published as it is, whose value must not be learnt "
    "about a person (a diagnosis, a salary class)",
    "class": "the published rows with identical quasi-identifiers: whoever matches one of "
    "them could be any of them",
    "k-anonymity": "every class holds at least k records",
    "l-diversity": "every class holds at least l distinct values of each sensitive column "
    "(distinct) or an entropy of at least log l (entropy)",
    "t-closeness": "the distribution of a sensitive column in every class is within t of "
    "its distribution in the whole table (equal distance for labels; ordered distance for "
    "numbers)",
    "suppression": "a record left out of the release, or published as a row of *",
    "NCP": "normalized certainty penalty: the share of a cell's precision lost, 0 for a "
    "value published as it is, the width of a range over the column's range, the share of "
    "the values a label covers, 1 for *",
    "discernibility": "the sum over classes of their size squared (a suppressed record "
    "counts the whole input): how many records each record is confused with, summed",
    "SSE": "sum of squared errors between records and the mean they are published as",
    "cost": "the value of the method's objective on the release (its loss measure)",
    "lower bound": "a value no release can go below: at most the optimum cost",
    "certified ratio": "cost / lower bound: how far from the best possible this release "
    "is at most, proven for this input",
    "approximation ratio": "the factor the method is proven to reach on every input",
    "prosecutor risk": "1 / class size: the chance to pick the row of a person known to be "
    "in the release",
    "journalist risk": "1 / (input records consistent with the class): the same when the "
    "person may not be in the release",
    "marketer risk": "the expected share of records re-identified by matching everyone",
    "linkage attack": "every input record's quasi-identifiers matched against every "
    "published row; its probability is 1 / (records of the rows consistent with it)",
    "SHA-256": "a fingerprint of a file: any change to the file changes it",
}
