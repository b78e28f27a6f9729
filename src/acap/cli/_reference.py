"""The command-line reference of the user guide, written from the click commands
themselves: each command's ``--help`` as acap prints it, so the guide cannot say
something the commands do not (docs/cli.md; the guide's MkDocs hook,
``scripts/guide_hooks.py``, puts it in at build time).
"""

from __future__ import annotations

import click

__all__ = ["cli_reference"]

#: The width the help is formatted to (what a terminal of 88 columns shows).
WIDTH = 88


def _help(command: click.Command, path: list[str], parent: click.Context | None) -> str:
    ctx = click.Context(command, info_name=path[-1], parent=parent, max_content_width=WIDTH,
                        terminal_width=WIDTH)
    return command.get_help(ctx).rstrip()


def _anchor(path: list[str]) -> str:
    return "-".join(path)


def _sections(group: click.Group, path: list[str], ctx: click.Context,
              level: int) -> list[str]:
    """The Markdown of every visible command of ``group``, depth first."""
    out: list[str] = []
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if command is None or command.hidden:
            continue
        here = [*path, name]
        out += [f"{'#' * level} {' '.join(here)} {{#{_anchor(here)}}}", "",
                command.get_short_help_str(limit=200), "", "```text",
                _help(command, here, ctx), "```", ""]
        if isinstance(command, click.Group):
            sub = click.Context(command, info_name=name, parent=ctx)
            out += _sections(command, here, sub, level + 1)
    return out


def cli_reference() -> str:
    """The reference of every ``acap`` command as Markdown: ``acap --help``, then for each
    command (and each subcommand of a group, such as ``acap keys rotate``) a heading
    anchored by its name (``#keys-rotate``), its one-line summary and its whole
    ``--help``; then how to turn on shell completion (click's, for bash, zsh and fish).

    Returns:
        Markdown text (headings from level 2).
    """
    from acap.cli._group import cli  # start-up: the commands only for the reference

    root = click.Context(cli, info_name="acap", max_content_width=WIDTH, terminal_width=WIDTH)
    out = ["## acap {#acap}", "", "```text", _help(cli, ["acap"], None), "```", ""]
    out += _sections(cli, ["acap"], root, 2)
    out += ["## Shell completion {#shell-completion}", "",
            "acap completes its commands, options and file names in bash (4.4 or later), "
            "zsh and fish. Add the line for your shell to its start-up file "
            "(`~/.bashrc`, `~/.zshrc`, `~/.config/fish/completions/acap.fish`), then open "
            "a new terminal:", "", "```sh",
            'eval "$(_ACAP_COMPLETE=bash_source acap)"     # bash, in ~/.bashrc',
            'eval "$(_ACAP_COMPLETE=zsh_source acap)"      # zsh, in ~/.zshrc',
            "_ACAP_COMPLETE=fish_source acap | source       # fish", "```", ""]
    return "\n".join(out)
