"""RFC 8785 (JCS): every published vector gives the expected bytes through acap's path.

The vectors are copies under tests/vectors/jcs (provenance in tests/vectors/README.md):
cyberphone/json-canonicalization's input/output pairs (and their hex form), and the
ES6 number-formatting sample of RFC 8785 §3.2.2.3.
"""

from __future__ import annotations

import json
import math
import struct

import pytest

from acap.card import canonicalize
from acap.errors import CanonicalizationError
from support.paths import VECTORS

JCS = VECTORS / "jcs"
CYBERPHONE = JCS / "cyberphone"
NAMES = sorted(p.stem for p in (CYBERPHONE / "input").glob("*.json"))
ES6_FILES = sorted((JCS / "es6numbers").glob("*.txt"))


def test_the_six_cyberphone_vectors_are_present() -> None:
    assert NAMES == ["arrays", "french", "structures", "unicode", "values", "weird"]


@pytest.mark.parametrize("name", NAMES)
def test_cyberphone_vector(name: str) -> None:
    value = json.loads((CYBERPHONE / "input" / f"{name}.json").read_text(encoding="utf-8"))
    expected = (CYBERPHONE / "output" / f"{name}.json").read_bytes()
    assert canonicalize(value) == expected


@pytest.mark.parametrize("name", NAMES)
def test_cyberphone_vector_hex_form(name: str) -> None:
    value = json.loads((CYBERPHONE / "input" / f"{name}.json").read_text(encoding="utf-8"))
    expected = bytes.fromhex((CYBERPHONE / "outhex" / f"{name}.txt").read_text())
    assert canonicalize(value) == expected


def es6_lines() -> list[tuple[str, str, str]]:
    out = []
    for f in ES6_FILES:
        for n, line in enumerate(f.read_text(encoding="ascii").splitlines(), 1):
            if line.strip():
                hex_ieee, expected = line.strip().split(",")
                out.append((f"{f.name}:{n}", hex_ieee, expected))
    return out


def test_es6_number_sample_is_complete() -> None:
    counts = {f.name: 0 for f in ES6_FILES}
    for where, _, _ in es6_lines():
        counts[where.split(":")[0]] += 1
    assert counts == {"es6testfile-first1000.txt": 1000, "readme-sample-lines.txt": 7}


def test_every_es6_number_line() -> None:
    failures = []
    for where, hex_ieee, expected in es6_lines():
        value = struct.unpack(">d", bytes.fromhex(hex_ieee.zfill(16)))[0]
        assert math.isfinite(value), where
        got = canonicalize(value)
        if got != expected.encode("ascii"):
            failures.append((where, hex_ieee, expected, got))
    assert failures == []


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, 2**53, {1: "a"}, "\ud800"])
def test_values_with_no_canonical_form_are_refused(value: object) -> None:
    with pytest.raises(CanonicalizationError):
        canonicalize(value)
