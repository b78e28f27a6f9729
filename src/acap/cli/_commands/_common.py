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


#: ``--allow-private``: URLs may lead to private, loopback and link-local addresses. Off by
#: default: ``acap check URL`` and ``acap verify URL`` run on addresses anyone submits, and
#: must not reach the machine's own services or its network (tests and previews of
#: ``acap serve`` turn it on).
ALLOW_PRIVATE = click.option(
    "--allow-private", is_flag=True,
    help="Also fetch private, loopback and link-local addresses (a local test server, a "
         "preview of acap serve); refused by default.")
