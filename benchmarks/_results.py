"""Where the benchmark scripts put their figures: ``benchmarks/results/NAME.json``.

Each file records the figures (``rows``: one dict per run), the tables the script printed
(``tables``: header and cells, peers' columns included), the command that reproduces them,
the date and the machine. ``make_performance_page.py`` renders docs/performance.md from them.
"""

from __future__ import annotations

import json
import os
import platform
import shlex
import subprocess
import sys
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


def save(name: str, rows: list[dict], tables: list[dict] | None = None) -> None:
    """Write ``rows`` and ``tables`` (``{"title", "header", "rows"}``) as ``results/NAME.json``."""
    RESULTS.mkdir(exist_ok=True)
    record = {
        "benchmark": name,
        "command": command(),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": machine(),
        "tables": tables or [],
        "rows": rows,
    }
    (RESULTS / f"{name}.json").write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n")


def command() -> str:
    """The command line that ran this script, as run from the repository's root."""
    script = Path(sys.argv[0]).name
    return shlex.join(["python", f"benchmarks/{script}", *sys.argv[1:]])


def machine() -> dict:
    """What the figures depend on: processor, cores, memory, Python and the code's commit."""
    cpu = _proc_field("/proc/cpuinfo", "model name") or platform.processor() or "unknown"
    memory = _proc_field("/proc/meminfo", "MemTotal")
    gigabytes = round(int(memory.split()[0]) / 2**20, 1) if memory else None
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory_gb": gigabytes,
        "system": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "commit": _commit(),
        # other work slows the timings down: the machine's 5-minute load as the run ended
        "load_5min": round(os.getloadavg()[1], 1),
    }


def _proc_field(path: str, field: str) -> str | None:
    try:
        lines = Path(path).read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        key, _, value = line.partition(":")
        if key.strip() == field:
            return value.strip()
    return None


def _commit() -> str | None:
    """The checkout's commit, ``+changes`` when the library's code (``src/``) differs from it."""
    root = Path(__file__).resolve().parents[1]
    try:
        run = {"cwd": root, "capture_output": True, "text": True, "check": True}
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], **run).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "src"], **run).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    return head + ("+changes" if dirty else "")


def titled(title: str, header: list[str], rows: list[list[object]]) -> dict:
    """A table as ``save`` stores it and ``table`` prints it."""
    return {"title": title, "header": header, "rows": rows}


def table(header: list[str], rows: list[list[object]]) -> str:
    """A markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)
