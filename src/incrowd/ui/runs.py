"""Runs of the local app: each anonymization on a worker process, its progress, its
cancellation, its report, and saving what it made.

A run is :func:`_work` in a process started with ``spawn`` (a fresh interpreter: no lock or
thread of the server is inherited), so the page never waits on it and a cancel is a
``terminate``. The worker reads the table and runs the pipeline as ``incrowd anonymize``
does (:func:`~incrowd.pipeline.run.anonymize_with`), sending each stage the pipeline names
(``on_stage``) and, while the crowds form, the method's own count (``on_progress``) to the
server; it writes the release into the run's private temporary folder (never a folder of
the user's: a cancelled or failed run leaves no file where the user looks, and its folder
is removed; a finished run's folder keeps its release until the app stops), reads it back
as ``incrowd report`` does (:mod:`incrowd.report.reading`, the input as the run read it),
builds the report and what the page shows beside it (:func:`.compare.look`: the figures
compared, the plots), and sends back the release, the verdict, the warnings, the page and
those.

:func:`save` writes the release's table as the worker wrote it (its bytes checked against
the SHA-256 the worker's metadata recorded) and its metadata through the release writer and
its overwrite policy (:func:`~incrowd.io.release_format.write_release`: only an earlier
release is replaced), the report the worker built, named after the saved file — the bytes
``incrowd report`` writes on the saved files (a report replaces only a report incrowd wrote
and nobody edited) — and the job file that reproduces the run
(:func:`~incrowd.pipeline.job_writer.render_job`, a new file, as ``incrowd inspect
--write``), with the seed the run drew; for files uploaded into the app's private folder
(removed when it stops) also their copies — the table's as ``NAME-input.SUFFIX``, a
hierarchy file's as ``NAME-FILE`` — which the job file names. Every check is made and every
file's bytes are ready before anything is written: the input files (table and hierarchy
files) must still hold what the run read (their SHA-256, taken by the worker), and no two
files may share a name, else Save refuses. The release, its metadata, the report, the job
file and the copies are one group of the commit protocol (:func:`incrowd.io.atomic.commit`):
all change or none does, even on a kill. One Save of a run at a time; nothing is computed
at Save but the inputs' hashes, so it takes a fraction of a second.
"""

from __future__ import annotations

import functools
import multiprocessing
import shutil
import threading
import time
import warnings
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..errors import IncrowdWarning, InputError, one_line
from ..pipeline import PIPELINE_STAGES, stages_done
from ..pipeline.settings import Settings
from .leftovers import private_folder

__all__ = ["STAGES", "Run", "Runs", "save"]

#: The stages a run goes through at most: reading the input, the pipeline's (a repair or a
#: polish only when one runs), writing the release, building the report; the progress bar
#: counts them, and reaches 100 % at the end.
STAGES = PIPELINE_STAGES + 3


@dataclass
class Run:
    """One run: its settings, its worker, what it said so far, and its result."""

    id: str
    job: Settings
    folder: Path  # private, temporary
    process: Any = None
    state: str = "running"  # running | done | failed | cancelled
    stages: list[str] = field(default_factory=list)
    counted: tuple[int, int] | None = None  # the method's own count in its stage (done, total)
    started: float = field(default_factory=time.monotonic)
    seconds: float | None = None
    error: str | None = None
    result: dict[str, Any] | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)  # its state changes
    saving: threading.Lock = field(default_factory=threading.Lock)  # one Save at a time

    def status(self) -> dict[str, Any]:
        """What the page's progress poll reads."""
        with self.lock:  # one moment's stage, count and state (the listener changes them)
            stages, counted, state = list(self.stages), self.counted, self.state
        done = state == "done"
        share = 1.0 if done else min(stages_done(len(stages), counted), STAGES - 1) / STAGES
        out: dict[str, Any] = {
            "id": self.id, "state": state, "stage": stages[-1] if stages else "",
            "step": len(stages), "percent": round(100 * share), "error": self.error,
            "counted": list(counted) if counted is not None else None,
            "seconds": round(self.seconds if self.seconds is not None
                             else time.monotonic() - self.started, 1),
        }  # fmt: skip
        if self.result is not None:
            out |= {key: self.result[key] for key in ("verdict", "warnings", "summary", "look")}
            out["figures"] = _figures(self.job, self.result["release"].metadata)
        return out


