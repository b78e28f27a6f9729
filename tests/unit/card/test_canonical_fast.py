"""RFC 8785 through orjson (:func:`acap.card.canonicalize`'s quick way, issue 24) gives
the very bytes of the ``rfc8785`` package: on every case card, every card of the
differential suite, their signed payloads under both readings, the JCS vectors, and
random values; and a value the quick way cannot write (a float, a member name beyond
the Basic Multilingual Plane, an integer past 2**53 - 1) goes to ``rfc8785``."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import orjson
import pytest
import rfc8785
from hypothesis import given, settings
from hypothesis import strategies as st

from acap.card import SDK, SPEC, canonicalize, payload_object
from acap.card import _canonical as canonical_module
from acap.errors import CanonicalizationError
from support.card_strategy import card_texts
from support.cards import differential_card
from support.paths import CASES, VECTORS

DIFFERENTIAL = json.loads((CASES / "differential" / "cards.json").read_text(encoding="utf-8"))
BASE = json.loads((CASES / "card" / "valid" / "annex-a-like.json").read_text(encoding="utf-8"))
JCS_INPUTS = sorted((VECTORS / "jcs" / "cyberphone" / "input").glob("*.json"))


def reference(value: Any) -> bytes | type[Exception]:
    """What ``rfc8785`` gives for ``value``, or the class of what it raises (as acap
    raises it: its own error for what the package refuses, anything else as it is)."""
    try:
        return rfc8785.dumps(value)
    except (rfc8785.CanonicalizationError, RecursionError, TypeError):
        return CanonicalizationError
    except Exception as exc:  # a lone surrogate in a member name: UnicodeEncodeError
        return type(exc)


def acap_bytes(value: Any) -> bytes | type[Exception]:
    try:
        return canonicalize(value)
    except Exception as exc:
        return type(exc)


def same_bytes(value: Any) -> None:
    assert acap_bytes(value) == reference(value)


def loaded(path: Path) -> Any | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError):
        return None  # a case card that is no JSON at all (its own test says so)


#: Every case card that is JSON (a few are not, on purpose), by its path there.
CARDS = {str(p.relative_to(CASES / "card")): card for p in sorted((CASES / "card").rglob("*.json"))
         if (card := loaded(p)) is not None}


def test_there_are_cards_to_compare() -> None:
    assert len(CARDS) >= 60
    assert len(DIFFERENTIAL["cases"]) >= 40
    assert len(JCS_INPUTS) == 6


@pytest.mark.parametrize("name", sorted(CARDS))
def test_every_case_card_and_its_payloads(name: str) -> None:
    card = CARDS[name]
    same_bytes(card)
    if isinstance(card, dict):
        for mode in (SDK, SPEC):
            same_bytes(payload_object(card, mode))


@pytest.mark.parametrize("case", DIFFERENTIAL["cases"],
                         ids=[c["name"] for c in DIFFERENTIAL["cases"]])
def test_every_differential_card_and_its_payloads(case: dict[str, Any]) -> None:
    card = differential_card(BASE, case)
    same_bytes(card)
    for mode in (SDK, SPEC):
        same_bytes(payload_object(card, mode))


@pytest.mark.parametrize("path", JCS_INPUTS, ids=[p.stem for p in JCS_INPUTS])
def test_every_jcs_vector(path: Path) -> None:
    same_bytes(json.loads(path.read_text(encoding="utf-8")))


@settings(max_examples=300, deadline=None)
@given(card_texts())
def test_drawn_cards(text: str) -> None:
    card = json.loads(text)
    same_bytes(card)
    for mode in (SDK, SPEC):
        same_bytes(payload_object(card, mode))


#: Characters where the two could differ: every control character, the escapes, DEL,
#: the line and paragraph separators, a BOM, the last of the Basic Multilingual Plane
#: and a private-use one before it, and two beyond it (UTF-16 sorts those first).
ODD = [chr(c) for c in range(0x20)] + ['"', "\\", "/", "\x7f", "\u2028", "\u2029", "\ufeff",
                                       "\ue000", "\uffff", "\U00010000", "\U0001f600", "é",
                                       "a", "B", " "]


def _random_value(rng: random.Random, depth: int = 0) -> Any:
    def text() -> str:
        return "".join(rng.choice(ODD) for _ in range(rng.randint(0, 5)))

    r = rng.random()
    if depth > 3 or r < 0.3:
        return text()
    if r < 0.4:
        return rng.choice([0, -1, 2**53 - 1, -(2**53) + 1, 2**53, -(2**53), 2**64,
                           rng.randint(-10**9, 10**9)])
    if r < 0.45:
        return rng.choice([True, False, None, 0.5, 1e21, -0.0])
    if r < 0.7:
        return [_random_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    return {text(): _random_value(rng, depth + 1) for _ in range(rng.randint(0, 4))}


def test_random_values_with_every_odd_character() -> None:
    rng = random.Random(8785)
    for _ in range(5000):
        same_bytes(_random_value(rng))


@pytest.mark.parametrize("value", [
    {"\U0001f600": 1, "\uffff": 2},  # UTF-16 order puts the first one first
    {"a": 1.5}, [1e21], 2**53, -(2**53), {"a": [2**64]},
    {"s": "\ud800"}, {1: "a"}, {"a": (1, 2)}, {"a": {"b": {"c": []}}},
])
def test_values_the_quick_way_leaves_to_rfc8785(value: Any) -> None:
    same_bytes(value)


def test_an_ordinary_card_takes_the_quick_way(monkeypatch: pytest.MonkeyPatch) -> None:
    expected = rfc8785.dumps(payload_object(BASE))

    def refuse(value: Any) -> bytes:
        raise AssertionError("rfc8785 was called")

    monkeypatch.setattr(canonical_module.rfc8785, "dumps", refuse)
    assert canonicalize(payload_object(BASE)) == expected


def test_a_float_goes_to_rfc8785(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kw: Any) -> bytes:
        raise AssertionError("orjson was called")

    monkeypatch.setattr(canonical_module.orjson, "dumps", refuse)
    assert canonicalize({"b": 1e21, "a": 0.1}) == b'{"a":0.1,"b":1e+21}'


def test_a_cycle_is_refused_not_walked_for_ever() -> None:
    value: list[Any] = []
    value.append(value)
    with pytest.raises(CanonicalizationError):
        canonicalize(value)


def test_orjson_sorts_as_rfc8785_within_the_plane() -> None:
    names = ["", "B", "a", "a\x00", "aa", "é", "\ue000", "\uffff", "z"]
    doc = {n: 1 for n in reversed(names)}
    assert orjson.dumps(doc, option=orjson.OPT_SORT_KEYS) == rfc8785.dumps(doc)


@given(st.dictionaries(st.text(max_size=4), st.text(max_size=4), max_size=6))
def test_drawn_objects_of_any_text(doc: dict[str, str]) -> None:
    same_bytes(doc)
