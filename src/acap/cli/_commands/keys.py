"""``acap keys``: make, rotate, retire and list signing keys."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, NoReturn

import click

from acap.cli._commands._common import config_option
from acap.cli._reporters import finding_text
from acap.errors import FileRefused, KeyProblem
from acap.findings import Finding, Location
from acap.keys import describe_key, new_key_file, thumbprint


@click.group()
def keys() -> None:
    """Make, rotate and retire signing keys (never printed)."""


def _cfg(config: Path) -> Any:
    from acap.load import load_operator  # start-up: `acap keys new --out` reads no operator.yaml

    cfg = load_operator(config)
    errors = [f for f in cfg.findings if f.level == "error"]
    if errors:
        for f in errors:
            click.echo(finding_text(f), err=True)
        sys.exit(1)
    return cfg


def _refused(exc: FileRefused) -> NoReturn:
    """Say why a file was not written (``FILE-WRITE``) and exit 1: nothing changed."""
    hint = (f"{exc.link} is a symbolic link: acap writes no key file through one; put the "
            "file or folder itself there, or name another path" if exc.link else
            "name a regular file's place, inside its folder")
    click.echo(finding_text(Finding("FILE-WRITE", "error", f"{exc.reason}; nothing was "
                                    "written", Location(exc.path), hint)), err=True)
    sys.exit(1)


@keys.command("new")
@config_option
@click.option("--out", type=click.Path(path_type=Path), default=None,
              help="Key file to write [default: signing.keyFile of operator.yaml].")
@click.option("--alg", type=click.Choice(["ES256", "EdDSA", "RS256", "PS256"]), default=None,
              help="Algorithm [default: signing.algorithm, else ES256].")
def keys_new(config: Path, out: Path | None, alg: str | None) -> None:
    """Write a new private key file (mode 0600). Never overwrites one."""

    root = None
    if out is None:
        if not config.exists():
            click.echo(f"error: there is no {config} here to say where the key goes\n"
                       "    hint: run it in your project folder, or give the file: "
                       "acap keys new --out PATH", err=True)
            sys.exit(1)
        cfg = _cfg(config)
        out = cfg.key_file
        root = cfg.root_of(out)
        alg = alg or cfg.signing.get("algorithm")
    try:
        tp = new_key_file(out, alg or "ES256", root)
    except FileExistsError:
        what = ("is a symbolic link; acap writes no key through a link" if out.is_symlink()
                else "exists; acap never overwrites a key (use `acap keys rotate` to replace "
                "it)")
        click.echo(f"error: {out} {what}", err=True)
        sys.exit(1)
    except FileRefused as exc:
        _refused(exc)
    except KeyProblem as exc:
        click.echo(f"error: {exc}\n    hint: {exc.hint}", err=True)
        sys.exit(1)
    click.echo(f"wrote {out} ({alg or 'ES256'}, fingerprint {tp}); keep it out of git")


@keys.command("rotate")
@config_option
@click.option("--kid", default=None, metavar="KID",
              help="kid of the new key [default: signing.kid with its number increased "
                   "(chapel-1 -> chapel-2), else the new key's fingerprint].")
@click.option("--lost", is_flag=True,
              help="The current private key is lost: keep the public key the last build "
                   "published under signing.kid, and give the new key a new kid.")
@click.option("--old-kid", default=None, metavar="KID",
              help="With --lost: the kid of the lost key, when it is not signing.kid (a kid "
                   "the build warns has left the JWKS); only its public key is kept.")
@click.option("--jwks", default=None, metavar="FILE_OR_URL",
              help="With --lost: the published JWKS holding the lost key's public key, when "
                   "this computer's site/ does not (a second computer, a fresh clone).")
@click.option("--site-dir", type=click.Path(path_type=Path), default=None,
              help="The last build, whose JWKS holds the published keys "
                   "[default: site beside operator.yaml].")
def keys_rotate(config: Path, kid: str | None, lost: bool, old_kid: str | None,
                jwks: str | None, site_dir: Path | None) -> None:
    """Make a new current key; keep the old public key in the JWKS."""
    # start-up: rotation only for `acap keys rotate`
    from acap.keys import rotate, rotate_lost

    if (old_kid is not None or jwks is not None) and not lost:
        raise click.UsageError("--old-kid and --jwks go with --lost")
    cfg = _cfg(config)
    try:
        if lost:
            old, new, written = rotate_lost(cfg, site_dir, kid, old_kid, jwks)
        else:
            old, new, kept = rotate(cfg, kid, site_dir=site_dir)
    except FileRefused as exc:
        _refused(exc)
    except KeyProblem as exc:
        click.echo(f"error: {exc}\n    hint: {exc.hint}", err=True)
        sys.exit(1)
    if lost and old_kid is not None and old_kid != cfg.signing.get("kid"):
        click.echo(f"kept the published public key of {old} in "
                   f"{cfg.display_path(cfg.previous_keys_file)}, so cards signed with it still "
                   "verify; the current key" + (f" ({new})" if new else "") + " is unchanged. "
                   "Run `acap build` and `acap publish` now.")
        return
    if lost:
        signer = (f"a new key was written at {cfg.display_path(written)}" if written else
                  "the key in ACAP_SIGNING_KEY signs under it" if cfg.key_from_env else
                  f"the key in {cfg.display_path(cfg.key_file)} signs under it")
        click.echo(f"kept the published public key of {old} in "
                   f"{cfg.display_path(cfg.previous_keys_file)}, so cards signed with it still "
                   f"verify; signing.kid is now {new}, and {signer}. "
                   "Run `acap build` and `acap publish` now.")
        return
    click.echo(f"rotated: {old} -> {new}. {old} stays in the JWKS until "
               f"`acap keys retire {old}`. Run `acap build` and `acap publish` now.")
    click.echo(f"note: if CI builds with the secret ACAP_SIGNING_KEY, update it now with the "
               f"new key (the contents of {cfg.display_path(cfg.key_file)}): a build whose "
               f"secret still holds the key of {old} is refused, so that {new} never names "
               "two keys", err=True)
    click.echo(f"note: the old private key is now {cfg.display_path(kept)}: keep it out of git, "
               "and delete it once you are sure you will not need it", err=True)


@keys.command("retire")
@click.argument("kid")
@config_option
@click.option("--site-dir", type=click.Path(path_type=Path), default=None,
              help="The last build, whose JWKS and manifest say what was published "
                   "[default: site beside operator.yaml].")
def keys_retire(kid: str, config: Path, site_dir: Path | None) -> None:
    """Take KID out of the JWKS for good (a previous key, or a published kid that left it)."""
    # start-up: rotation only for `acap keys retire`
    from acap.keys import retire

    cfg = _cfg(config)
    try:
        removed = retire(cfg, kid, site_dir)
    except FileRefused as exc:
        _refused(exc)
    except KeyProblem as exc:
        click.echo(f"error: {exc}\n    hint: {exc.hint}", err=True)
        sys.exit(1)
    when = "it leaves the JWKS at the next build" if removed else "it has left the JWKS already"
    click.echo(f"retired {kid}: {when}; {cfg.display_path(cfg.previous_keys_file)} lists it as "
               "retired, so no key takes that kid again")


@keys.command("list")
@config_option
def keys_list(config: Path) -> None:
    """Show the current key and previous keys (public facts only)."""

    cfg = _cfg(config)
    from acap.keys import previous_keys, resolve_signing_key, retired_kids  # start-up: as _cfg

    res = resolve_signing_key(cfg, cfg.base_dir / "site", create=False)
    for f in res.findings:
        click.echo(finding_text(f), err=True)
    if res.key:
        click.echo(f"current:  {describe_key(res.key)}")
    for k in previous_keys(cfg):
        click.echo(f"previous: kid {k.get('kid')}, {k.get('alg', '?')}, "
                   f"fingerprint {thumbprint(k)}")

    for kid in retired_kids(cfg):
        click.echo(f"retired:  kid {kid} (not used again)")
