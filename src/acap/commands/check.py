"""``acap check CARD``: check any Agent Card (a file or an https URL) against A2A 1.0 and
the On Request extension.

Exit status: 0 no errors (warnings allowed), 1 errors (or warnings with
``--strict``), 2 wrong usage (click's own).
"""

from __future__ import annotations

import sys

import click

from ._common import FORMATS


@click.command()
@click.argument("card")
@click.option("--url", default=None, metavar="URL",
              help="The URL the card is (or will be) served at, for a card file "
                   "[default: a URL given as CARD, or the file's place in site/].")
@click.option("--strict", is_flag=True, help="Warnings fail the check too.")
@click.option("--format", "fmt", type=FORMATS, default="text", show_default=True,
              help="How to print findings.")
@click.option("--timeout", type=click.FloatRange(min=0.1), default=10.0, show_default=True,
              help="Seconds to wait for a card URL.")
def check(card: str, url: str | None, strict: bool, fmt: str, timeout: float) -> None:
    """Check CARD (a path or an https URL) and report every finding.

    Checks that need operator.yaml (the values given on request, the safeguards of
    an action) are listed as notes; signatures are checked by `acap verify`.
    """
    from ..card_check import check_card_source

    result = check_card_source(card, url=url, timeout=timeout)
    if fmt == "json":
        click.echo(result.format_json())
    else:
        click.echo(result.format_text())
    sys.exit(0 if result.ok(strict) else 1)
