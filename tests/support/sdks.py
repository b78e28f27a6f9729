"""The three signers and verifiers of the differential suite: acap, a2a-sdk 1.3 (Python,
in this process) and @a2a-js/sdk 1.3 (JavaScript: one node process for the whole run,
``tests/js/sdkcard.mjs``, one request per line).

Every card is a text: each signer reads it with its own JSON reader and signs what it
read; the signed card is the same text with that signature as its ``signatures``
(:func:`with_signature` keeps every name written twice, every number's digits and
every escape as written), and each verifier reads that text with its own reader.
"""

from __future__ import annotations

import copy
import json
import logging
import shutil
import subprocess
from dataclasses import dataclass
from typing import Any

from acap.card import Signer, Verification, Verifier
from acap.keys import SigningKey
from acap.load import JsonDocument, parse_document
from support.cards import new_private, private_jwk
from support.paths import REPO

JS_DIR = REPO / "tests" / "js"
ALGS = ("ES256", "EdDSA", "RS256", "PS256")
VALID, REFUSED, UNSIGNED = "valid", "refused", "unsigned"
SIGNERS = ("acap", "python", "javascript")


@dataclass(repr=False)
class Key:
    """One signing key in every form the three need (its repr names no private part)."""

    alg: str
    kid: str
    signing: SigningKey
    private: dict[str, Any]
    public: dict[str, Any]

    def __repr__(self) -> str:
        return f"Key({self.alg}, {self.kid})"

    @property
    def header(self) -> dict[str, str]:
        """The protected header all three sign with (A2A §8.4.2, acap's own)."""
        return {"alg": self.alg, "typ": "JOSE", "kid": self.kid,
                "jku": "https://example.com/.well-known/jwks.json"}


def make_keys() -> dict[str, Key]:
    """One key per algorithm of :data:`ALGS`, each JWK with ``kid`` and ``alg``."""
    out = {}
    for alg in ALGS:
        private = new_private(alg)
        kid = f"diff-{alg.lower()}"
        jwk = private_jwk(private, kid=kid, alg=alg)
        public = {k: v for k, v in jwk.items() if k not in ("d", "p", "q", "dp", "dq", "qi")}
        out[alg] = Key(alg, kid, SigningKey(private, alg, kid), jwk, public)
    return out


# -- texts ---------------------------------------------------------------------------------


class _Raw:
    """A number literal, kept as written."""

    def __init__(self, text: str) -> None:
        self.text = text


