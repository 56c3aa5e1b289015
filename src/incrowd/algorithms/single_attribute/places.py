"""Where the records' places lie: one point per record for the planar regions.

:func:`plane_coordinates` takes the two numeric quasi-identifiers as given (longitude and
latitude), or looks the record's place (its one categorical quasi-identifier, a zip code)
up in a places table (:func:`places_table`; ``"us-zip"``, the bundled table). Time
:math:`O(n)` after reading the table.
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd

from ...data.columns import CategoricalColumn, NumericColumn
from ...errors import InputError, ParameterError
from ...io.tables import read_table
from ...space.metric_space import MetricSpace

__all__ = ["US_ZIP", "places_table", "plane_coordinates"]

#: ``places="us-zip"``: the bundled residents-per-zip table (zip, lat, lon).
US_ZIP = "us-zip"


def places_table(places: object) -> dict[str, tuple[float, float]]:
    """Value → (longitude, latitude) from a places table: ``"us-zip"`` (bundled), a CSV path,
    or a DataFrame; its first column names the place, ``lon`` and ``lat`` give its point."""
    if isinstance(places, pd.DataFrame):
        frame = places
    elif places == US_ZIP:
        from ...datasets import load_zip_population

        frame = load_zip_population()
    elif isinstance(places, str | os.PathLike):
        frame = read_table(places)
    else:
        msg = f"places must be {US_ZIP!r}, a CSV path or a DataFrame, got {places!r}"
        raise ParameterError(msg)
    missing = [c for c in ("lon", "lat") if c not in frame.columns]
    if missing:
        msg = f"the places table needs columns 'lon' and 'lat' (missing: {', '.join(missing)})"
        raise InputError(msg)
    lon = pd.to_numeric(frame["lon"], errors="coerce").to_numpy(dtype=np.float64)
    lat = pd.to_numeric(frame["lat"], errors="coerce").to_numpy(dtype=np.float64)
    keys = frame.iloc[:, 0].astype(str).to_numpy()
    return {key: (x, y) for key, x, y in zip(keys, lon, lat, strict=True)
            if np.isfinite(x) and np.isfinite(y)}  # fmt: skip


def plane_coordinates(space: MetricSpace, places: object = US_ZIP) -> np.ndarray:
    """One point per record (n × 2): the two numeric quasi-identifiers as given (longitude
    and latitude, not rescaled), or the point of the record's place (its one categorical
    quasi-identifier, a zip code) in the ``places`` table."""
    if space.columns:
        numeric = [c for c in space.columns if isinstance(c, NumericColumn)]
        if len(space.columns) == 2 and len(numeric) == 2:
            return np.column_stack([c.values for c in numeric]).astype(np.float64)
        if len(space.columns) == 1 and isinstance(space.columns[0], CategoricalColumn):
            column = space.columns[0]
            lookup = places_table(places)
            unknown = next((v for v in column.categories if v not in lookup), None)
            if unknown is not None:
                msg = (
                    f"value {unknown!r} of {column.name!r} is not a place of the places table "
                    f"({places if isinstance(places, str) else 'given'}); give the table of "
                    "places (value, lon, lat) with places=..."
                )
                raise InputError(msg)
            points = np.array([lookup[v] for v in column.categories], dtype=np.float64)
            return points[column.codes]
        names = ", ".join(c.name for c in space.columns)
        msg = (
            "planar regions need a place per record: two numeric quasi-identifiers "
            f"(longitude and latitude) or one categorical one (a zip code); got {names}"
        )
        raise InputError(msg)
    if space.geometry.numeric.shape[1] != 2 or space.geometry.codes.shape[1]:
        msg = f"planar regions need points with two coordinates, got {space.dim}"
        raise InputError(msg)
    return np.asarray(space.geometry.numeric, dtype=np.float64)
