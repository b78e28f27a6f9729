"""Where an operator's keys live, and the ``acap keys`` commands.

* The private key: ``ACAP_SIGNING_KEY`` (PEM or JWK text, for CI secrets) if
  set, else the file ``signing.keyFile`` (default ``.acap/signing-key.pem``,
  git-ignored, mode 0600). Never inside site/.
* Previous public keys, kept in the JWKS after a rotation so that clients
  holding an older card can still verify it for its cache lifetime:
  ``signing.previousKeys`` (default ``keys/previous-keys.json``, public, safe
  to commit).

No function here prints or returns key material other than public JWKs.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .findings import Finding
from .keys import (
    KeyProblem,
    SigningKey,
    algorithm_for,
    generate_private_key,
    load_signing_key,
    public_jwk,
    read_jwks,
    thumbprint,
    write_private_key,
)
from .operator_config import KEY_ENV, OperatorConfig


@dataclass
class ResolvedKey:
    """The outcome of finding the signing key.

    Attributes:
        key: the key, or ``None`` when there is none usable (see ``findings``).
        previous: public JWKs of previous keys for the JWKS.
        findings: what is wrong (rule ``KEY``) or worth a look.
        notices: things done that the user must hear about (a key was created).
    """

    key: SigningKey | None = None
    previous: list[dict[str, object]] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)


def _inside(path: Path, folder: Path) -> bool:
    try:
        path.resolve().relative_to(folder.resolve())
    except ValueError:
        return False
    return True


def resolve_signing_key(cfg: OperatorConfig, site_dir: Path, *, create: bool = True) -> ResolvedKey:
    """Find (or, with ``create``, make) the key that signs this operator's card.

    Args:
        cfg: the loaded operator.yaml.
        site_dir: the build output folder; a key file inside it is refused.
        create: make a new key at ``signing.keyFile`` when none exists.

    Returns:
        A :class:`ResolvedKey`; never raises for a missing or bad key.
    """
    out = ResolvedKey()
    signing = cfg.signing
    loc = cfg.at("/signing/keyFile") if "keyFile" in signing else cfg.at("/signing", key=True)
    kid = signing.get("kid")
    alg = signing.get("algorithm")
    path = cfg.key_file
    try:
        out.previous = list(read_jwks(cfg.previous_keys_file))
        env = cfg.key_from_env
        if env:
            out.key = load_signing_key(env.encode("utf-8"), kid=kid, alg_hint=alg)
            return out
        if _inside(path, site_dir):
            out.findings.append(Finding(
                "KEY", "error", f"the signing key file {signing.get('keyFile')} is inside the "
                "site folder, which is published", loc,
                "move it outside site/, e.g. keyFile: .acap/signing-key.pem"))
            return out
        if not path.exists():
            if not create:
                out.findings.append(Finding(
                    "KEY", "error", f"no signing key at {_show(path, cfg)}", loc,
                    f"run `acap keys new`, or set {KEY_ENV}"))
                return out
            new_alg = alg or "ES256"
            private = generate_private_key(new_alg)
            write_private_key(path, private, new_alg)
            out.notices.append(f"created a new {new_alg} signing key at {_show(path, cfg)} "
                               "(keep it safe and out of git; .acap/ is git-ignored)")
        mode = path.stat().st_mode & 0o077
        if mode:
            out.findings.append(Finding(
                "KEY", "warning", f"the signing key {_show(path, cfg)} can be read by other "
                "users of this machine", loc, f"chmod 600 {_show(path, cfg)}"))
        out.key = load_signing_key(path.read_bytes(), kid=kid, alg_hint=alg)
    except KeyProblem as exc:
        src = KEY_ENV if cfg.key_from_env else _show(path, cfg)
        out.findings.append(Finding("KEY", "error", f"{src}: {exc}", loc, exc.hint))
    except OSError as exc:
        out.findings.append(Finding("KEY", "error",
                                    f"cannot use the key file {_show(path, cfg)}: "
                                    f"{exc.strerror or exc}", loc,
                                    "check the path and its permissions"))
    return out


def _show(path: Path, cfg: OperatorConfig) -> str:
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
    n = 1
    while True:
        cand = path.with_name(f"{path.name}.{n}.old")
        if not cand.exists():
            return cand
        n += 1


def next_kid(kid: str) -> str | None:
    """The kid after ``kid`` when it ends in a number: ``chapel-1`` -> ``chapel-2``."""
    m = re.fullmatch(r"(.*?)(\d+)", kid)
    return f"{m.group(1)}{int(m.group(2)) + 1}" if m else None


def rotate(cfg: OperatorConfig, new_kid: str | None = None,
           alg: str | None = None) -> tuple[str, str]:
    """``acap keys rotate``: make a new current key; keep the old public key in the JWKS.

    The old private key file is renamed ``<keyFile>.N.old`` rather than
    deleted, and its public JWK is appended to ``signing.previousKeys``. When
    operator.yaml names ``signing.kid``, the new kid is written there in place
    (only that value changes; comments stay). Everything that can fail is
    checked before the first file changes.

    Args:
        cfg: the loaded operator.yaml.
        new_kid: kid for the new key. Default: the old kid with its number
            increased (``chapel-1`` -> ``chapel-2``), or the new key's thumbprint
            when operator.yaml names no kid.
        alg: algorithm of the new key (default: that of the old key).

    Returns:
        ``(old kid, new kid)``.

    Raises:
        KeyProblem: the key comes from ``ACAP_SIGNING_KEY``; no current key file;
            no kid to use; a kid clash; or ``signing.kid`` cannot be rewritten.
    """
    if cfg.key_from_env:
        raise KeyProblem(f"the signing key comes from {KEY_ENV}, so acap cannot rotate it",
                         f"make a new key (`acap keys new --out FILE`), put it in {KEY_ENV} "
                         "and add the old public key to signing.previousKeys")
    path = cfg.key_file
    if not path.exists():
        raise KeyProblem(f"no key file at {_show(path, cfg)} to rotate",
                         "run `acap keys new` first")
    pinned = cfg.signing.get("kid")
    old = load_signing_key(path.read_bytes(), kid=pinned, alg_hint=cfg.signing.get("algorithm"))
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
    if kid == old.kid or any(k.get("kid") == kid for k in previous):
        raise KeyProblem(f"kid '{kid}' is already used", "choose another with --kid")
    new_text = replaced_scalar(cfg, "/signing/kid", kid) if pinned else None

    previous.append(old.public_jwk())
    _write_atomic(cfg.previous_keys_file,
                  (json.dumps({"keys": previous}, indent=2) + "\n").encode("utf-8"))
    os.rename(path, _unused(path))
    write_private_key(path, private, new_alg)
    if new_text is not None:
        _write_atomic(cfg.path, new_text.encode("utf-8"))
    return old.kid, kid


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

    from .loader import YamlLoader

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


def retire(cfg: OperatorConfig, kid: str) -> None:
    """``acap keys retire KID``: drop a previous public key from the JWKS.

    Raises:
        KeyProblem: no previous key has that kid (the current key cannot be retired).
    """
    previous = read_jwks(cfg.previous_keys_file)
    kept = [k for k in previous if k.get("kid") != kid]
    if len(kept) == len(previous):
        raise KeyProblem(f"no previous key has kid '{kid}'",
                         "list them with `acap keys list`; the current key is rotated, "
                         "not retired")
    _write_atomic(cfg.previous_keys_file,
                  (json.dumps({"keys": kept}, indent=2) + "\n").encode("utf-8"))
