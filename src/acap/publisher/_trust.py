"""What acap trusts at a target: its record, only when it can authenticate it, and its
own files, only when it recognises them by content.

* A record (:class:`acap.site.PublishRecord`) is trusted when its signature verifies with
  a key of the operator's kid history on this computer (:class:`KeyRing`), it is for the
  host being published, and only for paths acap could have published on that host
  (:func:`could_publish`: beside a website, only acap's kinds of file). A record at the
  target that is missing or not trusted gives way to acap's own copy of it in the
  project (:class:`RecordCopies`), when that one is trusted; otherwise acap trusts none,
  and deletes nothing.
* acap's own card is recognised without a record by its signature (a key of the
  history), and its JWKS by holding only keys of the history (:meth:`KeyRing.recognises`).
* A card or record at the target signed under a kid this computer lacks means the site
  was published with another key: acap refuses to replace it (``PUBLISH-KEY``) and says
  how to bring that key or rotate on purpose (:func:`foreign_key`).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from acap.card import Verifier
from acap.errors import FileRefused
from acap.keys import SigningKey, thumbprint
from acap.load import Root, read_file, write_file
from acap.publisher._plan import TargetRefused
from acap.site import RECORD_LIMIT, PublishRecord, RecordProblem, path_problem
from acap.uris import CARD_PATH, JWKS_PATH

CARD = CARD_PATH.lstrip("/")
JWKS = JWKS_PATH.lstrip("/")
#: The files acap writes beside a website besides its pages (``*.html``).
OVERLAY_FILES = frozenset({CARD, JWKS, ".well-known/.htaccess", "_headers", "CNAME",
                           ".nojekyll"})
#: A warning of the publish: ``(rule, message, hint)``.
Note = tuple[str, str, str]


def could_publish(rel: str, overlay: bool) -> bool:
    """Whether acap could have published ``rel`` on a host: any plain relative path
    where acap owns the host whole; beside a website (``overlay``) only its own kinds of
    file: :data:`OVERLAY_FILES` and pages (``*.html``; a home or "not found" page too,
    from a time acap owned the host whole). Never a website's stylesheet, script,
    image or server settings, whatever a record says."""
    if path_problem(rel):
        return False
    return not overlay or rel in OVERLAY_FILES or rel.endswith(".html")


@dataclass
class KeyRing:
    """The operator's keys as this computer knows them.

    Attributes:
        keys: ``{kid: public JWK}``: the kid history (the built JWKS, the keys earlier
            builds published, the previous keys; :func:`acap.keys.published_keys`).
        signer: the key that signs the record (the one that signed the built card), or
            ``None`` (then nothing may be written).
    """

    keys: dict[str, dict[str, Any]]
    signer: SigningKey | None = None

    def card_signatures(self, raw: bytes) -> list[tuple[str | None, bool]] | None:
        """``[(kid, verified with this ring)]`` of each signature of the card ``raw``;
        ``None`` when it is not a signed card (not JSON, no signatures)."""
        try:
            card = json.loads(raw)
        except (ValueError, RecursionError):
            return None
        if not isinstance(card, dict) or not isinstance(card.get("signatures"), list) \
                or not card["signatures"]:
            return None
        res = Verifier.from_jwks({"keys": list(self.keys.values())}).verify(card)
        return [(s.kid, s.valid) for s in res.signatures]

    def recognises(self, rel: str, raw: bytes) -> bool:
        """Whether ``raw`` at ``rel`` is acap's own without a record: the card, when a
        signature verifies with a key of the ring; the JWKS, when every key in it is a
        key of the ring."""
        if rel == CARD:
            return any(ok for _kid, ok in self.card_signatures(raw) or [])
        if rel == JWKS:
            return self._own_jwks(raw)
        return False

    def _own_jwks(self, raw: bytes) -> bool:
        try:
            keys = json.loads(raw).get("keys")
            mine = {thumbprint(k) for k in self.keys.values()}
            return bool(keys) and all(isinstance(k, dict) and thumbprint(k) in mine
                                      for k in keys)
        except (ValueError, RecursionError, AttributeError, KeyError, TypeError):
            return False


def foreign_key(kid: str, what: str, host: str) -> TargetRefused:
    """The ``PUBLISH-KEY`` refusal for ``what`` (a card or record at the target) signed
    under ``kid``, which this computer does not hold (a site published from another
    computer, or with a key since lost)."""
    return TargetRefused(
        f"{what} is signed with kid {kid}, a key this computer does not have: publishing "
        f"would replace the live card's key without a rotation",
        f"if it is your site, published from another computer: bring that key here (copy "
        f"its .acap/signing-key.pem, or set ACAP_SIGNING_KEY to its text) and run acap "
        f"build again; if that key is lost for good, rotate on purpose: acap keys rotate "
        f"--lost --old-kid {kid} --jwks https://{host}{JWKS_PATH} (cards clients cached "
        "still verify), then acap build and acap publish; if it is not yours, move it away",
        "PUBLISH-KEY")


@dataclass
class Trust:
    """The record acap trusts at one target.

    Attributes:
        record: the trusted record of this host (only paths acap could have published),
            or ``None``.
        other_host: the host of a trusted record made for another host.
        found: whether the target held a record at all.
        notes: what the publish says about it (``PUBLISH-RECORD`` warnings).
    """

    record: PublishRecord | None = None
    other_host: str | None = None
    found: bool = False
    notes: list[Note] = field(default_factory=list)

    @property
    def files(self) -> dict[str, tuple[str, ...]]:
        """The trusted record's files (``{}`` without one)."""
        return dict(self.record.files) if self.record else {}


