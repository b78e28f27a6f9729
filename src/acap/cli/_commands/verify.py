"""``acap verify``: check every signature of a card."""

from __future__ import annotations

import sys

import click

from acap.card import verify_card
from acap.cli._commands._common import FORMATS, reporter


@click.command()
@click.argument("card")
@click.option("--jwks", default=None, help="JWKS file or URL [default: the signature's jku].")
@click.option("--format", "fmt", type=FORMATS, default="text", show_default=True,
              help="How to print the result: text for a person, json for a program.")
def verify(card: str, jwks: str | None, fmt: str) -> None:
    """Check every signature of CARD (a path or an https URL)."""

    res = verify_card(card, jwks)
    reporter(fmt).verification(res)
    sys.exit(0 if res.ok else 1)
