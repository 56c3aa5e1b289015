"""Exact minimum-weight [1,2]-factors and 2-factors, and their certificates.

- [1,2]-factor (every degree 1 or 2): minimum-weight perfect matching (PyMatching's sparse
  blossom) on the split gadget: each vertex ``v`` has a primary copy that must be matched
  and a secondary copy that may instead meet the boundary; an edge ``uv`` becomes ``u–v``,
  ``u–v'`` and ``u'–v``. A [1,2]-factor's paths and cycles, walked in one direction, use
  each vertex's primary copy for the edge leaving it and its secondary for the edge
  entering it (a path's last edge primary to primary), so factors and matchings correspond
  at equal weight. (Two copies of the gadget joined secondary to secondary, as in
  ``../shared/notes/solver-measurements.md``, give the same factors with twice the nodes:
  the matching takes 0.93 s against 0.43 s for the 14,021 lone records of Adult at k = 2;
  the tests check the factors against brute force.) PyMatching needs integer weights, so weights
  are rounded to a grid; the result is optimal for the rounded weights and within
  ``n × step`` of the true optimum (``step`` = largest weight / 2**21), which we report.
- 2-factor (every degree 2, cycles of length ≥ 3): a mixed-integer program on the degree
  constraints, solved exactly by HiGHS (``scipy.optimize.milp``, relative gap 0); a simple
  graph has no 2-cycles, so no subtour constraints are needed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
import scipy.sparse as sp

from ...errors import InfeasibleError, ParameterError

__all__ = [
    "Factor",
    "FactorKind",
    "SolverTimeout",
    "solve_factor",
    "unique_edges",
    "MILP_MAX_EDGES",
    "milp_factor",
    "incidence",
]

FactorKind = Literal["12", "2"]
#: Rounded weights are integers up to this; with the shifts below every gadget weight stays
#: under 2**24, where PyMatching is exact.
WEIGHT_GRID = 2**21
#: The MIP (the 2-factor, and closing small LP gaps) stops after this many seconds with the
#: best factor found and its proven distance from the optimum.
MILP_TIME_LIMIT = 60.0
#: Up to this many candidate edges an LP gap is closed by solving the MIP exactly.
MILP_MAX_EDGES = 2_000


class SolverTimeout(InfeasibleError):
    """The MIP found no factor within its time limit (the graph may still have one)."""


@dataclass(frozen=True)
class Factor:
    """A factor: its edges ``(u, v)`` with ``u < v``, their weights and its weight."""

    edges: np.ndarray  # (m, 2)
    weights: np.ndarray  # (m,)
    #: how far above the optimum (on the graph it was solved on) the weight may be: weight
    #: rounding of the matching solver, or the gap of a MIP stopped by its time limit
    rounding: float = 0.0

    @property
    def weight(self) -> float:
        return float(self.weights.sum())


def unique_edges(u: np.ndarray, v: np.ndarray, n: int) -> np.ndarray:
    """Undirected, deduplicated edges ``(a, b)`` with ``a < b`` (self-loops dropped)."""
    u, v = np.asarray(u, dtype=np.int64), np.asarray(v, dtype=np.int64)
    keep = u != v
    a, b = np.minimum(u[keep], v[keep]), np.maximum(u[keep], v[keep])
    key = np.unique(a * n + b)
    return np.column_stack([key // n, key % n]).astype(np.intp)


def incidence(n: int, edges: np.ndarray) -> sp.csr_matrix:
    m = edges.shape[0]
    cols = np.r_[np.arange(m), np.arange(m)]
    return sp.csr_matrix((np.ones(2 * m), (np.r_[edges[:, 0], edges[:, 1]], cols)), shape=(n, m))


def solve_factor(kind: FactorKind, n: int, edges: np.ndarray, weights: np.ndarray) -> Factor:
    """A minimum-weight factor of the graph ``(n, edges, weights)``; ``InfeasibleError`` when
    the graph has none."""
    weights = np.asarray(weights, dtype=np.float64)
    if np.any(weights < 0) or not np.all(np.isfinite(weights)):
        msg = "factor weights must be finite and non-negative"
        raise ParameterError(msg)
    if kind == "12":
        return _matching_12_factor(n, edges, weights)
    return _milp_2_factor(n, edges, weights)


def _matching_12_factor(n: int, edges: np.ndarray, weights: np.ndarray) -> Factor:
    from ..._runtime import matplotlib_quiet

    with matplotlib_quiet():  # pymatching imports matplotlib, which may warn of its folders
        import pymatching  # imported here: only the factor methods need it

    if n == 0:
        return Factor(np.zeros((0, 2), dtype=np.intp), np.zeros(0))
    degree = np.bincount(edges.ravel(), minlength=n) if edges.size else np.zeros(n)
    if np.any(degree == 0):
        msg = f"record {int(np.argmin(degree))} has no candidate partner: no [1,2]-factor"
        raise InfeasibleError(msg)
    top = float(weights.max()) if weights.size else 0.0
    step = top / WEIGHT_GRID if top > 0 else 1.0
    w_int = np.rint(weights / step)
    # A constant on every edge between nodes, half of it on every edge to the boundary,
    # turns the minimum T-join over all nodes into a minimum perfect matching with the
    # boundary: each covers every node once, so all cost n times the constant, and a T-join
    # with a node of degree 3 costs at least one constant more (more than any one edge's
    # weight; the check below catches a T-join that still wins, and raises the constant).
    shift = WEIGHT_GRID + 2.0
    u, v = edges[:, 0], edges[:, 1]
    gadget = np.vstack([np.column_stack([u, v]),  # primary – primary
                        np.column_stack([u, n + v]),  # primary – secondary
                        np.column_stack([n + u, v])])  # secondary – primary  # fmt: skip
    m = gadget.shape[0]
    n_nodes = 2 * n
    # a secondary copy may stay free: it meets the boundary (a column with one node)
    rows = np.r_[gadget.ravel(), n + np.arange(n)]
    cols = np.r_[np.repeat(np.arange(m), 2), m + np.arange(n)]
    H = sp.csc_matrix((np.ones(rows.size, dtype=np.uint8), (rows, cols)), shape=(n_nodes, m + n))
    gw = np.r_[np.tile(w_int, 3) + shift, np.full(n, shift / 2)]
    for _ in range(2):
        matching = pymatching.Matching.from_check_matrix(H, weights=gw)
        pairs = matching.decode_to_edges_array(np.ones(n_nodes, dtype=np.uint8))
        pairs = np.asarray(pairs).reshape(-1, 2)
        ends = pairs.ravel()
        covered = np.bincount(ends[ends >= 0], minlength=n_nodes)
        if np.all(covered == 1):
            break
        # not a perfect matching (the T-join took a path): a larger shift forbids that
        gw = gw + 3 * shift * np.r_[np.ones(m), np.full(n, 0.5)]
    else:  # the shift needed would exceed PyMatching's exact range: solve the MIP instead
        return milp_factor("12", n, edges, weights)
    between = pairs[(pairs >= 0).all(axis=1)]
    a, b = between[:, 0] % n, between[:, 1] % n
    chosen = unique_edges(a, b, n)
    keys = edges[:, 0].astype(np.int64) * n + edges[:, 1]  # edges are unique, a < b
    order = np.argsort(keys, kind="stable")
    at = order[np.searchsorted(keys, chosen[:, 0].astype(np.int64) * n + chosen[:, 1],
                               sorter=order)]  # fmt: skip
    chosen_w = weights[at]
    # optimal for the rounded weights, so within n * step of the true optimum
    return Factor(chosen, chosen_w, rounding=float(n * step))


def _milp_2_factor(n: int, edges: np.ndarray, weights: np.ndarray) -> Factor:
    if n < 3 or edges.shape[0] < n:
        msg = f"{n} records with {edges.shape[0]} candidate pairs have no 2-factor"
        raise InfeasibleError(msg)
    return milp_factor("2", n, edges, weights)


def milp_factor(kind: FactorKind, n: int, edges: np.ndarray, weights: np.ndarray) -> Factor:
    from scipy.optimize import Bounds, LinearConstraint, milp  # on first use

    A = incidence(n, edges)
    res = milp(
        weights,
        constraints=LinearConstraint(A, 2 if kind == "2" else 1, 2),
        integrality=np.ones(edges.shape[0]),
        bounds=Bounds(0, 1),
        options={"mip_rel_gap": 0.0, "time_limit": MILP_TIME_LIMIT},
    )
    name = "2" if kind == "2" else "[1,2]"
    if res.x is None:
        if res.status == 1:
            msg = (
                f"the {name}-factor MIP found no solution within {MILP_TIME_LIMIT:g} s "
                f"({n} records); use the forest method for data this size"
            )
            raise SolverTimeout(msg)
        msg = f"the candidate graph has no {name}-factor"
        raise InfeasibleError(msg)
    pick = res.x > 0.5
    chosen = weights[pick]
    # stopped by the time limit: the best factor found, within (its weight - the MIP's
    # dual bound) of the optimum on these edges
    dual = getattr(res, "mip_dual_bound", None)
    short = 0.0 if res.status == 0 or dual is None else max(float(chosen.sum()) - dual, 0.0)
    return Factor(edges[pick], chosen, rounding=short)
