"""Deferred actions end to end (issue 19 item 5; OR-3.6, OR-5.8): the runtime, not a word
list, keeps a deferred action from being reported done, and staff finish it later through
DeferredActions (a status update the SDK saves, streams and pushes), shown in
examples/agent's staff routes."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from a2a.helpers import new_text_message
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.types import TaskPushNotificationConfig, TaskState

from acap.agent import BuiltCard, OnRequestExecutor, create_app
from acap.replies import check_reply
from support.agents import (
    ask,
    both_bindings,
    build_example,
    example_module,
    opened,
    push_receiver,
    sdk_client,
    serving,
)

NOT_DONE = ("Your request has been passed to Example Memorial Chapel's staff, who will "
            "complete it. It is not done yet. To follow up: https://ask.example.com/talk")
NOTICE = "Please publish a memorial notice for my grandmother."


class SaysDone(AgentExecutor):
    """A developer's executor that says the deferred notice is done, in its own words."""

    def __init__(self, text: str) -> None:
        self.text = text

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        await event_queue.enqueue_event(new_text_message(self.text,
                                                         context_id=context.context_id))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        raise NotImplementedError


@pytest.fixture(scope="module")
def config(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("deferred")
    (folder / "operator.private.yaml").write_text('service-pricing:\n  - "£1,395"\n',
                                                  encoding="utf-8")
    return build_example(folder, lambda t: both_bindings(opened(t)))


@pytest.mark.parametrize("said", [
    "Done! See you Tuesday.",
    "I've put you down for Tuesday at 10:00.",
    "¡Listo! Su aviso ya está publicado.",
    "Your notice has been published.",
])
@pytest.mark.parametrize("streaming", [False, True], ids=["unary", "streaming"])
def test_a_deferred_action_is_never_reported_done(config: Path, said: str,
                                                  streaming: bool) -> None:
    built = BuiltCard.from_project(config)
    mod = example_module()
    app = create_app(OnRequestExecutor(SaysDone(said), built, skill_of=mod.skill_of), built)

    async def go(base: str) -> list[Any]:
        async with sdk_client(base, dict(built.card), streaming=streaming) as client:
            return await ask(client, NOTICE, named=True)

    with serving(app) as base:
        events = asyncio.run(go(base))
    task = events[-1].task
    assert task.status.state == TaskState.TASK_STATE_WORKING
    assert task.status.message.parts[0].text == NOT_DONE
    assert said not in str(events)
    assert check_reply(events, dict(built.card), activated=True, skill_id="memorial-notice",
                       for_named_person=True, safeguards_hold=True).findings == []


@pytest.fixture(scope="module")
def hooks() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    received, receiver = push_receiver()
    with serving(receiver) as base:
        yield f"{base}/hook", received


def _app(config: Path, hook: str) -> tuple[Any, OnRequestExecutor]:
    built = BuiltCard.from_project(config)
    mod = example_module()
    runtime = OnRequestExecutor(mod.ChapelExecutor(), built, skill_of=mod.skill_of)

    async def only_the_hook(url: str) -> bool:  # the SDK's default refuses loopback
        return url == hook

    return create_app(runtime, built, push_url_validator=only_the_hook), runtime


@pytest.mark.parametrize("binding", ["JSONRPC", "HTTP+JSON"])
def test_staff_complete_or_decline_and_the_caller_is_told(config: Path, binding: str,
                                                          hooks: tuple[str, list[Any]]) -> None:
    hook, received = hooks
    received.clear()
    app, runtime = _app(config, hook)
    card = dict(BuiltCard.from_project(config).card)
    push = TaskPushNotificationConfig(url=hook, token="the-callers-token")

    async def go(base: str) -> tuple[Any, Any, Any, Any]:
        async with sdk_client(base, card, binding=binding, push=push) as client:
            first = (await ask(client, NOTICE, named=True))[-1].task
            second = (await ask(client, NOTICE, named=True))[-1].task
        pending = [a.task_id for a in runtime.deferred.pending()]
        assert pending == [first.id, second.id]
        done = await runtime.deferred.complete(
            first.id, "Your grandmother's notice is on our website now.")
        declined = await runtime.deferred.decline(
            second.id, "We could not publish this notice; please call us.")
        return first, second, done, declined

    with serving(app) as base:
        first, second, done, declined = asyncio.run(go(base))
        for _ in range(100):  # push delivery is asynchronous
            finals = [r for r in received if "statusUpdate" in r["body"] and r["body"][
                "statusUpdate"]["status"]["state"] in ("TASK_STATE_COMPLETED",
                                                       "TASK_STATE_REJECTED")]
            if len(finals) == 2:
                break
            import time

            time.sleep(0.05)
    assert (first.status.state, second.status.state) == (TaskState.TASK_STATE_WORKING,) * 2
    assert done.status.state == TaskState.TASK_STATE_COMPLETED
    assert done.status.message.parts[0].text == \
        "Your grandmother's notice is on our website now."
    assert declined.status.state == TaskState.TASK_STATE_REJECTED
    assert runtime.deferred.pending() == []
    by_task = {r["body"]["statusUpdate"]["taskId"]: r for r in finals}
    assert by_task[first.id]["body"]["statusUpdate"]["status"]["state"] == \
        "TASK_STATE_COMPLETED"
    assert by_task[second.id]["body"]["statusUpdate"]["status"]["message"]["parts"][0][
        "text"] == "We could not publish this notice; please call us."
    assert {r["token"] for r in received} == {"the-callers-token"}


def _notice_only(text: str) -> str:
    """The memorial notice opened to assistants (with every safeguard); the price not."""
    return text.replace(
        "    assistantAccess: false\n    action: true\n    completion: deferred\n",
        "    assistantAccess: true\n    acceptAssistantsWord: true\n    action: true\n"
        "    completion: deferred\n    safeguards: {attestationLevel: 2, reversibleByStaff: "
        "true, staffNotified: The office, limitPerAssistant: 1 a day, limitTotal: 5 a day, "
        "personConfirms: true}\n")


def test_staff_cannot_send_what_the_caller_is_not_entitled_to(
        tmp_path: Path, hooks: tuple[str, Any]) -> None:
    (tmp_path / "operator.private.yaml").write_text('service-pricing:\n  - "£1,395"\n',
                                                    encoding="utf-8")
    config = build_example(tmp_path, _notice_only)
    app, runtime = _app(config, hooks[0])
    card = dict(BuiltCard.from_project(config).card)
    assert not BuiltCard.from_project(config).skills["service-pricing"].assistant_access

    async def go(base: str) -> None:
        async with sdk_client(base, card) as client:
            task = (await ask(client, NOTICE, named=True))[-1].task
        for said in ("Done. A cremation is £1,395, by the way.",
                     "Done. A cremation is &pound;１,３９５.", "Done: 139500 pence."):
            with pytest.raises(ValueError, match=r"operator\.private\.yaml line 2"):
                await runtime.deferred.complete(task.id, said)
        with pytest.raises(LookupError):
            await runtime.deferred.complete("no-such-task", "Done.")
        assert [a.task_id for a in runtime.deferred.pending()] == [task.id]

    with serving(app) as base:
        asyncio.run(go(base))


def test_the_example_agents_staff_routes(config: Path) -> None:
    """examples/agent: GET /staff/pending and POST /staff/pending/<task>, for the token
    holder only; absent without a token."""
    mod = example_module()
    card = dict(BuiltCard.from_project(config).card)
    with serving(mod.app(config, staff_token="s3cret")) as base:
        async def go() -> str:
            async with sdk_client(base, card) as client:
                return str((await ask(client, NOTICE, named=True))[-1].task.id)

        task_id = asyncio.run(go())
        assert httpx.get(f"{base}/staff/pending").status_code == 401
        assert httpx.get(f"{base}/staff/pending",
                         headers={"Authorization": "Bearer wrong"}).status_code == 401
        staff = {"Authorization": "Bearer s3cret"}
        listed = httpx.get(f"{base}/staff/pending", headers=staff).json()
        assert [(p["task"], p["skill"]) for p in listed] == [(task_id, "memorial-notice")]
        r = httpx.post(f"{base}/staff/pending/{task_id}", headers=staff,
                       json={"done": True, "text": "Published."})
        # A2A's JSON names the state (TASK_STATE_COMPLETED), never the proto enum's number
        assert r.json() == {"task": task_id, "state": "TASK_STATE_COMPLETED"}
        assert httpx.get(f"{base}/staff/pending", headers=staff).json() == []
        declined = asyncio.run(go())
        r = httpx.post(f"{base}/staff/pending/{declined}", headers=staff,
                       json={"done": False, "text": "We could not publish it; please call us."})
        assert r.json() == {"task": declined, "state": "TASK_STATE_REJECTED"}
    with serving(mod.app(config)) as base:
        assert httpx.get(f"{base}/staff/pending").status_code == 404
