"""Every leak of issue 19 makes ``acap probe`` exit 1 with the extension's rule id, against
a bare a2a-sdk agent; the same developer's executor inside acap's runtime passes, and no
value reaches the probe (the client): the egress guard turned each leak into a referral.

The bare agents are the hand-written chapel (support.agents.BrokenChapel), correct except
for one leak; the runtime's are the example's naive executor (prices for everyone, "Done!"
for the deferred notice) behind OnRequestExecutor, with a classifier that recognises
nothing or raises."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.types import (
    Message,
    Part,
    Role,
    Task,
    TaskState,
    TaskStatus,
    TaskStatusUpdateEvent,
)
from click.testing import CliRunner

from acap.agent import BuiltCard, OnRequestExecutor, create_app, to_sdk
from acap.cli import cli
from support.agents import (
    EXT,
    PRICE,
    BrokenChapel,
    build_example,
    connect_args,
    example_module,
    opened,
    probe_json,
    serving,
    words_received,
)

LEAKS = ("£1,395", "1,395", "1395")


def probe(base: str, *args: str) -> tuple[int, dict[str, Any]]:
    result = CliRunner().invoke(cli, ["probe", "https://example.com", *connect_args(base),
                                      "--delay", "0", "--format", "json", *args])
    return result.exit_code, probe_json(result.stdout)


def leaked(doc: dict[str, Any]) -> bool:
    """Whether any reply the probe received names the price (ids left out)."""
    seen = " ".join(words_received([e["reply"] for e in doc["exchanges"]]))
    return any(v in seen for v in LEAKS)


class Bare(AgentExecutor):
    """The hand-written chapel (correct), with one skill answered by ``answer``."""

    def __init__(self, built: BuiltCard, skill: str, answer: Any) -> None:
        self.chapel, self.skill, self.answer = BrokenChapel(built, None), skill, answer

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        mod = example_module()
        if mod.skill_of(context) == self.skill:
            answer = self.answer(context)
            for event in answer if isinstance(answer, list) else [answer]:
                await event_queue.enqueue_event(event)
        else:
            await event_queue.enqueue_event(self.chapel.reply(context))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        raise NotImplementedError


def _referral(context: RequestContext, leak: bool) -> Any:
    """The OR-5.3 referral, marked when activated, the price before it when ``leak``."""
    from acap.agent import activate
    from acap.replies import OnRequestSkill, information_text, refer_information

    skill = OnRequestSkill("service-pricing", "https://ask.example.com/talk")
    activated = EXT in context.requested_extensions
    if activated:
        activate(context, EXT)
    text = information_text(skill, "Example Memorial Chapel", "its prices")
    return to_sdk(refer_information(
        skill, activated=activated, message_id="m-1", context_id=context.context_id,
        text=f"A direct cremation costs {PRICE}. {text}" if leak else text))


def _price_always(context: RequestContext) -> Any:
    return _referral(context, leak=True)


def _price_unless_activated(context: RequestContext) -> Any:
    return _referral(context, leak=EXT not in context.requested_extensions)


def _generic_answer(context: RequestContext) -> Any:
    """What a developer's fallback (an LLM that knows the price list) says to a question its
    classifier did not recognise: the price, and no referral."""
    from a2a.helpers import new_text_message

    return new_text_message(f"A direct cremation costs {PRICE}.",
                            context_id=context.context_id)


def _raising_classifier(context: RequestContext) -> Any:
    raise RuntimeError("classifier exploded: secret stack detail")


def _done(context: RequestContext) -> Any:
    from acap.agent import activate

    if EXT in context.requested_extensions:
        activate(context, EXT)
    return to_sdk({"id": context.task_id, "contextId": context.context_id, "status": {
        "state": "TASK_STATE_COMPLETED", "message": {
            "messageId": "m-done", "role": "ROLE_AGENT",
            "parts": [{"text": "Done! See you Tuesday."}]}}})


@pytest.fixture(scope="module")
def plain_card(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_example(tmp_path_factory.mktemp("leaks"))


@pytest.fixture(scope="module")
def opened_card(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_example(tmp_path_factory.mktemp("leaks-opened"), opened)


@pytest.mark.parametrize("name, answer, rules", [
    ("a leak always", _price_always, {"OR-5.3"}),
    ("a leak without activation", _price_unless_activated, {"OR-5.3"}),
    # an answer, not a referral: unmarked when activated besides
    ("a leak through an unrecognised question", _generic_answer, {"OR-5.3", "OR-6.1"}),
    ("a raising classifier", _raising_classifier, {"PROBE-REQUEST"}),
])
def test_a_bare_agent_that_leaks_fails_the_probe(plain_card: Path, name: str, answer: Any,
                                                 rules: set[str]) -> None:
    """Without acap's runtime: each leak is an error under its id (a classifier that raises
    reaches the client as the SDK's error, its text with it)."""
    built = BuiltCard.from_project(plain_card)
    with serving(create_app(Bare(built, "service-pricing", answer), built)) as base:
        code, doc = probe(base, "--unary")
    errors = [f for f in doc["findings"] if f["level"] == "error"]
    assert code == 1, doc["findings"]
    assert {f["rule"] for f in errors} == rules
    if rules == {"PROBE-REQUEST"}:
        assert not leaked(doc) and "secret stack detail" in json.dumps(doc)
        return
    assert any("amount of money (£1,395)" in f["message"] for f in errors)
    assert leaked(doc)  # the bare agent did send it: the probe saw it


