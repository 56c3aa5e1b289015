"""Certificates for factors found on a sparse candidate graph.

:func:`certify` proves a factor found on a sparse candidate graph optimal for the complete
graph by reduced-cost fixing: with the LP relaxation's duals ``π``, any factor of the
complete graph that uses an edge of reduced cost ``w_uv − π_u − π_v`` above
``w(F) − LP`` weighs more than ``F``; so if every missing edge is above that, the optimum
uses candidate edges only, where ``F`` is optimal.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from ...errors import InfeasibleError
from ._solve import (
    MILP_MAX_EDGES,
    Factor,
    FactorKind,
    SolverTimeout,
    incidence,
    milp_factor,
    solve_factor,
    unique_edges,
)

__all__ = ["Certified", "certify", "lp_duals", "exact_on_all_pairs"]

#: Above this many candidate edges the LP is solved by interior point (faster there, and
#: its central duals make fewer missing edges look attractive), below by dual simplex.
IPM_ABOVE_EDGES = 100_000
#: With that many edges, those priced within this fraction of the median candidate weight
#: join the ones that must: duals move when edges are added, and this spares rounds.
PRICING_MARGIN = 0.5


def lp_duals(
    kind: FactorKind,
    n: int,
    edges: np.ndarray,
    weights: np.ndarray,
    cuts: list[np.ndarray] | None = None,
    max_cut_rounds: int = 6,
) -> tuple[float, Duals, list[np.ndarray]]:
    """A lower bound on the minimum factor weight from the LP relaxation, with its duals.

    For every factor ``x`` of any larger graph, ``w·x ≥ LP + Σ_e rc_e x_e`` over the edges
    outside this graph (:meth:`Duals.reduced_costs`). For the [1,2]-factor the relaxation
    is tightened with the odd-set inequalities of edge covers,
    ``x(E(S)) + x(δ(S)) ≥ (|S| + 1) / 2`` for odd ``S``, separated as the odd components of
    the LP solution's fractional part (``cuts`` carries the sets found before: one array
    per round, the set of each vertex or −1). Returns the value, the duals and the cuts.
    """
    from scipy.optimize import linprog  # on first use: no start-up pays for it

    A = incidence(n, edges).tocsr()
    if kind == "2":
        res = linprog(weights, A_eq=A, b_eq=2 * np.ones(n), bounds=(0, 1), method="highs")
        if res.status != 0:
            raise InfeasibleError(res.message)
        duals = Duals(np.asarray(res.eqlin.marginals, dtype=np.float64), [], np.asarray(res.x))
        return float(res.fun), duals, []
    cuts = list(cuts or [])
    for round_ in range(max_cut_rounds + 1):
        built = [_cut_matrix(member, edges) for member in cuts]
        rows = [-A, A, *(-c for c, _ in built)]
        rhs = [-np.ones(n), 2 * np.ones(n), *(-r for _, r in built)]
        # No upper bounds x <= 1: an optimum never exceeds them (w >= 0, degree >= 1 is
        # kept), and without them every reduced cost in the graph is >= 0, which keeps the
        # potentials tight for pricing the missing edges.
        method = "highs-ds" if edges.shape[0] < IPM_ABOVE_EDGES or not cuts else "highs-ipm"
        res = linprog(
            weights, A_ub=sp.vstack(rows).tocsr(), b_ub=np.concatenate(rhs),
            bounds=(0, None), method=method,
        )  # fmt: skip
        if res.status != 0:
            raise InfeasibleError(res.message)
        member = _odd_sets(n, edges, res.x) if round_ < max_cut_rounds else None
        if member is None:
            break
        C, r = _cut_matrix(member, edges)
        violated = C @ res.x < r - 1e-7
        if not violated.any():
            break
        remap = np.full(r.size, -1)
        remap[violated] = np.arange(int(violated.sum()))
        cuts.append(np.where(member >= 0, remap[np.maximum(member, 0)], -1).astype(np.intp))
    mu = np.asarray(res.ineqlin.marginals, dtype=np.float64)
    pairs = []
    offset = 2 * n
    for member, (C, _) in zip(cuts, built, strict=True):
        pairs.append((member, np.maximum(-mu[offset : offset + C.shape[0]], 0.0)))
        offset += C.shape[0]
    duals = Duals(-mu[:n] + mu[n : 2 * n], pairs, np.asarray(res.x, dtype=np.float64))
    return float(res.fun), duals, cuts


def _odd_sets(n: int, edges: np.ndarray, x: np.ndarray) -> np.ndarray | None:
    """The odd components (3 or more vertices) of the fractional part of ``x``, as the set
    of each vertex (−1: none); None when ``x`` is integral."""
    frac = (x > 1e-7) & (np.abs(x - np.rint(x)) > 1e-7)
    if not frac.any():
        return None
    fe = edges[frac]
    graph = sp.coo_matrix((np.ones(fe.shape[0]), (fe[:, 0], fe[:, 1])), shape=(n, n))
    _, comp = connected_components(graph, directed=False)
    touched = np.zeros(n, dtype=bool)
    touched[fe.ravel()] = True
    size = np.bincount(comp[touched], minlength=comp.max() + 1)
    odd = (size % 2 == 1) & (size >= 3)
    keep = touched & odd[comp]
    if not keep.any():
        return None
    _, local = np.unique(comp[keep], return_inverse=True)
    member = np.full(n, -1, dtype=np.intp)
    member[keep] = local
    return member


def _cut_matrix(member: np.ndarray, edges: np.ndarray) -> tuple[sp.csr_matrix, np.ndarray]:
    """Rows ``x(E(S)) + x(δ(S))`` of disjoint odd sets ``S`` and their right sides."""
    n_sets = int(member.max()) + 1 if member.size else 0
    cu, cv = member[edges[:, 0]], member[edges[:, 1]]
    second = (cv >= 0) & (cv != cu)
    rows = np.r_[cu[cu >= 0], cv[second]]
    cols = np.r_[np.flatnonzero(cu >= 0), np.flatnonzero(second)]
    C = sp.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(n_sets, edges.shape[0]))
    rhs = (np.bincount(member[member >= 0], minlength=n_sets) + 1) / 2.0
    return C, rhs


@dataclass(frozen=True)
class Duals:
    """LP duals: a value per vertex row, and per round of odd-set cuts the cut of each
    vertex (−1: none) with each cut's dual."""

    rows: np.ndarray
    cuts: list[tuple[np.ndarray, np.ndarray]]
    x: np.ndarray  # the LP solution

    def integral(self, kind: FactorKind, n: int, edges: np.ndarray) -> np.ndarray | None:
        """The LP solution's edges when it is a 0/1 factor (then it is optimal), else None."""
        if not np.all(np.abs(self.x - np.rint(self.x)) < 1e-7) or np.any(self.x > 1.5):
            return None
        pick = self.x > 0.5
        deg = np.bincount(edges[pick].ravel(), minlength=n)
        ok = np.all((deg >= 1) & (deg <= 2)) if kind == "12" else np.all(deg == 2)
        return pick if ok else None

    @property
    def potential(self) -> np.ndarray:
        """Row dual plus the duals of the cuts holding the vertex: reduced costs are at
        least ``w_uv − potential_u − potential_v``."""
        pi = self.rows.copy()
        for member, nu in self.cuts:
            inside = member >= 0
            pi[inside] += nu[member[inside]]
        return pi

    def reduced_costs(self, w: np.ndarray, u: np.ndarray, v: np.ndarray) -> np.ndarray:
        """Exact reduced costs of edges ``uv`` (a cut counts once per edge it holds)."""
        rc = w - self.rows[u] - self.rows[v]
        for member, nu in self.cuts:
            mu, mv = member[u], member[v]
            rc -= np.where(mu >= 0, nu[np.maximum(mu, 0)], 0.0)
            rc -= np.where((mv >= 0) & (mv != mu), nu[np.maximum(mv, 0)], 0.0)
        return rc


