"""The common checks of incrowd.testing, run on every registered method."""

import numpy as np
import pytest

from incrowd import METHODS
from incrowd.testing import check_algorithm

EXTRA = {"r-gather-outliers": {"epsilon": 0.15}, "kr-center": {"k_max": 3},
         "kr-center-outliers": {"k_max": 3, "epsilon": 0.15}}  # fmt: skip


# Methods that fix k (2-anonymity, 3-anonymity, 2-microaggregation) run at their own k.
CASES = [
    (name, k)
    for name in sorted(METHODS)
    for k in (2, 3)
    if getattr(METHODS[name], "fixed_k", k) == k
]


@pytest.mark.parametrize(("name", "k"), CASES)
def test_common_checks(name, k):
    cls = METHODS[name]
    ratios = check_algorithm(cls(**{cls.size_param: k}, **EXTRA.get(name, {})), n_instances=20)
    assert min(ratios) >= 1 - 1e-9
    if METHODS[name].guarantee.factor is not None:
        assert max(ratios) <= METHODS[name].guarantee.factor + 1e-9


@pytest.mark.parametrize("name", sorted(METHODS))
def test_every_method_documents_its_guarantee(name):
    cls = METHODS[name]
    assert cls.guarantee.text and cls.guarantee.reference
    assert cls.__doc__ and "Notes" in cls.__doc__
    assert np.isscalar(cls.norm) and cls.norm in (1, 2)
