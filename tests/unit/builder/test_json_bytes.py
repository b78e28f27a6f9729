"""The published JSON is written by orjson (issue 16) with the very bytes the standard
library's ``json.dumps(indent=2, ensure_ascii=False)`` gave before."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from acap.builder._steps import json_bytes
from support.cards import run_build
from support.paths import REPO


def before(data: Any) -> bytes:
    """How acap wrote JSON until issue 16."""
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


ODD: list[Any] = [
    {}, [], {"a": {}, "b": [], "c": [[]], "d": [{}]},
    {"controls": "".join(chr(i) for i in range(0x20)) + "\x7f\"\\/"},
    {"unicode": "é ß 漢字 \u2028\u2029 \ufeff \U0001F600 \u200b"},
    {"ints": [0, -1, 2**53 + 1, 2**63 - 1, -(2**63), 2**64 - 1]},
    {"big int (standard library)": 2**64},
    {"floats (standard library)": [0.1, 1e16, 1e-05, 2.5e-07, 3.0, -0.0]},
    {"bools": [True, False, None]},
    {"deep": [[{"a": [1, {"b": ["c", {"d": {}}]}]}]]},
    {"key with \"quotes\" and \u00e9": "value"},
]


@pytest.mark.parametrize("data", ODD)
def test_odd_values_give_the_same_bytes(data: Any) -> None:
    assert json_bytes(data) == before(data)


def test_the_annex_card_and_a_built_card_and_jwks_give_the_same_bytes(example: Path) -> None:
    annex = json.loads((REPO / "tests" / "data" / "annex-a1-card.json").read_bytes())
    assert json_bytes(annex) == before(annex)
    res = run_build(example)
    assert res.ok
    for rel in ("example.com/.well-known/agent-card.json", "example.com/.well-known/jwks.json"):
        data = json.loads(res.files[rel])
        assert res.files[rel] == before(data) == json_bytes(data)