def _authentic(raw: bytes, ring: KeyRing) -> tuple[PublishRecord | None, str]:
    """``(record, "")`` when ``raw`` is a record ``ring`` verifies, else ``(None, why)``."""
    try:
        record = PublishRecord.from_bytes(raw)
        record.signed_by(ring.keys)
    except RecordProblem as exc:
        return None, str(exc)
    return record, ""


def judge(raw: bytes | None, copy: bytes | None, host: str, overlay: bool, ring: KeyRing,
          where: str) -> Trust:
    """The :class:`Trust` of a target whose record is ``raw`` and of which the project
    keeps ``copy`` (see the module docstring).

    Raises:
        TargetRefused: ``PUBLISH-KEY``: the record at the target is signed under a kid
            this computer lacks.
    """
    trust = Trust(found=raw is not None)
    record, why = _authentic(raw, ring) if raw is not None else (None, "")
    if raw is not None and record is None:
        _refuse_unknown_kid(raw, ring, where, host)
    if record is None and copy is not None:
        record, _ = _authentic(copy, ring)
        if record is not None:
            said = f"is not acap's ({why})" if raw is not None else "is missing"
            trust.notes.append(("PUBLISH-RECORD", f"the record of acap's publish in {where} "
                                f"{said}: acap uses its own copy of it in the project",
                                "nothing to do: acap writes the record back now"))
    elif record is None and raw is not None:
        trust.notes.append(("PUBLISH-RECORD", f"{where} holds a record of acap's publish "
                            f"that acap does not trust: {why}; acap deletes nothing it "
                            "lists, and replaces only the files it recognises as its own",
                            "if an acap of yours wrote it, publish once from the computer "
                            "that did (its .acap/published/ holds acap's copy)"))
    if record is not None and record.host != host.lower():
        trust.other_host = record.host
        return trust
    trust.record = record and _confined(record, overlay, where, trust)
    return trust


def _refuse_unknown_kid(raw: bytes, ring: KeyRing, where: str, host: str) -> None:
    try:
        record = PublishRecord.from_bytes(raw)
    except RecordProblem:
        return
    if record.kid is not None and record.kid not in ring.keys:
        raise foreign_key(record.kid, f"the record of acap's last publish in {where}", host)


def _confined(record: PublishRecord, overlay: bool, where: str, trust: Trust) -> PublishRecord:
    """``record`` with only the paths acap could have published (:func:`could_publish`);
    the others are named in a note and trusted for nothing."""
    bad = sorted(p for p in record.files if not could_publish(p, overlay))
    if not bad:
        return record
    trust.notes.append(("PUBLISH-RECORD", f"the record of acap's publish in {where} lists "
                        f"files of kinds acap never publishes beside a website: "
                        f"{', '.join(bad[:10])}; acap leaves them alone",
                        "if they are yours, nothing to do; acap never deletes them"))
    return replace(record, files={p: d for p, d in record.files.items() if p not in bad})


class RecordCopies:
    """acap's own copy of each record it writes, kept in the project
    (``.acap/published/<host>-<target digest>.json``): where the record at a target is
    deleted or replaced by someone, acap still knows what it put there.

    Args:
        folder: the folder of the copies (``None``: none are kept).
    """

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder

    def path(self, host: str, where: str) -> Path | None:
        """The copy's file for ``host`` at the target described ``where``."""
        if self.folder is None:
            return None
        tag = hashlib.sha256(where.encode("utf-8")).hexdigest()[:16]
        return self.folder / f"{host.lower()}-{tag}.json"

    def _root(self) -> Root:
        assert self.folder is not None
        return Root(self.folder.parent.parent, "the project folder", links="refuse")

    def load(self, host: str, where: str) -> bytes | None:
        """The copy's bytes, or ``None`` (none, or not a regular file of bounded size)."""
        path = self.path(host, where)
        try:
            return read_file(path, self._root(), RECORD_LIMIT) if path else None
        except (OSError, FileRefused):
            return None

    def save(self, host: str, where: str, raw: bytes) -> str | None:
        """Keep ``raw`` as the copy (never written through a link); the reason when it
        could not be written."""
        path = self.path(host, where)
        if path is None:
            return None
        try:
            write_file(path, self._root(), raw)
        except (OSError, FileRefused) as exc:
            why = exc.reason if isinstance(exc, FileRefused) else exc.strerror or exc
            return f"could not keep acap's copy of the record at {path}: {why}"
        return None
