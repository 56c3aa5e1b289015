"""A written release and its original, read as the release was made; the report on them,
and its file.

The one place where "an original table and a written release of it" becomes what the
measures and the report read: ``incrowd report``, ``incrowd evaluate``, ``incrowd risk``
and the browser app (:mod:`incrowd.ui.runs`) all call :func:`load` with one
:class:`ReadOptions` (the command line's values, or none), and :func:`report_on_files`
builds the report as ``incrowd report`` writes it; :func:`report_output` is how every
writer commits it (the page sealed, replacing only a report incrowd wrote and nobody
changed since), :func:`write_report` writes it so.

The settings start from what the release's metadata records (its schema and reading
options: :mod:`incrowd.pipeline.record`), then the job file (``config``), then the options
given. The input's SHA-256 is computed once, here: compared with the one the metadata
records (a warning when they differ) and returned for the report's file list.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import IncrowdWarning, InputError
from ..params import RISK_THRESHOLD_DEFAULT
from ..pipeline.settings import Settings

if TYPE_CHECKING:
    import pandas as pd

    from ..io.atomic import Output

__all__ = [
    "Loaded", "ReadOptions", "load", "refuse_stale", "report_on_files", "report_output",
    "write_report",
]  # fmt: skip

_KINDS = ("categorical", "numeric", "code", "date")


@dataclass(frozen=True)
class ReadOptions:
    """How to read the original beside a release, each None or empty when not given:
    ``config`` (a job file), ``qi`` (other quasi-identifiers than recorded), ``hierarchy``
    (column → spelling), ``categorical`` / ``numeric`` (a type given replaces the recorded
    one of that column), ``sensitive``, ``sep``, ``missing``, ``encoding``. Lists may hold
    comma-separated names, as the command line's repeated options do."""

    config: Path | None = None
    qi: Sequence[str] | None = None
    hierarchy: Mapping[str, str] = field(default_factory=dict)
    categorical: Sequence[str] | None = None
    numeric: Sequence[str] | None = None
    sensitive: Sequence[str] | None = None
    sep: str | None = None
    missing: str | None = None
    encoding: str | None = None


@dataclass(frozen=True)
class Loaded:
    """The original (read, its missing values handled as the release was made), its
    schema, the written release (:class:`~incrowd.io.release_format.ReleaseFiles`), and the
    input file's SHA-256 (None when the input is not a file)."""

    table: Any
    schema: Any
    files: Any
    input_sha256: str | None


def _settings(release: Path, meta: Any, options: ReadOptions) -> Settings:
    from ..pipeline.job import for_quasi_identifiers, split_list
    from ..pipeline.record import settings_of_record

    job = Settings(**settings_of_record(meta.schema if meta is not None else None))
    if meta is not None and meta.qi and set(meta.qi) == set(job.qi):
        job = job.replace(qi=tuple(meta.qi))  # the release's order, not the record's by name
    if options.config is not None:
        given = Settings.from_toml(options.config)
        job = job.replace(
            **{
                name: value
                for name in Settings.names()
                if (value := getattr(given, name)) != Settings.option(name).default
            }
        )
    qi = split_list(options.qi)
    if qi:  # other quasi-identifiers than recorded: what is recorded of others goes
        job, _ = for_quasi_identifiers(job, qi)
    declared = {"categorical": split_list(options.categorical),
                "numeric": split_list(options.numeric)}  # fmt: skip
    flagged = {c for names in declared.values() for c in names}
    if flagged:  # a type given by a flag replaces the recorded one of that column
        job = dataclasses.replace(job, **{
            kind: tuple(c for c in getattr(job, kind) if c not in flagged)
            for kind in _KINDS})  # fmt: skip
    job = job.replace(
        sensitive=split_list(options.sensitive),
        hierarchy=dict(options.hierarchy),
        categorical=declared["categorical"],
        numeric=declared["numeric"],
        sep=options.sep,
        missing=options.missing,
        encoding=options.encoding,
    )
    if not job.qi:
        msg = (f"no quasi-identifiers: give --qi (the metadata of {release} records none)"
               if meta is not None else f"no quasi-identifiers: give --qi ({release} has no "
               "metadata beside it)")  # fmt: skip
        raise InputError(msg)
    return job


