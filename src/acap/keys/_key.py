"""Signing keys: read, create and describe them, and publish their public halves as a JWKS.

A key file is PEM (PKCS#8, what acap writes) or a JWK (RFC 7517) JSON object.
The algorithm follows from the key (RFC 7518 §3.1, RFC 8037): EC P-256/384/521
sign ES256/ES384/ES512, Ed25519 signs EdDSA; an RSA key signs RS256 or PS256
only when told which (its JWK ``alg`` member or operator.yaml
``signing.algorithm``): acap never guesses an algorithm.

Public JWKs and RFC 7638 thumbprints are computed here from the key's numbers
rather than through jwcrypto: jwcrypto pulls in ``cryptography.x509`` (about
30 ms at start-up), and ``acap build`` must feel instant (issue 7). The tests
cross-check both against jwcrypto.
"""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed448, ed25519, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

from acap.errors import FileRefused, KeyProblem, KeyTextProblem
from acap.load import KEY_FILE_LIMIT, Root, given_root, read_file, write_file

#: Algorithms acap signs with. Never ``none``, never HMAC (A2A §8.4 uses public keys).
SUPPORTED_ALGS = ("ES256", "ES384", "ES512", "EdDSA", "RS256", "PS256")
#: JWK members that hold private material (RFC 7518 §6.2.2, §6.3.2, §6.4.1; RFC 8037 §2).
PRIVATE_MEMBERS = frozenset({"d", "p", "q", "dp", "dq", "qi", "oth", "k"})

PrivateKey = ec.EllipticCurvePrivateKey | ed25519.Ed25519PrivateKey | ed448.Ed448PrivateKey \
    | rsa.RSAPrivateKey
PublicKey = ec.EllipticCurvePublicKey | ed25519.Ed25519PublicKey | ed448.Ed448PublicKey \
    | rsa.RSAPublicKey

_EC = {"secp256r1": ("P-256", "ES256", hashes.SHA256, 32),
       "secp384r1": ("P-384", "ES384", hashes.SHA384, 48),
       "secp521r1": ("P-521", "ES512", hashes.SHA512, 66)}


