"""The hierarchy spellings of the command line, the job file and Python (issue 45)."""

import math

import numpy as np
import pandas as pd
import pytest

import incrowd
from incrowd import Hierarchical, Hierarchy, HierarchyError, Schema, SchemaError
from incrowd.data.columns import MISSING_LABEL
from incrowd.data.hierarchy_specs import (
    HIERARCHY_SPECS,
    MAX_BINS,
    TOP_BINS,
    build_hierarchy,
    default_widths,
    is_builder,
)
from incrowd.data.ncp import range_of_label

AGES = pd.Series([0, 5, 17, 18, 30, 64, 65, 90, 120], name="age")
BANDS = "intervals:0-17,18-64,65-120"


def path_of(h: Hierarchy, value: object) -> list[str]:
    """The labels of ``value`` from the leaf to the top."""
    codes = h.encode([value])[0]
    return [h.label(j, int(c)) for j, c in enumerate(codes)]


# ------------------------------------------------------------------ the spellings
def test_a_file_is_read_for_the_data_values_only(tmp_path):
    path = tmp_path / "sex.csv"
    path.write_text("Male;*\nFemale;*\nOther;*\n")
    h = build_hierarchy(str(path), pd.Series(["Male", "Female", "Male"]), "sex")
    assert sorted(h.values) == ["Female", "Male"] and h.labels[-1] == ("*",)


def test_prefix_masks_codes_from_the_right():
    h = build_hierarchy("prefix", pd.Series(["02138", "02139", "10001"]), "zip")
    assert path_of(h, "02138") == ["02138", "0213*", "021**", "02***", "0****", "*"]


def test_nested_widths_are_the_interval_builder_unchanged():
    column = pd.Series([17, 23, 38, 39, 61, 90, 90])
    h = build_hierarchy("intervals:5,10,20", column, "age")
    same = Hierarchy.from_intervals(column, [5, 10, 20], source="interval hierarchy of 'age'")
    assert h.labels == same.labels and np.array_equal(h.codes, same.codes)
    assert h.source == same.source


def test_one_level_of_bands_then_the_root():
    h = build_hierarchy(BANDS, AGES, "age")
    assert h.labels[1:] == (("0-17", "18-64", "65-120"), ("*",))
    assert path_of(h, 17) == ["17", "0-17", "*"]
    assert path_of(h, 18) == ["18", "18-64", "*"]
    assert path_of(h, 120) == ["120", "65-120", "*"]
    assert path_of(h, 18.0) == ["18", "18-64", "*"]  # a float column finds its row


def test_nested_bands_with_a_slash_between_levels():
    h = build_hierarchy(BANDS + "/0-64,65-120", AGES, "age")
    assert h.height == 3
    assert path_of(h, 5) == ["5", "0-17", "0-64", "*"]
    assert path_of(h, 30) == ["30", "18-64", "0-64", "*"]
    assert path_of(h, 90) == ["90", "65-120", "65-120", "*"]  # a band kept for a level


def test_bands_are_labelled_as_written_and_read_back_as_their_range():
    h = build_hierarchy("intervals: 0-17 , 18-64,65-120.5", AGES, "age")
    assert h.labels[1] == ("0-17", "18-64", "65-120.5")
    assert [range_of_label(b) for b in h.labels[1]] == [(0, 17), (18, 64), (65, 120.5)]


def test_negative_bounds_are_spelled_with_their_minus_sign():
    h = build_hierarchy("intervals:-10--1,0-9", pd.Series([-10, -3, 0, 9]), "t")
    assert h.labels[1] == ("-10--1", "0-9")
    assert range_of_label("-10--1") == (-10, -1)
    assert path_of(h, -3) == ["-3", "-10--1", "*"]


def test_non_integer_values_inside_a_band_are_placed():
    h = build_hierarchy("intervals:0-17.5,17.6-64", pd.Series([17.5, 17.6, 3.25]), "age")
    assert path_of(h, 17.5)[1] == "0-17.5" and path_of(h, 17.6)[1] == "17.6-64"