def test_a_bare_agent_reporting_a_deferred_action_done_fails_the_named_probe(
        opened_card: Path) -> None:
    built = BuiltCard.from_project(opened_card)
    with serving(create_app(Bare(built, "memorial-notice", _done), built)) as base:
        code, doc = probe(base, "--unary", "--as-named-person")
    errors = {f["rule"] for f in doc["findings"] if f["level"] == "error"}
    assert code == 1 and "OR-5.8" in errors, doc["findings"]
    named = [c for c in doc["cases"] if c["case"] == "memorial-notice #1 unary, named person"]
    assert [f["rule"] for f in named[0]["findings"]] == ["OR-5.8"]


def _misses_prices(context: RequestContext) -> str | None:
    """A classifier that does not recognise a question about prices (the executor then
    answers it, with the price)."""
    sid = example_module().skill_of(context)
    return None if sid == "service-pricing" else sid


def _raises_on_prices(context: RequestContext) -> str | None:
    """A classifier with a bug: it raises on a question about prices."""
    sid = example_module().skill_of(context)
    if sid == "service-pricing":
        raise RuntimeError("classifier exploded: secret stack detail")
    return sid


@pytest.mark.parametrize("classifier", [None, _misses_prices, _raises_on_prices],
                         ids=["recognised", "unrecognised question", "raising classifier"])
@pytest.mark.parametrize("card", ["plain", "opened"])
def test_the_same_leaky_executor_inside_the_runtime_passes_and_leaks_nothing(
        plain_card: Path, opened_card: Path, card: str, classifier: Any) -> None:
    """The example's naive executor gives the price to everyone and says the notice is
    "Done!"; inside the runtime the probe finds nothing, as nobody and as a named person,
    and no reply names the price (except, on the opened card, the named person's own)."""
    config = plain_card if card == "plain" else opened_card
    built = BuiltCard.from_project(config)
    mod = example_module()
    runtime = OnRequestExecutor(mod.ChapelExecutor(), built,
                                skill_of=classifier or mod.skill_of)
    private = config.parent / "operator.private.yaml"
    private.write_text(f'service-pricing:\n  - "{PRICE}"\n', encoding="utf-8")
    with serving(create_app(runtime, built)) as base:
        code, doc = probe(base, "--as-named-person", "--private-values", str(private),
                          "--budget", "60")
    assert (code, doc["findings"]) == (0, []), doc["findings"]
    nobody = {**doc, "exchanges": [e for e in doc["exchanges"] if not e["named"]]}
    assert not leaked(nobody)
    assert "secret stack detail" not in json.dumps(doc)
    given = [e for e in doc["exchanges"] if e["named"] and e["skill_id"] == "service-pricing"]
    assert leaked({"exchanges": given}) is (card == "opened" and classifier is None)


# -- the attacker trial (HIGH 2): the price hidden where the words do not show it ---------------

def _hidden_in_data(context: RequestContext) -> Any:
    from google.protobuf.json_format import ParseDict
    from google.protobuf.struct_pb2 import Value

    msg = _referral(context, leak=False)
    msg.parts.append(Part(data=ParseDict({"amount": 1395, "currency": "GBP"}, Value())))
    return msg


def _hidden_in_metadata(context: RequestContext) -> Any:
    msg = _referral(context, leak=False)
    msg.metadata.update({"quote": "GBP 1395.00"})
    return msg


def _hidden_in_raw(context: RequestContext) -> Any:
    msg = _referral(context, leak=False)
    msg.parts.append(Part(raw="Price list: cremation £1,395".encode(),
                          media_type="text/plain; charset=utf-8"))
    return msg


