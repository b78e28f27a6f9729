"""The JSON Schemas acap ships (Draft 2020-12), loaded and compiled once per process.

* ``operator.schema.json``: operator.yaml.
* ``on-request-extension.schema.json``: the extension's ``params`` (root) and
  the §6.1 reply object (``#/$defs/reply``); ``$id`` under the extension URI.
* ``a2a-agent-card.schema.json``: the A2A 1.0 AgentCard, from a2a.proto v1.0.1.
* ``acap-output.schema.json``: what ``acap ... --format json`` prints (acap's own, not the
  extension's: not published with the specification site, not in :data:`ALL`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import cache
from typing import Any

from acap._package import package_path

OPERATOR = "operator.schema.json"
EXTENSION = "on-request-extension.schema.json"
AGENT_CARD = "a2a-agent-card.schema.json"
ALL = (OPERATOR, EXTENSION, AGENT_CARD)
OUTPUT = "acap-output.schema.json"


def schema_bytes(name: str) -> bytes:
    """The exact bytes of a shipped schema file (published byte for byte).

    Raises:
        FileNotFoundError: ``name`` is not one of :data:`ALL` or :data:`OUTPUT`.
    """
    return package_path("schemas", name).read_bytes()


@cache
def schema(name: str) -> dict[str, Any]:
    """A shipped schema as a dict (cached; do not mutate)."""
    data: dict[str, Any] = json.loads(schema_bytes(name))
    return data


def _subschema(name: str, ref: str | None) -> dict[str, Any]:
    root = schema(name)
    if ref is None:
        return root
    return {"$schema": root["$schema"], "$defs": root["$defs"], "$ref": f"#/$defs/{ref}"}


@cache
def _fast(name: str, ref: str | None) -> Any:
    """A compiled jsonschema-rs validator, or ``None`` when jsonschema-rs is unavailable."""
    try:
        import jsonschema_rs  # start-up: compiled only when a schema is first used
    except ImportError:  # pragma: no cover - a platform without its wheels
        return None
    return jsonschema_rs.Draft202012Validator(_subschema(name, ref), validate_formats=False)


def errors(name: str, instance: Any, ref: str | None = None) -> list[Any]:
    """Every Draft 2020-12 validation error of ``instance`` against a shipped schema.

    A valid instance (the common case) is answered by jsonschema-rs, which
    compiles the schema to native code and needs microseconds where the
    ``jsonschema`` package needs milliseconds, and which saves importing
    ``jsonschema`` at all (about 50 ms of start-up): ``acap build`` must feel
    instant and a batch build handle thousands of cards per second (issue 7).
    Only an invalid instance is handed to ``jsonschema``, whose errors carry
    the paths, keywords and subschemas acap turns into findings. The test
    suite checks that both agree on every case file.

    Args:
        name: one of :data:`ALL`.
        instance: the JSON data.
        ref: optional ``$defs`` name to validate against instead of the root.

    Returns:
        ``jsonschema.ValidationError`` objects; ``[]`` when valid.
    """
    fast = _fast(name, ref)
    if fast is not None and fast.is_valid(instance):
        return []
    return list(validator(name, ref).iter_errors(instance))


def required_member(err: Any, siblings: Sequence[Any]) -> str:
    """The member a jsonschema ``required`` error finds missing, read from the error's
    structure (the ``required`` list, the object), never from its English message.

    jsonschema yields one ``required`` error per missing member, in the order of the
    list, each with the whole list: the k-th such error at one place (among
    ``siblings``, the errors it came with) names the k-th missing member.

    Args:
        err: a ``ValidationError`` whose ``validator`` is ``required``.
        siblings: the errors ``err`` was found with (:func:`errors`, or an error's
            ``context``).

    Returns:
        The member's name (``""`` if the error is not such an error).
    """
    have = err.instance if isinstance(err.instance, dict) else {}
    names = err.validator_value if isinstance(err.validator_value, list) else []
    missing = [str(m) for m in names if m not in have]
    same = [e for e in siblings if e.validator == "required" and e.schema is err.schema
            and list(e.absolute_path) == list(err.absolute_path)]
    k = next((i for i, e in enumerate(same) if e is err), 0)
    return missing[k] if k < len(missing) else (missing[0] if missing else "")


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
    # start-up: jsonschema (50 ms to import) only explains a document that is not valid
    from jsonschema import Draft202012Validator

    return Draft202012Validator(_subschema(name, ref))