@pytest.mark.parametrize(
    ("spec", "column", "message"),
    [
        (BANDS, pd.Series([1, 17.5, 30]),
         r"value 17.5 \(row 2\) lies in no band of level 1 \(0-17, 18-64, 65-120\); bands "
         "cover both their ends and nothing between them"),
        ("intervals:0-17,18-64,65-100", AGES,
         r"value 120 \(row 9\) lies in no band of level 1 \(0-17, 18-64, 65-100\)"),
        ("intervals:0-20,18-64,65-120", AGES,
         "bands '0-20' and '18-64' of level 1 overlap"),
        ("intervals:65-120,0-17,17-64", AGES,
         "bands '0-17' and '17-64' of level 1 overlap"),  # inclusive ends: 17 is in both
        (BANDS + "/0-20,21-120", AGES,
         "band '18-64' of level 1 lies within no band of level 2 \\(0-20, 21-120\\)"),
        ("intervals:", AGES, "no widths or bands given; use FILE, prefix or intervals:"),
        ("intervals:5,18-64", AGES, "'5' is a width among bands; give widths W1,W2,..."),
        ("intervals:5,10/20", AGES, "'5' is a width among bands"),
        ("intervals:64-18", AGES, r"'64-18' is neither a width nor a band \(LO-HI with LO <= HI"),
        ("intervals:5,x", AGES, "'x' is neither a width nor a band"),
        ("intervals:0-17,18-120/", AGES, "level 2 of the bands is empty"),
        (BANDS, pd.Series(["1", "abc"]), r"value 'abc' \(row 2\) is not a number"),
        ("intervals:5,10", pd.Series(["1", None, "x"]), r"value 'x' \(row 3\) is not a number"),
        ("intervals:5,7", AGES, "width 7 is not a multiple of 5"),
        ("bogus:1", AGES, "unknown hierarchy kind 'bogus'; use FILE, prefix or intervals:"),
        ("prefix:3", AGES, "unknown hierarchy kind 'prefix:3'"),
    ],
)  # fmt: skip
def test_each_malformed_spec_is_one_clear_error(spec, column, message):
    with pytest.raises(HierarchyError, match=message) as info:
        build_hierarchy(spec, column, "age")
    assert "could not convert" not in str(info.value)
    assert "of 'age'" in str(info.value) or "unknown hierarchy kind" in str(info.value)


def test_the_spellings_are_listed_and_told_apart_from_files():
    for spelling in ("FILE", "prefix", "intervals:W1,W2", "intervals:LO-HI", "dates:LEVEL"):
        assert spelling in HIERARCHY_SPECS
    assert all(map(is_builder, ("prefix", "intervals:5", BANDS, "dates", "dates:week")))
    assert not any(map(is_builder, ("h.csv", "prefix:3", "bogus:1", "C:/h.csv")))


def test_the_job_module_keeps_its_names():
    from incrowd.pipeline import job

    assert job.build_hierarchy is build_hierarchy and job.HIERARCHY_SPECS is HIERARCHY_SPECS


def test_a_job_file_passes_every_builder_through(tmp_path):
    from incrowd.pipeline.job import job_from_mapping

    specs = {"age": BANDS + "/0-64,65-120", "day": "dates:month,year", "zip": "prefix"}
    job = job_from_mapping({"hierarchy": specs}, "job.toml", tmp_path)
    assert dict(job.hierarchy) == specs


# ---------------------------------------------------------------------- dates
def test_dates_call_the_date_hierarchy():
    pytest.importorskip("incrowd.data.dates")  # written by another helper of issue 45
    days = pd.Series(["2024-03-05", "2024-12-30", "2024-03-05"])
    h = build_hierarchy("dates", days, "admitted")
    assert path_of(h, "2024-12-30") == ["2024-12-30", "2024-12", "2024-Q4", "2024", "*"]
    h = build_hierarchy("dates:month,year", days, "admitted")
    assert path_of(h, "2024-03-05") == ["2024-03-05", "2024-03", "2024", "*"]
    assert h.source == "date hierarchy of 'admitted'"
    with pytest.raises(HierarchyError, match="no levels given"):
        build_hierarchy("dates:", days, "admitted")
    with pytest.raises(HierarchyError, match="date hierarchy of 'admitted'"):
        build_hierarchy("dates:fortnight", days, "admitted")
    h = build_hierarchy("dates:month", pd.Series(["2024-03-05", None]), "admitted")
    assert path_of(h, MISSING_LABEL) == [MISSING_LABEL, MISSING_LABEL, "*"]


