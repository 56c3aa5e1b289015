"""l-diversity and t-closeness: what a crowd's sensitive values may reveal, as measures and as
constraints.

k-anonymity hides who a record is, not what it says: a crowd whose members all share one
diagnosis discloses it. For every sensitive attribute and every class (the records that
share their published quasi-identifiers), with ``r₁ ≥ r₂ ≥ … ≥ r_m`` the counts of the
class's distinct sensitive values, ``p`` their shares in the class and ``q`` the shares in
the whole table (the same definitions as the pycanon library):

- **distinct l-diversity**: ``m ≥ l``;
- **entropy l-diversity**: ``−Σ p log p ≥ log l`` (the class's *entropy l* is
  ``exp(−Σ p log p)``);
- **recursive (c, l)-diversity**: ``r₁ < c (r_l + r_{l+1} + … + r_m)`` (``m ≥ l``);
- **t-closeness**, equal distance (labels): ``½ Σ |p_i − q_i| ≤ t``; ordered distance
  (numbers, or labels in their sorted order): with the ``M`` values of the whole table
  sorted, ``Σ_i |Σ_{j≤i} (p_j − q_j)| / (M − 1) ≤ t``.

:func:`class_measures` computes them per class (verification and evaluation read them from
the published table). This module is the privacy model only and imports no algorithm, so
the checker (:mod:`incrowd.privacy.verify`) stays independent of what it checks; the repair that
makes a partition meet the model is :func:`incrowd.postprocess.enforce`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from ..data.columns import sensitive_codes
from ..errors import ParameterError

__all__ = [
    "Diversity",
    "class_counts",
    "class_measures",
    "published_counts",
    "published_figures",
    "satisfied",
    "sensitive_codes",
]

LKind = Literal["distinct", "entropy", "recursive"]
TKind = Literal["auto", "equal", "ordered"]


@dataclass(frozen=True)
class Diversity:
    """What every class must hold, for every sensitive attribute: ``l`` (with ``l_kind`` and,
    for recursive diversity, ``c``) and/or ``t`` (with ``t_kind``; ``auto``: ordered for a
    numeric attribute, equal for labels)."""

    l: float | None = None  # noqa: E741 - the literature's name
    l_kind: LKind = "distinct"
    c: float = 1.0
    t: float | None = None
    t_kind: TKind = "auto"

    def __post_init__(self) -> None:
        if self.l is not None and (not np.isfinite(self.l) or self.l < 1):
            raise ParameterError(f"l must be a number >= 1, got {self.l!r}")
        if self.l_kind not in ("distinct", "entropy", "recursive"):
            raise ParameterError(
                f"l-kind must be distinct, entropy or recursive, got {self.l_kind!r}"
            )
        if self.l_kind == "distinct" and self.l is not None and self.l != int(self.l):
            raise ParameterError(f"distinct l-diversity needs a whole l, got {self.l!r}")
        if not self.c > 0:
            raise ParameterError(f"c must be positive, got {self.c!r}")
        if self.t is not None and not 0 <= self.t <= 1:
            raise ParameterError(f"t must be in [0, 1], got {self.t!r}")
        if self.t_kind not in ("auto", "equal", "ordered"):
            raise ParameterError(f"t-kind must be auto, equal or ordered, got {self.t_kind!r}")

    @property
    def active(self) -> bool:
        return self.l is not None or self.t is not None

    def describe(self) -> dict[str, object]:
        out: dict[str, object] = {}
        if self.l is not None:
            out |= {"l": self.l, "l_kind": self.l_kind}
            if self.l_kind == "recursive":
                out["c"] = self.c
        if self.t is not None:
            out |= {"t": self.t, "t_kind": self.t_kind}
        return out


def builds_for(spec: Diversity | None, n_sensitive: int) -> bool:
    """Whether ``spec`` is what the l-diverse local search (and a method that builds
    l-diverse crowds itself) keeps: distinct l-diversity with a whole ``l`` ≥ 2, no
    t-closeness, one sensitive column."""
    return (
        spec is not None
        and spec.l is not None
        and spec.l >= 2
        and spec.l_kind == "distinct"
        and spec.t is None
        and n_sensitive == 1
    )


def class_counts(labels: np.ndarray, codes: np.ndarray, n_classes: int, n_values: int,
            weights: np.ndarray | None = None) -> np.ndarray:  # fmt: skip
    """Classes × values table of counts (records with label −1 left out)."""
    kept = labels >= 0
    flat = labels[kept] * n_values + codes[kept]
    w = None if weights is None else weights[kept]
    return np.bincount(flat, weights=w, minlength=n_classes * n_values).reshape(n_classes, n_values)


def class_measures(
    table: np.ndarray, ordered: bool, whole: np.ndarray | None = None
) -> dict[str, np.ndarray]:
    """Per class (rows of a classes × values count table): distinct values, entropy l,
    the counts sorted (for recursive diversity), and t against ``whole`` (the counts of the
    whole table; default: the sum of the rows)."""
    table = np.asarray(table, dtype=np.float64)
    sizes = table.sum(axis=1)
    p = table / np.maximum(sizes, 1)[:, None]
    total = table.sum(axis=0) if whole is None else np.asarray(whole, dtype=np.float64)
    q = total / max(total.sum(), 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        entropy = -np.where(p > 0, p * np.log(p), 0.0).sum(axis=1)
    if ordered:
        m = max(int((q > 0).sum()), 2)
        present = q > 0
        t = np.abs(np.cumsum((p - q)[:, present], axis=1)).sum(axis=1) / (m - 1)
    else:
        t = 0.5 * np.abs(p - q).sum(axis=1)
    return {
        "distinct": (table > 0).sum(axis=1),
        "entropy_l": np.exp(entropy),
        "sorted_counts": -np.sort(-table, axis=1),
        "t": t,
    }


def satisfied(
    table: np.ndarray, spec: Diversity, numeric: bool, whole: np.ndarray | None = None
) -> np.ndarray:
    """Per class: whether it meets ``spec`` (``numeric``: the attribute's values are numbers,
    so ``auto`` t-closeness uses the ordered distance)."""
    ordered = numeric if spec.t_kind == "auto" else spec.t_kind == "ordered"
    m = class_measures(table, ordered, whole)
    ok = np.ones(table.shape[0], dtype=bool)
    if spec.l is not None:
        if spec.l_kind == "distinct":
            ok &= m["distinct"] >= spec.l
        elif spec.l_kind == "entropy":
            ok &= m["entropy_l"] >= spec.l * (1 - 1e-12)
        else:
            level = int(np.ceil(spec.l))
            r = m["sorted_counts"]
            tail = r[:, level - 1 :].sum(axis=1) if r.shape[1] >= level else np.zeros(len(r))
            ok &= (m["distinct"] >= level) & (r[:, 0] < spec.c * tail)
    if spec.t is not None:
        ok &= m["t"] <= spec.t + 1e-12
    return ok


def published_counts(
    table: pd.DataFrame, qi: Sequence[str], name: str, centers: bool
) -> tuple[np.ndarray, bool]:
    """Classes × values counts of sensitive attribute ``name`` in a published table (rows
    with identical quasi-identifiers form a class; a centers row holds a JSON multiset),
    and whether its values are numbers."""
    import json

    keys = table[list(qi)].astype(str)
    group = keys.groupby(list(qi), sort=False, dropna=False).ngroup().to_numpy()
    if centers:
        rows, values, weights = [], [], []
        for g, cell in zip(group, table[name], strict=True):
            for value, count in json.loads(str(cell)).items():
                rows.append(g)
                values.append(value)
                weights.append(int(count))
        series = pd.Series(values, dtype=object)
        group, w = np.asarray(rows, dtype=np.intp), np.asarray(weights, dtype=np.float64)
    else:
        series, w = table[name].reset_index(drop=True), None
    codes, numeric = sensitive_codes(series)
    n_classes = int(group.max()) + 1 if group.size else 0
    n_values = int(codes.max()) + 1 if codes.size else 1
    return class_counts(group, codes, n_classes, n_values, w), numeric


def published_figures(
    table: pd.DataFrame, qi: Sequence[str], sensitive: Sequence[str], centers: bool,
    spec: Diversity | None = None,
) -> dict[str, dict[str, float | int]]:  # fmt: skip
    """Per sensitive attribute of a published table: the smallest distinct count and entropy
    l over its classes, the largest t (equal and ordered distances), the classes (and their
    records) that hold a single value of it (homogeneous: whoever places a person in such a
    class learns the value; zero when the whole table holds one value) and, with ``spec``,
    the classes that break it."""
    out: dict[str, dict[str, float | int]] = {}
    for name in sensitive:
        counts, numeric = published_counts(table, qi, name, centers)
        if counts.shape[0] == 0:
            continue
        equal = class_measures(counts, ordered=False)
        ordered = class_measures(counts, ordered=True)
        single = (equal["distinct"] == 1) & ((counts.sum(axis=0) > 0).sum() > 1)
        figures: dict[str, float | int] = {
            "homogeneous_classes": int(single.sum()),
            "homogeneous_records": int(round(float(counts[single].sum()))),
            "distinct_l": int(equal["distinct"].min()),
            "entropy_l": float(equal["entropy_l"].min()),
            "t_equal": float(equal["t"].max()),
            "t_ordered": float(ordered["t"].max()),
        }
        if spec is not None and spec.active:
            figures["classes_failing"] = int((~satisfied(counts, spec, numeric)).sum())
        out[name] = figures
    return out
