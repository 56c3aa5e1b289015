"""Re-identification risk of a published table, from the table and the original input.

Everything here reads only the published cells (and the original quasi-identifiers, which
the adversary is assumed to know); it never sees an algorithm's crowds.

**Classes.** Published rows with identical quasi-identifiers form one class of ``f``
records (a centers row stands for its ``count``).

**Consistency.** An original record is *consistent* with a published row when every
quasi-identifier cell could have been published for its value: the value itself, a range
``lo-hi`` containing it, a hierarchy label above it, a set ``{a|b}`` holding it (or a label
above it), or ``*``. For a generalized table this is exactly the adversary's view; a
microaggregated table publishes crowd means, so there a record is linked to the row nearest
to it (distance-based record linkage, in the schema's metric) instead; a centers release
matches a record to every center within the published radius of it.

Figures (as ARX and sdcMicro define them; ``F`` of a class is the number of original
records consistent with it, the original table playing the population):

- **prosecutor** (the adversary knows the target is in the release): a record's risk is
  ``1 / f``; the highest, the average (``classes / records``) and the records above a
  threshold;
- **journalist** (the target is somewhere in the original population): ``1 / F`` per class;
  the highest, the average over released records and the records above the threshold;
- **marketer** (re-identify as many as possible): the expected share of released records
  re-identified, ``Σ f / F`` over classes, divided by the released records;
- **linkage attack**: every original record's quasi-identifiers matched against every
  published row; its re-identification probability is ``1 / (records of the consistent
  rows)``. Reported: the largest probability, the records with fewer than ``k`` consistent
  records (at least one), and those with none (not released, or published beyond
  recognition).

Suppressed records published as rows of ``*`` (a release whose metadata says so, read as
:mod:`incrowd.privacy.verify` reads them) are left out, as a release that drops them would
be: they are no class, and link to no one more than to anyone. Without metadata, rows of
``*`` are a class like any other (the cautious reading for risk).

**Attribute disclosure**: per sensitive column, the classes whose records all hold one value
of it (a missing value one value of its own: :func:`~incrowd.privacy.models.sensitive_codes`)
and their records.

A generalized table is linked by consistency in ``measures/_linkage.py`` (compiled); releases of
crowd centers by distance, here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..data.columns import CategoricalColumn, encode_qis
from ..data.schema import Schema
from ..errors import InputError
from ..io.metadata import ReleaseMetadata
from ..io.release_format import COUNT, RADIUS
from ..params import RISK_THRESHOLD, RISK_THRESHOLD_DEFAULT
from ..privacy.models import published_figures
from ..release.generalize import SUPPRESSED_VALUE
from ..space.metric_space import MetricSpace
from ._linkage import link_by_cells
from .loss import category_code

__all__ = ["RiskReport", "assess_risk"]

#: Distinct original rows compared with every published center at a time.
LINK_CHUNK = 2048


@dataclass(frozen=True)
class RiskReport:
    """The figures of :func:`assess_risk` (see the module docstring)."""

    form: str
    k: int
    threshold: float
    n_input: int
    n_released: int
    n_classes: int
    prosecutor: dict[str, float]
    journalist: dict[str, float]
    marketer: float
    linkage: dict[str, float]
    #: per original record: the records of the rows consistent with it (0: none)
    consistent: np.ndarray = field(repr=False)
    #: per published class: its records ``f`` and the original records consistent ``F``
    class_sizes: np.ndarray = field(repr=False)
    class_population: np.ndarray = field(repr=False)
    #: per sensitive column: the classes holding a single value of it and their records,
    #: at risk of attribute disclosure whatever k is
    attribute_disclosure: dict[str, dict[str, int]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The figures as plain JSON-able values (the arrays left out)."""
        return {
            "form": self.form,
            "k": self.k,
            "threshold": self.threshold,
            "n_input": self.n_input,
            "n_released": self.n_released,
            "n_classes": self.n_classes,
            "prosecutor": self.prosecutor,
            "journalist": self.journalist,
            "marketer": self.marketer,
            "linkage": self.linkage,
            "max_reidentification_probability": self.linkage["max_reidentification_probability"],
            "records_below_k": self.linkage["records_below_k"],
            "attribute_disclosure": self.attribute_disclosure,
        }


