"""One judgement per member of a card, shared by ``acap check`` and ``acap verify``.

Whether a member of an AgentCard is of A2A 1.0, written in its JSON name, of its
type, present when REQUIRED, empty, null, or a media type is judged here once;
``acap check`` (:mod:`acap.checks._a2a_structure`) and ``acap verify``
(:mod:`acap.card._verifier`) both report :func:`member_findings`, so they cannot
disagree on a member (a test runs both on every case file). What the JSON text
itself holds that readers read differently (a name twice, a lone surrogate, an
integer beyond ±(2^53−1)) is judged where the text is read
(:func:`acap.load._document.fault_findings`), for both alike.

The card is read as ProtoJSON reads it (A2A 1.0 §5.5 adopts it; both SDKs parse
cards into their proto types): ``null`` is an unset member, a proto field name
(``default_input_modes``) is read as its JSON name (``defaultInputModes``), and a
member outside the message is ignored (A2A §5.7: receivers SHOULD ignore unknown
fields). So:

* ``A2A-LEGACY`` (error): an A2A 0.3 member, with its 1.0 replacement;
* ``A2A-REQUIRED`` (error): a REQUIRED member missing (``null`` is missing), blank,
  or a REQUIRED list without an element that is not empty;
* ``A2A-TYPE`` (error): a member of another type than a2a.proto gives it, a oneof
  with more or fewer than one member;
* ``A2A-OAUTH-FLOWS`` (error): OAuthFlows holds other than one flow;
* ``A2A-FIELD-NAME`` (error): a member written with its proto field name
  (snake_case): the SDKs accept it and sign it under its JSON name, but A2A 1.0's
  JSON names are camelCase, and other readers do not know the member;
* ``A2A-UNKNOWN-FIELD`` (warning): a member A2A 1.0 does not define: ignored by
  receivers, dropped by the SDKs before they verify, so no signature covers it;
* ``A2A-EMPTY`` (warning): an empty string, list or object, a blank text, or a
  ``null``: the SDKs drop it before they verify, the specification's text keeps it;
* ``A2A-MEDIA-TYPE`` (error): an input or output mode that is not a media type
  (``type/subtype``, RFC 6838 §4.2; A2A 1.0 §4.4.1 "media types").
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from functools import cache
from typing import Any
from urllib.parse import urlsplit

from acap import schemas
from acap.card._canonical import _LIST, _MAP, _MSG, _snake_names, _tables
from acap.findings import Finding, Level, Location
from acap.load import (
    blank,
    dotted,
    pointer_join,
    pointer_of,
    pointer_tokens,
    shorten,
    strings,
    type_words,
    value_words,
)
from acap.uris import EXTENSION_URI

Locate = Callable[[str], Location]

OAUTH_FLOWS = ("authorizationCode", "clientCredentials", "deviceCode")
SCHEME_KINDS = ("apiKeySecurityScheme", "httpAuthSecurityScheme", "oauth2SecurityScheme",
                "openIdConnectSecurityScheme", "mtlsSecurityScheme")

#: A2A 0.3 fields and their 1.0 replacement, by where they sit (``*`` = any index or name).
LEGACY: dict[str, str] = {
    "/url": "supportedInterfaces[0].url",
    "/preferredTransport": "supportedInterfaces[].protocolBinding",
    "/additionalInterfaces": "supportedInterfaces (one entry per interface, the preferred first)",
    "/supportsAuthenticatedExtendedCard": "capabilities.extendedAgentCard",
    "/security": "securityRequirements ([{\"schemes\": {NAME: {\"list\": [SCOPES]}}}])",
    "/protocolVersion": "supportedInterfaces[].protocolVersion",
    "/skills/*/security": "securityRequirements on the skill",
    "/supportedInterfaces/*/transport": "protocolBinding",
    "/securitySchemes/*/type": "one member named for the kind: " + ", ".join(SCHEME_KINDS),
}

#: The media-type members (A2A 1.0 §4.4.1, §4.4.5), by where they sit.
_MODES = ("/defaultInputModes/*", "/defaultOutputModes/*", "/skills/*/inputModes/*",
          "/skills/*/outputModes/*")
#: RFC 6838 §4.2 restricted-name, or ``*`` (a media range, RFC 9110 §12.5.1), twice,
#: then parameters (RFC 9110 §8.3.1).
_NAME = r"(?:[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}|\*)"
_MEDIA_TYPE = re.compile(rf"{_NAME}/{_NAME}(?:\s*;\s*[A-Za-z0-9!#$%&'*+.^_`|~-]+="
                         r"(?:[A-Za-z0-9!#$%&'*+.^_`|~-]+|\"[^\"]*\"))*")


def is_extension_uri(uri: Any) -> bool:
    """True for the On Request URI exactly (OR-3.1)."""
    return isinstance(uri, str) and uri == EXTENSION_URI


def is_near_extension_uri(uri: Any) -> bool:
    """True for a URI that is meant as the On Request URI but is not exactly it.

    ``http://``, a trailing slash, other letter case, ``www.``, another version
    under the same path: each would make a client miss the declaration.
    """
    if not isinstance(uri, str) or uri == EXTENSION_URI:
        return False
    u = urlsplit(uri.strip().lower())
    host = (u.hostname or "").removeprefix("www.")
    return host == "agent-capability.org" and "/ext/on-request" in u.path


def _walk(card: dict[str, Any], visit: Callable[[str, str, str | None, Any], None]) -> None:
    """Call ``visit(pointer, message, JSON name or None, value)`` for every member of every
    message of ``card`` (``params`` and other free values are not entered); the JSON
    name is the member's own, or the one its proto field name stands for, or ``None``
    for a member the message does not define."""
    tables = _tables()
    aliases = _snake_names()
    stack: list[tuple[Any, str, str, int]] = [(card, "AgentCard", "", 0)]
    while stack:
        value, message, ptr, depth = stack.pop()
        if not isinstance(value, dict) or depth > 40:
            continue
        fields = tables[message][0]
        for key, v in value.items():
            p = pointer_join(ptr, key)
            name = key if key in fields else aliases[message].get(key)
            visit(p, message, name, v)
            if name is None:
                continue
            kind, target = fields[name]
            if kind == _MSG:
                stack.append((v, target, p, depth + 1))
            elif kind == _LIST and isinstance(v, list):
                stack.extend((x, target, pointer_join(p, i), depth + 1) for i, x in enumerate(v))
            elif kind == _MAP and isinstance(v, dict):
                stack.extend((x, target, pointer_join(p, k), depth + 1) for k, x in v.items())


def field_name_problems(card: dict[str, Any]) -> list[tuple[str, str]]:
    """``(pointer, JSON name)`` of each member written with its proto field name."""
    out: list[tuple[str, str]] = []

    def visit(ptr: str, _message: str, name: str | None, _v: Any) -> None:
        if name is not None and not ptr.endswith("/" + name):
            out.append((ptr, name))

    _walk(card, visit)
    return sorted(out)


def uncovered_fields(card: dict[str, Any]) -> list[str]:
    """JSON pointers of members outside the A2A 1.0 AgentCard (``params`` is free; a
    proto field name, see :func:`field_name_problems`, is not outside)."""
    out: list[str] = []

    def visit(ptr: str, _message: str, name: str | None, _v: Any) -> None:
        if name is None:
            out.append(ptr)

    _walk(card, visit)
    return sorted(out, key=_order(card))


def _order(card: dict[str, Any]) -> Callable[[str], Any]:
    return lambda p: [(0, int(t), "") if t.isascii() and t.isdigit() else (1, 0, t)
                      for t in p.split("/")]


def empty_values(card: dict[str, Any]) -> list[str]:
    """JSON pointers of empty strings, arrays, objects and nulls anywhere in the card
    (outside ``signatures``)."""
    return [p for p, _ in _empties(card)]


def _empties(card: dict[str, Any]) -> list[tuple[str, bool]]:
    """``(pointer, is null)`` of each empty value (see :func:`empty_values`), in order."""
    out: list[tuple[str, bool]] = []
    stack: list[tuple[Any, str]] = [({k: v for k, v in card.items() if k != "signatures"}, "")]
    while stack:
        v, ptr = stack.pop()
        if v is None or v == "" or v == [] or v == {}:
            out.append((ptr, v is None))
        elif isinstance(v, dict):
            stack.extend((x, pointer_join(ptr, k)) for k, x in v.items())
        elif isinstance(v, list):
            stack.extend((x, pointer_join(ptr, i)) for i, x in enumerate(v))
    order = _order(card)
    return sorted(((p, n) for p, n in out if p), key=lambda e: order(e[0]))


def as_proto_reads(card: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``card`` as ProtoJSON reads it: ``null`` members left out (unset), proto
    field names renamed to their JSON names. Lists and map values are kept as they are
    (a ``null`` there is a fault, not an unset member)."""
    tables = _tables()
    aliases = _snake_names()

    def read(value: Any, message: str, depth: int) -> Any:
        if not isinstance(value, dict) or depth > 40:
            return value
        fields = tables[message][0]
        out: dict[str, Any] = {}
        for key, v in value.items():
            if v is None:
                continue
            name = key if key in fields else aliases[message].get(key)
            if name is None:
                out[key] = v
                continue
            if name in out and name != key:
                continue  # the JSON name wins over the proto name (A2A-FIELD-NAME says so)
            kind, target = fields[name]
            if kind == _MSG:
                v = read(v, target, depth + 1)
            elif kind == _LIST and isinstance(v, list):
                v = [read(x, target, depth + 1) for x in v]
            elif kind == _MAP and isinstance(v, dict):
                v = {k: read(x, target, depth + 1) for k, x in v.items()}
            out[name] = v
        return out

    return read(card, "AgentCard", 0)  # type: ignore[no-any-return]


