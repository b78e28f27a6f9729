"""The egress guard and the runtime failing closed (issue 19 items 2 to 4), with the SDK's
own client against the chapel agent on 127.0.0.1, unary and streaming, with and without
the extension activated.

Each developer's executor below leaks in one way (the price answering a question no
classifier recognises, in a public answer, split across streamed chunks, in JSON data, in
raw bytes, in metadata; a classifier or a reader that raises); every one of them reaches
the caller as the operator's referral, and the operator's log says what was withheld."""

from __future__ import annotations

import asyncio
import json
import logging
import re
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from a2a.helpers import new_data_message, new_raw_message, new_text_message
from a2a.server.agent_execution import RequestContext
from a2a.types import (
    Artifact,
    Part,
    Task,
    TaskArtifactUpdateEvent,
    TaskState,
    TaskStatus,
    TaskStatusUpdateEvent,
)
from google.protobuf.json_format import MessageToDict, ParseDict
from google.protobuf.struct_pb2 import Value

from acap.agent import BuiltCard, OnRequestExecutor, create_app
from acap.replies import check_reply
from support.agents import (
    EXT,
    ask,
    build_example,
    example_module,
    opened,
    sdk_client,
    serving,
    words_received,
    write_example,
)
from support.executors import REFERRAL, Make, Says

PRICE = "£1,395"
LEAKS = ("£1,395", "1,395", "1395", "1 395")


def _price_message(context: RequestContext) -> list[Any]:
    return [new_text_message(f"A direct cremation costs {PRICE}.",
                             context_id=context.context_id)]


def _chunks(context: RequestContext) -> list[Any]:
    """The price split across two streamed chunks of one artifact, after a WORKING task."""
    tid, cid, aid = context.task_id, context.context_id, uuid.uuid4().hex
    return [Task(id=tid, context_id=cid, status=TaskStatus(state=TaskState.TASK_STATE_WORKING)),
            TaskArtifactUpdateEvent(task_id=tid, context_id=cid, artifact=Artifact(
                artifact_id=aid, parts=[Part(text="A direct cremation costs £1,")])),
            TaskArtifactUpdateEvent(task_id=tid, context_id=cid, append=True, last_chunk=True,
                                    artifact=Artifact(artifact_id=aid,
                                                      parts=[Part(text="395.")])),
            TaskStatusUpdateEvent(task_id=tid, context_id=cid,
                                  status=TaskStatus(state=TaskState.TASK_STATE_COMPLETED))]


def _raw(context: RequestContext) -> list[Any]:
    return [new_raw_message(b"Price list: direct cremation 1,395 pounds",
                            context_id=context.context_id, media_type="text/plain")]


def _metadata(context: RequestContext) -> list[Any]:
    msg = new_text_message("Here is what you asked.", context_id=context.context_id)
    msg.metadata.update({"quote": "£1395.00"})
    return [msg]


def _amount(context: RequestContext) -> list[Any]:
    """An amount the private file does not list: for an unrecognised question, still not
    sent (it may be the on-request information)."""
    return [new_text_message("It is about €2.450 all in.", context_id=context.context_id)]


def _binary(context: RequestContext) -> list[Any]:
    return [new_raw_message(b"%PDF-1.7\x00\xff\xfe price list", context_id=context.context_id,
                            media_type="application/pdf")]


def _says(text: str) -> Make:
    def make(context: RequestContext) -> list[Any]:
        return [new_text_message(text, context_id=context.context_id)]
    return make


def _in_data(data: dict[str, Any]) -> Make:
    def make(context: RequestContext) -> list[Any]:
        return [new_data_message(data, context_id=context.context_id)]
    return make


def _message_id(context: RequestContext) -> list[Any]:
    msg = new_text_message("Here is what you asked.", context_id=context.context_id)
    msg.message_id = "quote-1395-GBP"
    return [msg]


def _parts(context: RequestContext) -> list[Any]:
    msg = new_text_message("It is £1,", context_id=context.context_id)
    msg.parts.append(Part(text="395 in all."))
    return [msg]


def _working(context: RequestContext) -> Task:
    return Task(id=context.task_id, context_id=context.context_id,
                status=TaskStatus(state=TaskState.TASK_STATE_WORKING))


