"""The app's Open reads a table as ``incrowd inspect`` does (issue 57 item 2, issue 58 item 3):
the common missing tokens are missing, a column no type reads (lists, bytes, an infinite
number, a slip of text among numbers) is shown with its problem in one warning line, never
a 500."""

from __future__ import annotations

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq


def opened(client, path):
    response = client.get("/api/open", params={"path": path})
    assert response.status_code == 200, response.text
    view = response.json()
    return {c["column"]: c for c in view["columns"]}, view["warnings"]


def test_a_parquet_file_of_lists_structs_and_bytes_opens(client, local):
    pq.write_table(pa.table({
        "age": [30, 31, 32],
        "tags": pa.array([["a", "b"], ["c"], []], pa.list_(pa.string())),
        "place": pa.array([{"x": 1}, {"x": 2}, {"x": 3}]),
        "photo": pa.array([b"\x89", b"\x00", b"\x01"], pa.binary()),
        "score": [float("inf"), 1.0, 2.0],
    }), local.folders.writable[0] / "nested.parquet")  # fmt: skip
    columns, warnings = opened(client, "nested.parquet")
    assert columns["age"]["type"] == "number" and not columns["age"]["warnings"]
    for name, kind in (("tags", "list<string>"), ("place", "struct<x: int64>"),
                       ("photo", "binary")):  # fmt: skip
        assert columns[name]["role"] == "withheld", columns[name]
        said = [w for w in warnings if f"column '{name}' holds {kind} values" in w]
        assert len(said) == 1, warnings
    assert any("column 'score' row 1 holds inf: not a finite number" in w for w in warnings)


def test_a_table_with_missing_tokens_opens_with_its_types(client, local):
    ages = [str(20 + i) for i in range(30)]
    ages[4], ages[9], ages[11] = "NA", "unknown", "unknown"
    pd.DataFrame({"age": ages, "sex": ["F", "M"] * 15}).to_csv(
        local.folders.writable[0] / "ages.csv", index=False)  # fmt: skip
    columns, warnings = opened(client, "ages.csv")
    assert columns["age"]["type"] == "number" and columns["age"]["missing"] == 1