def _pairs(pairs: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    return [("\0pairs", pairs)]


def _dump(v: Any) -> str:
    if isinstance(v, list) and len(v) == 1 and isinstance(v[0], tuple) and v[0][0] == "\0pairs":
        return "{" + ",".join(json.dumps(k) + ":" + _dump(x) for k, x in v[0][1]) + "}"
    if isinstance(v, list):
        return "[" + ",".join(_dump(x) for x in v) + "]"
    if isinstance(v, _Raw):
        return v.text
    return json.dumps(v)  # ensure_ascii: a lone surrogate stays its escape


def with_signature(text: str, signature: dict[str, Any]) -> str:
    """``text`` with ``signatures`` set to ``[signature]``, everything else as written."""
    doc = json.loads(text, object_pairs_hook=_pairs, parse_int=_Raw, parse_float=_Raw,
                     parse_constant=_Raw)
    pairs = [(k, v) for k, v in doc[0][1] if k != "signatures"]
    pairs.append(("signatures", [[("\0pairs", list(signature.items()))]]))
    return _dump([("\0pairs", pairs)])


# -- acap ----------------------------------------------------------------------------------


def acap_sign(text: str, key: Key) -> dict[str, Any] | None:
    """acap's signature of the card as acap reads it; ``None`` when acap cannot read or
    sign it."""
    cf = JsonDocument("card.json", raw=text.encode("utf-8", "surrogatepass"))
    parse_document(cf)
    if not isinstance(cf.data, dict):
        return None
    try:
        return Signer(key.signing, jku=key.header["jku"]).signature(cf.data)
    except ValueError:  # CanonicalizationError: a number RFC 8785 cannot write
        return None


def acap_verify(text: str, keys: dict[str, Key] | list[dict[str, Any]]) -> Verification:
    """``acap verify`` of the card text with the keys given (no fetch)."""
    cf = JsonDocument("card.json", raw=text.encode("utf-8", "surrogatepass"))
    parse_document(cf)
    result = Verification("card.json")
    result.report.extend(cf.findings)
    if not isinstance(cf.data, dict):
        return result
    publics = [k.public for k in keys.values()] if isinstance(keys, dict) else keys
    verifier = Verifier.from_jwks({"keys": publics})
    return verifier.verify(cf.data, cf=cf, result=result)


# -- a2a-sdk (Python) ----------------------------------------------------------------------

logging.getLogger("a2a").setLevel(logging.ERROR)  # it warns of missing REQUIRED fields
_PYJWK: dict[str, Any] = {}


def _pyjwk(jwk: dict[str, Any]) -> Any:
    """PyJWT's key of a JWK, made once (an RSA private key takes milliseconds)."""
    from jwt import PyJWK

    name = json.dumps(jwk, sort_keys=True)
    if name not in _PYJWK:
        _PYJWK[name] = PyJWK(jwk)
    return _PYJWK[name]


def python_sign(text: str, key: Key) -> dict[str, Any] | None:
    """a2a-sdk's signature (``create_agent_card_signer``) of the card as its client reads
    it (``json.loads``, then ``parse_agent_card``); ``None`` when it cannot."""
    from a2a.client.card_resolver import parse_agent_card
    from a2a.utils.signing import create_agent_card_signer
    from google.protobuf.json_format import MessageToDict

    try:
        card = parse_agent_card(copy.deepcopy(json.loads(text)))
        signed = create_agent_card_signer(_pyjwk(key.private), dict(key.header))(card)
        return MessageToDict(signed.signatures[-1])  # type: ignore[no-any-return]
    except Exception:
        return None


def python_verify(text: str, keys: dict[str, Key] | list[dict[str, Any]]) -> tuple[bool, str]:
    """a2a-sdk's verdict (``create_signature_verifier``) on the card text."""
    from a2a.client.card_resolver import parse_agent_card
    from a2a.utils.signing import create_signature_verifier
    from jwt.exceptions import InvalidKeyError

    publics = [k.public for k in keys.values()] if isinstance(keys, dict) else keys
    by_kid = {k["kid"]: k for k in publics}

    def provider(kid: str | None, _jku: str | None) -> Any:
        if kid not in by_kid:
            raise InvalidKeyError(f"no key {kid}")  # a PyJWTError: the next entry is tried
        return _pyjwk(by_kid[kid])

    try:
        card = parse_agent_card(copy.deepcopy(json.loads(text)))
        create_signature_verifier(provider, list(ALGS))(card)
    except Exception as exc:
        return False, f"{type(exc).__name__}: {exc}"
    return True, ""


# -- @a2a-js/sdk (JavaScript) --------------------------------------------------------------


class JsSdk:
    """One node process running ``tests/js/sdkcard.mjs`` (see its header)."""

    def __init__(self) -> None:
        node = shutil.which("node")
        if node is None or not (JS_DIR / "node_modules" / "@a2a-js" / "sdk").is_dir():
            raise RuntimeError("node and tests/js/node_modules are needed: run "
                               "`npm ci --prefix tests/js` (.ci/run does)")
        self.proc = subprocess.Popen([node, str(JS_DIR / "sdkcard.mjs")], cwd=JS_DIR,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, encoding="utf-8", errors="surrogateescape")

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("the node process ended")
        return json.loads(line)  # type: ignore[no-any-return]

    def sign(self, text: str, key: Key) -> dict[str, Any] | None:
        out = self.ask({"op": "sign", "text": text, "key": key.private, "header": key.header})
        return out.get("signature")

    def verify(self, text: str, keys: dict[str, Key] | list[dict[str, Any]]
               ) -> tuple[bool, str]:
        publics = [k.public for k in keys.values()] if isinstance(keys, dict) else keys
        out = self.ask({"op": "verify", "text": text, "keys": publics})
        return bool(out.get("valid")), str(out.get("error", ""))

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        self.proc.wait(10)


@dataclass
class Outcome:
    """One card through the three: ``verdicts[signer][verifier]`` is ``valid``,
    ``refused``, or ``unsigned`` (that signer could not sign it); ``acap`` holds acap's
    verification of each signed text, ``why`` each SDK's reason, ``signatures`` the
    signature each signer made (``None``: it could not sign)."""

    text: str
    verdicts: dict[str, dict[str, str]]
    acap: dict[str, Verification]
    why: dict[str, dict[str, str]]
    signatures: dict[str, dict[str, Any] | None]


def run_card(text: str, key: Key, keys: dict[str, Key], js: JsSdk) -> Outcome:
    """Sign ``text`` with each of the three, and verify each signed text with each."""
    sigs = {"acap": acap_sign(text, key), "python": python_sign(text, key),
            "javascript": js.sign(text, key)}
    verdicts: dict[str, dict[str, str]] = {}
    why: dict[str, dict[str, str]] = {}
    checked: dict[str, Verification] = {}
    for signer, sig in sigs.items():
        if sig is None:
            verdicts[signer] = dict.fromkeys(SIGNERS, UNSIGNED)
            continue
        signed = with_signature(text, sig)
        res = acap_verify(signed, keys)
        checked[signer] = res
        py_ok, py_why = python_verify(signed, keys)
        js_ok, js_why = js.verify(signed, keys)
        verdicts[signer] = {"acap": VALID if res.ok else REFUSED,
                            "python": VALID if py_ok else REFUSED,
                            "javascript": VALID if js_ok else REFUSED}
        why[signer] = {"python": py_why, "javascript": js_why,
                       "acap": "; ".join(f"{f.rule}: {f.message}" for f in res.report.errors)}
    return Outcome(text, verdicts, checked, why, sigs)


def case_texts() -> list[tuple[str, str]]:
    """``(name, text)`` of every card case file (the PEM tokens put back)."""
    from support.cases import CARD_CASES, PEM_TOKENS

    out = []
    for path in sorted([*CARD_CASES.glob("*.json"), *(CARD_CASES / "valid").glob("*.json")]):
        data = path.read_bytes()
        for token, pem_text in PEM_TOKENS.items():
            data = data.replace(token.encode(), pem_text.encode())
        try:
            out.append((str(path.relative_to(CARD_CASES)), data.decode("utf-8")))
        except UnicodeDecodeError:
            continue  # not a text: no signer reads it
    return out
