"""``acap verify`` tells "could not check" from "INVALID" (trial report item 6).

When the keys cannot be had (JWKS host unreachable, ``--jwks`` missing, not
JSON, not a JWKS, no key with the signature's kid) the signature is NOT
CHECKED: rule ``SIG-KEYS`` with the hint to give ``--jwks``, not ``SIG-INVALID``
with "rebuild and republish". The exit status stays 1. Fetch failures are one
short sentence naming the URL once, without ``[Errno -2]``.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from acap.card import Signer, build_card, verify_card
from acap.keys import SigningKey, jwks
from acap.load import load_operator
from acap.requirements import rule_ids
from support.cards import acap, new_private
from support.paths import EXAMPLE

JKU = "https://example.com/.well-known/jwks.json"  # the card provider's origin


pytestmark = pytest.mark.usefixtures("offline")  # no name resolves (conftest)


@pytest.fixture(scope="module")
def key() -> SigningKey:
    return SigningKey(new_private("ES256"), "ES256", "chapel-1")


@pytest.fixture
def card_file(tmp_path: Path, key: SigningKey) -> Path:
    """A signed card in a plain folder (not a built site/): its jku is fetched."""
    card = Signer(key, jku=JKU).sign(copy.deepcopy(build_card(load_operator(EXAMPLE))))
    path = tmp_path / "card.json"
    path.write_text(json.dumps(card, indent=2), encoding="utf-8")
    return path


def test_an_unreachable_jwks_is_not_checked(card_file: Path) -> None:
    res = verify_card(str(card_file))
    [s] = res.signatures
    assert (s.valid, s.checked, s.state) == (False, False, "NOT CHECKED")
    assert s.reason == f"cannot read the JWKS {JKU}: the host name was not found (DNS)"
    [f] = res.report.findings
    assert (f.rule, f.level, f.hint) == ("SIG-KEYS", "error",
                                         "give the keys with --jwks FILE_OR_URL")
    assert f.message == ("signature 0 could not be checked, its keys are unavailable: "
                         f"cannot read the JWKS {JKU}: the host name was not found (DNS)")
    assert not res.ok

    out = acap("verify", str(card_file))
    assert out.exit_code == 1
    assert out.stdout.splitlines()[0] == (
        f"signature 0: kid chapel-1, alg ES256: NOT CHECKED (cannot read the JWKS {JKU}: "
        "the host name was not found (DNS))")
    assert out.stdout.splitlines()[-1] == ("NOT verified: the signatures could not be checked "
                                           "(keys unavailable)")
    assert "INVALID" not in out.stdout + out.stderr
    assert "Errno" not in out.stdout + out.stderr
    assert "hint: give the keys with --jwks FILE_OR_URL" in out.stderr
    assert out.stderr.count(JKU) == 1


@pytest.mark.parametrize(("content", "reason"), [
    (None, "there is no such file"),
    (b"not json at all", "it is not JSON"),
    (b"\xff\xfe", "it is not JSON"),
    (b'{"no": "keys"}', 'it is not a JWKS (no "keys" list)'),
    (b'[1, 2]', 'it is not a JWKS (no "keys" list)'),
])
def test_a_bad_jwks_option_is_not_checked(card_file: Path, tmp_path: Path,
                                          content: bytes | None, reason: str) -> None:
    given = tmp_path / "keys.json"
    if content is not None:
        given.write_bytes(content)
    res = verify_card(str(card_file), str(given))
    [s] = res.signatures
    assert (s.checked, s.reason) == (False, f"cannot read the JWKS {given}: {reason}")
    [f] = res.report.findings
    assert f.rule == "SIG-KEYS"
    assert "--jwks" in (f.hint or "")
    out = acap("verify", str(card_file), "--jwks", str(given))
    assert out.exit_code == 1
    assert f"NOT CHECKED (cannot read the JWKS {given}: {reason})" in out.stdout


def test_a_jwks_without_the_kid_is_not_checked(card_file: Path, tmp_path: Path) -> None:
    other = SigningKey(new_private("ES256"), "ES256", "chapel-9")
    given = tmp_path / "keys.json"
    given.write_text(json.dumps(jwks(other, [])), encoding="utf-8")
    res = verify_card(str(card_file), str(given))
    assert [(s.checked, s.reason) for s in res.signatures] == [
        (False, f"no key with kid 'chapel-1' in {given}")]
    assert [f.rule for f in res.report] == ["SIG-KEYS"]


def test_a_key_that_is_not_a_key_is_not_checked(card_file: Path, tmp_path: Path,
                                                key: SigningKey) -> None:
    jwk = key.public_jwk()
    jwk["x"] = "AAAA"  # not a point of P-256
    given = tmp_path / "keys.json"
    given.write_text(json.dumps({"keys": [jwk]}), encoding="utf-8")
    res = verify_card(str(card_file), str(given))
    assert [(s.checked, s.reason) for s in res.signatures] == [
        (False, f"the key with kid 'chapel-1' in {given} is not a usable public JWK")]
    assert [f.rule for f in res.report] == ["SIG-KEYS"]


def test_a_wrong_key_is_invalid_not_unchecked(card_file: Path, tmp_path: Path) -> None:
    other = SigningKey(new_private("ES256"), "ES256", "chapel-1")
    given = tmp_path / "keys.json"
    given.write_text(json.dumps(jwks(other, [])), encoding="utf-8")
    res = verify_card(str(card_file), str(given))
    assert [(s.checked, s.state) for s in res.signatures] == [(True, "INVALID")]
    assert [f.rule for f in res.report] == ["SIG-INVALID"]
    out = acap("verify", str(card_file), "--jwks", str(given))
    assert out.exit_code == 1
    assert "alg ES256: INVALID (the signature does not match the card" in out.stdout
    assert out.stdout.splitlines()[-1] == "NOT verified"


def test_the_right_keys_verify(card_file: Path, tmp_path: Path, key: SigningKey) -> None:
    given = tmp_path / "keys.json"
    given.write_text(json.dumps(jwks(key, [])), encoding="utf-8")
    res = verify_card(str(card_file), str(given))
    assert res.ok
    assert [(s.checked, s.state) for s in res.signatures] == [(True, "valid")]


def test_one_checked_and_invalid_one_unchecked(tmp_path: Path, key: SigningKey) -> None:
    """Both findings: the checked one failed (SIG-INVALID), the other had no keys."""
    card = Signer(key, jku=JKU).sign(copy.deepcopy(build_card(load_operator(EXAMPLE))))
    other = SigningKey(new_private("ES256"), "ES256", "chapel-2")
    second = Signer(other, jku=JKU).sign(copy.deepcopy(card))["signatures"][0]
    card["signatures"].append(second)
    card["description"] = "Changed after signing."
    path = tmp_path / "card.json"
    path.write_text(json.dumps(card), encoding="utf-8")
    given = tmp_path / "keys.json"
    given.write_text(json.dumps(jwks(key, [])), encoding="utf-8")
    res = verify_card(str(path), str(given))
    assert [(s.kid, s.state) for s in res.signatures] == [("chapel-1", "INVALID"),
                                                          ("chapel-2", "NOT CHECKED")]
    assert [(f.rule, f.message) for f in res.report] == [
        ("SIG-INVALID", "signature 0 (kid chapel-1) is not valid: the signature does not "
                        "match the card (changed after signing?)"),
        ("SIG-KEYS", "signature 1 could not be checked, its keys are unavailable: "
                     f"no key with kid 'chapel-2' in {given}")]


def test_sig_keys_is_a_registered_rule() -> None:
    assert "SIG-KEYS" in rule_ids()
