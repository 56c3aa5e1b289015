"""Open bands and the one style of numeric labels (issue 57, item 7).

``intervals:0-17,18-39,40-64,65+`` and ``intervals:<18,18-39,40+`` are accepted: ``65+``
covers 65 and above, ``<18`` everything below 18 (18 itself not), both read back as those
ranges wherever a published label is read (NCP, the linkage attack, the report). Every
numeric label is made by one function: ``104``, ``18-39``, ``65+``, ``<18``, numbers in their
shortest form, never ``104.0`` or ``[0, 1000)``."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from incrowd import Hierarchy, HierarchyError
from incrowd.data.hierarchy_specs import build_hierarchy
from incrowd.data.ranges import format_number, range_label, read_range

AGES = pd.Series([0, 5, 17, 18, 30, 39, 40, 64, 65, 90, 104], name="age")


def path_of(h: Hierarchy, value: object) -> list[str]:
    codes = h.encode([value])[0]
    return [h.label(j, int(c)) for j, c in enumerate(codes)]


def test_an_open_top_band_holds_every_value_from_its_bound():
    h = build_hierarchy("intervals:0-17,18-39,40-64,65+", AGES, "age")
    assert h.labels[1] == ("0-17", "18-39", "40-64", "65+")
    assert path_of(h, 104) == ["104", "65+", "*"]
    assert path_of(h, 65) == ["65", "65+", "*"] and path_of(h, 64)[1] == "40-64"


def test_an_open_bottom_band_holds_every_value_below_its_bound():
    h = build_hierarchy("intervals:<18,18-39,40+", pd.Series([0, 17.5, 18, 39, 40, 104]), "age")
    assert h.labels[1] == ("<18", "18-39", "40+")
    assert path_of(h, 17.5)[1] == "<18" and path_of(h, 18)[1] == "18-39"
    assert path_of(h, 0)[1] == "<18" and path_of(h, 104)[1] == "40+"


def test_open_bands_nest_across_levels():
    h = build_hierarchy("intervals:<18,18-39,40-64,65+/<40,40+", AGES, "age")
    assert path_of(h, 5) == ["5", "<18", "<40", "*"]
    assert path_of(h, 30) == ["30", "18-39", "<40", "*"]
    assert path_of(h, 90) == ["90", "65+", "40+", "*"]


def test_open_bands_read_back_as_their_ranges_with_the_bound_of_below_excluded():
    assert read_range("65+") == (65, math.inf)
    lo, hi = read_range("<18")
    assert lo == -math.inf and hi < 18 and np.nextafter(hi, math.inf) == 18
    assert read_range("<-5")[1] < -5 and read_range("-5+") == (-5, math.inf)
    assert read_range("18-39") == (18, 39) and read_range("104") == (104, 104)
    for bad in ("65++", "<", "+", "<18+", ">65", "18-", "nan", "inf", "abc", "1-2-3"):
        assert read_range(bad) is None, bad


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("intervals:0-17,18-64,65++", r"'65\+\+' is neither a width nor a band \(LO-HI"),
        ("intervals:<,18+", r"'<' is neither a width nor a band"),
        ("intervals:<18+", r"'<18\+' is neither a width nor a band"),
        ("intervals:0-64,>64", r"'>64' is neither a width nor a band \(LO-HI with LO <= HI, "
                               r"<HI or LO\+\)"),
        ("intervals:<18,17-64,65+", "bands '<18' and '17-64' of level 1 overlap"),
        ("intervals:0-17,18+,65+", "bands '18\\+' and '65\\+' of level 1 overlap"),
        ("intervals:0-17,18-64,65+/0-64,65-120", r"band '65\+' of level 1 lies within no band "
                                                 "of level 2"),
        ("intervals:18-39,40+", r"value 0 \(row 1\) lies in no band of level 1 \(18-39, 40\+\)"),
    ],
)  # fmt: skip
def test_a_malformed_band_is_one_clear_line(spec, message):
    with pytest.raises(HierarchyError, match=message) as info:
        build_hierarchy(spec, AGES, "age")
    assert "\n" not in str(info.value) and "of 'age'" in str(info.value)


def test_a_band_is_labelled_in_the_one_style_whatever_its_spelling():
    h = build_hierarchy("intervals:0.0-17, 18 - 39,40.0+", AGES, "age")
    assert h.labels[1] == ("0-17", "18-39", "40+")


# ---------------------------------------------------------------- one label style
def test_numbers_are_written_in_their_shortest_form():
    assert [format_number(x) for x in (104.0, 1.5, 1234.5, -3.0, 0.1, 1e-05)] == [
        "104", "1.5", "1234.5", "-3", "0.1", "1e-05"]  # fmt: skip
    assert range_label(104.0, 104.0) == "104" and range_label(18.0, 39.0) == "18-39"
    assert range_label(65, math.inf) == "65+" and range_label(-10, -1) == "-10--1"
    assert range_label(*read_range("<18")) == "<18"


def test_intervals_of_decimal_numbers_are_closed_ranges_at_the_data_precision():
    amounts = [0.5, 12.25, 999.99, 1000, 1534.5, 2999.99]
    h = Hierarchy.from_intervals(amounts, [1000, 2000])
    assert path_of(h, 999.99) == ["999.99", "0-999.99", "0-1999.99", "*"]
    assert path_of(h, 1000) == ["1000", "1000-1999.99", "0-1999.99", "*"]
    assert path_of(h, 2999.99)[1:3] == ["2000-2999.99", "2000-3999.99"]
    assert not any("[" in label or ")" in label for level in h.labels for label in level)


@given(
    st.lists(st.integers(-5000, 5000), min_size=1, max_size=30),
    st.sampled_from([1, 2]),
    st.sampled_from([[0.5, 1], [0.3, 0.6, 3], [10, 50]]),
)
def test_every_value_lies_in_the_range_its_interval_label_reads_as(ints, decimals, widths):
    values = [v / 10**decimals for v in ints]
    h = Hierarchy.from_intervals(values, widths)
    for v in set(values):
        for label in path_of(h, v)[1:-1]:
            lo, hi = read_range(label)
            assert lo <= v <= hi, (v, label)
    for level in h.labels[1:-1]:  # the ranges of one level are apart
        ranges = sorted(read_range(label) for label in level)
        assert all(a[1] < b[0] for a, b in zip(ranges, ranges[1:], strict=False))


def test_intervals_of_values_finer_than_a_float_tells_apart_stay_apart():
    h = Hierarchy.from_intervals([0.30000000000000004, 0.5, 1.2, 1.7], [1])
    ranges = sorted(read_range(label) for label in h.labels[1])
    assert ranges[0][1] < 1 <= ranges[1][0]  # 0-0.9999999999999999, not 0-1 beside 1-2
