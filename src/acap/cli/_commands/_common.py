"""What the command modules share: the ``--format`` option and its reporters."""

from __future__ import annotations

import click

from acap.cli._reporters import REPORTERS, Reporter

FORMATS = click.Choice(sorted(REPORTERS))
CONFIG_HELP = "The operator file."


def reporter(fmt: str) -> Reporter:
    """The reporter of ``--format fmt`` (:data:`acap.cli._reporters.REPORTERS`)."""
    return REPORTERS[fmt]()
