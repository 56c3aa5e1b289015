"""``incrowd precompile``: compile the kernels into the kernel cache now."""

from __future__ import annotations

from typing import Annotated

import typer

from ._output import errors, out_console

__all__ = ["precompile"]


def precompile(
    parallel: Annotated[
        bool, typer.Option(help="Also MDAV's multi-threaded kernels (50,000+ records).")
    ] = False,
) -> None:
    """Compile the kernels now (into the kernel cache), so the first run is fast."""
    from ..precompile import precompile as run_all

    with errors():
        seconds = run_all(parallel=parallel)
    out_console.print(f"compiled incrowd's kernels in {seconds:.1f} s")
