"""The common checks of incrowd.testing, run on every registered method.

Nothing here names a method: what a method needs (a fixed k, an outlier budget, a cluster
cap) comes from its declared tags, so a newly registered method is checked as it is.
"""

import numpy as np
import pytest

from incrowd import METHODS
from incrowd.testing import check_algorithm, configured

CASES = [
    (name, k) for name in sorted(METHODS) for k in (2, 3) if METHODS[name].tags.fixed_k in (None, k)
]


@pytest.mark.parametrize(("name", "k"), CASES)
def test_common_checks(name, k):
    cls = METHODS[name]
    ratios = check_algorithm(configured(cls, k), n_instances=24)
    assert min(ratios) >= 1 - 1e-9


@pytest.mark.parametrize("name", sorted(METHODS))
def test_every_method_declares_what_it_is(name):
    cls = METHODS[name]
    assert cls.guarantee.text and cls.guarantee.reference
    assert cls.__doc__ and "Notes" in cls.__doc__
    assert cls.tags.norm in (1, 2)
    assert set(cls.parameters) == set(cls().get_params()), "every parameter has a constraint"
    assert cls.cost_class.name and cls.cost_class.combine in ("sum", "max")
    if cls.guarantee.ratio is not None:
        assert cls.guarantee.proven and np.isfinite(cls.guarantee.ratio)
