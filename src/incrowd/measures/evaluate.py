"""Information loss of a published table, measured from the table and the original input.

Rows of a release are shuffled and carry no identifiers, so records cannot be matched one
to one; every figure here is computed from the published cells and from the domains of the
input columns (and the suppressed count in the metadata):

- ``ncp`` (generalized releases), and ``ncp (name)`` per quasi-identifier: the normalized
  certainty penalty of every published cell
  as :mod:`incrowd.data.ncp` defines it (range width over the input's range, ``*`` = 1, a
  label or a value set by the input values it covers), a suppressed record costing 1 per
  cell.
- ``sse`` / ``l_sse`` over the numeric quasi-identifiers (microaggregated and centers
  releases, whose numeric values are crowd means): SSE = SST − SSB, where SSB is the spread
  of the published means around the overall mean. Scaling follows the schema's metrics.
- ``discernibility``: Σ |E|² over groups of identical published quasi-identifiers, plus
  ``n_input`` for every suppressed record.
- ``max_radius`` (centers releases): the largest published radius.
- per sensitive column (:mod:`incrowd.privacy.models`): the smallest distinct and entropy l over
  the classes, and the largest t (equal and ordered distances).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ..costs import SSE
from ..data.columns import CategoricalColumn, HierarchicalColumn, NumericColumn, encode_qis
from ..data.ncp import domain_size, label_penalties, present_values, range_of_label
from ..data.schema import Numeric, Schema
from ..errors import InputError
from ..io.release_format import COUNT, RADIUS
from ..privacy.models import published_figures
from ..privacy.verify import verify
from ..release.generalize import SUPPRESSED_VALUE, parse_value_set
from ..space.metric_space import MetricSpace

__all__ = [
    "category_code",
    "evaluate_release",
    "ncp_by_attribute",
    "parse_range",
    "published_discernibility",
]


def parse_range(text: str) -> tuple[float, float]:
    """Read a published numeric cell: ``"39"`` or ``"35-39"`` (also ``"-5--3"``, ``"1e-05-2"``)."""
    bounds = range_of_label(str(text))
    if bounds is None:
        msg = f"cannot read {str(text).strip()!r} as a number or a range lo-hi"
        raise InputError(msg)
    return bounds


def evaluate_release(
    original: pd.DataFrame,
    published: pd.DataFrame,
    schema: Schema,
    metadata: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Loss figures of ``published`` (a release of ``original`` under ``schema``)."""
    meta = dict(metadata or {})
    recorded = meta.get("qi")
    if recorded is not None and set(map(str, recorded)) != set(schema.qi_names):
        msg = (
            f"the release was made with quasi-identifiers {', '.join(map(str, recorded))}, "
            f"not {', '.join(schema.qi_names)}; evaluate it with the same --qi"
        )
        raise InputError(msg)
    form = str(meta.get("release") or ("centers" if COUNT in published.columns else "records"))
    report = verify(published, schema.qi_names, 1, metadata=meta)
    if report.problems and report.n_records == 0:
        raise InputError(report.problems[0])
    columns = encode_qis(original, schema)
    n_input = int(meta.get("n_input", len(original)))
    n_suppressed = int(meta.get("n_suppressed", max(n_input - report.n_records, 0)))
    out: dict[str, Any] = {
        "form": form,
        "n_input": n_input,
        "n_released": report.n_records,
        "n_suppressed": n_suppressed,
        "n_groups": report.n_classes,
        "k_achieved": report.k_achieved,
        "avg_group_size": report.n_records / report.n_classes if report.n_classes else 0.0,
        "discernibility": published_discernibility(published, schema, form)
        + n_input * n_suppressed,
        "ncp": None,
        "sse": None,
        "l_sse": None,
        "max_radius": None,
    }
    if form in ("generalized", "records"):
        by_attribute = ncp_by_attribute(published, columns, n_suppressed)
        out["ncp"] = float(np.mean(list(by_attribute.values()))) if by_attribute else 0.0
        out |= {f"ncp ({name})": value for name, value in by_attribute.items()}
    if form in ("microaggregated", "centers"):
        out["sse"], out["l_sse"] = _numeric_sse(original, published, schema, form)
    if form == "centers" and RADIUS in published.columns and len(published):
        out["max_radius"] = float(pd.to_numeric(published[RADIUS]).max())
    names = [c for c in (schema.sensitive or meta.get("sensitive", [])) if c in published]
    if names and len(published):
        figures = published_figures(published, schema.qi_names, names, form == "centers")
        for name, values in figures.items():
            for key, value in values.items():
                out[f"{key} ({name})"] = value
    return out


def _weights(published: pd.DataFrame, form: str) -> np.ndarray:
    if form == "centers":
        return pd.to_numeric(published[COUNT]).to_numpy(dtype=np.float64)
    return np.ones(len(published))