def _spelled(text: str) -> Any:
    def answer(context: RequestContext) -> Any:
        msg = _referral(context, leak=False)
        msg.parts[0].text = f"{text} {msg.parts[0].text}"
        return msg
    return answer


def _split_across_events(context: RequestContext) -> list[Any]:
    """A streamed task: "It is £1," in a WORKING status message, "395." in the final one,
    before the (marked) referral's words."""
    ref = _referral(context, leak=False)
    ref.parts[0].text = f"395. {ref.parts[0].text}"
    ref.task_id, ref.context_id = context.task_id, context.context_id
    first = Message(message_id="m-0", role=Role.ROLE_AGENT, task_id=context.task_id,
                    context_id=context.context_id, parts=[Part(text="It is £1,")])

    def status(state: Any, msg: Message) -> TaskStatusUpdateEvent:
        return TaskStatusUpdateEvent(task_id=context.task_id, context_id=context.context_id,
                                     status=TaskStatus(state=state, message=msg))

    return [Task(id=context.task_id, context_id=context.context_id,
                 status=TaskStatus(state=TaskState.TASK_STATE_WORKING)),
            status(TaskState.TASK_STATE_WORKING, first),
            status(TaskState.TASK_STATE_COMPLETED, ref)]


HIDDEN = {
    "a data part": (_hidden_in_data, "/parts/1/data"),
    "metadata": (_hidden_in_metadata, "/metadata/quote"),
    "raw text bytes": (_hidden_in_raw, "/parts/1/raw"),
    "fullwidth digits": (_spelled("A direct cremation costs £１，３９５."), "/parts/0/text"),
    "HTML entities": (_spelled("A direct cremation costs &pound;1&#44;395."), "/parts/0/text"),
    "split stream chunks": (_split_across_events, "/status/message/parts/0/text"),
    # attacker trial 3 (F2): one number however it is written
    "a line break in the number": (_spelled("A direct cremation costs £1,\n395."),
                                   "/parts/0/text"),
    "Markdown emphasis": (_spelled("A direct cremation costs £1,3**95**."), "/parts/0/text"),
    "digits and words": (_spelled("It is one thousand 3 hundred ninety five pounds."),
                         "/parts/0/text"),
    "Japanese numerals": (_spelled("（千三百九十五ポンド）"), "/parts/0/text"),
}
#: What the hidden price looks like in each (ids left out).
HIDDEN_SPELLINGS = ("1395", "３９５", "&pound;1", "£1,", "千三百", "3 hundred")


def _seen(doc: dict[str, Any]) -> str:
    """What the probe received, ids left out, raw bytes decoded."""
    import base64
    import re

    seen = " ".join(words_received([e["reply"] for e in doc["exchanges"]]))
    raws = re.findall(r'"raw": "([^"]*)"', json.dumps([e["reply"] for e in doc["exchanges"]]))
    return " ".join([seen, *(base64.b64decode(r).decode("utf-8", "replace") for r in raws)])


@pytest.mark.parametrize("name", sorted(HIDDEN))
def test_a_price_hidden_from_the_words_fails_the_probe(plain_card: Path, name: str) -> None:
    """A bare agent whose referral's words are clean, the price in a data part, metadata,
    other digits, entities, or split across streamed events: OR-5.3's error, exit 1, at the
    place that carries it (with and without --private-values)."""
    answer, pointer = HIDDEN[name]
    built = BuiltCard.from_project(plain_card)
    private = plain_card.parent / "operator.private.yaml"
    private.write_text(f'service-pricing:\n  - "{PRICE}"\n', encoding="utf-8")
    mode = ["--streaming"] if name == "split stream chunks" else ["--unary"]
    with serving(create_app(Bare(built, "service-pricing", answer), built)) as base:
        for extra, what in (([], "an amount of money"),
                            (["--private-values", str(private)], "a value the operator gives")):
            code, doc = probe(base, *mode, *extra)
            errors = [f for f in doc["findings"] if f["level"] == "error"]
            assert code == 1, doc["findings"]
            assert {f["rule"] for f in errors} == {"OR-5.3"}, errors
            assert any(what in f["message"] and pointer in f["location"]["pointer"]
                       for f in errors), errors
            assert "1,395" not in json.dumps(doc["findings"], ensure_ascii=False) or \
                what == "an amount of money"  # a value is named by its line, never its text
    assert any(v in _seen(doc) for v in HIDDEN_SPELLINGS)  # the bare agent did send it


