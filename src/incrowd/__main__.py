"""``python -m incrowd``: the command line."""

from .cli.app import main

main()
