"""The record of a publish: which files acap put at a target for which host, signed.

A publish target is shared ground: people and other tools write there too. What acap
may later replace or delete there is what its record says it put there, so the record
must be one nobody else can plant. It is signed with the operator's signing key (a JWS,
RFC 7515, over the RFC 8785 canonical form of the record, as A2A §8.4 signs a card) and
trusted only when the signature verifies with a key of the operator's kid history
(:meth:`PublishRecord.signed_by`). A record that is not exactly this format, or that
does not verify, is not acap's.

The record as it is stored (beside a folder, in a branch's commit message, and acap's
own copy in the project's ``.acap/published/``)::

    {"publishedBy": "acap", "acap": "0.1.0", "host": "example.com",
     "files": {".well-known/agent-card.json": ["<sha256 hex>"], ...},
     "staging": "4f1c2a9e0b7d3e55",
     "signature": {"protected": "<base64url>", "signature": "<base64url>"}}

Each path lists the SHA-256 of every content acap may have left there: one after a
publish that finished; the old and the new one in the record written before the files
go out, so that a publish interrupted half-way (even by ``kill -9``) leaves a record
that still says which files are acap's. ``staging`` (a folder target only) is the random
token every name of that publish's staging folder starts with, written into the record
before anything is staged: what an interrupted publish left there is acap's to remove
because a record acap signed names it. Nothing in it is private: the files are public
once published.

This module is the record's one reader (:meth:`PublishRecord.from_bytes`) and writer
(:meth:`PublishRecord.to_bytes`); :mod:`acap.publisher` decides what to trust.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from acap._package import __version__
from acap.errors import AcapError

#: The name of the record beside a folder (``.<folder>.acap-published.json``).
RECORD_NAME = "acap-published.json"
#: The ``typ`` of the record's protected header: a card's signature (``typ: JOSE``)
#: can never stand for a record's, nor the reverse.
RECORD_TYP = "acap-publish-record"
#: The most bytes a record may have (a site of thousands of files fits many times).
RECORD_LIMIT = 1024 * 1024
#: The deepest path a record may name, in folders (acap's deepest pages are a few
#: folders down); a target is never walked deeper either.
MAX_DEPTH = 64
_HEX = re.compile(r"[0-9a-f]{64}")
#: A publish's staging token (``secrets.token_hex(8)``).
_TOKEN = re.compile(r"[0-9a-f]{16}")
#: Algorithms a record may be signed with (those of :class:`acap.keys.SigningKey`).
_ALGS = ("ES256", "ES384", "ES512", "EdDSA", "RS256", "PS256")


def record_beside(folder: Path) -> Path:
    """Where the record of a publish into the local ``folder`` lies: beside it, outside
    what a web server serves it from (``/srv/www`` -> ``/srv/.www.acap-published.json``)."""
    folder = folder.absolute()
    return folder.parent / f".{folder.name}.{RECORD_NAME}"


class RecordProblem(AcapError):
    """A record that is not acap's (unreadable, not this format, or not verified);
    ``str()`` says why in an operator's words."""


class RecordSigner(Protocol):
    """What signs a record: :class:`acap.keys.SigningKey` (its ``alg``, ``kid`` and
    ``sign``)."""

    @property
    def alg(self) -> str:
        """The JWS algorithm."""

    @property
    def kid(self) -> str:
        """The key id."""

    def sign(self, signing_input: bytes) -> bytes:
        """The JWS signature of ``signing_input``."""


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def path_problem(path: object) -> str | None:
    """Why ``path`` can never be one of acap's files at a target, or ``None``: it must be
    text, relative and ``/``-separated, without an empty, ``.`` or ``..`` part, a
    control character or a backslash, not in a ``.git`` at the root, and at most
    :data:`MAX_DEPTH` folders deep. A record lies where others may write: a path that
    climbs out of the target, or into its ``.git``, is never acap's."""
    if not isinstance(path, str) or not path:
        return "a path that is not text"
    if path.startswith("/") or "\\" in path or any(ord(c) < 32 or ord(c) == 127
                                                    for c in path):
        return f"the path {path!r}, which is not a plain relative path"
    parts = path.split("/")
    if any(p in ("", ".", "..") for p in parts) or parts[0] == ".git":
        return f"the path {path!r}, which leaves the folder or enters .git"
    if len(parts) > MAX_DEPTH + 1:
        return f"a path more than {MAX_DEPTH} folders deep"
    return None


