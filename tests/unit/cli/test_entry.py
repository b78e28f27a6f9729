"""The console script's way out (acap._entry): the exit code, every line of output and
the atexit handlers survive ending the process without the interpreter's teardown."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from support.paths import REPO


def run(args: list[str], cwd: Path, prelude: str = "") -> subprocess.CompletedProcess[str]:
    code = (f"import sys\n{prelude}\nsys.argv = ['acap', *{args!r}]\n"
            "from acap._entry import main\nmain()\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}  # as users run it
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True,
                          text=True, timeout=120, env=env)


def test_exit_codes_are_click_s(tmp_path: Path) -> None:
    version = run(["--version"], tmp_path)
    assert version.returncode == 0
    assert version.stdout.startswith("acap, version ")  # stdout to a pipe is block-buffered
    missing = run(["check", "missing.json"], tmp_path)
    assert missing.returncode == 1
    assert "missing.json: error: cannot read the card" in missing.stdout + missing.stderr
    usage = run(["no-such-command"], tmp_path)
    assert usage.returncode == 2
    assert "No such command 'no-such-command'" in usage.stderr


def test_every_line_reaches_a_pipe(tmp_path: Path) -> None:
    """A long report written to a pipe arrives whole: the output is flushed first."""
    shutil.copyfile(REPO / "operator.yaml", tmp_path / "operator.yaml")
    text = (tmp_path / "operator.yaml").read_text(encoding="utf-8")
    bad = text.replace("  streaming: false\n", "  streaming: maybe\n")
    (tmp_path / "operator.yaml").write_text(bad + "\n".join(
        f"extra{i}: {i}" for i in range(300)) + "\n", encoding="utf-8")
    res = run(["build", "--no-spec-site"], tmp_path)
    assert res.returncode == 1
    assert (res.stderr + res.stdout).count("[SCHEMA-UNKNOWN-KEY]") == 300
    assert "'streaming' must be true or false" in res.stderr + res.stdout
    assert not (tmp_path / "site").exists()


def test_atexit_handlers_still_run(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    prelude = (f"import atexit, pathlib\n"
               f"atexit.register(pathlib.Path({str(marker)!r}).write_text, 'yes')")
    res = run(["--version"], tmp_path, prelude)
    assert res.returncode == 0
    assert marker.read_text() == "yes"


def test_output_nobody_flushed_is_flushed(tmp_path: Path) -> None:
    """Text left in stdout's buffer (a pipe's is not flushed per line) still arrives."""
    res = run(["no-such-command"], tmp_path, "print('printed, not flushed', end='')")
    assert res.returncode == 2
    assert res.stdout == "printed, not flushed"


def test_a_build_s_files_are_complete(tmp_path: Path) -> None:
    shutil.copyfile(REPO / "operator.yaml", tmp_path / "operator.yaml")
    res = run(["build", "--no-spec-site"], tmp_path)
    assert res.returncode == 0, res.stderr
    card = tmp_path / "site" / "example.com" / ".well-known" / "agent-card.json"
    assert card.read_bytes().endswith(b"}\n")
    assert "signatures" in card.read_text(encoding="utf-8")
