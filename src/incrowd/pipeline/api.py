""":func:`anonymize`, the Python API of the whole pipeline: its keywords are the job file's
keys (:class:`~.settings.Settings`), the columns' types are inferred as the command line
infers them (:meth:`Schema.infer <incrowd.data.schema.Schema.infer>`, on pandas and polars
tables alike), the run is :func:`~.run.anonymize_with`'s, and its warnings the command
line's (:func:`~.cautions.run_warnings`), each one :class:`~incrowd.IncrowdWarning` line
naming the keyword that overrides its guess."""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..base import Algorithm
from ..data.columns import MissingPolicy
from ..data.schema import Schema
from ..errors import IncrowdWarning, ParameterError
from ..io.tables import as_dataframe
from ..privacy.models import Diversity
from ..release import Release
from ..space.metric_space import MetricSpace
from .cautions import run_warnings
from .run import anonymize_with
from .settings import Settings

__all__ = ["anonymize"]


def anonymize(
    table: Any,
    schema: Schema | None = None,
    k: int | None = None,
    *,
    qi: Sequence[str] | None = None,
    sensitive: Sequence[str] = (),
    insensitive: Sequence[str] = (),
    identifiers: Sequence[str] = (),
    hierarchies: Mapping[str, Any] | None = None,
    categorical: Sequence[str] = (),
    numeric: Sequence[str] = (),
    code: Sequence[str] = (),
    date: Sequence[str] = (),
    thousands: str | None = None,
    decimal: str | None = None,
    date_format: str | None = None,
    min_level: Mapping[str, int] | None = None,
    max_level: Mapping[str, int] | None = None,
    method: str | None = None,
    release: str = "generalized",
    params: Mapping[str, Any] | None = None,
    seed: int | None = None,
    missing: MissingPolicy = "keep",
    center: str | None = None,
    norm: int | None = None,
    generalize: str = "levels",
    suppression_limit: float | None = None,
    suppressed: str | None = None,
    diversity: Diversity | None = None,
    on_stage: Callable[[str], None] | None = None,
    on_progress: Callable[[int, int], None] | None = None,
    on_fitted: Callable[[Algorithm, MetricSpace], None] | None = None,
) -> Release:
    """Anonymize ``table`` so every record hides in a crowd of at least ``k``, and publish it.

    The columns' roles are a :class:`~incrowd.data.schema.Schema`, or — without one — the
    quasi-identifiers ``qi`` with ``sensitive``, ``insensitive``, ``identifiers`` and
    ``hierarchies`` (a :class:`~incrowd.data.hierarchy.Hierarchy` or a spelling such as
    ``"prefix"`` or ``"intervals:0-17,18-64,65-120"`` per column), from which
    :meth:`Schema.infer <incrowd.data.schema.Schema.infer>` reads each column's type as the
    command line does (a column of integer codes 1-9 is a category, a zip read as a float a
    code with its leading zeros back; each guess one warning). ``categorical``, ``numeric``,
    ``code`` and ``date`` declare quasi-identifiers' types, ``thousands`` / ``decimal`` and
    ``date_format`` how numbers and dates are written (the job file's keys); ``min_level``
    / ``max_level`` bound each quasi-identifier's generalization level. ``missing``
    (``"keep"``, ``"drop"`` or ``"error"``) is what a missing quasi-identifier becomes.
    ``method`` defaults to the release form's :data:`~.run.DEFAULT_METHODS` entry. A column
    in no list is not published; one published as it is (sensitive or insensitive) that
    looks like an identifier or free text is warned about (:mod:`~.cautions`).

    The release is checked by :func:`incrowd.verify` (which reads only the published table) before
    it is returned, its table of the kind ``table`` was (pandas, or polars); its ``metadata`` holds
    the provenance, the record counts and the information loss figures. ``seed`` fixes the row
    shuffle (and any randomness of the method); when None a seed is drawn and recorded, so every
    release can be reproduced. ``norm`` (1 or 2) chooses the distance of the methods that work in
    any norm (the radius methods); the others measure their own objective. ``generalize`` chooses
    what a generalized release publishes for categorical attributes: hierarchy labels (``"levels"``)
    or the set of values present (``"sets"``); a method that optimizes for the published form
    (``forest``) is told which. ``diversity`` (:class:`~incrowd.privacy.models.Diversity`) asks
    every crowd to hold l-diversity and/or t-closeness on every sensitive column: crowds that break
    it are merged with neighbouring crowds (:func:`incrowd.postprocess.enforce`); the certified
    ratio stays a proven bound, the a-priori approximation ratio is dropped. ``center`` chooses what
    a centers release publishes for a crowd (``"centroid"``, the default, or ``"medoid"``); given
    with another release form, it is an error. ``suppression_limit`` is the largest share of records
    a method that suppresses whole classes (``global-recoding``) may suppress; ``suppressed``
    whether suppressed records are published as a row of ``*`` in every quasi-identifier
    (``"star"``, the default of global recoding, which keeps them none or at least k) or left out
    (``"drop"``, the others' default). ``on_stage(name)`` is called as each stage starts
    (:data:`~incrowd.pipeline.PIPELINE_STAGES` at most), ``on_progress(done, total)`` as the
    crowds form (counted by the method, throttled), ``on_fitted(method, space)`` once it is
    fitted (for callers that need more than the release: the blockwise run's certificate).
    """
    settings = Settings.of_run(
        k, method=method, release=release, params=params, seed=seed, missing=missing,
        center=center, norm=norm, generalize=generalize, suppression_limit=suppression_limit,
        suppressed=suppressed, diversity=diversity, thousands=thousands, decimal=decimal,
        date_format=date_format, min_level=dict(min_level or {}),
        max_level=dict(max_level or {}),
    )  # fmt: skip
    if k is None:
        msg = "anonymize needs k, the smallest crowd (k=5)"
        raise ParameterError(msg)
    frame = as_dataframe(table)
    kinds = {"categorical": categorical, "numeric": numeric, "code": code, "date": date}
    if schema is None:
        if not qi:
            msg = "anonymize needs a schema, or the quasi-identifiers: qi=['age', 'zip', ...]"
            raise ParameterError(msg)
        schema = Schema.infer(
            frame, list(qi), sensitive=sensitive, insensitive=insensitive,
            identifiers=identifiers, hierarchies=hierarchies, missing=missing,
            thousands=thousands, decimal=decimal, date_format=date_format, **kinds,
        )  # fmt: skip
    elif qi is not None or hierarchies is not None or any(kinds.values()):
        given = [name for name, value in (("qi", qi), ("hierarchies", hierarchies), *kinds.items())
                 if value]  # fmt: skip
        msg = f"give either a schema or qi= (with {'=, '.join(given) or 'hierarchies'}=), not both"
        raise ParameterError(msg)
    published = anonymize_with(frame, schema, settings, on_stage=on_stage,
                               on_progress=on_progress, on_fitted=on_fitted)  # fmt: skip
    for line in run_warnings(published, frame, schema):
        warnings.warn(line, IncrowdWarning, stacklevel=2)
    if type(table).__module__.split(".")[0] == "polars":  # the kind of frame it was given
        import polars

        published = dataclasses.replace(published, table=polars.from_pandas(published.table))
    return published