@dataclass(frozen=True)
class PublishRecord:
    """What acap put at one target for one host.

    Attributes:
        host: the host published there (lower case).
        files: ``{path relative to the target's root: (SHA-256 hex, ...)}``: every
            content acap may have left at that path (see the module docstring).
        acap: the acap version that wrote it.
        kid: the kid of the key that signed it (``None`` until signed or when read
            from an unsigned record).
        signature: ``{"protected", "signature"}`` as stored (empty when unsigned).
        staging: the publish's staging token (16 hex digits), or ``None`` (a target
            that stages nothing: a git branch).
    """

    host: str
    files: Mapping[str, tuple[str, ...]]
    acap: str = __version__
    kid: str | None = None
    signature: Mapping[str, str] = field(default_factory=dict)
    staging: str | None = None

    def payload(self) -> dict[str, Any]:
        """The signed part, as JSON data (everything but the signature)."""
        out: dict[str, Any] = {"publishedBy": "acap", "acap": self.acap, "host": self.host,
                               "files": {p: list(d) for p, d in sorted(self.files.items())}}
        if self.staging is not None:
            out["staging"] = self.staging
        return out

    def same_files(self, other: PublishRecord | None) -> bool:
        """True when ``other`` records the same host and files (whoever signed it)."""
        return other is not None and other.host == self.host and \
            dict(other.files) == dict(self.files)

    def to_bytes(self, signer: RecordSigner) -> bytes:
        """The record signed by ``signer``, as stored: JSON, UTF-8, one member a line.

        The signature is a JWS (RFC 7515) with protected header ``alg``, ``kid`` and
        ``typ`` :data:`RECORD_TYP`, over the RFC 8785 form of :meth:`payload`;
        deterministic wherever the key's algorithm is (:meth:`acap.keys.SigningKey.sign`).
        """
        import rfc8785  # start-up: only a publish signs a record

        header = {"alg": signer.alg, "kid": signer.kid, "typ": RECORD_TYP}
        protected = _b64(json.dumps(header, separators=(",", ":"), sort_keys=True).encode())
        body = _b64(rfc8785.dumps(self.payload()))
        sig = _b64(signer.sign(f"{protected}.{body}".encode("ascii")))
        doc = {**self.payload(), "signature": {"protected": protected, "signature": sig}}
        return (json.dumps(doc, indent=1, ensure_ascii=False) + "\n").encode("utf-8")

    @classmethod
    def from_bytes(cls, raw: bytes) -> PublishRecord:
        """Read a stored record (not yet trusted: see :meth:`signed_by`).

        Raises:
            RecordProblem: it is larger than :data:`RECORD_LIMIT`, not JSON, or not
                exactly this format (a path acap never writes: :func:`path_problem`; a
                digest that is not SHA-256 hex; a member acap does not write).
        """
        if len(raw) > RECORD_LIMIT:
            raise RecordProblem(f"it is larger than {RECORD_LIMIT} bytes")
        try:
            doc = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:
            raise RecordProblem(f"it is not JSON ({exc})") from None
        if not isinstance(doc, dict) or doc.get("publishedBy") != "acap":
            raise RecordProblem("it is not a record of acap's")
        extra = set(doc) - {"publishedBy", "acap", "host", "files", "staging", "signature"}
        host, files, version = doc.get("host"), doc.get("files"), doc.get("acap")
        staging = doc.get("staging")
        if isinstance(files, list):
            raise RecordProblem("it lists its files without their SHA-256, as only an acap "
                                "before signed records did (or someone else)")
        if extra or not isinstance(host, str) or not isinstance(version, str) \
                or not isinstance(files, dict) or not _token(staging):
            raise RecordProblem("it is not in the format acap writes")
        return cls(host.lower(), _files(files), version, *_signature(doc.get("signature")),
                   staging=staging)

    def signed_by(self, keys: Mapping[str, Mapping[str, Any]]) -> str:
        """Verify the signature with the key ``keys`` holds under its kid.

        Args:
            keys: ``{kid: public JWK}``: the operator's kid history.

        Returns:
            The kid that signed it.

        Raises:
            RecordProblem: unsigned, signed under a kid ``keys`` lacks (``.kid`` says
                which), or the signature does not verify.
        """
        if not self.signature or self.kid is None:
            raise RecordProblem("it is not signed (an older acap, or someone else, wrote it)")
        jwk = keys.get(self.kid)
        if jwk is None:
            raise RecordProblem(f"it is signed with kid {self.kid}, which is not a key of "
                                "this project here")
        if not _verifies(self, dict(jwk)):
            raise RecordProblem(f"its signature (kid {self.kid}) does not verify: someone "
                                "changed it, or another key made it")
        return self.kid