def _done(context: RequestContext) -> TaskStatusUpdateEvent:
    return TaskStatusUpdateEvent(task_id=context.task_id, context_id=context.context_id,
                                 status=TaskStatus(state=TaskState.TASK_STATE_COMPLETED))


def _artifact_metadata(context: RequestContext) -> list[Any]:
    art = Artifact(artifact_id=uuid.uuid4().hex, parts=[Part(text="Your quote.")])
    art.metadata.update({"price": {"amount": 1395, "currency": "GBP"}})
    return [_working(context), TaskArtifactUpdateEvent(
        task_id=context.task_id, context_id=context.context_id, artifact=art), _done(context)]


def _status_metadata(context: RequestContext) -> list[Any]:
    update = _done(context)
    update.metadata.update({"quote": "GBP 1395.00"})
    return [_working(context), update]


def _task_metadata(context: RequestContext) -> list[Any]:
    task = _working(context)
    task.status.state = TaskState.TASK_STATE_COMPLETED
    task.metadata.update({"total": "£1395"})
    return [task]


def _history(context: RequestContext) -> list[Any]:
    task = _working(context)
    task.status.state = TaskState.TASK_STATE_COMPLETED
    said = new_text_message("A direct cremation costs £1,395.", context_id=context.context_id)
    said.task_id = context.task_id
    task.history.append(said)
    return [task]


def _status_messages(context: RequestContext) -> list[Any]:
    """The price split across two status messages of one task."""
    first, second = _done(context), _done(context)
    first.status.state = TaskState.TASK_STATE_WORKING
    first.status.message.CopyFrom(new_text_message("It is £13", context_id=context.context_id))
    second.status.message.CopyFrom(new_text_message("95 in all.",
                                                    context_id=context.context_id))
    return [_working(context), first, second]


def _file_url(context: RequestContext) -> list[Any]:
    msg = new_text_message("Our price list:", context_id=context.context_id)
    msg.parts.append(Part(url="https://files.example.com/prices.pdf",
                          media_type="application/pdf"))
    return [msg]


