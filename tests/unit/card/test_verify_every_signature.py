"""``acap verify``'s exit status answers "will a client built on the official SDKs accept
this card?" (issue 21). Both SDKs accept a card on the first signature that verifies: so
does acap, and a checked signature that does not match beside a valid one is a
SIG-INVALID warning (a2a-sdk's signer keeps the Annex A.1 placeholder beside its own
signature); a signature that could not be checked (keys unavailable) beside a valid one is
a SIG-KEYS warning. And the spec's Annex A.1 example (placeholder signature) printed
"kid -, alg -: INVALID" although its protected header names chapel-1 and ES256:
the header is read first now, and the reason says what is wrong.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from acap.card import Signer, build_card, verify_card
from acap.cli import report_text
from acap.cli._reporters import SIGNATURES_VERIFIED
from acap.keys import SigningKey
from acap.load import load_operator
from support.cards import acap, new_private
from support.paths import EXAMPLE

JKU = "https://example.com/.well-known/jwks.json"


@pytest.fixture(scope="module")
def keys() -> tuple[SigningKey, SigningKey]:
    return (SigningKey(new_private("ES256"), "ES256", "chapel-1"),
            SigningKey(new_private("EdDSA"), "EdDSA", "chapel-2"))


def _two_signatures(tmp_path: Path, keys: tuple[SigningKey, SigningKey],
                    publish: tuple[SigningKey, ...], break_second: bool) -> tuple[Path, Path]:
    a, b = keys
    card = Signer(a, jku=JKU).sign(copy.deepcopy(build_card(load_operator(EXAMPLE))))
    second = Signer(b, jku=JKU).sign(copy.deepcopy(card))["signatures"][0]
    if break_second:  # a valid signature of other bytes: canonical, right length, wrong
        other = copy.deepcopy(card)
        other["description"] = "Another card."
        second["signature"] = Signer(b, jku=JKU).sign(other)["signatures"][0]["signature"]
    card["signatures"].append(second)
    path = tmp_path / "card.json"
    path.write_text(json.dumps(card, indent=2), encoding="utf-8")
    given = tmp_path / "keys.json"
    given.write_text(json.dumps({"keys": [k.public_jwk() for k in publish]}), encoding="utf-8")
    return path, given


def _line(path: Path, index: int) -> int:
    """The line of the index-th object in "signatures" (json.dumps indent=2 layout)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    start = lines.index('  "signatures": [')
    opens = [i for i in range(start, len(lines)) if lines[i] == "    {"]
    return opens[index] + 1


def test_one_valid_one_invalid_is_verified_with_a_warning(
        tmp_path: Path, keys: tuple[SigningKey, SigningKey]) -> None:
    path, given = _two_signatures(tmp_path, keys, keys, break_second=True)
    res = verify_card(str(path), str(given))
    assert [s.state for s in res.signatures] == ["valid", "INVALID"]
    assert res.ok is True
    [f] = res.report
    assert (f.rule, f.level, f.location.pointer) == ("SIG-INVALID", "warning", "/signatures/1")
    assert f.message == ("signature 1 (kid chapel-2) is not valid: the signature does not match "
                         "the card (changed after signing?); another signature is, which "
                         "clients built on the official SDKs accept")
    assert f.location.line == _line(path, 1)
    out = acap("verify", str(path), "--jwks", str(given))
    assert out.exit_code == 0
    assert out.stdout.splitlines()[-1] == SIGNATURES_VERIFIED


def test_the_a1_placeholder_beside_a2a_sdks_own_signature_verifies(tmp_path: Path) -> None:
    """a2a-sdk's signer adds its signature beside those already there: signing the Annex A.1
    card, placeholder and all, gives a card both SDKs accept, and so does acap."""
    from a2a.client.card_resolver import parse_agent_card
    from a2a.utils.signing import create_agent_card_signer
    from google.protobuf.json_format import MessageToDict
    from jwt import PyJWK

    from support.cards import private_jwk

    card = build_card(load_operator(EXAMPLE))
    card["signatures"] = [{"protected": ANNEX_A1_PROTECTED, "signature": "PLACEHOLDER"}]
    jwk = private_jwk(new_private("ES256"), kid="sdk-1", alg="ES256")
    signed = create_agent_card_signer(PyJWK(jwk), {"alg": "ES256", "typ": "JOSE",
                                                   "kid": "sdk-1", "jku": JKU})(
        parse_agent_card(copy.deepcopy(card)))
    out = MessageToDict(signed)
    assert out["signatures"][0]["protected"] == ANNEX_A1_PROTECTED
    path = tmp_path / "card.json"
    path.write_text(json.dumps(out, indent=2), encoding="utf-8")
    given = tmp_path / "keys.json"
    public = {k: v for k, v in jwk.items() if k != "d"}
    given.write_text(json.dumps({"keys": [public]}), encoding="utf-8")
    res = verify_card(str(path), str(given))
    assert [s.state for s in res.signatures] == ["INVALID", "valid"]
    assert res.ok is True
    assert [(f.rule, f.level) for f in res.report] == [("SIG-INVALID", "warning")]


