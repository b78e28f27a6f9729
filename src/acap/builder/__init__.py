"""Build: operator.yaml -> a signed Agent Card and everything site/ needs, written at once.

``load + schema -> requirement checks -> AgentCard -> self-check against the A2A and
extension schemas -> sign (JWS) -> JWKS -> spec site -> personEntry pages -> hosting files
-> final checks over every built file -> site/ swapped in``. A build that finds an error
writes nothing (:func:`build` -> :class:`BuildResult`).

Also here: :func:`init_project` (``acap init``: a new project), the steps'
shared state (:class:`BuildContext`), and the subpackages :mod:`acap.builder.pages`,
:mod:`acap.builder.specsite` and :mod:`acap.builder.batch`.

May import: :mod:`acap.checks`, :mod:`acap.card`, :mod:`acap.keys`, :mod:`acap.site`,
:mod:`acap.load` and the modules below them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from acap._lazy import exports

if TYPE_CHECKING:
    from acap.builder._build import build as build
    from acap.builder._build import input_digest as input_digest
    from acap.builder._context import BuildContext as BuildContext
    from acap.builder._context import BuildOptions as BuildOptions
    from acap.builder._context import BuildResult as BuildResult
    from acap.builder._init_project import InitResult as InitResult
    from acap.builder._init_project import ignored_patterns as ignored_patterns
    from acap.builder._init_project import init_project as init_project
    from acap.builder._init_project import pip_spec as pip_spec

__getattr__, __dir__ = exports(__name__)
