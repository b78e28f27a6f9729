"""acap's payload (A2A §8.4.1) against a2a-sdk 1.3's, byte for byte, on cards that test
the presence rules: empty strings, arrays and objects, nulls, proto defaults
(``required: false``, ``pkceRequired: false``), ``optional`` fields at their default
(``streaming: false``), fields outside A2A 1.0 at every level, and free JSON in
``params``. The SDK's bytes come from its own path: parse into the proto types,
MessageToDict, drop empties, RFC 8785.

Also the specification's literal reading (canonical.SPEC) on the cases where it
differs from the SDKs', which acap verify accepts as a second reading.
"""

from __future__ import annotations

import copy
from functools import cache
from typing import Any

from a2a.client.card_resolver import parse_agent_card
from a2a.utils.signing import _canonicalize_agent_card
from hypothesis import given, settings
from hypothesis import strategies as st

from acap.card import SDK, SPEC, build_card, canonical_payload, payload_object
from acap.load import load_operator
from support.paths import EXAMPLE


@cache
def base() -> dict[str, Any]:
    return build_card(load_operator(EXAMPLE))


def sdk_bytes(card: dict[str, Any]) -> bytes:
    return _canonicalize_agent_card(parse_agent_card(copy.deepcopy(card))).encode("utf-8")


SAFE_INT = st.integers(-(2**53) + 1, 2**53 - 1)
SCALAR = st.one_of(st.none(), st.booleans(), SAFE_INT,
                   st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=6))
JSON = st.recursive(SCALAR, lambda kids: st.one_of(st.lists(kids, max_size=3),
                                                   st.dictionaries(st.text(max_size=4), kids,
                                                                   max_size=3)), max_leaves=12)

#: (JSON pointer of an object inside a known message, the message) where unknown keys go
OBJECTS = ["", "/capabilities", "/provider", "/supportedInterfaces/0", "/skills/0",
           "/skills/3/securityRequirements/0", "/capabilities/extensions/0",
           "/securitySchemes/family-portal/openIdConnectSecurityScheme"]


def at(card: dict[str, Any], ptr: str) -> Any:
    node: Any = card
    for part in ptr.split("/")[1:]:
        node = node[int(part)] if isinstance(node, list) else node[part]
    return node


EDITS = st.one_of(
    st.tuples(st.just("params"), JSON),
    st.tuples(st.just("unknown"), st.sampled_from(OBJECTS), st.text(min_size=1, max_size=5)
              .filter(lambda k: k not in ("name", "id", "url")), JSON),
    st.tuples(st.just("empty"), st.sampled_from([
        ("", "documentationUrl", ""), ("", "iconUrl", ""), ("/skills/0", "examples", []),
        ("/skills/1", "securityRequirements", []), ("", "securitySchemes", {}),
        ("/capabilities/extensions/0", "description", ""), ("", "securityRequirements", []),
        ("/skills/2", "inputModes", []), ("/supportedInterfaces/0", "tenant", "")]),
        st.booleans()),
    st.tuples(st.just("flag"), st.sampled_from([
        ("/capabilities/extensions/0", "required"), ("/capabilities", "streaming"),
        ("/capabilities", "pushNotifications"), ("/capabilities", "extendedAgentCard")]),
        st.booleans()),
    st.tuples(st.just("blank-tag"), st.integers(0, 4)),
)


def apply(card: dict[str, Any], edit: tuple[Any, ...]) -> None:
    kind = edit[0]
    if kind == "params":
        if isinstance(edit[1], dict):
            card["capabilities"]["extensions"][0]["params"] = edit[1]
    elif kind == "unknown":
        _, ptr, key, value = edit
        try:
            target = at(card, ptr)
        except (KeyError, IndexError, TypeError):
            return  # an earlier edit emptied the place
        if isinstance(target, dict) and key not in target:
            target[key] = value
    elif kind == "empty":
        (ptr, key, empty), null = edit[1], edit[2]
        at(card, ptr)[key] = None if null else empty
    elif kind == "flag":
        (ptr, key), value = edit[1], edit[2]
        at(card, ptr)[key] = value
    elif kind == "blank-tag":
        card["skills"][edit[1]]["tags"].append("")


@settings(max_examples=400, deadline=None)
@given(edits=st.lists(EDITS, min_size=1, max_size=6))
def test_sdk_reading_matches_a2a_sdk_byte_for_byte(edits: list[tuple[Any, ...]]) -> None:
    card = copy.deepcopy(base())
    for edit in edits:
        apply(card, edit)
    assert canonical_payload(card, SDK) == sdk_bytes(card)


def test_the_unchanged_card_signs_the_same_under_both_readings() -> None:
    card = base()
    assert canonical_payload(card, SDK) == canonical_payload(card, SPEC) == sdk_bytes(card)


def test_required_false_is_dropped_under_both_readings() -> None:
    for mode in (SDK, SPEC):
        ext = payload_object(base(), mode)["capabilities"]["extensions"][0]
        assert "required" not in ext
        assert ext["params"]["skills"][0]["assistantAccess"] is False  # params are not proto


def test_optional_false_is_kept_under_both_readings() -> None:
    for mode in (SDK, SPEC):
        caps = payload_object(base(), mode)["capabilities"]
        assert caps["streaming"] is False and caps["pushNotifications"] is False


def test_where_the_readings_differ() -> None:
    card = copy.deepcopy(base())
    card["x-note"] = "outside A2A"
    card["skills"][0]["examples"].append("")
    card["capabilities"]["extensions"][0]["params"]["note"] = ""
    sdk, spec = payload_object(card, SDK), payload_object(card, SPEC)
    assert "x-note" not in sdk and spec["x-note"] == "outside A2A"
    assert sdk["skills"][0]["examples"] == ["When is Example Memorial Chapel open?"]
    assert spec["skills"][0]["examples"] == ["When is Example Memorial Chapel open?", ""]
    assert "note" not in sdk["capabilities"]["extensions"][0]["params"]
    assert spec["capabilities"]["extensions"][0]["params"]["note"] == ""
    assert canonical_payload(card, SDK) == sdk_bytes(card)


def test_payload_object_never_changes_its_input() -> None:
    card = copy.deepcopy(base())
    card["securitySchemes"]["x"] = {"oauth2SecurityScheme": {"flows": {"authorizationCode": {
        "authorizationUrl": "https://a", "tokenUrl": "https://t", "scopes": {"s": "S"},
        "pkceRequired": False}}}}
    before = copy.deepcopy(card)
    for mode in (SDK, SPEC):
        payload_object(card, mode)
    assert card == before
