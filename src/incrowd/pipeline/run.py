"""The whole publication pipeline in one call: table → crowds → release → verified release
(:func:`anonymize_with`; the Python API over it, :func:`incrowd.anonymize`, is :mod:`.api`)."""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from .. import __version__
from .._runtime import reporting
from ..algorithms import METHODS
from ..algorithms.catalogue import check_method
from ..base import Algorithm
from ..costs import SSE, MaxRadius, certified_ratio, l_sse
from ..data.columns import handle_missing
from ..data.schema import Schema
from ..errors import InfeasibleError, ParameterError, option
from ..io.tables import as_dataframe
from ..measures.loss import ncp_loss, published_discernibility, without_suppressed_rows
from ..params import check_k
from ..partition import Partition
from ..privacy.models import builds_for, sensitive_codes
from ..privacy.verify import verify
from ..release import (
    Release,
    release_centers,
    release_generalized,
    release_microaggregated,
)
from ..space.metric_space import MetricSpace
from . import PIPELINE_STAGES
from .full_domain import (
    diversity_check,
    refuse_nothing_published,
    suppressed_form,
    with_hierarchies,
)
from .homogeneity import homogeneous_classes
from .levels import check_ceilings, level_parameters, published_floors
from .record import input_record, now, recorded_parameters, schema_record
from .settings import Settings

__all__ = ["DEFAULT_METHODS", "PIPELINE_STAGES", "anonymize_with", "make_algorithm",
           "method_class"]  # fmt: skip

#: Neighbours per record searched for the crowds next to one that breaks l / t, and for the
#: moves that polish the repaired crowds. Measured on Adult (k = 5, l = 2): 12 / 16 / 20 /
#: 24 / 32 give NCP 0.1016 / 0.0980 / 0.0965 / 0.0934 / 0.0916 with `forest` in 3.3 / 4.0 /
#: 4.0 / 4.7 / 5.6 s; 20 keeps the whole call within issue 14's 5 s.
MERGE_NEIGHBOURS = 20
#: What the metadata says of a release whose crowds were merged for l-diversity.
DIVERSITY_NOTE = (
    "crowds breaking the constraint were merged with neighbouring crowds; the lower bound is "
    "on the k-anonymity optimum, which is at most the constrained optimum, so the certified "
    "ratio is an upper bound against the constrained optimum; the method's a-priori "
    "approximation ratio does not apply"
)


#: The method of each release form when none is named: the least loss measured
#: (``benchmarks/adult.py`` for generalized releases, ``benchmarks/mdav.py`` for the others).
DEFAULT_METHODS = {
    "generalized": "local-recoding",
    "microaggregated": "mdav",
    "centers": "mdav",
}


def method_class(method: str) -> type[Algorithm]:
    """The registered class of ``method``."""
    check_method(method)
    return METHODS[method]


def make_algorithm(
    method: str, k: int, params: Mapping[str, Any] | None = None, **fixed: Any
) -> Algorithm:
    """Instantiate a registered method with ``k`` and extra keyword parameters (``fixed``:
    those the run sets, which override ``params``)."""
    cls = method_class(method)
    try:
        return cls(k=k, **(dict(params or {}) | fixed))
    except TypeError as exc:
        msg = f"method {method!r} does not take those parameters ({exc})"
        raise ParameterError(msg) from exc


def _fixed(cls: type[Algorithm], settings: Settings, seed: int, schema: Schema) -> dict[str, Any]:
    """The parameters a run gives the method, by its tags: the published form, the seed,
    and ``l`` when it builds l-diverse crowds itself."""
    diversity = settings.diversity
    fixed: dict[str, Any] = {}
    if cls.tags.generalized:
        fixed["generalize"] = settings.generalize
    if cls.tags.seeded:
        fixed["random_state"] = seed
    n_sensitive = len(schema.sensitive) if diversity is not None else 0
    if "l" in cls.parameters and builds_for(diversity, n_sensitive):
        assert diversity is not None and diversity.l is not None
        fixed["l"] = int(diversity.l)
    # a setting of suppression given a method that suppresses nothing would have no effect
    for name, applies in _SUPPRESSION_SETTINGS.items():
        if getattr(settings, name) is not None and not applies(cls):
            methods = ", ".join(m for m, c in METHODS.items() if applies(c))
            msg = f"{option(name)} applies to the methods that suppress records ({methods})"
            raise ParameterError(msg)
    if "star_class" in cls.parameters:  # rows of * must then form a class of k
        fixed["star_class"] = suppressed_form(settings, cls) == "star"
    if settings.suppression_limit is not None:
        fixed["suppression_limit"] = float(settings.suppression_limit)
    return fixed | level_parameters(cls, settings)


#: Each setting of suppression, and the methods it applies to.
_SUPPRESSION_SETTINGS: dict[str, Callable[[type[Algorithm]], bool]] = {
    "suppression_limit": lambda cls: "suppression_limit" in cls.parameters,
    "suppressed": lambda cls: cls.tags.may_suppress,
}


