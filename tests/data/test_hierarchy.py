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
    assert frac.label(1, frac.encode([0.5])[0, 1]) == "0-0.9"  # closed, at the data's precision


def test_prefix_builder_masks_trailing_characters():
    h = Hierarchy.from_prefix(["80000", "80010", "81000"])
    row = h.encode(["80010"])[0]
    assert [h.label(j, row[j]) for j in range(h.height + 1)] == [
        "80010",
        "8001*",
        "800**",
        "80***",
        "8****",
        "*",  # the top is the root, as every other hierarchy's
    ]
    short = Hierarchy.from_prefix(["501", "80000"])  # codes of several lengths: issue 57
    row = short.encode(["501"])[0]
    assert [short.label(j, row[j]) for j in range(6)] == ["501", "501", "501**", "50***",
                                                          "5****", "*"]  # fmt: skip


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


# ------------------------------------------------------------- issue 43: large files
def paths(n: int) -> str:
    """An ARX file of ``n`` values: ``v7;g0;h0;*`` (ten values a group, 100 groups a block)."""
    return "".join(f"v{i};g{i // 10};h{i // 1000};*\n" for i in range(n))


def test_a_large_file_keeps_only_the_rows_of_the_data_values(tmp_path):
    path = write(tmp_path, paths(300_000))
    h = Hierarchy.from_csv(path, keep=["v0", "v123457", "v299999", "v123457", "nope"])
    assert h.values == ("v0", "v123457", "v299999")
    assert h.labels[1] == ("g0", "g12345", "g29999") and h.height == 3
    codes = h.encode(["v123457"])[0]
    assert [h.label(j, codes[j]) for j in range(4)] == ["v123457", "g12345", "h123", "*"]
    ages = write(tmp_path, "38;30-39;*\n39;30-39;*\n", name="ages.csv")
    assert Hierarchy.from_csv(ages, keep=[39.0]).values == ("39",)  # looked up as encoded


def test_memory_follows_the_data_not_the_file(tmp_path):
    import tracemalloc

    peaks = []
    for n in (50_000, 400_000):
        path = write(tmp_path, paths(n), name=f"h{n}.csv")
        tracemalloc.start()
        Hierarchy.from_csv(path, keep=["v1", f"v{n - 1}"])
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    # 8x the rows, the same few blocks in memory at a time (reading all rows took ~100x)
    assert peaks[1] < 1.5 * peaks[0] + 1e6, peaks


def test_only_the_kept_rows_are_validated_and_named_by_their_row(tmp_path):
    rows = paths(20_000).splitlines()
    rows[5] = "v5;;h0;*"  # an empty cell, and a second parent, in rows the data does not use
    rows[6] = "v6;g0;h9;*"
    rows[17_000] = "v17000;g1700;;*"
    path = write(tmp_path, "\n".join(rows) + "\n")
    assert Hierarchy.from_csv(path, keep=["v1", "v19999"]).values == ("v1", "v19999")
    with pytest.raises(HierarchyError, match="row 17001 has an empty cell at level 2"):
        Hierarchy.from_csv(path, keep=["v1", "v17000"])
    with pytest.raises(HierarchyError, match=r"'g0' generalizes to both 'h0' \(row 2\)"):
        Hierarchy.from_csv(path, keep=["v1", "v6"])


def test_a_file_without_the_data_values_reports_the_first_missing_value(tmp_path):
    path = write(tmp_path, "a;x;*\nb;x;*\n")
    h = Hierarchy.from_csv(path, keep=["zz"])
    assert h.values == ("a",)  # the first row stands in, so that the value is reported
    with pytest.raises(HierarchyError, match=r"value 'zz' of column 's' \(row 1\) is not in"):
        h.encode(["zz"], column="s")


def test_the_whole_file_must_decode_and_use_the_separator(tmp_path):
    path = tmp_path / "h.csv"
    path.write_bytes("a;x;*\nb;x;*\nc;M\xe4nner;*\n".encode("latin-1"))
    with pytest.raises(HierarchyError, match="line 3 is not utf-8 text"):
        Hierarchy.from_csv(path, keep=["a"])
    comma = write(tmp_path, "a,x,*\nb,x,*\n", name="comma.csv")
    with pytest.raises(HierarchyError, match="splits evenly on ','"):
        Hierarchy.from_csv(comma, keep=["a"])
    assert Hierarchy.from_csv(write(tmp_path, "a\nb\n", name="one.csv")).height == 1


@pytest.mark.parametrize("before", [0, 3, 30_000])
def test_a_long_line_is_refused_before_it_is_read_whole(tmp_path, before):
    from incrowd.io.hierarchy_csv import MAX_LINE_BYTES

    short = "a;x;*\n" * before
    path = write(tmp_path, short + "b;" + "x" * (3 << 20) + ";*\nc;x;*\n")
    with pytest.raises(HierarchyError, match=rf"line longer than 1 MiB \(line {before + 1}\)"):
        Hierarchy.from_csv(path, keep=["a"])
    # a line of exactly the limit is a row like any other (the limit is the line, not a cell)
    path = write(tmp_path, short + "b;" + "x" * (MAX_LINE_BYTES - 4) + ";*\nc;x;*\n")
    assert Hierarchy.from_csv(path, keep=["b", "c"]).values == ("b", "c")


