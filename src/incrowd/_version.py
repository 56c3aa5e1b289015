"""The version, in one place: pyproject.toml reads it from here (``[tool.setuptools.dynamic]``),
so that ``incrowd --version`` needs no package metadata look-up (``importlib.metadata``
took a third of the command line's start-up)."""

__version__ = "0.1.0"