class Runs:
    """The runs of one server, by id."""

    def __init__(self) -> None:
        self.runs: dict[str, Run] = {}
        self.lock = threading.Lock()
        self.context = multiprocessing.get_context("spawn")

    def start(self, job: Settings) -> Run:
        """Start ``job`` on a worker process; return its run."""
        import secrets

        run_id = secrets.token_hex(8)
        run = Run(run_id, job, private_folder("run"))
        receiver, sender = self.context.Pipe(duplex=False)
        run.process = self.context.Process(target=_work, args=(job, str(run.folder), sender),
                                           daemon=True, name=f"incrowd-ui-{run_id}")  # fmt: skip
        run.process.start()
        sender.close()  # the worker holds the other end: a dead worker ends the reading
        with self.lock:
            self.runs[run_id] = run
        threading.Thread(target=self._listen, args=(run, receiver), daemon=True).start()
        return run

    def _listen(self, run: Run, receiver: Any) -> None:
        try:
            while True:
                kind, value = receiver.recv()
                with run.lock:  # a result that comes as the run is cancelled is dropped
                    if kind == "stage":
                        run.stages.append(value)
                        run.counted = None
                        continue
                    if kind == "progress":
                        run.counted = value
                        continue
                    if run.state == "running" and kind == "done":
                        run.result, run.state = value, "done"
                    elif run.state == "running":
                        run.error, run.state = value, "failed"
                if run.state == "done":
                    _warm()
                break
        except (EOFError, OSError):  # the worker ended without a word: killed or crashed
            _fail(run, "the worker process stopped unexpectedly")
        except Exception as exc:  # a bug here: the run fails (it would hold a place forever)
            _fail(run, one_line(exc))
        finally:
            run.seconds = time.monotonic() - run.started
            receiver.close()
            run.process.join(timeout=5)
            if run.state != "done":  # a done run's folder keeps its release for Save
                shutil.rmtree(run.folder, ignore_errors=True)

    def get(self, run_id: str) -> Run | None:
        with self.lock:
            return self.runs.get(run_id)

    def cancel(self, run: Run) -> None:
        """Stop ``run``'s worker (its temporary folder goes with it)."""
        with run.lock:
            going = run.state == "running"
            if going:
                run.state = "cancelled"
        if going:
            run.process.terminate()
            run.process.join(timeout=10)
            if run.process.is_alive():
                run.process.kill()
                run.process.join(timeout=5)
            # here, not only in the listener (a daemon thread, which the interpreter's exit
            # may stop first): no partial release survives the server
            shutil.rmtree(run.folder, ignore_errors=True)

    def close(self) -> None:
        """Stop every run still going and remove every run's folder (the server stops)."""
        for run in list(self.runs.values()):
            self.cancel(run)
            shutil.rmtree(run.folder, ignore_errors=True)


def _fail(run: Run, error: str) -> None:
    with run.lock:
        if run.state == "running":
            run.error, run.state = error, "failed"


def _file_inputs(job: Settings) -> list[Path]:
    """The files ``job`` reads: its table and its hierarchy files."""
    assert job.input is not None
    return [Path(job.input), *(Path(s) for s in job.hierarchy.values() if Path(s).is_file())]


def _warm() -> None:
    """Import what Save uses now, as a run finishes (1-2 s the first time), not at Save."""
    from ..io import atomic, targets  # noqa: F401
    from ..pipeline import job_writer  # noqa: F401
    from ..report import reading  # noqa: F401