def load(input: Path, release: Path, options: ReadOptions | None = None,
         read: tuple[pd.DataFrame, str] | None = None) -> Loaded:  # fmt: skip
    """The original ``input`` and the written ``release`` of it, read as the release was
    made (its metadata, then ``options``). Warns when the input's SHA-256 differs from the
    one the metadata records, or a hierarchy differs from the recorded one. ``read``: the
    input as the run that made the release read it, with its SHA-256 (the app's worker),
    taken instead of reading and hashing the file again."""
    from ..data.columns import handle_missing
    from ..io.release_format import file_sha256
    from ..io.tables import read_table
    from ..pipeline.job import build_schema
    from ..pipeline.record import changed_hierarchies
    from ..release import read_release

    files = read_release(release)
    meta = files.metadata
    job = _settings(release, meta, options or ReadOptions())
    if read is not None:
        given, digest = read
    else:
        given, digest = None, file_sha256(Path(input)) if Path(input).is_file() else None
    recorded = (meta.input or {}).get("sha256") if meta is not None else None
    if recorded is not None and digest is not None and digest != recorded:
        warnings.warn(f"{input} is not the input {release} was made from (its SHA-256 "
                      "differs): the figures compare another table", IncrowdWarning,
                      stacklevel=2)  # fmt: skip
    table = given if given is not None else read_table(
        input, sep=job.sep, na_values=job.na_values, encoding=job.encoding)  # fmt: skip
    schema = build_schema(job, table)
    for line in changed_hierarchies(schema, meta.schema if meta is not None else None):
        warnings.warn(line, IncrowdWarning, stacklevel=2)
    table, _ = handle_missing(table, schema, job.missing)  # type: ignore[arg-type]
    return Loaded(table, schema, files, digest)


def refuse_stale(release: Path, files: Any) -> None:
    """An :class:`~incrowd.InputError` when the release's table no longer matches the SHA-256
    its metadata records (edited or replaced after it was written)."""
    from ..io.release_format import changed_files
    from ..io.targets import metadata_path

    if files.metadata is None:
        return
    altered = changed_files(files.metadata, files.sha256)
    if altered:
        msg = (f"{release} no longer matches its metadata {metadata_path(release).name} (the "
               f"SHA-256 of {', '.join(altered)} differs from the one recorded): it was edited "
               "or replaced after it was written; no report written")  # fmt: skip
        raise InputError(msg)


def report_on_files(
    input: Path, release: Path, loaded: Loaded, *, risk_threshold: float = RISK_THRESHOLD_DEFAULT
) -> Any:
    """The report on ``release`` of ``input`` as ``incrowd report`` builds it from what
    :func:`load` read: titled by the release's file name, the files' names and digests
    listed. Returns :class:`~incrowd.report.Report`."""
    from . import build_report

    files = loaded.files
    sources: dict[str, tuple[str, str]] = {}
    if loaded.input_sha256 is not None:
        sources["input"] = (Path(input).name, loaded.input_sha256)
    if isinstance(files.sha256, str):  # a dataset's parts are each checked by refuse_stale
        sources["release"] = (Path(release).name, files.sha256)
    return build_report(loaded.table, files.table, loaded.schema, files.metadata,
                        title=f"incrowd report: {Path(release).name}", sources=sources,
                        risk_threshold=risk_threshold)  # fmt: skip


def report_output(path: Path, data: bytes) -> Output:
    """The commit :class:`~incrowd.io.atomic.Output` of a report at ``path``: ``data``, a
    report page (sealed here: :func:`~incrowd.io.targets.seal_report`) or the PDF printed
    from one (written as it is), replacing only a report incrowd wrote and nobody changed
    since (:func:`~incrowd.io.targets.is_report`, checked again under the commit's lock).
    Every writer of a report (:func:`write_report`, the app's Save) commits this."""
    from ..io.atomic import Output
    from ..io.targets import is_report, seal_report

    if not data.startswith(b"%PDF-"):
        data = seal_report(data)
    return Output(path, lambda fh: fh.write(data), replaceable=is_report)


def write_report(path: Path, data: bytes) -> int:
    """Write the report ``data`` (a page, or its PDF) to ``path`` by the commit protocol
    (:func:`report_output`); the number of bytes written."""
    from ..io.atomic import commit
    from ..io.targets import report_refusal

    output = report_output(path, data)
    commit([output], refuse_message=report_refusal)
    return path.stat().st_size
