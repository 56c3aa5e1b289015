"""``python -m incrowd``: the command line."""

from .cli import main

main()