def _work(job: Settings, folder: str, conn: Any) -> None:
    """The worker: run ``job``, write the release into ``folder``, read it back as ``incrowd
    report`` does, build its report and what the page shows of it (:func:`.compare.look`);
    send ("stage", name) and, while the crowds form, ("progress", (done, total))…, then
    ("done", result) or ("error", the command line's one line)."""
    import secrets

    from ..io.release_format import file_sha256
    from ..io.tables import read_table, table_separator
    from ..pipeline.job import build_schema
    from ..pipeline.run import anonymize_with
    from ..report.reading import load, report_on_files
    from .compare import look
    from .tables import shown_warnings
    from .wording import app_words

    def stage(name: str) -> None:
        conn.send(("stage", name))

    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", IncrowdWarning)
            assert job.input is not None
            stage("reading the input")
            # what Save checks the files still hold (read before the run, as the run reads)
            hashes = {str(path): file_sha256(path) for path in _file_inputs(job)}
            reading = {"sep": job.sep, "na_values": job.na_values, "encoding": job.encoding}
            table = read_table(job.input, **reading)
            schema = build_schema(job, table)
            sep = table_separator(job.input, job.sep, job.encoding)
            result = anonymize_with(
                table,
                schema,
                job,
                on_stage=stage,
                on_progress=lambda d, t: conn.send(("progress", (d, t))),
            )
            stage("writing the release")
            # the report names the release's file, whose name Save learns only later: it is
            # built on a name found nowhere else in the page, which Save replaces
            name = f"incrowd-ui-{secrets.token_hex(16)}"
            path = Path(folder) / f"{name}.csv"
            result.write(path, sep, formulas=job.csv_formulas, protect=[job.input])
            stage("building the report")
            loaded = load(Path(job.input), path, read=(table, hashes[str(Path(job.input))]))
            report = report_on_files(Path(job.input), path, loaded)
            shown = look(loaded, report.measured)
        noted = shown_warnings(caught)
        done = {"release": result, "sep": sep, "verdict": report.verdict,
                "warnings": list(dict.fromkeys([*noted, *map(app_words, report.warnings)])),
                "summary": _summary(result.metadata), "page": report.html, "name": name,
                "inputs_sha256": hashes, "look": shown}  # fmt: skip
        conn.send(("done", done))
    except Exception as exc:  # a user's error or a bug: one line, as the command line says
        conn.send(("error", one_line(exc)))
    finally:
        conn.close()


def _summary(meta: Any) -> str:
    """The run in a line, as ``incrowd anonymize`` prints it."""
    loss = meta.loss or {}
    return (f"released {meta.n_released} of {meta.n_input} records ({meta.n_suppressed} "
            f"suppressed) in {meta.n_crowds} crowds; k achieved {meta.k_achieved} (asked "
            f"{meta.k}); NCP {loss.get('ncp', 0):.4f}; {meta.seconds or 0:.2f} s")  # fmt: skip


def _figures(job: Settings, meta: Any) -> dict[str, Any]:
    """What the page's comparison of runs shows of one run (from its metadata)."""
    loss = meta.loss or {}
    return {"k": job.k, "l": job.l, "t": job.t, "method": meta.method,
            "released": meta.n_released, "suppressed": meta.n_suppressed,
            "classes": meta.n_groups or meta.n_crowds, "smallest": meta.k_achieved,
            "NCP": round(loss.get("ncp", 0.0), 4), "discernibility": loss.get("discernibility"),
            "seconds": round(meta.seconds or 0, 1)}  # fmt: skip