def b64url(data: bytes) -> str:
    """Base64url without padding (RFC 7515 §2)."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64url_decode(text: str) -> bytes:
    """Inverse of :func:`b64url`; raises ``ValueError`` on bad input."""
    if not isinstance(text, str) or any(c in text for c in "=+/ \n"):
        raise ValueError("not base64url without padding")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _uint(n: int, size: int | None = None) -> str:
    length = size or max(1, (n.bit_length() + 7) // 8)
    return b64url(n.to_bytes(length, "big"))


def public_jwk(key: PublicKey) -> dict[str, str]:
    """The public JWK members of ``key`` (RFC 7518 §6, RFC 8037 §2), no ``kid``/``alg``.

    Raises:
        KeyProblem: an unsupported key type or curve.
    """
    if isinstance(key, ec.EllipticCurvePublicKey):
        if key.curve.name not in _EC:
            raise KeyProblem(f"EC curve {key.curve.name} is not supported",
                             "use P-256 (acap keys new makes one)")
        crv, _, _, size = _EC[key.curve.name]
        nums = key.public_numbers()
        return {"kty": "EC", "crv": crv, "x": _uint(nums.x, size), "y": _uint(nums.y, size)}
    if isinstance(key, ed25519.Ed25519PublicKey):
        raw = key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        return {"kty": "OKP", "crv": "Ed25519", "x": b64url(raw)}
    if isinstance(key, ed448.Ed448PublicKey):
        raw = key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        return {"kty": "OKP", "crv": "Ed448", "x": b64url(raw)}
    if isinstance(key, rsa.RSAPublicKey):
        rn = key.public_numbers()
        return {"kty": "RSA", "n": _uint(rn.n), "e": _uint(rn.e)}
    raise KeyProblem(f"{type(key).__name__} keys are not supported",
                     "use an EC P-256, Ed25519 or RSA key")


def private_markers(key: PrivateKey) -> list[str]:
    """The private JWK members of ``key`` in base64url (RFC 7518 §6.2.2, §6.3.2; RFC 8037
    §2: ``d``, and RSA's ``p``, ``q``, ``dp``, ``dq``, ``qi``): text that, found in a
    built file, is the key itself, however the text around it is quoted or escaped
    (base64url letters are never escaped). For :mod:`acap.keys._leaks`."""
    if isinstance(key, ec.EllipticCurvePrivateKey):
        size = (key.curve.key_size + 7) // 8
        return [_uint(key.private_numbers().private_value, size)]
    if isinstance(key, (ed25519.Ed25519PrivateKey, ed448.Ed448PrivateKey)):
        return [b64url(key.private_bytes_raw())]
    n = key.private_numbers()
    return [_uint(v) for v in (n.d, n.p, n.q, n.dmp1, n.dmq1, n.iqmp)]


def thumbprint(jwk: dict[str, Any]) -> str:
    """RFC 7638 JWK thumbprint (SHA-256, base64url) of a public or private JWK."""
    required = {"EC": ("crv", "kty", "x", "y"), "OKP": ("crv", "kty", "x"),
                "RSA": ("e", "kty", "n")}[jwk["kty"]]
    members = {k: jwk[k] for k in required}
    text = json.dumps(members, separators=(",", ":"), sort_keys=True)
    return b64url(hashlib.sha256(text.encode("utf-8")).digest())


def algorithm_for(key: PrivateKey | PublicKey, hint: str | None = None) -> str:
    """The JWS ``alg`` a key signs with.

    Args:
        key: a private or public key.
        hint: the algorithm named for the key (JWK ``alg`` or
            ``signing.algorithm``); required for RSA, checked for the others.

    Raises:
        KeyProblem: RSA without a hint, or a hint that does not fit the key.
    """
    if isinstance(key, (ec.EllipticCurvePrivateKey, ec.EllipticCurvePublicKey)):
        alg = _EC.get(key.curve.name, (None, None))[1]
        if alg is None:
            raise KeyProblem(f"EC curve {key.curve.name} is not supported", "use P-256")
    elif isinstance(key, (ed25519.Ed25519PrivateKey, ed25519.Ed25519PublicKey,
                          ed448.Ed448PrivateKey, ed448.Ed448PublicKey)):
        alg = "EdDSA"
    elif isinstance(key, (rsa.RSAPrivateKey, rsa.RSAPublicKey)):
        if key.key_size < 2048:
            raise KeyProblem(f"the RSA key has {key.key_size} bits",
                             "use an RSA key of at least 2048 bits, or let acap make a key: "
                             "acap keys new")
        if hint not in ("RS256", "PS256"):
            raise KeyProblem("an RSA key can sign RS256 or PS256, and acap does not guess",
                             "set signing.algorithm: RS256 (or PS256) in operator.yaml")
        return hint
    else:
        raise KeyProblem(f"{type(key).__name__} keys are not supported",
                         "use an EC P-256, Ed25519 or RSA key")
    if hint and hint != alg:
        raise KeyProblem(f"the key signs {alg}, but {hint} is named for it",
                         f"set signing.algorithm: {alg}, or remove it")
    return alg


@dataclass(frozen=True)
class SigningKey:
    """A private key ready to sign JWS (RFC 7515) for A2A §8.4.

    Attributes:
        private: the ``cryptography`` private key.
        alg: its JWS algorithm (``ES256``, ``EdDSA``, ``RS256``, ``PS256`` ...).
        kid: the key id put in the protected header and the JWKS.
    """

    private: PrivateKey
    alg: str
    kid: str

    def __post_init__(self) -> None:
        """Refuse a key that would sign something else than its ``alg`` says.

        Raises:
            KeyProblem: ``alg`` does not fit the key, or ``kid`` is empty.
        """
        if algorithm_for(self.private, self.alg) != self.alg:  # pragma: no cover - defensive
            raise KeyProblem(f"the key does not sign {self.alg}", "name the key's algorithm")
        if not isinstance(self.kid, str) or not self.kid:
            raise KeyProblem("a signing key needs a kid", "set signing.kid in operator.yaml")

    def public_jwk(self) -> dict[str, str]:
        """The public JWK with ``kid``, ``alg`` and ``use: sig``; no private member (a new
        dict each time; the key's numbers are read once: a build asks several times)."""
        known = self.__dict__.get("_public_jwk")
        if known is None:
            known = {**public_jwk(self.private.public_key()), "kid": self.kid,
                     "alg": self.alg, "use": "sig"}
            self.__dict__["_public_jwk"] = known  # not a field: equality is unchanged
        return dict(known)

    def sign(self, signing_input: bytes) -> bytes:
        """The JWS signature of ``signing_input`` (RFC 7515 §5.1 step 5).

        ES* signatures are deterministic (RFC 6979) and in the JWS form, R||S of
        fixed length (RFC 7518 §3.4), not DER. EdDSA and RS256 are deterministic
        by design; PS256 is randomised (RFC 8017 §9.1), so its bytes differ per run.
        """
        k = self.private
        if isinstance(k, ec.EllipticCurvePrivateKey):
            _, _, hash_cls, size = _EC[k.curve.name]
            try:
                der = k.sign(signing_input, ec.ECDSA(hash_cls(), deterministic_signing=True))
            except UnsupportedAlgorithm:  # pragma: no cover - OpenSSL < 3.2
                der = k.sign(signing_input, ec.ECDSA(hash_cls()))
            r, s = decode_dss_signature(der)
            return r.to_bytes(size, "big") + s.to_bytes(size, "big")
        if isinstance(k, (ed25519.Ed25519PrivateKey, ed448.Ed448PrivateKey)):
            return k.sign(signing_input)
        if self.alg == "PS256":
            return k.sign(signing_input, padding.PSS(padding.MGF1(hashes.SHA256()),
                                                     hashes.SHA256().digest_size),
                          hashes.SHA256())
        return k.sign(signing_input, padding.PKCS1v15(), hashes.SHA256())


def generate_private_key(alg: str = "ES256") -> PrivateKey:
    """A new private key for ``alg`` (ES256 -> P-256, EdDSA -> Ed25519, RS256/PS256 -> RSA 3072).

    Raises:
        KeyProblem: ``alg`` is not one acap creates keys for.
    """
    if alg == "ES256":
        return ec.generate_private_key(ec.SECP256R1())
    if alg == "EdDSA":
        return ed25519.Ed25519PrivateKey.generate()
    if alg in ("RS256", "PS256"):
        return rsa.generate_private_key(public_exponent=65537, key_size=3072)
    raise KeyProblem(f"acap does not create {alg} keys", "use ES256, EdDSA, RS256 or PS256")


def write_private_key(path: Path, key: PrivateKey, alg: str | None = None,
                      root: Root | None = None) -> None:
    """Write ``key`` as PKCS#8 PEM, created with mode 0600, never over an existing file,
    inside ``root`` and through no symbolic link (:func:`acap.load.write_file`).

    For RSA the algorithm is recorded in a comment line before the PEM block
    (``# alg: PS256``) so the key keeps saying how it signs.

    Args:
        path: the key file.
        key: the private key.
        alg: the algorithm it signs with (recorded for RSA).
        root: the folder it must lie in (default: :func:`acap.load.given_root`).

    Raises:
        FileExistsError: something is at ``path`` (a file, a link, dangling or not).
        FileRefused: ``path`` lies outside ``root`` or under a symbolic link.
    """
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption())
    if alg and isinstance(key, rsa.RSAPrivateKey):
        pem = f"# alg: {alg}\n".encode() + pem
    write_file(path, root or given_root(path), pem, mode=0o600, exclusive=True)


def parse_private_key(text: bytes) -> tuple[PrivateKey, str | None, str | None]:
    """Parse PEM or JWK text into ``(key, alg hint, kid)``.

    The hint and kid come from a JWK's ``alg`` and ``kid`` members, or a PEM's
    ``# alg:`` comment line; otherwise ``None``.

    Raises:
        KeyTextProblem: the text is not a private key acap can read (the message
            never quotes the text).
        KeyProblem: a key of a kind that cannot sign a card (symmetric, public only).
    """
    stripped = text.strip()
    if stripped.startswith(b"{"):
        return _parse_jwk(stripped)
    hint = None
    for line in stripped.splitlines():
        if line.startswith(b"# alg:"):
            hint = line.split(b":", 1)[1].strip().decode("ascii", "replace")
    try:
        key = serialization.load_pem_private_key(stripped, password=None)
    except TypeError as exc:
        raise KeyTextProblem("the private key is encrypted with a password",
                             "store it unencrypted with mode 0600, or as a CI secret") from exc
    except Exception as exc:  # ValueError, UnsupportedAlgorithm, and whatever else
        # OpenSSL makes of bytes that are not a key: never a traceback, never the text
        raise KeyTextProblem("this is not a PEM or JWK private key",
                             "point signing.keyFile at the key, or run `acap keys new`") from exc
    if not isinstance(key, PrivateKey):
        raise KeyProblem(f"{type(key).__name__} keys are not supported",
                         "use an EC P-256, Ed25519 or RSA key")
    return key, hint, None


def _parse_jwk(text: bytes) -> tuple[PrivateKey, str | None, str | None]:
    from jwcrypto import jwk as jwcrypto_jwk  # only needed for JWK input

    try:
        members = json.loads(text)
        if not isinstance(members, dict):
            raise TypeError("not a JSON object")
        key = jwcrypto_jwk.JWK(**members)
        oct_key, has_private = key.get("kty") == "oct", key.has_private
    except Exception as exc:  # jwcrypto raises many types for bad input
        raise KeyTextProblem("this is not a valid JWK",
                             "check that the key's JSON text is whole, or use the PEM file "
                             "`acap keys new` writes") from exc
    if oct_key:
        raise KeyProblem("a symmetric (oct) key cannot sign an Agent Card",
                         "use an EC P-256, Ed25519 or RSA key pair")
    if not has_private:
        raise KeyProblem("this JWK has no private part", "a signing key needs its private part")
    try:
        pyca = key.get_op_key("sign")
    except Exception as exc:  # cryptography checks the numbers: a point off its curve,
        # RSA primes that do not give n, a d that does not give x and y; jwcrypto refuses
        # a "use" or "key_ops" that forbids signing. Types vary; none is a traceback.
        raise KeyTextProblem("the JWK's members do not make a valid signing key (a point not "
                             "on its curve, numbers that do not belong together, or a use "
                             "or key_ops that forbids signing)",
                             "export the key again from where it was made, or make a new one "
                             "with `acap keys new`") from exc
    if not isinstance(pyca, PrivateKey):
        raise KeyProblem("this JWK is not a supported private key", "use EC, OKP or RSA")
    alg = members.get("alg")
    kid = members.get("kid")
    return pyca, alg if isinstance(alg, str) else None, kid if isinstance(kid, str) else None


def load_signing_key(text: bytes, *, kid: str | None, alg_hint: str | None) -> SigningKey:
    """Make a :class:`SigningKey` from key text.

    Args:
        text: PEM or JWK text.
        kid: the kid to use (operator.yaml ``signing.kid``); else the JWK's own
            ``kid``; else the RFC 7638 thumbprint of the public key.
        alg_hint: operator.yaml ``signing.algorithm``, if any.

    Raises:
        KeyProblem: unreadable key, or an algorithm that does not fit it.
    """
    key, own_alg, own_kid = parse_private_key(text)
    alg = algorithm_for(key, alg_hint or own_alg)
    kid = kid or own_kid or thumbprint(public_jwk(key.public_key()))
    return SigningKey(key, alg, kid)


def jwks(current: SigningKey, previous: list[dict[str, Any]]) -> dict[str, Any]:
    """The JWKS document (RFC 7517 §5): the current public key, then previous ones.

    Private members are removed from every entry whatever their source.

    Raises:
        KeyProblem: two keys share a ``kid``.
    """
    keys = [current.public_jwk()]
    for jwk in previous:
        keys.append({k: v for k, v in jwk.items() if k not in PRIVATE_MEMBERS})
    seen: set[str] = set()
    for jwk in keys:
        kid = str(jwk.get("kid"))
        if kid in seen:
            raise KeyProblem(f"two keys in the JWKS have kid '{kid}'",
                             "give the new key its own kid (signing.kid in operator.yaml)")
        seen.add(kid)
    return {"keys": keys}


def read_key_file_doc(path: Path, root: Root | None = None) -> Any:
    """The parsed JSON of a previous-keys (JWKS) file, or ``None`` when it does not exist.

    Args:
        path: the file.
        root: the folder it must lie in (default: :func:`acap.load.given_root`).

    Raises:
        KeyProblem: the file cannot be read (a link out of ``root``, not a regular
            file, larger than :data:`acap.load.KEY_FILE_LIMIT`, with other names: a
            hard link may be another's file), or is not JSON.
    """
    try:
        return json.loads(read_file(path, root or given_root(path), KEY_FILE_LIMIT,
                                    one_name=True))
    except FileNotFoundError:
        return None
    except FileRefused as exc:
        raise KeyProblem(f"{path.name}: {exc.reason}; acap does not read it",
                         "point signing.previousKeys at a JSON file: {\"keys\": [...]}") from exc
    except (OSError, ValueError) as exc:
        raise KeyProblem(f"{path.name} is not a readable JWKS",
                         "it must be JSON: {\"keys\": [...]}") from exc


def read_jwks(path: Path, root: Root | None = None) -> list[dict[str, Any]]:
    """Public keys from a JWKS file; ``[]`` when the file does not exist.

    Args:
        path: the file.
        root: the folder it must lie in (default: :func:`acap.load.given_root`).

    Raises:
        KeyProblem: the file is not a JWKS, or holds private members.
    """
    data = read_key_file_doc(path, root)
    if data is None:
        return []
    keys = data.get("keys") if isinstance(data, dict) else None
    if not isinstance(keys, list) or not all(isinstance(k, dict) for k in keys):
        raise KeyProblem(f"{path.name} is not a JWKS", "it must be JSON: {\"keys\": [...]}")
    for k in keys:
        if PRIVATE_MEMBERS & set(k):
            raise KeyProblem(f"{path.name} holds a private key",
                             "it must hold public keys only; delete the private members")
    return keys


def describe_key(key: SigningKey) -> str:
    """A one-line public description: ``kid chapel-1, ES256, fingerprint ...``; the
    fingerprint is the key's RFC 7638 thumbprint, called by its everyday name."""
    tp = thumbprint(public_jwk(key.private.public_key()))
    return f"kid {key.kid}, {key.alg}, fingerprint {tp}"


def new_key_file(path: Path, alg: str = "ES256", root: Root | None = None) -> str:
    """``acap keys new``: write a new private key (mode 0600) at ``path``.

    Args:
        path: the key file.
        alg: the algorithm of the new key.
        root: the folder it must lie in (default: :func:`acap.load.given_root`: the
            folder acap runs in, or the folder ``path`` names).

    Returns:
        The public thumbprint (never the key).

    Raises:
        FileExistsError: ``path`` exists (a key is never overwritten), a link too.
        FileRefused: ``path`` lies under a symbolic link.
        KeyProblem: ``alg`` is not one acap creates keys for.
    """
    private = generate_private_key(alg)
    algorithm_for(private, alg)
    write_private_key(path, private, alg, root)
    return thumbprint(public_jwk(private.public_key()))
