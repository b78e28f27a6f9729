"""``acap verify``: check every signature of a card."""

from __future__ import annotations

import sys

import click

from acap.card import verify_card
from acap.cli._commands._common import ALLOW_PRIVATE, format_option, reporter


@click.command()
@click.argument("card")
@click.option("--jwks", default=None, help="JWKS file or URL [default: the signature's jku].")
@format_option
@click.option("--timeout", type=click.FloatRange(min=0.1), default=10.0, show_default=True,
              help="Seconds for each whole fetch (the card, the JWKS).")
@click.option("--connect-to", multiple=True, metavar="HOST=URL",
              help="Fetch HOST's URLs (the card, its jku) from URL instead, with Host: HOST "
                   "(e.g. example.com=http://127.0.0.1:8000 to verify what acap serve "
                   "previews, or a server before its DNS points there).")
@ALLOW_PRIVATE
def verify(card: str, jwks: str | None, fmt: str, timeout: float, connect_to: tuple[str, ...],
           allow_private: bool) -> None:
    """Check every signature of CARD (a path or an https URL)."""

    routes: dict[str, str] = {}
    if connect_to:
        # start-up: the live check's module (and the publisher) only when routes are given
        from acap.cli._commands.live_check import pairs

        routes = pairs(connect_to)
    res = verify_card(card, jwks, allow_private=allow_private, timeout=timeout,
                      connect_to=routes)
    reporter(fmt).verification(res)
    sys.exit(0 if res.ok else 1)
