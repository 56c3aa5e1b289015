"""``incrowd ui``: a local browser app over the engine — open a table, see what is inferred
of each column, set roles, types, hierarchies and the privacy model, run on a worker
process with its progress, read the report, save the release, its report and the job file.

:class:`~incrowd.ui.server.LocalApp` is the server (loopback only, a token per start);
:mod:`~incrowd.ui.security` its rules, :mod:`~incrowd.ui.app` its routes,
:mod:`~incrowd.ui.tables` the table's view and the form's settings,
:mod:`~incrowd.ui.hierarchies` the hierarchies offered, :mod:`~incrowd.ui.limits` the
caps on bodies, uploads and runs, :mod:`~incrowd.ui.runs` the runs. Starlette, uvicorn
and Jinja2 come with the ``ui`` extra (``pip install 'incrowd[ui]'``); the page's script
and style ship in the package.
"""
