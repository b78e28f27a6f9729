"""Batch builds: many operator files into one site/, for hosting platforms.

:func:`build_many` builds each operator alone (in worker processes with ``jobs``), then
puts the new site together: a host belongs to one operator (``SITE-HOST``), operators of
the last build not in this batch keep their folders unless ``prune``, and an operator
that fails keeps its previous folders. One batch at a time per site folder.

May import: :mod:`acap.builder` (one operator's build) and the stages below it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from acap._lazy import exports

if TYPE_CHECKING:
    from acap.builder.batch._build import build_many as build_many
    from acap.builder.batch._build import default_jobs as default_jobs
    from acap.builder.batch._configs import find_configs as find_configs
    from acap.builder.batch._model import BatchOptions as BatchOptions
    from acap.builder.batch._model import BatchResult as BatchResult
    from acap.builder.batch._model import OperatorOutcome as OperatorOutcome

__getattr__, __dir__ = exports(__name__)
