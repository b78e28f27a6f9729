"""Annex A.1 to A.5: the example files hold, and a deliberately broken copy fails with the line."""

from __future__ import annotations

import json
import shutil
from importlib import resources
from pathlib import Path

import pytest

from acap.builder.specsite import check_examples
from acap.builder.specsite._examples import EXAMPLES
from acap.findings import Finding

EXAMPLES_DIR = Path(str(resources.files("acap") / "spec" / "docs" / "examples"))


def run(folder: Path) -> list[Finding]:
    return check_examples(lambda n: (folder / n).read_bytes(), lambda n: str(folder / n))


def test_the_shipped_examples_hold() -> None:
    assert [e.id for e in EXAMPLES] == ["A.1", "A.2", "A.3", "A.4", "A.5"]
    assert run(EXAMPLES_DIR) == []


def test_the_official_sdk_reads_every_example() -> None:
    """a2a-sdk 1.3's protobuf types (an independent reading of a2a.proto) parse each example."""
    from a2a.types import AgentCard, Message, SendMessageRequest, Task
    from google.protobuf import json_format

    def load(name: str) -> object:
        return json.loads((EXAMPLES_DIR / name).read_text(encoding="utf-8"))

    card = json_format.ParseDict(load("a1-agent-card.json"), AgentCard())
    assert [s.id for s in card.skills][:3] == ["opening-hours", "service-pricing",
                                               "arrangement-booking"]
    msg = json_format.ParseDict(load("a2-information-referred.json"), Message())
    assert list(msg.extensions) == ["https://agent-capability.org/ext/on-request/v1"]
    task = json_format.ParseDict(load("a3-action-referred.json"), Task())
    assert json_format.MessageToDict(task)["status"]["state"] == "TASK_STATE_REJECTED"
    task = json_format.ParseDict(load("a4-given-on-opt-in.json"), Task())
    assert json_format.MessageToDict(task)["status"]["state"] == "TASK_STATE_COMPLETED"
    http = (EXAMPLES_DIR / "a5-activation.http").read_text(encoding="utf-8")
    body = json.loads(http.split("\n\n", 1)[1])
    req = json_format.ParseDict(body["params"], SendMessageRequest())
    assert req.message.message_id == "m-1"


# (file, text to find, replacement, words the finding's message must hold)
BREAKAGES = [
    ("a1-agent-card.json", '"required": false', '"required": true', "required: false (OR-3.1)"),
    ("a1-agent-card.json", '"id": "service-pricing", "personEntry"',
     '"id": "service-prices", "personEntry"', "which the card does not have (OR-3.3)"),
    ("a1-agent-card.json",
     '"personEntry": "https://ask.example.com/talk", "assistantAccess": false',
     '"personEntry": "http://ask.example.com/talk", "assistantAccess": false',
     "breaks on-request-extension.schema.json at /capabilities/extensions/0/params/skills/0/"
     "personEntry"),
    ("a1-agent-card.json", '"version": "1.0.0",', '"version": "1.0.0", "colour": "blue",',
     "breaks the A2A 1.0 AgentCard schema"),
    ("a2-information-referred.json", '"status": "on-request"', '"status": "given-on-opt-in"',
     "puts the given-on-opt-in object in Message.metadata"),
    ("a2-information-referred.json", '"status": "on-request"', '"status": "referred"',
     "breaks on-request-extension.schema.json#/$defs/reply"),
    ("a2-information-referred.json", "You can ask here: https://ask.example.com/talk",
     "You can ask us.", "does not give the personEntry address (OR-6.2)"),
    ("a3-action-referred.json", '"state": "TASK_STATE_REJECTED"', '"state": "TASK_STATE_COMPLETED"',
     "ends in TASK_STATE_REJECTED, not TASK_STATE_COMPLETED"),
    ("a3-action-referred.json", '"personEntry": "https://ask.example.com/talk"',
     '"personEntry": "https://ask.example.com/other"',
     "is not the one the A.1 card gives"),
    ("a4-given-on-opt-in.json", '"extensions": ["https://agent-capability.org/ext/on-request/v1"]',
     '"extensions": []', "does not list https://agent-capability.org/ext/on-request/v1"),
    ("a5-activation.http", "A2A-Extensions: https://agent-capability.org/ext/on-request/v1",
     "A2A-Extensions: https://agent-capability.org/ext/on-request/v2",
     "the A2A-Extensions header does not list"),
    ("a5-activation.http", '"role": "ROLE_USER"', '"role": "ROLE_AGENT"',
     "the message's role is not ROLE_USER"),
]


@pytest.mark.parametrize(("name", "old", "new", "words"), BREAKAGES)
def test_a_broken_copy_fails_at_its_line(tmp_path: Path, name: str, old: str, new: str,
                                         words: str) -> None:
    folder = tmp_path / "examples"
    shutil.copytree(EXAMPLES_DIR, folder)
    text = (folder / name).read_text(encoding="utf-8")
    assert text.count(old) == 1
    (folder / name).write_text(text.replace(old, new), encoding="utf-8")
    line = text[:text.index(old)].count("\n") + 1

    found = run(folder)

    assert found, "the broken copy passed"
    assert {f.rule for f in found} == {"SPEC-EXAMPLE"}
    assert all(f.level == "error" for f in found)
    hits = [f for f in found if words in f.message]
    assert hits, [f.message for f in found]
    assert hits[0].location.file == str(folder / name)
    assert hits[0].location.line == line
    assert hits[0].message.startswith(f"example A.{name[1]} ({name}): ")


def test_an_example_that_is_not_json_fails_with_its_line(tmp_path: Path) -> None:
    folder = tmp_path / "examples"
    shutil.copytree(EXAMPLES_DIR, folder)
    text = (folder / "a4-given-on-opt-in.json").read_text(encoding="utf-8")
    (folder / "a4-given-on-opt-in.json").write_text(text.replace('"t-52",', '"t-52"'),
                                                    encoding="utf-8")
    [finding] = run(folder)
    assert finding.rule == "SPEC-EXAMPLE"
    assert "is not JSON" in finding.message
    assert finding.location.line == 3
