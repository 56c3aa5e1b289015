"""Bundled data (with attribution) and synthetic data generators.

``load_*`` returns bundled real data; ``make_*`` returns synthetic data.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

import numpy as np
import pandas as pd

from ..data.hierarchy import Hierarchy
from ..data.schema import Hierarchical, Numeric, Schema
from ..io.tables import read_table
from .extracts import ClaimsExtract, write_claims_extract

__all__ = [
    "ADULT_QIS",
    "EIA_COLUMNS",
    "adult_path",
    "adult_hierarchy_path",
    "casc_matrix",
    "ClaimsExtract",
    "write_claims_extract",
    "load_adult",
    "make_census",
    "make_microdata",
    "zip_population_path",
    "load_zip_population",
]

#: The 11 numeric EIA attributes of the microaggregation literature (UTILITYID and the ten
#: revenue / sales columns; with these MDAV k=3 reproduces the published L_SSE 0.48).
EIA_COLUMNS = (
    "UTILITYID",
    "RESREVENUE",
    "RESSALES",
    "COMREVENUE",
    "COMSALES",
    "INDREVENUE",
    "INDSALES",
    "OTHREVENUE",
    "OTHRSALES",
    "TOTREVENUE",
    "TOTSALES",
)

#: The 8 quasi-identifiers usual in the k-anonymity literature for the Adult data.
ADULT_QIS = (
    "age",
    "sex",
    "race",
    "marital-status",
    "education",
    "native-country",
    "workclass",
    "occupation",
)


def zip_population_path() -> Path:
    """Path of the bundled residents per US zip code (33,774 zips with their point, ACS 2022;
    see ``zip/ATTRIBUTION.md``)."""
    return Path(str(files(__package__).joinpath("zip", "us_zip_population.csv")))


def load_zip_population() -> pd.DataFrame:
    """Residents per US zip code: ``zip`` (text, leading zeros kept), ``state``, ``lat``,
    ``lon`` (degrees) and ``population`` (ACS 2022), one row per zip."""
    table = pd.read_csv(zip_population_path(), dtype={"zip": str, "state": str})
    return table


def adult_path() -> Path:
    """Path of the bundled Adult CSV (ARX's copy of UCI Adult, 30,162 records; see ATTRIBUTION)."""
    return Path(str(files(__package__).joinpath("adult", "adult.csv")))


def adult_hierarchy_path(attribute: str) -> Path:
    """Path of ARX's generalization hierarchy for one Adult attribute."""
    path = Path(str(files(__package__).joinpath("adult", f"adult_hierarchy_{attribute}.csv")))
    if not path.is_file():
        msg = f"no bundled Adult hierarchy for {attribute!r}"
        raise KeyError(msg)
    return path


def load_adult(*, age: str = "numeric") -> tuple[pd.DataFrame, Schema]:
    """The Adult data and its usual schema.

    ``age`` is numeric (published as ranges), or with ``age="hierarchy"`` generalized by
    ARX's age hierarchy (``20-39``: every quasi-identifier a hierarchy label, the setting of
    ARX's local recoding); the other 7 quasi-identifiers use ARX's hierarchies;
    ``salary-class`` is sensitive. UCI Adult (CC BY 4.0) via ARX (Apache-2.0).
    """
    if age not in ("numeric", "hierarchy"):
        msg = f"age must be 'numeric' or 'hierarchy', got {age!r}"
        raise ValueError(msg)
    table = read_table(adult_path(), sep=";")
    qis: dict[str, Numeric | Hierarchical] = {"age": Numeric()}
    if age == "hierarchy":
        qis["age"] = Hierarchical(Hierarchy.from_csv(adult_hierarchy_path("age")))
    for name in ADULT_QIS[1:]:
        qis[name] = Hierarchical(Hierarchy.from_csv(adult_hierarchy_path(name)))
    return table, Schema(qis, sensitive=["salary-class"])


def make_microdata(
    n: int = 1000, p: int = 8, *, random_state: int | None = None
) -> tuple[pd.DataFrame, Schema]:
    """Standard Gaussian microdata: ``p`` numeric quasi-identifiers ``x0..``, scaled by std.

    The benchmark setting of the microaggregation literature (and of sdcMicro comparisons).
    """
    rng = np.random.default_rng(random_state)
    table = pd.DataFrame(rng.standard_normal((n, p)), columns=[f"x{j}" for j in range(p)])
    schema = Schema({c: Numeric(scale="std") for c in table.columns})
    return table, schema


def make_census(
    n: int = 100_000, *, random_state: int | None = None
) -> tuple[pd.DataFrame, Schema]:
    """Census-like microdata of ``n`` people, for tests and benchmarks at any scale.

    Each person is an Adult record drawn at random (age moved by up to ±2 years, within
    17–90), living in a zip code drawn by its population (the bundled ACS 2022 table, with
    its ``state``), with an ``income`` drawn around the record's salary class (log-normal,
    under 50,000 for ``<=50K``, above for ``>50K``, in steps of 100). Text columns are
    pandas categoricals, so 10 million rows take about 0.25 GB.

    The schema: ``age`` numeric; ``sex``, ``race``, ``marital-status``, ``education``,
    ``native-country``, ``workclass``, ``occupation`` with ARX's Adult hierarchies; ``zip``
    with a hierarchy of its leading digits (``021**``); ``income`` sensitive; ``state`` is
    not in the schema (not published; a blocking attribute).
    """
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 1:
        msg = f"n must be a positive integer, got {n!r}"
        raise ValueError(msg)
    rng = np.random.default_rng(random_state)
    adult, adult_schema = load_adult()
    pick = rng.integers(0, len(adult), n)
    table = pd.DataFrame(index=pd.RangeIndex(n))
    ages = pd.to_numeric(adult["age"]).to_numpy(dtype=np.int16)
    table["age"] = np.clip(ages[pick] + rng.integers(-2, 3, n), 17, 90).astype(np.int16)
    for name in ADULT_QIS[1:]:
        codes, values = pd.factorize(adult[name])
        table[name] = pd.Categorical.from_codes(codes[pick], values)
    zips = load_zip_population()
    people = zips["population"].to_numpy(dtype=np.float64)
    where = rng.choice(len(zips), size=n, p=people / people.sum())
    for name in ("zip", "state"):
        codes, values = pd.factorize(zips[name])
        table[name] = pd.Categorical.from_codes(codes[where], values)
    rich = (adult["salary-class"].to_numpy() == ">50K")[pick]
    low = np.minimum(rng.lognormal(np.log(28_000), 0.45, n), 49_900)
    high = 50_000 + rng.lognormal(np.log(30_000), 0.8, n)
    table["income"] = (np.round(np.where(rich, high, low), -2)).astype(np.int64)
    zip_tree = Hierarchy.from_prefix(table["zip"].cat.categories)
    qis = dict(adult_schema.quasi_identifiers) | {"zip": Hierarchical(zip_tree)}
    return table, Schema(qis, sensitive=["income"])


def casc_matrix(folder: str | Path, name: str, rows: int | None = None) -> np.ndarray:
    """A CASC reference data set (``census``, ``tarragona`` or ``eia``: not bundled, read
    from ``folder``) as the literature uses it: its numeric attributes (for EIA the 11 of
    :data:`EIA_COLUMNS`), the first ``rows`` records if given, each column standardized to
    zero mean and unit population variance."""
    frame = pd.read_csv(Path(folder) / f"{name}.csv")
    if name == "eia":
        frame = frame[list(EIA_COLUMNS)]
    X = frame.to_numpy(dtype=np.float64)[:rows]
    std = X.std(axis=0)
    return (X - X.mean(axis=0)) / np.where(std > 0, std, 1.0)
