"""check_reply accepts a2a-sdk objects (Message, Task, StreamResponse, a recorded stream) as
well as JSON, and judges them alike."""

from __future__ import annotations

import json

from a2a.types import Message, StreamResponse, Task
from google.protobuf.json_format import ParseDict

from acap.replies import check_reply, compare_replies, decide, refer_information, reply_text
from support.paths import DATA, SRC

CARD = json.loads((DATA / "annex-a1-card.json").read_text(encoding="utf-8"))
EXAMPLES = SRC / "spec" / "docs" / "examples"


def _example(name: str) -> dict:  # type: ignore[type-arg]
    return json.loads((EXAMPLES / name).read_text(encoding="utf-8"))


def test_the_annex_replies_as_sdk_objects_pass() -> None:
    a2 = ParseDict(_example("a2-information-referred.json"), Message())
    a3 = ParseDict(_example("a3-action-referred.json"), Task())
    assert check_reply(a2, CARD, activated=True).findings == []
    assert check_reply(a3, CARD, activated=True).findings == []
    assert reply_text(a2).startswith("Example Memorial Chapel gives its prices")


def test_an_sdk_reply_without_the_object_is_reported_like_json() -> None:
    d = decide(CARD, "service-pricing", request_extensions=None, for_named_person=False)
    plain = refer_information(d.skill, activated=False, message_id="m-2",
                              operator="Example Memorial Chapel", what="its prices")
    as_json = check_reply(plain, CARD, activated=True, skill_id="service-pricing").findings
    as_sdk = check_reply(ParseDict(plain, Message()), CARD, activated=True,
                         skill_id="service-pricing").findings
    assert [(f.rule, f.location.pointer) for f in as_sdk] == \
        [(f.rule, f.location.pointer) for f in as_json] == [("OR-6.1", "")]


def test_a_recorded_stream_of_sdk_events() -> None:
    task = _example("a3-action-referred.json")
    submitted = {"task": {"id": task["id"], "contextId": task["contextId"],
                          "status": {"state": "TASK_STATE_SUBMITTED"}}}
    final = {"statusUpdate": {"taskId": task["id"], "contextId": task["contextId"],
                              "status": task["status"]}}
    stream = [ParseDict(submitted, StreamResponse()), ParseDict(final, StreamResponse())]
    assert check_reply(stream, CARD, activated=True).findings == []
    done = {**final["statusUpdate"], "status": {**task["status"],
                                                "state": "TASK_STATE_COMPLETED"}}
    broken = [stream[0], ParseDict({"statusUpdate": done}, StreamResponse())]
    found = check_reply(broken, CARD, activated=True).findings
    assert [f.rule for f in found] == ["REPLY-TASK-STATE"]
    assert [f.rule for f in compare_replies(stream, broken, CARD).findings] == [
        "REPLY-TASK-STATE", "OR-5.1"]
