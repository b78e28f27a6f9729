"""The ``acap`` command. Thin on purpose: parse options, call the library, print.

Exit status: 0 success (warnings allowed unless ``--strict``), 1 findings with
errors (or a failed verification), 2 usage errors. Each command lives in its
own module under :mod:`acap.cli._commands`, imported only when that command runs
(``acap --help`` lists them from the one-line summaries below), and heavy
libraries are imported inside each command, so ``acap --help`` starts fast.
"""

from __future__ import annotations

import importlib
from typing import Any

import click

from acap._package import __version__

#: Command name -> (module under acap.cli._commands, attribute, one-line help for the listing).
COMMANDS: dict[str, tuple[str, str, str]] = {
    "init": ("init", "init", "Start an operator project in FOLDER (default: here)."),
    "build": ("build", "build", "Build site/ from operator.yaml: signed card, JWKS, pages."),
    "check": ("check", "check", "Check cards (path or https URL) or operator files against "
                                "A2A 1.0 and On Request."),
    "verify": ("verify", "verify", "Check every signature of CARD (a path or an https URL)."),
    "check-reply": ("check_reply", "check_reply", "Check an agent's reply against §5-§6 of "
                                                  "the extension."),
    "words": ("words", "words", "Write acap's page words for a language, to translate or "
                                "reword."),
    "probe": ("probe", "probe", "Check that a live agent keeps its card's On Request "
                                "promises."),
    "keys": ("keys", "keys", "Make, rotate and retire signing keys (never printed)."),
    "serve": ("serve", "serve", "Preview site/ on localhost; rebuild when operator.yaml "
                                "changes."),
    "publish": ("publish", "publish", "Check site/, then put each host folder on its "
                                      "hosting."),
    "live-check": ("live_check", "live_check", ""),  # hidden alias of `check URL --live`
}


class LazyGroup(click.Group):
    """A click group that imports a command's module only when the command is used."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [name for name, (_, _, summary) in COMMANDS.items() if summary]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        entry = COMMANDS.get(cmd_name)
        if entry is None:
            return None
        module = importlib.import_module(f"acap.cli._commands.{entry[0]}")
        command: click.Command = getattr(module, entry[1])
        return command

    def resolve_command(self, ctx: click.Context, args: list[str]
                        ) -> tuple[str | None, click.Command | None, list[str]]:
        """click's lookup, with a did-you-mean over acap's commands (``acap biuld`` ->
        ``Did you mean 'build'?``): click draws its suggestions from ``self.commands``,
        which a lazy group leaves empty."""
        try:
            return super().resolve_command(ctx, args)
        except click.exceptions.NoSuchCommand as exc:
            raise click.exceptions.NoSuchCommand(
                exc.command_name, possibilities=self.list_commands(ctx), ctx=ctx) from None

    def invoke(self, ctx: click.Context) -> Any:
        """Run the command; Ctrl-C ends it with status 130 (128 + SIGINT, what shells
        report) and says what was kept, instead of click's "Aborted!" and status 1,
        which is also the status of a build with errors."""
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt as exc:
            click.echo("\ninterrupted: stopped before it was done. acap build and acap publish "
                       "leave site/ and what was published as they were, unless they had "
                       "already finished replacing them.", err=True)
            # 128 + the signal, as shells report it: SIGINT, or the SIGTERM or SIGHUP a
            # publish turns into an interruption (acap.publisher._signals.Terminated)
            ctx.exit(128 + getattr(exc, "signum", 2))

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, summary) for name, (_, _, summary) in COMMANDS.items() if summary]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="acap")
def cli() -> None:
    """Build, sign and publish an A2A Agent Card with the On Request extension.

    \b
    Start:   acap init, edit operator.yaml, acap build, acap serve
    Publish: acap publish (a folder, SFTP, a GitHub Pages branch)
    Check:   acap check CARD, acap verify CARD
    """


def main(args: Any = None) -> None:
    """Run the ``acap`` command (the console script goes through :mod:`acap._entry`,
    which also turns the cyclic garbage collector off for the command's short life)."""
    cli(args=args, prog_name="acap")


if __name__ == "__main__":  # pragma: no cover
    main()
