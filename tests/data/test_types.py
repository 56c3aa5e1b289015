"""Column type inference on a messy corpus built here: kinds, canonical cells, and exactly
which warnings appear (none where the kind is obvious)."""

import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from incrowd.data.schema import is_missing
from incrowd.data.types import (
    MAX_CODED_CATEGORIES,
    ColumnType,
    infer_column,
    infer_types,
    normalize,
    propose_hierarchy,
    propose_role,
)
from incrowd.errors import InputError, ParameterError, SchemaError, cli_text, python_text

N = 40
RNG = np.random.default_rng(7)


def cells(values, missing=(3, 17)):
    """``values`` cycled to N rows, with missing cells (None, "", " ") at ``missing``."""
    out = [values[i % len(values)] for i in range(N)]
    for j, i in enumerate(missing):
        out[i] = (None, "", "  ")[j % 3]
    return out


def corpus() -> pd.DataFrame:
    ages = [str(a) for a in RNG.integers(17, 91, N)]
    return pd.DataFrame({
        "zip": cells(["02142", "60615", "00501", "10002", "94110"]),
        "postcode": cells(["12345", "60615", "10002", "94110"]),
        "serial": cells([str(10000 + 37 * i) for i in range(N)], missing=()),
        "relat": cells(["1", "2", "3", "7", "5", "4", "6"]),
        "water": cells(["1.0", "2.0", "3.0", "8.0"]),
        "age": cells(ages),
        "kids_count": cells(["8.0", "2.0", "0.0"]),
        "score": cells([f"{i}.0" for i in range(30)]),
        "charges": cells(["210,403", "1,234", "12", "4,915"]),
        "amount_us": cells(["1,234,567.89", "12.5", "3,000"]),
        "betrag": cells(["1.234,5", "7", "12,25"]),
        "weight": cells(["72.5", "80.25", "-1e3"]),
        "year": cells(["2019", "2020", "2021"]),
        "flag": cells(["0", "1"]),
        "name": cells([" José ", "Straße", "Müller", "Zoë"]),
        "nuts": cells(["DE300", "FR101", "ITC4"]),
        "icd": cells(["J45.9", "E11", "I10"]),
        "yes_no": cells(["true", "false"]),
        "admitted": cells(["2024-03-05", "2023-12-31", "2024-02-29"]),
        "born": cells(["03/04/1980", "11/12/1975"]),
        "seen": cells(["25/12/2023", "01/02/2024"]),
        "empty": cells([""]),
    })  # fmt: skip


EXPECTED = {  # column: (kind, thousands, decimal, date_format, warnings)
    "zip": ("code", None, ".", None, ()),
    "postcode": ("code", None, ".", None, ()),
    "serial": ("number", None, ".", None, (
        "column 'serial' holds 5-digit integers of equal width: read as numbers; "
        "--code serial if they are codes",)),
    "relat": ("category", None, ".", None, (
        "column 'relat' holds 7 distinct integers (1-7): read as category codes; "
        "--numeric relat to treat them as numbers",)),
    "water": ("category", None, ".", None, (
        "column 'water' holds 4 distinct integers (1-8): read as category codes; "
        "--numeric water to treat them as numbers",)),
    "age": ("number", None, ".", None, ()),
    "kids_count": ("number", None, ".", None, ()),
    "score": ("number", None, ".", None, ()),
    "charges": ("number", ",", ".", None, (
        "column 'charges': '210,403' reads as 210403 (--thousands ,) or 210.403 "
        "(--decimal ,): read as 210403; give either to decide",)),
    "amount_us": ("number", ",", ".", None, ()),
    "betrag": ("number", ".", ",", None, ()),
    "weight": ("number", None, ".", None, ()),
    "year": ("number", None, ".", None, ()),
    "flag": ("category", None, ".", None, ()),
    "name": ("category", None, ".", None, ()),
    "nuts": ("category", None, ".", None, ()),
    "icd": ("category", None, ".", None, ()),
    "yes_no": ("category", None, ".", None, ()),
    "admitted": ("date", None, ".", "%Y-%m-%d", ()),
    "born": ("date", None, ".", "%d/%m/%Y", (
        "column 'born': dates like '03/04/1980' read as %d/%m/%Y, could be %m/%d/%Y; "
        "--date-format %m/%d/%Y if so",)),
    "seen": ("date", None, ".", "%d/%m/%Y", ()),
    "empty": ("category", None, ".", None, ()),
}  # fmt: skip


