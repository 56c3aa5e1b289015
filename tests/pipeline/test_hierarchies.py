"""The hierarchy builders (regions, label classes, boxes): valid ARX files by incrowd's own
validation, nested levels, every class at least k, what each level reports, and the
command line's files and errors."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pandas as pd
import pytest

from incrowd import Hierarchy, Schema, anonymize
from incrowd.algorithms.single_attribute.planar_regions import delaunay_edges
from incrowd.cli.app import run
from incrowd.data.schema import Hierarchical
from incrowd.errors import InputError, OutputError
from incrowd.hierarchies import label_hierarchy, rectangle_hierarchy, region_hierarchy


def places(n: int = 400, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "zip": [f"{i:05d}" for i in range(n)],
            "lon": rng.uniform(-120, -70, n).round(4),
            "lat": rng.uniform(25, 48, n).round(4),
            "population": rng.integers(0, 3000, n),
        }
    )


def check_levels(built, weights: np.ndarray, ks: list[int]) -> Hierarchy:
    hierarchy = built.hierarchy
    rows = np.array(built.rows, dtype=object)
    assert [level.k for level in built.levels] == sorted(ks)
    for j, level in enumerate(built.levels, start=1):
        loads = pd.Series(weights).groupby(rows[:, j]).sum()
        assert (loads >= level.k).all(), "every class holds k records"
        assert loads.max() == level.largest and len(loads) == level.n_classes
        assert level.lower_bound <= level.largest
        if level.bound is not None:
            assert level.largest <= level.bound
        if j > 1:  # nested: each class of the level below lies in one class of this level
            assert (pd.Series(rows[:, j]).groupby(rows[:, j - 1]).nunique() == 1).all()
    return hierarchy


def test_regions_are_connected_nested_and_valid():
    table = places()
    ks = [20_000, 5_000, 60_000]
    built = region_hierarchy(table, value="zip", lon="lon", lat="lat", k=ks, count="population")
    check_levels(built, table["population"].to_numpy(), ks)
    edges = delaunay_edges(table[["lon", "lat"]].to_numpy())
    rows = np.array(built.rows, dtype=object)
    for j in range(1, rows.shape[1]):
        for label in set(rows[:, j]):
            nodes = np.flatnonzero(rows[:, j] == label)
            g = nx.Graph()
            g.add_nodes_from(nodes.tolist())
            g.add_edges_from(edges[np.isin(edges, nodes).all(axis=1)].tolist())
            assert nx.is_connected(g), f"region {label} is connected"


def test_labels_are_nested_classes_and_counted_from_rows_without_a_count():
    rng = np.random.default_rng(1)
    names = rng.choice([f"n{i}" for i in range(60)], size=3000, p=np.r_[[0.2], [0.8 / 59] * 59])
    table = pd.DataFrame({"name": names})
    for algorithm in ("fold", "spread", "theorem9"):
        built = label_hierarchy(table, value="name", k=[40, 200], algorithm=algorithm)
        counts = table["name"].value_counts().reindex([r[0] for r in built.rows]).to_numpy()
        check_levels(built, counts, [40, 200])


def test_boxes_are_nested_disjoint_and_within_the_bound():
    table = places(600, seed=2)
    built = rectangle_hierarchy(table, value="zip", lon="lon", lat="lat", k=[3_000, 30_000],
                                count="population")  # fmt: skip
    check_levels(built, table["population"].to_numpy(), [3_000, 30_000])
    points = table[["lon", "lat"]].to_numpy()
    rows = np.array(built.rows, dtype=object)
    for j in (1, 2):
        labels = pd.factorize(rows[:, j])[0]
        for c in range(labels.max() + 1):
            mine = points[labels == c]
            lo, hi = mine.min(axis=0), mine.max(axis=0)
            inside = np.all((points >= lo) & (points <= hi), axis=1)
            assert (labels[inside] == c).all(), "boxes of one level are disjoint"


def test_written_file_is_an_arx_hierarchy_that_anonymize_uses(tmp_path):
    table = places(300, seed=3)
    built = region_hierarchy(table, value="zip", lon="lon", lat="lat", k=[2_000, 10_000],
                             count="population")  # fmt: skip
    path = built.write(tmp_path / "zip.csv")
    read = Hierarchy.from_csv(path)
    assert read.values == built.hierarchy.values and read.height == built.hierarchy.height
    with pytest.raises(OutputError, match="never overwrites"):
        built.write(path)
    rng = np.random.default_rng(0)
    people = pd.DataFrame({"zip": rng.choice(table["zip"], 500), "x": rng.integers(0, 9, 500)})
    release = anonymize(people, Schema({"zip": Hierarchical(read)}, sensitive=["x"]), 5,
                        method="forest", seed=1)  # fmt: skip
    assert release.metadata["k_achieved"] >= 5


def test_inconsistent_or_missing_input_is_a_clear_error():
    table = places(20)
    twice = pd.concat([table, table.assign(lon=table["lon"] + 1).iloc[:1]])
    with pytest.raises(InputError, match="two different points"):
        region_hierarchy(twice, value="zip", lon="lon", lat="lat", k=5)
    with pytest.raises(InputError, match="no column 'place'"):
        region_hierarchy(table, value="place", lon="lon", lat="lat", k=5)
    bad = table.astype({"population": object})
    bad.loc[3, "population"] = "many"
    with pytest.raises(InputError, match="not a number"):
        label_hierarchy(bad, value="zip", count="population", k=5)


def test_cli_writes_the_file_and_refuses_to_overwrite(tmp_path, capsys):
    source = tmp_path / "zips.csv"
    places(200).to_csv(source, index=False)
    out = tmp_path / "regions.csv"
    args = ["hierarchy", "regions", str(source), "--value", "zip", "--lat", "lat", "--lon",
            "lon", "--count", "population", "--k", "5000,20000", "--out", str(out)]  # fmt: skip
    assert run(args) == 0
    assert Hierarchy.from_csv(out).height >= 2
    before = out.read_bytes()
    assert run(args) == 2
    assert out.read_bytes() == before
    assert "never overwrites" in capsys.readouterr().err
    bins = tmp_path / "bins.csv"
    assert run(["hierarchy", "bins", str(source), "--value", "zip", "--count", "population",
                "--k", "4000", "--algorithm", "spread", "--order", "random", "--seed", "3",
                "--out", str(bins)]) == 0  # fmt: skip
    assert run(["hierarchy", "bins", str(source), "--value", "zip", "--k", "x",
                "--out", str(tmp_path / "no.csv")]) == 2  # fmt: skip
    assert (
        run(
            [
                "hierarchy",
                "bins",
                str(source),
                "--value",
                "zip",
                "--k",
                "10000",
                "--out",
                str(tmp_path / "no.csv"),
            ]
        )
        == 2
    )  # 200 records: infeasible
    assert not (tmp_path / "no.csv").exists()
    boxes = tmp_path / "boxes.csv"
    assert run(["hierarchy", "rectangles", str(source), "--value", "zip", "--lat", "lat",
                "--lon", "lon", "--k", "20", "--out", str(boxes)]) == 0  # fmt: skip


def test_cli_publishes_rectangles_as_ranges(tmp_path):
    rng = np.random.default_rng(4)
    people = pd.DataFrame(
        {
            "lat": rng.uniform(40, 41, 300).round(5),
            "lon": rng.uniform(70, 71, 300).round(5),
            "income": rng.integers(0, 100, 300),
        }  # fmt: skip
    )
    source, out = tmp_path / "people.csv", tmp_path / "kd.csv"
    people.to_csv(source, index=False)
    assert run(["anonymize", str(source), "--qi", "lat,lon", "--sensitive", "income",
                "--method", "kd-rectangles", "--k", "10", "--release", "generalized",
                "--out", str(out), "--quiet"]) == 0  # fmt: skip
    published = pd.read_csv(out, dtype=str)
    lat = published["lat"].str.split("-", expand=True).astype(float)
    assert (lat[0] <= lat[1]).all() and published.groupby(["lat", "lon"]).size().min() >= 10
    assert run(["verify", str(out), "--qi", "lat,lon", "--k", "10"]) == 0


def test_regions_follow_a_given_adjacency(tmp_path):
    table = pd.DataFrame({"zip": ["c", "a", "b", "d"], "people": [7, 6, 6, 6]})
    star = pd.DataFrame({"from": ["c", "c", "c"], "to": ["a", "b", "d"]})
    built = region_hierarchy(table, value="zip", k=7, count="people", adjacency=star)
    assert built.levels[0].largest == 25 == built.levels[0].bound  # kappa + 3(k - 1)
    with pytest.raises(InputError, match="'x', which is not a value"):
        region_hierarchy(table, value="zip", k=7, count="people", adjacency=[("c", "x")])
    with pytest.raises(InputError, match="longitude and latitude"):
        region_hierarchy(table, value="zip", k=7, count="people")
    source, pairs, out = tmp_path / "t.csv", tmp_path / "adj.csv", tmp_path / "h.csv"
    table.to_csv(source, index=False)
    star.to_csv(pairs, index=False)
    args = ["hierarchy", "regions", str(source), "--value", "zip", "--count", "people",
            "--k", "7", "--adjacency", str(pairs), "--out", str(out)]  # fmt: skip
    assert run(args) == 0 and Hierarchy.from_csv(out).height >= 1
