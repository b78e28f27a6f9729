"""docs/agent-developers.md, as a developer follows it: the example agent started with the
one command the page gives (in a copy of examples/agent/, which builds its card on first
start), then the page's own `acap probe` command, which must pass."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import httpx

from support.agents import EXAMPLE_AGENT, free_port
from support.paths import REPO

DOC = REPO / "docs" / "agent-developers.md"


def _blocks() -> list[str]:
    return re.findall(r"```sh\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)


def test_the_page_gives_one_command_for_the_agent_and_one_for_the_probe() -> None:
    blocks = _blocks()
    assert any(b.startswith("python examples/agent/agent.py") for b in blocks)
    assert any(b.startswith("acap probe https://example.com") for b in blocks)
    # acap is not on PyPI: the page installs from acap's own repository, never by name
    assert blocks[0].strip() == "python3 -m venv .venv && .venv/bin/pip install '.[agent]'"


def test_the_example_agent_started_as_the_page_says_passes_the_pages_probe(
        tmp_path: Path) -> None:
    copy = tmp_path / "examples" / "agent"
    shutil.copytree(EXAMPLE_AGENT, copy, ignore=shutil.ignore_patterns("site", ".acap",
                                                                       "__pycache__"))
    port = free_port()
    start = next(b for b in _blocks() if b.startswith("python examples/agent/agent.py"))
    argv = [*shlex.split(start.split("#")[0]), str(port)]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env.pop("ACAP_SIGNING_KEY", None)
    agent = subprocess.Popen([sys.executable, *argv[1:]], cwd=tmp_path, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        for _ in range(300):
            try:
                httpx.get(f"http://127.0.0.1:{port}/.well-known/agent-card.json", timeout=0.5)
                break
            except httpx.HTTPError:
                assert agent.poll() is None, agent.stdout.read() if agent.stdout else ""
                time.sleep(0.1)
        assert (copy / ".acap" / "operator.agent-policy.json").is_file()  # built on start
        probe = next(b for b in _blocks() if b.startswith("acap probe https://example.com"))
        args = shlex.split(probe.replace("\\\n", " ").replace(":8000", f":{port}"))
        assert args[:2] == ["acap", "probe"]
        acap = Path(sys.executable).with_name("acap")
        done = subprocess.run([str(acap), *args[1:]], capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr
        assert done.stdout.splitlines()[-1].startswith(
            "the agent keeps its card's promises as far as the probe can judge")
        assert "6 cases judged" in done.stdout
    finally:
        agent.terminate()
        agent.wait(10)