@pytest.fixture(scope="module")
def table():
    pytest.importorskip("incrowd.data.dates")
    return corpus()


def test_every_column_of_the_corpus_gets_its_kind_and_exactly_its_warnings(table):
    found = infer_types(table, list(table.columns))
    assert set(found) == set(EXPECTED)
    for name, (kind, thousands, decimal, date_format, warnings) in EXPECTED.items():
        inference = found[name]
        assert inference.type == ColumnType(kind, thousands, decimal, date_format), name
        assert tuple(map(cli_text, inference.warnings)) == warnings, name
        assert all("\n" not in w and "--" not in python_text(w) for w in inference.warnings)
        assert inference.reason and "\n" not in inference.reason
        missing = 0 if name == "serial" else 2
        assert inference.n_missing == (N if name == "empty" else missing), name


def test_normalized_cells_are_canonical_and_missing_stays_missing(table):
    found = infer_types(table, list(table.columns))
    out = {name: normalize(table[name], found[name].type, name) for name in table.columns}
    assert out["zip"].tolist()[:5] == ["02142", "60615", "00501", None, "94110"]
    assert out["postcode"].dtype == object and out["postcode"][0] == "12345"
    assert out["water"].tolist()[:4] == ["1", "2", "3", None]
    assert out["relat"].tolist()[:4] == ["1", "2", "3", None]
    assert out["kids_count"].dtype == np.float64
    assert out["kids_count"].tolist()[:3] == [8.0, 2.0, 0.0]
    assert out["charges"].tolist()[:3] == [210403.0, 1234.0, 12.0]
    assert np.isnan(out["charges"][3])
    assert out["amount_us"].tolist()[:3] == [1234567.89, 12.5, 3000.0]
    assert out["betrag"].tolist()[:3] == [1234.5, 7.0, 12.25]
    assert out["weight"][2] == -1000.0
    assert out["name"].tolist()[:3] == ["José", "Straße", "Müller"]
    assert out["icd"].tolist()[:2] == ["J45.9", "E11"]
    assert out["admitted"].tolist()[:4] == ["2024-03-05", "2023-12-31", "2024-02-29", None]
    assert out["born"][0] == "1980-04-03"
    assert out["empty"].isna().all()
    for name, column in out.items():
        assert column.index.equals(table.index)
        assert column.isna().to_numpy().tolist() == is_missing(table[name]).tolist(), name


def test_distinct_and_examples_count_values_not_spellings(table):
    found = infer_types(table, ["charges", "zip", "water"])
    assert found["charges"].n_distinct == 4
    assert found["zip"].examples == ("02142", "60615", "00501", "94110", "10002")
    assert found["water"].n_distinct == 4


def test_integer_codes_from_a_numeric_dtype_read_as_labels_without_dot_zero():
    column = pd.Series([1.0, 2.0, np.nan, 7.0, 3.0])  # pandas wrote them as floats
    inference = infer_column(column, "relat")
    assert inference.type.kind == "category" and len(inference.warnings) == 1
    assert normalize(column, inference.type, "relat").tolist() == ["1", "2", None, "7", "3"]
    ages = pd.Series([float(a) for a in range(17, 91)] + [np.nan])
    inference = infer_column(ages, "age")
    assert inference.type == ColumnType("number") and not inference.warnings
    assert normalize(ages, inference.type, "age").iloc[:2].tolist() == [17.0, 18.0]


def test_the_number_of_coded_categories_is_the_threshold():
    codes = pd.Series([str(i) for i in range(1, MAX_CODED_CATEGORIES + 1)])
    assert infer_column(codes, "q").type.kind == "category"
    more = pd.Series([str(i) for i in range(1, MAX_CODED_CATEGORIES + 2)])
    assert infer_column(more, "q").type.kind == "number"
    assert infer_column(codes, "number_of_rooms").type.kind == "number"


def test_a_compact_categorical_column_is_read_like_text():
    column = pd.Series(["02142", "60615", "", "02142"], dtype="category")
    inference = infer_column(column, "zip")
    assert inference.type.kind == "code" and inference.n_missing == 1
    assert normalize(column, inference.type, "zip").tolist() == ["02142", "60615", None, "02142"]


def test_booleans_and_datetimes_keep_their_kind():
    flags = pd.Series([True, False, True])
    inference = infer_column(flags, "smoker")
    assert inference.type.kind == "category" and not inference.warnings
    assert normalize(flags, inference.type, "smoker").tolist() == ["True", "False", "True"]
    pytest.importorskip("incrowd.data.dates")
    stamps = pd.Series(pd.to_datetime(["2024-03-05", None, "2024-01-01"]))
    inference = infer_column(stamps, "admitted")
    assert inference.type.kind == "date"
    assert normalize(stamps, inference.type, "admitted").tolist() == [
        "2024-03-05", None, "2024-01-01"]  # fmt: skip


