"""Exceptions raised by incrowd.

Every problem with the user's input or parameters is an :class:`IncrowdError`; the CLI turns
each into a one-line message and exit code 2. The subclasses also derive from the built-in
exception a Python user would expect (``ValueError``, ``FileNotFoundError``), so generic
handlers keep working.
"""

from __future__ import annotations

__all__ = [
    "IncrowdError",
    "InputError",
    "OutputError",
    "SchemaError",
    "HierarchyError",
    "ParameterError",
    "InfeasibleError",
    "PrivacyViolation",
    "IncrowdWarning",
]


class IncrowdError(Exception):
    """Base class of every error incrowd raises on purpose."""


class InputError(IncrowdError, ValueError):
    """The input table cannot be read or contains values the schema does not allow."""


class OutputError(IncrowdError, OSError):
    """An output cannot be written where asked (a directory, an existing file that is not a
    release, no permission, a full disk); nothing was changed."""


class SchemaError(IncrowdError, ValueError):
    """Column roles are inconsistent with each other or with the table."""


class HierarchyError(SchemaError):
    """A generalization hierarchy is malformed or does not cover the data."""


class ParameterError(IncrowdError, ValueError):
    """An algorithm or release parameter is out of its allowed range."""


class InfeasibleError(IncrowdError, ValueError):
    """The requested anonymity cannot be achieved on this input (e.g. fewer records than k)."""


class PrivacyViolation(IncrowdError):
    """A published table fails an independent privacy check."""


class IncrowdWarning(UserWarning):
    """Something the user asked for has no effect, or a guess about their data could be
    wrong; the command line prints each as one ``warning:`` line (issued with
    :func:`warnings.warn`, so Python callers can filter or raise them)."""