def test_one_valid_one_unchecked_is_verified_with_a_warning(
        tmp_path: Path, keys: tuple[SigningKey, SigningKey]) -> None:
    path, given = _two_signatures(tmp_path, keys, keys[:1], break_second=False)
    res = verify_card(str(path), str(given))
    assert [s.state for s in res.signatures] == ["valid", "NOT CHECKED"]
    assert res.ok
    [f] = res.report
    assert (f.rule, f.level, f.location.pointer) == ("SIG-KEYS", "warning", "/signatures/1")
    assert f.message == ("signature 1 could not be checked, its keys are unavailable: no key "
                         f"with kid 'chapel-2' in {given}")
    out = acap("verify", str(path), "--jwks", str(given))
    assert out.exit_code == 0
    assert out.stdout.splitlines()[-1] == SIGNATURES_VERIFIED


def test_two_valid_signatures_verify(tmp_path: Path, keys: tuple[SigningKey, SigningKey]) -> None:
    path, given = _two_signatures(tmp_path, keys, keys, break_second=False)
    res = verify_card(str(path), str(given))
    assert [s.state for s in res.signatures] == ["valid", "valid"]
    assert res.ok and len(res.report) == 0


#: {"alg":"ES256","kid":"chapel-1"}, as Annex A.1 has it
ANNEX_A1_PROTECTED = "eyJhbGciOiJFUzI1NiIsImtpZCI6ImNoYXBlbC0xIn0"


def test_placeholder_signature_names_its_kid_alg_and_why(tmp_path: Path) -> None:
    card = build_card(load_operator(EXAMPLE))
    card["signatures"] = [{"protected": ANNEX_A1_PROTECTED, "signature": "PLACEHOLDER"}]
    path = tmp_path / "a1-agent-card.json"
    path.write_text(json.dumps(card, indent=2), encoding="utf-8")
    res = verify_card(str(path))
    [s] = res.signatures
    assert (s.kid, s.alg, s.state) == ("chapel-1", "ES256", "INVALID")
    assert s.reason == ("the signature member 'PLACEHOLDER' is not canonical base64url: its last "
                        "character carries bits that encode nothing (RFC 7515 §2), and decodes "
                        "to 8 bytes, where an ES256 signature has 64: a placeholder, not a "
                        "signature")
    assert [f.rule for f in res.report] == ["SIG-INVALID"]
    out = acap("verify", str(path))
    assert out.stdout.startswith("signature 0: kid chapel-1, alg ES256: INVALID (the signature "
                                 "member 'PLACEHOLDER'")


@pytest.mark.parametrize("signature,reason", [
    ("AAAA", "the signature member decodes to 3 bytes, where an ES256 signature has 64: a "
             "placeholder, not a signature"),
    ("abc=", "the signature member 'abc=' is not base64url: it holds '=' (RFC 7515 §2: A-Z "
             "a-z 0-9 - _ only, no padding)"),
    ("abcde", "the signature member 'abcde' is not base64url: no base64url text has 5 "
              "characters"),
])
def test_malformed_signature_members(tmp_path: Path, signature: str, reason: str) -> None:
    card = build_card(load_operator(EXAMPLE))
    card["signatures"] = [{"protected": ANNEX_A1_PROTECTED, "signature": signature}]
    path = tmp_path / "card.json"
    path.write_text(json.dumps(card), encoding="utf-8")
    [s] = verify_card(str(path)).signatures
    assert (s.kid, s.alg, s.reason) == ("chapel-1", "ES256", reason)


def test_the_built_annex_a1_example(tmp_path: Path) -> None:
    """The file the trial verified: the spec site's copy of Annex A.1."""
    from acap.builder import BuildOptions, build

    config = tmp_path / "operator.yaml"
    config.write_bytes(EXAMPLE.read_bytes())
    res = build(BuildOptions(config=config, spec_site=True))
    assert res.ok, report_text(res.report)
    a1 = tmp_path / "site/agent-capability.org/ext/on-request/v1/examples/a1-agent-card.json"
    out = acap("verify", str(a1))
    assert out.exit_code == 1
    assert out.stdout.splitlines()[0].startswith(
        "signature 0: kid chapel-1, alg ES256: INVALID (the signature member 'PLACEHOLDER' is "
        "not canonical base64url")

