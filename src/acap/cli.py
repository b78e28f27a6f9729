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
    acap init      start a new operator project
    acap build     operator.yaml -> site/ (card, JWKS, pages)
    acap serve     preview site/ on localhost
    acap publish   site/ -> GitHub Pages branch or a folder, checked first
    acap verify    check a card's signatures
    """


from .commands.build import build  # noqa: E402
from .commands.init import init  # noqa: E402
from .commands.keys import keys  # noqa: E402
from .commands.live_check import live_check  # noqa: E402
from .commands.publish import publish  # noqa: E402
from .commands.serve import serve  # noqa: E402
from .commands.verify import verify  # noqa: E402

for _command in (build, verify, keys):
    cli.add_command(_command)
cli.add_command(publish)
cli.add_command(serve)
cli.add_command(live_check)
cli.add_command(init)


def main() -> None:
    """Console-script entry point."""
    cli(prog_name="acap")


if __name__ == "__main__":  # pragma: no cover
    main()
