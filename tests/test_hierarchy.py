import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from incrowd import Hierarchy, HierarchyError
from incrowd.datasets import ADULT_QIS, adult_hierarchy_path


def write(tmp_path, text, name="h.csv"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_reads_every_bundled_adult_hierarchy():
    expected_height = {
        "sex": 1,
        "race": 1,
        "education": 3,
        "native-country": 2,
        "workclass": 2,
        "occupation": 2,
        "marital-status": 2,
        "age": 4,
    }
    for name in (*ADULT_QIS, "salary-class"):
        h = Hierarchy.from_csv(adult_hierarchy_path(name))
        assert h.labels[-1] == ("*",)
        if name in expected_height:
            assert h.height == expected_height[name], name
    age = Hierarchy.from_csv(adult_hierarchy_path("age"))
    codes = age.encode(["39"])
    assert [age.label(j, codes[0, j]) for j in range(5)] == ["39", "35-39", "30-39", "20-39", "*"]


def test_quality_example_of_the_paper_and_implicit_root(tmp_path):
    # Aggarwal et al., Fig. 1: A+, A, A- -> A; B+, B, B- -> B; then the whole domain.
    rows = "A+;A\nA;A\nA-;A\nB+;B\nB;B\nB-;B\n"
    h = Hierarchy.from_csv(write(tmp_path, rows))
    assert h.height == 2  # a "*" level is added above A and B
    assert int(np.sum(h.codes[:, 1] == h.labels[1].index("A"))) == 3
    assert np.all(h.codes[:, 2] == 0) and h.codes.shape[0] == 6


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "no rows"),
        ("a;x;*\nb;x\n", "row 2 has 2 cells but row 1 has 3"),
        ("a;x;*\nb;;*\n", "row 2 has an empty cell at level 1"),
        ("a;x;*\na;y;*\n", "value 'a' generalizes to both 'x' \\(row 1\\) and 'y' \\(row 2\\)"),
        (
            "a;x;p\nb;x;q\n",
            "level-1 label 'x' generalizes to both 'p' \\(row 1\\) and 'q' \\(row 2\\)",
        ),
    ],
)
def test_malformed_hierarchies_are_reported_precisely(tmp_path, text, message):
    with pytest.raises(HierarchyError, match=message):
        Hierarchy.from_csv(write(tmp_path, text))


def test_missing_file_and_unknown_value(tmp_path):
    with pytest.raises(HierarchyError, match="not found"):
        Hierarchy.from_csv(tmp_path / "nope.csv")
    h = Hierarchy.from_rows([["a", "*"], ["b", "*"]], source="sexes.csv")
    with pytest.raises(HierarchyError, match=r"value 'c' of column 'sex' \(row 2\) is not in"):
        h.encode(["a", "c"], column="sex")


def test_float_values_find_integer_rows():
    h = Hierarchy.from_rows([["39", "30-39", "*"], ["41", "40-49", "*"]])
    assert h.encode([39.0, 41]).tolist() == [[0, 0, 0], [1, 1, 0]]


def test_interval_builder_nests_and_labels():
    h = Hierarchy.from_intervals([17, 23, 39, 40, 90], [5, 10, 20])
    codes = h.encode([39, 40])
    assert [h.label(1, codes[0, 1]), h.label(2, codes[0, 2])] == ["35-39", "30-39"]
    assert h.label(3, codes[1, 3]) == "40-59"
    assert h.labels[-1] == ("*",)
    with pytest.raises(HierarchyError, match="not a multiple"):
        Hierarchy.from_intervals([1, 2], [5, 7])
    frac = Hierarchy.from_intervals([0.5, 1.7], [1, 2])
    assert frac.label(1, frac.encode([0.5])[0, 1]) == "[0, 1)"


def test_prefix_builder_masks_trailing_characters():
    h = Hierarchy.from_prefix(["80000", "80010", "81000"])
    row = h.encode(["80010"])[0]
    assert [h.label(j, row[j]) for j in range(h.height + 1)] == [
        "80010",
        "8001*",
        "800**",
        "80***",
        "8****",
        "*****",
    ]
    with pytest.raises(HierarchyError, match="equal length"):
        Hierarchy.from_prefix(["501", "80000"])


@given(st.lists(st.integers(0, 99), min_size=1, max_size=40))
def test_meeting_level_is_consistent_with_labels(values):
    h = Hierarchy.from_intervals(values, [2, 10, 50])
    codes = h.encode(values)
    for a in range(len(values)):
        meet = np.argmax(codes[a] == codes, axis=1)  # lowest level where they agree
        for b in range(len(values)):
            j = meet[b]
            assert h.label(j, codes[a, j]) == h.label(j, codes[b, j])
            if j > 0:
                assert codes[a, j - 1] != codes[b, j - 1]
