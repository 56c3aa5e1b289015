"""Tables the tests share: hypothesis strategies for random tables with every kind of
column role, and a small fixed table of people."""

from __future__ import annotations

import pandas as pd
from hypothesis import strategies as st

from incrowd import Categorical, Hierarchical, Hierarchy, Numeric, Schema

#: Twelve people with an identifier, three quasi-identifiers and a sensitive column.
PEOPLE = pd.DataFrame(
    {
        "name": [f"p{i}" for i in range(12)],
        "age": [23, 25, 31, 35, 36, 40, 41, 47, 52, 58, 60, 61],
        "sex": ["Male", "Female"] * 6,
        "zip": ["13053", "13068", "13053", "14850", "14853", "14850"] * 2,
        "disease": ["flu", "cold", "none", "flu", "cold", "none"] * 2,
    }
)

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