# -------------------------------------------------------------- the missing leaf
@pytest.mark.parametrize(
    ("spec", "column", "top"),
    [
        ("prefix", pd.Series(["02138", None, "10001"]), "*"),
        ("intervals:5,10", pd.Series([1.0, np.nan, 17.0]), "*"),
        (BANDS + "/0-120", pd.Series([1.0, np.nan, 70.0]), "*"),
        ("intervals:10", pd.Series([1.0, " ", 7.0]), "*"),  # one bin 0-9: a root is added
    ],
)
def test_a_missing_cell_is_a_leaf_directly_under_the_root(spec, column, top):
    h = build_hierarchy(spec, column, "c")
    path = path_of(h, MISSING_LABEL)
    assert path == [MISSING_LABEL] * h.height + [top]
    assert h.labels[-1] == (top,)
    for value in h.values[:-1]:  # it meets the other values at the top only
        assert MISSING_LABEL not in path_of(h, value)
    without = build_hierarchy(spec, column, "c", missing_leaf=False)
    assert MISSING_LABEL not in without


def test_the_missing_leaf_keeps_every_other_value_where_it_was():
    column = pd.Series([3, 8, 12, 40])
    h = build_hierarchy("intervals:5,10,20", column, "age")
    with_leaf = h.with_leaf_under_root(MISSING_LABEL)
    assert with_leaf.values[:-1] == h.values
    assert np.array_equal(with_leaf.codes[:-1], h.codes)
    assert with_leaf.with_leaf_under_root(MISSING_LABEL) is with_leaf
    assert build_hierarchy("intervals:5,10,20", column, "age", missing_leaf=True).labels == (
        with_leaf.labels
    )


def test_a_file_gets_the_missing_leaf_unless_it_lists_it(tmp_path):
    plain = tmp_path / "plain.csv"
    plain.write_text("a;x;*\nb;x;*\n")
    column = pd.Series(["a", None, "b"])
    h = build_hierarchy(str(plain), column, "s")
    assert path_of(h, MISSING_LABEL) == [MISSING_LABEL, MISSING_LABEL, "*"]
    listed = tmp_path / "listed.csv"
    listed.write_text(f"a;x;*\nb;x;*\n{MISSING_LABEL};y;*\n")
    assert path_of(build_hierarchy(str(listed), column, "s"), MISSING_LABEL)[1] == "y"
    assert MISSING_LABEL not in build_hierarchy(str(plain), column, "s", missing_leaf=False)
    named_top = tmp_path / "named_top.csv"
    named_top.write_text("a;x;Any\nb;x;Any\n")
    h = build_hierarchy(str(named_top), column, "s")
    assert h.labels[-1] == ("*",) and path_of(h, "a") == ["a", "x", "Any", "*"]


def test_missing_category_codes_through_a_built_hierarchy():
    from incrowd.data.columns import encode_qis, handle_missing

    table = pd.DataFrame({"zip": ["02138", "02139", None, "02138", " ", "02139"]})
    schema = Schema.infer(table, ["zip"], hierarchies={"zip": "prefix"})
    kept, dropped = handle_missing(table, schema, "category")
    (column,) = encode_qis(kept, schema)
    h = column.hierarchy
    assert dropped == 0 and column.codes[2, 0] == column.codes[4, 0] == h.values.index(
        MISSING_LABEL
    )
    assert h.label(h.height - 1, int(column.codes[2, h.height - 1])) == MISSING_LABEL


# ---------------------------------------------------------------- Schema.infer
def test_schema_infer_takes_the_same_spellings(tmp_path):
    table = pd.DataFrame(
        {"age": AGES, "zip": [f"0213{i}" for i in range(9)], "s": list("abcabcabc")}
    )
    path = tmp_path / "s.csv"
    path.write_text("a;*\nb;*\nc;*\n")
    schema = Schema.infer(
        table, ["age", "zip", "s"],
        hierarchies={"age": BANDS, "zip": "prefix", "s": str(path)},
    )  # fmt: skip
    metrics = schema.quasi_identifiers
    assert all(isinstance(m, Hierarchical) for m in metrics.values())
    assert metrics["age"].hierarchy.labels[1] == ("0-17", "18-64", "65-120")
    assert metrics["zip"].hierarchy.height == 5
    given = Hierarchy.from_prefix(table["zip"])
    assert (
        Schema.infer(table, ["zip"], hierarchies={"zip": given}).quasi_identifiers["zip"].hierarchy
        is given
    )