def test_number_words_acap_cannot_read_beside_a_currency_are_a_warning(plain_card: Path
                                                                      ) -> None:
    """Swedish number words beside a currency: acap cannot tell an amount, so the probe
    says OR-5.3 may be broken, as a guess (a warning), and names no number."""
    built = BuiltCard.from_project(plain_card)
    answer = _spelled("Det kostar ettusen trehundranittiofem pund.")
    with serving(create_app(Bare(built, "service-pricing", answer), built)) as base:
        code, doc = probe(base, "--unary")
    warned = [f for f in doc["findings"] if f["rule"] == "OR-5.3"]
    assert code == 0 and warned and all(f["level"] == "warning" for f in warned), doc
    assert any("cannot read" in f["message"] and "guess" in f["message"] for f in warned)


def test_an_amount_is_named_whole(plain_card: Path) -> None:
    """F5: the probe names the amount as the reply shows it, not its first digits."""
    built = BuiltCard.from_project(plain_card)
    answer = _spelled("A direct cremation costs £ 1 3 9 5.")
    with serving(create_app(Bare(built, "service-pricing", answer), built)) as base:
        code, doc = probe(base, "--unary")
    errors = [f["message"] for f in doc["findings"] if f["level"] == "error"]
    assert code == 1 and any("£ 1 3 9 5" in m for m in errors), errors
    assert not any(re.search(r"\(£ 1[^ ]|\(£ 13\)|\(£ 1\)", m) for m in errors), errors


class Leaky(AgentExecutor):
    """The example's naive executor, answering questions about prices with ``answer``."""

    def __init__(self, answer: Any) -> None:
        self.naive, self.answer = example_module().ChapelExecutor(), answer

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        if example_module().skill_of(context) != "service-pricing":
            await self.naive.execute(context, event_queue)
            return
        answer = self.answer(context)
        for event in answer if isinstance(answer, list) else [answer]:
            await event_queue.enqueue_event(event)

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        raise NotImplementedError


@pytest.mark.parametrize("name", sorted(HIDDEN))
def test_the_hidden_price_never_reaches_the_probe_through_the_guard(plain_card: Path,
                                                                   name: str) -> None:
    """The same executors inside the runtime, their classifier missing the question (so the
    executor answers it, through the egress guard): the probe passes and receives none of
    the price, in any spelling."""
    built = BuiltCard.from_project(plain_card)
    runtime = OnRequestExecutor(Leaky(HIDDEN[name][0]), built, skill_of=_misses_prices)
    private = plain_card.parent / "operator.private.yaml"
    private.write_text(f'service-pricing:\n  - "{PRICE}"\n', encoding="utf-8")
    with serving(create_app(runtime, built)) as base:
        code, doc = probe(base, "--private-values", str(private), "--budget", "60")
    assert (code, doc["findings"]) == (0, []), doc["findings"]
    seen = _seen(doc)
    assert not any(v in seen for v in (*HIDDEN_SPELLINGS, *LEAKS)), seen


def _with_data(built: BuiltCard) -> Any:
    """The chapel's own (correct) reply, an amount of money added in a data part."""
    from google.protobuf.json_format import ParseDict
    from google.protobuf.struct_pb2 import Value

    def answer(context: RequestContext) -> Any:
        reply = BrokenChapel(built, None).reply(context)
        msg = reply.status.message if isinstance(reply, Task) else reply
        msg.parts.append(Part(data=ParseDict({"deposit": {"amount": 250, "currency": "GBP"}},
                                             Value())))
        return reply
    return answer


@pytest.mark.parametrize("card, skill, rule", [
    ("opened", "service-pricing", "OR-5.4"),  # opened, asked by a caller acting for nobody
    ("plain", "arrangement-booking", "OR-5.7"),  # an action referred
])
def test_an_amount_in_data_is_judged_under_the_skills_own_rule(
        plain_card: Path, opened_card: Path, card: str, skill: str, rule: str) -> None:
    """The same ids as for words: OR-5.4 for information opened to assistants, OR-5.7 for
    an action."""
    built = BuiltCard.from_project(opened_card if card == "opened" else plain_card)
    with serving(create_app(Bare(built, skill, _with_data(built)), built)) as base:
        code, doc = probe(base, "--unary")
    errors = [f for f in doc["findings"] if f["level"] == "error"]
    assert code == 1, doc["findings"]
    assert {f["rule"] for f in errors} == {rule}, errors
    assert all("amount of money (GBP 250)" in f["message"] and skill in f["message"]
               and "/data/deposit/amount" in f["location"]["pointer"] for f in errors), errors
