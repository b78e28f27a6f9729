"""``acap verify``: check every signature of an Agent Card (A2A 1.0 §8.4.3).

A signature is accepted when it verifies, with the key its ``kid`` names, over
the card's payload under either reading of the presence rules
(:mod:`acap.card._canonical`: the official SDKs' or the specification's text), so
that cards signed by any conforming implementation verify. JWS checking
itself is jwcrypto's (RFC 7515); acap refuses ``none`` and HMAC algorithms
before it gets there: a card is signed with a public key.

Beyond the signatures, the card's members are judged as ``acap check`` judges
them (:func:`acap.card._members.member_findings`: what a verifier would not
see, such as fields outside A2A 1.0 or empty values, and what makes the card
another card for another reader), the text itself as its reader judges it (a
name twice, a lone surrogate, a number beyond I-JSON: :mod:`acap.load._document`),
and a ``jku`` on another origin than the card's. A card with an error among them
is not verified, whatever its signatures say: what is verified is what is shown.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from acap.card._canonical import SDK, SPEC, canonical_payload
from acap.card._members import member_findings
from acap.errors import CanonicalizationError, FetchError, KeysUnavailable
from acap.findings import Finding, Location, Report
from acap.keys import PRIVATE_MEMBERS, b64url, b64url_decode
from acap.load import (
    DEFAULT_MAX_BYTES,
    JsonDocument,
    allowed_url,
    fetch,
    json_loads,
    read_card,
)
from acap.site import url_to_path
from acap.uris import url_for_site_file

#: Algorithms acap verifies (RFC 7518 §3.1, RFC 8037): asymmetric only.
ACCEPTED_ALGS = ("ES256", "ES384", "ES512", "EdDSA", "Ed25519", "RS256", "RS384", "RS512",
                 "PS256", "PS384", "PS512")


@dataclass
class SignatureCheck:
    """The result for one entry of ``signatures``.

    Attributes:
        index: position in ``signatures``.
        kid, alg, jku: from the protected header (``None`` when absent).
        valid: whether it verified.
        reason: why not, or which payload reading it verified under.
        checked: ``False`` when the keys to check it were unavailable (JWKS
            unreachable or not a JWKS, no key with its kid, no jku, a jku on
            another origin): then ``valid`` is ``False`` without saying the
            signature is wrong (rule ``SIG-KEYS``, not ``SIG-INVALID``).
    """

    index: int
    kid: str | None
    alg: str | None
    jku: str | None
    valid: bool
    reason: str
    checked: bool = True

    @property
    def state(self) -> str:
        """``"valid"``, ``"INVALID"`` or ``"NOT CHECKED"``, as ``acap verify`` prints it."""
        return "valid" if self.valid else "INVALID" if self.checked else "NOT CHECKED"


@dataclass
class Verification:
    """Everything ``acap verify`` found about one card.

    Attributes:
        source: the card's path or URL.
        signatures: one :class:`SignatureCheck` per signature.
        report: findings (invalid signatures, uncovered fields, a foreign jku ...).
        jwks_source: where the keys came from, for the user.
    """

    source: str
    signatures: list[SignatureCheck] = field(default_factory=list)
    report: Report = field(default_factory=Report)
    jwks_source: str | None = None

    @property
    def ok(self) -> bool:
        """True when at least one signature is valid and nothing is wrong."""
        return any(s.valid for s in self.signatures) and self.report.ok()


KeyLookup = Callable[[str | None, str | None], tuple[dict[str, Any] | None, str]]
#: The ``SIG-KEYS`` hint of ``acap verify``; other callers name their own fix.
VERIFY_KEYS_HINT = "give the keys with --jwks FILE_OR_URL"


def verify_card(source: str, jwks: str | None = None) -> Verification:
    """Verify every signature of the Agent Card at a path or https URL (A2A 1.0 §8.4.3).

    Args:
        source: card file path, or https URL.
        jwks: a JWKS file path or URL to take keys from. Default: the ``jku``
            of each signature, on the card's own origin; for a card file inside a
            built ``site/``, the local copy of the ``jku`` document is used when it
            exists.

    Returns:
        A :class:`Verification`: ``ok`` when a signature verifies and nothing is
        wrong; every problem a finding (``SIG-*``, ``A2A-UNKNOWN-FIELD`` ...). Never
        raises for bad input.
    """
    cf = read_card(source)
    result = Verification(source)
    result.report.extend(cf.findings)
    if cf.data is None:
        return result
    card_url = source if cf.is_url else url_for_site_file(source)
    verifier = Verifier(_key_lookup(cf, jwks, card_url, result),
                        VERIFY_KEYS_HINT if jwks is None else
                        'check --jwks: it must name a JWKS ({"keys": [...]}) holding the kid')
    return verifier.verify(cf.data, card_url=card_url, cf=cf, result=result)


def _load_jwks_doc(where: str) -> dict[str, Any]:
    """The JWKS document at a path or URL (at most :data:`DEFAULT_MAX_BYTES`).

    Raises:
        KeysUnavailable: it cannot be read, is not JSON, or has no ``keys`` list.
    """
    if where.startswith(("https://", "http://")):
        try:
            resp = fetch(where)
        except FetchError as exc:
            raise KeysUnavailable(exc.reason) from exc
        if resp.status != 200:
            raise KeysUnavailable(f"it answers HTTP {resp.status}")
        raw = resp.body
    else:
        try:
            with open(where, "rb") as fh:
                raw = fh.read(DEFAULT_MAX_BYTES + 1)
        except FileNotFoundError as exc:
            raise KeysUnavailable("there is no such file") from exc
        except IsADirectoryError as exc:
            raise KeysUnavailable("it is a folder, not a file") from exc
        except (OSError, ValueError) as exc:  # ValueError: a NUL character in the name
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else "not a file name"
            raise KeysUnavailable(why[:1].lower() + why[1:]) from exc
        if len(raw) > DEFAULT_MAX_BYTES:
            raise KeysUnavailable(f"it is larger than {DEFAULT_MAX_BYTES // 1024} KiB")
    try:
        doc = json_loads(raw.decode("utf-8") if isinstance(raw, bytes) else raw)
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
        raise KeysUnavailable("it is not JSON") from exc
    if not isinstance(doc, dict) or not isinstance(doc.get("keys"), list):
        raise KeysUnavailable('it is not a JWKS (no "keys" list)')
    return doc


def _key_lookup(cf: JsonDocument, jwks: str | None, card_url: str | None,
                result: Verification) -> KeyLookup:
    cache: dict[str, dict[str, Any] | str] = {}

    def doc_for(where: str) -> dict[str, Any] | str:
        if where not in cache:
            try:
                cache[where] = _load_jwks_doc(where)
            except KeysUnavailable as exc:
                cache[where] = f"cannot read the JWKS {where}: {exc}"
        return cache[where]

    def local_copy(jku: str) -> str | None:
        if cf.is_url or not card_url:
            return None
        site_root = Path(cf.source).resolve().parents[2]
        try:
            candidate = site_root / url_to_path(jku)
        except ValueError:  # SitePathError, or a URL urlsplit cannot read
            return None
        return str(candidate) if candidate.is_file() else None

    def lookup(kid: str | None, jku: str | None) -> tuple[dict[str, Any] | None, str]:
        # --jwks is the user's choice (a path or URL). Otherwise keys come from
        # the jku URL: over https only, never from a local path a card names, and
        # not from another origin than the card's (an attacker's card would name
        # the attacker's keys there).
        where = jwks
        if not where:
            if not jku:
                return None, "no jku in the protected header and no --jwks given"
            if card_url and _origin(jku) != _origin(card_url):
                return None, ("the jku is on another origin than the card, so its keys were "
                              "not fetched; give --jwks to check against keys you trust")
            where = local_copy(jku) or (jku if allowed_url(jku) else None)
            if not where:
                return None, f"the jku {jku!r} is not an https URL"
        result.jwks_source = where
        doc = doc_for(where)
        if isinstance(doc, str):
            return None, doc
        matches = [k for k in doc["keys"] if isinstance(k, dict) and k.get("kid") == kid]
        if not matches:
            return None, f"no key with kid '{kid}' in {where}"
        return matches[0], where

    return lookup


class Verifier:
    """Checks every signature of Agent Cards against the public keys it is given
    (A2A 1.0 §8.4.3: JWS, RFC 7515, over the card's canonical form).

    Every signature is judged, not only the first that verifies; a payload is accepted
    under either reading of the signed form (:mod:`acap.card._canonical`), so that
    cards signed by the official SDKs verify.

    Args:
        lookup: finds the public key of one signature: ``(kid, jku) -> (public JWK or
            None, where it came from or why there is none)``; ``None`` means the key is
            unavailable, and that signature is not checked (``SIG-KEYS``).
            :meth:`from_jwks` makes one from a JWKS document.
        keys_hint: the hint of a ``SIG-KEYS`` finding (how to give the keys).
    """

    def __init__(self, lookup: KeyLookup, keys_hint: str = VERIFY_KEYS_HINT) -> None:
        self.lookup = lookup
        self.keys_hint = keys_hint

    @classmethod
    def from_jwks(cls, jwks: Mapping[str, Any], where: str = "the JWKS") -> Verifier:
        """A verifier taking keys by kid from one JWKS document (``{"keys": [...]}``),
        whatever each signature's ``jku`` says."""
        keys = [k for k in jwks.get("keys") or () if isinstance(k, dict)]

        def lookup(kid: str | None, jku: str | None) -> tuple[dict[str, Any] | None, str]:
            found = [k for k in keys if k.get("kid") == kid]
            return (found[0], where) if found else (None, f"no key with kid '{kid}' in {where}")

        return cls(lookup, f"give a JWKS holding the key with that kid ({where})")

    def verify(self, card: dict[str, Any], *, card_url: str | None = None,
               cf: JsonDocument | None = None, result: Verification | None = None) -> Verification:
        """Verify the signatures of a parsed card.

        Args:
            card: the card as parsed JSON.
            card_url: the card's URL, to check that ``jku`` is on its origin.
            cf: the card file, for line numbers in findings.
            result: a :class:`Verification` to fill (a new one by default).

        Returns:
            The :class:`Verification`.
        """
        lookup, keys_hint = self.lookup, self.keys_hint
        res = result or Verification(cf.source if cf else "card")
        src = cf.source if cf else res.source

        def at(ptr: str) -> Location:
            return cf.at(ptr) if cf else Location(src, pointer=ptr)

        sigs = card.get("signatures")
        if not isinstance(sigs, list) or not sigs:
            res.report.add(Finding("SIG-NONE", "error", "the card has no signatures", at(""),
                                   "sign it with `acap build`"))
        else:
            payloads = _payloads(card, res, at)
            for i, sig in enumerate(sigs):
                check = _check_one(i, sig, payloads, lookup, card_url, res, at)
                res.signatures.append(check)
            signature_findings(res, at, keys_hint)
        # The members are judged as acap check judges them (one judgement per fact).
        res.report.extend(member_findings(card, at))
        return res


def signature_findings(res: Verification, at: Callable[[str], Location],
                       keys_hint: str) -> None:
    """One finding per signature that is not valid, added to ``res.report``.

    * ``SIG-INVALID`` (error) for a signature that was checked and is wrong (or
      malformed), even when another signature verifies: a card must not carry a
      signature that does not match it.
    * ``SIG-KEYS`` for one that could not be checked (its keys unavailable):
      an error when no signature verifies, a warning beside a valid one (the
      card is verified; this signature has no verdict).
    """
    any_valid = any(s.valid for s in res.signatures)
    for s in res.signatures:
        if s.valid:
            continue
        ptr = f"/signatures/{s.index}"
        if s.checked:
            res.report.add(Finding("SIG-INVALID", "error",
                                   f"signature {s.index} (kid {s.kid or '-'}) is not valid: "
                                   f"{s.reason}", at(ptr),
                                   "rebuild and republish the card; remove a signature "
                                   "that does not match it"))
        else:
            res.report.add(Finding("SIG-KEYS", "warning" if any_valid else "error",
                                   f"signature {s.index} could not be checked, its keys are "
                                   f"unavailable: {s.reason}", at(ptr), keys_hint))


def _payloads(card: dict[str, Any], res: Verification,
              at: Callable[[str], Location]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for mode in (SDK, SPEC):
        try:
            b = b64url(canonical_payload(card, mode))
        except CanonicalizationError as exc:
            res.report.add(Finding("SIG-PAYLOAD", "error", str(exc), at(""),
                                   "a card's numbers must fit RFC 8785 (IEEE 754 doubles)"))
            continue
        if all(b != seen for _, seen in out):
            out.append((mode, b))
    return out


def _check_one(i: int, sig: Any, payloads: list[tuple[str, str]], lookup: KeyLookup,
               card_url: str | None, res: Verification,
               at: Callable[[str], Location]) -> SignatureCheck:
    ptr = f"/signatures/{i}"
    bad = SignatureCheck(i, None, None, None, False, "")
    if not isinstance(sig, dict) or not isinstance(sig.get("protected"), str) \
            or not isinstance(sig.get("signature"), str):
        bad.reason = "not an AgentCardSignature {protected, signature}"
        return bad
    problem = b64url_problem(sig["protected"])
    if problem:
        bad.reason = f"the protected member {problem}"
        return bad
    try:
        header = json.loads(b64url_decode(sig["protected"]))
        if not isinstance(header, dict):
            raise ValueError("not an object")
    except ValueError:
        bad.reason = "the protected header is not base64url JSON"
        return bad
    kid, alg, jku = header.get("kid"), header.get("alg"), header.get("jku")
    check = SignatureCheck(i, kid if isinstance(kid, str) else None,
                           alg if isinstance(alg, str) else None,
                           jku if isinstance(jku, str) else None, False, "")
    if alg in (None, "none") or (isinstance(alg, str) and alg.startswith("HS")):
        check.reason = f"alg {alg!r} refused: an Agent Card is signed with a public key"
        return check
    if alg not in ACCEPTED_ALGS:
        check.reason = f"alg {alg!r} is not supported"
        return check
    if not check.kid:
        check.reason = "no kid in the protected header (A2A §8.4.2 requires one)"
        return check
    if "crit" in header:
        check.reason = "the protected header has crit parameters acap does not understand"
        return check
    problem = signature_problem(sig["signature"], alg)
    if problem:
        check.reason = problem
        return check
    if header.get("typ") is None:
        res.report.add(Finding("SIG-TYP", "warning", f"signature {i} has no typ in its "
                               "protected header; @a2a-js/sdk rejects it", at(ptr),
                               'sign with typ: "JOSE" (A2A §8.4.2)'))
    if check.jku and card_url and _origin(check.jku) != _origin(card_url):
        theirs = _origin(check.jku) or f"{check.jku!r}, not a URL"
        res.report.add(Finding("SIG-JKU-ORIGIN", "error",
                               f"signature {i} names a jku on another origin "
                               f"({theirs}) than the card ({_origin(card_url)})",
                               at(ptr), "publish the JWKS on the card's own origin"))
    jwk, source = lookup(check.kid, check.jku)
    if jwk is None:
        check.reason, check.checked = source, False
        return check
    if PRIVATE_MEMBERS & set(jwk):
        res.report.add(Finding("KEY-PRIVATE", "error", f"the JWKS at {source} publishes "
                               "private key material", Location(source),
                               "replace it at once, and rotate the key: it is compromised"))
    if jwk.get("alg") and jwk["alg"] != alg:
        check.reason = f"the key is for {jwk['alg']!r}, the signature says {alg}"
        return check
    key = _public_key(jwk)
    if key is None:
        check.reason, check.checked = (f"the key with kid {check.kid!r} in {source} is not a "
                                       "usable public JWK"), False
        return check
    for mode, payload in payloads:
        if _jws_valid(sig["protected"], payload, sig["signature"], key, alg):
            check.valid = True
            check.reason = ("valid" if mode == SDK else
                            "valid over the specification's reading of the payload only "
                            "(the SDKs would not verify it)")
            return check
    check.reason = "the signature does not match the card (changed after signing?)"
    return check


def _public_key(jwk: dict[str, Any]) -> Any:
    """The jwcrypto key of a public JWK (private members dropped), or ``None`` when the
    JWK is not a key jwcrypto can verify with (bad members, a point off its curve ...)."""
    from jwcrypto import jwk as jwcrypto_jwk

    try:
        key = jwcrypto_jwk.JWK(**{k: v for k, v in jwk.items() if k not in PRIVATE_MEMBERS})
        key.get_op_key("verify")  # builds the cryptography key: checks the numbers
    except Exception:  # jwcrypto and cryptography raise many types for bad members
        return None
    return key


def _jws_valid(protected: str, payload: str, signature: str, key: Any, alg: str) -> bool:
    """True when the JWS verifies. ``key``: a public JWK (dict) or a key from
    :func:`_public_key`."""
    from jwcrypto import jws as jwcrypto_jws

    if isinstance(key, dict):
        key = _public_key(key)
        if key is None:
            return False
    try:
        token = jwcrypto_jws.JWS()
        token.deserialize(json.dumps({"payload": payload, "protected": protected,
                                      "signature": signature}))
        token.verify(key, alg=alg)
    except Exception:  # jwcrypto raises several types for a bad signature or key
        return False
    return True


def _origin(url: str) -> str | None:
    """``scheme://host[:port]`` of a URL, lower-cased; ``None`` when it is not a URL."""
    try:
        u = urlsplit(url)
        port = u.port
    except ValueError:
        return None
    if not u.scheme or not u.hostname:
        return None
    return f"{u.scheme.lower()}://{u.hostname}" + (f":{port}" if port is not None else "")


#: Bytes of a JWS signature by algorithm where the algorithm fixes them (RFC 7518 §3.4:
#: R||S; RFC 8032 §5.1.6, §5.2.6: Ed25519 and Ed448). RSA signatures are as long as the key.
SIGNATURE_BYTES = {"ES256": (64,), "ES384": (96,), "ES512": (132,), "EdDSA": (64, 114),
                   "Ed25519": (64,)}


def b64url_problem(text: str) -> str | None:
    """What keeps ``text`` from being canonical base64url (RFC 7515 §2: the URL-safe
    alphabet, no padding, unused bits zero, so that one string encodes the bytes),
    as words ending a sentence that starts with the member's name; ``None`` when
    it is canonical."""
    import re

    shown = text if len(text) <= 24 else text[:21] + "..."
    odd = sorted(set(re.sub(r"[A-Za-z0-9_-]", "", text)))
    if odd:
        return (f"{shown!r} is not base64url: it holds "
                + ", ".join(repr(c) for c in odd[:5])
                + " (RFC 7515 §2: A-Z a-z 0-9 - _ only, no padding)")
    if len(text) % 4 == 1:
        return f"{shown!r} is not base64url: no base64url text has {len(text)} characters"
    if b64url(b64url_decode(text)) != text:
        return (f"{shown!r} is not canonical base64url: its last character carries bits "
                "that encode nothing (RFC 7515 §2)")
    return None


def signature_problem(text: str, alg: str) -> str | None:
    """Why the signature member cannot be a JWS signature for ``alg``: not canonical
    base64url (see :func:`b64url_problem`), or a length ``alg`` never gives
    (:data:`SIGNATURE_BYTES`); ``None`` when it may be one."""
    problem = b64url_problem(text)
    try:
        size: int | None = len(b64url_decode(text)) if len(text) % 4 != 1 else None
    except ValueError:
        size = None
    sizes = SIGNATURE_BYTES.get(alg)
    wrong = sizes is not None and size is not None and size not in sizes
    if not problem and not wrong:
        return None
    out = f"the signature member {problem}" if problem else "the signature member"
    if wrong and sizes is not None:
        out += (", and" if problem else "") + (
            f" decodes to {size} bytes, where an {alg} signature has "
            f"{' or '.join(map(str, sizes))}: a placeholder, not a signature")
    return out
