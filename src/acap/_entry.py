"""The ``acap`` console script and ``python -m acap``: :func:`acap.cli._group.main`, with the
cyclic garbage collector off from the very first import, and without the
interpreter's module teardown at the end.

A command is a short process whose objects are freed by reference counting;
the collector's passes over the many objects that imports create cost about a
tenth of an ``acap build`` (issue 7). Turning it off here, before click and
the rest are imported, rather than in :func:`acap.cli._group.main`, also spares the
imports. Long-running work turns it back on (``acap serve``, batch builds).

When the command is done, the interpreter would tear down every module it
imported, one object at a time: about 25 ms, an eighth of an ``acap build``,
spent after the last line is printed. :func:`main` instead flushes the output,
runs the ``atexit`` handlers (temporary folders, worker pools) and ends the
process with :func:`os._exit`. Every file acap writes is closed before its
command returns (``with`` blocks, :func:`acap.site._files.write_site`), so nothing is
lost. Importing :mod:`acap.cli._group` (as tests and other programs do) leaves both
alone.
"""

from __future__ import annotations

import gc
import signal

gc.disable()
# Ctrl-C while Python is still importing ends the process quietly (as a shell shows it),
# not with a traceback through importlib; acap.cli._group handles it from then on.
signal.signal(signal.SIGINT, signal.SIG_DFL)

import atexit  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402

from acap.cli import main as _cli_main  # noqa: E402

signal.signal(signal.SIGINT, signal.default_int_handler)

__all__ = ["main"]


def main() -> None:
    """Run the ``acap`` command and end the process with its exit code (0, 1 or 2).

    Raises:
        Nothing: the process ends here (see the module docstring).
    """
    try:
        _cli_main()
        code: object = 0
    except SystemExit as exc:
        code = exc.code
    os._exit(_finish(code))


def _finish(code: object) -> int:
    """What :func:`sys.exit` would do with ``code`` before the interpreter ends: the
    exit status (``None`` 0, an integer as is, anything else printed and 1), after
    flushing the output and running the ``atexit`` handlers."""
    status = 0
    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code
    else:
        print(code, file=sys.stderr)
        status = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (acap ... | head): as Python does
            status = status or 120
    atexit._run_exitfuncs()  # public in all but name; it is what the interpreter runs
    return status
