"""Real a2a-sdk agents on 127.0.0.1 for the agent and probe tests: the example chapel agent
(examples/agent/agent.py) built from a copy of its operator.yaml, served by uvicorn in a
thread, and deliberately broken variants, each breaking one rule the probe judges."""

from __future__ import annotations

import contextlib
import importlib.util
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

from support.paths import REPO

EXAMPLE_AGENT = REPO / "examples" / "agent"
EXT = "https://agent-capability.org/ext/on-request/v1"
PRICE = "£1,395"
#: What an agent says where nobody can be reached (OR-5.10).
NOBODY = ("Nobody can be reached at the moment: the chapel has no member of staff to speak "
          "to by phone or chat. You can write to us at ask@example.com.")


def example_module() -> ModuleType:
    """examples/agent/agent.py, imported as the module ``chapel_agent``."""
    spec = importlib.util.spec_from_file_location("chapel_agent", EXAMPLE_AGENT / "agent.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def build_example(folder: Path, edit: Callable[[str], str] | None = None) -> Path:
    """Build a copy of examples/agent/operator.yaml (``edit`` changes its text first) in
    ``folder``; returns the copy's path (site/ and .acap/ beside it)."""
    from acap.builder import BuildOptions, build
    from acap.cli import report_text

    config = write_example(folder, edit)
    result = build(BuildOptions(config=config))
    assert result.written, report_text(result.report)
    return config


def write_example(folder: Path, edit: Callable[[str], str] | None = None) -> Path:
    """Write a copy of examples/agent/operator.yaml (``edit`` changes its text) into
    ``folder``, without building it; returns its path."""
    text = (EXAMPLE_AGENT / "operator.yaml").read_text(encoding="utf-8")
    config = folder / "operator.yaml"
    config.write_text(edit(text) if edit else text, encoding="utf-8")
    return config


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def serving(app: Any) -> Iterator[str]:
    """Serve the ASGI ``app`` with uvicorn on 127.0.0.1 (a thread); yields its base URL."""
    import uvicorn

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port,
                                          log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(200):
        if server.started:
            break
        time.sleep(0.05)
    assert server.started, "uvicorn did not start"
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


def connect_args(base: str) -> list[str]:
    """``acap probe`` options sending the chapel's hosts to the local server ``base``."""
    return ["--connect-to", f"example.com={base}", "--connect-to", f"agent.example.com={base}"]


class BrokenChapel:
    """The chapel's agent written by hand with acap.replies, correct except for one rule.

    Args:
        built: the :class:`acap.agent.BuiltCard`.
        breaks: the rule id to break: ``OR-5.1`` (other words without activation),
            ``OR-5.3`` (the price given beside the referral), ``OR-5.4`` (the price, opened
            to assistants, given to any caller: build with :func:`opened`), ``OR-5.7`` (the
            booking carried out for a caller acting for nobody), ``OR-5.8`` (the deferred
            notice's task ends COMPLETED), ``OR-5.10`` (asked for a member of staff where
            nobody can be reached, it talks of something else: build with
            :func:`no_staff`), ``OR-6.1`` (no §6.1 object when activated), ``OR-6.2``
            (the marked text leaves out personEntry), ``A2A-EXT-ECHO`` (no echo header);
            ``None`` breaks nothing.
    """

    def __init__(self, built: Any, breaks: str | None) -> None:
        self.built, self.breaks = built, breaks

    def executor(self) -> Any:
        from a2a.server.agent_execution import AgentExecutor

        outer = self

        class Executor(AgentExecutor):
            async def execute(self, context: Any, event_queue: Any) -> None:
                await event_queue.enqueue_event(outer.reply(context))

            async def cancel(self, context: Any, event_queue: Any) -> None:
                raise NotImplementedError

        return Executor()

    def reply(self, context: Any) -> Any:
        from acap.agent import activate, to_sdk
        from acap.replies import (
            ON_REQUEST,
            information_text,
            mark,
            refer_action,
            refer_information,
            reply_object,
        )

        chapel = example_module()
        activated = EXT in context.requested_extensions
        if activated and self.breaks != "A2A-EXT-ECHO":
            activate(context, EXT)
        marked = activated and self.breaks != "OR-6.1"
        sid = chapel.skill_of(context)
        skill = self.built.skills.get(sid)
        mid, tid, cid = uuid.uuid4().hex, context.task_id, context.context_id
        if skill is None:
            from a2a.helpers import new_text_message

            asked = context.get_user_input().lower()
            if "staff" in asked and self.breaks != "OR-5.10":
                return new_text_message(NOBODY, context_id=cid)
            return new_text_message("Ask me about the chapel.", context_id=cid)
        if sid == "service-pricing" and self.breaks == "OR-5.4":
            from acap.replies import give_on_opt_in

            return to_sdk(give_on_opt_in(skill, activated=marked, task_id=tid, context_id=cid,
                                         artifact_id=uuid.uuid4().hex,
                                         text=f"A direct cremation costs {PRICE}."))
        if sid == "service-pricing":
            text = information_text(skill, "Example Memorial Chapel", "its prices")
            if self.breaks == "OR-5.3":
                text = f"A direct cremation costs {PRICE}. {text}"
            if self.breaks == "OR-5.1" and not activated:
                text = (f"Ask at {skill.person_entry}: Example Memorial Chapel gives its "
                        "prices to the person who asks.")
            if self.breaks == "OR-6.2" and activated:
                msg = {"messageId": mid, "contextId": cid, "role": "ROLE_AGENT",
                       "parts": [{"text": "Example Memorial Chapel gives its prices to the "
                                          "person who asks."}]}
                return to_sdk(mark(msg, reply_object(skill, ON_REQUEST)))
            return to_sdk(refer_information(skill, activated=marked, message_id=mid, text=text,
                                            context_id=cid))
        if sid == "arrangement-booking" and self.breaks == "OR-5.7":
            return to_sdk({"id": tid, "contextId": cid, "status": {
                "state": "TASK_STATE_COMPLETED", "message": {
                    "messageId": mid, "role": "ROLE_AGENT",
                    "parts": [{"text": "Your arrangement meeting is booked for Tuesday."}]}}})
        reply = refer_action(skill, activated=marked, message_id=mid, task_id=tid,
                             context_id=cid, action="do this")
        if sid == "memorial-notice" and self.breaks == "OR-5.8":
            reply["status"]["state"] = "TASK_STATE_COMPLETED"
        return to_sdk(reply)


def opened(text: str) -> str:
    """operator.yaml edit: service-pricing opened to assistants, and the deferred
    memorial notice opened with every OR-5.6 safeguard (so that a named person gets the
    price, and the notice is carried out and left to staff)."""
    return text.replace("assistantAccess: false", "assistantAccess: true").replace(
        "    completion: deferred\n", "    completion: deferred\n    acceptAssistantsWord: true\n"
        "    safeguards: {attestationLevel: 2, reversibleByStaff: true, staffNotified: The "
        "office, limitPerAssistant: 1 a day, limitTotal: 5 a day, personConfirms: true}\n"
    ).replace("    assistantAccess: true\n    tags", "    assistantAccess: true\n"
              "    acceptAssistantsWord: true\n    tags")


def no_staff(text: str) -> str:
    """operator.yaml edit: no skill tells how to reach a member of staff (OR-5.10), nor
    uses a word acap reads as one (director, staff)."""
    start = text.index("  - id: speak-to-staff")
    text = text[:start] + text[text.index("contact:"):]
    return text.replace("Checks director availability", "Checks availability").replace(
        "A member of staff reads", "The chapel reads")


def both_bindings(text: str) -> str:
    """operator.yaml edit: HTTP+JSON at /a2a/rest beside JSON-RPC at /a2a/v1, and push
    notifications on."""
    return text.replace(
        "      protocolVersion: \"1.0\"\n",
        "      protocolVersion: \"1.0\"\n    - url: https://agent.example.com/a2a/rest\n"
        "      binding: HTTP+JSON\n      protocolVersion: \"1.0\"\n", 1).replace(
        "pushNotifications: false", "pushNotifications: true")


@contextlib.asynccontextmanager
async def sdk_client(base: str, card: dict[str, Any], *, streaming: bool = False,
                     binding: str = "JSONRPC", headers: dict[str, str] | None = None,
                     push: Any = None, seen: list[Any] | None = None) -> Any:
    """The official SDK's client for ``card``, its requests sent to the local server
    ``base`` (``Host`` and paths as the card says). ``seen`` collects each
    ``httpx.Response`` (headers, status) as it arrives."""
    import httpx
    from a2a.client import ClientConfig, ClientFactory
    from a2a.client.card_resolver import parse_agent_card

    local = httpx.AsyncHTTPTransport()
    b = httpx.URL(base)

    class ToLocal(httpx.AsyncBaseTransport):
        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            request.url = request.url.copy_with(scheme=b.scheme, host=b.host, port=b.port)
            return await local.handle_async_request(request)

    async def hook(response: httpx.Response) -> None:
        if seen is not None:
            seen.append(response)

    async with httpx.AsyncClient(transport=ToLocal(), event_hooks={"response": [hook]},
                                 headers=headers or {}, timeout=10) as hx:
        client = ClientFactory(ClientConfig(
            streaming=streaming, httpx_client=hx, supported_protocol_bindings=[binding],
            push_notification_config=push)).create(parse_agent_card(card))
        yield client


async def ask(client: Any, text: str, *, activated: bool = False, named: bool = False,
              task_id: str | None = None, language: str | None = None) -> list[Any]:
    """Send ``text`` with the SDK's client; the StreamResponse objects received. ``named``
    asserts a named person (acap's provisional form), ``language`` sends Accept-Language."""
    from a2a.client import ClientCallContext
    from a2a.client.service_parameters import ServiceParametersFactory, with_a2a_extensions
    from a2a.helpers import new_text_message
    from a2a.types import Role, SendMessageRequest

    from acap.agent import assert_named_person

    msg = new_text_message(text, role=Role.ROLE_USER)
    if task_id:
        msg.task_id = task_id
    if named:
        assert_named_person(msg)
    params: dict[str, str] = {}
    if language:
        params["Accept-Language"] = language
    updates = [with_a2a_extensions([EXT])] if activated or named else []
    ctx = ClientCallContext(service_parameters=ServiceParametersFactory.create_from(
        params, updates)) if updates or params else None
    return [sr async for sr in client.send_message(SendMessageRequest(message=msg),
                                                  context=ctx)]


def push_receiver() -> tuple[list[dict[str, Any]], Any]:
    """A push-notification receiver (A2A §9: a POST of a StreamResponse): an ASGI app whose
    ``POST /hook`` records ``{"token": X-A2A-Notification-Token, "body": JSON}``; serve it
    with :func:`serving`. Returns ``(received, app)``."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route

    received: list[dict[str, Any]] = []

    async def hook(request: Request) -> Response:
        received.append({"token": request.headers.get("x-a2a-notification-token"),
                         "body": await request.json()})
        return Response(status_code=204)

    return received, Starlette(routes=[Route("/hook", hook, methods=["POST"])])


def words_received(value: Any) -> list[str]:
    """Every string of a reply as A2A JSON (a dict, a list of them) but its ids: a random id
    may hold the digits of a price."""
    if isinstance(value, dict):
        return [w for k, v in value.items() if not k.lower().endswith("id")
                for w in words_received(v)]
    if isinstance(value, list):
        return [w for v in value for w in words_received(v)]
    return [str(value)]


def probe_json(stdout: str) -> dict[str, Any]:
    """``acap probe --format json``'s document with its one result's members beside the
    totals (``exchanges``, ``cases``, ``verified`` ... and ``findings``, ``ok``): the
    probe's part of the one JSON shape every command prints (``results[0]``)."""
    import json

    doc: dict[str, Any] = json.loads(stdout)
    [one] = doc["results"]
    return {**doc, **one}