def _legacy_key(ptr: str) -> str:
    return re.sub(r"^/(skills|supportedInterfaces|securitySchemes)/[^/]+/", r"/\1/*/", ptr)


def legacy_fields(card: dict[str, Any]) -> list[str]:
    """Pointers of A2A 0.3 fields in ``card`` (see :data:`LEGACY`)."""
    out = [f"/{k}" for k in card if f"/{k}" in LEGACY]
    for coll in ("skills", "supportedInterfaces"):
        items = card.get(coll)
        for i, item in enumerate(items if isinstance(items, list) else []):
            if isinstance(item, dict):
                out += [f"/{coll}/{i}/{k}" for k in item if f"/{coll}/*/{k}" in LEGACY]
    schemes = card.get("securitySchemes")
    for name, s in (schemes.items() if isinstance(schemes, dict) else ()):
        if isinstance(s, dict) and "type" in s:
            out.append(pointer_join(pointer_join("/securitySchemes", name), "type"))
    return out


def on_request_params(card: dict[str, Any]) -> list[str]:
    """Pointers of the ``params`` of every On Request declaration (or near miss) of the
    card: the extension's own rules (OR-3.2 ...) say what is missing or empty there."""
    caps = card.get("capabilities")
    exts = caps.get("extensions") if isinstance(caps, dict) else None
    return [f"/capabilities/extensions/{i}/params" for i, e in
            enumerate(exts if isinstance(exts, list) else [])
            if isinstance(e, dict) and (is_extension_uri(e.get("uri"))
                                        or is_near_extension_uri(e.get("uri")))]


