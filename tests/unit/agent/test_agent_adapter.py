"""acap.agent in a real a2a-sdk server: the example chapel agent on 127.0.0.1, driven by the
SDK's own client over JSON-RPC, with and without the extension activated, streaming and
not. Every reply the adapter sends passes check_reply (given as SDK objects); the card it
serves is the built file byte for byte and verifies with the SDK's verifier."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from a2a.client import A2ACardResolver, ClientCallContext, ClientConfig, ClientFactory
from a2a.client.card_resolver import parse_agent_card
from a2a.client.service_parameters import ServiceParametersFactory, with_a2a_extensions
from a2a.helpers import new_text_message
from a2a.types import Role, SendMessageRequest
from a2a.utils.signing import InvalidSignaturesError, create_signature_verifier
from jwt.api_jwk import PyJWKSet

from acap.agent import BuiltCard, OnRequestExecutor, create_app
from acap.replies import check_reply
from support.agents import EXT, build_example, example_module, serving

PROMPTS = {
    "service-pricing": "What does a cremation cost at Example Memorial Chapel?",
    "arrangement-booking": "Please book an arrangement meeting for Tuesday morning.",
    "memorial-notice": "Please publish a memorial notice for my grandmother.",
    "opening-hours": "When is Example Memorial Chapel open?",
}


@pytest.fixture(scope="module")
def chapel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    config = build_example(tmp_path_factory.mktemp("chapel"))
    with serving(example_module().app(config)) as base:
        yield base, config


async def _ask(base: str, text: str, *, activated: bool, streaming: bool,
               card: dict[str, Any]) -> tuple[list[Any], str | None]:
    """One request with the SDK's client (to the card's interface, sent to ``base``):
    the StreamResponse objects received and the response's A2A-Extensions header."""
    seen: list[str | None] = []

    async def hook(response: httpx.Response) -> None:
        seen.append(response.headers.get("A2A-Extensions"))

    local = httpx.AsyncHTTPTransport()

    class ToLocal(httpx.AsyncBaseTransport):
        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            b = httpx.URL(base)
            request.url = request.url.copy_with(scheme=b.scheme, host=b.host, port=b.port)
            return await local.handle_async_request(request)

    async with httpx.AsyncClient(transport=ToLocal(), event_hooks={"response": [hook]},
                                 timeout=10) as hx:
        client = ClientFactory(ClientConfig(streaming=streaming, httpx_client=hx)).create(
            parse_agent_card(card))
        ctx = ClientCallContext(service_parameters=ServiceParametersFactory.create(
            [with_a2a_extensions([EXT])])) if activated else None
        req = SendMessageRequest(message=new_text_message(text, role=Role.ROLE_USER))
        events = [sr async for sr in client.send_message(req, context=ctx)]
    return events, seen[-1]


def _card(config: Path) -> dict[str, Any]:
    return json.loads((config.parent / "site/example.com/.well-known/agent-card.json")
                      .read_bytes())


@pytest.mark.parametrize("streaming", [False, True], ids=["unary", "streaming"])
@pytest.mark.parametrize("activated", [False, True], ids=["plain", "activated"])
@pytest.mark.parametrize("skill", sorted(PROMPTS))
def test_every_reply_of_the_adapter_passes_check_reply(chapel: tuple[str, Path], skill: str,
                                                       activated: bool,
                                                       streaming: bool) -> None:
    base, config = chapel
    card = _card(config)
    events, echo = asyncio.run(_ask(base, PROMPTS[skill], activated=activated,
                                    streaming=streaming, card=card))
    assert events, "no reply"
    # check_reply reads the SDK's objects as they came (a stream: a list of them)
    found = check_reply(events, card, activated=activated, skill_id=skill,
                        for_named_person=False, response_extensions=echo or "").findings
    if skill == "opening-hours":  # public: answered, not this extension's (REPLY-SKILL)
        assert [f.rule for f in found] == ["REPLY-SKILL"]
        assert "09:00 to 17:00" in events[-1].message.parts[0].text
        return
    assert found == []
    assert echo == (EXT if activated else None)
    last = events[-1]
    payload = last.WhichOneof("payload")
    if skill == "service-pricing":  # information referred: a Message (Annex A.2)
        assert payload == "message"
        assert last.message.parts[0].text == ("Example Memorial Chapel gives this information to "
                                              "the person who asks. You can ask here: "
                                              "https://ask.example.com/talk")
        assert (EXT in last.message.metadata) is activated
    else:  # an action referred: a Task ending REJECTED (Annex A.3), never done
        assert payload == "task"
        assert last.task.status.state == 7  # TASK_STATE_REJECTED
        assert "£" not in str(last)


