"""An On Request agent written on @a2a-js/sdk (tests/js/onrequest_agent.mjs, no acap code)
passes ``acap probe`` with no finding, over JSON-RPC, unary and streaming; each broken
variant fails with its rule id (issue 19, "Tests that must exist")."""

from __future__ import annotations

import contextlib
import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from acap.cli import cli
from support.agents import PRICE, build_example, connect_args, probe_json
from support.sdks import JS_DIR


@pytest.fixture(scope="module")
def config(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_example(tmp_path_factory.mktemp("js-agent"))


@contextlib.contextmanager
def js_agent(config: Path, breaks: str | None = None) -> Iterator[str]:
    """The JavaScript agent on 127.0.0.1, serving the card acap built; its base URL."""
    node = shutil.which("node")
    if node is None or not (JS_DIR / "node_modules" / "@a2a-js" / "sdk").is_dir():
        raise RuntimeError("node and tests/js/node_modules are needed: run "
                           "npm ci --prefix tests/js")
    site = config.parent / "site" / "example.com" / ".well-known"
    args = [node, str(JS_DIR / "onrequest_agent.mjs"), str(site / "agent-card.json"),
            str(site / "jwks.json"), "0", *([breaks] if breaks else [])]
    proc = subprocess.Popen(args, cwd=JS_DIR, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("listening "), (line, proc.stderr.read() if proc.stderr else "")
        yield f"http://127.0.0.1:{line.split()[1]}"
    finally:
        proc.terminate()
        proc.wait(10)


def probe(base: str, *args: str) -> tuple[int, dict[str, Any]]:
    result = CliRunner().invoke(cli, ["probe", "https://example.com", *connect_args(base),
                                      "--delay", "0", "--format", "json", *args])
    return result.exit_code, probe_json(result.stdout)


def test_the_javascript_agent_passes_the_probe_with_no_finding(config: Path,
                                                              tmp_path: Path) -> None:
    private = tmp_path / "operator.private.yaml"
    private.write_text(f'service-pricing:\n  - "{PRICE}"\n', encoding="utf-8")
    with js_agent(config) as base:
        code, doc = probe(base, "--private-values", str(private))
    assert (code, doc["findings"]) == (0, [])
    assert doc["verified"] and len(doc["cases"]) == 6  # 3 skills, unary and streaming
    modes = {(e["mode"], e["activated"], e["echo"]) for e in doc["exchanges"]}
    assert ("streaming", True, "https://agent-capability.org/ext/on-request/v1") in modes
    assert ("unary", False, "") in modes
    assert not any("1,395" in json.dumps(e["reply"]) for e in doc["exchanges"])


@pytest.mark.parametrize("rule", ["OR-5.3", "OR-5.7", "OR-6.1", "A2A-EXT-ECHO"])
def test_the_broken_javascript_agent_fails_with_the_right_id(config: Path, rule: str) -> None:
    with js_agent(config, rule) as base:
        code, doc = probe(base, "--unary")
        strict, _ = probe(base, "--unary", "--strict")
    assert {f["rule"] for f in doc["findings"]} == {rule}, doc["findings"]
    # a MUST broken is an error; the echo is a SHOULD of A2A's: a warning, failing --strict
    errors = any(f["level"] == "error" for f in doc["findings"])
    assert (code, strict) == ((1, 1) if errors else (0, 1))
    assert errors is (rule != "A2A-EXT-ECHO")
    leaked = any("1,395" in json.dumps(e["reply"]) for e in doc["exchanges"])
    assert leaked is (rule == "OR-5.3")