def _under(ptr: str, places: set[str]) -> bool:
    return any(ptr == r or ptr.startswith(r + "/") for r in places)


def member_findings(card: dict[str, Any], at: Locate) -> list[Finding]:
    """Every member judgement of a card (see the module docstring), for ``acap check``
    and ``acap verify`` alike.

    Args:
        card: the card as read (:class:`acap.load.JsonDocument` ``data``).
        at: JSON pointer -> :class:`~acap.findings.Location` in the card's file.

    Returns:
        Findings in the order: legacy, shape (REQUIRED, types, oneofs), field names,
        unknown members, empty values, media types. One fault is said once: nothing is
        reported under a member already reported.
    """
    out: list[Finding] = []

    def add(rule: str, level: Level, message: str, ptr: str, hint: str | None) -> None:
        out.append(Finding(rule, level, message, at(ptr), hint))

    legacy = legacy_fields(card)
    for ptr in legacy:
        add("A2A-LEGACY", "error", f"{dotted(ptr)} is an A2A 0.3 field, not in 1.0", ptr,
            f"1.0 uses {LEGACY[_legacy_key(ptr)]}")
    reported = set(legacy)
    # A 0.3 scheme ({"type": ..., "openIdConnectUrl": ...}) also breaks the 1.0 oneof: one
    # finding (the legacy one, which names the fix) is enough.
    legacy_schemes = {p.rsplit("/", 1)[0] for p in legacy if p.startswith("/securitySchemes/")}
    read = as_proto_reads(card)
    found = _empties(card)
    nulls = {p for p, null in found if null}
    for rule, ptr, message, hint in _shape(read, nulls):
        if ptr not in legacy_schemes:
            reported.add(ptr)
            add(rule, "error", message, ptr, hint)
    reported |= legacy_schemes
    _names(card, reported, add)
    own = set(on_request_params(card))
    _empty_members([p for p, _ in found], nulls, reported | own, add)
    out += _blank_text(card, read, at, reported | own)
    _media_types(card, reported, add)
    return out