def test_the_served_card_is_the_built_file_and_verifies_with_the_sdk(
        chapel: tuple[str, Path]) -> None:
    base, config = chapel
    site = config.parent / "site/example.com/.well-known"

    async def run() -> None:
        async with httpx.AsyncClient(base_url=base) as hx:
            served = (await hx.get("/.well-known/agent-card.json")).content
            assert served == (site / "agent-card.json").read_bytes()
            keys = PyJWKSet.from_dict((await hx.get("/.well-known/jwks.json")).json())
            assert (await hx.get("/.well-known/jwks.json")).content == \
                (site / "jwks.json").read_bytes()
            seen: list[str | None] = []

            def key_provider(kid: str | None, jku: str | None) -> Any:
                seen.append(jku)
                return keys[kid]

            verifier = create_signature_verifier(key_provider, ["ES256"])
            card = await A2ACardResolver(hx, base).get_agent_card(signature_verifier=verifier)
            assert card.name == "Example Memorial Chapel assistant"
            assert seen == ["https://example.com/.well-known/jwks.json"]
            card.description += "!"  # the verifier is real: a changed card fails
            with pytest.raises(InvalidSignaturesError):
                verifier(card)

    asyncio.run(run())


def test_a_named_person_gets_what_the_operator_opened(tmp_path: Path) -> None:
    """Opened to assistants: information given on opt-in as a marked Artifact of a COMPLETED
    task (OR-5.4); a deferred action carried out stays WORKING, not done (OR-5.8)."""
    def opened(text: str) -> str:
        return text.replace("assistantAccess: false", "assistantAccess: true").replace(
            "    completion: deferred\n", "    completion: deferred\n    safeguards: "
            "{attestationLevel: 2, reversibleByStaff: true, staffNotified: The office, "
            "limitPerAssistant: 1 a day, limitTotal: 5 a day, personConfirms: true}\n")

    config = build_example(tmp_path, opened)
    built = BuiltCard.from_project(config)
    assert built.skills["service-pricing"].assistant_access
    assert built.policy.skills["memorial-notice"].all_safeguards_hold
    chapel = example_module()
    app = create_app(OnRequestExecutor(chapel.ChapelExecutor(), built, skill_of=chapel.skill_of,
                                       for_named_person=lambda ctx: True), built)
    card = dict(built.card)
    with serving(app) as base:
        for streaming in (False, True):
            events, echo = asyncio.run(_ask(base, PROMPTS["service-pricing"], activated=True,
                                            streaming=streaming, card=card))
            task = events[-1].task
            assert task.status.state == 3  # TASK_STATE_COMPLETED
            art = task.artifacts[0]
            assert art.parts[0].text.startswith("A direct cremation costs £1,395")
            assert art.metadata[EXT]["status"] == "given-on-opt-in"
            assert check_reply(events, card, activated=True, for_named_person=True,
                               response_extensions=echo).findings == []
            events, _ = asyncio.run(_ask(base, PROMPTS["memorial-notice"], activated=False,
                                         streaming=streaming, card=card))
            task = events[-1].task
            assert task.status.state == 2  # TASK_STATE_WORKING: staff publish it later
            # the runtime's words, not the executor's "Done! ..." (OR-5.8)
            assert task.status.message.parts[0].text == (
                "Your request has been passed to Example Memorial Chapel's staff, who will "
                "complete it. It is not done yet. To follow up: https://ask.example.com/talk")
            assert check_reply(events, card, activated=False, skill_id="memorial-notice",
                               for_named_person=True, safeguards_hold=True).findings == []
        # the same request from a caller acting for nobody is referred (OR-5.4)
        app_nobody = create_app(OnRequestExecutor(chapel.ChapelExecutor(), built,
                                                  skill_of=chapel.skill_of), built)
    with serving(app_nobody) as base:
        events, _ = asyncio.run(_ask(base, PROMPTS["service-pricing"], activated=False,
                                     streaming=False, card=card))
        assert events[-1].message.parts[0].text.endswith("https://ask.example.com/talk")
        assert "£" not in str(events)


def test_the_echo_works_in_a_fastapi_app(chapel: tuple[str, Path]) -> None:
    from a2a.server.request_handlers import DefaultRequestHandler
    from a2a.server.routes import create_jsonrpc_routes
    from a2a.server.tasks import InMemoryTaskStore
    from fastapi import FastAPI

    from acap.agent import ActivatingContextBuilder, ExtensionsEcho, card_routes, proto_card

    _, config = chapel
    built = BuiltCard.from_project(config)
    chapel_mod = example_module()
    handler = DefaultRequestHandler(
        agent_executor=OnRequestExecutor(chapel_mod.ChapelExecutor(), built,
                                         skill_of=chapel_mod.skill_of),
        task_store=InMemoryTaskStore(), agent_card=proto_card(built))
    app = FastAPI()
    app.router.routes.extend([*card_routes(built), *create_jsonrpc_routes(
        handler, rpc_url="/a2a/v1", context_builder=ActivatingContextBuilder())])
    app.add_middleware(ExtensionsEcho)
    with serving(app) as base:
        for header, echo in ((EXT, EXT), (f"{EXT}, https://other.example/ext", EXT), (None, None)):
            body = {"jsonrpc": "2.0", "id": 1, "method": "SendMessage",
                    "params": {"message": {"messageId": "m-1", "role": "ROLE_USER",
                                           "parts": [{"text": PROMPTS["service-pricing"]}]}}}
            headers = {"A2A-Version": "1.0", **({"A2A-Extensions": header} if header else {})}
            r = httpx.post(f"{base}/a2a/v1", json=body, headers=headers, timeout=10)
            assert r.status_code == 200, r.text
            assert r.headers.get("A2A-Extensions") == echo
            msg = r.json()["result"]["message"]
            assert (EXT in msg.get("metadata", {})) is (echo is not None)
