"""docs/agent-developers.md, as a developer follows it: the example agent started with the
one command the page gives (in a copy of examples/agent/, which builds its card on first
start), then the page's own `acap probe` command, which must pass."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import httpx

from support.agents import EXAMPLE_AGENT, build_example, example_module, free_port, serving
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


def _client_example() -> tuple[str, str, str]:
    """The page's a2a-sdk client: its code, the command that runs it and what it prints."""
    text = DOC.read_text(encoding="utf-8")
    start = text.index("### A client that asks an on-request skill")
    part = text[start:text.index("\n## ", start)]
    blocks = re.findall(r"^```(\w*)\n(.*?)^```$", part, re.S | re.M)
    [code], [run], [printed] = ([b for lang, b in blocks if lang == want]
                                for want in ("python", "sh", ""))
    return code, run.strip(), printed


def _run_client(tmp_path: Path, base: str) -> subprocess.CompletedProcess[str]:
    code, run, _ = _client_example()
    (tmp_path / "client.py").write_text(code, encoding="utf-8")
    argv = shlex.split(run.replace("http://127.0.0.1:8000", base))
    assert argv[:2] == ["python", "client.py"]
    return subprocess.run([sys.executable, *argv[1:]], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)


def test_the_pages_client_asks_the_example_agent_and_prints_what_the_page_shows(
        tmp_path: Path) -> None:
    """The client as the page gives it, run against the example agent on 127.0.0.1: it
    verifies the card, activates the extension and reads each on-request skill's §6.1
    object; its output is the page's, line for line."""
    (tmp_path / "agent").mkdir()
    config = build_example(tmp_path / "agent")
    with serving(example_module().app(config)) as base:
        done = _run_client(tmp_path, base)
    assert done.returncode == 0, done.stderr
    assert done.stdout == _client_example()[2]
    assert "service-pricing: message, extension active" in done.stdout
    assert "£" not in done.stdout


def test_the_pages_client_refuses_a_card_whose_signature_does_not_verify(
        tmp_path: Path) -> None:
    """The same agent behind a card changed after signing (one word of its description):
    the client stops before it asks anything."""
    from starlette.applications import Starlette
    from starlette.responses import Response
    from starlette.routing import Mount, Route

    (tmp_path / "agent").mkdir()
    config = build_example(tmp_path / "agent")
    served = config.parent / "site/example.com/.well-known/agent-card.json"
    card = json.loads(served.read_bytes())
    card["description"] += " Open on Sundays."
    changed = json.dumps(card).encode()

    async def changed_card(_request: object) -> Response:
        return Response(changed, media_type="application/json")

    app = Starlette(routes=[Route("/.well-known/agent-card.json", changed_card),
                            Mount("/", example_module().app(config))])
    with serving(app) as base:
        done = _run_client(tmp_path, base)
    assert done.returncode != 0
    assert "InvalidSignaturesError" in done.stderr
    assert done.stdout == ""