def test_a_long_line_is_refused_without_holding_it(tmp_path):
    import tracemalloc

    path = tmp_path / "h.csv"
    path.write_bytes(b"x" * (8 << 20) + b"\n\xff\n")  # undecodable after it: never reached
    tracemalloc.start()
    with pytest.raises(HierarchyError, match=r"line longer than 1 MiB \(line 1\)"):
        Hierarchy.from_csv(path)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 4 << 20, peak


@given(
    st.lists(
        st.lists(st.text(alphabet='ab;"\r\n x', max_size=4), min_size=0, max_size=3),
        min_size=1,
        max_size=12,
    ),
    st.sampled_from(["\n", "\r\n"]),
    st.integers(1, 9),
)
def test_the_stream_reads_what_the_csv_module_reads(rows, end, block):
    """Quoted cells, separators and line ends in cells, blank lines, CRLF: the quote-free fast
    path and the csv path together read every file as ``csv.reader`` reads it whole."""
    import csv
    import io
    import tempfile
    from pathlib import Path

    from incrowd.io import hierarchy_csv as hierarchy

    text = io.StringIO(newline="")
    csv.writer(text, delimiter=";", lineterminator=end).writerows(rows)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "h.csv"
        path.write_text(text.getvalue(), newline="")
        with path.open(newline="") as fh:
            expected = [r for r in csv.reader(fh, delimiter=";") if r]
        wanted = {r[0] for r in expected[::2]}
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(hierarchy, "_READ_BYTES", block)  # blocks end anywhere in a line
            scan = hierarchy._Scan(";", wanted)
            scan.read(hierarchy._blocks(path, "utf-8", ";"))
    numbered = list(enumerate(expected, start=1))
    assert scan.kept == [(i, r) for i, r in numbered if r[0] in wanted]
    assert scan.records == len(expected)
    assert scan.first == (numbered[0] if numbered else None)
    assert scan.one_cell == all(len(r) == 1 for r in expected)


# ---------------------------------------------- issue 43: a label is one node of one tree
@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("M;F;*\nF;M;*\n", r"'F' generalizes to both '\*' \(row 1\) and 'M' \(row 2\)"),
        ("a;b;*\nb;c;*\nc;a;*\n", r"'b' generalizes to both '\*' \(row 1\) and 'c' \(row 2\)"),
        ("a;x;a\nb;x;a\n", r"row 1 is a cycle: 'a' -> 'x' -> 'a'"),
        ("a;*;x\nb;y;z\n", r"row 1 is a cycle: '\*' -> 'x' -> '\*'"),  # "*" added on top
        ("a;g;p;*\nb;c;g;q\n", r"'g' generalizes to both 'p' \(row 1\) and 'q' \(row 2\)"),
    ],
)
def test_a_label_with_two_parents_or_its_own_ancestor_is_refused(tmp_path, text, message):
    with pytest.raises(HierarchyError, match=message):
        Hierarchy.from_csv(write(tmp_path, text))
    with pytest.raises(HierarchyError, match=message):
        Hierarchy.from_rows([r.split(";") for r in text.splitlines()])


def test_a_label_may_repeat_on_its_row_and_sit_at_several_depths():
    # kept for a level (Male;Male), a value that is also its group (A;A), unequal depths
    for rows in (
        [["Male", "Male", "*"], ["Female", "F", "*"]],
        [["A+", "A"], ["A", "A"], ["B", "B"]],
        [["a", "X", "X", "*"], ["b", "c", "X", "*"]],
    ):
        assert Hierarchy.from_rows(rows).labels[-1] == ("*",)


def test_missing_category_keeps_the_row_of_the_missing_label(tmp_path):
    import pandas as pd

    from incrowd.data.columns import MISSING_LABEL
    from incrowd.pipeline.job import build_hierarchy

    path = write(tmp_path, f"a;x;*\nb;x;*\nc;y;*\n{MISSING_LABEL};y;*\n")
    h = build_hierarchy(str(path), pd.Series(["a", None, "a", " "]), "s")
    assert h.values == ("a", MISSING_LABEL)
    assert build_hierarchy(str(path), pd.Series(["b", "a"]), "s").values == ("a", "b")


def test_the_shape_of_a_file_read_for_some_values_does_not_depend_on_them(tmp_path):
    """The root is added above several top labels of the whole file, not of the rows kept
    (review of issue 43): reading Paris and Lyon alone must not make Europe the top."""
    path = tmp_path / "places.csv"
    path.write_text("Paris;France;Europe\nLyon;France;Europe\nTokyo;Japan;Asia\n")
    whole = Hierarchy.from_csv(path)
    some = Hierarchy.from_csv(path, keep=["Paris", "Lyon"])
    assert whole.height == some.height == 3
    assert some.label(some.height, 0) == "*"
    one_top = tmp_path / "one_top.csv"
    one_top.write_text(
        "Paris;France;*\nLyon;France;*\n" + "".join(f"v{i};France;*\n" for i in range(20000))
    )  # several blocks of the fast path
    assert Hierarchy.from_csv(one_top, keep=["Paris"]).height == 2
