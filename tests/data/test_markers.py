"""A column's missing-value marker (incrowd.data.markers): proposed by the inspection
(``infer_types``, what ``incrowd inspect`` and the app show), an error or a warning naming it
for the schema (``infer_column``); columns no kind can read are shown, not refused."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from incrowd.data.types import infer_column, infer_types
from incrowd.errors import InputError, python_text

AGES = [str(20 + i % 60) for i in range(80)]


def column(values, marker, at):
    out = list(values)
    for i in at:
        out[i] = marker
    return pd.Series(out)


@pytest.mark.parametrize(("values", "marker", "at", "kind"), [
    (AGES, "unknown", [4], "number"),  # a word: once is enough
    (AGES, "n/a", [4, 50, 51], "number"),
    ([f"{1 + i % 28:02d}/03/2024" for i in range(80)], "9999-99-99", [2, 9], "date"),
    ([f"2024-03-{1 + i % 28:02d}" for i in range(80)], "onbekend", [7], "date"),
    (["02142", "60615", "00501"] * 20, "unknown", [5, 6], "code"),
    (AGES, "999", [3, 8], "number"),
    ([str(i % 40) for i in range(80)], "-1", [3, 8, 9], "number"),
    ([f"{1000 + 37 * i:,}".replace(",", ".") + ",50" for i in range(80)], "k.A.", [1], "number"),
])  # fmt: skip
def test_a_marker_is_proposed_with_its_count_and_the_real_kind(values, marker, at, kind):
    cells = column(values, marker, at)
    found = infer_types(pd.DataFrame({"x": cells}), ["x"])["x"]
    assert (found.type.kind, found.marker, found.marker_cells) == (kind, marker, len(at))
    assert found.problem is None
    assert marker not in found.examples


@pytest.mark.parametrize(("values", "marker", "at"), [
    (AGES, "99", [3, 8]),  # inside the ages' range: an age
    (AGES, "999", [3]),  # once: a value, maybe a slip
    (AGES, "12a", [3]),  # a one-off text with digits: a slip (the error names it)
    (["a", "b", "c"] * 20, "unknown", [1]),  # a text column: 'unknown' is a label
    ([f"J{i % 9}.{i % 7}" for i in range(60)], "unknown", [2]),  # codes with letters: text
    ([str(i % 40 - 5) for i in range(80)], "-1", [3, 8]),  # negatives are values here
])  # fmt: skip
def test_no_marker_where_the_text_or_number_is_a_value(values, marker, at):
    found = infer_types(pd.DataFrame({"x": column(values, marker, at)}), ["x"])["x"]
    assert found.marker is None


def test_the_schema_names_a_text_marker_in_an_error_and_a_number_marker_in_a_warning():
    said = r"column 'age' holds numbers except for 3 cells 'unknown' \(row 5 holds 'unknown'\)"
    with pytest.raises(InputError, match=said + ".*na_values="):
        infer_column(column(AGES, "unknown", [4, 9, 70]), "age")
    found = infer_column(column(AGES, "999", [4, 9]), "age")
    assert found.type.kind == "number" and found.marker is None  # a number, still read
    (line,) = [python_text(w) for w in found.warnings]
    assert "2 cells hold 999" in line and "na_values=['999']" in line


def test_inspection_shows_a_column_no_kind_reads():
    table = pd.DataFrame({"age": AGES[:30] + ["4O"], "sex": ["F"] * 31})
    found = infer_types(table, ["age", "sex"], declared={"sex": "number"})
    assert "row 31 holds '4O'" in found["age"].problem
    assert found["age"].n_distinct == 31 and found["age"].n_missing == 0
    assert "declared numeric" in found["sex"].problem and "row 1 holds 'F'" in found["sex"].problem


def test_an_infinite_number_is_named_without_a_numpy_repr():
    values = pd.Series(np.array([np.inf, 30.0, 31.0]))
    for declared in (None, "number"):
        with pytest.raises(InputError) as caught:
            infer_column(values, "age", declared=declared)
        assert str(caught.value).startswith("column 'age' row 1 holds inf: not a finite number")
        assert "np.float64" not in str(caught.value) and "decimal" not in str(caught.value)


def test_list_struct_and_binary_values_are_shown_as_their_type():
    table = pd.DataFrame({
        "tags": [["a"], ["b", "c"]],
        "photo": [b"\x89", b"\x00"],
        "age": ["30", "31"],
    })  # fmt: skip
    found = infer_types(table, list(table.columns))
    assert found["tags"].nested == "list<string>" and found["photo"].nested == "binary"
    assert "column 'tags' holds list<string> values" in found["tags"].problem
    with pytest.raises(InputError, match="column 'photo' holds binary values"):
        infer_column(table["photo"], "photo")