Add = Callable[[str, Level, str, str, "str | None"], None]


def _names(card: dict[str, Any], reported: set[str], add: Add) -> None:
    """A2A-FIELD-NAME and A2A-UNKNOWN-FIELD: members written with their proto field name,
    and members A2A 1.0 does not define (each added to ``reported``)."""
    for ptr, name in field_name_problems(card):
        reported.add(ptr)
        add("A2A-FIELD-NAME", "error", f"{dotted(ptr)} is the proto field name of {name}: "
            "A2A 1.0 cards name members in camelCase (ProtoJSON's JSON names, A2A §5.5), and "
            "readers other than the SDKs do not know this member", ptr, f"write {name}")
    for ptr in uncovered_fields(card):
        if _under(ptr, reported):
            continue
        reported.add(ptr)
        add("A2A-UNKNOWN-FIELD", "warning", f"{dotted(ptr)} is not an A2A 1.0 field: receivers "
            "ignore it (A2A §5.7) and the SDKs drop it before they verify, so no signature "
            "covers it", ptr, _unknown_hint(ptr))


def _unknown_hint(ptr: str) -> str:
    """The fix of a member A2A 1.0 does not define: the nearest field of its message
    (a typo: ``exampls`` -> ``examples``), else remove or move it."""
    import difflib  # start-up: only for a did-you-mean

    fields = _tables().get(_message_at(ptr), ({}, frozenset()))[0]
    name = ptr.rsplit("/", 1)[-1].replace("~1", "/").replace("~0", "~")
    near = difflib.get_close_matches(name, list(fields), n=1, cutoff=0.75)
    return (f"did you mean {near[0]}? (as written, it is ignored)" if near
            else "remove it, or move it into an extension's params")


def _empty_members(empties: list[str], nulls: set[str], skip: set[str], add: Add) -> None:
    """A2A-EMPTY: an empty or null member, outside what is already reported (``skip``)."""
    required = _required_members()
    for ptr in empties:
        if _under(ptr, skip):
            continue
        if ptr.rsplit("/", 1)[-1] in required.get(_message_at(ptr), ()):
            hint = ("it is REQUIRED, so it cannot be left out: give it a value"
                    + (' ("streaming": false is enough)' if ptr == "/capabilities" else ""))
        else:
            hint = "leave the member out instead of writing it empty"
        what = "null: ProtoJSON (A2A §5.5) reads it as unset" if ptr in nulls else "empty"
        add("A2A-EMPTY", "warning", f"{dotted(ptr)} is {what}; the SDKs drop it before they "
            "verify while the specification's text keeps it, so signatures may not verify "
            "everywhere", ptr, hint)


