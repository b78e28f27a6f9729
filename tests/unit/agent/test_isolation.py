"""No caller reads another caller's task, by any method a2a-sdk exposes, over JSON-RPC and
HTTP+JSON, streaming or not (issue 19 item 1; acap.agent._callers).

The example chapel agent, with service-pricing opened to assistants and the memorial notice
carried out and left to staff, answers a first caller that asserts a named person: the
price as the Artifact of a COMPLETED task, and a WORKING task with a push-notification
config. A second caller then tries every method on those tasks with the SDK's own client.
Nothing it receives names the price, and no method finds the tasks; the first caller,
anonymous too, cannot read them back either (A2A gives it no identity to scope by). Callers
authenticated by the app keep their own tasks, and only those."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from a2a.types import (
    CancelTaskRequest,
    DeleteTaskPushNotificationConfigRequest,
    GetTaskPushNotificationConfigRequest,
    GetTaskRequest,
    ListTaskPushNotificationConfigsRequest,
    ListTasksRequest,
    SubscribeToTaskRequest,
    TaskPushNotificationConfig,
)

from acap.agent import BuiltCard, OnRequestExecutor, create_app
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

PRICE_FORMS = ("£1,395", "1,395", "1395")


@pytest.fixture(scope="module")
def hooks() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """A push-notification receiver on 127.0.0.1: its URL and what it received."""
    received, url = push_receiver()
    with serving(url) as base:
        yield f"{base}/hook", received


@pytest.fixture(scope="module")
def chapel(tmp_path_factory: pytest.TempPathFactory,
           hooks: tuple[str, list[Any]]) -> Iterator[tuple[str, dict[str, Any]]]:
    config = build_example(tmp_path_factory.mktemp("isolation"),
                           lambda t: both_bindings(opened(t)))
    built = BuiltCard.from_project(config)
    mod = example_module()

    async def only_the_hook(url: str) -> bool:  # the SDK's own validator refuses loopback
        return url == hooks[0]

    app = create_app(OnRequestExecutor(mod.ChapelExecutor(), built, skill_of=mod.skill_of),
                     built, push_url_validator=only_the_hook)
    with serving(app) as base:
        yield base, dict(built.card)


async def _first_caller(base: str, card: dict[str, Any], binding: str,
                        streaming: bool, hook: str) -> tuple[str, str]:
    """The price given on opt-in (a COMPLETED task) and a notice left to staff (a WORKING
    task with a push config): their task ids."""
    push = TaskPushNotificationConfig(url=hook, token="first-callers-secret")
    async with sdk_client(base, card, binding=binding, streaming=streaming,
                          push=push) as client:
        given = await ask(client, "What does a cremation cost?", named=True)
        left = await ask(client, "Please publish a memorial notice for my father.",
                         named=True)
    done, working = given[-1].task, left[-1].task
    assert done.status.state == 3 and done.artifacts[0].parts[0].text.startswith(
        "A direct cremation costs £1,395")  # the first caller was entitled to it
    assert working.status.state == 2
    return done.id, working.id


async def _outcome(call: Any) -> str:
    """What one call gave the second caller: the result as text, or the error's name."""
    try:
        if hasattr(call, "__aiter__"):  # a stream (SubscribeToTask)
            return repr([e async for e in call])
        return repr(await call)
    except Exception as exc:  # the SDK raises its errors: what reached the client
        return f"{type(exc).__name__}: {exc}"


async def _second_caller(base: str, card: dict[str, Any], binding: str, streaming: bool,
                         done: str, working: str, hook: str) -> dict[str, str]:
    async with sdk_client(base, card, binding=binding, streaming=streaming) as client:
        cfg = TaskPushNotificationConfig(task_id=working, url=hook, token="second")
        calls = {
            "GetTask": client.get_task(GetTaskRequest(id=done)),
            "GetTask (working)": client.get_task(GetTaskRequest(id=working)),
            "ListTasks": client.list_tasks(ListTasksRequest(include_artifacts=True)),
            "ListTasks (context)": client.list_tasks(ListTasksRequest(
                include_artifacts=True, status=3)),
            "CancelTask": client.cancel_task(CancelTaskRequest(id=working)),
            "CreateTaskPushNotificationConfig":
                client.create_task_push_notification_config(cfg),
            "GetTaskPushNotificationConfig": client.get_task_push_notification_config(
                GetTaskPushNotificationConfigRequest(task_id=working, id=working)),
            "ListTaskPushNotificationConfigs": client.list_task_push_notification_configs(
                ListTaskPushNotificationConfigsRequest(task_id=working)),
            "DeleteTaskPushNotificationConfig": client.delete_task_push_notification_config(
                DeleteTaskPushNotificationConfigRequest(task_id=working, id=working)),
            "SendMessage (another's task)": ask(client, "What does it cost?", named=True,
                                                task_id=working),
        }
        seen = {name: await _outcome(call) for name, call in calls.items()}
    # SubscribeToTask is a stream whatever the client prefers for SendMessage
    async with sdk_client(base, card, binding=binding, streaming=True) as client:
        seen["SubscribeToTask"] = await _outcome(client.subscribe(
            SubscribeToTaskRequest(id=working)))
    return seen


