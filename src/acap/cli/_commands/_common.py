"""What the command modules share: the ``--format`` option and its reporters, ``-c``, and
reading a card or an operator file from standard input (``-``)."""

from __future__ import annotations

from pathlib import Path

import click

from acap.cli._formats import REPORTERS
from acap.cli._reporters import Reporter

FORMATS = click.Choice(list(REPORTERS))
#: ``--format``'s help, for every command that reports findings.
FORMAT_HELP = ("How to print the findings: text for a person; json (one document, the same "
               "shape for every command); sarif (SARIF 2.1.0, for code scanning); github "
               "(GitHub Actions annotations).")
#: ``--format``: how a command that reports findings prints them.
format_option = click.option("--format", "fmt", type=FORMATS, default="text", show_default=True,
                             help=FORMAT_HELP)
CONFIG_HELP = "The operator file."

#: ``-c/--config``: the operator file, ``operator.yaml`` here by default.
config_option = click.option("-c", "--config", type=click.Path(path_type=Path),
                             default=Path("operator.yaml"), show_default=True, help=CONFIG_HELP)


def reporter(fmt: str, strict: bool = False) -> Reporter:
    """The reporter of ``--format fmt`` (:data:`acap.cli._formats.REPORTERS`); ``strict``:
    warnings fail too (``--strict``), and the verdicts it reports say so."""
    return REPORTERS[fmt](strict=strict)


#: ``--allow-private``: URLs may lead to private, loopback and link-local addresses. Off by
#: default: ``acap check URL`` and ``acap verify URL`` run on addresses anyone submits, and
#: must not reach the machine's own services or its network (tests and previews of
#: ``acap serve`` turn it on).
ALLOW_PRIVATE = click.option(
    "--allow-private", is_flag=True,
    help="Also fetch private, loopback and link-local addresses (a local test server, a "
         "preview of acap serve); refused by default.")
