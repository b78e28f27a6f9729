"""What is verified is what is shown (issue 12, item 4): the JOSE header and the key judged
as RFC 7515, RFC 7518, RFC 7797 and RFC 8725 advise; a number beyond I-JSON said once,
as its own finding; a local card's jku against its provider.url; long values shortened.

Each test signs the smallest card that shows the fault, with a key made here.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, rsa, utils

from acap.card import Signer, Verifier, build_card, canonical_payload, header_problem, key_problem
from acap.keys import SigningKey, b64url
from acap.load import JsonDocument, load_operator, parse_document
from support.cards import acap, new_private
from support.paths import EXAMPLE

JKU = "https://example.com/.well-known/jwks.json"


@pytest.fixture(scope="module")
def es256() -> SigningKey:
    return SigningKey(new_private("ES256"), "ES256", "chapel-1")


def card() -> dict[str, Any]:
    return copy.deepcopy(build_card(load_operator(EXAMPLE)))


def jws(body: dict[str, Any], header: dict[str, Any], sign: Any) -> dict[str, Any]:
    """``body`` with one signature over it, made by ``sign(signing input) -> bytes``."""
    protected = b64url(json.dumps(header).encode())
    payload = b64url(canonical_payload(body))
    out = dict(body)
    out["signatures"] = [{"protected": protected,
                          "signature": b64url(sign(f"{protected}.{payload}".encode()))}]
    return out


def verify(signed: dict[str, Any], *publics: dict[str, Any]) -> Any:
    return Verifier.from_jwks({"keys": list(publics)}).verify(signed)


@pytest.mark.parametrize(("extra", "words"), [
    ({"b64": False}, "b64 is in the header but not listed in crit"),
    ({"b64": True}, "b64 is in the header but not listed in crit"),
    ({"b64": False, "crit": ["b64"]}, "b64 is not true"),
    ({"crit": []}, "crit must be a non-empty list"),
    ({"crit": ["kid"]}, "crit lists 'kid', which RFC 7515 defines"),
    ({"crit": ["exp"]}, "crit lists 'exp', which the header does not hold"),
    ({"crit": ["exp"], "exp": 1}, "an extension acap does not understand"),
])
def test_crit_and_b64_are_judged(es256: SigningKey, extra: dict[str, Any], words: str) -> None:
    header = {"alg": "ES256", "typ": "JOSE", "kid": "chapel-1", "jku": JKU, **extra}
    res = verify(jws(card(), header, es256.sign), es256.public_jwk())
    [s] = res.signatures
    assert (s.valid, s.checked) == (False, True)
    assert words in s.reason
    assert [f.rule for f in res.report.errors] == ["SIG-INVALID"]


def test_b64_true_listed_in_crit_is_the_default_and_verifies(es256: SigningKey) -> None:
    header = {"alg": "ES256", "typ": "JOSE", "kid": "chapel-1", "crit": ["b64"], "b64": True}
    res = verify(jws(card(), header, es256.sign), es256.public_jwk())
    assert res.signatures[0].valid and res.ok


def test_an_algorithm_and_a_key_that_do_not_belong_together(es256: SigningKey) -> None:
    """ES384 (SHA-384) computed with a P-256 key: a valid ECDSA computation, but not
    ES384, which is P-384 (RFC 7518 §3.4)."""
    private = es256.private

    def sign384(data: bytes) -> bytes:
        der = private.sign(data, ec.ECDSA(hashes.SHA384()))
        r, s = utils.decode_dss_signature(der)
        return r.to_bytes(32, "big") + s.to_bytes(32, "big")

    public = {k: v for k, v in es256.public_jwk().items() if k != "alg"}
    assert key_problem(public, "ES384") == ("the key is EC P-256, but ES384 takes EC P-384 "
                                            "(RFC 7518 §3.1): an algorithm and a key that do "
                                            "not belong together")
    header = {"alg": "ES384", "typ": "JOSE", "kid": "chapel-1"}
    res = verify(jws(card(), header, sign384), public)
    assert not res.signatures[0].valid and not res.ok


def test_an_rsa_key_under_2048_bits_is_refused() -> None:
    small = rsa.generate_private_key(public_exponent=65537, key_size=1024)
    from jwcrypto import jwk

    public = json.loads(jwk.JWK.from_pyca(small.public_key()).export_public())
    public["kid"] = "small"

    def sign(data: bytes) -> bytes:
        from cryptography.hazmat.primitives.asymmetric import padding

        return small.sign(data, padding.PKCS1v15(), hashes.SHA256())

    res = verify(jws(card(), {"alg": "RS256", "typ": "JOSE", "kid": "small"}, sign), public)
    [s] = res.signatures
    assert (s.valid, s.checked) == (False, True)
    assert s.reason == "the RSA key has 1024 bits; RFC 7518 §3.3 requires 2048 or more"


def test_header_problem_is_none_for_a_plain_header() -> None:
    assert header_problem({"alg": "ES256", "typ": "JOSE", "kid": "k"}) is None


def test_an_integer_beyond_2_53_is_said_once_and_the_signature_is_valid(
        es256: SigningKey, tmp_path: Path) -> None:
    body = card()
    body["capabilities"]["extensions"].append(
        {"uri": "https://example.com/ext/limits/v1", "params": {"limit": 2.0**53}})
    signed = Signer(es256, jku=JKU).sign(body)  # over the double, as the SDKs sign it
    text = json.dumps(signed, indent=2).replace("9007199254740992.0", "9007199254740993")
    assert "9007199254740993" in text
    path = tmp_path / "card.json"
    path.write_text(text, encoding="utf-8")
    keys = tmp_path / "jwks.json"
    keys.write_text(json.dumps({"keys": [es256.public_jwk()]}), encoding="utf-8")
    out = acap("verify", str(path), "--jwks", str(keys))
    assert out.exit_code == 1
    assert out.stdout.splitlines()[0] == "signature 0: kid chapel-1, alg ES256: valid"
    assert out.stdout.splitlines()[-1].startswith("NOT verified: a signature matches, but the "
                                                  "card has errors")
    assert out.stderr.count("[CARD-NUMBER]") == 1
    assert "9007199254740992" in out.stderr and "RFC 7493" in out.stderr
    assert "[SIG-" not in out.stderr


def test_a_local_card_with_a_jku_elsewhere_is_told(es256: SigningKey, tmp_path: Path) -> None:
    signed = Signer(es256, jku="https://keys.elsewhere.example/jwks.json").sign(card())
    path = tmp_path / "card.json"
    path.write_text(json.dumps(signed), encoding="utf-8")
    keys = tmp_path / "jwks.json"
    keys.write_text(json.dumps({"keys": [es256.public_jwk()]}), encoding="utf-8")
    out = acap("verify", str(path), "--jwks", str(keys))
    assert out.exit_code == 0  # the keys are the user's own; the origin is a warning
    assert "warning: signature 0 names a jku on https://keys.elsewhere.example, another " \
           "origin than the card's provider.url (https://example.com)" in out.stderr
    assert "[SIG-JKU-ORIGIN]" in out.stderr


def test_a_kid_of_100000_characters_is_shortened(es256: SigningKey, tmp_path: Path) -> None:
    long_kid = "k" * 100_000
    header = {"alg": "ES256", "typ": "JOSE", "kid": long_kid, "jku": JKU}
    path = tmp_path / "card.json"
    path.write_text(json.dumps(jws(card(), header, es256.sign)), encoding="utf-8")
    keys = tmp_path / "jwks.json"
    keys.write_text(json.dumps({"keys": [es256.public_jwk()]}), encoding="utf-8")
    out = acap("verify", str(path), "--jwks", str(keys))
    assert out.exit_code == 1
    assert long_kid not in out.stdout + out.stderr
    assert "(100,000 characters)" in out.stdout
    assert max(len(line) for line in (out.stdout + out.stderr).splitlines()) < 400


def test_a_document_fault_in_a_reply_is_a_finding() -> None:
    cf = JsonDocument("reply.json", raw=b'{"a": "\\ud800", "n": ' + b"9" * 5000 + b"}")
    parse_document(cf)
    assert sorted(f.rule for f in cf.findings) == ["CARD-JSON", "CARD-NUMBER"]