def _token(staging: object) -> bool:
    """Whether ``staging`` is absent or a staging token."""
    return staging is None or (isinstance(staging, str) and bool(_TOKEN.fullmatch(staging)))


def _files(files: Mapping[str, Any]) -> dict[str, tuple[str, ...]]:
    out: dict[str, tuple[str, ...]] = {}
    for path, sums in files.items():
        problem = path_problem(path)
        if problem:
            raise RecordProblem(f"it names {problem}")
        if not (isinstance(sums, list) and sums and
                all(isinstance(s, str) and _HEX.fullmatch(s) for s in sums)):
            raise RecordProblem(f"its entry for {path!r} is not a list of SHA-256 digests")
        out[path] = tuple(sums)
    return out


def _signature(sig: object) -> tuple[str | None, dict[str, str]]:
    """``(kid, signature)`` of a stored record: ``(None, {})`` when it has none."""
    if sig is None:
        return None, {}
    if not (isinstance(sig, dict) and set(sig) == {"protected", "signature"}
            and all(isinstance(v, str) for v in sig.values())):
        raise RecordProblem("its signature is not in the format acap writes")
    try:
        header = json.loads(_unb64(sig["protected"]))
    except (binascii.Error, ValueError, RecursionError):
        raise RecordProblem("its signature's header is not base64url JSON") from None
    if not (isinstance(header, dict) and header.get("typ") == RECORD_TYP
            and header.get("alg") in _ALGS and isinstance(header.get("kid"), str)):
        raise RecordProblem("its signature's header is not the one acap writes")
    return header["kid"], dict(sig)


def _verifies(record: PublishRecord, jwk: dict[str, Any]) -> bool:
    """Whether the record's JWS verifies with ``jwk`` (jwcrypto, the JOSE library acap
    already uses; the algorithm is the key's own, never the header's alone)."""
    import rfc8785  # start-up: only a publish reads a record
    from jwcrypto import jwk as jwk_mod  # start-up: as above
    from jwcrypto import jws  # start-up: as above

    try:
        header = json.loads(_unb64(record.signature["protected"]))
        alg = header["alg"]
        if jwk.get("alg") not in (None, alg):
            return False
        key = jwk_mod.JWK(**{k: v for k, v in jwk.items()
                             if k not in ("use", "key_ops", "alg", "kid")})
        token = jws.JWS()
        token.deserialize(".".join((record.signature["protected"],
                                    _b64(rfc8785.dumps(record.payload())),
                                    record.signature["signature"])))
        token.verify(key, alg=alg)
    except Exception:  # any failure of a hostile signature is a "no"
        return False
    return True
