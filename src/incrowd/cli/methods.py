"""``incrowd methods``: the methods with their guarantees and references."""

from __future__ import annotations

import sys
import textwrap

__all__ = ["methods"]


def methods() -> None:
    """List the methods with their guarantees and references."""
    from ..algorithms.catalogue import CATALOGUE  # no algorithm imported to list them

    # plain text, not a rich table: importing rich costs a fifth of the command
    # (benchmarks/cold_start.py); long guarantees wrap under their method
    for name, (guarantee, objective, reference) in sorted(CATALOGUE.items()):
        lines = [f"{name}  ({objective})"]
        for label, text in (("guarantee", guarantee), ("reference", reference)):
            lines += textwrap.wrap(f"{label}: {text}", width=88, initial_indent="    ",
                                   subsequent_indent="        ")  # fmt: skip
        sys.stdout.write("\n".join(lines) + "\n")
