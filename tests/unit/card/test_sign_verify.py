"""A2A §8.4 signing and ``acap verify``, for every algorithm acap signs with.

* A card signed with ES256, EdDSA (Ed25519), RS256 or PS256 verifies; the
  protected header is exactly ``{alg, typ: "JOSE", kid, jku}``; ES256 is raw R||S.
* Changing any single value of a signed card (every leaf, signatures included)
  makes verification fail; so does any other value of the same type (hypothesis).
* A field outside the A2A 1.0 schema is reported (A2A-UNKNOWN-FIELD, with its line).
* ``none`` and HS256 are refused; a jku on another origin is reported and its keys
  are not fetched; a jku is never read as a local path.
"""

from __future__ import annotations

import copy
import hashlib
import hmac
import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from acap.card import KeyLookup, Signer, Verification, Verifier, build_card, verify_card
from acap.cli import report_text
from acap.cli._reporters import SIGNATURES_VERIFIED
from acap.keys import SigningKey, b64url, b64url_decode, jwks
from acap.load import load_operator
from support.cards import (
    ALGS,
    CARD,
    JWKS,
    acap,
    leaves,
    new_private,
    run_build,
    set_at,
    set_key_file,
    with_algorithm,
)
from support.paths import EXAMPLE

JKU = "https://example.com/.well-known/jwks.json"
CARD_URL = "https://example.com/.well-known/agent-card.json"


@cache
def key_for(alg: str) -> SigningKey:
    return SigningKey(new_private(alg), alg, "chapel-1")


@cache
def unsigned() -> dict[str, Any]:
    return build_card(load_operator(EXAMPLE))


def signed(alg: str = "ES256", jku: str | None = JKU) -> dict[str, Any]:
    return Signer(key_for(alg), jku=jku).sign(copy.deepcopy(unsigned()))


def lookup_for(alg: str) -> KeyLookup:
    doc = jwks(key_for(alg), [])

    def lookup(kid: str | None, jku: str | None) -> tuple[dict[str, Any] | None, str]:
        hits = [k for k in doc["keys"] if k["kid"] == kid]
        return (hits[0], "test JWKS") if hits else (None, f"no key {kid}")

    return lookup


def check(card: dict[str, Any], alg: str = "ES256") -> Verification:
    return Verifier(lookup_for(alg)).verify(card, card_url=CARD_URL)


def header(card: dict[str, Any], i: int = 0) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(b64url_decode(card["signatures"][i]["protected"]))
    return data


def write_card(folder: Path, card: dict[str, Any]) -> Path:
    """Write a card where a built site would have it: <folder>/example.com/.well-known/."""
    path = folder / CARD
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(card, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def write_jwks(folder: Path, alg: str) -> Path:
    path = folder / JWKS
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(jwks(key_for(alg), [])), encoding="utf-8")
    return path


# -- each algorithm -----------------------------------------------------------------------------

@pytest.mark.parametrize("alg", ALGS)
def test_sign_then_verify(alg: str) -> None:
    card = signed(alg)
    res = check(card, alg)
    assert res.ok, report_text(res.report)
    assert [(s.kid, s.alg, s.valid, s.reason) for s in res.signatures] == [
        ("chapel-1", alg, True, "valid")]


@pytest.mark.parametrize("alg", ALGS)
def test_protected_header_is_alg_typ_kid_jku(alg: str) -> None:
    h = header(signed(alg))
    assert list(h.items()) == [("alg", alg), ("typ", "JOSE"), ("kid", "chapel-1"), ("jku", JKU)]


@pytest.mark.parametrize(("alg", "size"), [("ES256", 64), ("EdDSA", 64), ("RS256", 256),
                                           ("PS256", 256)])
def test_signature_length(alg: str, size: int) -> None:
    # ES256 is R||S, 32 bytes each (RFC 7518 §3.4), never DER
    assert len(b64url_decode(signed(alg)["signatures"][0]["signature"])) == size


