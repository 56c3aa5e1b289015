import pandas as pd
import pytest

from incrowd import InputError, anonymize, load_adult, make_microdata
from incrowd.measures.loss import evaluate_release, parse_range
from incrowd.release import read_release


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("39", (39, 39)),
        ("35-39", (35, 39)),
        ("-5--3", (-5, -3)),
        ("-2-4", (-2, 4)),
        ("1e-05-2e-05", (1e-05, 2e-05)),
        ("1.5-2.25", (1.5, 2.25)),
    ],
)
def test_parse_range(text, expected):
    assert parse_range(text) == expected


def test_parse_range_rejects_text():
    with pytest.raises(InputError):
        parse_range("young")


def test_ncp_from_published_cells_equals_ncp_from_the_partition(tmp_path):
    table, schema = load_adult()
    table = table.iloc[:3000]
    rel = anonymize(table, schema, 4, seed=2)
    rel.write(tmp_path / "r.csv")
    files = read_release(tmp_path / "r.csv")
    figures = evaluate_release(table, files.table, schema, files.metadata)
    assert figures["ncp"] == pytest.approx(rel.metadata["loss"]["ncp"], rel=1e-12)
    assert figures["discernibility"] == pytest.approx(rel.metadata["loss"]["discernibility"])
    assert 0 < figures["ncp"] < 1 and figures["k_achieved"] >= 4


@pytest.mark.parametrize("form", ["microaggregated", "centers"])
def test_sse_from_published_means_equals_sse_of_the_partition(tmp_path, form):
    table, schema = make_microdata(500, 3, random_state=4)
    rel = anonymize(table, schema, 3, release=form, seed=1)
    rel.write(tmp_path / "r.csv")
    published = pd.read_csv(tmp_path / "r.csv")
    figures = evaluate_release(table, published, schema, read_release(tmp_path / "r.csv").metadata)
    assert figures["l_sse"] == pytest.approx(rel.metadata["loss"]["l_sse"], rel=1e-9)
    assert figures["sse"] == pytest.approx(rel.metadata["cost"], rel=1e-9)
    if form == "centers":
        assert figures["max_radius"] == pytest.approx(published["radius"].max())
