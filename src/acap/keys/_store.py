"""Where an operator's keys live, and the ``acap keys`` commands.

* The private key: ``ACAP_SIGNING_KEY`` (PEM or JWK text, for CI secrets) if
  set, else the file ``signing.keyFile`` (default ``.acap/signing-key.pem``,
  git-ignored, mode 0600). Never inside site/.
* Previous public keys, kept in the JWKS after a rotation so that clients
  holding an older card can still verify it for its cache lifetime:
  ``signing.previousKeys`` (default ``keys/previous-keys.json``, public, safe
  to commit). Its ``"retired"`` list names the kids ``acap keys retire`` took
  out of the JWKS: a kid names one key for good (RFC 7517 §4.5; A2A §8.4.3 finds
  the key by kid), so a retired kid is never used again.
* What was published: the last build's JWKS in site/, and the keys every build
  into that site/ published (the build manifest's ``publishedKeys``, never
  published itself), so that a kid that leaves the JWKS is noticed and its
  public key can still be kept (``acap keys rotate --lost --old-kid KID``).

No function here prints or returns key material other than public JWKs.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acap.findings import Finding, Location
from acap.keys._key import (
    PRIVATE_MEMBERS,
    KeyProblem,
    KeyTextProblem,
    SigningKey,
    algorithm_for,
    generate_private_key,
    load_signing_key,
    public_jwk,
    read_jwks,
    read_key_file_doc,
    thumbprint,
    write_private_key,
)
from acap.load._operator import DEFAULT_KEY_FILE, KEY_ENV, OperatorConfig


@dataclass
class ResolvedKey:
    """The outcome of finding the signing key.

    Attributes:
        key: the key, or ``None`` when there is none usable (see ``findings``).
        previous: public JWKs of previous keys for the JWKS.
        findings: what is wrong (rule ``KEY``) or worth a look.
        notices: things done that the user must hear about (a key was created).
        site_keys: :func:`site_published_keys` as read (for :func:`dropped_kids`).
    """

    key: SigningKey | None = None
    previous: list[dict[str, object]] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    site_keys: dict[str, tuple[dict[str, Any], str]] | None = None


def _inside(path: Path, folder: Path) -> bool:
    try:
        path.resolve().relative_to(folder.resolve())
    except ValueError:
        return False
    return True


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
    previous = _jwk_list(cfg.previous_keys_file, "keys")
    shown = show_path(cfg.previous_keys_file, cfg) if previous else ""
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
    from acap.site._files import MANIFEST, SitePathError, read_manifest, url_to_path

    out: dict[str, tuple[dict[str, Any], str]] = {}
    sources: list[tuple[Path, str, str]] = []
    try:
        rel = url_to_path(cfg.jwks_url)
        sources.append((site_dir / rel, f"{site_dir.name}/{rel}", "keys"))
    except SitePathError:
        pass
    for path, shown, member in sources:
        for k in _jwk_list(path, member):
            out.setdefault(k["kid"], (k, shown))
    manifest = read_manifest(site_dir) or {}
    if manifest.get("card") == cfg.card_url:  # a build of this card, not another project's
        shown = f"by an earlier build, recorded in {site_dir.name}/{MANIFEST}"
        for k in _jwk_list(site_dir / MANIFEST, MANIFEST_KEYS):
            out.setdefault(k["kid"], (k, shown))
    return out


#: The build manifest's member listing every key published into that site/ (see
#: :func:`key_history`).
MANIFEST_KEYS = "publishedKeys"


def _jwk_list(path: Path, member: str) -> list[dict[str, Any]]:
    """The JWKs with a kid under ``member`` of the JSON object at ``path``; ``[]`` when
    it cannot be read (there is nothing to compare with)."""
    try:
        doc = json.loads(path.read_bytes())
    except (OSError, ValueError, RecursionError):
        return []
    keys = doc.get(member) if isinstance(doc, dict) else None
    return [k for k in keys if isinstance(k, dict) and isinstance(k.get("kid"), str)
            and _thumb(k)] if isinstance(keys, list) else []


def read_retired(path: Path) -> list[str]:
    """The ``"retired"`` kids of the previous-keys file (``[]`` when it has none).

    Raises:
        KeyProblem: ``"retired"`` is there but not a list of kids.
    """
    doc = read_key_file_doc(path)
    if doc is None:
        return []
    retired = doc.get("retired", []) if isinstance(doc, dict) else []
    if not isinstance(retired, list) or not all(isinstance(k, str) for k in retired):
        raise KeyProblem(f"\"retired\" in {path.name} is not a list of kids",
                         'write it as "retired": ["chapel-1", ...]')
    return retired


def write_previous_keys(cfg: OperatorConfig, keys: list[dict[str, Any]],
                        retired: list[str] | None = None) -> None:
    """Write the previous-keys file: ``{"keys": [...], "retired": [...]}`` (public JWKs
    only; ``retired`` kept as it is when ``None``, left out when empty)."""
    if retired is None:
        retired = read_retired(cfg.previous_keys_file)
    doc: dict[str, Any] = {"keys": [{k: v for k, v in jwk.items() if k not in PRIVATE_MEMBERS}
                                    for jwk in keys]}
    if retired:
        doc["retired"] = retired
    _write_atomic(cfg.previous_keys_file, (json.dumps(doc, indent=2) + "\n").encode("utf-8"))


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
        return read_retired(cfg.previous_keys_file)
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
    prev = show_path(cfg.previous_keys_file, cfg)
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


def _reused_kid(cfg: OperatorConfig, kid: str, published: dict[str, tuple[dict[str, Any], str]],
                env: bool, current: dict[str, Any] | None = None) -> Finding:
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
            f"public key of {kid} in {show_path(cfg.previous_keys_file, cfg)} (cards signed with "
            f"it still verify) and gives the new key the kid {new} (signing.kid)")
    if not pinned:
        keep = (f"if the old key is lost, add `kid: {kid}` under `signing:` in "
                f"{cfg.path.name}, then run `acap keys rotate --lost`")
    back = (f"if it is not lost, put the old key back in {KEY_ENV}" if env else
            f"if it is not lost, put the old key back at {show_path(cfg.key_file, cfg)}")
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
    retired = read_retired(cfg.previous_keys_file)
    if not previous and (key is None or key.kid not in retired):
        return []
    prev = show_path(cfg.previous_keys_file, cfg)
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


def _site_dir_at_fault(site_dir: Path, cfg: OperatorConfig) -> bool:
    """True when a key inside the site folder is the folder's fault, not the key's:
    the folder holds operator.yaml, or the place keys belong by default
    (``.acap/signing-key.pem``, e.g. ``--site-dir .acap``). The build then refuses
    the folder itself (SITE-PATH, :mod:`acap.site._guard`), which says what is
    really wrong; a KEY finding would hint to move the key where it already is."""
    return _inside(cfg.path, site_dir) or _inside(cfg.base_dir / DEFAULT_KEY_FILE, site_dir)


def resolve_signing_key(cfg: OperatorConfig, site_dir: Path, *, create: bool = True) -> ResolvedKey:
    """Find (or, with ``create``, make) the key that signs this operator's card.

    Args:
        cfg: the loaded operator.yaml.
        site_dir: the build output folder; a key file inside it is refused, and
            its JWKS (the last build's) says which key each published kid names.
        create: make a new key at ``signing.keyFile`` when none exists.

    Returns:
        A :class:`ResolvedKey`; never raises for a missing or bad key. A key that
        differs from the one published under the same kid is refused (``KEY``),
        and no new key is made under a published kid.
    """
    out = ResolvedKey()
    signing = cfg.signing
    loc = cfg.at("/signing/keyFile") if "keyFile" in signing else cfg.at("/signing", key=True)
    kid = signing.get("kid")
    alg = signing.get("algorithm")
    path = cfg.key_file
    env = cfg.key_from_env
    try:
        out.previous = list(read_jwks(cfg.previous_keys_file))
        out.site_keys = site_published_keys(cfg, site_dir)
        published = published_keys(cfg, site_dir, out.site_keys)
        if env:
            out.key = load_signing_key(env.encode("utf-8"), kid=kid, alg_hint=alg)
        elif _inside(path, site_dir) and not _site_dir_at_fault(site_dir, cfg):
            out.findings.append(Finding(
                "KEY", "error", f"the signing key file {signing.get('keyFile')} is inside the "
                "site folder, which is published", loc,
                "move it outside site/, e.g. keyFile: .acap/signing-key.pem"))
            return out
        else:
            if not path.exists():
                if not create:
                    out.findings.append(Finding(
                        "KEY", "error", f"no signing key at {show_path(path, cfg)}", loc,
                        f"if the path is right, run `acap keys new -c {cfg.path}` (a batch "
                        f"build makes keys only with --new-keys), or set {KEY_ENV}; if the "
                        "key is elsewhere, correct signing.keyFile"))
                    return out
                if isinstance(kid, str) and kid in published:
                    out.findings.append(_reused_kid(cfg, kid, published, env=False))
                    return out
                new_alg = alg or "ES256"
                private = generate_private_key(new_alg)
                write_private_key(path, private, new_alg)
                out.notices.append(f"created a new {new_alg} signing key at {show_path(path, cfg)} "
                                   "(keep it safe and out of git; .acap/ is git-ignored)")
            data = path.read_bytes()  # first: a folder or unreadable file is the one error
            mode = path.stat().st_mode & 0o077
            if mode:
                out.findings.append(Finding(
                    "KEY", "warning", f"the signing key {show_path(path, cfg)} can be read by "
                    "other users of this machine", loc, f"chmod 600 {show_path(path, cfg)}"))
            out.key = load_signing_key(data, kid=kid, alg_hint=alg)
        seen = published.get(out.key.kid)
        if seen and not same_public_key(seen[0], out.key.public_jwk()):
            out.findings.append(_reused_kid(cfg, out.key.kid, published, env=bool(env),
                                            current=out.key.public_jwk()))
            out.key = None
        kid_findings = retired_and_reused(cfg, site_dir, out.key, out.previous, out.site_keys)
        if kid_findings:
            out.findings += kid_findings
            out.key = None
    except KeyTextProblem as exc:
        out.key = None
        if env:  # about the variable, never quoting it; the fix is there, not in operator.yaml
            how = ("it must hold the key unencrypted" if "password" in str(exc) else
                   "it must hold the private key itself, as PEM text (what `acap keys new "
                   "--out FILE` writes) or as a JWK (JSON), not a file name")
            out.findings.append(Finding(
                "KEY", "error", f"the environment variable {KEY_ENV} holds no usable signing "
                f"key: {exc}", Location(KEY_ENV),
                f"fix or unset {KEY_ENV}: {how}; unset, acap uses signing.keyFile"))
        else:
            out.findings.append(Finding("KEY", "error", f"{show_path(path, cfg)}: {exc}", loc,
                                        exc.hint))
    except KeyProblem as exc:
        out.key = None
        src = KEY_ENV if env else show_path(path, cfg)
        out.findings.append(Finding("KEY", "error", f"{src}: {exc}",
                                    Location(KEY_ENV) if env else loc, exc.hint))
    except OSError as exc:
        out.findings.append(Finding("KEY", "error",
                                    f"cannot use the key file {show_path(path, cfg)}: "
                                    f"{exc.strerror or exc}", loc,
                                    "check the path and its permissions"))
    return out


def show_path(path: Path, cfg: OperatorConfig) -> str:
    """``path`` relative to operator.yaml's folder when it is inside it, else as is
    (as written when it is so written, else after resolving links)."""
    if path.is_absolute() and ".." not in path.parts and path.is_relative_to(cfg.base_dir):
        return str(path.relative_to(cfg.base_dir))
    try:
        return str(path.resolve().relative_to(cfg.base_dir.resolve()))
    except ValueError:
        return str(path)


def describe_key(key: SigningKey) -> str:
    """A one-line public description: ``kid chapel-1, ES256, thumbprint ...``."""
    tp = thumbprint(public_jwk(key.private.public_key()))
    return f"kid {key.kid}, {key.alg}, RFC 7638 thumbprint {tp}"


def new_key_file(path: Path, alg: str = "ES256") -> str:
    """``acap keys new``: write a new private key (mode 0600) at ``path``.

    Returns:
        The public thumbprint (never the key).

    Raises:
        FileExistsError: ``path`` exists (a key is never overwritten).
        KeyProblem: ``alg`` is not one acap creates keys for.
    """
    private = generate_private_key(alg)
    write_private_key(path, private, alg)
    algorithm_for(private, alg)
    return thumbprint(public_jwk(private.public_key()))


def _unused(path: Path) -> Path:
    """Where the old key file of a rotation goes: ``signing-key.pem`` ->
    ``signing-key.1.old.pem``, the ending kept so that what keeps ``*.pem`` out of git
    keeps it out too."""
    n = 1
    while True:
        cand = path.with_name(f"{path.stem}.{n}.old{path.suffix}")
        if not cand.exists():
            return cand
        n += 1


def next_kid(kid: str) -> str | None:
    """The kid after ``kid`` when it ends in a number: ``chapel-1`` -> ``chapel-2``."""
    m = re.fullmatch(r"(.*?)(\d+)", kid)
    return f"{m.group(1)}{int(m.group(2)) + 1}" if m else None


def rotate(cfg: OperatorConfig, new_kid: str | None = None,
           alg: str | None = None, site_dir: Path | None = None) -> tuple[str, str, Path]:
    """``acap keys rotate``: make a new current key; keep the old public key in the JWKS.

    The old private key file is renamed ``<name>.N.old.<ending>`` rather than
    deleted (``signing-key.1.old.pem``), and its public JWK is appended to
    ``signing.previousKeys``. When operator.yaml names ``signing.kid``, the new kid
    is written there in place (only that value changes; comments stay).
    Everything that can fail is checked before the first file changes.

    Args:
        cfg: the loaded operator.yaml.
        new_kid: kid for the new key. Default: the old kid with its number
            increased (``chapel-1`` -> ``chapel-2``), or the new key's thumbprint
            when operator.yaml names no kid.
        alg: algorithm of the new key (default: that of the old key).
        site_dir: the build output folder (default ``site`` beside operator.yaml):
            its JWKS says which key the current kid was published with.

    Returns:
        ``(old kid, new kid, where the old private key file went)``.

    Raises:
        KeyProblem: the key comes from ``ACAP_SIGNING_KEY``; no current key file;
            the key file holds another key than the one published under its kid
            (then the old public key would be lost: see :func:`rotate_lost`); no
            kid to use; a kid clash; or ``signing.kid`` cannot be rewritten.
    """
    if cfg.key_from_env:
        raise KeyProblem(f"the signing key comes from {KEY_ENV}, so acap cannot rotate it",
                         f"make a new key (`acap keys new --out FILE`), put it in {KEY_ENV} "
                         "and add the old public key to signing.previousKeys")
    path = cfg.key_file
    if not path.exists():
        raise KeyProblem(f"no key file at {show_path(path, cfg)} to rotate",
                         "run `acap keys new` first")
    pinned = cfg.signing.get("kid")
    old = load_signing_key(path.read_bytes(), kid=pinned, alg_hint=cfg.signing.get("algorithm"))
    seen = published_keys(cfg, site_dir or cfg.base_dir / "site").get(old.kid)
    if seen and not same_public_key(seen[0], old.public_jwk()):
        raise KeyProblem(f"{show_path(path, cfg)} holds another key than the one published under "
                         f"kid {old.kid} ({seen[1]}); rotating would drop the published one",
                         "if the published key is lost, run `acap keys rotate --lost`")
    previous = read_jwks(cfg.previous_keys_file)
    new_alg = alg or old.alg
    private = generate_private_key(new_alg if new_alg in ("EdDSA", "RS256", "PS256") else "ES256")
    if new_kid and not pinned:
        raise KeyProblem("operator.yaml names no signing.kid, so keys are named by thumbprint",
                         "add signing.kid to operator.yaml first, or rotate without --kid")
    if pinned:
        kid = new_kid or next_kid(pinned)
        if kid is None:
            raise KeyProblem(f"cannot derive a new kid from '{pinned}' (it does not end in a "
                             "number)", "run `acap keys rotate --kid NEW-KID`")
    else:
        kid = thumbprint(public_jwk(private.public_key()))
    retired = read_retired(cfg.previous_keys_file)
    if kid == old.kid or any(k.get("kid") == kid for k in previous) or kid in retired \
            or kid in published_keys(cfg, site_dir or cfg.base_dir / "site"):
        raise KeyProblem(f"kid '{kid}' is already used" + (" (retired)" if kid in retired
                                                           else ""),
                         "choose another with --kid: a kid names one key for good")
    new_text = replaced_scalar(cfg, "/signing/kid", kid) if pinned else None

    previous.append(old.public_jwk())
    write_previous_keys(cfg, previous, retired)
    kept = _unused(path)
    os.rename(path, kept)
    write_private_key(path, private, new_alg)
    if new_text is not None:
        _write_atomic(cfg.path, new_text.encode("utf-8"))
    return old.kid, kid, kept


def rotate_lost(cfg: OperatorConfig, site_dir: Path | None = None,
                new_kid: str | None = None, old_kid: str | None = None
                ) -> tuple[str, str, Path | None]:
    """``acap keys rotate --lost``: the private key published under ``signing.kid`` is lost.

    A new key must not take the old kid (clients that cached the card or JWKS would
    see another key under it), and the old public key should stay in the JWKS so
    that cards signed with it still verify for their cache lifetime. So: the
    public key the last build published under ``signing.kid`` is kept in
    ``signing.previousKeys``, ``signing.kid`` becomes the next free kid
    (``chapel-1`` -> ``chapel-2``, rewritten in place), and a new key is written
    at ``signing.keyFile`` unless a key is there already (one made after the
    loss) or comes from ``ACAP_SIGNING_KEY``: that key then signs under the new
    kid. Everything that can fail is checked before the first file changes.

    With ``old_kid`` other than ``signing.kid`` (a kid an earlier build published
    that has left the JWKS since: the key was replaced without a rotation, see
    :func:`dropped_kids`), only its published public key is kept in
    ``signing.previousKeys``; the current key and ``signing.kid`` stay.

    Args:
        cfg: the loaded operator.yaml.
        site_dir: the last build's output folder (default ``site`` beside
            operator.yaml): its JWKS holds the published public key.
        new_kid: the new kid (default: the next free one).
        old_kid: the kid of the lost key (default: ``signing.kid``).

    Returns:
        ``(old kid, new kid, path of the key file written or None)``; with another
        ``old_kid``, ``(old_kid, the current key's kid or "" when there is none, None)``.

    Raises:
        KeyProblem: no ``signing.kid``; no key was published under it; the key in
            use is the published one (not lost: use :func:`rotate`); the new kid is
            taken or retired; or ``signing.kid`` cannot be rewritten.
    """
    if old_kid is not None and old_kid != cfg.signing.get("kid"):
        return _keep_published(cfg, site_dir or cfg.base_dir / "site", old_kid, new_kid)
    old_kid = cfg.signing.get("kid")
    if not isinstance(old_kid, str) or not old_kid:
        raise KeyProblem("operator.yaml names no signing.kid, so a new key gets a kid of its "
                         "own (its thumbprint)", "add `kid: OLD-KID` under `signing:` (the kid "
                         "the lost key was published under), then run this again")
    site = site_dir or cfg.base_dir / "site"
    published = published_keys(cfg, site)
    if old_kid not in published:
        raise KeyProblem(f"no key was published under kid {old_kid} (looked in {site.name}/ "
                         f"and {show_path(cfg.previous_keys_file, cfg)})",
                         "there is nothing to keep: run `acap build`, or give --site-dir with "
                         "the last build")
    old_jwk = published[old_kid][0]
    alg = cfg.signing.get("algorithm")
    env = cfg.key_from_env
    current = None
    if env:
        current = load_signing_key(env.encode("utf-8"), kid=old_kid, alg_hint=alg)
    elif cfg.key_file.exists():
        current = load_signing_key(cfg.key_file.read_bytes(), kid=old_kid, alg_hint=alg)
    if current is not None and same_public_key(old_jwk, current.public_jwk()):
        raise KeyProblem(f"the key of kid {old_kid} is not lost: "
                         f"{KEY_ENV if env else show_path(cfg.key_file, cfg)} holds it",
                         "to replace a key you still have, run `acap keys rotate`")
    previous = read_jwks(cfg.previous_keys_file)
    retired = read_retired(cfg.previous_keys_file)
    taken = set(published) | {str(k.get("kid")) for k in previous} | set(retired)
    kid = new_kid or free_kid(old_kid, taken)
    if kid in taken:
        raise KeyProblem(f"kid '{kid}' is already used" + (" (retired)" if kid in retired
                                                           else ""),
                         "choose another with --kid: a kid names one key for good")
    new_text = replaced_scalar(cfg, "/signing/kid", kid)
    old_alg = old_jwk.get("alg")
    new_alg = str(alg or (old_alg if old_alg in ("ES256", "EdDSA", "RS256", "PS256")
                          else "ES256"))
    private = generate_private_key(new_alg) if current is None else None

    if not any(k.get("kid") == old_kid for k in previous):
        previous.append({k: v for k, v in old_jwk.items() if k not in PRIVATE_MEMBERS})
        write_previous_keys(cfg, previous, retired)
    written = None
    if private is not None:
        write_private_key(cfg.key_file, private, new_alg)
        written = cfg.key_file
    _write_atomic(cfg.path, new_text.encode("utf-8"))
    return old_kid, kid, written


def _current_key(cfg: OperatorConfig) -> SigningKey | None:
    """The current signing key (``ACAP_SIGNING_KEY``, else the key file), or ``None``
    when there is none or it cannot be read."""
    text = cfg.key_from_env.encode("utf-8") if cfg.key_from_env else None
    try:
        if text is None and cfg.key_file.is_file():
            text = cfg.key_file.read_bytes()
        if text is None:
            return None
        return load_signing_key(text, kid=cfg.signing.get("kid"),
                                alg_hint=cfg.signing.get("algorithm"))
    except (KeyProblem, OSError):
        return None


def _keep_published(cfg: OperatorConfig, site_dir: Path, old_kid: str,
                    new_kid: str | None) -> tuple[str, str, None]:
    """:func:`rotate_lost` for a kid other than ``signing.kid``: keep its published
    public key in the previous keys; nothing else changes."""
    if new_kid is not None:
        raise KeyProblem("--kid names the new kid of the current key; with --old-kid the "
                         "current key keeps its kid", "leave out --kid")
    prev = show_path(cfg.previous_keys_file, cfg)
    previous = read_jwks(cfg.previous_keys_file)
    retired = read_retired(cfg.previous_keys_file)
    if old_kid in retired:
        raise KeyProblem(f"kid {old_kid} was retired ({prev})",
                         f"if retiring it was a mistake, remove it from \"retired\" in {prev} "
                         "first")
    if any(k.get("kid") == old_kid for k in previous):
        raise KeyProblem(f"the public key of {old_kid} is kept already in {prev}",
                         "nothing to do: run `acap build`")
    published = site_published_keys(cfg, site_dir)
    if old_kid not in published:
        raise KeyProblem(f"no key was published under kid {old_kid} (looked in "
                         f"{site_dir.name}/)", "give --site-dir with the last build")
    old_jwk = published[old_kid][0]
    current = _current_key(cfg)
    if current is not None and current.kid == old_kid:  # a key named by its thumbprint
        raise KeyProblem(f"the key of kid {old_kid} is not lost: it is the current key",
                         "to replace a key you still have, run `acap keys rotate`")
    previous.append({k: v for k, v in old_jwk.items() if k not in PRIVATE_MEMBERS})
    write_previous_keys(cfg, previous, retired)
    return old_kid, current.kid if current is not None else "", None


def _write_atomic(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` in one rename, keeping the file's mode."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.acap-tmp")
    tmp.write_bytes(data)
    try:
        if path.exists():
            os.chmod(tmp, path.stat().st_mode & 0o7777)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def replaced_scalar(cfg: OperatorConfig, pointer: str, value: str) -> str:
    """The text of operator.yaml with one scalar value replaced, comments and layout kept.

    The scalar is found by its start and end marks in the YAML node tree, so
    block and flow style, quotes and trailing comments all survive.

    Args:
        cfg: the loaded operator.yaml (its file is read again, as it is now).
        pointer: JSON pointer of a scalar, e.g. ``/signing/kid``.
        value: the new text.

    Raises:
        KeyProblem: the file changed in a way that hides the scalar, or it spans lines.
    """
    import yaml

    from acap.load._yaml import YamlLoader

    text = cfg.path.read_bytes().decode("utf-8")  # bytes: keep CRLF line ends as they are
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    text = text[len(bom):]
    node: Any = yaml.compose(text, Loader=YamlLoader)
    for token in pointer.split("/")[1:]:
        if not isinstance(node, yaml.MappingNode):
            node = None
            break
        node = next((v for k, v in node.value if getattr(k, "value", None) == token), None)
    if not isinstance(node, yaml.ScalarNode) or node.start_mark.line != node.end_mark.line:
        raise KeyProblem(f"cannot rewrite {pointer} in {cfg.path.name}",
                         f"edit it by hand: set it to {value}")
    token = value if re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", value) else json.dumps(
        value, ensure_ascii=False)
    return bom + text[: node.start_mark.index] + token + text[node.end_mark.index:]


def replace_scalar(cfg: OperatorConfig, pointer: str, value: str) -> None:
    """Rewrite one scalar of operator.yaml in place (see :func:`replaced_scalar`).

    Raises:
        KeyProblem: the value is not a one-line scalar acap can safely rewrite.
    """
    _write_atomic(cfg.path, replaced_scalar(cfg, pointer, value).encode("utf-8"))


def retire(cfg: OperatorConfig, kid: str, site_dir: Path | None = None) -> bool:
    """``acap keys retire KID``: take a kid out of the JWKS for good.

    A previous key's public JWK is removed from ``signing.previousKeys``; a kid an
    earlier build published that has left the JWKS since (see
    :func:`dropped_kids`) is only recorded. Either way the kid is listed under
    ``"retired"`` in that file: no build warns about it again, and no key can take
    it (a kid names one key for good).

    Args:
        cfg: the loaded operator.yaml.
        kid: the kid to retire.
        site_dir: the last build's output folder (default ``site`` beside operator.yaml).

    Returns:
        ``True`` when a previous key was removed (it leaves the JWKS at the next
        build), ``False`` when the kid had left the JWKS already.

    Raises:
        KeyProblem: the kid is retired already, is the current key's, or names no
            previous or published key.
    """
    previous = read_jwks(cfg.previous_keys_file)
    retired = read_retired(cfg.previous_keys_file)
    if kid in retired:
        raise KeyProblem(f"kid '{kid}' is retired already", "list the keys with "
                         "`acap keys list`")
    current = _current_key(cfg)
    if kid == cfg.signing.get("kid") or (current is not None and current.kid == kid):
        raise KeyProblem(f"kid '{kid}' is the current key's", "the current key is rotated "
                         "(acap keys rotate), not retired")
    kept = [k for k in previous if k.get("kid") != kid]
    if len(kept) == len(previous) and \
            kid not in site_published_keys(cfg, site_dir or cfg.base_dir / "site"):
        raise KeyProblem(f"no previous key has kid '{kid}', and no build published it",
                         "list them with `acap keys list`; the current key is rotated, "
                         "not retired")
    write_previous_keys(cfg, kept, [*retired, kid])
    return len(kept) != len(previous)