def anonymize_with(
    table: Any,
    schema: Schema,
    settings: Settings,
    *,
    on_stage: Callable[[str], None] | None = None,
    on_progress: Callable[[int, int], None] | None = None,
    on_fitted: Callable[[Algorithm, MetricSpace], None] | None = None,
) -> Release:
    """:func:`anonymize` with its settings as one :class:`Settings` (each checked when it
    was made; here only what depends on the data or on the method)."""
    start = time.perf_counter()
    stage = on_stage or (lambda _name: None)
    settings.check_run()
    frame = as_dataframe(table)
    schema.check_columns(frame.columns)
    k = check_k(settings.k, len(frame))
    release, generalize, norm = settings.release, settings.generalize, settings.norm
    diversity = settings.diversity
    center = settings.center or "centroid"
    method = DEFAULT_METHODS[release] if settings.method is None else settings.method
    seed = secrets.randbits(31) if settings.seed is None else int(settings.seed)
    fixed = _fixed(method_class(method), settings, seed, schema)
    algorithm = make_algorithm(method, k, settings.params, **fixed)
    tags = algorithm.tags
    if norm is not None and not tags.any_norm and norm != tags.norm:
        msg = (
            f"method {method!r} measures its own objective (its guarantee is stated in L"
            f"{tags.norm}); norm={norm} applies to the radius methods"
        )
        raise ParameterError(msg)

    stage("checking the data")
    kept, n_dropped = handle_missing(frame, schema, settings.missing)  # type: ignore[arg-type]
    if len(kept) < k:
        msg = (
            f"after leaving out {n_dropped} record(s) with missing values, {len(kept)} remain: "
            f"too few for crowds of {k}"
        )
        raise InfeasibleError(msg)
    norm = tags.norm if norm is None else norm
    if tags.full_domain:  # one level per attribute: numbers need a hierarchy
        schema = with_hierarchies(kept, schema, method)
    space = MetricSpace.from_table(kept, schema, norm=norm)  # type: ignore[arg-type]

    constrained = diversity is not None and diversity.active
    if constrained and not schema.sensitive:
        msg = f"l-diversity and t-closeness need sensitive columns ({option('sensitive')})"
        raise ParameterError(msg)

    if constrained and space.n > 1:
        # the repair reads longer neighbour lists than most methods: build them once, here,
        # and the method reads its own from them (a second scan cost a second on Adult)
        space.index(getattr(algorithm.cost(space), "geometry", None)).neighbours(
            min(space.n - 1, MERGE_NEIGHBOURS)
        )
    stage(f"forming crowds ({method})")
    sensitive = [sensitive_codes(kept[name]) for name in schema.sensitive] if constrained else []
    # a method given l builds l-diverse crowds itself; the repair below then has little to do
    target = sensitive[0][0] if "l" in fixed else None
    if constrained and tags.full_domain and "l" not in fixed:  # suppress what breaks the model
        assert diversity is not None
        algorithm.set_params(class_check=diversity_check(sensitive, diversity))
    with reporting(on_progress):  # counted by the method, not a parameter: none in the release
        algorithm.fit(space, target)
    refuse_nothing_published(algorithm)
    if on_fitted is not None:
        on_fitted(algorithm, space)
    partition = algorithm.partition_
    partition.validate(k)
    objective = algorithm.cost(space)
    cost, centers, merges = float(algorithm.cost_), getattr(algorithm, "center_records_", None), 0
    polished = None
    if release == "generalized" and tags.polished:
        stage("polishing the crowds for the generalized release")
        from ..algorithms.release_polish import polish_release  # loads local recoding

        polished = polish_release(partition.labels, space, k, generalize, objective, cost)
        if polished.labels is not None:
            partition = Partition(polished.labels)
            cost, centers = polished.cost_after, None  # priced from the members' best centers
    if constrained and not tags.full_domain:  # a full-domain method suppressed such classes
        assert diversity is not None
        stage("merging crowds for l-diversity / t-closeness")
        from ..postprocess import enforce  # loads local recoding's moves

        # neighbours in the method's own geometry where it has one (lists already built)
        index = space.index(getattr(objective, "geometry", None))
        near = index.neighbours(min(space.n - 1, MERGE_NEIGHBOURS))[1]

        first, inverse, _, rows = index.distinct_rows
        row_near = (
            rows.neighbours(min(first.size - 1, MERGE_NEIGHBOURS))[1] if first.size > 1 else None
        )

        def nearby(members: np.ndarray, count: int) -> np.ndarray:
            # records of the distinct rows nearest the class's rows (copies are no help)
            if row_near is None:
                return members[:0]
            return first[row_near[np.unique(inverse[members])].ravel()][:count]

        labels, merges = enforce(partition.labels, sensitive, diversity, objective, near, k,
                                 nearby)  # fmt: skip
        if merges:
            partition = Partition(labels)
            centers = None  # the method's centers were for its own crowds
            cost = objective.priced(partition.labels)

    check_ceilings(objective, partition.labels, settings)  # a repair may merge across them
    stage(f"publishing the {release} table")
    levels = getattr(algorithm, "levels_", None) if tags.full_domain else None
    floors = None if tags.full_domain else published_floors(settings, schema)
    starred = suppressed_form(settings, type(algorithm), partition.n_suppressed, k)
    if release == "generalized":
        out = release_generalized(
            kept, partition, schema, seed=seed, columns=space.columns, generalize=generalize,
            levels=levels, suppressed=starred, floors=floors,
        )  # fmt: skip
    elif release == "microaggregated":
        out = release_microaggregated(kept, partition, schema, seed=seed, columns=space.columns,
                                      suppressed=starred)  # fmt: skip
    else:
        own = centers if center == "medoid" else None
        out = release_centers(
            kept, partition, schema, space=space, center=center, seed=seed, center_records=own,
            suppressed=starred,
        )  # fmt: skip

    stage("measuring information loss")
    n_input = len(frame)
    n_suppressed = partition.n_suppressed  # apart from the records left out for missing values
    lower = algorithm.lower_bound_
    recrowded = merges or (polished is not None and polished.labels is not None)
    ratio = algorithm.certified_ratio_ if not recrowded else certified_ratio(cost, lower)
    guarantee = algorithm.guarantee
    sse = SSE.on(space)
    sizes = partition.sizes.astype(np.float64)
    loss = {
        "sse": sse.of(partition.labels),
        "l_sse": l_sse(sse, partition.labels),
        "ncp": ncp_loss(
            space.columns,
            partition,
            n_dropped,
            generalize,
            levels=levels if levels is not None else floors,
        ),
        "discernibility": published_discernibility(
            out.table,
            schema,
            out.form,
            n_input,
            n_suppressed + n_dropped,
            suppressed_rows=n_suppressed if starred == "star" else 0,
        ),
        "avg_crowd_size": float(sizes.mean()) if sizes.size else 0.0,
        "normalized_avg_crowd_size": float(sizes.mean() / k) if sizes.size else 0.0,
    }
    if isinstance(objective, MaxRadius) or release == "centers":
        # the radius from the method's own centers (the published radii are in the table)
        loss["max_radius"] = MaxRadius.on(space).of(partition.labels, centers)
    # the method's objective, priced again from the partition by its cost object (a radius
    # from the method's own centers): the metadata's cost must equal it
    if objective.name not in loss:
        loss[objective.name] = (objective.at_levels(partition.labels, levels)  # type: ignore[attr-defined]
                                if levels is not None
                                else objective.priced(partition.labels, centers))  # fmt: skip
    mentioned = set(schema.qi_names) | set(schema.sensitive) | set(schema.insensitive)
    withheld = [str(c) for c in frame.columns if str(c) not in mentioned]
    metadata = out.metadata.replace(
        method=method,
        parameters=recorded_parameters(algorithm.get_params()) | {"norm": norm},
        seed=seed,
        version=__version__,
        k=k,
        n_input=n_input,
        n_released=partition.n_assigned,
        n_suppressed=n_suppressed,
        n_dropped_missing=n_dropped,
        loss=loss,
        cost=cost,
        objective=objective.name,
        lower_bound=None if lower is None else float(lower),
        certified_ratio=ratio,
        certificate=getattr(algorithm, "certificate_", None),
        approximation_ratio=None if merges else algorithm.approximation_ratio_,
        polish=None if polished is None else polished.describe(),
        diversity=(
            diversity.describe() | {"merges": merges, "note": DIVERSITY_NOTE}
            if constrained and diversity is not None
            else None
        ),
        guarantee_text=guarantee.text,
        reference=guarantee.reference,
        withheld_columns=tuple(withheld),
        schema=schema_record(schema, settings),  # the checker counts by its format too
    )
    stage("verifying the release")
    report = verify(out.table, schema.qi_names, k, metadata=metadata, diversity=diversity,
                    sensitive=schema.sensitive)  # fmt: skip
    report.raise_if_failed()
    kept_rows = without_suppressed_rows(out.table, schema.qi_names, out.form,
                                        report.n_suppressed_rows)  # fmt: skip
    homogeneous = homogeneous_classes(kept_rows, schema, out.form, report.n_classes)
    # crowds that generalize to the same published values merge into one group
    metadata = metadata.replace(
        n_groups=report.n_classes, homogeneous=homogeneous, created=now(),
        # a block of a blockwise run does not hash the whole input: the run records it
        input=None if settings.blocked else input_record(settings.input),
        seconds=round(time.perf_counter() - start, 4),
    )  # fmt: skip
    return Release(out.table, out.form, partition, metadata)
