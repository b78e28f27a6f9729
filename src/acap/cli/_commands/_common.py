"""What the command modules share: the ``--format`` option and its reporters."""

from __future__ import annotations

from pathlib import Path

import click

from acap.cli._reporters import REPORTERS, Reporter

FORMATS = click.Choice(sorted(REPORTERS))
CONFIG_HELP = "The operator file."

#: ``-c/--config``: the operator file, ``operator.yaml`` here by default.
config_option = click.option("-c", "--config", type=click.Path(path_type=Path),
                             default=Path("operator.yaml"), show_default=True, help=CONFIG_HELP)


def reporter(fmt: str) -> Reporter:
    """The reporter of ``--format fmt`` (:data:`acap.cli._reporters.REPORTERS`)."""
    return REPORTERS[fmt]()