def test_numbers_with_a_few_text_cells_are_an_error_naming_the_first():
    values = [str(i) for i in range(30)] + ["n/a"] + [str(i) for i in range(5)]
    with pytest.raises(InputError, match=r"column 'x' .*row 31 holds 'n/a'.*categorical=\['x'\]"):
        infer_column(pd.Series(values), "x")
    mostly_text = pd.Series(["a", "b", "c", "1"])  # 25 % numbers: text
    assert infer_column(mostly_text, "x").type.kind == "category"


def test_dates_with_a_few_text_cells_or_an_impossible_day_are_errors():
    pytest.importorskip("incrowd.data.dates")
    values = [f"2024-01-{d:02d}" for d in range(1, 29)] + ["unknown"]
    with pytest.raises(InputError, match=r"column 'd' holds dates .*row 29 holds 'unknown'"):
        infer_column(pd.Series(values), "d")
    with pytest.raises(InputError, match=r"row 2 holds '2024-02-30'"):
        infer_column(pd.Series(["2024-02-28", "2024-02-30"]), "d")
    versions = pd.Series(["1.2.3", "10.4.12"])  # shaped like d.m.y, but not dates
    assert infer_column(versions, "version").type.kind == "category"


def test_digits_only_are_never_dates():
    pytest.importorskip("incrowd.data.dates")
    inference = infer_column(pd.Series([f"202403{d:02d}" for d in range(1, 29)]), "day")
    assert inference.type.kind == "number"


def test_a_declared_kind_is_taken_as_given():
    zips = pd.Series(["12345", "60615", None])
    inference = infer_column(zips, "z", declared="code")
    assert inference.type.kind == "code" and not inference.warnings
    assert "--code z" in cli_text(inference.reason)
    codes = pd.Series(["1", "2", "3"])
    assert infer_column(codes, "relat", declared="number").type.kind == "number"
    assert not infer_column(codes, "relat", declared="number").warnings
    assert infer_column(pd.Series(["1.5", "2"]), "x", declared="category").type.kind == (
        "category")  # fmt: skip
    with pytest.raises(InputError, match=r"column 'x' is declared numeric.*row 2 holds 'abc'"):
        infer_column(pd.Series(["1", "abc", "3"]), "x", declared="number")
    with pytest.raises(ParameterError, match="kind must be one of"):
        infer_column(codes, "x", declared="integer")


def test_a_declared_date_is_parsed_or_names_the_cell():
    pytest.importorskip("incrowd.data.dates")
    column = pd.Series(["05.03.2024", "", "29.02.2024"])
    inference = infer_column(column, "d", declared="date")
    assert inference.type == ColumnType("date", date_format="%d.%m.%Y")
    with pytest.raises(InputError, match=r"column 'd'.*row 2 holds 'soon'"):
        infer_column(pd.Series(["05.03.2024", "soon"]), "d", declared="date")
    given = infer_column(pd.Series(["03/04/2024"]), "d", date_format="%m/%d/%Y")
    assert given.type == ColumnType("date", date_format="%m/%d/%Y") and not given.warnings


def test_a_given_number_format_is_applied_strictly():
    ambiguous = pd.Series(["1,234", "5,678", "12"])
    for flags, value in (({"thousands": ","}, 1234.0), ({"decimal": ","}, 1.234)):
        inference = infer_column(ambiguous, "amount", **flags)
        assert inference.type.kind == "number" and not inference.warnings
        assert normalize(ambiguous, inference.type, "amount")[0] == value
    dotted = pd.Series(["1.234", "100"])
    inference = infer_column(dotted, "amount")
    assert inference.type == ColumnType("number", ".", ",")
    assert [python_text(w) for w in inference.warnings] == [
        "column 'amount': '1.234' reads as 1234 (thousands='.') or 1.234 (decimal='.'): read "
        "as 1234; give either to decide"]  # fmt: skip
    assert infer_column(dotted, "amount", decimal=".").type == ColumnType("number")
    with pytest.raises(InputError, match=r"column 'x': row 1 holds '1.5'.*decimal ','"):
        infer_column(pd.Series(["1.5", "2.25"]), "x", decimal=",")
    names = pd.Series(["Ann", "Bob"])  # text is text whatever the number format
    assert infer_column(names, "n", thousands=".", decimal=",").type.kind == "category"


