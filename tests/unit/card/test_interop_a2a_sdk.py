"""Interop both ways with the official A2A Python SDK (a2a-sdk 1.3), the independent reference.

* A card acap builds and signs verifies with ``a2a.utils.signing.create_signature_verifier``,
  the key taken from the JWKS acap built, the card parsed with
  ``a2a.client.card_resolver.parse_agent_card``.
* A card signed by a2a-sdk's ``create_agent_card_signer`` verifies with acap's
  verify, as a library and as the ``acap verify`` command.

Both for the bundled example and for an operator with non-ASCII text
("Pompes funèbres Éloïse", "Straße") and security scheme names whose RFC 8785
order (by UTF-16 code unit) differs from their code point order.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from a2a.client.card_resolver import parse_agent_card
from a2a.utils.signing import (
    InvalidSignaturesError,
    create_agent_card_signer,
    create_signature_verifier,
)
from google.protobuf.json_format import MessageToDict
from jwt.api_jwk import PyJWK

from acap.card import build_card, verify_card
from acap.cli import report_text
from acap.keys import SigningKey, jwks
from acap.load import load_operator
from support.cards import ALGS, acap, new_private, pem, run_build, set_key_file

NON_ASCII = """\
operator:
  name: Pompes funèbres Éloïse
  website: https://pompes-funebres-eloise.example
agent:
  name: Assistant des Pompes funèbres Éloïse
  description: Répond aux questions des familles, Hauptstraße 5 und Straße der Einheit.
  version: 1.0.0
  interfaces:
    - url: https://agent.pompes-funebres-eloise.example/a2a/v1
  streaming: false
signIn:
  ﬁ-portail:
    openIdConnectUrl: https://portail.pompes-funebres-eloise.example/.well-known/openid-configuration
  𝔸-portail:
    description: Espace des familles — « Éloïse »
    openIdConnectUrl: https://familles.pompes-funebres-eloise.example/.well-known/openid-configuration
skills:
  - id: horaires
    kind: public
    name: Horaires d'ouverture
    description: Heures d'ouverture, Straße der Einheit 5, Köln.
    tags: [horaires, Straße]
    examples: [Quand êtes-vous ouverts ?, Wann haben Sie geöffnet?]
  - id: tarifs
    kind: on-request
    name: Tarifs des obsèques
    description: Donnés à la personne qui les demande.
    tags: [tarifs]
    personEntry: https://pompes-funebres-eloise.example/demander
  - id: suivi
    kind: sign-in
    name: Suivi du dossier
    description: Où en est le dossier de la famille.
    tags: [dossier]
    signIn:
      𝔸-portail: [openid]
signing:
  kid: éloïse-1
