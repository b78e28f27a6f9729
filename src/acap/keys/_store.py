"""Which key signs a build: where an operator's keys live, and the checks before one signs.

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

import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acap.errors import FileRefused, KeyProblem, KeyTextProblem
from acap.findings import Finding, Location
from acap.keys._history import (
    previous_keys,
    published_elsewhere,
    published_keys,
    retired_and_reused,
    reused_kid_finding,
    same_public_key,
    site_published_keys,
)
from acap.keys._key import (
    SigningKey,
    generate_private_key,
    key_file_status,
    load_signing_key,
    public_jwk,
    read_key_bytes,
    thumbprint,
    write_private_key,
)
from acap.keys._key_file_names import similar_key_file
from acap.load import (
    DEFAULT_KEY_FILE,
    KEY_ENV,
    OperatorConfig,
    Root,
    file_kind,
    is_inside,
    real_path,
    under,
)


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


def _site_dir_at_fault(site_dir: Path, cfg: OperatorConfig) -> bool:
    """True when a key inside the site folder is the folder's fault, not the key's:
    the folder holds operator.yaml, or the place keys belong by default
    (``.acap/signing-key.pem``, e.g. ``--site-dir .acap``). The build then refuses
    the folder itself (SITE-PATH, :mod:`acap.site._guard`), which says what is
    really wrong; a KEY finding would hint to move the key where it already is."""
    return is_inside(cfg.path, site_dir) or is_inside(cfg.base_dir / DEFAULT_KEY_FILE, site_dir)


def key_file_findings(cfg: OperatorConfig, confine: Sequence[Path] | None) -> list[Finding]:
    """``KEY-FILE`` errors for the key files operator.yaml names (``signing.keyFile``,
    unless the key comes from ``ACAP_SIGNING_KEY``, and ``signing.previousKeys``), each
    at the line naming it: one that is there but not a regular file (a FIFO would hang
    the build, ``/dev/zero`` grow without bound), a link out of the project folder, one
    with other names (a hard link: another's key, which no path check sees), and, with
    ``confine`` (a batch: the
    tenant's own folder and the folders the platform names with ``--key-dir``), one
    whose real path lies outside those folders: another tenant's key file, reached by
    ``..`` or by a link. Judged before either file is read (issue 12).

    Args:
        cfg: the loaded operator.yaml.
        confine: the folders key files must lie in, or ``None`` (a build of one's own).
    """

    out = []
    named = [("keyFile", cfg.key_file, "the signing key file")] if not cfg.key_from_env else []
    named.append(("previousKeys", cfg.previous_keys_file, "the previous-keys file"))
    roots = [real_path(f) for f in confine] if confine is not None else None
    def place(member: str) -> Location:
        return cfg.at(f"/signing/{member}") if member in cfg.signing else \
            cfg.at("/signing", key=True) if "signing" in cfg.data else Location(cfg.loaded.file)

    for member, path, what in named:
        if roots is not None:
            real = real_path(path)
            if not any(under(real, r) for r in roots):
                shown = cfg.display_path(path)
                out.append(Finding(
                    "KEY-FILE", "error", f"{what} {shown} lies outside this operator's folder "
                    f"({cfg.display_path(cfg.base_dir) or '.'}): in a batch, an operator's "
                    "key files are its own", place(member),
                    f"keep it in the operator's folder (signing.{member} relative to "
                    f"{cfg.path.name}), or have the platform name its folder with --key-dir"))
                continue
        try:
            st = key_file_status(path, cfg.root_of(path))
        except FileRefused as exc:  # a link out of the project, or a loop
            out.append(Finding("KEY-FILE", "error", f"{what} {cfg.display_path(path)}: "
                               f"{exc.reason}; acap does not read it", place(member),
                               f"point signing.{member} at the file itself, inside "
                               "the project folder"))
            continue
        except OSError:
            continue  # unreadable: said where the file is read
        kind = file_kind(st.st_mode) if st is not None else None
        if kind:
            out.append(Finding("KEY-FILE", "error", f"{what} {cfg.display_path(path)} is "
                               f"{kind}, not a regular file; acap does not read it", place(member),
                               f"point signing.{member} at the file itself"))
        elif st is not None and st.st_nlink > 1:
            shown = cfg.display_path(path)
            out.append(Finding("KEY-FILE", "error", f"{what} {shown} has other names (hard "
                               "links), so it may be another's file; acap does not read it",
                               place(member), f"make it a file of its own, a copy: cp {shown} "
                               f"{shown}.new && mv {shown}.new {shown}"))
    return out


def _make_key(cfg: OperatorConfig, root: Root, loc: Location, how: tuple[bool, bool],
              confine: Sequence[Path] | None,
              published: dict[str, tuple[dict[str, Any], str]], out: ResolvedKey) -> bool:
    """Make a new key at ``signing.keyFile``, which is missing: ``True`` when it was written
    (read it next). ``False`` when it was made in memory only (``how``: ``(create,
    in_memory)``; it is ``out.key``), or, with the reason in ``out.findings``, when acap
    must not make one: a typo in the file name, ``create`` not given, a kid already
    published with another key, or a key of this project published already
    (:func:`acap.keys._history.published_elsewhere`: the site was built or published from
    another computer, whose key is not here; a new key would replace the live card's key
    without a rotation)."""
    create, in_memory = how
    path, kid, alg = cfg.key_file, cfg.signing.get("kid"), cfg.signing.get("algorithm")
    meant = similar_key_file(cfg, path)
    if meant is not None:  # a typo: said before anything about a lost key
        out.findings.append(Finding(
            "KEY", "error", f"the signing key file {cfg.display_path(path)} does not "
            f"exist; did you mean {meant}?", loc, f"write keyFile: {meant}"))
        return False
    if not create:
        # A batch tenant (confined) is not told of ACAP_SIGNING_KEY: one key
        # in the environment would sign every tenant's card (fresh-user trial)
        other = "or build the batch with --new-keys" if confine is not None \
            else f"or set {KEY_ENV}"
        out.findings.append(Finding(
            "KEY", "error", f"no signing key at {cfg.display_path(path)}", loc,
            f"if the path is right, run `acap keys new -c {cfg.path}`, {other}; if "
            "the key is elsewhere, correct signing.keyFile"))
        return False
    if isinstance(kid, str) and kid in published:
        out.findings.append(reused_kid_finding(cfg, kid, published, env=False))
        return False
    elsewhere = published_elsewhere(cfg, out.site_keys or {}, out.previous)
    if elsewhere:
        out.findings.append(_lacking_key_finding(cfg, loc, elsewhere))
        return False
    new_alg = alg or "ES256"
    private = generate_private_key(new_alg)
    if in_memory:
        out.key = SigningKey(private, new_alg, kid if isinstance(kid, str) and kid
                             else thumbprint(public_jwk(private.public_key())))
        return False
    write_private_key(path, private, new_alg, root)
    ignored = git_ignores(path)
    out.notices.append(f"created a new {new_alg} signing key at "
                       f"{cfg.display_path(path)} (keep it safe and out of git"
                       + ("; git ignores it)" if ignored else ")"))
    if ignored is False:
        out.findings.append(_not_ignored(cfg, path, loc))
    return True


def _lacking_key_finding(cfg: OperatorConfig, loc: Location,
                         elsewhere: list[tuple[str, str]]) -> Finding:
    """The ``KEY`` error for a build that would make a new key where a key of this project
    was published already (issue 20, item 4)."""
    kid, where = elsewhere[0]
    return Finding(
        "KEY", "error", f"this computer has no signing key ({cfg.display_path(cfg.key_file)}), "
        f"but this project's card was published with kid {kid} ({where}): a new key would "
        "replace the live card's key without a rotation, and clients that cached the card "
        "would see a key they cannot check", loc,
        f"bring the key: copy {cfg.display_path(cfg.key_file)} from the computer that has it, "
        f"or set {KEY_ENV} to its text; if it is lost for good, rotate on purpose: acap keys "
        f"rotate --lost --old-kid {kid} --jwks <the published JWKS, a file or its https "
        "address> (cards clients cached still verify), then acap build")


def resolve_signing_key(cfg: OperatorConfig, site_dir: Path, *, create: bool = True,
                        confine: Sequence[Path] | None = None,
                        in_memory: bool = False) -> ResolvedKey:
    """Find (or, with ``create``, make) the key that signs this operator's card.

    Args:
        cfg: the loaded operator.yaml.
        site_dir: the build output folder; a key file inside it is refused, and
            its JWKS (the last build's) says which key each published kid names.
        create: make a new key at ``signing.keyFile`` when none exists.
        confine: in a batch, the folders the key files must lie in (see
            :func:`key_file_findings`); ``None`` for a build of one's own.
        in_memory: with ``create``, make the new key in memory only, never written and
            never said (``acap check operator.yaml`` signs as a build would, and writes
            nothing).

    Returns:
        A :class:`ResolvedKey`; never raises for a missing or bad key. A key file that
        is not a regular file of at most :data:`acap.load.KEY_FILE_LIMIT` bytes (or lies
        outside ``confine``) is refused (``KEY-FILE``) unread. A key that differs from
        the one published under the same kid is refused (``KEY``), and so is a key that
        the previous keys keep under another kid (a CI secret not updated after ``acap
        keys rotate``); no new key is made under a published kid.
    """
    out = ResolvedKey()
    out.findings = key_file_findings(cfg, confine)
    if out.findings:
        return out
    signing = cfg.signing
    loc = cfg.at("/signing/keyFile") if "keyFile" in signing else cfg.at("/signing", key=True)
    kid = signing.get("kid")
    alg = signing.get("algorithm")
    path = cfg.key_file
    root = cfg.root_of(path)
    env = cfg.key_from_env
    try:
        out.previous = list(previous_keys(cfg))
        out.site_keys = site_published_keys(cfg, site_dir)
        published = published_keys(cfg, site_dir, out.site_keys)
        if env:
            out.key = load_signing_key(env.encode("utf-8"), kid=kid, alg_hint=alg)
        elif is_inside(path, site_dir) and not _site_dir_at_fault(site_dir, cfg):
            out.findings.append(Finding(
                "KEY", "error", f"the signing key file {signing.get('keyFile')} is inside the "
                "site folder, which is published", loc,
                "move it outside site/, e.g. keyFile: .acap/signing-key.pem"))
            return out
        else:
            if key_file_status(path, root) is None and \
                    not _make_key(cfg, root, loc, (create, in_memory), confine, published, out):
                return out
            # first: a folder, FIFO, device or unreadable file is the one error
            data = read_key_bytes(path, root, one_name=True)
            st = key_file_status(path, root)
            mode = st.st_mode & 0o077 if st is not None else 0
            if mode:
                out.findings.append(Finding(
                    "KEY", "warning", f"the signing key {cfg.display_path(path)} can be read by "
                    "other users of this machine", loc, f"chmod 600 {cfg.display_path(path)}"))
            out.key = load_signing_key(data, kid=kid, alg_hint=alg)
        _refuse_unpublished_key(cfg, site_dir, out.key, published, out, env=bool(env))
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
            out.findings.append(Finding("KEY", "error", f"{cfg.display_path(path)}: {exc}", loc,
                                        exc.hint))
    except FileRefused as exc:
        out.key = None
        out.findings.append(Finding("KEY-FILE", "error", f"{cfg.display_path(Path(exc.path))}: "
                                    f"{exc.reason}; acap does not use it", loc,
                                    "point signing.keyFile at the key file itself, inside "
                                    "the project folder"))
    except FileExistsError:  # a link to nothing where a new key was to be written
        out.findings.append(Finding("KEY-FILE", "error", f"{cfg.display_path(path)} is a "
                                    "symbolic link; acap writes no key through a link", loc,
                                    "remove the link, or point signing.keyFile at the key "
                                    "file itself"))
    except KeyProblem as exc:
        out.key = None
        src = KEY_ENV if env else cfg.display_path(path)
        out.findings.append(Finding("KEY", "error", f"{src}: {exc}",
                                    Location(KEY_ENV) if env else loc, exc.hint))
    except OSError as exc:
        out.findings.append(Finding("KEY", "error",
                                    f"cannot use the key file {cfg.display_path(path)}: "
                                    f"{exc.strerror or exc}", loc,
                                    "check the path and its permissions"))
    return out


def _refuse_unpublished_key(cfg: OperatorConfig, site_dir: Path, key: SigningKey,
                            published: dict[str, tuple[dict[str, Any], str]],
                            out: ResolvedKey, *, env: bool) -> None:
    """Drop ``key`` from ``out`` (``out.key = None``), with the ``KEY`` errors saying
    why, when publishing it would break what clients hold: the previous keys keep it
    under another kid (a secret not updated after a rotation; nothing else is said
    then), its kid was published with another key (RFC 7517 §4.5), or
    :func:`retired_and_reused` refuses a kid. ``env``: the key came from ``KEY_ENV``."""
    stale = _kept_under_another_kid(key, out.previous)
    if stale is not None:
        out.findings.append(_stale_key_finding(cfg, key, stale, env=env))
        out.key = None
        return
    seen = published.get(key.kid)
    if seen and not same_public_key(seen[0], key.public_jwk()):
        out.findings.append(reused_kid_finding(cfg, key.kid, published, env=env,
                                               current=key.public_jwk()))
        out.key = None
    kid_findings = retired_and_reused(cfg, site_dir, out.key, out.previous, out.site_keys)
    if kid_findings:
        out.findings += kid_findings
        out.key = None


def _kept_under_another_kid(key: SigningKey, previous: list[dict[str, Any]]
                            ) -> dict[str, Any] | None:
    """The previous key (public JWK) that is ``key`` under another kid, if any: the key
    was rotated away (``acap keys rotate`` kept it there), yet signs again."""
    mine = key.public_jwk()
    for jwk in previous:
        if jwk.get("kid") != key.kid and same_public_key(jwk, mine):
            return jwk
    return None


def _stale_key_finding(cfg: OperatorConfig, key: SigningKey, old: dict[str, Any], *,
                       env: bool) -> Finding:
    """The ``KEY`` error for a key that the previous keys keep under another kid: signing
    ``key.kid`` with it would give that kid another key than the one ``acap keys rotate``
    made for it (one kid, two keys in the wild: RFC 7517 §4.5, A2A §8.4.3)."""
    prev = cfg.display_path(cfg.previous_keys_file)
    old_kid = str(old.get("kid"))
    where = f"the secret {KEY_ENV}" if env else cfg.display_path(cfg.key_file)
    loc = cfg.at("/signing/kid") if "kid" in cfg.signing else cfg.at("/signing", key=True)
    if env:
        fix = (f"update the secret {KEY_ENV} (in CI: the repository's or pipeline's secret) "
               f"with the key acap keys rotate made for {key.kid}, the contents of "
               f"{cfg.display_path(cfg.key_file)}; keep the old key out of it")
    else:
        fix = (f"put the key made for {key.kid} back at {cfg.display_path(cfg.key_file)}, or, "
               f"if it is lost, run `acap keys rotate --lost`")
    return Finding("KEY", "error", f"{where} holds the old key of kid {old_kid} (kept in "
                   f"{prev} since a rotation), and this build would sign kid {key.kid} with "
                   f"it: {key.kid} would name two keys", loc, fix)


def git_ignores(path: Path) -> bool | None:
    """Whether git ignores ``path`` (``git check-ignore``): ``True`` or ``False`` inside a
    git work tree, ``None`` outside one (or without git). Asked rather than assumed:
    a ``.gitignore`` that does not list the key lets one ``git add .`` commit it."""

    try:
        done = subprocess.run(["git", "check-ignore", "-q", "--", path.name], cwd=path.parent,
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return {0: True, 1: False}.get(done.returncode)


def _not_ignored(cfg: OperatorConfig, path: Path, loc: Location) -> Finding:
    """The ``KEY`` warning for a new key file that git does not ignore."""
    shown = cfg.display_path(path)
    inside = is_inside(path, cfg.base_dir)
    line = "/" + (shown.split("/", 1)[0] + "/" if "/" in shown else shown)
    how = (f"add the line {line} to {cfg.display_path(cfg.base_dir / '.gitignore')} "
           "(acap init writes one that does)" if inside else
           "add it to the .gitignore of the repository it lies in")
    return Finding("KEY", "warning", f"the new signing key {shown} is not ignored by git: "
                   "one `git add .` would commit it", loc, how)
