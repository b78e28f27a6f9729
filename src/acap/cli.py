"""The ``acap`` command. Thin on purpose: parse options, call the library, print.

Exit status: 0 success (warnings allowed unless ``--strict``), 1 findings with
errors (or a failed verification), 2 usage errors. Heavy libraries are
imported inside each command, so ``acap --help`` starts fast.
"""

from __future__ import annotations

import click

from . import __version__


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="acap")
def cli() -> None:
    """Build, sign and publish an A2A Agent Card with the On Request extension.

    \b
    acap init      start a project (operator.yaml to fill in)
    acap build     operator.yaml -> site/ (card, JWKS, pages)
    acap publish   put site/ on its hosting
    acap check     check any card against A2A 1.0 and On Request
    acap verify    check a card's signatures
    """


from .commands.build import build  # noqa: E402
from .commands.check import check  # noqa: E402
from .commands.check_reply import check_reply  # noqa: E402
from .commands.init import init  # noqa: E402
from .commands.keys import keys  # noqa: E402
from .commands.live_check import live_check  # noqa: E402
from .commands.publish import publish  # noqa: E402
from .commands.serve import serve  # noqa: E402
from .commands.verify import verify  # noqa: E402

for _command in (init, build, check, verify, check_reply, keys, serve, publish, live_check):
    cli.add_command(_command)


def main() -> None:
    """Console-script entry point."""
    cli(prog_name="acap")


if __name__ == "__main__":  # pragma: no cover
    main()
