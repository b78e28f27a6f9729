"""JWS (RFC 7515) signing and verification against published vectors.

* RFC 7520 §4.1 (RS256) and RFC 8037 A.4 (Ed25519) are deterministic: acap's
  SigningKey.sign must reproduce the published signature byte for byte.
* RFC 6979 A.2.5: acap's ES256 signing is RFC 6979 deterministic ECDSA, and
  writes the JWS form R||S (RFC 7518 §3.4), not DER.
* RFC 8037 A.2/A.3: acap's public JWK and RFC 7638 thumbprint; cross-checked with
  jwcrypto for fresh keys of every type acap signs with.
* RFC 7520 §4.2 (PS384) and §4.3 (ES512) are randomised: their published
  signatures must verify through acap's verification path, and fail when changed.
* RFC 7520 §4.4 (HS256): refused, even with the right key at hand.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

from acap.card import Verifier
from acap.card._verifier import _jws_valid
from acap.keys import SigningKey, b64url, b64url_decode, load_signing_key, public_jwk, thumbprint
from acap.keys._key import parse_private_key
from support.cards import new_private
from support.paths import VECTORS


def vector(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((VECTORS / name).read_text(encoding="utf-8"))
    return data


def signing_input(v: dict[str, Any]) -> bytes:
    return f"{v['protected_b64u']}.{v['payload_b64u']}".encode("ascii")


def test_vectors_carry_the_payloads_they_claim() -> None:
    rs = vector("jws/rfc7520/4.1-RS256.json")
    assert b64url_decode(rs["payload_b64u"]).decode("utf-8") == rs["payload_utf8"]
    assert json.loads(b64url_decode(rs["protected_b64u"])) == rs["protected_header"]


def test_rs256_reproduces_rfc7520_4_1() -> None:
    v = vector("jws/rfc7520/4.1-RS256.json")
    private, _, kid = parse_private_key(json.dumps(v["signing_key_jwk"]).encode())
    key = SigningKey(private, "RS256", kid or "x")
    assert b64url(key.sign(signing_input(v))) == v["signature_b64u"]


def test_rs256_key_from_jwk_keeps_its_kid_and_needs_an_algorithm() -> None:
    v = vector("jws/rfc7520/4.1-RS256.json")
    text = json.dumps(v["signing_key_jwk"]).encode()
    key = load_signing_key(text, kid=None, alg_hint="RS256")
    assert (key.kid, key.alg) == ("bilbo.baggins@hobbiton.example", "RS256")


def test_ed25519_reproduces_rfc8037_a4() -> None:
    v = vector("jws/rfc8037/A-Ed25519.json")
    private, _, _ = parse_private_key(json.dumps(v["signing_key_jwk"]).encode())
    key = SigningKey(private, "EdDSA", "x")
    assert b64url(key.sign(signing_input(v))) == v["signature_b64u"]


def test_public_jwk_and_thumbprint_match_rfc8037_a2_a3() -> None:
    v = vector("jws/rfc8037/A-Ed25519.json")
    private, _, _ = parse_private_key(json.dumps(v["signing_key_jwk"]).encode())
    assert public_jwk(private.public_key()) == v["verification_key_jwk"]
    assert thumbprint(public_jwk(private.public_key())) == v["jwk_thumbprint_sha256_b64u"]
    # the thumbprint of the private JWK is the same (RFC 7638 §3.2: required members only)
    assert thumbprint(v["signing_key_jwk"]) == v["jwk_thumbprint_sha256_b64u"]


def test_rfc6979_deterministic_ecdsa_p256() -> None:
    v = vector("rfc6979/A.2.5-P256-SHA256.json")
    private = ec.derive_private_key(int(v["private_x_hex"], 16), ec.SECP256R1())
    nums = private.public_key().public_numbers()
    assert (nums.x, nums.y) == (int(v["public_ux_hex"], 16), int(v["public_uy_hex"], 16))
    key = SigningKey(private, "ES256", "x")
    for sig in v["signatures_sha256"]:
        raw = key.sign(sig["message"].encode("ascii"))
        assert len(raw) == 64
        assert raw.hex().upper() == sig["r_hex"] + sig["s_hex"]


@pytest.mark.parametrize("alg", ["ES256", "EdDSA", "RS256", "PS256"])
def test_public_jwk_and_thumbprint_agree_with_jwcrypto(alg: str) -> None:
    from jwcrypto import jwk

    private = new_private(alg)
    ours = public_jwk(private.public_key())
    theirs = json.loads(jwk.JWK.from_pyca(private.public_key()).export_public())
    theirs_kid = theirs.pop("kid")  # jwcrypto names a key by its RFC 7638 thumbprint
    assert ours == theirs
    assert thumbprint(ours) == theirs_kid
    assert thumbprint(ours) == jwk.JWK.from_pyca(private).thumbprint(hashes.SHA256())


@pytest.mark.parametrize("name", ["4.2-PS384", "4.3-ES512", "4.1-RS256"])
def test_published_signatures_verify_through_acap(name: str) -> None:
    v = vector(f"jws/rfc7520/{name}.json")
    args = (v["protected_b64u"], v["payload_b64u"], v["signature_b64u"],
            v["verification_key_jwk"], v["alg"])
    assert _jws_valid(*args)


@pytest.mark.parametrize("name", ["4.2-PS384", "4.3-ES512", "4.1-RS256"])
def test_published_signatures_fail_once_the_payload_changes(name: str) -> None:
    v = vector(f"jws/rfc7520/{name}.json")
    payload = bytearray(b64url_decode(v["payload_b64u"]))
    payload[0] ^= 1
    assert not _jws_valid(v["protected_b64u"], b64url(bytes(payload)), v["signature_b64u"],
                          v["verification_key_jwk"], v["alg"])


def test_published_signature_fails_under_another_algorithm() -> None:
    v = vector("jws/rfc7520/4.2-PS384.json")
    assert not _jws_valid(v["protected_b64u"], v["payload_b64u"], v["signature_b64u"],
                          v["verification_key_jwk"], "RS384")


def test_hs256_is_refused_even_with_its_key() -> None:
    v = vector("jws/rfc7520/4.4-HS256.json")
    card = {"name": "x", "signatures": [{"protected": v["protected_b64u"],
                                         "signature": v["signature_b64u"]}]}
    res = Verifier(lambda kid, jku: (v["verification_key_jwk"], "test")).verify(card)
    assert len(res.signatures) == 1
    check = res.signatures[0]
    assert (check.alg, check.valid) == ("HS256", False)
    assert "refused" in check.reason
    assert not res.ok


@pytest.mark.parametrize(("alg", "wrong"), [("ES256", "RS256"), ("ES256", "EdDSA"),
                                            ("EdDSA", "ES256"), ("RS256", "ES256")])
def test_signing_key_refuses_an_algorithm_that_does_not_fit(alg: str, wrong: str) -> None:
    from acap.errors import KeyProblem

    with pytest.raises(KeyProblem):
        SigningKey(new_private(alg), wrong, "k")
    with pytest.raises(KeyProblem):
        SigningKey(new_private(alg), alg, "")
