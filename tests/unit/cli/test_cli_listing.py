"""The command listing of `acap --help` and the commands it loads lazily agree."""

from __future__ import annotations

import subprocess
import sys

import click
import pytest
from click.testing import CliRunner

from acap.cli import cli
from acap.cli._group import COMMANDS


def test_every_listed_command_loads_and_has_its_own_help() -> None:
    runner = CliRunner()
    for name, (_module, _attr, summary) in COMMANDS.items():
        res = runner.invoke(cli, [name, "--help"], prog_name="acap")
        assert res.exit_code == 0, (name, res.output)
        assert f"acap {name}" in res.output
        if summary:
            assert name in runner.invoke(cli, ["--help"]).output


def test_help_imports_no_command_module_and_no_heavy_library() -> None:
    code = ("import sys\nfrom acap.cli._group import main\ntry:\n    main(['--help'])\n"
            "except SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m.startswith('acap.cli._commands.') or "
            "m.split('.')[0] in ('yaml', 'jinja2', 'cryptography', 'jsonschema', "
            "'jsonschema_rs', 'phonenumbers', 'mkdocs')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip().splitlines()[-1]
    assert out == "[]"


def _every_command() -> list[tuple[str, click.Command]]:
    """Every command and subcommand: ``("keys rotate", command)``."""
    ctx = click.Context(cli)
    out: list[tuple[str, click.Command]] = []

    def walk(name: str, cmd: click.Command) -> None:
        out.append((name, cmd))
        if isinstance(cmd, click.Group):
            for sub in cmd.list_commands(ctx):
                found = cmd.get_command(ctx, sub)
                assert found is not None, sub
                walk(f"{name} {sub}", found)

    for name in COMMANDS:
        found = cli.get_command(ctx, name)
        assert found is not None, name
        walk(name, found)
    return out


def test_every_option_of_every_command_says_what_it_does() -> None:
    commands = _every_command()
    assert len(commands) > len(COMMANDS)  # the keys subcommands are in
    missing = [(name, p.opts) for name, cmd in commands for p in cmd.params
               if isinstance(p, click.Option) and not p.hidden and not (p.help or "").strip()]
    assert missing == []
    for name, cmd in commands:
        assert (cmd.help or "").strip(), name


@pytest.mark.parametrize(("typed", "meant"), [("biuld", "build"), ("publsh", "publish"),
                                              ("chek", "check"), ("word", "words")])
def test_a_mistyped_command_gets_a_did_you_mean(typed: str, meant: str) -> None:
    res = CliRunner().invoke(cli, [typed])
    assert res.exit_code == 2
    assert res.output.splitlines()[-1] == (f"Error: No such command '{typed}'. "
                                           f"Did you mean '{meant}'?")


def test_a_command_nothing_like_any_gets_no_suggestion() -> None:
    res = CliRunner().invoke(cli, ["xyzzy"])
    assert res.exit_code == 2
    assert res.output.splitlines()[-1] == "Error: No such command 'xyzzy'."
