"""Hypothesis strategies for Agent Cards, built from acap's AgentCard schema (a2a.proto
v1.0.1): every message of ``$defs`` becomes a strategy of its members (REQUIRED ones
mostly present, optional ones now and then, a oneof with one member), and then the
oddities the differential suite is about are drawn into it: numbers of every kind in
``params`` (beyond 2^53, 1e21, -0.0, 5e-324, 1.0), text in every script and in both
Unicode normal forms, empty strings, lists and objects, nulls, members A2A does not
define, and members written with their proto field names (snake_case).

:func:`card_texts` gives the card as a JSON text, the way a client receives it.
"""

from __future__ import annotations

import json
import re
from typing import Any

from hypothesis import strategies as st

from acap import schemas
from acap.load import blank

_DEFS: dict[str, Any] = schemas.schema(schemas.AGENT_CARD)["$defs"]
_MEDIA = ["text/plain", "application/json", "image/png", "text/html; charset=utf-8",
          "application/vnd.example+json", "audio/*"]
#: Text in several scripts, both normal forms, emoji (outside the BMP) and marks.
_WORDS = ["Chapel", "chapelle", "Straße", "É", "É", "日本語", "עברית", "العربية",
          "𝔸-portail", "ﬁ", "😀", "a\u0308", "ä", "Ωmega", "tab\there", "line\nbreak",
          "quote\"", "back\\slash", "</script>", "١٢٣", "x" * 40]
_TEXT = st.one_of(st.sampled_from(_WORDS),
                  st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)),
                          min_size=1, max_size=12).filter(lambda t: not blank(t)))


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


#: Numbers as JSON text: integers near and beyond 2^53, big and tiny doubles, -0.0, 1.0.
_NUMBERS = st.one_of(
    st.integers(-(2**53) + 1, 2**53 - 1),
    st.sampled_from(["9007199254740993", "-9007199254740993", "9007199254740992",
                     "1e21", "1.2345678901234568e+20", "-0.0", "0.0", "1.0", "5e-324",
                     "1e-7", "123456789012345678901234567890", "0.1", "1E2"]).map(
        lambda t: _Literal(t)),
    st.floats(allow_nan=False, allow_infinity=False))


class _Literal:
    """A number written exactly as this text in the card."""

    def __init__(self, text: str) -> None:
        self.text = text


def _free_json() -> st.SearchStrategy[Any]:
    """Any JSON value for ``params``: odd numbers, unicode keys, empties, nulls."""
    leaves = st.one_of(st.none(), st.booleans(), _NUMBERS, _TEXT, st.just(""))
    return st.recursive(leaves, lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(_TEXT, inner, max_size=3)), max_leaves=8)


def _field(sub: dict[str, Any], name: str, depth: int) -> st.SearchStrategy[Any]:
    ref = sub.get("$ref", "")
    if ref:
        return _message(ref.rsplit("/", 1)[-1], depth + 1)
    kind = sub.get("type")
    if name == "params":
        return st.dictionaries(_TEXT, _free_json(), max_size=3)
    if kind == "array":
        items = sub.get("items", {})
        item_name = "mode" if name.endswith("Modes") else name
        return st.lists(_field(items, item_name, depth), min_size=sub.get("minItems", 0),
                        max_size=2)
    if kind == "object":
        values = sub.get("additionalProperties")
        if isinstance(values, dict):
            return st.dictionaries(_TEXT, _field(values, name, depth), min_size=1, max_size=2)
        return st.dictionaries(_TEXT, _free_json(), max_size=2)
    if kind == "boolean":
        return st.booleans()
    if kind in ("integer", "number"):
        return st.integers(0, 1000)
    if name == "mode" or name.endswith("Modes"):
        return st.sampled_from(_MEDIA)
    if name in ("protocolBinding",):
        return st.sampled_from(["JSONRPC", "GRPC", "HTTP+JSON"])
    if name == "protocolVersion":
        return st.just("1.0")
    if name.lower().endswith("url"):
        return st.sampled_from(["https://example.com/a2a/v1", "https://例え.jp/x",
                                "https://agent.example.com/a2a?q=1#f"])
    return _TEXT


def _message(name: str, depth: int = 0) -> st.SearchStrategy[dict[str, Any]]:
    spec = _DEFS[name]
    props: dict[str, Any] = {k: v for k, v in spec.get("properties", {}).items()
                             if k != "signatures"}
    required = set(spec.get("required", ()))
    if depth > 3:
        props = {k: v for k, v in props.items() if k in required}
    if spec.get("maxProperties") == 1:  # a oneof: one member
        return st.one_of([st.fixed_dictionaries({k: _field(v, k, depth)})
                          for k, v in props.items()])
    return st.fixed_dictionaries(
        {k: _field(v, k, depth) for k, v in props.items() if k in required},
        optional={k: _field(v, k, depth) for k, v in props.items() if k not in required})


@st.composite
def cards(draw: st.DrawFn) -> Any:
    """One AgentCard, with the oddities of the module docstring drawn into it."""
    card: dict[str, Any] = draw(_message("AgentCard"))
    messages = list(_walk(card))
    for _ in range(draw(st.sampled_from([0, 0, 1, 1, 2, 3]))):
        target = draw(st.sampled_from(messages))
        odd = draw(st.sampled_from(["unknown", "snake", "null", "empty", "empty-item"]))
        keys = list(target)
        if odd == "unknown":
            target[draw(st.sampled_from(["x-extra", "pricing", "unbekannt", "ñ"]))] = \
                draw(_free_json())
        elif odd == "snake" and keys:
            k = draw(st.sampled_from(keys))
            if _snake(k) != k and _snake(k) not in target:
                target[_snake(k)] = target.pop(k)
        elif odd == "null" and keys:
            target[draw(st.sampled_from(keys))] = None
        elif odd == "empty" and keys:
            k = draw(st.sampled_from(keys))
            target[k] = {str: "", list: [], dict: {}}.get(type(target[k]), target[k])
        elif odd == "empty-item":
            lists = [k for k, v in target.items() if isinstance(v, list) and v
                     and isinstance(v[0], str)]
            if lists:
                target[draw(st.sampled_from(lists))].append("")
    return card


def _walk(value: Any) -> Any:
    if isinstance(value, dict):
        yield value
        for v in value.values():
            yield from _walk(v)
    elif isinstance(value, list):
        for v in value:
            yield from _walk(v)


def card_text(card: Any) -> str:
    """The card as JSON text (numbers drawn as literals written as drawn)."""
    def dump(v: Any) -> str:
        if isinstance(v, _Literal):
            return v.text
        if isinstance(v, dict):
            return "{" + ", ".join(json.dumps(k, ensure_ascii=False) + ": " + dump(x)
                                   for k, x in v.items()) + "}"
        if isinstance(v, list):
            return "[" + ", ".join(dump(x) for x in v) + "]"
        return json.dumps(v, ensure_ascii=False)

    return dump(card)


def card_texts() -> st.SearchStrategy[str]:
    """Agent Cards as JSON texts (see :func:`cards`)."""
    return cards().map(card_text)
