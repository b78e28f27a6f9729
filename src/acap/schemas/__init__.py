"""The JSON Schemas acap ships (Draft 2020-12), loaded and compiled once per process.

* ``operator.schema.json``: operator.yaml.
* ``on-request-extension.schema.json``: the extension's ``params`` (root) and
  the §6.1 reply object (``#/$defs/reply``); ``$id`` under the extension URI.
* ``a2a-agent-card.schema.json``: the A2A 1.0 AgentCard, from a2a.proto v1.0.1.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

OPERATOR = "operator.schema.json"
EXTENSION = "on-request-extension.schema.json"
AGENT_CARD = "a2a-agent-card.schema.json"
ALL = (OPERATOR, EXTENSION, AGENT_CARD)


def schema_bytes(name: str) -> bytes:
    """The exact bytes of a shipped schema file (published byte for byte).

    Raises:
        FileNotFoundError: ``name`` is not one of :data:`ALL`.
    """
    return resources.files(__package__).joinpath(name).read_bytes()


@cache
def schema(name: str) -> dict[str, Any]:
    """A shipped schema as a dict (cached; do not mutate)."""
    data: dict[str, Any] = json.loads(schema_bytes(name))
    return data


@cache
def validator(name: str, ref: str | None = None) -> Any:
    """A compiled Draft 2020-12 validator for a shipped schema, built once per process.

    Args:
        name: one of :data:`ALL`.
        ref: optional ``$defs`` name to validate against instead of the root
            (``"reply"`` for the §6.1 object).

    Returns:
        A ``jsonschema.Draft202012Validator``.
    """
    from jsonschema import Draft202012Validator

    root = schema(name)
    if ref is None:
        return Draft202012Validator(root)
    sub = {"$schema": root["$schema"], "$defs": root["$defs"], "$ref": f"#/$defs/{ref}"}
    return Draft202012Validator(sub)
