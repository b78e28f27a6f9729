"""README's two commands stay true: CI runs exactly the test command, and the first
command's build is what the bundled example gives."""

from __future__ import annotations

import re

from support.paths import REPO


def _blocks() -> list[str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    return re.findall(r"```sh\n(.*?)\n```", text, flags=re.S)


def test_the_two_commands_are_near_the_top() -> None:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    first, second = _blocks()[:2]
    assert "pip install . && .venv/bin/acap build" in first
    assert ".venv/bin/pytest" in second
    # the differential suite needs @a2a-js/sdk as the lock file pins it: a newcomer's run
    # of this one command installs it (a fresh clone has no tests/js/node_modules)
    assert "npm ci --prefix tests/js &&" in second
    assert text.index(second) < 1500


def test_ci_runs_exactly_the_readme_test_command() -> None:
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    second = _blocks()[1]
    assert second in ci, "the README's test command must be a line of .ci/run, unchanged"
    # and it is the last thing CI does, so its exit status is CI's
    assert [line for line in ci if line.strip() and not line.startswith("#")][-1] == second

