"""``acap keys rotate`` and ``acap keys retire``: change which key signs, keeping every
published kid's public key for as long as clients may hold cards signed with it.

Every function checks all that can fail before the first file changes (a file it would
write through a symbolic link included: :func:`acap.load.write_check`); files are
replaced in one rename each (:func:`acap.load.write_file`), never through a link, and
operator.yaml is rewritten in place with only ``signing.kid`` changed (comments and
layout kept). Key files are read within the project folder, as a build reads them.

No function here prints or returns key material other than public JWKs.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml

from acap.errors import FetchError, FileRefused, KeyProblem
from acap.keys._history import (
    free_kid,
    next_kid,
    previous_keys,
    published_keys,
    retired_kids,
    same_public_key,
    site_published_keys,
    write_previous_keys,
)
from acap.keys._key import (
    PRIVATE_MEMBERS,
    SigningKey,
    generate_private_key,
    load_signing_key,
    public_jwk,
    thumbprint,
    write_private_key,
)
from acap.load import (
    KEY_ENV,
    KEY_FILE_LIMIT,
    MAX_BYTES,
    OperatorConfig,
    Root,
    YamlLoader,
    file_status,
    given_root,
    read_file,
    rename_file,
    write_check,
    write_file,
)


def _unused(path: Path, root: Root) -> Path:
    """Where the old key file of a rotation goes: ``signing-key.pem`` ->
    ``signing-key.1.old.pem``, the ending kept so that what keeps ``*.pem`` out of git
    keeps it out too. A name taken by anything, a link to nothing too, is passed by."""
    strict = Root(root.folder, root.name)  # a link is a name taken, not followed
    n = 1
    while True:
        cand = path.with_name(f"{path.stem}.{n}.old{path.suffix}")
        if file_status(cand, strict) is None:
            return cand
        n += 1


def _key_text(cfg: OperatorConfig, path: Path) -> bytes | None:
    """The bytes of the key file ``path`` as a build reads them (in the project folder,
    a regular file with no other name), or ``None`` when there is none.

    Raises:
        KeyProblem: it is refused (a link out of the project, a FIFO, a hard link ...).
    """
    try:
        return read_file(path, cfg.root_of(path), KEY_FILE_LIMIT, one_name=True)
    except FileNotFoundError:
        return None
    except FileRefused as exc:
        raise KeyProblem(f"{cfg.display_path(path)}: {exc.reason}; acap does not use it",
                         "point signing.keyFile at the key file itself, inside the project "
                         "folder") from exc


def _writable(cfg: OperatorConfig, *paths: Path) -> None:
    """Refuse before anything changes when a file about to be written would be written
    through a symbolic link (or over a FIFO, a device ...).

    Raises:
        FileRefused: one would be (``FILE-WRITE`` for the command).
    """
    for path in paths:
        write_check(path, cfg.root_of(path))


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
        FileRefused: a file it would write (the previous keys, the key file, the old
            key's new name, operator.yaml) is a symbolic link or lies under one;
            nothing was changed.
    """
    if cfg.key_from_env:
        raise KeyProblem(f"the signing key comes from {KEY_ENV}, so acap cannot rotate it",
                         f"make a new key (`acap keys new --out FILE`), put it in {KEY_ENV} "
                         "and add the old public key to signing.previousKeys")
    path = cfg.key_file
    text = _key_text(cfg, path)
    if text is None:
        raise KeyProblem(f"no key file at {cfg.display_path(path)} to rotate",
                         "run `acap keys new` first")
    pinned = cfg.signing.get("kid")
    old = load_signing_key(text, kid=pinned, alg_hint=cfg.signing.get("algorithm"))
    seen = published_keys(cfg, site_dir or cfg.base_dir / "site").get(old.kid)
    if seen and not same_public_key(seen[0], old.public_jwk()):
        raise KeyProblem(f"{cfg.display_path(path)} holds another key than the one published under "
                         f"kid {old.kid} ({seen[1]}); rotating would drop the published one",
                         "if the published key is lost, run `acap keys rotate --lost`")
    previous = previous_keys(cfg)
    new_alg = alg or old.alg
    private = generate_private_key(new_alg if new_alg in ("EdDSA", "RS256", "PS256") else "ES256")
    if new_kid and not pinned:
        raise KeyProblem("operator.yaml names no signing.kid, so keys are named by their "
                         "fingerprint",
                         "add signing.kid to operator.yaml first, or rotate without --kid")
    if pinned:
        kid = new_kid or next_kid(pinned)
        if kid is None:
            raise KeyProblem(f"cannot derive a new kid from '{pinned}' (it does not end in a "
                             "number)", "run `acap keys rotate --kid NEW-KID`")
    else:
        kid = thumbprint(public_jwk(private.public_key()))
    retired = retired_kids(cfg)
    if kid == old.kid or any(k.get("kid") == kid for k in previous) or kid in retired \
            or kid in published_keys(cfg, site_dir or cfg.base_dir / "site"):
        raise KeyProblem(f"kid '{kid}' is already used" + (" (retired)" if kid in retired
                                                           else ""),
                         "choose another with --kid: a kid names one key for good")
    new_text = replaced_scalar(cfg, "/signing/kid", kid) if pinned else None
    root = cfg.root_of(path)
    kept = _unused(path, root)
    _writable(cfg, cfg.previous_keys_file, path, kept, *([cfg.path] if new_text else []))

    previous.append(old.public_jwk())
    write_previous_keys(cfg, previous, retired)
    rename_file(path, kept, root)
    write_private_key(path, private, new_alg, root)
    if new_text is not None:
        write_file(cfg.path, cfg.root, new_text.encode("utf-8"))
    return old.kid, kid, kept


