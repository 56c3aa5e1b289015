"""Hypothesis strategies for random tables with every kind of column role."""

from __future__ import annotations

import pandas as pd
from hypothesis import strategies as st

from incrowd import Categorical, Hierarchical, Hierarchy, Numeric, Schema

LETTERS = Hierarchy.from_rows(
    [["a", "ab", "*"], ["b", "ab", "*"], ["c", "cd", "*"], ["d", "cd", "*"], ["e", "e", "*"]],
    source="letters",
)


@st.composite
def tables(draw, min_rows: int = 2, max_rows: int = 40):
    """A table with numeric, categorical and hierarchical QIs, a sensitive, an insensitive
    and an identifier column, plus its schema and a feasible k."""
    n = draw(st.integers(min_rows, max_rows))
    ints = st.integers(-5, 30)
    floats = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False, width=32)
    table = pd.DataFrame(
        {
            "id": [f"person-{i}" for i in range(n)],
            "age": draw(st.lists(ints, min_size=n, max_size=n)),
            "income": draw(st.lists(floats, min_size=n, max_size=n)),
            "sex": draw(st.lists(st.sampled_from(["F", "M"]), min_size=n, max_size=n)),
            "letter": draw(st.lists(st.sampled_from("abcde"), min_size=n, max_size=n)),
            "disease": draw(
                st.lists(st.sampled_from(["flu", "cold", "none"]), min_size=n, max_size=n)
            ),
            "note": draw(st.lists(st.text("xyz", max_size=3), min_size=n, max_size=n)),
        }
    )
    qis = draw(
        st.lists(
            st.sampled_from(["age", "income", "sex", "letter"]), min_size=1, max_size=4, unique=True
        )
    )
    metrics = {
        "age": Numeric(),
        "income": Numeric(scale="std"),
        "sex": Categorical(),
        "letter": Hierarchical(LETTERS),
    }
    schema = Schema(
        {q: metrics[q] for q in qis},
        sensitive=["disease"],
        insensitive=["note"],
        identifiers=["id"],
    )
    k = draw(st.integers(2, max(2, min(6, n))))
    return table, schema, k