@pytest.fixture(scope="module")
def config(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("guard")
    (folder / "operator.private.yaml").write_text(f'service-pricing:\n  - "{PRICE}"\n',
                                                  encoding="utf-8")
    return build_example(folder)


def _never(context: RequestContext) -> str | None:
    return None


def _public(context: RequestContext) -> str | None:
    return "opening-hours"


def _raises(context: RequestContext) -> str | None:
    raise RuntimeError("classifier exploded: secret stack detail")


def _run(config: Path, make: Make, skill_of: Callable[[RequestContext], str | None], *,
         activated: bool, streaming: bool, named: Any = None,
         question: str = "What does a cremation cost?") -> list[Any]:
    built = BuiltCard.from_project(config)
    runtime = OnRequestExecutor(Says(make), built, skill_of=skill_of,
                                **({"for_named_person": named} if named else {}))
    with serving(create_app(runtime, built)) as base:
        async def go() -> list[Any]:
            async with sdk_client(base, dict(built.card), streaming=streaming) as client:
                return await ask(client, question, activated=activated)

        return asyncio.run(go())


def _text(events: list[Any]) -> str:
    """Everything the client received but ids (a random id may hold the digits 1395)."""
    from google.protobuf.json_format import MessageToDict

    return "\n".join(words_received([MessageToDict(e) for e in events]))


def _referral(events: list[Any]) -> Any:
    """The Message that referred: a direct Message, or the final status message."""
    last = events[-1]
    if last.HasField("message"):
        return last.message
    status = last.task.status if last.HasField("task") else last.status_update.status
    assert status.state == TaskState.TASK_STATE_COMPLETED
    return status.message


LEAKY = {"unrecognised question": (_price_message, _never),
         "public answer": (_price_message, _public),
         "streamed chunks": (_chunks, _public),
         "JSON data": (_in_data({"cremation": {"price": "GBP 1395"}}), _never),
         "raw text bytes": (_raw, _public),
         "metadata": (_metadata, _public),
         "raising classifier": (_price_message, _raises),
         "an amount for an unrecognised question": (_amount, _never),
         "binary bytes for an unrecognised question": (_binary, _never),
         # the attacker trial (HIGH 1): everything an executor emits is read, and folded
         "a data part's JSON number": (_in_data({"amount": 1395, "currency": "GBP"}), _public),
         "a data part's minor units": (_in_data({"quote": {"pence": 139500}}), _public),
         "a data part's key": (_in_data({"£1,395": "direct cremation"}), _public),
         "a messageId": (_message_id, _public),
         "an Artifact's metadata": (_artifact_metadata, _public),
         "a status update's metadata": (_status_metadata, _public),
         "a Task's metadata": (_task_metadata, _public),
         "a Task's history": (_history, _public),
         "two Parts of one Message": (_parts, _public),
         "two status messages": (_status_messages, _public),
         "a file by URL": (_file_url, _public),
         "fullwidth digits": (_says("It costs £１，３９５."), _public),
         "superscript digits": (_says("It costs £¹³⁹⁵."), _public),
         "HTML entities": (_says("It costs &pound;1&#44;395."), _public),
         "a zero-width space": (_says("It costs £1\u200b395."), _public),
         "spelled out": (_says("One thousand three hundred and ninety-five pounds."), _public),
         "in pence": (_says("It is 139500 pence."), _public),
         "cents for an unrecognised question": (_says("It is 12000 cents."), _never)}

#: What each leak's executor sends that must never reach the client, besides :data:`LEAKS`
#: (looked for in everything received, ids too).
NEEDLES = ("2.450", "PDF", "1395", "139500", "１３９５", "¹³⁹⁵", "&pound;", "\u200b", "thousand",
           "12000", "prices.pdf", "£1,", "£13", "95 in all")


@pytest.mark.parametrize("streaming", [False, True], ids=["unary", "streaming"])
@pytest.mark.parametrize("activated", [False, True], ids=["plain", "activated"])
@pytest.mark.parametrize("leak", sorted(LEAKY))
def test_every_leak_reaches_the_caller_as_the_referral(config: Path, leak: str, activated: bool,
                                                      streaming: bool,
                                                      caplog: pytest.LogCaptureFixture) -> None:
    make, skill_of = LEAKY[leak]
    with caplog.at_level(logging.INFO, logger="acap.agent"):
        events = _run(config, make, skill_of, activated=activated, streaming=streaming)
    seen = _text(events)
    assert not any(v in seen for v in LEAKS), seen
    # everything received, ids too, but random UUIDs (the SDK's, the referral's: they may
    # hold the digits 1395)
    everything = re.sub(r"[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}",
                        "", json.dumps([MessageToDict(e) for e in events], ensure_ascii=False))
    assert not any(v in everything for v in NEEDLES), everything
    assert "secret stack detail" not in seen
    msg = _referral(events)
    assert msg.parts[0].text == REFERRAL
    assert (EXT in msg.metadata) is activated
    if activated:
        assert msg.metadata[EXT]["status"] == "on-request"
        assert msg.metadata[EXT]["skillId"] == "service-pricing"
    withheld = [r.getMessage() for r in caplog.records if "withheld" in r.getMessage()]
    assert withheld and "referral to https://ask.example.com/talk" in withheld[0]
    logged = [re.sub(r"task [0-9a-f-]{32,36}", "task", r.getMessage()) for r in caplog.records]
    assert not any(v in m for m in logged for v in LEAKS)  # never logged (but a random task id)


def test_the_chunks_of_a_stream_are_held_until_judged(config: Path) -> None:
    """Not even the first half of a split price is sent: the WORKING task, then the
    referral, and no chunk."""
    events = _run(config, _chunks, _public, activated=False, streaming=True)
    kinds = [e.WhichOneof("payload") for e in events]
    assert kinds == ["task", "status_update"]
    assert "£1," not in _text(events)


def test_a_public_answer_goes_through_untouched(config: Path) -> None:
    def hours(context: RequestContext) -> list[Any]:
        return [new_text_message("We are open 09:00 to 17:00; parking is £2 an hour.",
                                 context_id=context.context_id)]

    for skill_of, want in ((_public, "parking is £2"), (_never, REFERRAL)):
        events = _run(config, hours, skill_of, activated=False, streaming=False)
        # a public skill may name amounts; an unrecognised question may not
        assert want in events[-1].message.parts[0].text


def test_a_raising_reader_counts_as_acting_for_nobody(tmp_path: Path,
                                                      caplog: pytest.LogCaptureFixture) -> None:
    """service-pricing opened to assistants: a reader that raises refers (OR-5.4), and its
    exception text never reaches the client."""
    config = build_example(tmp_path, opened)
    mod = example_module()

    def reader(context: RequestContext) -> bool:
        raise ValueError("reader exploded: secret detail")

    with caplog.at_level(logging.ERROR, logger="acap.agent"):
        events = _run(config, lambda c: _price_message(c), mod.skill_of, activated=True,
                      streaming=False, named=reader)
    seen = _text(events)
    assert "1,395" not in seen and "secret detail" not in seen
    assert events[-1].message.metadata[EXT]["status"] == "on-request"
    assert any("for_named_person failed" in r.getMessage() for r in caplog.records)
    card = dict(BuiltCard.from_project(config).card)
    assert check_reply(events, card, activated=True, skill_id="service-pricing",
                       for_named_person=False).findings == []


def test_the_assertion_gives_an_opened_skill_to_a_named_person_only(tmp_path: Path) -> None:
    """acap's provisional form (activation and metadata actsForNamedPerson: true) is the
    default reader: with it the opened price is given, without it referred."""
    config = build_example(tmp_path, opened)
    built = BuiltCard.from_project(config)
    mod = example_module()
    app = create_app(OnRequestExecutor(mod.ChapelExecutor(), built, skill_of=mod.skill_of),
                     built)

    async def go(base: str) -> tuple[list[Any], list[Any], list[Any]]:
        async with sdk_client(base, dict(built.card)) as client:
            return (await ask(client, "What does a cremation cost?", named=True),
                    await ask(client, "What does a cremation cost?", activated=True),
                    await ask(client, "What does a cremation cost?"))

    with serving(app) as base:
        named, activated, plain = asyncio.run(go(base))
    assert named[-1].task.artifacts[0].parts[0].text.startswith("A direct cremation costs £1,395")
    assert named[-1].task.artifacts[0].metadata[EXT]["status"] == "given-on-opt-in"
    for events in (activated, plain):
        assert events[-1].message.parts[0].text == REFERRAL


SPANISH = ("Example Memorial Chapel da esta información a la persona que la pide. Puede "
           "pedirla aquí: https://ask.example.com/talk")


def _languages(tags: str) -> Callable[[str], str]:
    def edit(text: str) -> str:
        return text.replace("contact:\n", f"page:\n  languages: [{tags}]\n\ncontact:\n", 1)
    return edit


@pytest.mark.parametrize("header, want", [
    ("es-MX,es;q=0.9,en;q=0.8", SPANISH),
    ("fr;q=0.9, es;q=0.5", SPANISH),  # French is not the operator's: Spanish next
    ("de", REFERRAL),  # none of the operator's: its own language, English
    (None, REFERRAL),
])
def test_referrals_speak_the_language_the_request_asks_for(tmp_path: Path, header: str | None,
                                                           want: str) -> None:
    config = build_example(tmp_path, _languages("en, es"))
    built = BuiltCard.from_project(config)
    assert built.languages == ("en", "es")
    mod = example_module()
    app = create_app(OnRequestExecutor(mod.ChapelExecutor(), built, skill_of=mod.skill_of),
                     built)

    async def go(base: str) -> list[Any]:
        async with sdk_client(base, dict(built.card)) as client:
            return await ask(client, "¿Cuánto cuesta una cremación? cost", activated=True,
                             language=header)

    with serving(app) as base:
        events = asyncio.run(go(base))
    assert events[-1].message.parts[0].text == want
    assert check_reply(events, dict(built.card), activated=True, skill_id="service-pricing",
                       for_named_person=False).findings == []


def test_a_language_added_with_acap_words_refers_in_that_language(tmp_path: Path) -> None:
    """`acap words cy` writes the English words to translate; once translated, the agent
    refers in Welsh to a request in Welsh, in the operator's own wording."""
    from click.testing import CliRunner

    from acap.cli import cli

    config = write_example(tmp_path, _languages("en, cy"))  # no Welsh words yet
    result = CliRunner().invoke(cli, ["words", "cy", "-c", str(config)])
    assert result.exit_code == 0, result.output
    words = tmp_path / "templates" / "words" / "cy.yaml"
    text = words.read_text(encoding="utf-8")
    assert "referInformation:" in text  # acap words copies the agent's keys too
    welsh = ("{operator} sy'n rhoi'r wybodaeth hon i'r sawl sy'n gofyn. Gallwch ofyn "
             "yma:")
    words.write_text(text.replace(
        'referInformation: "{operator} gives this information to the person who asks. '
        'You can ask here:"', f'referInformation: "{welsh}"'), encoding="utf-8")
    from acap.builder import BuildOptions, build

    assert build(BuildOptions(config=config)).written
    built = BuiltCard.from_project(config)
    mod = example_module()
    app = create_app(OnRequestExecutor(mod.ChapelExecutor(), built, skill_of=mod.skill_of),
                     built)

    async def go(base: str) -> list[Any]:
        async with sdk_client(base, dict(built.card)) as client:
            return await ask(client, "Faint mae'n cost?", language="cy-GB")

    with serving(app) as base:
        events = asyncio.run(go(base))
    assert events[-1].message.parts[0].text == welsh.replace(
        "{operator}", "Example Memorial Chapel") + " https://ask.example.com/talk"


def test_an_old_words_file_without_the_agent_keys_still_builds_and_says_so(
        tmp_path: Path) -> None:
    """Words files written before the agent's keys existed: Spanish takes acap's own Spanish
    sentences; Welsh, which acap has no words for, is said in English, and the build warns
    once per key, at the file."""
    from acap.builder import BuildOptions, build
    from acap.builder.pages._words import AGENT_KEYS

    words = tmp_path / "templates" / "words"
    words.mkdir(parents=True)
    shipped = Path(__file__).parents[3] / "src/acap/templates/words"
    for tag, source in (("es", "es.yaml"), ("cy", "en.yaml")):
        text = (shipped / source).read_text(encoding="utf-8")
        words.joinpath(f"{tag}.yaml").write_text("\n".join(
            line for line in text.splitlines() if not line.startswith(AGENT_KEYS)) + "\n",
            encoding="utf-8")
    config = write_example(tmp_path, _languages("en, es, cy"))
    result = build(BuildOptions(config=config))
    assert result.written
    warned = [f for f in result.report if f.rule == "PAGE-WORDS"]
    assert [(f.level, f.location.file.endswith("cy.yaml")) for f in warned] == \
        [("warning", True)] * 3
    built = BuiltCard.from_project(config)
    pricing = built.skills["service-pricing"]
    assert built.words("es").information(pricing, "Example Memorial Chapel") == SPANISH
    assert built.words("cy").information(pricing, "Example Memorial Chapel") == REFERRAL


@pytest.mark.parametrize("streaming", [False, True], ids=["unary", "streaming"])
def test_an_executor_that_raises_sends_no_exception_text(config: Path, streaming: bool,
                                                         caplog: pytest.LogCaptureFixture
                                                         ) -> None:
    def boom(context: RequestContext) -> list[Any]:
        raise ValueError("database password is hunter2")

    with caplog.at_level(logging.ERROR, logger="acap.agent"):
        try:
            events = _run(config, boom, _public, activated=False, streaming=streaming,
                          question="When are you open?")
            seen = _text(events)
        except Exception as exc:  # the SDK's client raises the JSON-RPC error it received
            seen = f"{type(exc).__name__}: {exc}"
    assert "hunter2" not in seen
    # the operator's log names the type and the line, never the text (a private value may
    # be in it: attacker trial 3, F6)
    failed = [r for r in caplog.records if "executor failed" in r.getMessage()]
    assert failed and re.search(r"\(ValueError at .*test_guard\.py line \d+, in boom\)",
                                failed[0].getMessage()), [r.getMessage() for r in failed]
    assert not any("hunter2" in r.getMessage() or "hunter2" in (r.exc_text or "")
                   for r in caplog.records)
    assert not any(r.exc_info for r in caplog.records if r.name == "acap.agent")


def test_a_long_public_answer_goes_through_and_a_longer_one_says_its_size(
        config: Path, caplog: pytest.LogCaptureFixture) -> None:
    """F6: a 200 KB public answer (an echo of number words) is sent; one past what the
    spelled-number readers read is withheld from a caller not entitled, and the log says
    its true size."""
    long = "You asked: " + "one thousand and " * 12000
    events = _run(config, _says(long), _public, activated=False, streaming=False,
                  question="When are you open?")
    assert events[-1].message.parts[0].text == long
    longer = "You asked: " + "one thousand and " * 18000
    with caplog.at_level(logging.INFO, logger="acap.agent"):
        events = _run(config, _says(longer), _public, activated=False, streaming=False,
                      question="When are you open?")
    assert events[-1].message.parts[0].text == REFERRAL
    withheld = [r.getMessage() for r in caplog.records if "withheld" in r.getMessage()]
    assert withheld and f"{len(longer) // 1024} KiB of text" in withheld[0], withheld


def test_the_docs_spanish_referral_is_what_the_runtime_says(tmp_path: Path) -> None:
    """docs/agent-developers.md shows a Spanish agent referring in Spanish: that line is the
    runtime's, from acap's Spanish words, for a request asking for Spanish."""
    from acap.replies import OnRequestSkill

    config = build_example(tmp_path, _languages("es, en"))
    built = BuiltCard.from_project(config)
    assert built.languages[0] == "es"
    skill = OnRequestSkill("service-pricing", "https://pregunte.example.es/hablar")
    line = built.words("es").information(skill, "Funeraria Ejemplo")
    doc = (Path(__file__).parents[3] / "docs" / "agent-developers.md").read_text("utf-8")
    assert f"\n{line}\n" in doc
    assert built.words("fr").language == "es"  # not the operator's: its own first language


@pytest.mark.parametrize("text", [
    'service-pricing: "£1,395"\n',  # not a list
    "service-pricing:\n  - \"£1,395\"\n   - broken: [\n",  # not YAML
    'service-pricng:\n  - "£1,395"\n',  # a key that is no on-request skill
])
def test_a_private_file_the_agent_cannot_read_whole_stops_it(tmp_path: Path, text: str) -> None:
    """The guard never runs without the values it protects: the agent does not start, and
    says which line, never the value."""
    from acap.errors import AcapError

    config = build_example(tmp_path)
    (tmp_path / "operator.private.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(AcapError) as caught:
        BuiltCard.from_project(config)
    said = f"{caught.value.message} {caught.value.hint}"
    assert "operator.private.yaml" in said and "1,395" not in said


def test_every_words_file_acap_ships_has_the_agents_sentences() -> None:
    """A language acap ships refers in that language, never in English by default."""
    import yaml

    from acap.builder.pages._words import AGENT_KEYS

    folder = Path(__file__).parents[3] / "src/acap/templates/words"
    for f in sorted(folder.glob("*.yaml")):
        texts = yaml.safe_load(f.read_text(encoding="utf-8"))
        missing = [k for k in AGENT_KEYS if not texts.get(k)]
        assert not missing, f"{f.name} has no {missing}"
        # each ends where an address can follow
        assert all(texts[k].rstrip().endswith(":") for k in AGENT_KEYS), f.name


def _price_everywhere(context: RequestContext) -> list[Any]:
    """The price in words, in data, and a price list by URL: for an entitled caller."""
    msg = new_text_message(f"A direct cremation costs {PRICE}.", context_id=context.context_id)
    msg.parts.append(Part(data=ParseDict({"amount": 1395, "currency": "GBP"}, Value())))
    msg.parts.append(Part(url="https://files.example.com/prices.pdf",
                          media_type="application/pdf"))
    return [msg]


@pytest.mark.parametrize("streaming", [False, True], ids=["unary", "streaming"])
def test_a_named_person_is_given_the_opened_value_in_every_part(tmp_path: Path,
                                                                streaming: bool) -> None:
    """Item 3 of the trial, the entitled side: the price opened to assistants reaches a
    named person whole (words, data, a file by URL), with no referral; the same executor's
    answer to a caller acting for nobody is the referral, none of it sent."""
    config = build_example(tmp_path, opened)
    (tmp_path / "operator.private.yaml").write_text(f'service-pricing:\n  - "{PRICE}"\n',
                                                    encoding="utf-8")
    mod = example_module()
    named = _run(config, _price_everywhere, mod.skill_of, activated=True, streaming=streaming,
                 named=lambda c: True)
    [art] = named[-1].task.artifacts if named[-1].HasField("task") else \
        [e.artifact_update.artifact for e in named if e.HasField("artifact_update")]
    assert art.metadata[EXT]["status"] == "given-on-opt-in"
    assert [p.WhichOneof("content") for p in art.parts] == ["text", "data", "url"]
    assert art.parts[0].text == f"A direct cremation costs {PRICE}."
    assert MessageToDict(art.parts[1].data) == {"amount": 1395, "currency": "GBP"}
    assert art.parts[2].url == "https://files.example.com/prices.pdf"
    nobody = _run(config, _price_everywhere, mod.skill_of, activated=True, streaming=streaming,
                  named=lambda c: False)
    assert _referral(nobody).parts[0].text == REFERRAL
    seen = _text(nobody)
    assert not any(v in seen for v in (*LEAKS, "prices.pdf")), seen


def test_a_public_answer_with_amounts_in_data_and_split_numbers_goes_through(
        config: Path) -> None:
    """A public skill's answer may name amounts anywhere, and numbers split across streamed
    events are held, then sent whole and in order: nothing is referred."""
    def hours(context: RequestContext) -> list[Any]:
        return [_working(context),
                TaskStatusUpdateEvent(task_id=context.task_id, context_id=context.context_id,
                                      status=TaskStatus(state=TaskState.TASK_STATE_WORKING,
                                                        message=new_text_message(
                                                            "We open at 09:"))),
                TaskArtifactUpdateEvent(task_id=context.task_id, context_id=context.context_id,
                                        artifact=Artifact(artifact_id="hours", parts=[
                                            Part(text="00; parking:"),
                                            Part(data=ParseDict({"amount": 2, "currency": "GBP",
                                                                 "per": "hour"}, Value()))])),
                _done(context)]

    events = _run(config, hours, _public, activated=False, streaming=True)
    kinds = [e.WhichOneof("payload") for e in events]
    assert kinds == ["task", "status_update", "artifact_update", "status_update"]
    assert events[1].status_update.status.message.parts[0].text == "We open at 09:"
    parts = events[2].artifact_update.artifact.parts
    assert parts[0].text == "00; parking:"
    assert MessageToDict(parts[1].data) == {"amount": 2, "currency": "GBP", "per": "hour"}
    assert events[-1].status_update.status.state == TaskState.TASK_STATE_COMPLETED


@pytest.mark.parametrize("reply, why", [
    ({"parts": [{"text": "word " * (60 * 1024)}]},
     "300 KiB of text: numbers spelled out past its first 256 KiB"),
    ({"parts": [{"raw": "AAEC/w==", "mediaType": "application/octet-stream"}]},
     "raw bytes (application/octet-stream)"),
    ({"parts": [{"raw": "AAEC/w=="}]}, "raw bytes (no media type)"),
    ({"parts": [{"url": "https://files.example.com/prices.pdf"}]}, "a file by URL"),
])
def test_what_the_guard_cannot_read_is_withheld_where_anything_is_kept(
        reply: dict[str, Any], why: str) -> None:
    """Oversize text, bytes of no text type, a file by URL: withheld from a caller a private
    value is kept from, even answering a public skill; sent to one nothing is kept from."""
    from acap.agent._guard import Entitlement, Rule
    from acap.checks import PrivateValue
    from acap.replies import OnRequestSkill, reading_of

    skill = OnRequestSkill("service-pricing", "https://ask.example.com/talk")
    value = PrivateValue("service-pricing", PRICE, "operator.private.yaml", 2)
    reading = reading_of({"messageId": "m-1", "role": "ROLE_AGENT", **reply})
    public = Entitlement(amounts=True, unreadable=True)
    withheld = Rule(public, {skill.id: skill}, [value]).judge(reading)
    assert withheld is not None and withheld.skill == skill and why in withheld.why
    entitled = Entitlement(frozenset({skill.id}), amounts=True, unreadable=True)
    assert Rule(entitled, {skill.id: skill}, [value]).judge(reading) is None
