"""The ``acap`` console script and ``python -m acap``: :func:`acap.cli.main`, with the
cyclic garbage collector off from the very first import.

A command is a short process whose objects are freed by reference counting;
the collector's passes over the many objects that imports create cost about a
tenth of an ``acap build`` (issue 7). Turning it off here, before click and
the rest are imported, rather than in :func:`acap.cli.main`, also spares the
imports. Long-running work turns it back on (``acap serve``, batch builds).
Importing :mod:`acap.cli` (as tests and other programs do) leaves it alone.
"""

from __future__ import annotations

import gc

gc.disable()

from acap.cli import main  # noqa: E402

__all__ = ["main"]
