"""An independent NCP checker: scores a published table as ``ncp-definition.md`` defines it.

It shares no code with incrowd's scorer: it reads the input table, the published table and
the hierarchy files (ARX CSV: ``;``-separated, no header) with pandas and the csv module,
and nothing else. The benchmark (``adult.py``) scores every release with it, and
``tests/measures/test_ncp_definition.py`` checks that the NCP incrowd writes into a release's
metadata equals it.

Per published cell (input of ``n`` records, quasi-identifiers ``Q``):

- a numeric attribute (or a label that reads as a range ``lo-hi`` of an attribute whose
  values are all numbers): ``(min(hi, max) − max(lo, min)) / (max − min)`` over the input;
  a single value 0; ``*`` 1;
- a hierarchy label: ``(input values under it − 1) / (input values − 1)`` (of a numeric
  attribute, a label that names no interval: the span of the input values under it);
- a value set ``{a|b}``: ``(input values its members cover − 1) / (input values − 1)``;

and a record not published costs 1 per cell; NCP = the sum over ``n · |Q|`` cells.

    python benchmarks/ncp_checker.py INPUT.csv RELEASE.csv --qi a,b --hierarchy a=FILE ...
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

import pandas as pd


def read_hierarchy(path: str | Path) -> list[list[str]]:
    with open(path, newline="", encoding="utf-8") as fh:
        return [row for row in csv.reader(fh, delimiter=";") if row]


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _interval(text: str) -> tuple[float, float] | None:
    value = _number(text)
    if value is not None:
        return value, value
    for i in range(1, len(text)):
        if text[i] == "-":
            lo, hi = _number(text[:i]), _number(text[i + 1 :])
            if lo is not None and hi is not None and lo <= hi:
                return lo, hi
    return None


def _key(value: object) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


class Attribute:
    """What one quasi-identifier's cells cost."""

    def __init__(self, values: pd.Series, hierarchy: list[list[str]] | None,
                 labels: bool = False) -> None:  # fmt: skip
        self.present = {_key(v) for v in values}
        numbers = [_number(v) for v in self.present]
        # codes (zip codes) are labels whatever their digits
        self.numeric = not labels and all(x is not None for x in numbers)
        if self.numeric:
            self.lo, self.hi = min(numbers), max(numbers)  # type: ignore[type-var]
        self.under: dict[str, set[str]] = {}
        for row in hierarchy or []:
            if row[0] in self.present:
                for label in row:
                    self.under.setdefault(label, set()).add(row[0])
        for value in self.present:
            self.under.setdefault(value, set()).add(value)

    def cost(self, cell: str) -> float:
        if cell == "*":
            return 1.0
        if self.numeric:
            bounds = _interval(cell)
            if bounds is not None:
                width = min(bounds[1], self.hi) - max(bounds[0], self.lo)
                return max(width, 0.0) / (self.hi - self.lo) if self.hi > self.lo else 0.0
        if cell.startswith("{") and cell.endswith("}"):
            covered = set().union(*(self.under[m] for m in cell[1:-1].split("|")))
        else:
            covered = self.under[cell]
            if self.numeric:  # a label naming no interval stands for the values under it
                values = [float(v) for v in covered]
                return (max(values) - min(values)) / (self.hi - self.lo)
        total = len(self.present)
        return (len(covered) - 1) / (total - 1) if total > 1 else 0.0


def ncp(
    original: pd.DataFrame,
    published: pd.DataFrame,
    qis: list[str],
    hierarchies: dict[str, list[list[str]]],
    labels: frozenset[str] = frozenset(),
) -> float:
    """NCP of ``published`` as a release of ``original`` (``labels``: attributes scored as
    labels, such as codes, whatever their digits)."""
    penalty = float((len(original) - len(published)) * len(qis))
    for q in qis:
        attribute = Attribute(original[q], hierarchies.get(q), q in labels)
        counts = published[q].astype(str).value_counts()
        penalty += sum(attribute.cost(cell) * n for cell, n in counts.items())
    return penalty / (len(original) * len(qis))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("input")
    parser.add_argument("release")
    parser.add_argument("--qi", required=True)
    parser.add_argument("--hierarchy", action="append", default=[])
    parser.add_argument("--sep", default=";")
    args = parser.parse_args()
    original = pd.read_csv(args.input, sep=args.sep, dtype=str, keep_default_na=False)
    published = pd.read_csv(args.release, dtype=str, keep_default_na=False)
    hierarchies = {}
    for item in args.hierarchy:
        name, path = item.split("=", 1)
        hierarchies[name] = read_hierarchy(path)
    print(f"{ncp(original, published, args.qi.split(','), hierarchies):.6f}")


if __name__ == "__main__":
    main()