def _media_types(card: dict[str, Any], reported: set[str], add: Add) -> None:
    """A2A-MEDIA-TYPE: an input or output mode that is not a media type."""
    for ptr, text in _modes(card):
        if _under(ptr, reported) or not text or blank(text):
            continue
        if not _MEDIA_TYPE.fullmatch(text.strip()):
            add("A2A-MEDIA-TYPE", "error", f"{dotted(ptr)} is not a media type (type/subtype, "
                "such as text/plain or application/json)", ptr,
                "write a media type (RFC 6838; A2A 1.0 §4.4.1 lists modes as media types)")


@cache
def _required_members() -> dict[str, frozenset[str]]:
    defs = schemas.schema(schemas.AGENT_CARD)["$defs"]
    return {name: frozenset(spec.get("required", ())) for name, spec in defs.items()}


def _message_at(ptr: str) -> str:
    """The proto message whose member ``ptr`` is (``AgentCard`` for a top-level one)."""
    tables = _tables()
    message = "AgentCard"
    tokens = ptr.split("/")[1:-1]
    i = 0
    while i < len(tokens):
        f = tables[message][0].get(tokens[i])
        if f is None:
            return ""
        kind, target = f
        if kind == _MSG:
            message, i = target, i + 1
        elif kind in (_LIST, _MAP):
            message, i = target, i + 2
        else:
            return ""
    return message


