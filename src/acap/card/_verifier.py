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
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from acap.card._canonical import SDK, SPEC, canonical_payload
from acap.card._members import member_findings
from acap.errors import CanonicalizationError, FetchError, FileRefused, KeysUnavailable
from acap.findings import Finding, Location, Report, Result
from acap.keys import PRIVATE_MEMBERS, b64url, b64url_decode
from acap.load import (
    CARD,
    DEFAULT_MAX_BYTES,
    DEFAULT_TIMEOUT,
    JsonDocument,
    Root,
    allowed_url,
    document_from,
    fetch,
    given_root,
    json_loads,
    origin,
    read_file,
    shorten,
    url_problem,
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


@dataclass(repr=False)
class Verification(Result):
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

    def _succeeded(self) -> bool:
        """A signature verifies (and, as every result says, nothing is an error)."""
        return any(s.valid for s in self.signatures)


KeyLookup = Callable[[str | None, str | None], tuple[dict[str, Any] | None, str]]
#: The ``SIG-KEYS`` hint of ``acap verify``; other callers name their own fix.
VERIFY_KEYS_HINT = "give the keys with --jwks FILE_OR_URL"


def verify_card(source: Any, jwks: str | None = None, *, allow_private: bool = False,
                timeout: float = DEFAULT_TIMEOUT,
                connect_to: Mapping[str, str] | None = None) -> Verification:
    """Verify every signature of the Agent Card at a path or https URL (A2A 1.0 §8.4.3).

    Args:
        source: a card file (a path), an https URL, JSON bytes, parsed JSON or a
            :class:`~acap.load.JsonDocument` (:func:`acap.load.document_from`).
        jwks: a JWKS file path or URL to take keys from. Default: the ``jku``
            of each signature, on the card's own origin (also after redirects), one
            JWKS per card; for a card file inside a built ``site/``, the local copy of
            the ``jku`` document is used when it exists.
        allow_private: URLs may lead to private or loopback addresses (tests, previews;
            ``--allow-private``).
        timeout: seconds for each whole fetch (the card, the JWKS).
        connect_to: ``{host: "http://127.0.0.1:8000"}``: fetch that host's URLs (the card,
            its ``jku``) from that address, with the host's name in ``Host``, as curl's
            ``--connect-to`` (a preview of ``acap serve``, a server before its DNS).

    Returns:
        A :class:`Verification`: ``ok`` when a signature verifies and nothing is
        wrong; every problem a finding (``SIG-*``, ``CARD-*``, the member judgements
        of :func:`acap.card._members.member_findings` ...). Never raises for bad input.
    """
    cf = document_from(source, CARD, allow_private=allow_private, timeout=timeout,
                       connect_to=connect_to)
    result = Verification(cf.source)
    result.report.extend(cf.findings)
    if cf.data is None:
        return result
    card_url = cf.source if cf.is_url else url_for_site_file(cf.source)
    verifier = Verifier(_key_lookup(cf, jwks, card_url, result, allow_private, timeout,
                                    connect_to),
                        VERIFY_KEYS_HINT if jwks is None else
                        'check --jwks: it must name a JWKS ({"keys": [...]}) holding the kid')
    return verifier.verify(cf.data, card_url=card_url, cf=cf, result=result)


def _load_jwks_doc(where: str, *, jku: bool = False, allow_private: bool = False,
                   timeout: float = DEFAULT_TIMEOUT, root: Root | None = None,
                   connect_to: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The JWKS document at a path or URL (at most :data:`DEFAULT_MAX_BYTES`); a ``jku``
    URL must stay on its origin through redirects; a path is read within ``root``
    (default :func:`acap.load.given_root`), no link followed out of it.

    Raises:
        KeysUnavailable: it cannot be read, is not JSON, or has no ``keys`` list.
    """
    if where.startswith(("https://", "http://")):
        try:
            resp = fetch(where, same_origin=jku, allow_private=allow_private, timeout=timeout,
                         connect_to=connect_to)
        except FetchError as exc:
            raise KeysUnavailable(exc.reason) from exc
        if resp.status != 200:
            raise KeysUnavailable(f"it answers HTTP {resp.status}")
        return jwks_from_bytes(resp.body)
    try:
        raw = read_file(where, root or given_root(where), DEFAULT_MAX_BYTES)
    except FileNotFoundError as exc:
        raise KeysUnavailable("there is no such file") from exc
    except FileRefused as exc:
        raise KeysUnavailable(f"it is larger than {DEFAULT_MAX_BYTES // 1024} KiB"
                              if exc.too_large else exc.reason) from exc
    except (OSError, ValueError) as exc:  # ValueError: a NUL character in the name
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else "not a file name"
        raise KeysUnavailable(why[:1].lower() + why[1:]) from exc
    return jwks_from_bytes(raw)


def jwks_from_bytes(raw: bytes) -> dict[str, Any]:
    """A JWKS document (``{"keys": [...]}``) from its bytes.

    Raises:
        KeysUnavailable: not JSON, or no ``keys`` list.
    """
    try:
        doc = json_loads(raw.decode("utf-8"))
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
        raise KeysUnavailable("it is not JSON") from exc
    if not isinstance(doc, dict) or not isinstance(doc.get("keys"), list):
        raise KeysUnavailable('it is not a JWKS (no "keys" list)')
    return doc


class JkuKeys:
    """Keys by each signature's ``jku``, by the rules every such lookup follows (``acap
    verify`` and ``acap check --live`` alike):

    * a signature without ``jku`` has no keys here;
    * a ``jku`` on another origin than the card's is not fetched (an attacker's card
      would name the attacker's keys there; A2A §8.4.3 takes keys from the card's
      own origin), and neither is one that is not an https URL;
    * one JWKS per card: the ``jku`` of the first signature that names one; a
      signature naming another is not checked (a card cannot make acap fetch as
      many URLs as it lists).

    Args:
        card_url: the card's URL (``None``: a card file outside a site/, whose
            origin is not known; its ``jku`` is still fetched over https only).
        load: ``jku -> JWKS document``, raising :class:`~acap.errors.KeysUnavailable`.
        allow_private: a ``jku`` may name a loopback http URL (tests, previews).

    Attributes:
        first: the one ``jku`` whose keys are used, once a signature named it.
        where: where the last keys came from (for the user).
    """

    def __init__(self, card_url: str | None, load: Callable[[str], dict[str, Any]],
                 allow_private: bool = False) -> None:
        self.card_url = card_url
        self.load = load
        self.allow_private = allow_private
        self.first: str | None = None
        self.where: str | None = None
        self._doc: dict[str, Any] | str | None = None

    def __call__(self, kid: str | None, jku: str | None) -> tuple[dict[str, Any] | None, str]:
        if not jku:
            return None, "no jku in the protected header and no --jwks given"
        if self.card_url and origin(jku) != origin(self.card_url):
            if read_away_from_home(self.card_url, jku):
                return None, (f"the card was read from a local address ({origin(self.card_url)}),"
                              f" not from its jku's origin ({shorten(str(origin(jku)))}), so "
                              "its keys were not fetched")
            return None, ("the jku is on another origin than the card, so its keys were not "
                          "fetched; give --jwks to check against keys you trust")
        if not allowed_url(jku, allow_private=self.allow_private):
            return None, f"the jku {shorten(jku)!r} is not an https URL acap fetches"
        if self.first is None:
            self.first = jku
        elif jku != self.first:
            return None, (f"acap fetches one JWKS per card, that of the first jku "
                          f"({shorten(self.first)}); this signature names another")
        if self._doc is None:
            try:
                self._doc = self.load(jku)
            except KeysUnavailable as exc:
                self._doc = f"cannot read the JWKS {shorten(jku)}: {exc}"
        self.where = jku
        return keys_for(self._doc, kid, jku)


def read_away_from_home(card_url: str, jku: str) -> tuple[str, str] | None:
    """When a card was read from a local address and its ``jku`` names an https origin on
    the Web, the way to check it as it will be served there; else ``None``.

    A card read from loopback, a private or link-local address (one acap reads only with
    ``--allow-private``: a preview, a test server, an agent on the developer's machine)
    is not where it is published (A2A §8.2: ``https://{host}/.well-known/agent-card.json``),
    so whether its ``jku`` is on the card's own origin cannot be judged from there, and
    the keys are not fetched from the Web for a card read elsewhere. ``--connect-to``
    reads the card and its ``jku`` from the local address under the ``jku``'s host name.

    Args:
        card_url: the URL the card was read from.
        jku: a signature's ``jku``.

    Returns:
        ``(the card's URL on the jku's origin, "HOST=LOCAL_ORIGIN" for --connect-to)``,
        or ``None`` when the card was read from the Web, or the ``jku`` is not an https
        URL on the Web.
    """
    local = url_problem(card_url) is not None and \
        url_problem(card_url, allow_private=True) is None
    home, host = origin(jku), urlsplit(jku).hostname if url_problem(jku) is None else None
    if not local or not home or not host or not home.startswith("https://"):
        return None
    parts = urlsplit(card_url)
    card_there = home + (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    here = parts.hostname or ""
    here = f"[{here}]" if ":" in here else here  # an IPv6 address (RFC 3986 §3.2.2)
    return card_there, f"{host}={parts.scheme}://{here}" + (f":{parts.port}" if parts.port
                                                             else "")


def _read_at_home_hint(card_url: str, jku: str | None) -> str | None:
    """How to check a card read from a local address as it will be served on its
    ``jku``'s origin (:func:`read_away_from_home`), or ``None`` where that is not the case."""
    preview = read_away_from_home(card_url, jku) if jku else None
    if preview is None:
        return None
    return (f"to check the card as it will be served from {shorten(str(origin(str(jku))))}, "
            f"read it and its keys from this server under that name: {shorten(preview[0])} "
            f"--connect-to {shorten(preview[1])}")


def keys_for(doc: dict[str, Any] | str, kid: str | None,
             where: str) -> tuple[dict[str, Any] | None, str]:
    """The key with ``kid`` in a JWKS document (or the reason there is none, when
    ``doc`` is that reason): ``(JWK or None, where it came from or why not)``."""
    if isinstance(doc, str):
        return None, doc
    matches = [k for k in doc["keys"] if isinstance(k, dict) and k.get("kid") == kid]
    if not matches:
        return None, f"no key with kid '{shorten(str(kid))}' in {shorten(where)}"
    return matches[0], where


def _key_lookup(cf: JsonDocument, jwks: str | None, card_url: str | None,
                result: Verification, allow_private: bool, timeout: float,
                connect_to: Mapping[str, str] | None = None) -> KeyLookup:
    if jwks:  # the user's choice (a path or URL): every signature's keys come from it
        try:
            given: dict[str, Any] | str = _load_jwks_doc(jwks, allow_private=allow_private,
                                                         timeout=timeout, connect_to=connect_to)
        except KeysUnavailable as exc:
            given = f"cannot read the JWKS {shorten(jwks)}: {exc}"
        result.jwks_source = jwks

        def from_given(kid: str | None, _jku: str | None) -> tuple[dict[str, Any] | None, str]:
            return keys_for(given, kid, jwks)

        return from_given

    def local_copy(jku: str) -> tuple[str, Root] | None:
        if cf.is_url or not card_url:
            return None
        site_root = Path(cf.source).resolve().parents[2]
        try:
            rel = url_to_path(jku)
        except ValueError:  # SitePathError, or a URL urlsplit cannot read
            return None
        candidate = site_root / rel
        host = Root(site_root / rel.split("/", 1)[0], "its host folder", "inside",
                    may_be_link=False)  # read as acap serve and publish would serve it
        return (str(candidate), host) if candidate.is_file() else None

    def load(jku: str) -> dict[str, Any]:
        # Never from a local path a card names: only the site/ copy of its own jku.
        local = local_copy(jku)
        result.jwks_source = local[0] if local else jku
        if local:
            return _load_jwks_doc(local[0], root=local[1])
        return _load_jwks_doc(jku, jku=True, allow_private=allow_private, timeout=timeout,
                              connect_to=connect_to)

    return JkuKeys(card_url, load, allow_private)


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
            return (found[0], where) if found else \
                (None, f"no key with kid '{shorten(str(kid))}' in {where}")

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
        prov = card.get("provider")
        provider = prov.get("url") if isinstance(prov, dict) else None
        provider = provider if isinstance(provider, str) else None
        if not isinstance(sigs, list) or not sigs:
            res.report.add(Finding("SIG-NONE", "error", "the card has no signatures", at(""),
                                   "sign it with `acap build`"))
        else:
            payloads = _payloads(card, res, at)
            for i, sig in enumerate(sigs):
                check = _check_one(i, sig, payloads, lookup, card_url, res, at, provider)
                res.signatures.append(check)
            signature_findings(res, at, keys_hint)
        # The members are judged as acap check judges them (one judgement per fact).
        res.report.extend(member_findings(card, at))
        return res


def signature_findings(res: Verification, at: Callable[[str], Location],
                       keys_hint: str) -> None:
    """One finding per signature that is not valid, added to ``res.report``.

    * ``SIG-INVALID`` for a signature that was checked and is wrong (or malformed):
      an error when no signature verifies; a warning beside one that does, since
      both official SDKs accept a card on the first signature that verifies (the
      A.1 placeholder a2a-sdk's signer keeps beside its own is such a signature).
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
            res.report.add(Finding("SIG-INVALID", "warning" if any_valid else "error",
                                   f"signature {s.index} (kid {shorten(s.kid or '-')}) is not "
                                   f"valid: {s.reason}" + (
                                       "; another signature is, which clients built on the "
                                       "official SDKs accept" if any_valid else ""), at(ptr),
                                   "rebuild and republish the card; remove a signature "
                                   "that does not match it"))
        else:
            at_home = _read_at_home_hint(res.source, s.jku)
            res.report.add(Finding("SIG-KEYS", "warning" if any_valid else "error",
                                   f"signature {s.index} could not be checked, its keys are "
                                   f"unavailable: {s.reason}", at(ptr),
                                   at_home or keys_hint))


def _payloads(card: dict[str, Any], res: Verification,
              at: Callable[[str], Location]) -> list[tuple[str, str]]:
    """The base64url payloads a signature is checked against: the SDKs' reading first,
    then the specification's literal one where it differs (a match there is said, and
    refused: see :func:`_verdict`)."""
    out: list[tuple[str, str]] = []
    said: set[str] = set()
    for mode in (SDK, SPEC):
        try:
            b = b64url(canonical_payload(card, mode))
        except CanonicalizationError as exc:
            if str(exc) not in said:  # once, whichever reading could not be signed
                said.add(str(exc))
                res.report.add(Finding("SIG-PAYLOAD", "error", str(exc), at(""),
                                       "a card's numbers must fit RFC 8785 (IEEE 754 doubles)"))
            continue
        if all(b != seen for _, seen in out):
            out.append((mode, b))
    return out


#: Why a signature that matches only the specification's literal reading is refused.
SPEC_ONLY = ("it matches the card only under the specification's literal reading of A2A "
             "§8.4.1 (empty and unknown members kept); both official SDKs drop those before "
             "they verify, so a client built on them refuses it")


@dataclass
class _Signed:
    """One entry of ``signatures`` as read: its members and its protected header."""

    protected: str
    signature: str
    header: dict[str, Any]
    unprotected: Any


def _read_signature(sig: Any, check: SignatureCheck) -> _Signed | None:
    """The members of one signature, or ``None`` with ``check.reason`` saying why not."""
    if not isinstance(sig, dict) or not isinstance(sig.get("protected"), str) \
            or not isinstance(sig.get("signature"), str):
        check.reason = "not an AgentCardSignature {protected, signature}"
        return None
    problem = b64url_problem(sig["protected"])
    if problem:
        check.reason = f"the protected member {problem}"
        return None
    try:
        header = json.loads(b64url_decode(sig["protected"]))
        if not isinstance(header, dict):
            raise ValueError("not an object")
    except ValueError:
        check.reason = "the protected header is not base64url JSON"
        return None
    kid, alg, jku = header.get("kid"), header.get("alg"), header.get("jku")
    check.kid = kid if isinstance(kid, str) else None
    check.alg = alg if isinstance(alg, str) else None
    check.jku = jku if isinstance(jku, str) else None
    return _Signed(sig["protected"], sig["signature"], header, sig.get("header"))


def _header_refusal(signed: _Signed) -> str | None:
    """Why acap refuses a signature by its headers alone (before any key), or ``None``."""
    alg = signed.header.get("alg")
    if alg in (None, "none") or (isinstance(alg, str) and alg.startswith("HS")):
        return f"alg {alg!r} refused: an Agent Card is signed with a public key"
    if alg not in ACCEPTED_ALGS:
        return f"alg {alg!r} is not supported"
    if not isinstance(signed.header.get("kid"), str) or not signed.header["kid"]:
        return "no kid in the protected header (A2A §8.4.2 requires one)"
    return (header_problem(signed.header, signed.unprotected)
            or signature_problem(signed.signature, alg))


def _origin_findings(i: int, check: SignatureCheck, card_url: str | None,
                     provider: str | None, res: Verification,
                     at: Callable[[str], Location]) -> None:
    """SIG-TYP and SIG-JKU-ORIGIN of one signature (findings beside its verdict)."""
    ptr = f"/signatures/{i}"
    if check.jku and card_url and origin(check.jku) != origin(card_url):
        theirs = origin(check.jku) or f"{shorten(check.jku)!r}, not a URL"
        at_home = _read_at_home_hint(card_url, check.jku)
        if at_home:  # a preview: where the card is published is not known here
            res.report.add(Finding(
                "SIG-JKU-ORIGIN", "warning",
                f"signature {i} names a jku on {shorten(theirs)}; the card was read from "
                f"{origin(card_url)}, a local address, not from where it is published, so "
                "whether the jku is on the card's own origin cannot be judged here", at(ptr),
                at_home))
            return
        res.report.add(Finding("SIG-JKU-ORIGIN", "error",
                               f"signature {i} names a jku on another origin "
                               f"({shorten(theirs)}) than the card ({origin(card_url)})",
                               at(ptr), "publish the JWKS on the card's own origin"))
    elif check.jku and not card_url and provider and origin(check.jku) != origin(provider):
        theirs = origin(check.jku) or f"{shorten(check.jku)!r}, not a URL"
        res.report.add(Finding("SIG-JKU-ORIGIN", "warning",
                               f"signature {i} names a jku on {shorten(theirs)}, another origin "
                               f"than the card's provider.url ({shorten(str(origin(provider)))}): "
                               "served from its own host, its keys would not be fetched there",
                               at(ptr), "publish the JWKS on the card's own origin, and check "
                               "the card where it is served (acap verify URL)"))


def _usable_key(check: SignatureCheck, jwk: dict[str, Any], source: str,
                res: Verification) -> Any:
    """The jwcrypto key of ``jwk`` for this signature, or ``None`` with the reason set
    (and ``checked`` off where the key, not the signature, is at fault)."""
    if PRIVATE_MEMBERS & set(jwk):
        res.report.add(Finding("KEY-PRIVATE", "error", f"the JWKS at {source} publishes "
                               "private key material", Location(source),
                               "replace it at once, and rotate the key: it is compromised"))
    alg = check.alg or ""
    if jwk.get("alg") and jwk["alg"] != alg:
        check.reason = f"the key is for {shorten(str(jwk['alg']))!r}, the signature says {alg}"
        return None
    problem = key_problem(jwk, alg)
    if problem:
        check.reason = problem
        return None
    key = _public_key(jwk)
    if key is None:
        check.reason, check.checked = (f"the key with kid {shorten(check.kid or '')!r} in "
                                       f"{shorten(source)} is not a usable public JWK"), False
    return key


def _verdict(check: SignatureCheck, signed: _Signed, payloads: list[tuple[str, str]],
             key: Any) -> None:
    """Valid when the signature matches the payload the SDKs sign; a match under the
    specification's literal reading only is refused, and said (:data:`SPEC_ONLY`)."""
    for mode, payload in payloads:
        if _jws_valid(signed.protected, payload, signed.signature, key, check.alg or ""):
            check.valid = mode == SDK
            check.reason = "valid" if check.valid else SPEC_ONLY
            return
    check.reason = "the signature does not match the card (changed after signing?)"


def _check_one(i: int, sig: Any, payloads: list[tuple[str, str]], lookup: KeyLookup,
               card_url: str | None, res: Verification, at: Callable[[str], Location],
               provider: str | None = None) -> SignatureCheck:
    check = SignatureCheck(i, None, None, None, False, "")
    signed = _read_signature(sig, check)
    if signed is None:
        return check
    refusal = _header_refusal(signed)
    if refusal:
        check.reason = refusal
        return check
    if signed.header.get("typ") is None:
        res.report.add(Finding("SIG-TYP", "warning", f"signature {i} has no typ in its "
                               "protected header; @a2a-js/sdk rejects it", at(f"/signatures/{i}"),
                               'sign with typ: "JOSE" (A2A §8.4.2)'))
    _origin_findings(i, check, card_url, provider, res, at)
    jwk, source = lookup(check.kid, check.jku)
    if jwk is None:
        check.reason, check.checked = source, False
        return check
    key = _usable_key(check, jwk, source, res)
    if key is not None:
        _verdict(check, signed, payloads, key)
    return check


def _public_key(jwk: dict[str, Any]) -> Any:
    """The jwcrypto key of a public JWK (private members dropped), or ``None`` when the
    JWK is not a key jwcrypto can verify with (bad members, a point off its curve ...)."""
    # start-up: jwcrypto only when a signature is verified (a build signs without it)
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
    # start-up: jwcrypto only when a signature is verified (a build signs without it)
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


#: JOSE header parameters registered by RFC 7515 §4.1 (crit may not list them, §4.1.11).
_REGISTERED = frozenset({"alg", "jku", "jwk", "kid", "x5u", "x5c", "x5t", "x5t#S256", "typ",
                         "cty", "crit"})
#: The key each algorithm takes: (kty, curves) (RFC 7518 §3.3 to §3.5, §6; RFC 8037 §3.1).
_KEY_FOR_ALG = {"ES256": ("EC", ("P-256",)), "ES384": ("EC", ("P-384",)),
                "ES512": ("EC", ("P-521",)), "EdDSA": ("OKP", ("Ed25519", "Ed448")),
                "Ed25519": ("OKP", ("Ed25519",))} | {
    f"{p}{n}": ("RSA", ()) for p in ("RS", "PS") for n in (256, 384, 512)}
#: RFC 7518 §3.3 and §3.5: "A key of size 2048 bits or larger MUST be used".
MIN_RSA_BITS = 2048


def header_problem(header: dict[str, Any], unprotected: Any = None) -> str | None:
    """What in a signature's headers acap refuses (RFC 7515 §4.1.11, §7.2.1, RFC 7797,
    RFC 8725), as words; ``None`` when nothing.

    * the unprotected ``header`` is a JSON object whose names are disjoint from the
      protected header's (RFC 7515 §7.2.1: they MUST be): a name in both would be read
      from either, and only one of them is signed;

    * ``crit`` is a non-empty list of names that are not RFC 7515's own, each present
      in the header, each understood: acap understands ``b64`` only;
    * ``b64`` is listed in ``crit`` (RFC 7797 §6: it MUST be), and is ``true``: A2A
      §8.4.2 signs the base64url-encoded payload; an unencoded one (``b64: false``)
      is not an Agent Card signature.
    """
    return _unprotected_problem(header, unprotected) or _crit_problem(header)


def _unprotected_problem(header: dict[str, Any], unprotected: Any) -> str | None:
    """RFC 7515 §7.2.1: the unprotected header is an object whose names are not the
    protected header's."""
    if unprotected is None:
        return None
    if not isinstance(unprotected, dict):
        return "the unprotected header is not a JSON object (RFC 7515 §7.2.1)"
    both = sorted(set(unprotected) & set(header))
    if both:
        return (f"{shorten(both[0])!r} is in both the protected and the unprotected "
                "header, which RFC 7515 §7.2.1 says MUST be disjoint: one of the two is "
                "not signed")
    return None


def _crit_problem(header: dict[str, Any]) -> str | None:
    """RFC 7515 §4.1.11 (``crit``) and RFC 7797 §6 (``b64``) in a protected header."""
    crit = header.get("crit")
    if "crit" in header:
        if not isinstance(crit, list) or not crit or \
                not all(isinstance(c, str) for c in crit):
            return "crit must be a non-empty list of header names (RFC 7515 §4.1.11)"
        for name in crit:
            if name in _REGISTERED:
                return f"crit lists {name!r}, which RFC 7515 defines (RFC 7515 §4.1.11)"
            if name not in header:
                return f"crit lists {shorten(name)!r}, which the header does not hold"
            if name != "b64":
                return (f"crit lists {shorten(name)!r}, an extension acap does not "
                        "understand, so it must refuse the signature (RFC 7515 §4.1.11)")
    if "b64" in header:
        if not (isinstance(crit, list) and "b64" in crit):
            return "b64 is in the header but not listed in crit (RFC 7797 §6 requires it)"
        if header["b64"] is not True:
            return ("b64 is not true: an unencoded payload (RFC 7797) is not how A2A §8.4.2 "
                    "signs a card")
    return None


def key_problem(jwk: dict[str, Any], alg: str) -> str | None:
    """Why the public JWK cannot verify ``alg`` signatures: another key type or curve
    than the algorithm takes (an ES384 signature checked with a P-256 key), or an RSA
    key under :data:`MIN_RSA_BITS` bits (RFC 7518 §3.3, §3.4, §3.5; RFC 8037 §3.1;
    RFC 8725 §3.1, §3.2); ``None`` when it can."""
    kty, curves = _KEY_FOR_ALG.get(alg, ("", ()))
    have = jwk.get("kty")
    crv = jwk.get("crv")
    if have != kty or (curves and crv not in curves):
        what = f"{have} {crv}" if crv else str(have)
        need = f"{kty} {' or '.join(curves)}" if curves else kty
        return (f"the key is {shorten(what, 40)}, but {alg} takes {need} (RFC 7518 §3.1): "
                "an algorithm and a key that do not belong together")
    if kty == "RSA":
        try:
            bits = int.from_bytes(b64url_decode(jwk.get("n", "")), "big").bit_length()
        except (ValueError, TypeError):
            return None  # not a usable key: said where it is built
        if bits < MIN_RSA_BITS:
            return (f"the RSA key has {bits} bits; RFC 7518 §3.3 requires {MIN_RSA_BITS} or "
                    "more")
    return None


#: Bytes of a JWS signature by algorithm where the algorithm fixes them (RFC 7518 §3.4:
#: R||S; RFC 8032 §5.1.6, §5.2.6: Ed25519 and Ed448). RSA signatures are as long as the key.
SIGNATURE_BYTES = {"ES256": (64,), "ES384": (96,), "ES512": (132,), "EdDSA": (64, 114),
                   "Ed25519": (64,)}


def b64url_problem(text: str) -> str | None:
    """What keeps ``text`` from being canonical base64url (RFC 7515 §2: the URL-safe
    alphabet, no padding, unused bits zero, so that one string encodes the bytes),
    as words ending a sentence that starts with the member's name; ``None`` when
    it is canonical."""

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