def assess_risk(
    original: pd.DataFrame,
    published: pd.DataFrame,
    schema: Schema,
    *,
    k: int | None = None,
    metadata: ReleaseMetadata | Mapping[str, Any] | None = None,
    threshold: float = RISK_THRESHOLD_DEFAULT,
) -> RiskReport:
    """Re-identification risk of ``published`` (a release of ``original`` under ``schema``).

    ``k`` (default: the release metadata's) is the crowd size the linkage attack checks
    against. See the module docstring for how each release form is matched.
    """
    meta = ReleaseMetadata.of(metadata)
    RISK_THRESHOLD.check("threshold", threshold, 0)
    qi = list(schema.qi_names)
    missing = [c for c in qi if c not in published.columns]
    if missing:
        msg = f"the published table has no column {missing[0]!r}"
        raise InputError(msg)
    form = meta.release or ("centers" if COUNT in published.columns else "records")
    k = int(k if k is not None else (meta.k or 1))
    if k < 1:
        msg = f"k must be a positive integer, got {k}"
        raise InputError(msg)
    # rows of * stay one class: a person missing from the published categories is one of
    # them, so they are as exposed as any class of their size
    if form == "centers":
        weights = pd.to_numeric(published[COUNT], errors="coerce").fillna(0).astype(np.int64)
    else:
        weights = pd.Series(np.ones(len(published), dtype=np.int64), index=published.index)
    keys = published[qi].astype(str)
    group = keys.groupby(qi, sort=False, dropna=False).ngroup().to_numpy()
    n_classes = int(group.max()) + 1 if len(group) else 0
    sizes = np.bincount(group, weights=weights.to_numpy(), minlength=n_classes).astype(np.int64)
    first_row = np.full(n_classes, -1, dtype=np.intp)
    first_row[group[::-1]] = np.arange(group.size)[::-1]
    n_released = int(sizes.sum())
    n_input = len(original) if meta.n_input is None else meta.n_input
    risk = np.repeat(1.0 / np.maximum(sizes, 1), sizes)
    prosecutor = {
        "highest": float(risk.max()) if risk.size else 0.0,
        "average": float(risk.mean()) if risk.size else 0.0,
        "records_at_risk": int((risk > threshold).sum()),
    }
    if not len(published):
        empty = {"highest": None, "average": None, "records_at_risk": None}
        linkage = {"max_reidentification_probability": None, "records_below_k": None,
                   "records_unmatched": None, "average": None}  # fmt: skip
        return RiskReport(form, k, threshold, n_input, n_released, n_classes, prosecutor,
                          dict(empty), None, linkage, np.zeros(0, np.int64), sizes,  # type: ignore[arg-type]
                          np.zeros(0, np.int64))  # fmt: skip
    if form in ("generalized", "records"):
        columns = encode_qis(original, schema)
        per_combo, per_class, combo_of = link_by_cells(columns, keys, first_row, sizes)
    else:
        norm = int(meta.parameters.get("norm") or 2)
        radii = (
            pd.to_numeric(published[RADIUS], errors="coerce").to_numpy()[first_row]
            if form == "centers" and RADIUS in published.columns
            else None
        )
        per_combo, per_class, combo_of = _link_by_distance(
            original, schema, keys, first_row, sizes, norm, radii
        )
    consistent = per_combo[combo_of]
    matched = consistent > 0
    probability = np.where(matched, 1.0 / np.maximum(consistent, 1), 0.0)
    linkage = {
        "max_reidentification_probability": float(probability.max()) if probability.size else 0.0,
        "records_below_k": int(((consistent > 0) & (consistent < k)).sum()),
        "records_unmatched": int((~matched).sum()),
        "average": float(probability[matched].mean()) if matched.any() else 0.0,
    }
    population = np.maximum(per_class, sizes)  # a class's own records are in the population
    journalist_risk = np.repeat(1.0 / np.maximum(population, 1), sizes)
    journalist = {
        "highest": float(journalist_risk.max()),
        "average": float(journalist_risk.mean()),
        "records_at_risk": int((journalist_risk > threshold).sum()),
    }
    marketer = float((sizes / population).sum() / max(n_released, 1))
    names = [c for c in (schema.sensitive or meta.sensitive) if c in published.columns]
    disclosure = {
        name: {"classes": int(f["homogeneous_classes"]), "records": int(f["homogeneous_records"])}
        for name, f in published_figures(published, qi, names, form == "centers").items()
    }
    return RiskReport(form, k, threshold, n_input, n_released, n_classes, prosecutor,
                      journalist, marketer, linkage, consistent, sizes, population,
                      disclosure)  # fmt: skip


