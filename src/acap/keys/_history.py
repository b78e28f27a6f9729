"""Kid history: which public key was published under which kid, for good.

A kid names one key for as long as clients cache a card or JWKS (RFC 7517 §4.5;
A2A 1.0 §8.4.3 finds the verification key by kid). What was published: the last
build's JWKS in site/, the keys every build into that site/ published (the build
manifest's ``publishedKeys``, never published itself) and the previous keys kept
for rotation (``signing.previousKeys``, whose ``"retired"`` list names kids taken
out for good). A build must not publish another key under a kid already out there,
and is told when a published kid leaves the JWKS (:func:`dropped_kids`).

No function here prints or returns key material other than public JWKs.
"""

from __future__ import annotations

import json
import os
import re
import unicodedata
from pathlib import Path
from typing import Any

from acap.errors import FileRefused, KeyProblem, SitePathError
from acap.findings import Finding, Location
from acap.keys._key import (
    PRIVATE_MEMBERS,
    SigningKey,
    b64url_decode,
    read_jwks,
    read_key_bytes,
    read_key_file_doc,
    thumbprint,
)
from acap.load import KEY_ENV, KEY_FILE_LIMIT, OperatorConfig, Root, read_file, write_file
from acap.site import (
    MANIFEST,
    PublishRecord,
    RecordProblem,
    read_manifest,
    record_beside,
    url_to_path,
)
from acap.uris import CARD_PATH

CARD = CARD_PATH.lstrip("/")


def published_keys(cfg: OperatorConfig, site_dir: Path,
                   site_keys: dict[str, tuple[dict[str, Any], str]] | None = None
                   ) -> dict[str, tuple[dict[str, Any], str]]:
    """The public keys clients may hold, by kid: those of the last build's JWKS
    (``site/<cardHost>/.well-known/jwks.json``), those earlier builds into the same
    site/ published (:func:`site_published_keys`) and the previous keys kept for
    rotation.

    A kid names one key for as long as clients cache a card or JWKS (RFC 7517
    §4.5; A2A §8.4.3 finds the key by kid): the build must not publish another
    key under a kid already out there.

    Args:
        cfg: the loaded operator.yaml.
        site_dir: the build output folder (its JWKS is what the last build published).
        site_keys: :func:`site_published_keys` of ``site_dir``, when already read.

    Returns:
        ``{kid: (public JWK, where it was found)}``; an unreadable JWKS or entry
        is left out (there is nothing to compare with).
    """
    out = dict(site_published_keys(cfg, site_dir) if site_keys is None else site_keys)
    previous = _jwk_list(cfg.previous_keys_file, cfg.root_of(cfg.previous_keys_file),
                         "keys")
    shown = cfg.display_path(cfg.previous_keys_file) if previous else ""
    for k in previous:
        out.setdefault(k["kid"], (k, shown))
    return out


def site_published_keys(cfg: OperatorConfig, site_dir: Path
                        ) -> dict[str, tuple[dict[str, Any], str]]:
    """The public keys builds into ``site_dir`` published, by kid: its JWKS
    (``site/<cardHost>/.well-known/jwks.json``), then the build manifest's
    ``publishedKeys`` (keys earlier builds published that have left the JWKS
    since, unless retired; only when the manifest is of this card: a site/ of another
    project replaced with ``acap build --force`` says nothing about this one's kids).
    ``{kid: (public JWK, where it was found)}``."""

    out: dict[str, tuple[dict[str, Any], str]] = {}
    manifest = read_manifest(site_dir)
    if manifest is None and not os.path.isdir(site_dir):
        return out  # no site folder: nothing published there (a batch's first build)
    try:
        rel = url_to_path(cfg.jwks_url)
    except SitePathError:
        rel = None
    if rel is not None:  # read within its host folder, as it is published
        host = Root(site_dir / rel.split("/", 1)[0], "its host folder", may_be_link=False)
        for k in _jwk_list(site_dir / rel, host, "keys"):
            out.setdefault(k["kid"], (k, f"{site_dir.name}/{rel}"))
    if manifest is not None and manifest.card == cfg.card_url:  # not another project's
        shown = f"by an earlier build, recorded in {site_dir.name}/{MANIFEST}"
        for k in manifest.published_keys:
            if _thumb(k):
                out.setdefault(k["kid"], (k, shown))
    return out