@dataclass(frozen=True)
class Certified:
    """A factor of the complete graph found on candidate edges, with what is proven of it."""

    factor: Factor
    #: a proven lower bound on the minimum weight over the complete graph
    lower_bound: float
    #: True when the factor is proven minimum over the complete graph; otherwise
    #: ``lower_bound`` says how far from it the factor may be
    optimal: bool
    n_candidates: int
    rounds: int


def certify(
    kind: FactorKind,
    n: int,
    neighbours: Callable[[int], tuple[np.ndarray, np.ndarray]],
    within: Callable[[np.ndarray, np.ndarray], list[np.ndarray]],
    weight: Callable[[np.ndarray, np.ndarray], np.ndarray],
    m: int,
    max_rounds: int = 12,
    max_cut_rounds: int = 6,
) -> Certified:
    """Minimum-weight factor of the complete graph on ``n`` vertices, solved on candidates.

    ``neighbours(m)`` gives each vertex's ``m`` nearest others (weights and indices, nearest
    first); ``within(vertices, radii)`` the vertices at weight at most ``radii`` from each;
    ``weight(a, b)`` pair weights. The candidate graph is the symmetrized m-nearest-neighbour
    graph; after each solve, reduced-cost fixing (module docstring) finds every missing
    edge that could still improve the factor — a missing ``uv`` weighs at least
    ``max(d_m(u), d_m(v))``, so only vertices with ``d_m(x) ≤ 2 π_x + gap`` need a range
    query — adds them, and solves again, until none is left (then the factor is optimal)
    or ``max_rounds`` pass; then the bound is Lagrangian: the LP value less what the
    missing edges of negative reduced cost could save (at most the most negative one at
    each vertex), and the gap is reported.
    """
    m = max(1, min(m, n - 1))
    while True:
        dist, idx = neighbours(m)
        edges = unique_edges(np.repeat(np.arange(n), m), idx.ravel(), n)
        weights = weight(edges[:, 0], edges[:, 1])
        try:
            factor = solve_factor(kind, n, edges, weights)
            break
        except SolverTimeout:
            raise
        except InfeasibleError:  # some record lacks partners: widen the candidates
            if m >= n - 1:
                raise
            m = min(n - 1, 2 * m)
    cuts: list[np.ndarray] = []
    stale = False
    rounds = 0
    while True:
        rounds += 1
        lp, duals, cuts = lp_duals(kind, n, edges, weights, cuts, max_cut_rounds)
        tol = 1e-9 * max(1.0, factor.weight)
        if stale and lp < factor.weight - tol:  # the added edges may help: solve again
            try:
                factor = solve_factor(kind, n, edges, weights)
            except InfeasibleError:  # the MIP ran out of time: keep the factor we have
                factor = Factor(factor.edges, factor.weights, max(factor.weight - lp, 0.0))
        stale = False
        exact = duals.integral(kind, n, edges)
        if exact is not None and weights[exact].sum() < factor.weight:
            # the LP optimum is a factor: optimal in exact arithmetic, so it replaces the
            # matching's (optimal only for rounded weights)
            factor = Factor(edges[exact], weights[exact])
        pi = duals.potential
        if exact_on_all_pairs(n, edges) and factor.rounding == 0.0:
            return Certified(factor, factor.weight, True, len(edges), rounds)
        gap = max(factor.weight - lp, 0.0)
        tight = gap <= tol
        exact = tight or factor.rounding == 0.0
        if not exact and edges.shape[0] <= MILP_MAX_EDGES:
            # small enough for the MIP: the exact optimum on the candidates, no rounding
            factor = milp_factor(kind, n, edges, weights)
            gap, exact = max(factor.weight - lp, 0.0), factor.rounding == 0.0
            tight = gap <= tol
        # Tight: the LP bound holds for the complete graph once no missing edge has a
        # negative reduced cost. Not tight: a factor using a missing edge of reduced cost
        # rc weighs at least LP + rc, so once none has rc <= gap - rounding, nothing beats
        # w(F) - rounding (F itself is optimal up to its rounding on the candidates).
        # In the last round only the Lagrangian bound is wanted: negative costs suffice.
        last = rounds >= max_rounds
        slack = gap if exact else max(gap - factor.rounding, 0.0)
        threshold = -tol if tight or last else slack + tol
        # A missing uv below the threshold has w_uv < pi_u + pi_v + threshold
        # <= 2 max(pi_u, pi_v) + threshold, and w_uv >= d_m at both ends: a range query
        # from the end with the larger potential, where d_m(x) <= 2 pi_x + threshold,
        # finds every such edge.
        reach = 2.0 * pi + threshold
        unsure = np.flatnonzero(dist[:, -1] <= reach)
        found = within(unsure, reach[unsure]) if unsure.size else []
        a = np.repeat(unsure, [f.size for f in found])
        b = np.concatenate(found) if found else np.zeros(0, dtype=np.intp)
        extra = unique_edges(a, b, n)
        keys = edges[:, 0].astype(np.int64) * n + edges[:, 1]
        extra = extra[~np.isin(extra[:, 0].astype(np.int64) * n + extra[:, 1], keys)]
        rc = duals.reduced_costs(weight(extra[:, 0], extra[:, 1]), extra[:, 0], extra[:, 1])
        deficit = _deficit(n, extra, rc)
        if (rc < threshold).any():
            big = edges.shape[0] >= IPM_ABOVE_EDGES
            margin = PRICING_MARGIN * float(np.median(weights)) if big else 0.0
            extra = extra[rc < threshold + margin]
        else:
            extra = extra[:0]
        if extra.size == 0 and (tight or not last):
            bound = factor.weight if exact else max(lp, factor.weight - factor.rounding)
            return Certified(factor, bound, exact, len(edges), rounds)
        if rounds >= max_rounds:
            # Lagrangian bound from this round's duals
            bound = max(_simple_bound(kind, dist), lp - deficit)
            return Certified(factor, bound, False, len(edges), rounds)
        edges = np.vstack([edges, extra.reshape(-1, 2)])
        weights = weight(edges[:, 0], edges[:, 1])
        stale = True


def exact_on_all_pairs(n: int, edges: np.ndarray) -> bool:
    """The candidate graph is the complete graph: a factor optimal on it is optimal."""
    return edges.shape[0] == n * (n - 1) // 2


def _deficit(n: int, edges: np.ndarray, rc: np.ndarray) -> float:
    """How far below the LP value a factor using missing edges can go: at most
    ``Σ_v max(0, −min rc of a missing edge at v)`` (each edge is counted at both ends, and
    a vertex has at most two factor edges). ``edges`` holds every missing edge with a
    negative reduced cost (the range queries find them all)."""
    worst = np.zeros(n)
    np.minimum.at(worst, edges[:, 0], rc)
    np.minimum.at(worst, edges[:, 1], rc)
    return float(-worst.sum())


def _simple_bound(kind: FactorKind, dist: np.ndarray) -> float:
    """Every vertex has one (two) incident factor edges, each counted at both ends."""
    if kind == "12":
        return float(dist[:, 0].sum() / 2.0)
    return float(dist[:, :2].sum() / 2.0)
