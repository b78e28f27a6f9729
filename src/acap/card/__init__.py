"""Card: the A2A 1.0 AgentCard with the On Request extension, its signed form, and its
signatures.

* :func:`build_card`: operator.yaml -> the AgentCard (field names and order as
  a2a.proto v1.0.1 writes them), the extension declared per OR-3.1 to OR-3.8;
* the signed form (:func:`canonical_payload`): presence rules, then RFC 8785 (JCS), as
  A2A 1.0 §8.4.1 says and as the official SDKs do;
* :class:`Signer`: JWS (RFC 7515) with the protected header ``alg``, ``typ: JOSE``,
  ``kid``, ``jku`` (A2A 1.0 §8.4.2);
* :class:`Verifier` and :func:`verify_card`: every signature of a card checked (A2A 1.0
  §8.4.3), accepting cards signed by other conforming implementations;
* personEntry values (:func:`parse_phone`, :func:`normalise_person_entry`; OR-3.4).

May import: :mod:`acap.keys`, :mod:`acap.site`, :mod:`acap.load` and the modules below.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from acap._lazy import exports

if TYPE_CHECKING:
    from acap.card._agent_card import (
        DEFAULT_MODES as DEFAULT_MODES,
        build_card as build_card,
        default_extension_description as default_extension_description,
        extension_entry as extension_entry,
        security_requirements as security_requirements,
        security_scheme as security_scheme,
    )
    from acap.card._canonical import (
        OPTIONAL_FIELDS as OPTIONAL_FIELDS,
        SDK as SDK,
        SPEC as SPEC,
        Mode as Mode,
        canonical_payload as canonical_payload,
        canonicalize as canonicalize,
        payload_object as payload_object,
    )
    from acap.card._person_entry import (
        Phone as Phone,
        looks_like_phone as looks_like_phone,
        normalise_person_entry as normalise_person_entry,
        parse_phone as parse_phone,
    )
    from acap.card._signer import Signer as Signer
    from acap.card._verifier import (
        ACCEPTED_ALGS as ACCEPTED_ALGS,
        VERIFY_KEYS_HINT as VERIFY_KEYS_HINT,
        KeyLookup as KeyLookup,
        SignatureCheck as SignatureCheck,
        Verification as Verification,
        Verifier as Verifier,
        b64url_problem as b64url_problem,
        empty_values as empty_values,
        signature_problem as signature_problem,
        uncovered_fields as uncovered_fields,
        verify_card as verify_card,
    )

__getattr__, __all__ = exports(__name__, {
    "_agent_card": [
        "DEFAULT_MODES", "build_card", "default_extension_description", "extension_entry",
        "security_requirements", "security_scheme",
    ],
    "_canonical": [
        "Mode", "OPTIONAL_FIELDS", "SDK", "SPEC", "canonical_payload", "canonicalize",
        "payload_object",
    ],
    "_signer": ["Signer"],
    "_verifier": [
        "ACCEPTED_ALGS", "KeyLookup", "SignatureCheck", "VERIFY_KEYS_HINT", "Verification",
        "Verifier", "b64url_problem", "empty_values", "signature_problem", "uncovered_fields",
        "verify_card",
    ],
    "_person_entry": ["Phone", "looks_like_phone", "normalise_person_entry", "parse_phone"],
})
