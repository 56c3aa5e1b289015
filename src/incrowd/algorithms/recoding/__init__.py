"""k-Anonymity by local recoding: the least generalization loss incrowd finds.

:class:`LocalRecoding` runs the forest algorithm of Aggarwal et al. (for its guarantee) and a
specialization seeded by the cheapest classes of the generalization lattice (or by iterated
global recodings), improves both by moving records, and keeps the cheaper. It is the method
of ``incrowd anonymize --release generalized`` when no ``--method`` is given.

Guarantee: generalization cost at most ``max(2k − 1, 3k − 5)`` times the optimum, never
above the forest algorithm's crowds (Aggarwal et al., *Approximation Algorithms for
k-Anonymity*, JPT 2005, Theorem 5).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import ClassVar, Literal, Self

import numpy as np

from ...base import Guarantee, Tags
from ...costs import GeneralizationCost, GeneralizeForm, LevelLoss
from ...errors import InfeasibleError, ParameterError
from ...params import CrowdSize, Interval, OneOf, PositiveInt, WholeNumber
from ...partition import Partition
from ...space.metric_space import MetricSpace
from ...space.neighbours.index import NeighbourIndex
from .._shared.generalized import (
    GENERALIZED_PARAMETERS,
    SUPPRESSION_LIMIT,
    sensitive_value_codes,
)
from .._shared.levels import LEVEL_PARAMETERS, LevelBoundedMethod, Solved, solve_blocks
from ..forest import MOVE_CANDIDATES, ForestCrowds, forest_crowds, size_limit
from ._polish import RESPLIT_ROUNDS, polish
from ._run import FOREST_SETS_UP_TO_K, FOREST_WINS_UP_TO_K, PHASES, Run, run
from ._specialize import FRAGMENTATION, specialization

__all__ = [
    "ASCENT_ROUNDS", "FOREST_SETS_UP_TO_K", "FOREST_WINS_UP_TO_K", "FRAGMENTATION",
    "PHASES", "RESPLIT_ROUNDS", "LocalRecoding", "polish",
]  # fmt: skip

Seeds = Literal["cheapest", "rounds"]

#: Rounds of dual ascent that raise the certificate's bound with hierarchy labels, on the
#: bound's thread: a second round outlasts the crowds' work (Adult, ``benchmarks/adult.py``).
ASCENT_ROUNDS = 1


class LocalRecoding(LevelBoundedMethod):
    """k-anonymity by local recoding, the best of a proven algorithm and a specialization.

    Constructions of crowds, each then improved by moving single records between
    neighbouring crowds while that lowers the cost (every crowd keeping ``k``):

    1. the **forest** of Aggarwal et al., *Approximation Algorithms for k-Anonymity*
       (:class:`~incrowd.ForestKAnonymity`): FOREST, DECOMPOSE-COMPONENT, then trees split
       further while that never raises the cost;
    2. a **specialization**: seed classes — with hierarchy labels the classes of ``k``
       records of any lattice node, taken cheapest first while ``k`` of their records are
       unplaced (:mod:`incrowd.algorithms.recoding._cheapest`); otherwise, or with
       ``seeds="rounds"``, iterated global recodings of the records not yet placed (ARX's
       local recoding, with a beam search of the lattice for the least mean cost per kept
       record; :mod:`incrowd.algorithms.recoding._seed`) — each then split top-down,
       attribute by attribute, while a split lowers the cost
       (:mod:`incrowd.algorithms.recoding._topdown`); run for two ways of weighing a
       split's parts;
    3. for pairs (``k = 2``), copies of a row together and the other records in crowds of 2
       and 3 by a minimum-weight [1,2]-factor of their pair costs (the construction of
       :class:`~incrowd.TwoAnonymity`; :mod:`incrowd.algorithms.recoding._pairs`).

    Each is improved by moves; the cheaper (with ``l`` ≥ 2: the one with the fewest crowds
    lacking ``l`` distinct values, then the cheaper) is then improved by re-splitting pairs of
    neighbouring crowds afresh — exactly when they hold at most 9 records
    (:mod:`incrowd.algorithms.recoding._resplit`) — and moves again, which never raise the
    cost.

    The cheapest result is kept. The specialization runs from ``k = 3`` (with value sets
    from ``k = 30``), the factor at ``k = 2``; the forest for value sets up to ``k = 29``,
    where it was measured to win on Adult, and whenever the result so far costs more than
    ``max(2k − 1, 3k − 5)`` times :attr:`lower_bound_` (its crowds then improved and
    polished alike); so either the certificate proves the forest's ratio or the result costs
    no more than the forest's crowds, and the forest's guarantee holds. The certificate's
    bound is computed on a thread of its own while the crowds form.

    Parameters
    ----------
    k : int, default 5
    weights : mapping of attribute name to weight, optional
    generalize : {"levels", "sets"}, default "levels"
        What a crowd publishes for a categorical attribute: a hierarchy label or the set of
        values present.
    loss : {"ncp", "height"}, default "ncp"
        How a hierarchy label is priced: its NCP (:mod:`incrowd.data.ncp`, what the peer
        comparisons score), or the paper's ``h / l``.
    l : int, default 1
        With ``l`` ≥ 2 the crowds are built to hold ``l`` distinct sensitive values each
        (distinct l-diversity; the values are ``y`` of :meth:`fit`): seeds keep only
        l-diverse classes while any is found, splits keep every part l-diverse, and moves
        and re-splits keep it. Records left when no l-diverse class is found form
        k-anonymous crowds, which :func:`incrowd.postprocess.enforce` repairs (``incrowd
        anonymize --l`` sets ``l`` and runs the repair).
    seeds : {"cheapest", "rounds"}, default "cheapest"
        The seed classes with hierarchy labels: the cheapest classes of the lattice first,
        or iterated global recodings (see 2. above).
    bound_rounds : int, default 1
        Rounds of dual ascent on the certificate's bound (hierarchy labels): each raises it
        and takes one walk of the lattice, on the bound's own thread (measured in
        ``benchmarks/adult.py``); 0 keeps the lattice bound. No round after the first starts
        when it would most likely leave the ascent's sum below the per-record charges.
    search_seconds : float, default 0
        Seconds (beyond the rest of the work; per block with :mod:`incrowd.distributed`) of
        a large-neighbourhood search on the result, when every attribute is a hierarchy
        label: crowds near one another, some 300 records at a time, split afresh by the best
        split of their records into the classes of the lattice
        (:mod:`incrowd.algorithms.recoding._search`), one program per thread at once. It
        never raises the cost, so every guarantee holds (``benchmarks/adult.py
        --search-seconds 600``). HiGHS may run over its time limit on the last programs, and
        how far the search gets depends on the machine, so results with one budget may
        differ between runs; 0: none.
    random_state : int, default 0
        Seeds the search's choice of neighbourhoods (the whole search, with one thread).
    suppression_limit : float in [0, 1], default 0
        Then delete (suppress) at most ``⌊suppression_limit · n⌋`` records where that lowers
        the cost, each costing a full row, the largest savings first, with moves
        (:func:`~incrowd.algorithms._shared.improve.budgeted_deletions`; the forest paper's
        deletion, end of its Sec. 4, with a budget). The bound below counts the deletions.
    min_level, max_level : mapping of attribute name to level, optional
        No crowd publishes the attribute below ``min_level`` or above ``max_level`` (0: the
        values, 1: their parents, ...; a category without a hierarchy has levels 0 and 1;
        :mod:`incrowd.algorithms._shared.levels`): a crowd is priced and published at the
        higher of its agreed level and the floor, and the records are blocked by their
        ancestors at the ceilings, each block run by itself (no allowed crowd spans two);
        a block under ``k`` is suppressed within the suppression limit, else
        :class:`~incrowd.InfeasibleError` names the bound.

    Attributes
    ----------
    partition_, labels_ : the crowds
    cost_ : float, the generalization cost (its NCP times ``n · |Q|`` with unit weights and
        ``loss="ncp"``)
    construction_ : str, ``"forest"``, ``"specialization"`` or ``"factor"``: which was
        cheapest (in most blocks, with level bounds; ``"suppression"`` when every block was
        under ``k``)
    paper_cost_ : float or None, the cost of the forest algorithm alone, when it ran
    search_neighbourhoods_, search_improved_ : int, neighbourhoods the search tried and
        improved (0 without one)
    lower_bound_ : float, ``Σ_u max(d_{k−1}(u), λ(u))``: each record's charge in any
        k-anonymization is at least its cost with its (k−1)-th nearest record (the proof of
        Lemma 3 in Aggarwal et al.) and at least ``λ(u)``: with hierarchy labels its least
        cost over the nodes of the generalization lattice where ``k`` records share its
        class (:func:`lattice_bound`); with value sets its least cost over the sets of
        attributes on which ``k`` records share its values, the others charged their
        cheapest cells within that class (:func:`subset_bound`); both at least the sum over
        attributes of the cheapest cell that covers its value and ``k`` records of the input
        (:func:`attribute_bound`, used instead on lattices above ``LATTICE_NODES`` nodes
        and beyond ``SUBSET_ATTRIBUTES`` attributes); and, for k = 3 to 5 on up to 100,000
        records (``CROWD_BOUND_MAX_ROWS``) unless every attribute is a hierarchy label
        (where the lattice bound is already each record's least charge), at least the least
        cost of a crowd of the record and ``k − 1`` of its 48 nearest records, or its cost
        with the 48th if less (:func:`crowd_bound`); to which, in those cases, each
        record's least excess of a crowd's cost over the mean of its members' terms is
        added, a share of a crowd's cost that no per-record term counts
        (:func:`excess_bound`; on Adult with value sets at k = 5, 3 % more). With
        hierarchy labels (the lattice walked), the larger of that and ``Σ_u y(u)``, where
        ``y`` are ``bound_rounds`` rounds of dual ascent from ``λ``
        (:func:`~incrowd.algorithms.recoding._ascent.ascent_bound`): numbers such that
        every crowd costs at least the sum of its members' ``y``, which prices the classes
        jointly (on Adult, 18–22 % above ``Σ λ`` at k = 5–25). With a suppression budget
        ``B`` the sum is taken less its ``B`` largest excesses over a row's cost
        (:func:`~incrowd.algorithms._shared.generalized.budgeted_bound`: a deleted record
        is charged a row). With level bounds, the sum over the blocks, taken on the cost
        without floors (a crowd costs at least as much with them) and at least each
        record's cost alone at its floors; a block under ``k`` charged a row per record
    n_level_suppressed_ : int, records suppressed because their block of the ceilings
        holds fewer than ``k``

    Notes
    -----
    **Guarantee**: ``cost_ ≤ max(2k − 1, 3k − 5) · OPT`` (Aggarwal et al., Theorem 5; with
    a suppression limit, OPT of the deletions within it, the same per-record argument):
    either ``cost_ ≤ max(2k − 1, 3k − 5) · lower_bound_ ≤ max(2k − 1, 3k − 5) · OPT``, or the
    forest ran and ``cost_`` is at most the cost of its crowds. With ``l`` ≥ 2 more diverse
    crowds may be kept at a higher cost than the forest's; :attr:`approximation_ratio_` is
    then None (the certificate ``cost_ / lower_bound_`` still stands). With ceilings, each
    block's optimum is its share of the bounded optimum, so the ratio holds block by
    block. With floors, the forest's crowds are built on the cost without them: a crowd
    ``C`` then costs at most ``Σ_{u∈C} f(u) + |C| c(C)`` (``f(u)``: ``u``'s cost alone at
    its floors, ``c``: the cost without floors), so at most ``Σ f + ratio · OPT ≤ (ratio +
    1) · OPT``; :attr:`approximation_ratio_` says ``ratio + 1`` unless the bound alone
    proves ``ratio``.

    Time: the forest (:class:`~incrowd.ForestKAnonymity`); the cheapest seeds
    :math:`O(N m b)` for ``N`` lattice nodes and ``m`` distinct rows, or each global round
    :math:`O(n b \\sum_j l_j \\log n)`; the specialization
    :math:`O(n d b (b + \\log n))` (``d``: depth of the splits); moves compiled. Memory
    :math:`O(n (k + b))` and the seeds' lists of class members (at most ``TABLE_CELLS``
    two-byte entries; on Adult 5–10 million, 10–20 MB).

    Examples
    --------
    >>> import numpy as np, incrowd
    >>> X = np.array([[0.0], [1.0], [2.0], [10.0], [11.0], [12.0]])
    >>> incrowd.LocalRecoding(k=3).fit(X).labels_.tolist()
    [0, 0, 0, 1, 1, 1]
    """

    guarantee: ClassVar[Guarantee] = Guarantee(
        "generalization cost at most max(2k-1, 3k-5) times the optimum (never above the "
        "forest algorithm's crowds)",
        "Aggarwal et al., Approximation Algorithms for k-Anonymity, JPT 2005, Theorem 5",
    )
    tags: ClassVar[Tags] = Tags(norm=1, generalized=True, seeded=True, deletion=True)
    parameters: ClassVar[dict] = {
        "k": CrowdSize(),
        **GENERALIZED_PARAMETERS,
        "l": PositiveInt(),
        "seeds": OneOf("cheapest", "rounds"),
        "bound_rounds": WholeNumber(),
        "search_seconds": Interval(0.0, float("inf")),
        "random_state": WholeNumber(),
        "suppression_limit": SUPPRESSION_LIMIT,
        **LEVEL_PARAMETERS,
    }

    def __init__(
        self,
        k: int = 5,
        *,
        weights: Mapping[str, float] | None = None,
        generalize: GeneralizeForm = "levels",
        loss: LevelLoss = "ncp",
        l: int = 1,  # noqa: E741 - the l of l-diversity
        seeds: Seeds = "cheapest",
        bound_rounds: int = ASCENT_ROUNDS,
        search_seconds: float = 0.0,
        random_state: int = 0,
        suppression_limit: float = 0.0,
        min_level: Mapping[str, int] | None = None,
        max_level: Mapping[str, int] | None = None,
    ) -> None:
        self.k = k
        self.weights = weights
        self.generalize = generalize
        self.loss = loss
        self.l = l
        self.seeds = seeds
        self.bound_rounds = bound_rounds
        self.search_seconds = search_seconds
        self.random_state = random_state
        self.suppression_limit = suppression_limit
        self.min_level = min_level
        self.max_level = max_level

    def fit(self, X: object, y: object = None) -> Self:
        """Partition the records of ``X`` into crowds; ``y``: each record's sensitive value,
        which every crowd holds ``l`` distinct ones of (when ``l`` ≥ 2)."""
        self._sensitive = None if y is None else np.asarray(y)
        return super().fit(X)

    def _diversity(self, n: int) -> tuple[np.ndarray | None, int]:
        """The sensitive codes and ``l`` the crowds are built for (``None, 0``: none)."""
        ell = int(self.l)
        if ell < 2:
            return None, 0
        if self._sensitive is None or self._sensitive.shape != (n,):
            msg = f"l = {ell} needs each record's sensitive value: fit(X, y) with {n} values in y"
            raise ParameterError(msg)
        codes = sensitive_value_codes(self._sensitive)
        if np.unique(codes).size < ell:
            msg = f"l = {ell} cannot be met: the sensitive values hold {np.unique(codes).size}"
            raise InfeasibleError(msg)
        return codes.astype(np.intp), ell

    @property
    def approximation_ratio_(self) -> float | None:  # type: ignore[override]
        """``max(2k − 1, 3k − 5)``, or the largest unsplittable forest tree if one was left;
        None when l-diverse crowds were kept that cost more than both that ratio times the
        lower bound and the forest's crowds; one more with a ``min_level`` the bound alone
        does not prove the ratio for (the forest's crowds then cost at most
        ``Σ floors + ratio · OPT``: see the class's notes)."""
        if not getattr(self, "_proven", True):
            return None
        return self._forest_ratio(size_limit(int(self.k)))

    def _fit(self, space: MetricSpace) -> None:
        bounds, base, model = self._costs(space)
        sens, ell = self._diversity(space.n)
        runs: list[Run] = []

        def solve(part: GeneralizationCost, index: NeighbourIndex, rows: np.ndarray | None,
                  deletions: int, bound_budget: int) -> Solved:  # fmt: skip
            below = part if model is base else replace(base, num=part.num, codes=part.codes,
                                                         geometry=part.geometry)  # fmt: skip
            mine = None if sens is None or rows is None else sens[rows]
            # a block searches for its share of the time
            seconds = float(self.search_seconds) * (part.n / space.n if rows is not None else 1)
            runs.append(run(self, part, below, index, sens if rows is None else mine, ell,
                            deletions, bound_budget, seconds))  # fmt: skip
            return runs[-1].solved

        blocked = solve_blocks(space, model, bounds, int(self.k),
                               float(self.suppression_limit), solve)  # fmt: skip
        papers = [r.paper_cost for r in runs]
        self.paper_cost_ = None if None in papers else float(sum(papers))  # type: ignore[arg-type]
        # (no run: every block under k, all suppressed within the limit)
        self.max_tree_size_ = max((r.max_tree_size for r in runs), default=size_limit(int(self.k)))
        built = [r.construction for r in runs]
        self.construction_ = max(built, key=built.count, default="suppression")
        self.search_neighbourhoods_ = sum(r.neighbourhoods for r in runs)
        self.search_improved_ = sum(r.improved for r in runs)
        self.n_level_suppressed_ = blocked.n_forced
        self.partition_ = Partition(blocked.labels)
        self.cost_ = runs[0].solved.cost if len(runs) == 1 and not blocked.n_forced \
            else model.of(blocked.labels)  # fmt: skip
        self.lower_bound_ = blocked.lower_bound
        self._proven = all(r.solved.proven for r in runs)
        # with floors a forest's crowds cost at most one more OPT (see approximation_ratio_)
        self._extra = int(model is not base and not all(r.solved.certified for r in runs))

    def _forest(self, model: GeneralizationCost, index: NeighbourIndex, k: int) -> ForestCrowds:
        """The forest's crowds on ``model`` (the paper's and refined)."""
        n = model.n
        return forest_crowds(*index.neighbours(min(n - 1, max(k - 1, MOVE_CANDIDATES))),
                             k, model, refine=True)  # fmt: skip

    def _specialize(
        self, model: GeneralizationCost, k: int, sens: np.ndarray | None, ell: int
    ) -> tuple[np.ndarray, float, float]:
        """The cheapest specialization over the seeds and the weighings of a split's
        parts (every crowd with ``ell`` distinct ``sens`` codes where it can): its labels,
        cost and weighing."""
        return specialization(model, k, self.seeds, self.generalize, sens, ell)