"""

HOST = "pompes-funebres-eloise.example"


@pytest.fixture(params=["example", "non-ascii"])
def operator(request: pytest.FixtureRequest, example: Path,
             write_operator: Callable[..., Path]) -> tuple[Path, str]:
    """(operator.yaml, card host) for the bundled example and the non-ASCII operator."""
    if request.param == "example":
        return example, "example.com"
    return write_operator(NON_ASCII), HOST


def key_provider_from(jwks_doc: dict[str, Any], expect_jku: str | None
                      ) -> Callable[[str | None, str | None], PyJWK]:
    def provide(kid: str | None, jku: str | None) -> PyJWK:
        assert jku == expect_jku
        [key] = [k for k in jwks_doc["keys"] if k["kid"] == kid]
        return PyJWK(key)

    return provide


def test_scheme_names_sort_differently_by_utf16_and_by_code_point() -> None:
    names = ["ﬁ-portail", "𝔸-portail"]
    assert sorted(names) == names
    assert sorted(names, key=lambda n: n.encode("utf-16-be")) == names[::-1]


# -- acap signs, a2a-sdk verifies ---------------------------------------------------------------

@pytest.mark.parametrize("alg", ALGS)
def test_acap_card_verifies_with_a2a_sdk(operator: tuple[Path, str], alg: str) -> None:
    path, host = operator
    set_key_file(path, new_private(alg))
    if alg.startswith(("RS", "PS")):
        text = path.read_text(encoding="utf-8")
        path.write_text(text.replace("\nsigning:\n", f"\nsigning:\n  algorithm: {alg}\n"),
                        encoding="utf-8")
    result = run_build(path)
    assert result.report.ok, report_text(result.report)
    site = path.parent / "site" / host / ".well-known"
    raw = (site / "agent-card.json").read_bytes()
    jwks_doc = json.loads((site / "jwks.json").read_bytes())
    verifier = create_signature_verifier(
        key_provider_from(jwks_doc, f"https://{host}/.well-known/jwks.json"), [alg])
    verifier(parse_agent_card(json.loads(raw)))  # raises when no signature is valid
    # and the SDK's verifier does fail on a changed card
    tampered = json.loads(raw)
    tampered["skills"][0]["name"] += "."
    with pytest.raises(InvalidSignaturesError):
        verifier(parse_agent_card(tampered))


def test_non_ascii_text_is_written_as_is(write_operator: Callable[..., Path]) -> None:
    path = write_operator(NON_ASCII)
    assert run_build(path).report.ok
    raw = (path.parent / "site" / HOST / ".well-known/agent-card.json").read_bytes()
    assert "Pompes funèbres Éloïse".encode() in raw
    assert "Straße".encode() in raw
    assert b"\\u" not in raw
    card = json.loads(raw)
    assert card["provider"]["organization"] == "Pompes funèbres Éloïse"
    assert list(card["securitySchemes"]) == ["ﬁ-portail", "𝔸-portail"]


# -- a2a-sdk signs, acap verifies ---------------------------------------------------------------

@pytest.mark.parametrize("alg", ALGS)
def test_a2a_sdk_card_verifies_with_acap(operator: tuple[Path, str], tmp_path: Path,
                                         alg: str) -> None:
    path, host = operator
    unsigned = build_card(load_operator(path))
    private = new_private(alg)
    jku = f"https://{host}/.well-known/jwks.json"
    signer = create_agent_card_signer(
        signing_key=pem(private),
        protected_header={"alg": alg, "typ": "JOSE", "kid": "sdk-1", "jku": jku})
    signed = MessageToDict(signer(parse_agent_card(copy.deepcopy(unsigned))))
    assert len(signed["signatures"]) == 1
    folder = tmp_path / "out" / host / ".well-known"
    folder.mkdir(parents=True)
    card_path = folder / "agent-card.json"
    card_path.write_text(json.dumps(signed, indent=2, ensure_ascii=False), encoding="utf-8")
    jwks_path = folder / "jwks.json"
    jwks_path.write_text(json.dumps(jwks(SigningKey(private, alg, "sdk-1"), [])),
                         encoding="utf-8")

    res = verify_card(str(card_path))  # keys found through the jku, in the local site copy
    assert res.ok, report_text(res.report)
    assert [(s.kid, s.alg, s.valid, s.reason) for s in res.signatures] == [
        ("sdk-1", alg, True, "valid")]

    out = acap("verify", str(card_path), "--jwks", str(jwks_path))
    assert out.exit_code == 0, out.stdout + out.stderr
    assert out.stdout.splitlines()[0] == f"signature 0: kid sdk-1, alg {alg}: valid"

    signed["description"] += " "
    card_path.write_text(json.dumps(signed, ensure_ascii=False), encoding="utf-8")
    assert not verify_card(str(card_path)).ok


def test_sdk_and_acap_sign_the_same_payload(operator: tuple[Path, str]) -> None:
    """Same key and header: acap's EdDSA signature over its own payload is the SDK's, byte
    for byte (Ed25519 is deterministic), so both canonicalize the card to the same bytes."""
    from acap.card import canonical_payload
    from acap.keys import b64url

    path, host = operator
    unsigned = build_card(load_operator(path))
    private = new_private("EdDSA")
    signer = create_agent_card_signer(
        signing_key=pem(private),
        protected_header={"alg": "EdDSA", "typ": "JOSE", "kid": "k",
                          "jku": f"https://{host}/.well-known/jwks.json"})
    [theirs] = MessageToDict(signer(parse_agent_card(copy.deepcopy(unsigned))))["signatures"]
    signing_input = f"{theirs['protected']}.{b64url(canonical_payload(unsigned))}"
    ours = SigningKey(private, "EdDSA", "k").sign(signing_input.encode("ascii"))
    assert b64url(ours) == theirs["signature"]
