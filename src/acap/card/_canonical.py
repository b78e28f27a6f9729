"""The signed payload of an AgentCard: presence rules, then RFC 8785 (JCS).

A2A 1.0 §8.4.1 says what is signed: the card without ``signatures``, with
default-valued fields removed by protocol-buffer presence rules (§5.7), then
canonicalized with RFC 8785. Two readings exist in practice, and a verifier
must accept cards signed under either:
* :data:`SDK` — what the official SDKs do (a2a-sdk 1.3 Python and @a2a-js/sdk
  1.3): parse into the proto types (fields outside A2A 1.0 vanish, a proto field
  name such as ``default_input_modes`` is read as its JSON name), drop every
  empty string, array, object and null anywhere (inside ``params`` too) and every
  proto default (``required: false``).
* :data:`SPEC` — the specification's text: drop ``signatures`` and fields that
  hold their proto default unless they are REQUIRED or ``optional``; keep
  everything else, including fields outside the schema.

For a card that never holds empties or unknown fields (every card acap builds)
both give the same bytes. Canonicalization itself is the ``rfc8785`` package, or, for a
value where the two are proved to give the same bytes, orjson (:func:`canonicalize`).
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any, Literal

import orjson
import rfc8785

from acap import schemas
from acap.errors import CanonicalizationError

Mode = Literal["sdk", "spec"]
SDK: Mode = "sdk"
SPEC: Mode = "spec"

#: Fields declared with the proto ``optional`` keyword (explicit presence), by message.
OPTIONAL_FIELDS = {
    "AgentCard": {"documentationUrl", "iconUrl"},
    "AgentCapabilities": {"streaming", "pushNotifications", "extendedAgentCard"},
}


@cache
def _messages() -> dict[str, Any]:
    return schemas.schema(schemas.AGENT_CARD)["$defs"]  # type: ignore[no-any-return]


def _ref_name(sub: dict[str, Any]) -> str | None:
    ref = sub.get("$ref", "")
    return ref.rsplit("/", 1)[-1] if ref.startswith("#/$defs/") else None


def _clean_empty(value: Any, depth: int = 0) -> Any:
    """Drop empty strings, arrays, objects and nulls, recursively (the SDKs' rule)."""
    if depth > 100:
        raise CanonicalizationError("the card nests more than 100 levels deep")
    if isinstance(value, dict):
        out = {k: c for k, v in value.items() if (c := _clean_empty(v, depth + 1)) is not None}
        return out or None
    if isinstance(value, list):
        items = [c for v in value if (c := _clean_empty(v, depth + 1)) is not None]
        return items or None
    if value == "" or value is None:
        return None
    return value


def _is_default(v: Any) -> bool:
    return v is None or v is False or v == "" or v == [] or v == {} or (
        isinstance(v, (int, float)) and not isinstance(v, bool) and v == 0)


def _project(value: Any, message: str, mode: Mode, depth: int = 0) -> Any:
    """Apply presence rules to ``value`` as an instance of proto ``message``."""
    if depth > 100:
        raise CanonicalizationError("the card nests more than 100 levels deep")
    spec = _messages()[message]
    if not isinstance(value, dict):
        return value
    props: dict[str, Any] = spec.get("properties", {})
    required = set(spec.get("required", ()))
    optional = OPTIONAL_FIELDS.get(message, set())
    out: dict[str, Any] = {}
    for key, v in value.items():
        sub = props.get(key)
        if sub is None:
            if mode == SPEC:
                out[key] = v  # outside the schema: the spec's text does not drop it
            continue
        if mode == SPEC and key not in required and key not in optional and _is_default(v):
            continue
        out[key] = _project_field(v, sub, mode, depth)
    return out


def _project_field(v: Any, sub: dict[str, Any], mode: Mode, depth: int) -> Any:
    name = _ref_name(sub)
    if name:
        return _project(v, name, mode, depth + 1)
    if sub.get("type") == "array" and isinstance(v, list):
        item_name = _ref_name(sub.get("items", {}))
        return [_project(i, item_name, mode, depth + 1) if item_name else i for i in v]
    ap = sub.get("additionalProperties")
    if sub.get("type") == "object" and isinstance(ap, dict) and isinstance(v, dict):
        item_name = _ref_name(ap)
        return {k: _project(i, item_name, mode, depth + 1) if item_name else i
                for k, i in v.items()}
    return v


def payload_object(card: dict[str, Any], mode: Mode = SDK) -> dict[str, Any]:
    """The object that is canonicalized and signed (A2A §8.4.1, steps 1 and 3).

    Args:
        card: an AgentCard as parsed JSON.
        mode: :data:`SDK` (default; what a2a-sdk and @a2a-js/sdk verify) or
            :data:`SPEC` (the specification's text taken literally).

    Returns:
        A new dict, without ``signatures`` and without default-valued fields.

    Raises:
        CanonicalizationError: the card nests more than 100 levels deep.
    """
    body = {k: v for k, v in card.items() if k != "signatures"}
    if mode == SDK:
        return _sdk_message(body, "AgentCard", 0) or {}
    return _project(body, "AgentCard", mode)  # type: ignore[no-any-return]


_MSG, _LIST, _MAP, _VALUE = range(4)
Fields = dict[str, tuple[int, str]]


@cache
def _tables() -> dict[str, tuple[Fields, frozenset[str]]]:
    """Per proto message: ``({field: (kind, message of its values)}, plain bools)``.

    Plain bools are proto3 ``bool`` fields without ``optional``: their default
    ``false`` is not written by the SDKs' MessageToDict (``required: false``).
    Built once per process from the AgentCard schema, so that signing a card is
    one pass over it (issue 7: signing within 1.5x of bare JCS + ECDSA).
    """
    out = {}
    for name, spec in _messages().items():
        fields: Fields = {}
        plain = set()
        for field, sub in spec.get("properties", {}).items():
            items, values = sub.get("items"), sub.get("additionalProperties")
            if _ref_name(sub):
                fields[field] = (_MSG, str(_ref_name(sub)))
            elif isinstance(items, dict) and _ref_name(items):
                fields[field] = (_LIST, str(_ref_name(items)))
            elif isinstance(values, dict) and _ref_name(values):
                fields[field] = (_MAP, str(_ref_name(values)))
            else:
                fields[field] = (_VALUE, "")
            if sub.get("type") == "boolean" and field not in OPTIONAL_FIELDS.get(name, ()):
                plain.add(field)
        out[name] = (fields, frozenset(plain))
    return out


@cache
def _snake_names() -> dict[str, dict[str, str]]:
    """Per message: proto field name (``default_input_modes``) -> JSON name."""

    out: dict[str, dict[str, str]] = {}
    for name, (fields, _) in _tables().items():
        snake = {re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", f).lower(): f for f in fields}
        out[name] = {k: v for k, v in snake.items() if k != v}
    return out


def _sdk_message(value: Any, message: str, depth: int) -> Any:
    """The SDKs' reading in one pass: fields outside the message dropped, plain-bool
    defaults dropped, empty strings/arrays/objects/nulls dropped, recursively."""
    if depth > 100:
        raise CanonicalizationError("the card nests more than 100 levels deep")
    if not isinstance(value, dict):
        return _clean_empty(value, depth)
    fields, plain = _tables()[message]
    aliases = _snake_names()[message]
    out: dict[str, Any] = {}
    for key, v in value.items():
        f = fields.get(key)
        if f is None:
            # ProtoJSON parsers (both SDKs) accept the proto field name too and sign the
            # member under its JSON name; the JSON name wins when both are written.
            key = aliases.get(key, "")
            f = fields.get(key) if key not in value else None
            if f is None:
                continue
        kind, target = f
        c: Any
        if kind == _MSG:
            c = _sdk_message(v, target, depth + 1)
        elif kind == _LIST and isinstance(v, list):
            c = [x for i in v if (x := _sdk_message(i, target, depth + 1)) is not None] or None
        elif kind == _MAP and isinstance(v, dict):
            c = {k: x for k, i in v.items()
                 if (x := _sdk_message(i, target, depth + 1)) is not None} or None
        else:
            c = _clean_empty(v, depth + 1)
        if c is None or (c is False and key in plain):
            continue
        out[key] = c
    return out or None


def canonical_payload(card: dict[str, Any], mode: Mode = SDK) -> bytes:
    """The JWS payload bytes for ``card``: :func:`payload_object`, then RFC 8785.

    Raises:
        CanonicalizationError: RFC 8785 cannot represent a value of the card.
    """
    return canonicalize(payload_object(card, mode))


def canonicalize(value: Any) -> bytes:
    """RFC 8785 canonical UTF-8 bytes of a JSON value.

    The ``rfc8785`` package is the reference. A value of only text, booleans, nulls,
    integers within I-JSON's range (RFC 8785 §3.2.2.3: at most 2**53 - 1 either way),
    lists and objects whose member names hold no character beyond the Basic
    Multilingual Plane is written by orjson instead (``OPT_SORT_KEYS``), which gives
    the same bytes ten times faster (a batch signs thousands of cards; issue 24): both
    write text as UTF-8 with the same escapes (``\\"``, ``\\\\``, ``\\b \\f \\n
    \\r \\t``, and ``\\u00xx`` for the other control characters), integers in decimal,
    and sort names by code point, which for such names is RFC 8785's UTF-16 order. A
    float (ECMAScript's number form), a name beyond that plane, or anything orjson
    refuses (a lone surrogate, a name that is no text) goes to ``rfc8785``, which
    writes it or refuses it as before. A test compares the bytes of both on every case
    card, the differential suite's cards and random values.

    Raises:
        CanonicalizationError: a number outside the I-JSON range (RFC 8785 §3.2.2.3)
            or another value JSON cannot hold.
    """
    if _plain_json(value):
        try:
            return orjson.dumps(value, option=_JCS_OPTIONS)
        except orjson.JSONEncodeError:
            pass  # rfc8785 says what is wrong, or writes what orjson refuses
    try:
        return rfc8785.dumps(value)
    except (rfc8785.CanonicalizationError, RecursionError, TypeError) as exc:
        raise CanonicalizationError(f"cannot canonicalize: {exc}") from exc


#: orjson's options for RFC 8785 (see :func:`canonicalize`): names sorted, and an integer
#: beyond 53 bits refused (then judged by ``rfc8785``).
_JCS_OPTIONS = orjson.OPT_SORT_KEYS | orjson.OPT_STRICT_INTEGER
#: The types orjson writes as RFC 8785 does, exactly these (no subclass).
_SCALARS = frozenset({str, int, bool, type(None)})


def _plain_json(value: Any) -> bool:
    """Whether ``value`` is one orjson writes as RFC 8785 does (see :func:`canonicalize`):
    text, integers, booleans and nulls, in lists and objects (100 levels at most: deeper,
    or a cycle, is left to ``rfc8785``) whose member names are text within the Basic
    Multilingual Plane."""
    stack = [(value, 0)]
    while stack:
        v, depth = stack.pop()
        kind = type(v)
        if kind in _SCALARS:
            continue
        if depth > 100:
            return False
        if kind is dict:
            for k in v:
                if type(k) is not str or not (k.isascii() or max(k) <= "\uffff"):
                    return False
            stack.extend((x, depth + 1) for x in v.values())
        elif kind is list or kind is tuple:
            stack.extend((x, depth + 1) for x in v)
        else:
            return False
    return True
