"""``acap verify``: check every signature of a card."""

from __future__ import annotations

import sys

import click

from acap.cli._commands._common import FORMATS, emit_report


@click.command()
@click.argument("card")
@click.option("--jwks", default=None, help="JWKS file or URL [default: the signature's jku].")
@click.option("--format", "fmt", type=FORMATS, default="text", show_default=True)
def verify(card: str, jwks: str | None, fmt: str) -> None:
    """Check every signature of CARD (a path or an https URL)."""
    import json

    from acap.card import verify_card

    res = verify_card(card, jwks)
    if fmt == "json":
        click.echo(json.dumps({
            "card": res.source, "ok": res.ok, "jwks": res.jwks_source,
            "signatures": [s.__dict__ for s in res.signatures],
            "findings": [f.to_json() for f in res.report.sorted()],
        }, indent=2, ensure_ascii=False))
    else:
        from acap.findings import terminal_safe as safe  # kid, alg, reason quote the card

        for s in res.signatures:
            click.echo(f"signature {s.index}: kid {safe(s.kid or '-')}, alg {safe(s.alg or '-')}: "
                       f"{s.state}" + ("" if s.reason == "valid" else f" ({safe(s.reason)})"))
        if res.jwks_source and any(s.checked for s in res.signatures):
            click.echo(f"keys from {safe(res.jwks_source)}")
        emit_report(res.report, fmt)
        unchecked = bool(res.signatures) and all(not s.checked for s in res.signatures)
        wrong = [str(s.index) for s in res.signatures if s.checked and not s.valid]
        if res.ok:
            click.echo("verified")
        elif unchecked:
            click.echo("NOT verified: the signatures could not be checked (keys unavailable)")
        elif wrong and any(s.valid for s in res.signatures):
            click.echo(f"NOT verified: signature {', '.join(wrong)} does not match the card, "
                       "though another does")
        else:
            click.echo("NOT verified")
    sys.exit(0 if res.ok else 1)