def test_swiss_and_spaced_thousands_are_read():
    column = pd.Series(["1'234.5", "12"])
    assert infer_column(column, "amount").type == ColumnType("number", "'", ".")
    spaced = pd.Series(["1 234,5", "1\u00a0000", "3"])
    inference = infer_column(spaced, "amount")
    assert inference.type == ColumnType("number", " ", ",")
    assert normalize(spaced, inference.type, "amount").tolist() == [1234.5, 1000.0, 3.0]


def test_column_types_refuse_inconsistent_settings():
    with pytest.raises(ParameterError, match="cannot both be"):
        ColumnType("number", ",", ",")
    with pytest.raises(ParameterError, match="thousands separator must be"):
        ColumnType("number", ";")
    with pytest.raises(ParameterError, match="no thousands separator"):
        ColumnType("code", ",")
    with pytest.raises(ParameterError, match="no date format"):
        ColumnType("number", date_format="%Y")
    with pytest.raises(ParameterError, match="column kind must be one of"):
        ColumnType("text")  # type: ignore[arg-type]
    with pytest.raises(SchemaError, match="unknown column 'nope'"):
        infer_types(pd.DataFrame({"a": ["1"]}), ["nope"])


def test_normalize_names_the_cell_that_does_not_fit():
    with pytest.raises(InputError, match=r"column 'x': row 3 holds 'abc'"):
        normalize(pd.Series(["1", "2", "abc"]), ColumnType("number"), "x")
    with pytest.raises(InputError, match=r"row 2 holds '1,5'"):
        normalize(pd.Series(["1.5", "1,5"]), ColumnType("number"), "x")


def test_proposed_roles_and_hierarchies(table):
    n = len(table)
    found = infer_types(table, ["zip", "admitted", "name", "relat", "charges", "weight"])
    roles = {name: propose_role(inference, n)[0] for name, inference in found.items()}
    assert roles == {"zip": "quasi-identifier", "admitted": "quasi-identifier",
                     "name": "identifier", "relat": "withheld", "charges": "sensitive",
                     "weight": "insensitive"}  # fmt: skip
    ids = pd.Series([f"P{i:04d}" for i in range(N)])
    assert propose_role(infer_column(ids, "PatientID"), N)[0] == "identifier"
    emails = pd.Series([f"user{i}@example.org" for i in range(N)])
    assert propose_role(infer_column(emails, "contact"), N)[0] == "identifier"
    assert propose_hierarchy(found["zip"]) == "prefix"
    assert propose_hierarchy(found["admitted"]) == "dates"
    assert propose_hierarchy(found["charges"]) is None
    assert propose_hierarchy(found["relat"]) is None


def integral(text):
    """``8.00`` as ``8``: how an integer-coded category may spell a label."""
    return re.sub(r"^([+-]?[0-9]+)\.0+$", r"\1", text)


CELLS = st.one_of(
    st.none(),
    st.sampled_from(["", " ", "  "]),
    st.integers(0, 99999).map(str),
    st.integers(0, 999).map(lambda i: f"{i:05d}"),
    st.floats(-1e6, 1e6, allow_nan=False).map(lambda f: f"{f:.2f}"),
    st.sampled_from(["a", " José ", "Straße", "x y", "1.0", "8.0"]),
)


@given(st.lists(CELLS, max_size=60), st.integers(0, 1000))
def test_normalize_never_drops_or_reorders_a_row_and_keeps_missing_positions(values, start):
    column = pd.Series(values, dtype=object, index=pd.RangeIndex(start, start + len(values)))
    try:
        inference = infer_column(column, "c")
    except InputError:  # numbers with a few text cells: refused, nothing to normalize
        return
    for ctype in {inference.type, ColumnType("category"), ColumnType("code")}:
        out = normalize(column, ctype, "c")
        assert out.index.equals(column.index)
        assert out.isna().to_numpy().tolist() == is_missing(column).tolist()
        present = ~is_missing(column)
        texts = [str(v).strip() for v in column[present]]
        if ctype.kind == "code":
            assert out[present].tolist() == texts
        elif ctype.kind == "category":
            assert [integral(t) for t in out[present]] == [integral(t) for t in texts]
        elif ctype.kind == "number":
            thousands, decimal = ctype.thousands or "\0", ctype.decimal
            plain = [t.replace(thousands, "").replace(decimal, ".") for t in texts]
            assert out[present].tolist() == [float(t) for t in plain]