def _distances(
    geometry: Any, rows: np.ndarray, center_num: np.ndarray, center_codes: np.ndarray
) -> np.ndarray:
    """Rows × centers distances in the geometry (a center code −1: any value, costing the
    record's own entry), as :func:`~incrowd.costs.radius.distance_to_center` measures one,
    for many centers at once: the code columns that agree are found by a sparse product."""
    from scipy import sparse

    l1 = geometry.norm == 1
    num = np.abs(geometry.numeric[rows][:, None, :] - center_num[None, :, :])
    total = num.sum(axis=2) if l1 else (num**2).sum(axis=2)
    if geometry.codes.shape[1]:
        own = geometry.entries[geometry.codes[rows] + geometry.offsets[:-1]]
        safe = np.maximum(center_codes, 0)
        other = np.where(center_codes < 0, 0.0, geometry.entries[safe + geometry.offsets[:-1]])
        power = 1 if l1 else 2
        total += (own**power).sum(axis=1)[:, None] + (other**power).sum(axis=1)[None, :]
        width = int(geometry.offsets[-1])
        cols = geometry.codes[rows] + geometry.offsets[:-1]
        x = sparse.csr_matrix(
            (own.ravel() ** power, (np.repeat(np.arange(rows.size), cols.shape[1]), cols.ravel())),
            shape=(rows.size, width),
        )
        valid = center_codes >= 0
        c_rows, c_cols = np.nonzero(valid)
        c = sparse.csr_matrix(
            (np.ones(c_rows.size), ((safe + geometry.offsets[:-1])[valid], c_rows)),
            shape=(width, center_codes.shape[0]),
        )
        total -= 2.0 * (x @ c).toarray()  # agreeing codes cost nothing
    return total if l1 else np.sqrt(np.maximum(total, 0.0))


def _link_by_distance(
    original: pd.DataFrame,
    schema: Schema,
    keys: pd.DataFrame,
    first_row: np.ndarray,
    sizes: np.ndarray,
    norm: int,
    radii: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Linkage for releases of crowd centers: a record is consistent with the classes whose
    center lies within the published radius of it (centers releases), or else with the
    nearest classes (microaggregated releases, ties included)."""
    space = MetricSpace.from_table(original, schema, norm=norm)  # type: ignore[arg-type]
    geometry = space.geometry
    n_classes = first_row.size
    center_num = np.zeros((n_classes, geometry.numeric.shape[1]))
    center_codes = np.full((n_classes, geometry.codes.shape[1]), -1, dtype=np.intp)
    by_name = {c.name: c for c in space.columns}
    for block in space.blocks:
        cells = keys[block.name].to_numpy()[first_row].astype(str)
        column = by_name[block.name]
        if block.numeric is not None:
            values = pd.to_numeric(pd.Series(cells), errors="coerce").to_numpy(dtype=float)
            if np.isnan(values).any():
                bad = cells[np.isnan(values)][0]
                msg = f"published value {bad!r} of {block.name!r} is not a number"
                raise InputError(msg)
            center_num[:, block.numeric] = (values - block.offset) / block.scale
        elif isinstance(column, CategoricalColumn):
            for g, cell in enumerate(cells):
                code = category_code(column, cell)
                if code is None and cell != SUPPRESSED_VALUE:
                    msg = (
                        f"published value {cell!r} of {block.name!r} is not a value of the original"
                    )
                    raise InputError(msg)
                center_codes[g, block.codes[0]] = -1 if code is None else code
        else:
            hierarchy = column.hierarchy
            for g, cell in enumerate(cells):
                node = hierarchy.level_of_label(cell)
                if node is None:
                    if cell != SUPPRESSED_VALUE:
                        msg = (
                            f"published value {cell!r} of {block.name!r} is not a label of its "
                            "hierarchy; give the hierarchy the release was made with"
                        )
                        raise InputError(msg)
                    continue  # "*": any value
                level, code = node
                leaf = int(np.flatnonzero(hierarchy.codes[:, level] == code)[0])
                for t, j in enumerate(range(*block.codes)):
                    if t >= level:
                        center_codes[g, j] = hierarchy.codes[leaf, t]
    first, combo_of, combo_counts, _ = space.index().distinct_rows
    per_combo = np.zeros(first.size, dtype=np.int64)
    per_class = np.zeros(n_classes, dtype=np.int64)
    for lo in range(0, first.size, LINK_CHUNK):
        rows = first[lo : lo + LINK_CHUNK]
        d = _distances(geometry, rows, center_num, center_codes)
        limit = radii[None, :] if radii is not None else d.min(axis=1, keepdims=True)
        within = d <= limit * (1 + 1e-9) + 1e-12
        per_combo[lo : lo + rows.size] = within @ sizes
        per_class += combo_counts[lo : lo + rows.size] @ within
    return per_combo, per_class, combo_of
