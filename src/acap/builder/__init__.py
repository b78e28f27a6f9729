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
    from acap.builder._build import (
        assemble as assemble,
        build as build,
        input_digest as input_digest,
        write_or_report as write_or_report,
    )
    from acap.builder._context import (
        BuildContext as BuildContext,
        BuildOptions as BuildOptions,
        BuildResult as BuildResult,
    )
    from acap.builder._init_project import (
        InitResult as InitResult,
        ignored_patterns as ignored_patterns,
        init_project as init_project,
        pip_spec as pip_spec,
    )
    from acap.builder._steps import (
        FINAL_CHECKS as FINAL_CHECKS,
        STEPS as STEPS,
        Step as Step,
        json_bytes as json_bytes,
    )

__getattr__, __all__ = exports(__name__, {
    "_context": ["BuildContext", "BuildOptions", "BuildResult"],
    "_build": ["assemble", "build", "input_digest", "write_or_report"],
    "_steps": ["FINAL_CHECKS", "STEPS", "Step", "json_bytes"],
    "_init_project": ["InitResult", "ignored_patterns", "init_project", "pip_spec"],
})
