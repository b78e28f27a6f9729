"""The command listing of `acap --help` and the commands it loads lazily agree."""

from __future__ import annotations

import subprocess
import sys

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
