"""The ``acap`` command. Thin on purpose: parse options, call the library, print.

Exit status: 0 success (warnings allowed unless ``--strict``), 1 findings with
errors (or a failed verification), 2 usage errors. Heavy libraries are
imported inside each command, so ``acap --help`` starts fast.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from . import __version__

FORMATS = click.Choice(["text", "json"])


def _emit_report(report: Any, fmt: str) -> None:
    if fmt == "json":
        click.echo(report.format_json())
    elif len(report):
        click.echo(report.format_text(), err=True)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="acap")
def cli() -> None:
    """Build, sign and publish an A2A Agent Card with the On Request extension.

    \b
    acap build     operator.yaml -> site/ (card, JWKS, pages)
    acap verify    check a card's signatures
    """


@cli.command()
@click.option("-c", "--config", type=click.Path(path_type=Path), default=Path("operator.yaml"),
              show_default=True, help="The operator file.")
@click.option("--site-dir", type=click.Path(path_type=Path), default=None,
              help="Output folder [default: site/ beside the operator file].")
@click.option("--spec-site/--no-spec-site", default=None,
              help="Build the specification site too [default: as operator.yaml says].")
@click.option("--strict", is_flag=True, help="Warnings fail the build too.")
@click.option("--format", "fmt", type=FORMATS, default="text", show_default=True,
              help="How to print findings.")
def build(config: Path, site_dir: Path | None, spec_site: bool | None, strict: bool,
          fmt: str) -> None:
    """Build site/ from operator.yaml: signed card, JWKS, pages, hosting files."""
    from .build import BuildOptions
    from .build import build as run_build

    opts = BuildOptions(config=config, site_dir=site_dir, spec_site=spec_site)
    if strict:
        opts.write = False
    result = run_build(opts)
    for note in result.notices:
        click.echo(f"note: {note}", err=True)
    _emit_report(result.report, fmt)
    if strict and result.report.ok() and not result.report.ok(strict=True):
        click.echo("not written: warnings fail the build with --strict", err=True)
        sys.exit(1)
    if strict and result.report.ok():
        opts.write = True
        result = run_build(opts)
    if not result.report.ok():
        click.echo(f"not built: {config} has errors; site/ was left as it was", err=True)
        sys.exit(1)
    if fmt == "text":
        hosts = ", ".join(result.files.hosts())
        click.echo(f"built {result.site_dir}/ ({len(result.files)} files: {hosts})")
        if result.card is not None:
            from .operator_config import load_operator

            click.echo(f"card: {load_operator(config).card_url}")


@cli.command()
@click.argument("card")
@click.option("--jwks", default=None, help="JWKS file or URL [default: the signature's jku].")
@click.option("--format", "fmt", type=FORMATS, default="text", show_default=True)
def verify(card: str, jwks: str | None, fmt: str) -> None:
    """Check every signature of CARD (a path or an https URL)."""
    import json

    from .verify import verify_file

    res = verify_file(card, jwks)
    if fmt == "json":
        click.echo(json.dumps({
            "card": res.source, "ok": res.ok, "jwks": res.jwks_source,
            "signatures": [s.__dict__ for s in res.signatures],
            "findings": [f.to_json() for f in res.report.sorted()],
        }, indent=2, ensure_ascii=False))
    else:
        for s in res.signatures:
            state = "valid" if s.valid else "INVALID"
            click.echo(f"signature {s.index}: kid {s.kid or '-'}, alg {s.alg or '-'}: {state}"
                       + ("" if s.reason == "valid" else f" ({s.reason})"))
        if res.jwks_source:
            click.echo(f"keys from {res.jwks_source}")
        _emit_report(res.report, fmt)
        click.echo("verified" if res.ok else "NOT verified")
    sys.exit(0 if res.ok else 1)


@cli.group()
def keys() -> None:
    """Make, rotate and retire signing keys (never printed)."""


def _cfg(config: Path) -> Any:
    from .operator_config import load_operator

    cfg = load_operator(config)
    errors = [f for f in cfg.findings if f.level == "error"]
    if errors:
        for f in errors:
            click.echo(f.format_text(), err=True)
        sys.exit(1)
    return cfg


@keys.command("new")
@click.option("-c", "--config", type=click.Path(path_type=Path), default=Path("operator.yaml"),
              show_default=True)
@click.option("--out", type=click.Path(path_type=Path), default=None,
              help="Key file to write [default: signing.keyFile of operator.yaml].")
@click.option("--alg", type=click.Choice(["ES256", "EdDSA", "RS256", "PS256"]), default=None,
              help="Algorithm [default: signing.algorithm, else ES256].")
def keys_new(config: Path, out: Path | None, alg: str | None) -> None:
    """Write a new private key file (mode 0600). Never overwrites one."""
    from .keys import KeyProblem
    from .keystore import new_key_file

    if out is None:
        cfg = _cfg(config)
        out = cfg.key_file
        alg = alg or cfg.signing.get("algorithm")
    try:
        tp = new_key_file(out, alg or "ES256")
    except FileExistsError:
        click.echo(f"error: {out} exists; acap never overwrites a key "
                   "(use `acap keys rotate` to replace it)", err=True)
        sys.exit(1)
    except KeyProblem as exc:
        click.echo(f"error: {exc}\n    hint: {exc.hint}", err=True)
        sys.exit(1)
    click.echo(f"wrote {out} ({alg or 'ES256'}, thumbprint {tp}); keep it out of git")


@keys.command("rotate")
@click.option("-c", "--config", type=click.Path(path_type=Path), default=Path("operator.yaml"),
              show_default=True)
@click.option("--kid", default=None, help="kid of the new key [default: the next number].")
def keys_rotate(config: Path, kid: str | None) -> None:
    """Make a new current key; keep the old public key in the JWKS."""
    from .keys import KeyProblem
    from .keystore import rotate

    cfg = _cfg(config)
    try:
        old, new = rotate(cfg, kid)
    except KeyProblem as exc:
        click.echo(f"error: {exc}\n    hint: {exc.hint}", err=True)
        sys.exit(1)
    click.echo(f"rotated: {old} -> {new}. {old} stays in the JWKS until "
               f"`acap keys retire {old}`. Run `acap build` and `acap publish` now.")


@keys.command("retire")
@click.argument("kid")
@click.option("-c", "--config", type=click.Path(path_type=Path), default=Path("operator.yaml"),
              show_default=True)
def keys_retire(kid: str, config: Path) -> None:
    """Remove a previous key KID from the JWKS."""
    from .keys import KeyProblem
    from .keystore import retire

    cfg = _cfg(config)
    try:
        retire(cfg, kid)
    except KeyProblem as exc:
        click.echo(f"error: {exc}\n    hint: {exc.hint}", err=True)
        sys.exit(1)
    click.echo(f"retired {kid}: it leaves the JWKS at the next build")


@keys.command("list")
@click.option("-c", "--config", type=click.Path(path_type=Path), default=Path("operator.yaml"),
              show_default=True)
def keys_list(config: Path) -> None:
    """Show the current key and previous keys (public facts only)."""
    from .keys import read_jwks, thumbprint
    from .keystore import describe_key, resolve_signing_key

    cfg = _cfg(config)
    res = resolve_signing_key(cfg, cfg.base_dir / "site", create=False)
    for f in res.findings:
        click.echo(f.format_text(), err=True)
    if res.key:
        click.echo(f"current:  {describe_key(res.key)}")
    for k in read_jwks(cfg.previous_keys_file):
        click.echo(f"previous: kid {k.get('kid')}, {k.get('alg', '?')}, "
                   f"RFC 7638 thumbprint {thumbprint(k)}")


def main() -> None:
    """Console-script entry point."""
    cli(prog_name="acap")


if __name__ == "__main__":  # pragma: no cover
    main()
