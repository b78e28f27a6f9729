"""Signing Agent Cards: A2A 1.0 §8.4.2, JWS (RFC 7515) over the JCS payload.

:class:`Signer` holds one key and its protected header and signs many cards;
the header is encoded once. Verification lives in :mod:`acap.card._verifier`.
"""

from __future__ import annotations

import json
from typing import Any

from acap.card._canonical import canonical_payload
from acap.keys import SigningKey, b64url


class Signer:
    """Signs AgentCards with one key.

    Args:
        key: the signing key (its ``alg`` and ``kid`` go in the header).
        jku: URL of the JWKS holding the public key, on the card's own origin;
            ``None`` leaves ``jku`` out.

    The protected header is ``{"alg", "typ": "JOSE", "kid", "jku"}`` in that
    order (A2A §8.4.2: ``alg`` and ``kid`` MUST, ``typ`` SHOULD be ``JOSE``,
    ``jku`` MAY; @a2a-js/sdk rejects a header without ``typ``).
    """

    def __init__(self, key: SigningKey, jku: str | None = None) -> None:
        self.key = key
        header: dict[str, str] = {"alg": key.alg, "typ": "JOSE", "kid": key.kid}
        if jku:
            header["jku"] = jku
        self.protected_header = header
        self._protected = b64url(json.dumps(header, separators=(",", ":")).encode("utf-8"))

    def signature(self, card: dict[str, Any]) -> dict[str, str]:
        """One AgentCardSignature ``{"protected", "signature"}`` for ``card``.

        Raises:
            acap.card._canonical.CanonicalizationError: the card has a value RFC 8785
                cannot represent.
        """
        payload = b64url(canonical_payload(card))
        signing_input = f"{self._protected}.{payload}".encode("ascii")
        return {"protected": self._protected, "signature": b64url(self.key.sign(signing_input))}

    def sign(self, card: dict[str, Any]) -> dict[str, Any]:
        """A copy of ``card`` whose ``signatures`` holds exactly this key's signature.

        Re-signing replaces ``signatures``; it never appends (a stale signature
        over older content would only confuse a verifier). Key order is kept,
        with ``signatures`` last.
        """
        body = {k: v for k, v in card.items() if k != "signatures"}
        body["signatures"] = [self.signature(body)]
        return body