def test_schema_infer_reports_a_bad_spec_or_column():
    with pytest.raises(HierarchyError, match="unknown hierarchy kind 'bogus'"):
        Schema.infer(pd.DataFrame({"age": AGES}), ["age"], hierarchies={"age": "bogus:1"})
    with pytest.raises(SchemaError, match="unknown column 'zip' \\(given a hierarchy\\)"):
        Schema.infer(pd.DataFrame({"age": AGES}), ["age", "zip"], hierarchies={"zip": "prefix"})


def test_bands_end_to_end_publish_the_bands_priced_by_their_span():
    """k = 3 over one age column: each band holds at least 3 records, so every record is
    published as its band; the NCP is the band's span over the input's (the project's NCP
    definition), computed here from the published cells alone."""
    ages = [0, 5, 17, 18, 30, 40, 64, 65, 90, 120]
    table = pd.DataFrame({"age": ages, "d": list("abcdefghij")})
    schema = Schema.infer(table, ["age"], sensitive=["d"], hierarchies={"age": BANDS})
    release = incrowd.anonymize(table, schema, k=3, seed=1)
    published = release.table["age"].tolist()
    assert sorted(published) == sorted(["0-17"] * 3 + ["18-64"] * 4 + ["65-120"] * 3)
    span = max(ages) - min(ages)

    def cost(cell: str) -> float:
        if cell == "*":
            return 1.0
        lo, _, hi = cell.partition("-")
        return (float(hi) - float(lo)) / span if hi else 0.0

    independent = sum(cost(c) for c in published) / len(ages)
    assert math.isclose(independent, (3 * 17 + 4 * 46 + 3 * 55) / 120 / 10)
    assert math.isclose(release.metadata.loss["ncp"], independent, rel_tol=1e-12)


# -------------------------------------------------------------- default widths
def test_default_widths_of_ages():
    assert default_widths(np.arange(17, 91)) == [5.0, 10.0, 20.0]


@pytest.mark.parametrize("seed", range(40))
def test_default_widths_nest_from_ten_to_twenty_bins_down_to_a_few(seed):
    rng = np.random.default_rng(seed)
    scale = 10.0 ** rng.integers(-3, 7)
    values = rng.uniform(-1, 1, size=50) * scale + rng.uniform(-2, 2) * scale
    if seed % 2:
        values = np.round(values)
    widths = default_widths(values)

    def bins(w: float) -> int:
        return math.floor(values.max() / w) - math.floor(values.min() / w) + 1

    first = bins(widths[0])
    assert first <= MAX_BINS and (first >= 8 or widths[0] == 1)
    assert bins(widths[-1]) <= TOP_BINS
    assert all(bins(w) > TOP_BINS for w in widths[:-1])
    for a, b in zip(widths, widths[1:], strict=False):
        assert math.isclose(b / a, round(b / a)) and round(b / a) in (2, 5)
    for w in widths:
        mantissa = w / 10 ** math.floor(math.log10(w) + 1e-9)
        assert any(math.isclose(mantissa, m) for m in (1, 2, 5))
    assert Hierarchy.from_intervals(values, widths).height == len(widths) + (bins(widths[-1]) > 1)


@pytest.mark.parametrize("as_numbers", [False, True])
def test_prefix_reads_the_cells_as_codes(as_numbers):
    """``prefix`` on digits read as numbers (text, or an integer dtype) masks the codes, not
    the text of floats (``17412.0``)."""
    values = [17412 + i % 7 for i in range(40)]
    table = pd.DataFrame({"area": values if as_numbers else [str(v) for v in values]})
    metric = Schema.infer(table, ["area"], hierarchies={"area": "prefix"}).quasi_identifiers[
        "area"]  # fmt: skip
    assert metric.cells.kind == "code" and metric.spec == "prefix"
    assert "17412" in metric.hierarchy and "1741*" in metric.hierarchy.labels[1]
