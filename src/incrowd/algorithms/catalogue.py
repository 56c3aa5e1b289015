"""What ``incrowd methods`` lists, known without importing a single algorithm.

Listing the methods from their classes imports every algorithm with numba, SciPy and
pandas (2.4 s); this table holds what the listing shows: per method name, its guarantee in
words, the objective it is priced by and its reference. It is derived from the classes,
not kept by hand: :func:`from_classes` gives it afresh, and ``tests/test_layers.py`` fails
(printing the table to paste here) whenever a method is added or a guarantee changes.
"""

from __future__ import annotations

__all__ = ["CATALOGUE", "check_method", "from_classes"]

#: method name → (guarantee, objective, reference)
CATALOGUE: dict[str, tuple[str, str, str]] = {
    '2-anonymity': (
        'cost at most 1.5 x OPT (binary or numeric attributes), 2 x OPT in general',
        'generalization',
        'Aggarwal et al., Approximation Algorithms for k-Anonymity, JPT 2005, Theorem 6',
    ),
    '2-microaggregation': (
        'SSE at most 2 x OPT',
        'sse',
        'Domingo-Ferrer & Sebe, Optimal Multivariate 2-Microaggregation, Theorem 1',
    ),
    '3-anonymity': (
        'cost at most 2 x OPT (binary or numeric attributes), 3 x OPT with hierarchies, 4 x OPT with value sets',
        'generalization',
        'Aggarwal et al., Approximation Algorithms for k-Anonymity, JPT 2005, Lemmas 10-11',
    ),
    'bin-covering': (
        'largest crowd ≤ 5/2·OPT (theorem9), 3·OPT (fold), (1+ε)(OPT+k) (ptas), OPT (exact)',
        'largest_crowd',
        'Du, Eppstein, Goodrich & Lueker, WADS 2009, Thms 7, 9, 10',
    ),
    'cellular': (
        'cost <= 3 OPT (k = 1), <= 36 OPT (k >= 2), centers at input records, constant setup',
        'cellular',
        'Aggarwal et al., Achieving Anonymity via Clustering, ACM TALG 6(3), 2010, Thm 3.5 and Thm 3.8',
    ),
    'exact': (
        'exact optimum',
        'sse',
        'subset dynamic programming',
    ),
    'forest': (
        'generalization cost at most max(2k-1, 3k-5) times the optimum',
        'generalization',
        'Aggarwal et al., Approximation Algorithms for k-Anonymity, JPT 2005, Theorem 5',
    ),
    'global-recoding': (
        'the least loss over the full-domain generalization lattice within the suppression limit (exact; a certified gap if the time limit stops the search)',
        'generalization',
        'Samarati, IEEE TKDE 13(6), 2001 (full-domain generalization with suppression); Kohlmayer et al., Flash, PASSAT 2012 (optimal lattice search)',
    ),
    'kd-rectangles': (
        'largest crowd ≤ m + 2d(k−1) ≤ (2d+1)·OPT over boxes (5 in the plane)',
        'largest_crowd',
        'Du, Eppstein, Goodrich & Lueker, WADS 2009, Thm 4',
    ),
    'kr-center': (
        'radius <= 2 OPT',
        'max_radius',
        'Aggarwal et al., Achieving Anonymity via Clustering, ACM TALG 6(3), 2010, Sec. 2.4',
    ),
    'kr-center-outliers': (
        'radius <= 4 OPT',
        'max_radius',
        'Aggarwal et al., Achieving Anonymity via Clustering, ACM TALG 6(3), 2010, Thm 2.8',
    ),
    'local-recoding': (
        "generalization cost at most max(2k-1, 3k-5) times the optimum (never above the forest algorithm's crowds)",
        'generalization',
        'Aggarwal et al., Approximation Algorithms for k-Anonymity, JPT 2005, Theorem 5',
    ),
    'mdav': (
        'none: a heuristic without an approximation bound',
        'sse',
        'Domingo-Ferrer & Torra, Data Min. Knowl. Discov. 11(2), 2005',
    ),
    'mu-approx': (
        'SSE at most 2*ceil((3k-3)/2)*(3k-3)*(2k-1) times the optimum (36 at k = 2)',
        'sse',
        'Domingo-Ferrer, Sebe & Solanas 2005, quoted in Domingo-Ferrer & Sebe, Optimal Multivariate 2-Microaggregation, Sec. 1.1',
    ),
    'planar-regions': (
        'largest crowd ≤ κ + d(k−1) ≤ (d+1)·OPT over connected regions (d: tree degree)',
        'largest_crowd',
        'Du, Eppstein, Goodrich & Lueker, WADS 2009, Thm 3',
    ),
    'r-cellular': (
        'cost <= 36 OPT (centers at input records)',
        'cellular',
        'Aggarwal et al., Achieving Anonymity via Clustering, ACM TALG 6(3), 2010, Thm 3.8',
    ),
    'r-cellular-outliers': (
        'no proven constant (the paper gives none); Lagrangian lower bound',
        'cellular',
        'Aggarwal et al., Achieving Anonymity via Clustering, ACM TALG 6(3), 2010, end of Sec. 3.1 (no algorithm given)',
    ),
    'r-gather': (
        'radius <= 2 OPT',
        'max_radius',
        'Aggarwal et al., Achieving Anonymity via Clustering, ACM TALG 6(3), 2010, Thm 2.3',
    ),
    'r-gather-outliers': (
        "radius <= 4 OPT (3 OPT with centers='points')",
        'max_radius',
        'Aggarwal et al., Achieving Anonymity via Clustering, ACM TALG 6(3), 2010, Thm 2.4',
    ),
}  # fmt: skip


def from_classes() -> dict[str, tuple[str, str, str]]:
    """:data:`CATALOGUE` as the method classes give it (imports every algorithm)."""
    from . import METHODS

    return {name: (cls.guarantee.text, cls.cost_class.name, cls.guarantee.reference)
            for name, cls in sorted(METHODS.items())}  # fmt: skip


def check_method(method: object) -> None:
    """Raise :class:`~incrowd.ParameterError` unless ``method`` names a registered method
    (without importing any algorithm).

    >>> check_method("mdav")
    >>> check_method("kmeans")
    Traceback (most recent call last):
    ...
    incrowd.errors.ParameterError: unknown method 'kmeans'; choose one of: 2-anonymity, ...
    """
    if method not in CATALOGUE:
        from ..errors import ParameterError

        msg = f"unknown method {method!r}; choose one of: {', '.join(sorted(CATALOGUE))}"
        raise ParameterError(msg)