def published_discernibility(published: pd.DataFrame, schema: Schema, form: str) -> float:
    """Σ |E|² over the groups of identical published quasi-identifiers (suppressed excluded)."""
    if not len(published):
        return 0.0
    keys = published[list(schema.qi_names)].astype(str)
    w = pd.Series(_weights(published, form), index=published.index)
    sizes = w.groupby([keys[c] for c in keys.columns], sort=False).sum().to_numpy()
    return float(np.sum(sizes**2))


def ncp_by_attribute(published: pd.DataFrame, columns: list, n_suppressed: int) -> dict[str, float]:
    """NCP of each quasi-identifier over the input's records (a suppressed record costs 1)."""
    n_total = len(published) + n_suppressed
    out: dict[str, float] = {}
    for col in columns:
        if n_total == 0:
            out[col.name] = 0.0
            continue
        cells = published[col.name].astype(str).to_numpy()
        uniq, counts = np.unique(cells, return_counts=True)
        cost = np.array([_cell_penalty(col, cell) for cell in uniq])
        out[col.name] = (float(np.dot(cost, counts)) + n_suppressed) / n_total
    return out


def _cell_penalty(col: Any, cell: str) -> float:
    """NCP of one published cell (:mod:`incrowd.data.ncp`), from the cell's text alone."""
    if isinstance(col, NumericColumn):
        lo_all, hi_all = col.bounds
        if cell == SUPPRESSED_VALUE:
            return 1.0 if hi_all > lo_all else 0.0
        lo, hi = parse_range(cell)
        width = min(hi, hi_all) - max(lo, lo_all)
        return max(width, 0.0) / (hi_all - lo_all) if hi_all > lo_all else 0.0
    domain = domain_size(col)
    members = parse_value_set(cell)
    if members is not None:
        covered = np.unique(np.concatenate([_covered(col, v, cell) for v in members]))
        return (covered.size - 1) / (domain - 1) if domain > 1 else 0.0
    if isinstance(col, CategoricalColumn):
        if category_code(col, cell) is not None:
            return 0.0
        if cell == SUPPRESSED_VALUE:
            return 1.0 if domain > 1 else 0.0
        msg = f"published value {cell!r} of {col.name!r} is neither a value of the data nor *"
        raise InputError(msg)
    assert isinstance(col, HierarchicalColumn)
    found = col.hierarchy.level_of_label(cell)
    if found is None:
        msg = f"published value {cell!r} of {col.name!r} is not a label of its hierarchy"
        raise InputError(msg)
    level, code = found
    return float(label_penalties(col)[level][code])


def category_code(col: CategoricalColumn, value: str) -> int | None:
    """Code of a categorical value (categories are sorted: a binary search, not a scan of
    what may be a million values), or None."""
    i = bisect_left(col.categories, value)
    return i if i < len(col.categories) and col.categories[i] == value else None


def _covered(col: Any, member: str, cell: str) -> np.ndarray:
    """Input values (leaf codes) a member of a published set stands for."""
    present = present_values(col)
    if isinstance(col, CategoricalColumn):
        code = category_code(col, member)
        if code is not None:
            return np.array([code])
    else:
        found = col.hierarchy.level_of_label(member)
        if found is not None:
            level, code = found
            return present[col.hierarchy.codes[present, level] == code]
    msg = f"published set {cell!r} of {col.name!r} holds {member!r}, not in the data"
    raise InputError(msg)


def _numeric_sse(
    original: pd.DataFrame, published: pd.DataFrame, schema: Schema, form: str
) -> tuple[float | None, float | None]:
    """SSE over the numeric QIs from published crowd means: SST − SSB, where SSB is the
    spread of the published means (each standing for its records) around the overall mean."""
    numeric = {n: m for n, m in schema.quasi_identifiers.items() if isinstance(m, Numeric)}
    if not numeric or not len(published):
        return None, None
    space = MetricSpace.from_table(original, Schema(numeric))
    released = np.empty((len(published), len(numeric)))
    for block in space.blocks:
        values = pd.to_numeric(published[block.name], errors="coerce").to_numpy(dtype=float)
        if np.isnan(values).any():
            msg = f"published column {block.name!r} is not numeric; cannot measure SSE"
            raise InputError(msg)
        released[:, block.numeric] = (values - block.offset) / block.scale
    weights = _weights(published, form).astype(np.int64)
    means = np.repeat(released, weights, axis=0)  # each published mean, once per record
    sst = SSE.on(space).total()
    # spread of the means around the overall mean: around their own mean, plus the shift
    shift = means.mean(axis=0) - space.geometry.numeric.mean(axis=0)
    ssb = SSE.on(MetricSpace.from_array(means)).total() + len(means) * float(shift @ shift)
    sse = max(sst - ssb, 0.0)
    return sse, (100.0 * sse / sst if sst > 0 else 0.0)
