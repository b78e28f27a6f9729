"""Build: operator.yaml -> a signed Agent Card and everything site/ needs, written at once.

``load + schema -> requirement checks -> AgentCard -> self-check against the A2A and
extension schemas -> sign (JWS) -> JWKS -> spec site -> personEntry pages -> hosting files
-> final checks over every built file -> site/ swapped in``. A build that finds an error
writes nothing (:func:`build` -> :class:`BuildResult`).

Also here: the agent's runtime policy (:func:`agent_policy`, written beside the signing
key after site/ was replaced, never published; read by :mod:`acap.agent`),
:func:`init_project` (``acap init``: a new project), the steps'
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
    from acap.builder._build import check_operator_file as check_operator_file
    from acap.builder._build import input_digest as input_digest
    from acap.builder._context import BuildContext as BuildContext
    from acap.builder._context import BuildOptions as BuildOptions
    from acap.builder._context import BuildResult as BuildResult
    from acap.builder._init_project import ACTION_PLACEHOLDER as ACTION_PLACEHOLDER
    from acap.builder._init_project import InitResult as InitResult
    from acap.builder._init_project import action_ref as action_ref
    from acap.builder._init_project import ignored_patterns as ignored_patterns
    from acap.builder._init_project import init_language as init_language
    from acap.builder._init_project import init_languages as init_languages
    from acap.builder._init_project import init_project as init_project
    from acap.builder._init_project import placeholders as placeholders
    from acap.builder._policy import AgentPolicy as AgentPolicy
    from acap.builder._policy import SkillPolicy as SkillPolicy
    from acap.builder._policy import agent_policy as agent_policy
    from acap.builder._policy import policy_bytes as policy_bytes
    from acap.builder._policy import policy_path_for as policy_path_for
    from acap.builder._policy import read_agent_policy as read_agent_policy
    from acap.builder._steps import FINAL_CHECKS as FINAL_CHECKS
    from acap.builder._steps import STEPS as STEPS
    from acap.builder._steps import Step as Step
    from acap.builder._steps import json_bytes as json_bytes

__getattr__, __dir__ = exports(__name__)