def rotate_lost(cfg: OperatorConfig, site_dir: Path | None = None,
                new_kid: str | None = None, old_kid: str | None = None,
                jwks: str | None = None) -> tuple[str, str, Path | None]:
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
        jwks: where the lost key's public key was published, when this computer's site/
            does not hold it (a second computer, a fresh clone): a JWKS file, or the
            https address of the live JWKS (:func:`published_jwk`). It stands for what
            site/ says of that kid.

    Returns:
        ``(old kid, new kid, path of the key file written or None)``; with another
        ``old_kid``, ``(old_kid, the current key's kid or "" when there is none, None)``.

    Raises:
        KeyProblem: no ``signing.kid``; no key was published under it; the key in
            use is the published one (not lost: use :func:`rotate`); the new kid is
            taken or retired; or ``signing.kid`` cannot be rewritten.
        FileRefused: a file it would write (the previous keys, the key file, the old
            key's new name, operator.yaml) is a symbolic link or lies under one;
            nothing was changed.
    """
    if old_kid is not None and old_kid != cfg.signing.get("kid"):
        return _keep_published(cfg, site_dir or cfg.base_dir / "site", old_kid, new_kid, jwks)
    old_kid = cfg.signing.get("kid")
    if not isinstance(old_kid, str) or not old_kid:
        raise KeyProblem("operator.yaml names no signing.kid, so a new key gets a kid of its "
                         "own (its fingerprint)", "add `kid: OLD-KID` under `signing:` (the kid "
                         "the lost key was published under), then run this again")
    site = site_dir or cfg.base_dir / "site"
    published = published_keys(cfg, site)
    if jwks is not None:
        published[old_kid] = (published_jwk(jwks, old_kid), jwks)
    if old_kid not in published:
        raise KeyProblem(f"no key was published under kid {old_kid} (looked in {site.name}/ "
                         f"and {cfg.display_path(cfg.previous_keys_file)})",
                         "there is nothing to keep: run `acap build`, or give --site-dir with "
                         "the last build")
    old_jwk = published[old_kid][0]
    alg = cfg.signing.get("algorithm")
    env = cfg.key_from_env
    current = None
    text = env.encode("utf-8") if env else _key_text(cfg, cfg.key_file)
    if text is not None:
        current = load_signing_key(text, kid=old_kid, alg_hint=alg)
    if current is not None and same_public_key(old_jwk, current.public_jwk()):
        raise KeyProblem(f"the key of kid {old_kid} is not lost: "
                         f"{KEY_ENV if env else cfg.display_path(cfg.key_file)} holds it",
                         "to replace a key you still have, run `acap keys rotate`")
    previous = previous_keys(cfg)
    retired = retired_kids(cfg)
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
    _writable(cfg, cfg.previous_keys_file, cfg.path, *([cfg.key_file] if private else []))

    if not any(k.get("kid") == old_kid for k in previous):
        previous.append({k: v for k, v in old_jwk.items() if k not in PRIVATE_MEMBERS})
        write_previous_keys(cfg, previous, retired)
    written = None
    if private is not None:
        write_private_key(cfg.key_file, private, new_alg, cfg.root_of(cfg.key_file))
        written = cfg.key_file
    write_file(cfg.path, cfg.root, new_text.encode("utf-8"))
    return old_kid, kid, written


def _current_key(cfg: OperatorConfig) -> SigningKey | None:
    """The current signing key (``ACAP_SIGNING_KEY``, else the key file), or ``None``
    when there is none or it cannot be read."""
    try:
        text = cfg.key_from_env.encode("utf-8") if cfg.key_from_env else \
            _key_text(cfg, cfg.key_file)
        if text is None:
            return None
        return load_signing_key(text, kid=cfg.signing.get("kid"),
                                alg_hint=cfg.signing.get("algorithm"))
    except (KeyProblem, OSError):
        return None


def published_jwk(source: str, kid: str) -> dict[str, Any]:
    """The public JWK of ``kid`` in the JWKS at ``source``: a file, or an https address
    fetched as any JWKS is (:func:`acap.load.fetch`: judged first, bounded in time and
    size). Private members are never taken.

    Raises:
        KeyProblem: it cannot be read, is not a JWKS, or holds no key of ``kid``.
    """
    from acap.load import fetch  # start-up: http.client only for a JWKS given by address

    try:
        if source.startswith(("https://", "http://")):
            resp = fetch(source)
            if resp.status != 200:
                raise KeyProblem(f"{source} answers HTTP {resp.status}",
                                 "give the JWKS as a file, or its right address")
            raw = resp.body
        else:
            raw = read_file(Path(source), given_root(source), KEY_FILE_LIMIT)
        keys = json.loads(raw).get("keys")
    except (OSError, FileRefused, FetchError, ValueError, AttributeError) as exc:
        raise KeyProblem(f"cannot read the JWKS {source}: {exc}",
                         "give the published JWKS: a file, or its https address") from None
    found = [k for k in keys if isinstance(k, dict) and k.get("kid") == kid] \
        if isinstance(keys, list) else []
    if not found:
        raise KeyProblem(f"the JWKS {source} holds no key with kid {kid}",
                         "give the JWKS that was published with it")
    return {k: v for k, v in found[0].items() if k not in PRIVATE_MEMBERS}


def _keep_published(cfg: OperatorConfig, site_dir: Path, old_kid: str,
                    new_kid: str | None, jwks: str | None = None) -> tuple[str, str, None]:
    """:func:`rotate_lost` for a kid other than ``signing.kid``: keep its published
    public key in the previous keys; nothing else changes."""
    if new_kid is not None:
        raise KeyProblem("--kid names the new kid of the current key; with --old-kid the "
                         "current key keeps its kid", "leave out --kid")
    prev = cfg.display_path(cfg.previous_keys_file)
    previous = previous_keys(cfg)
    retired = retired_kids(cfg)
    if old_kid in retired:
        raise KeyProblem(f"kid {old_kid} was retired ({prev})",
                         f"if retiring it was a mistake, remove it from \"retired\" in {prev} "
                         "first")
    if any(k.get("kid") == old_kid for k in previous):
        raise KeyProblem(f"the public key of {old_kid} is kept already in {prev}",
                         "nothing to do: run `acap build`")
    published = site_published_keys(cfg, site_dir)
    if jwks is not None:
        published[old_kid] = (published_jwk(jwks, old_kid), jwks)
    if old_kid not in published:
        raise KeyProblem(f"no key was published under kid {old_kid} (looked in "
                         f"{site_dir.name}/)", "give --site-dir with the last build, or "
                         "--jwks with the published JWKS")
    old_jwk = published[old_kid][0]
    current = _current_key(cfg)
    if current is not None and current.kid == old_kid:  # a key named by its thumbprint
        raise KeyProblem(f"the key of kid {old_kid} is not lost: it is the current key",
                         "to replace a key you still have, run `acap keys rotate`")
    previous.append({k: v for k, v in old_jwk.items() if k not in PRIVATE_MEMBERS})
    write_previous_keys(cfg, previous, retired)
    return old_kid, current.kid if current is not None else "", None


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


    try:  # bytes: keep CRLF line ends as they are
        text = read_file(cfg.path, cfg.root, MAX_BYTES).decode("utf-8")
    except (OSError, FileRefused, UnicodeDecodeError) as exc:
        raise KeyProblem(f"cannot read {cfg.path.name} again to rewrite {pointer}",
                         f"edit it by hand: set it to {value}") from exc
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
        FileRefused: a file it would write (the previous keys, the key file, the old
            key's new name, operator.yaml) is a symbolic link or lies under one;
            nothing was changed.
    """
    text = replaced_scalar(cfg, pointer, value)
    _writable(cfg, cfg.path)
    write_file(cfg.path, cfg.root, text.encode("utf-8"))


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
        FileRefused: a file it would write (the previous keys, the key file, the old
            key's new name, operator.yaml) is a symbolic link or lies under one;
            nothing was changed.
    """
    previous = previous_keys(cfg)
    retired = retired_kids(cfg)
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
    _writable(cfg, cfg.previous_keys_file)
    write_previous_keys(cfg, kept, [*retired, kid])
    return len(kept) != len(previous)