def save(run: Run, folder: Path, stem: str, uploads: Path | None = None) -> dict[str, Any]:
    """Write ``run``'s release (``STEM.csv`` and ``STEM.json``), its report
    (``STEM-report.html``) and the job file that reproduces it (``STEM.toml``) into
    ``folder``; for a table uploaded into ``uploads``, also its copy ``STEM-input.SUFFIX``,
    and for an uploaded hierarchy file its copy ``STEM-NAME``, which the job file names.
    Everything is checked and built before anything is written, and a failure leaves
    nothing (module docstring). Returns the paths and the seconds it took."""
    from ..io.atomic import Output
    from ..io.release_format import file_sha256, write_release
    from ..io.targets import (
        NEVER,
        check_new_file,
        check_release_target,
        check_report_target,
        exists_message,
        metadata_path,
        report_refusal,
    )
    from ..pipeline.job_writer import render_job
    from ..report.reading import report_output

    assert run.result is not None and run.job.input is not None
    if not run.saving.acquire(blocking=False):
        raise InputError("this run is being saved: wait for that Save to finish")
    try:
        start = time.perf_counter()
        source = Path(run.job.input)
        out, page, job_file = (folder / f"{stem}.csv", folder / f"{stem}-report.html",
                               folder / f"{stem}.toml")  # fmt: skip
        # uploaded files (in the app's private folder, gone when it stops) are saved beside
        # the release, and the job file names those copies: the table as STEM-input.SUFFIX,
        # a hierarchy file as STEM-ITS-NAME (an upload's name is a plain file name)
        uploaded = uploads.resolve() if uploads is not None else None

        def kept(path: Path) -> bool:
            return uploaded is not None and path.resolve().is_relative_to(uploaded)

        copy = folder / f"{stem}-input{source.suffix}" if kept(source) else None
        hierarchies = {column: folder / f"{stem}-{Path(spec).name}"
                       for column, spec in run.job.hierarchy.items()
                       if Path(spec).is_file() and kept(Path(spec))}  # fmt: skip
        copies = {**({source: copy} if copy else {}),
                  **{Path(run.job.hierarchy[c]): p for c, p in hierarchies.items()}}  # fmt: skip
        _distinct([out, metadata_path(out), page, job_file], copies)
        # the inputs are never written over (the table and the hierarchy files, as the CLI's)
        inputs = _file_inputs(run.job)
        check_release_target(out, protect=inputs)
        check_report_target(page, protect=[*inputs, out])
        for new in [job_file, *copies.values()]:
            check_new_file(new, protect=inputs)
        for path, sha in run.result["inputs_sha256"].items():
            if file_sha256(Path(path)) != sha:  # a file gone: OSError, its one line
                msg = (f"{path} changed since the run: run again to save a release of it as "
                       "it is now")  # fmt: skip
                raise InputError(msg)
        release = run.result["release"]
        # the report the worker built, named as saved: the same bytes as ``incrowd report``
        # on the saved files (the release is the same bytes; tests/ui/test_ui_browser.py)
        html = run.result["page"].replace(run.result["name"], stem).encode()
        named = {**run.job.hierarchy, **{c: str(p) for c, p in hierarchies.items()}}
        job = replace(run.job, input=str(copy or source), out=str(out), hierarchy=named,
                      seed=release.metadata.seed)  # fmt: skip
        text = render_job(job, base=folder).encode()
        group = [report_output(page, html),
                 Output(job_file, lambda fh: fh.write(text), replaceable=NEVER)]  # fmt: skip
        for original, target in copies.items():
            group.append(Output(target, functools.partial(_copy, original), replaceable=NEVER))
        # one group: the release, its metadata, the report, the job file (and the table's
        # copy) all change, or none does, even on a kill
        # the table's bytes as the worker wrote them into the run's folder (the release's
        # writer, separator and formula policy): encoding them again was most of Save's time
        write_release(release.table, release.metadata, out, sep=run.result["sep"],
                      formulas=run.job.csv_formulas, protect=inputs, also=group,
                      also_refusal=lambda p: report_refusal(p) if p == page
                      else exists_message(p), encoded=_written(run))  # fmt: skip
        saved = {"release": str(out), "report": str(page), "job": str(job_file)}
        if copy is not None:
            saved["input"] = str(copy)
        if hierarchies:
            saved["hierarchies"] = [str(p) for p in hierarchies.values()]
        return saved | {"seconds": round(time.perf_counter() - start, 3)}
    finally:
        run.saving.release()


def _written(run: Run) -> bytes:
    """The release table's bytes the worker wrote into ``run``'s folder, checked against
    the SHA-256 its metadata recorded (an OSError or InputError when they are gone or
    differ: nothing is saved)."""
    import hashlib
    import json

    from ..io.targets import metadata_path

    assert run.result is not None
    table = run.folder / f"{run.result['name']}.csv"
    data = table.read_bytes()
    recorded = json.loads(metadata_path(table).read_text(encoding="utf-8"))["table_sha256"]
    if hashlib.sha256(data).hexdigest() != recorded:
        raise InputError(f"the run's release in {run.folder} changed: run again to save it")
    return data


def _distinct(own: list[Path], copies: dict[Path, Path]) -> None:
    """Refuse a Save whose files would share a name: an uploaded hierarchy file named like
    the table's copy, two uploaded files of one name (one would be lost)."""
    taken = {path: f"the release's file {path.name}" for path in own}
    for original, target in copies.items():
        if target in taken:
            msg = (
                f"cannot save: {original.name} and {taken[target]} would both be saved "
                f"as {target.name}; rename one of the uploaded files and upload it again"
            )
            raise InputError(msg)
        taken[target] = f"the uploaded {original.name}"


def _copy(source: Path, sink: Any) -> None:
    with source.open("rb") as fh:
        shutil.copyfileobj(fh, sink)
