"""Prefix masking of codes of several lengths (issue 57, item 6): ICD-10 codes of 3 to 7
characters (``C34``, ``C34.9``, ``C34.90``, ``J45.901``) masked from the right, aligned left.

Every level is a partition of the values nested in the next, the top is ``*``, a published
label means one set of values wherever it occurs (so NCP is a function of the published
cell), codes meet at the level of their common prefix, and NCP lies in [0, 1] and never
falls up a value's path."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from incrowd import Hierarchy, HierarchyError
from incrowd.data.columns import HierarchicalColumn
from incrowd.data.hierarchy_specs import build_hierarchy
from incrowd.data.ncp import label_penalties
from incrowd.data.schema import Hierarchical

#: Codes of 3 to 7 characters over a small alphabet, so that prefixes are shared.
CODES = st.lists(st.text("CJ34.9", min_size=3, max_size=7), min_size=1, max_size=40)


def path_of(h: Hierarchy, value: str) -> list[str]:
    row = h.encode([value])[0]
    return [h.label(j, row[j]) for j in range(h.height + 1)]


def common_prefix(a: str, b: str) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


def test_icd10_codes_of_several_lengths_are_masked_from_the_right():
    codes = ["C34", "C34.9", "C34.90", "J45.901", "J45", "C34.1"]
    h = build_hierarchy("prefix", pd.Series(codes), "icd10")
    assert h.height == 7 and h.labels[-1] == ("*",)
    assert path_of(h, "C34.90") == ["C34.90", "C34.90*", "C34.9**", "C34.***", "C34****",
                                    "C3*****", "C******", "*"]  # fmt: skip
    # a code shorter than the kept width is itself until its own characters are masked
    assert path_of(h, "C34.9")[:3] == ["C34.9", "C34.9", "C34.9**"]
    assert path_of(h, "C34")[:5] == ["C34", "C34", "C34", "C34", "C34****"]
    assert path_of(h, "J45.901")[1] == "J45.90*"


@given(CODES)
def test_every_level_nests_and_a_label_means_one_set_of_values(values):
    h = Hierarchy.from_prefix(values)
    distinct = sorted(set(values))
    width = max(map(len, distinct))
    assert h.height == width and h.labels[-1] == ("*",)
    paths = {v: path_of(h, v) for v in distinct}
    under: dict[str, set[str]] = {}
    for level in range(h.height + 1):
        for v in distinct:
            under.setdefault(paths[v][level], set()).add(v)
        # nested: one parent per node of this level
        parent: dict[str, str] = {}
        if level < h.height:
            for v in distinct:
                assert parent.setdefault(paths[v][level], paths[v][level + 1]) == paths[
                    v][level + 1]  # fmt: skip
    for label, members in under.items():  # one meaning wherever the label occurs
        if label == "*":
            assert members == set(distinct)
        elif label in distinct and "*" not in label:
            assert members == {label}
        else:
            kept = label.rstrip("*")
            assert members == {v for v in distinct if v.startswith(kept)}, label
    for a in distinct:  # codes sharing a prefix meet at its level, and not below
        for b in distinct:
            meet = next(j for j in range(h.height + 1) if paths[a][j] == paths[b][j])
            assert meet == (0 if a == b else width - common_prefix(a, b))


@given(CODES)
def test_ncp_of_a_prefix_hierarchy_is_in_0_1_and_never_falls_up_a_path(values):
    h = Hierarchy.from_prefix(values)
    column = HierarchicalColumn("icd10", Hierarchical(h), h.encode(values))
    costs = label_penalties(column)
    assert all(np.all((c >= 0) & (c <= 1)) for c in costs)
    for v in set(values):
        row = h.encode([v])[0]
        path = [costs[j][row[j]] for j in range(h.height + 1)]
        assert path[0] == 0 and path == sorted(path)
        assert path[-1] == (1.0 if len(set(values)) > 1 else 0.0)


def test_a_code_holding_the_mask_character_is_refused():
    with pytest.raises(HierarchyError, match=r"'C3\*' holds '\*'"):
        Hierarchy.from_prefix(["C34", "C3*"])


def test_anonymize_masks_codes_of_several_lengths_from_python():
    import incrowd

    codes = ["C34", "C34.9", "C34.90", "C34.91", "J45", "J45.9", "J45.901", "J45.909"] * 3
    table = pd.DataFrame({"icd10": codes, "group": list("abc") * 8})
    release = incrowd.anonymize(table, qi=["icd10"], sensitive=["group"], k=3, seed=0,
                                hierarchies={"icd10": "prefix"})  # fmt: skip
    assert incrowd.verify(release, ["icd10"], 3).ok
    published = set(release.table["icd10"])
    assert published <= {*codes, "C34.9**", "C34****", "J45.90*", "J45****", "*"}
    assert published != {"*"}
