"""The settings of one anonymization run, each declared once: :class:`Settings`.

Every option of a run — ``incrowd anonymize``'s flags, the TOML job file's keys
(:mod:`.job`), :func:`incrowd.anonymize`'s keywords and the blockwise run's — is a field of
:class:`Settings` with its type, its default, its constraint (a
:class:`~incrowd.params.Constraint`, or a check defined where the concept lives) and a
one-line help, which the command line shows (:meth:`Settings.option`). Each value is checked
once, when a :class:`Settings` is made; what depends on several (``center`` with the
release form) is checked by :meth:`Settings.check_run` on the finished settings, so that
flags may still override the file.

>>> s = Settings(k=5, norm=1)
>>> s.replace(norm=None, release="centers").norm, s.option("norm").shown
(1, "the method's")
>>> Settings(norm=3)
Traceback (most recent call last):
...
incrowd.errors.ParameterError: norm must be 1 or 2, got 3
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from ..errors import ParameterError, option
from ..params import (
    Constraint,
    CrowdSize,
    Interval,
    Levels,
    OneOf,
    PositiveInt,
    Seed,
    Weights,
    check_level_bounds,
)

if TYPE_CHECKING:
    from ..privacy.models import Diversity

__all__ = ["Option", "Settings"]


class _Check(Constraint):
    """A check that lives with its concept (imported when used: ``incrowd --help`` and a
    job file's reading stay light)."""

    def __init__(self, module: str, function: str, text: str) -> None:
        self.module, self.function, self.text = module, function, text

    def check(self, name: str, value: object, n: int) -> object:
        getattr(import_module(self.module, __package__), self.function)(value)
        return value

    def describe(self) -> str:
        return self.text


class _ReleaseForm(Constraint):
    def check(self, name: str, value: object, n: int) -> object:
        from ..release import RELEASE_FORMS

        if value not in RELEASE_FORMS:
            msg = f"unknown release form {value!r}; choose one of: {', '.join(RELEASE_FORMS)}"
            raise ParameterError(msg)
        return value

    def describe(self) -> str:
        return "generalized | microaggregated | centers"


class _Scheduler(Constraint):
    def check(self, name: str, value: object, n: int) -> object:
        if not isinstance(value, str) or (
            value not in ("local", "sync") and not value.startswith(("tcp://", "tls://"))
        ):
            msg = f"{name} must be local, sync or tcp://HOST:PORT, got {value!r}"
            raise ParameterError(msg)
        return value

    def describe(self) -> str:
        return "local | sync | tcp://HOST:PORT"


#: Checked together, by :class:`~incrowd.privacy.models.Diversity` (one rule for each).
_DIVERSITY = ("l", "l_kind", "c", "t", "t_kind")


def _option(
    default: Any = None,
    help: str = "",  # noqa: A002 - the word the command line uses
    check: Constraint | str | None = None,
    *,
    shown: str | None = None,
    label: str | None = None,
    factory: Any = None,
) -> Any:
    """A field of :class:`Settings`: its default, help, constraint (or the rule's words when
    another object checks it), the default as the help shows it, and the name its errors
    give (the flag, where the messages always named it so)."""
    meta = {"help": help, "check": check, "shown": shown, "label": label}
    if factory is not None:
        return field(default_factory=factory, metadata=meta)
    return field(default=default, metadata=meta)


class Option(NamedTuple):
    """What :meth:`Settings.option` tells of one setting."""

    name: str
    type: str  # the annotation, e.g. "int | None"
    default: Any
    help: str
    constraint: str  # the allowed values in words ("" when any value of the type)
    shown: str | None  # the default as a help text shows it (None: nothing to show)


@dataclass(frozen=True)
class Settings:
    """The settings of one anonymization run (the job file's form: :mod:`.job`)."""

    input: str | None = _option(None, "CSV or Parquet table.")
    out: str | None = _option(
        None, "Release (.csv, .parquet; blockwise: a dataset); JSON beside it."
    )
    k: int | None = _option(None, "Minimum crowd size.", CrowdSize())
    method: str | None = _option(
        None, "See `incrowd methods`.",
        _Check("..algorithms.catalogue", "check_method", "a name of `incrowd methods`"),
        shown="local-recoding (generalized release), mdav (the others)",
    )  # fmt: skip
    release: str = _option(
        "generalized", "generalized | microaggregated | centers.", _ReleaseForm()
    )
    seed: int | None = _option(
        None, "Seed for the row shuffle and a method's random choices (>= 0).", Seed(),
        shown="drawn and recorded",
    )  # fmt: skip
    sep: str | None = _option(
        None, "Input separator (default: detected).",
        _Check("..io.tables", "check_sep", "one character, not a quote or a line break"),
    )  # fmt: skip
    missing: str = _option(
        "keep", "Missing QI values: keep (a value of its own, shared only with missing cells "
        "or published as *) | drop (leave the records out, counted apart) | error. "
        "category: the former name of keep.", OneOf("keep", "drop", "error", "category"),
    )  # fmt: skip
    encoding: str | None = _option(
        None, "Input text encoding (utf-8, latin-1, cp1252, ...).",
        _Check("..io.text_encoding", "check_encoding", "a Python codec name"),
        shown="UTF-8; else cp1252 or latin-1, with a warning",
    )  # fmt: skip
    thousands: str | None = _option(
        None, "Thousands separator of numbers (, . ' or space).", OneOf(",", ".", "'", " "),
        shown="detected, with a warning when ambiguous",
    )  # fmt: skip
    decimal: str | None = _option(None, "Decimal mark of numbers (. or ,).", OneOf(".", ","),
                                  shown="detected")  # fmt: skip
    date_format: str | None = _option(
        None, "Date format (strftime, e.g. %d/%m/%Y).",
        _Check("..data.dates", "check_date_format", "strftime with %Y, %m and %d"),
        shown="detected, ISO first",
    )  # fmt: skip
    center: str | None = _option(
        None, "centers release: centroid | medoid.",
        _Check("..release.centers", "check_center", "centroid | medoid"), shown="centroid",
    )  # fmt: skip
    norm: int | None = _option(
        None, "Distance: 1 (L1) or 2 (Euclidean).", _Check("..params", "check_norm", "1 | 2"),
        shown="the method's",
    )  # fmt: skip
    generalize: str = _option("levels", "generalized release: hierarchy levels | value sets {a|b}.",
                              OneOf("levels", "sets"))  # fmt: skip
    suppression_limit: float | None = _option(
        None, "Largest share of the records that may be suppressed: global-recoding's "
        "classes under k; local-recoding and forest delete records where that lowers the loss.",
        Interval(0.0, 1.0, closed_high=True), shown="0.05 for global-recoding, 0 for the others",
        label=option("suppression_limit"),
    )  # fmt: skip
    suppressed: str | None = _option(
        None, "Suppressed records: star (published with * in every QI, the other columns "
        "kept; none or at least k of them) | drop (left out).", OneOf("star", "drop"),
        shown="star for global-recoding, drop for the others", label=option("suppressed"),
    )  # fmt: skip
    csv_formulas: str = _option(
        "escape", "CSV cells a spreadsheet would run (=, +, -, @): escape with a leading ' "
        "| refuse.", OneOf("escape", "refuse"), label=option("csv_formulas"),
    )  # fmt: skip
    l: float | None = _option(None, "l-diversity of every crowd on every sensitive column.",  # noqa: E741
                              "number >= 1 (whole for distinct)")  # fmt: skip
    l_kind: str = _option("distinct", "distinct | entropy | recursive.",
                          "distinct | entropy | recursive")  # fmt: skip
    c: float = _option(1.0, "recursive (c,l)-diversity: c.", "number > 0")
    t: float | None = _option(None, "t-closeness of every crowd (0-1).", "number in [0, 1]")
    t_kind: str = _option("auto", "equal | ordered | auto (ordered for numbers).",
                          "equal | ordered | auto")  # fmt: skip
    scheduler: str | None = _option(
        None, "Blockwise on Dask: local | tcp://HOST:PORT | sync (one process).", _Scheduler(),
        label=option("scheduler"),
    )  # fmt: skip
    workers: int | None = _option(None, "Local Dask workers.", PositiveInt(),
                                  label=option("workers"))  # fmt: skip
    block_size: int | None = _option(None, "Largest block (records), by median cuts on the QIs.",
                                     PositiveInt())  # fmt: skip
    blocks: int | None = _option(None, "Number of blocks (instead of --block-size).", PositiveInt())
    block_by: tuple[str, ...] = _option((), "Block by these columns' values.")
    spill: str = _option(
        "auto", "Blockwise: stream INPUT into blocks on disk (auto | always | never; auto: when "
        "it is large against the memory available).", OneOf("auto", "always", "never"),
        label=option("spill"),
    )  # fmt: skip
    na_values: tuple[str, ...] = _option(
        (), "Tokens read as missing besides empty cells and NA, N/A, NaN, null, NULL, None, ?, - "
        "('' turns those off).")  # fmt: skip
    qi: tuple[str, ...] = _option((), "Quasi-identifier columns (a,b,c).")
    sensitive: tuple[str, ...] = _option((), "Sensitive columns.")
    identifier: tuple[str, ...] = _option((), "Identifier columns (never output).")
    insensitive: tuple[str, ...] = _option((), "Columns passed through.")
    categorical: tuple[str, ...] = _option((), "Treat these QIs as labels (categories).")
    numeric: tuple[str, ...] = _option((), "Treat these QIs as numbers.")
    code: tuple[str, ...] = _option((), "Treat these QIs as codes (text, zeros kept, prefix "
                                    "masking).")  # fmt: skip
    date: tuple[str, ...] = _option((), "Treat these QIs as dates.")
    hierarchy: Mapping[str, str] = _option(
        help="COLUMN=FILE (ARX CSV), prefix, intervals:5,10,20 (nested widths), "
        "intervals:0-17,18-64,65-120 (bands; / between levels), dates or "
        "dates:month,quarter,year.",
        check="FILE | prefix | intervals:W1,W2,... | intervals:LO-HI,... | dates:LEVEL,...",
        factory=dict,
    )  # fmt: skip
    weights: Mapping[str, float] = _option(
        help="Attribute weights NAME=W (age=2,sex=1); default 1.", check=Weights(), factory=dict
    )  # fmt: skip
    min_level: Mapping[str, int] = _option(
        help="Lowest generalization level a QI is published at, NAME=LEVEL (age=1: no exact "
        "age; 0 the values, 1 their parents in the hierarchy, ...).", check=Levels("min_level"),
        label=option("min_level"), factory=dict,
    )  # fmt: skip
    max_level: Mapping[str, int] = _option(
        help="Highest generalization level a QI is published at, NAME=LEVEL (date=1: never "
        "above the hierarchy's first level); records that cannot fit are suppressed within "
        "the suppression limit.", check=Levels("max_level"), label=option("max_level"),
        factory=dict,
    )  # fmt: skip
    params: Mapping[str, Any] = _option(help="Method parameter NAME=VALUE.", factory=dict)

    def __post_init__(self) -> None:
        for f in fields(self):
            check, value = f.metadata["check"], getattr(self, f.name)
            if isinstance(check, Constraint) and value is not None:
                check.check(f.metadata["label"] or f.name, value, sys.maxsize)
        self.diversity  # noqa: B018 - Diversity checks l, l_kind, c, t and t_kind
        check_level_bounds(self.min_level, self.max_level)

    # ------------------------------------------------------------------ reading and merging
    @classmethod
    def from_toml(cls, path: str | Path) -> Settings:
        """The settings of a TOML job file (:mod:`.job`); relative paths in it are taken
        relative to the file, and a key that is no setting is an error naming it."""
        from .job import read_job

        return read_job(path)

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], where: str = "settings",
                     base: str | Path | None = None) -> Settings:  # fmt: skip
        """The settings a job file's parsed TOML table holds (``where`` names it in errors;
        paths are taken relative to ``base``)."""
        from .job import job_from_mapping

        return job_from_mapping(data, where, Path(base) if base is not None else None)

    def replace(self, **overrides: Any) -> Settings:
        """These settings with the given ones overriding them where given (not None or
        empty), as flags override a job file; the tables (hierarchy, weights, params,
        min_level, max_level) are merged key by key."""
        given = {k: v for k, v in overrides.items() if v not in (None, (), {}, [])}
        for key in ("hierarchy", "params", "weights", "min_level", "max_level"):
            if key in given:
                given[key] = dict(getattr(self, key)) | dict(given[key])
        return dataclasses.replace(self, **given)

    def check_run(self) -> Settings:
        """Check what depends on several settings, once they are final (after the flags
        overrode the file); return ``self``."""
        if self.generalize == "sets" and self.release != "generalized":
            msg = (f"value sets are a form of the generalized release, not of the {self.release}"
                   " release")  # fmt: skip
            raise ParameterError(msg)
        if self.blocked and self.method is not None:
            from ..algorithms import METHODS

            if METHODS[self.method].tags.full_domain:
                msg = (f"{self.method} chooses one level per attribute for the whole table: it "
                       "does not run blockwise (leave out the blockwise settings)")  # fmt: skip
                raise ParameterError(msg)
        if self.blocked and self.suppression_limit:  # the budget is the whole table's
            msg = (f"{option('suppression_limit')} does not run blockwise: a block cannot know "
                   "how many records the others suppress (leave out one of them)")  # fmt: skip
            raise ParameterError(msg)
        bound = "min_level" if self.min_level else "max_level" if self.max_level else None
        if bound and self.blocked:  # the bounds block the whole table's records
            msg = (f"{option(bound)} does not run blockwise: a block's crowds cannot see the "
                   "records of the others at that level (leave out one of them)")  # fmt: skip
            raise ParameterError(msg)
        if bound and self.release != "generalized":
            msg = (f"{option(bound)} bounds the hierarchy levels of a generalized release, not "
                   f"the {self.release} release's values")  # fmt: skip
            raise ParameterError(msg)
        if self.method is not None and (self.release != "generalized"
                                        or self.generalize != "levels"):  # fmt: skip
            from ..algorithms import METHODS

            if METHODS[self.method].tags.full_domain:
                msg = (f"{self.method} publishes hierarchy levels: a generalized release "
                       f"with {option('generalize', 'levels')}")  # fmt: skip
                raise ParameterError(msg)
        if self.center is not None and self.release != "centers":
            msg = (f"center has no effect on a {self.release} release (it chooses a centers "
                   "release's rows)")  # fmt: skip
            raise ParameterError(msg)
        return self

    # ------------------------------------------------------------------ derived
    @property
    def diversity(self) -> Diversity | None:
        """The l-diversity / t-closeness asked, or None (checked by Diversity)."""
        if self.l is None and self.t is None and self.l_kind == "distinct" and self.c == 1.0 \
                and self.t_kind == "auto":  # fmt: skip
            return None
        from ..privacy.models import Diversity

        spec = Diversity(l=self.l, l_kind=self.l_kind, c=self.c, t=self.t,  # type: ignore[arg-type]
                         t_kind=self.t_kind)  # type: ignore[arg-type]  # fmt: skip
        return spec if spec.active else None

    @property
    def blocked(self) -> bool:
        """Whether the run is blockwise (any of the blocking settings given)."""
        return bool(
            self.scheduler or self.block_size or self.blocks or self.block_by
            or self.workers is not None
            or self.spill != "auto"
        )  # fmt: skip

    @property
    def spilled(self) -> bool | None:
        """Whether a blockwise run streams its input into blocks on disk (None: when the
        file is large against the memory available)."""
        return {"auto": None, "always": True, "never": False}[self.spill]

    # ------------------------------------------------------------------ the declarations
    @classmethod
    def option(cls, name: str) -> Option:
        """The declaration of setting ``name``: type, default, help, constraint, shown
        default (what the command line's help shows)."""
        f = cls.__dataclass_fields__[name]
        check = f.metadata["check"]
        default = f.default_factory() if f.default is dataclasses.MISSING else f.default  # type: ignore[misc]
        rule = check.describe() if isinstance(check, Constraint) else (check or "")
        shown = f.metadata["shown"]
        if shown is None and default not in (None, (), {}):
            shown = str(default)
        return Option(name, str(f.type), default, f.metadata["help"], rule, shown)

    @classmethod
    def names(cls) -> tuple[str, ...]:
        """Every setting, in declaration order."""
        return tuple(f.name for f in fields(cls))

    @classmethod
    def of_run(cls, k: object, **keywords: Any) -> Settings:
        """The settings :func:`incrowd.anonymize`'s keywords give (``diversity``: a
        :class:`~incrowd.privacy.models.Diversity`, or None)."""
        spec = keywords.pop("diversity", None)
        if spec is not None:
            keywords |= {name: getattr(spec, name) for name in _DIVERSITY}
        if keywords.get("params") is None:
            keywords["params"] = {}
        return cls(k=k, **keywords)  # type: ignore[arg-type]
