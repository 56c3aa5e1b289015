"""Render docs/performance.md from the benchmarks' JSON (``benchmarks/results/NAME.json``).

Every figure on the page is read from a file that a script in ``benchmarks/`` wrote through
``_results.save``: its tables as the script printed them (incrowd's columns and the peers'
side by side), the date, the machine and the command that reproduces them. The prose here
says what each benchmark measures and holds no figure. A benchmark without its file is
listed with the command that writes it. ``tests/test_docs.py`` checks that the committed
page is what this renders from the committed files.

    python benchmarks/make_performance_page.py           # rewrite docs/performance.md
    python benchmarks/make_performance_page.py --check   # exit 1 if the page is stale
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
PAGE = HERE.parent / "docs" / "performance.md"

HEAD = """\
# Performance

!!! note "Generated from the benchmarks' JSON"
    This page is written by `python benchmarks/make_performance_page.py` from the files
    `benchmarks/results/NAME.json` that the scripts in `benchmarks/` write; do not edit it
    by hand. Each table comes with the command that produced it, the date and the machine:
    the figures are that machine's, not yours. Timings on a shared virtual machine vary
    from run to run (the load average recorded with a run says how busy the machine was:
    above its number of cores, other work slowed the timings down); losses and certified
    ratios do not.
"""

#: (heading, intro, [(result file, the command that writes it)]); the headings are anchors
#: other pages link to.
SECTIONS: list[tuple[str, str, list[tuple[str, str]]]] = [
    (
        "k-anonymity on Adult",
        "Adult with ARX's hierarchies at several k, in two settings. *Labels*: every QI, age "
        "included, published as a label of its ARX hierarchy (ARX local recoding's setting), "
        "by the default method, by it with its former seeds (`seeds=rounds`) and by `forest`. "
        "*Sets*: value sets, age as a range (Mondrian's setting). Every release is written, "
        "read back, scored by `benchmarks/ncp_checker.py` (the NCP of "
        "[Methods](methods/index.md#what-every-release-reports), sharing no code with "
        "incrowd) and verified k-anonymous; seconds are the whole `anonymize` call after a "
        "warm-up. The peers' columns are quoted by the script from their runs on this "
        "machine type with the same definition of NCP; the goals are those of issue 11. Then the "
        "labels release alone with more rounds of its certificate's dual ascent "
        "(`bound_rounds`: a higher lower bound, so a lower certified ratio, for more time) "
        "and with a longer neighbourhood search (`search_seconds`).",
        [
            ("adult", "python benchmarks/adult.py"),
            (
                "adult-rounds",
                "python benchmarks/adult.py --k 25 --bound-rounds 2 3 --only-variants "
                "--save adult-rounds",
            ),
            (
                "adult-rounds-15",
                "python benchmarks/adult.py --k 5 10 25 --bound-rounds 15 --only-variants "
                "--save adult-rounds-15",
            ),
            (
                "adult-search",
                "python benchmarks/adult.py --k 10 25 --only-variants --search-seconds 600 "
                "--save adult-search",
            ),
        ],
    ),
    (
        "Global recoding",
        "Optimal full-domain generalization (`global-recoding`, consistent categories) with a "
        "5 % suppression limit, beside ARX's optimal global recoding (Flash) with the same "
        "limit, as measured on this machine type (`../shared/notes/ncp-definition.md`). Each "
        "run is the whole `incrowd anonymize` command in a new process, as ARX's figures are "
        "the whole process with its JVM; NCP by `benchmarks/ncp_checker.py` (a suppressed "
        "record costs 1 per cell); every release verified. Then 1,000,000 census-like records "
        "with the same eight quasi-identifiers.",
        [("global_recoding", "python benchmarks/global_recoding.py")],
    ),
    (
        "The suppression limit of the local methods",
        "`local-recoding` and `forest` with `--suppression-limit` 0, 1 % and 5 %: the records "
        "they delete where that lowers the loss, and the NCP (a deleted record costs 1 per "
        "cell), on Adult (age numeric) and on census-like records with zip codes; each run "
        "in one process after the kernels were compiled.",
        [("suppression_limit", "python benchmarks/suppression_limit.py --save")],
    ),
    (
        "The certificate's crowd searches",
        "The certificate of value-set releases searches small crowds among each record's "
        "nearest records; on large tables the searches cost more than the release, so they "
        "run only up to a number of records. Census-like rows with zip codes, each size with "
        "the searches on and off, each run in its own process.",
        [("crowd_searches", "python benchmarks/crowd_searches.py")],
    ),
    (
        "MDAV",
        "MDAV on standardized Gaussian microdata, each configuration in its own process, "
        "beside sdcMicro's MDAV as measured on this machine type; then MDAV on Adult beside "
        "other CPU-bound jobs, and `forest` against `mdav` on a quasi-identifier with as many "
        "values as records.",
        [
            ("mdav", "python benchmarks/mdav.py"),
            ("shared_machine", "python benchmarks/shared_machine.py"),
            ("wide_categorical", "python benchmarks/wide_categorical.py"),
        ],
    ),
    (
        "Neighbour lists of many distinct rows",
        "Each distinct row's nearest rows, which `forest` and `local-recoding` move records "
        "among: both exact routes (the compiled scan and the KD-tree split on wide labels) "
        "timed on the same rows, then the whole `forest` release by the route incrowd chooses.",
        [
            ("neighbour_lists", "python benchmarks/neighbour_lists.py"),
            ("neighbour_lists_large", "python benchmarks/neighbour_lists.py --large"),
        ],
    ),
    (
        "2-microaggregation",
        "2-μ-Approx (the [1,2]-factor, SSE at most twice the optimum): seconds of the whole "
        "fit (neighbours, exact factor, certificate), whether the factor is proven minimum "
        "over all pairs (else the proven gap), and the certified ratio.",
        [("factors", "python benchmarks/factors.py")],
    ),
    (
        "The r-Gather family",
        "Seconds of `fit` in a fresh process, refinement included, and its peak memory.",
        [("gather", "python benchmarks/gather.py --million")],
    ),
    (
        "Cellular clustering and the refined r-Gather family",
        "Adult with every QI a label of its ARX hierarchy, generalized release scored by the "
        "NCP checker, whole `anonymize` call; Gaussian points each in their own process, "
        "seconds including the neighbour search.",
        [("cellular", "python benchmarks/cellular.py --million")],
    ),
    (
        "One attribute",
        "Bin covering, zip regions and GPS rectangles, after one warm-up run. The "
        "experiments in `experiments/` write their own tables and plots to "
        "`experiments/results/`.",
        [("single_attribute", "python benchmarks/single_attribute.py")],
    ),
    (
        "Risk, l-diversity and the report",
        "The linkage attack on each kind of release, l-diversity on the sensitive attribute "
        "with `forest` and `local-recoding`, and the HTML report, each timed after a warm-up.",
        [("risk_and_report", "python benchmarks/risk_and_report.py")],
    ),
    (
        "First run",
        "`make` compiles the kernels when it installs the package (`incrowd precompile`); "
        "after a bare `pip install` the first run compiles what it needs. The command of "
        "`make demo`, first with an empty kernel cache, then again in the same cache.",
        [("cold_start", "python benchmarks/cold_start.py")],
    ),
    (
        "Blockwise, on Dask",
        "What the blockwise runs of [Blockwise, on Dask](blockwise.md) cost and lose, on a "
        "cluster of separate `dask scheduler` and `dask worker --nthreads 1` processes, on "
        "census-like data from `incrowd.datasets.make_census`. The script keeps each part's "
        "latest run; each row of the JSON names the command that ran it.",
        [("blockwise", "python benchmarks/blockwise.py")],
    ),
    (
        "Kills at any moment",
        "How the write protocol of [the file format]"
        "(file-format.md#writing-releases-nothing-lost-nothing-overwritten) stands up to "
        "kills: SIGTERM to `incrowd anonymize` of Adult at random moments; each run must exit "
        "with the signal's code and no traceback, leave no process running, and leave no "
        "file or a whole release that `incrowd verify` accepts. For a nightly job: the "
        "crashes it looks for are too rare for `make test`.",
        [("kill_anytime", "python benchmarks/kill_anytime.py")],
    ),
]


def render(results: Path = RESULTS) -> str:
    """The page, from the JSON files in ``results``."""
    parts = [HEAD]
    known = set()
    for heading, intro, files in SECTIONS:
        parts.append(f"## {heading}\n\n{_wrap(intro)}\n")
        for name, how in files:
            known.add(name)
            parts.append(_measured(results / f"{name}.json", how))
    others = sorted(p for p in results.glob("*.json") if p.stem not in known)
    if others:
        parts.append("## Other benchmarks\n")
        parts += [_measured(path, f"python benchmarks/{path.stem}.py") for path in others]
    return "\n".join(parts)


def _measured(path: Path, how: str) -> str:
    if not path.exists():
        return f"*Not measured yet:* `{how}` writes `benchmarks/results/{path.name}`.\n"
    record = json.loads(path.read_text())
    if isinstance(record, list):  # a file written before the scripts recorded the run
        record = {"command": how, "tables": [], "rows": record}
    lines = [f"`{record['command']}`" + _when(record) + ":\n"]
    tables = record.get("tables") or [_rows_table(record["rows"])]
    for table in tables:
        if table.get("title"):
            lines.append(f"*{_escape(table['title'])}*\n")
        lines.append(_markdown(table["header"], table["rows"]) + "\n")
    return "\n".join(lines)


def _when(record: dict) -> str:
    if "date" not in record:
        return " (date and machine not recorded)"
    m = record.get("machine", {})
    said = [
        f" on {record['date']}; {m.get('cpu', 'unknown processor')}",
        f"{m.get('cores')} cores",
        f"{m.get('memory_gb')} GB",
        f"{m.get('system')}",
        f"Python {m.get('python')}",
    ]
    if m.get("commit"):
        said.append(f"commit `{m['commit']}`")
    if "load_5min" in m:
        said.append(f"5-minute load average {m['load_5min']} as it ended")
    return ", ".join(said)


def _rows_table(rows: list[dict]) -> dict:
    header = list(dict.fromkeys(key for row in rows for key in row))
    return {"title": "", "header": header, "rows": [[r.get(k, "") for k in header] for r in rows]}


def _wrap(text: str) -> str:
    return textwrap.fill(text, width=92, break_long_words=False, break_on_hyphens=False)


def _escape(cell: object) -> str:
    return str(cell).replace("|", "\\|").replace("\n", " ")


def _markdown(header: list[object], rows: list[list[object]]) -> str:
    lines = ["| " + " | ".join(_escape(h) for h in header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_escape(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the page is stale")
    args = parser.parse_args()
    page = render()
    if args.check:
        if PAGE.read_text() != page:
            sys.exit(f"{PAGE} is stale: run python benchmarks/make_performance_page.py")
        return
    PAGE.write_text(page)
    print(f"wrote {PAGE}")


if __name__ == "__main__":
    main()