@pytest.mark.parametrize("alg", ALGS)
def test_built_card_verifies_with_acap_verify(example: Path, alg: str) -> None:
    set_key_file(example, new_private(alg))
    if alg.startswith(("RS", "PS")):
        with_algorithm(example, alg)
    assert run_build(example).report.ok
    card_path = example.parent / "site" / CARD
    res = verify_card(str(card_path))
    assert res.ok, report_text(res.report)
    assert res.signatures[0].alg == alg
    assert res.jwks_source == str(example.parent / "site" / JWKS)
    out = acap("verify", str(card_path))
    assert out.exit_code == 0
    assert out.stdout.splitlines()[0] == f"signature 0: kid chapel-1, alg {alg}: valid"
    assert out.stdout.splitlines()[-1] == SIGNATURES_VERIFIED


# -- any change breaks it -----------------------------------------------------------------------

def changed(value: Any) -> Any:
    """A different value of the same JSON type."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 1
    if isinstance(value, str):
        return value + "x" if value else "x"
    raise AssertionError(f"not a leaf: {value!r}")


@pytest.mark.parametrize("alg", ALGS)
def test_changing_any_single_value_fails(alg: str) -> None:
    card = signed(alg)
    points = list(leaves(card))
    assert len(points) == 52  # every value of the Annex A card, and the signature
    still_valid = []
    for ptr, value in points:
        tampered = copy.deepcopy(card)
        set_at(tampered, ptr, changed(value))
        res = check(tampered, alg)
        if res.ok or any(s.valid for s in res.signatures):
            still_valid.append(ptr)
    assert still_valid == []


@pytest.mark.parametrize("alg", ALGS)
def test_removing_any_field_fails(alg: str) -> None:
    card = signed(alg)
    kept = []
    for ptr, _ in leaves({k: v for k, v in card.items() if k != "signatures"}):
        tampered = copy.deepcopy(card)
        parts = ptr.split("/")[1:]
        holder = tampered
        for p in parts[:-1]:
            holder = holder[int(p)] if isinstance(holder, list) else holder[p]
        if isinstance(holder, list):
            del holder[int(parts[-1])]
        else:
            del holder[parts[-1]]
        if check(tampered, alg).ok:
            kept.append(ptr)
    # `required: false` is the proto default: the signed form leaves it out already
    assert kept == ["/capabilities/extensions/0/required"]


LEAVES = [p for p, _ in leaves(signed())]
SCALARS = st.one_of(st.booleans(), st.integers(-10**6, 10**6),
                    st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=20))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ptr=st.sampled_from(LEAVES), data=st.data())
def test_any_other_value_of_the_same_type_fails(ptr: str, data: st.DataObject) -> None:
    card = signed()
    original = dict(leaves(card))[ptr]
    same_type = {bool: st.booleans(), str: st.text(max_size=30),
                 int: st.integers(-10**6, 10**6)}[type(original)]
    new = data.draw(same_type.filter(lambda v: v != original))
    set_at(card, ptr, new)
    assert not check(card).ok


@settings(max_examples=200, deadline=None)
@given(ptr=st.sampled_from(LEAVES), new=st.one_of(SCALARS, st.none(), st.lists(SCALARS),
                                                 st.dictionaries(st.text(), SCALARS)))
def test_verify_never_raises_on_any_replacement(ptr: str, new: Any) -> None:
    card = signed()
    set_at(card, ptr, new)
    res = check(card)
    assert isinstance(res.ok, bool)


@given(extra=st.dictionaries(st.text(min_size=1, max_size=8), SCALARS, min_size=1, max_size=3))
@settings(max_examples=100, deadline=None)
def test_verify_never_raises_on_odd_shapes(extra: dict[str, Any]) -> None:
    for ptr in ("/capabilities", "/capabilities/extensions", "/securitySchemes",
                "/securitySchemes/family-portal", "/skills/0", "/signatures/0"):
        card = signed()
        set_at(card, ptr, extra)
        assert isinstance(check(card).ok, bool)


def test_signature_with_other_padding_bits_is_refused() -> None:
    # 64 bytes are 86 base64url characters; the last one carries 2 unused bits. A
    # verifier that only decodes would accept 4 spellings of one signature.
    card = signed()
    sig = card["signatures"][0]["signature"]
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    last = alphabet.index(sig[-1])
    twin = sig[:-1] + alphabet[last ^ 1]
    assert b64url_decode(twin) == b64url_decode(sig)
    card["signatures"][0]["signature"] = twin
    res = check(card)
    assert not res.ok
    assert res.signatures[0].reason == (f"the signature member {twin[:21] + '...'!r} is not "
                                        "canonical base64url: its last character carries bits "
                                        "that encode nothing (RFC 7515 §2)")
    assert (res.signatures[0].kid, res.signatures[0].alg) == ("chapel-1", "ES256")


# -- what verify reports besides signatures -----------------------------------------------------

def test_field_outside_a2a_is_reported_with_its_line(tmp_path: Path) -> None:
    card = signed()
    card["skills"][1]["price"] = "EUR 2000"
    path = write_card(tmp_path, card)
    write_jwks(tmp_path, "ES256")
    line = path.read_text(encoding="utf-8").splitlines().index('      "price": "EUR 2000"') + 1
    res = verify_card(str(path))
    # the SDK reading drops the field, so the signature still verifies: it does not cover
    # it; receivers ignore it (A2A §5.7), so it is a warning, as in acap check
    assert res.signatures[0].valid
    assert res.ok
    [f] = [f for f in res.report if f.rule == "A2A-UNKNOWN-FIELD"]
    assert f.level == "warning"
    assert (f.location.line, f.location.column, f.location.pointer) == (line, 16,
                                                                        "/skills/1/price")
    out = acap("verify", str(path))
    assert out.exit_code == 0
    assert f"{path}:{line}:16: warning: skills[1].price is not an A2A 1.0 field" in out.stderr
    assert "[A2A-UNKNOWN-FIELD]" in out.stderr
    assert out.stdout.splitlines()[-1] == SIGNATURES_VERIFIED


def test_top_level_field_outside_a2a_is_reported(tmp_path: Path) -> None:
    card = signed()
    card["url"] = "https://agent.example.com/a2a/v1"  # an A2A 0.3 field, gone in 1.0
    path = write_card(tmp_path, card)
    write_jwks(tmp_path, "ES256")
    res = verify_card(str(path))
    assert [(f.rule, f.level, f.location.pointer) for f in res.report] == \
        [("A2A-LEGACY", "error", "/url")]  # as acap check says it


def unsigned_jws(alg: str, key: bytes | None = None) -> dict[str, Any]:
    card = copy.deepcopy(unsigned())
    from acap.card import canonical_payload

    protected = b64url(json.dumps({"alg": alg, "typ": "JOSE", "kid": "chapel-1",
                                   "jku": JKU}).encode())
    payload = b64url(canonical_payload(card))
    signature = b""
    if key is not None:
        signature = hmac.new(key, f"{protected}.{payload}".encode(), hashlib.sha256).digest()
    card["signatures"] = [{"protected": protected, "signature": b64url(signature)}]
    return card


def test_alg_none_is_refused() -> None:
    res = check(unsigned_jws("none"))
    assert not res.ok
    assert res.signatures[0].reason == ("alg 'none' refused: an Agent Card is signed with a "
                                        "public key")


def test_hs256_is_refused_even_when_the_mac_is_right(tmp_path: Path) -> None:
    secret = b"0123456789abcdef0123456789abcdef"
    card = unsigned_jws("HS256", secret)
    oct_key = {"kty": "oct", "kid": "chapel-1", "k": b64url(secret)}

    def lookup(kid: str | None, jku: str | None) -> tuple[dict[str, Any] | None, str]:
        return oct_key, "test"

    res = Verifier(lookup).verify(card, card_url=CARD_URL)
    assert not res.ok
    assert not res.signatures[0].valid
    assert res.signatures[0].reason == ("alg 'HS256' refused: an Agent Card is signed with a "
                                        "public key")
    path = write_card(tmp_path, card)
    keys = tmp_path / "oct.json"
    keys.write_text(json.dumps({"keys": [oct_key]}), encoding="utf-8")
    out = acap("verify", str(path), "--jwks", str(keys))
    assert out.exit_code == 1
    assert "alg HS256: INVALID (alg 'HS256' refused" in out.stdout


def test_jku_on_another_origin_is_reported_and_not_fetched(tmp_path: Path) -> None:
    card = signed(jku="https://keys.example.net/jwks.json")
    path = write_card(tmp_path, card)
    line = path.read_text(encoding="utf-8").splitlines().index('  "signatures": [') + 2
    res = verify_card(str(path))
    [f] = [f for f in res.report if f.rule == "SIG-JKU-ORIGIN"]
    assert f.message == ("signature 0 names a jku on another origin (https://keys.example.net) "
                         "than the card (https://example.com)")
    assert f.location.line == line
    assert not res.signatures[0].valid
    assert "not fetched" in res.signatures[0].reason
    # with keys the user trusts the signature checks out, and the jku is still reported
    res = verify_card(str(path), str(write_jwks(tmp_path, "ES256")))
    assert res.signatures[0].valid
    assert not res.ok
    assert [f.rule for f in res.report] == ["SIG-JKU-ORIGIN"]


def test_a_jku_is_never_read_as_a_local_path(tmp_path: Path) -> None:
    keys = write_jwks(tmp_path, "ES256")
    for jku in (str(keys), "../jwks.json", f"file://{keys}"):
        card = signed(jku=jku)
        path = tmp_path / "card.json"
        path.write_text(json.dumps(card), encoding="utf-8")
        res = verify_card(str(path))
        assert not res.signatures[0].valid, jku
        reason = res.signatures[0].reason
        assert reason.startswith("the jku '") and \
            reason.endswith("' is not an https URL acap fetches"), reason


def test_card_without_signatures(tmp_path: Path) -> None:
    path = write_card(tmp_path, copy.deepcopy(unsigned()))
    res = verify_card(str(path))
    assert [(f.rule, f.message) for f in res.report] == [("SIG-NONE",
                                                          "the card has no signatures")]
    assert acap("verify", str(path)).exit_code == 1


def test_wrong_key_in_the_jwks(tmp_path: Path) -> None:
    card = signed("ES256")
    path = write_card(tmp_path, card)
    other = SigningKey(new_private("ES256"), "ES256", "chapel-1")
    (tmp_path / JWKS).write_text(json.dumps(jwks(other, [])), encoding="utf-8")
    res = verify_card(str(path))
    assert res.signatures[0].reason == ("the signature does not match the card (changed after "
                                        "signing?)")
    assert [f.rule for f in res.report] == ["SIG-INVALID"]


def test_verify_json_output(tmp_path: Path) -> None:
    path = write_card(tmp_path, signed())
    write_jwks(tmp_path, "ES256")
    out = acap("verify", str(path), "--format", "json")
    assert out.exit_code == 0
    doc = json.loads(out.stdout)
    assert doc["ok"] is True
    assert doc["results"][0]["signatures"] == [
        {"index": 0, "kid": "chapel-1", "alg": "ES256", "jku": JKU, "valid": True,
         "reason": "valid", "checked": True}]


def test_verify_usage_error_exits_2() -> None:
    assert acap("verify").exit_code == 2
    assert acap("verify", "x.json", "--format", "yaml").exit_code == 2


def test_jwks_with_private_members_is_reported_without_them(tmp_path: Path) -> None:
    from support.cards import private_jwk, secret_markers

    key = key_for("ES256")
    path = write_card(tmp_path, signed())
    leaked = {**private_jwk(key.private), "kid": "chapel-1", "alg": "ES256"}
    (tmp_path / JWKS).write_text(json.dumps({"keys": [leaked]}), encoding="utf-8")
    res = verify_card(str(path))
    assert res.signatures[0].valid
    assert not res.ok
    [f] = [f for f in res.report if f.rule == "KEY-PRIVATE"]
    assert f.message.endswith("publishes private key material")
    out = acap("verify", str(path))
    assert out.exit_code == 1
    for marker in secret_markers(key.private):
        assert marker not in out.stdout + out.stderr