@pytest.mark.parametrize("streaming", [False, True], ids=["unary", "streaming"])
@pytest.mark.parametrize("binding", ["JSONRPC", "HTTP+JSON"])
def test_a_second_caller_reads_nothing_of_the_first_callers_tasks(
        chapel: tuple[str, dict[str, Any]], hooks: tuple[str, list[Any]], binding: str,
        streaming: bool) -> None:
    base, card = chapel
    hook, received = hooks

    async def run() -> dict[str, str]:
        done, working = await _first_caller(base, card, binding, streaming, hook)
        return await _second_caller(base, card, binding, streaming, done, working, hook)

    received.clear()
    seen = asyncio.run(run())
    for method, outcome in seen.items():
        assert not any(p in outcome for p in PRICE_FORMS), (method, outcome)
        assert "first-callers-secret" not in outcome, (method, outcome)
        assert "memorial notice" not in outcome.lower(), (method, outcome)
        if method.startswith("ListTasks"):
            assert outcome in ("tasks: []", "") or "tasks {" not in outcome, outcome
        else:
            assert "TaskNotFound" in outcome or "not found" in outcome.lower(), \
                (method, outcome)
    # the first caller's hook heard of its own tasks only, with its own token
    assert received and {r["token"] for r in received} == {"first-callers-secret"}


def test_authenticated_callers_keep_their_own_tasks_and_only_theirs(tmp_path: Path) -> None:
    """With the app's own authentication, a caller reads its task back across requests;
    another user does not see it."""
    from starlette.authentication import (
        AuthCredentials,
        AuthenticationBackend,
        SimpleUser,
    )
    from starlette.middleware.authentication import AuthenticationMiddleware

    class Tokens(AuthenticationBackend):
        async def authenticate(self, conn: Any) -> tuple[AuthCredentials, SimpleUser] | None:
            auth = conn.headers.get("authorization", "")
            names = {"Bearer alice-token": "alice", "Bearer bob-token": "bob"}
            return (AuthCredentials(["a2a"]), SimpleUser(names[auth])) if auth in names \
                else None

    config = build_example(tmp_path, opened)
    built = BuiltCard.from_project(config)
    mod = example_module()
    app = create_app(OnRequestExecutor(mod.ChapelExecutor(), built, skill_of=mod.skill_of),
                     built)
    app.add_middleware(AuthenticationMiddleware, backend=Tokens())
    card = dict(built.card)

    async def run() -> tuple[Any, Any, str, str]:
        alice = {"Authorization": "Bearer alice-token"}
        async with sdk_client(base, card, headers=alice) as client:
            given = await ask(client, "What does a cremation cost?", named=True)
            task_id = given[-1].task.id
            again = await client.get_task(GetTaskRequest(id=task_id))
            listed = await client.list_tasks(ListTasksRequest(include_artifacts=True))
        bob = {"Authorization": "Bearer bob-token"}
        async with sdk_client(base, card, headers=bob) as client:
            got = await _outcome(client.get_task(GetTaskRequest(id=task_id)))
            bobs = await _outcome(client.list_tasks(ListTasksRequest(include_artifacts=True)))
        return again, listed, got, bobs

    with serving(app) as base:
        again, listed, got, bobs = asyncio.run(run())
    assert again.status.state == 3 and "£1,395" in again.artifacts[0].parts[0].text
    assert [t.id for t in listed.tasks] == [again.id]
    assert "TaskNotFound" in got and "1,395" not in got
    assert "1,395" not in bobs and again.id not in bobs