def card_kids(card: bytes) -> set[str]:
    """The kids in the protected headers of the signatures of the card ``card`` (JSON
    bytes); none when it is unreadable. Not verified: what the card claims."""
    try:
        sigs = json.loads(card).get("signatures") or []
        headers = [json.loads(b64url_decode(s["protected"])) for s in sigs]
        return {h["kid"] for h in headers if isinstance(h.get("kid"), str)}
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError):
        return set()


def published_elsewhere(cfg: OperatorConfig,
                        site_keys: dict[str, tuple[dict[str, Any], str]],
                        previous: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """The kids this project's card was published with whose key is neither kept in the
    previous keys nor retired (a rotation made on purpose keeps or retires them), as
    this computer can tell without a network: those builds into site/ published
    (``site_keys``, :func:`site_published_keys`), those of the card and of acap's record
    at each folder operator.yaml publishes a host into, and those of acap's copies of
    its records (``.acap/published/``). ``[(kid, where)]``."""
    kept = {str(k.get("kid")) for k in previous} | set(_retired_or_none(cfg))
    out = [(kid, where) for kid, (_jwk, where) in sorted(site_keys.items())]
    for settings in cfg.hosts.values():
        pub = settings.get("publish")
        folder = pub.get("dir") if isinstance(pub, dict) else None
        if isinstance(folder, str):
            root = cfg.base_dir / folder
            place = Root(root, "the folder it publishes into")
            out += [(k, f"the card in {root}")
                    for k in sorted(card_kids(_small(root / CARD, place)))]
            beside = record_beside(root)
            out += [(k, f"acap's record of its publish into {root}")
                    for k in _record_kids(beside, Root(beside.parent, "its parent"))]
    copies = cfg.base_dir / ".acap" / "published"
    project = Root(cfg.base_dir, "the project folder")
    for copy in sorted(copies.glob("*.json")) if copies.is_dir() else []:
        out += [(k, f"acap's copy of a record of its publish ({cfg.display_path(copy)})")
                for k in _record_kids(copy, project)]
    return [(kid, where) for kid, where in out if kid not in kept]


def _small(path: Path, root: Root) -> bytes:
    """The bytes of the regular file at ``path`` in ``root`` (no link followed, at most a
    megabyte); ``b""`` when there is none such."""
    try:
        return read_file(path, root, KEY_FILE_LIMIT)
    except (OSError, FileRefused):
        return b""


def _record_kids(path: Path, root: Root) -> list[str]:
    try:
        kid = PublishRecord.from_bytes(_small(path, root)).kid
    except RecordProblem:
        return []
    return [kid] if kid else []


def _jwk_list(path: Path, root: Root, member: str) -> list[dict[str, Any]]:
    """The JWKs with a kid under ``member`` of the JSON object at ``path`` in ``root``;
    ``[]`` when it cannot be read (there is nothing to compare with)."""
    try:
        doc = json.loads(read_key_bytes(path, root, one_name=root.links == "inside"))
    except (OSError, ValueError, RecursionError, FileRefused):
        return []
    keys = doc.get(member) if isinstance(doc, dict) else None
    return [k for k in keys if isinstance(k, dict) and isinstance(k.get("kid"), str)
            and _thumb(k)] if isinstance(keys, list) else []


def read_retired(path: Path, root: Root | None = None) -> list[str]:
    """The ``"retired"`` kids of the previous-keys file (``[]`` when it has none).

    Args:
        path: the file.
        root: the folder it must lie in (default: :func:`acap.load.given_root`).

    Raises:
        KeyProblem: ``"retired"`` is there but not a list of kids, or the file cannot
            be read (see :func:`acap.keys._key.read_key_file_doc`).
    """
    doc = read_key_file_doc(path, root)
    if doc is None:
        return []
    retired = doc.get("retired", []) if isinstance(doc, dict) else []
    if not isinstance(retired, list) or not all(isinstance(k, str) for k in retired):
        raise KeyProblem(f"\"retired\" in {path.name} is not a list of kids",
                         'write it as "retired": ["chapel-1", ...]')
    return retired


def previous_keys(cfg: OperatorConfig) -> list[dict[str, Any]]:
    """The public keys ``signing.previousKeys`` keeps (``[]`` when there is no file), read
    within the project folder (or the folder an absolute path names).

    Raises:
        KeyProblem: the file cannot be read or is no JWKS (see
            :func:`acap.keys._key.read_jwks`).
    """
    return read_jwks(cfg.previous_keys_file, cfg.root_of(cfg.previous_keys_file))


def retired_kids(cfg: OperatorConfig) -> list[str]:
    """The kids ``signing.previousKeys`` lists as retired (see
    :func:`acap.keys._history.read_retired`), read within the project folder (or the
    folder an absolute path names)."""
    return read_retired(cfg.previous_keys_file, cfg.root_of(cfg.previous_keys_file))


def write_previous_keys(cfg: OperatorConfig, keys: list[dict[str, Any]],
                        retired: list[str] | None = None) -> None:
    """Write the previous-keys file: ``{"keys": [...], "retired": [...]}`` (public JWKs
    only; ``retired`` kept as it is when ``None``, left out when empty), inside the
    project folder (or the folder an absolute ``previousKeys`` names), through no link.

    Raises:
        FileRefused: the file or a folder on its way is a symbolic link.
        OSError: it cannot be written.
    """
    path = cfg.previous_keys_file
    if retired is None:
        retired = read_retired(path, cfg.root_of(path))
    doc: dict[str, Any] = {"keys": [{k: v for k, v in jwk.items() if k not in PRIVATE_MEMBERS}
                                    for jwk in keys]}
    if retired:
        doc["retired"] = retired
    write_file(path, cfg.root_of(path), (json.dumps(doc, indent=2) + "\n").encode("utf-8"))


def key_history(cfg: OperatorConfig, site_dir: Path, new_jwks: dict[str, Any]
                ) -> list[dict[str, Any]]:
    """The manifest's ``publishedKeys`` for a build about to write ``new_jwks``: every
    public key this build and the builds before it into ``site_dir`` published,
    without retired kids. Never published (the manifest lies outside every host)."""
    retired = set(_retired_or_none(cfg))
    out: dict[str, dict[str, Any]] = {}
    for k in new_jwks.get("keys", []):
        if isinstance(k, dict) and isinstance(k.get("kid"), str):
            out.setdefault(k["kid"], k)
    for kid, (jwk, _) in site_published_keys(cfg, site_dir).items():
        out.setdefault(kid, {k: v for k, v in jwk.items() if k not in PRIVATE_MEMBERS})
    return [jwk for kid, jwk in out.items() if kid not in retired]


def _retired_or_none(cfg: OperatorConfig) -> list[str]:
    try:
        return retired_kids(cfg)
    except KeyProblem:
        return []


def dropped_kids(cfg: OperatorConfig, site_dir: Path, new_jwks: dict[str, Any],
                 site_keys: dict[str, tuple[dict[str, Any], str]] | None = None
                 ) -> list[Finding]:
    """``KEY`` warnings for kids a build into ``site_dir`` published that ``new_jwks``
    leaves out without being retired: a card a client cached, signed under such a
    kid, stops verifying (A2A §8.4.3 finds its key by kid in the JWKS).

    Args:
        cfg: the loaded operator.yaml.
        site_dir: the build output folder (its JWKS and manifest say what was published).
        new_jwks: the JWKS this build publishes.
        site_keys: :func:`site_published_keys` of ``site_dir``, when already read
            (:attr:`ResolvedKey.site_keys`).
    """
    kept = {k.get("kid") for k in new_jwks.get("keys", []) if isinstance(k, dict)}
    if site_keys is None:
        site_keys = site_published_keys(cfg, site_dir)
    if all(kid in kept for kid in site_keys):
        return []
    retired = set(_retired_or_none(cfg))
    prev = cfg.display_path(cfg.previous_keys_file)
    loc = cfg.at("/signing/kid") if "kid" in cfg.signing else cfg.at("/signing", key=True)
    current = [k for k in new_jwks.get("keys", [])[:1] if isinstance(k, dict)]
    out = []
    for kid, (jwk, where) in sorted(site_keys.items()):
        if kid in kept or kid in retired:
            continue
        if current and same_public_key(jwk, current[0]):  # the same key, renamed
            out.append(Finding(
                "KEY", "warning", f"this key was published as kid {kid} ({where}) and now "
                f"signs as kid {current[0].get('kid')}: cards that clients cached, signed "
                f"under {kid}, will stop verifying", loc,
                f"if renaming the kid was not meant, write signing.kid: {kid} again; if it "
                f"was, run `acap keys retire {kid}` to stop this warning"))
            continue
        out.append(Finding(
            "KEY", "warning", f"kid {kid} was published ({where}) and is not in this build's "
            f"JWKS: cards that clients cached, signed with it, will stop verifying", loc,
            f"if its private key is lost or replaced, run `acap keys rotate --lost --old-kid "
            f"{kid}`: it keeps its public key in {prev}, so those cards still verify; to drop "
            f"it deliberately, run `acap keys retire {kid}`"))
    return out


def _thumb(jwk: dict[str, Any]) -> str | None:
    """RFC 7638 thumbprint of a JWK, ``None`` for one that has not the members."""
    try:
        return thumbprint(jwk)
    except (KeyError, TypeError):
        return None


def same_public_key(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """True when two JWKs hold the same public key (RFC 7638 thumbprint) for the same
    algorithm where both name one (a client checks the JWK ``alg`` against the
    signature's; a previous key added by hand may leave ``alg`` out)."""
    alg_a, alg_b = a.get("alg"), b.get("alg")
    return (_thumb(a) is not None and _thumb(a) == _thumb(b)
            and (alg_a is None or alg_b is None or alg_a == alg_b))


def free_kid(kid: str, taken: set[str]) -> str:
    """The next kid after ``kid`` that is not taken: ``chapel-1`` -> ``chapel-2``
    (``chapel-1`` -> ``chapel-1-2`` when it does not end in a number)."""
    cand = next_kid(kid) or f"{kid}-2"
    while cand in taken:
        cand = next_kid(cand) or f"{cand}-2"
    return cand


def reused_kid_finding(cfg: OperatorConfig, kid: str,
                       published: dict[str, tuple[dict[str, Any], str]], env: bool,
                       current: dict[str, Any] | None = None) -> Finding:
    """The KEY finding for a key about to be published under a kid that named another key
    (``current``: that key's public JWK, when known)."""
    loc = cfg.at("/signing/kid") if cfg.signing.get("kid") == kid else \
        cfg.at("/signing", key=True)
    own = sorted(k for k, (jwk, _) in published.items()
                 if k != kid and current is not None and same_public_key(jwk, current))
    if own:  # the key is fine: the kid was set back to an older one (trial 6)
        return Finding("KEY", "error", f"kid {kid} was published with another key "
                       f"({published[kid][1]}), and this key was published as kid {own[0]}",
                       loc, f"write signing.kid: {own[0]} again")
    new = free_kid(kid, set(published) | {kid})
    where = published[kid][1]
    pinned = cfg.signing.get("kid") == kid
    keep = (f"if the old key is lost, run `acap keys rotate --lost`: it keeps the published "
            f"public key of {kid} in {cfg.display_path(cfg.previous_keys_file)} (cards signed with "
            f"it still verify) and gives the new key the kid {new} (signing.kid)")
    if not pinned:
        keep = (f"if the old key is lost, add `kid: {kid}` under `signing:` in "
                f"{cfg.path.name}, then run `acap keys rotate --lost`")
    back = (f"if it is not lost, put the old key back in {KEY_ENV}" if env else
            f"if it is not lost, put the old key back at {cfg.display_path(cfg.key_file)}")
    return Finding("KEY", "error",
                   f"kid {kid} was published with another key ({where}); clients that cached "
                   "the card would see a different key under the same kid", loc,
                   f"{keep}; {back}")


def retired_and_reused(cfg: OperatorConfig, site_dir: Path, key: SigningKey | None,
                       previous: list[dict[str, Any]],
                       site_keys: dict[str, tuple[dict[str, Any], str]] | None = None
                       ) -> list[Finding]:
    """``KEY`` errors for kids that must not be published: the current key's or a
    previous key's kid that ``acap keys retire`` retired, and a previous key whose
    kid a build into ``site_dir`` published with another key. A kid names one key
    for good (RFC 7517 §4.5): a client that cached a card signed under it would
    check it against another key.

    Args:
        cfg: the loaded operator.yaml.
        site_dir: the build output folder (what it published).
        key: the current signing key, or ``None`` (then only previous keys are checked).
        previous: the previous keys' public JWKs.
        site_keys: :func:`site_published_keys` of ``site_dir``, when already read.
    """
    retired = retired_kids(cfg)
    if not previous and (key is None or key.kid not in retired):
        return []
    prev = cfg.display_path(cfg.previous_keys_file)
    out: list[Finding] = []
    if key is not None and key.kid in retired:
        taken = set(retired) | set(published_keys(cfg, site_dir, site_keys))
        pinned = cfg.signing.get("kid") == key.kid
        out.append(Finding(
            "KEY", "error", f"kid {key.kid} was retired ({prev} lists it under \"retired\"): "
            "a kid names one key for good, and clients may still hold cards signed under it",
            cfg.at("/signing/kid") if pinned else cfg.at("/signing", key=True),
            f"give the key a new kid: signing.kid: {free_kid(key.kid, taken)}" if pinned else
            "make a new key: acap keys rotate"))
    site = site_published_keys(cfg, site_dir) if site_keys is None else site_keys
    for jwk in previous:
        kid = str(jwk.get("kid"))
        if kid in retired:
            out.append(Finding(
                "KEY", "error", f"{prev} keeps a key under kid {kid}, which it also lists as "
                "retired: a retired kid is not published again", Location(prev),
                f"remove the key with kid {kid} from \"keys\", or, if retiring it was a "
                "mistake, remove the kid from \"retired\""))
        elif kid in site and not same_public_key(site[kid][0], jwk):
            out.append(Finding(
                "KEY", "error", f"{prev} keeps another key under kid {kid} than the one "
                f"published under it ({site[kid][1]}): clients that cached a card signed "
                "under it would check it against the wrong key", Location(prev),
                f"put the published public key of {kid} back in {prev} (copy it from the "
                f"published JWKS), or give this key a kid of its own"))
    return out


def next_kid(kid: str) -> str | None:
    """The kid after ``kid`` when it ends in a number: ``chapel-1`` -> ``chapel-2``."""
    # the number is found from its first digit only ((.*?)(\d+) tried every split of a long
    # run of digits: work growing with the square of the kid)
    m = re.search(r"(?<!\d)\d+\Z", kid)
    if m is None or "\n" in kid[:m.start()]:  # a line break: no kid (as (.*?) read it)
        return None
    return f"{kid[:m.start()]}{_plus_one(m.group(0))}"


def _plus_one(number: str) -> str:
    """The decimal digits ``number`` plus one, in ASCII digits without leading zeros, however
    many digits it has (``int()`` refuses more than 4,300: a kid is anyone's text)."""
    digits = "".join(str(unicodedata.decimal(c)) for c in number).lstrip("0") or "0"
    head = digits.rstrip("9")
    nines = len(digits) - len(head)
    return (head[:-1] + str(int(head[-1]) + 1) if head else "1") + "0" * nines