def _modes(card: dict[str, Any]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for name in ("defaultInputModes", "defaultOutputModes"):
        v = card.get(name)
        out += [(f"/{name}/{i}", x) for i, x in enumerate(v if isinstance(v, list) else [])
                if isinstance(x, str)]
    skills = card.get("skills")
    for j, s in enumerate(skills if isinstance(skills, list) else []):
        for name in ("inputModes", "outputModes"):
            v = s.get(name) if isinstance(s, dict) else None
            out += [(f"/skills/{j}/{name}/{i}", x)
                    for i, x in enumerate(v if isinstance(v, list) else []) if isinstance(x, str)]
    return out


def _shape(read: dict[str, Any], nulls: set[str]) -> list[tuple[str, str, str, str | None]]:
    """``(rule, pointer, message, hint)`` for each fault of the card's shape (the card
    as ProtoJSON reads it) against the A2A 1.0 schema (a2a.proto v1.0.1); ``nulls``:
    pointers of the card's null members (a REQUIRED one is missing, and says why)."""
    out: list[tuple[str, str, str, str | None]] = []
    errors = sorted(schemas.errors(schemas.AGENT_CARD, read),
                    key=lambda e: list(map(str, e.path)))
    for err in errors:
        ptr = pointer_of(err.absolute_path)
        kw = err.validator
        where = dotted(ptr)
        if kw == "additionalProperties":
            continue  # unknown and 0.3 fields: reported with their own rule
        if kw == "required":
            missing = schemas.required_member(err, errors)
            member = pointer_join(ptr, missing)
            unset = ", written null (ProtoJSON reads null as unset, A2A §5.5)" \
                if member in nulls else ""
            out.append(("A2A-REQUIRED", member, f"{where} needs '{missing}' (REQUIRED in A2A "
                        f"1.0){unset}", f"add {missing}"))
        elif kw == "minLength" and err.absolute_path and isinstance(err.absolute_path[-1], int):
            continue  # an empty item of a list: A2A-EMPTY (the SDKs drop it), see below
        elif kw in ("minItems", "minLength"):
            need = ("an empty list; a REQUIRED list needs at least one element"
                    if kw == "minItems" else "empty; a REQUIRED field needs a value")
            out.append(("A2A-REQUIRED", ptr, f"{where} is {need}", "give it a value"))
        elif kw in ("minProperties", "maxProperties") and ptr.endswith("/flows"):
            flows = list(err.instance) if isinstance(err.instance, dict) else []
            out.append(("A2A-OAUTH-FLOWS", ptr, f"{where} must hold exactly one flow, found "
                        f"{len(flows)}" + (f" ({', '.join(flows)})" if flows else ""),
                        "keep one of: " + ", ".join(OAUTH_FLOWS) + " (OAuthFlows is a proto "
                        "oneof); declare another scheme for another flow"))
        elif kw in ("minProperties", "maxProperties"):
            members = list(err.instance) if isinstance(err.instance, dict) else []
            out.append(("A2A-TYPE", ptr, f"{where} must hold exactly one of "
                        f"{', '.join(SCHEME_KINDS)}, found {len(members)}",
                        "a SecurityScheme is a proto oneof: one member"))
        elif kw == "type":
            want = type_words(err.validator_value, json=True)
            out.append(("A2A-TYPE", ptr, f"{where} must be {want}, found "
                        f"{value_words(err.instance, json=True)}", f"write {want} there"))
        else:  # a keyword the card schema has beyond those above: named, not paraphrased
            out.append(("A2A-TYPE", ptr, f"{where or 'the card'} breaks the A2A 1.0 schema "
                        f"({kw}: {shorten(json.dumps(err.validator_value), 60)})", None))
    # A REQUIRED list whose every element is empty is empty once the SDKs drop them.
    for ptr, items in _required_lists(read):
        if items and all(isinstance(x, str) and not x.strip() for x in items):
            out.append(("A2A-REQUIRED", ptr, f"{dotted(ptr)} has no element that is not "
                        "empty; a REQUIRED list needs at least one", "give it a value"))
    return out


def _required_lists(read: dict[str, Any]) -> list[tuple[str, list[Any]]]:
    out: list[tuple[str, list[Any]]] = []
    for name in ("defaultInputModes", "defaultOutputModes"):
        if isinstance(read.get(name), list):
            out.append((f"/{name}", read[name]))
    skills = read.get("skills")
    for i, s in enumerate(skills if isinstance(skills, list) else []):
        if isinstance(s, dict) and isinstance(s.get("tags"), list):
            out.append((f"/skills/{i}/tags", s["tags"]))
    return out


def _blank_text(card: dict[str, Any], read: dict[str, Any], at: Locate,
                skip: set[str]) -> list[Finding]:
    """``A2A-REQUIRED`` (a REQUIRED text, by the schema's ``minLength``) or ``A2A-EMPTY``
    for text of only spaces or invisible characters."""


    body = {k: v for k, v in card.items() if k != "signatures"}
    blanks = [p for p, text, _ in strings(body) if blank(text) and not _under(p, skip)]
    if not blanks:
        return []
    blanked = json.loads(json.dumps(read))
    for ptr in blanks:
        target = blanked
        tokens = pointer_tokens(ptr)
        try:
            for t in tokens[:-1]:
                target = target[int(t)] if isinstance(target, list) else target[t]
            if isinstance(target, list):
                target[int(tokens[-1])] = ""
            else:
                target[tokens[-1]] = ""
        except (KeyError, IndexError, ValueError, TypeError):
            continue  # a member the ProtoJSON reading renamed: judged by its own rule
    required = {pointer_of(e.absolute_path) for e in schemas.errors(schemas.AGENT_CARD, blanked)
                if e.validator == "minLength" and not (
                    e.absolute_path and isinstance(e.absolute_path[-1], int))}
    out = []
    for ptr in blanks:
        if ptr in required:
            out.append(Finding("A2A-REQUIRED", "error", f"{dotted(ptr)} has only spaces or "
                               "invisible characters; a REQUIRED string must have a value",
                               at(ptr), "write the text"))
        else:
            out.append(Finding("A2A-EMPTY", "warning", f"{dotted(ptr)} has only spaces or "
                               "invisible characters", at(ptr),
                               "write the text, or leave the field out"))
    return out
