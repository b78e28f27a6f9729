"""Requirement checks: operator.yaml at build time, and any card with ``acap check``.

Each check is a function returning findings that cite a rule id from the
requirement registry (``acap/data/requirements.json``). Grep a rule id
(``OR-3.4``) to find the code that enforces it.
"""

from __future__ import annotations

from ..findings import Finding
from ..operator_config import OperatorConfig
from . import operator_rules


def check_operator(cfg: OperatorConfig) -> list[Finding]:
    """Every requirement check that operator.yaml allows, on a schema-valid file.

    Args:
        cfg: a loaded operator.yaml whose schema findings have no error.

    Returns:
        Findings (errors and warnings), in file order.
    """
    return operator_rules.run(cfg)
