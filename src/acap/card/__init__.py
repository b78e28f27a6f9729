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
* personEntry values (:func:`parse_phone`, :func:`normalise_person_entry`; OR-3.4), and
  when two addresses are one (:func:`same_address`: RFC 3986 §6.2, RFC 3966 §4).

May import: :mod:`acap.keys`, :mod:`acap.site`, :mod:`acap.load` and the modules below.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from acap._lazy import exports

if TYPE_CHECKING:
    from acap.card._agent_card import build_card as build_card
    from acap.card._canonical import SDK as SDK
    from acap.card._canonical import SPEC as SPEC
    from acap.card._canonical import Mode as Mode
    from acap.card._canonical import canonical_payload as canonical_payload
    from acap.card._canonical import canonicalize as canonicalize
    from acap.card._canonical import payload_object as payload_object
    from acap.card._differences import DIFFERENCES as DIFFERENCES
    from acap.card._differences import Difference as Difference
    from acap.card._differences import differences_markdown as differences_markdown
    from acap.card._equivalent import Tel as Tel
    from acap.card._equivalent import normal_url as normal_url
    from acap.card._equivalent import origin_of as origin_of
    from acap.card._equivalent import parse_tel as parse_tel
    from acap.card._equivalent import same_address as same_address
    from acap.card._equivalent import same_tel as same_tel
    from acap.card._members import LEGACY as LEGACY
    from acap.card._members import OAUTH_FLOWS as OAUTH_FLOWS
    from acap.card._members import SCHEME_KINDS as SCHEME_KINDS
    from acap.card._members import as_proto_reads as as_proto_reads
    from acap.card._members import empty_values as empty_values
    from acap.card._members import field_name_problems as field_name_problems
    from acap.card._members import is_extension_uri as is_extension_uri
    from acap.card._members import is_near_extension_uri as is_near_extension_uri
    from acap.card._members import legacy_fields as legacy_fields
    from acap.card._members import member_findings as member_findings
    from acap.card._members import uncovered_fields as uncovered_fields
    from acap.card._person_entry import Phone as Phone
    from acap.card._person_entry import looks_like_phone as looks_like_phone
    from acap.card._person_entry import normalise_person_entry as normalise_person_entry
    from acap.card._person_entry import parse_local_phone as parse_local_phone
    from acap.card._person_entry import parse_phone as parse_phone
    from acap.card._person_entry import phone_letters as phone_letters
    from acap.card._signer import Signer as Signer
    from acap.card._verifier import ACCEPTED_ALGS as ACCEPTED_ALGS
    from acap.card._verifier import MIN_RSA_BITS as MIN_RSA_BITS
    from acap.card._verifier import VERIFY_KEYS_HINT as VERIFY_KEYS_HINT
    from acap.card._verifier import JkuKeys as JkuKeys
    from acap.card._verifier import KeyLookup as KeyLookup
    from acap.card._verifier import SignatureCheck as SignatureCheck
    from acap.card._verifier import Verification as Verification
    from acap.card._verifier import Verifier as Verifier
    from acap.card._verifier import b64url_problem as b64url_problem
    from acap.card._verifier import header_problem as header_problem
    from acap.card._verifier import jwks_from_bytes as jwks_from_bytes
    from acap.card._verifier import key_problem as key_problem
    from acap.card._verifier import keys_for as keys_for
    from acap.card._verifier import read_away_from_home as read_away_from_home
    from acap.card._verifier import signature_problem as signature_problem
    from acap.card._verifier import verify_card as verify_card

__getattr__, __dir__ = exports(__name__)
