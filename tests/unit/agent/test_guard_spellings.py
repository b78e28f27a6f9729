"""The egress guard reads one value however an executor spells it (attacker trial 3, F1),
with the SDK's own client against the chapel agent on 127.0.0.1: line breaks, tabs and
spaces inside a number, Markdown emphasis, code marks and backslash escapes, look-alike
letters (Unicode TR39: Cyrillic ``З`` for 3, ``l`` for 1), numbers half in words, CJK
numerals, scientific notation, Roman numerals, a raw JSON part's escapes, a code spaced out;
and where a currency stands beside number words acap cannot read (Swedish), a caller not
entitled gets the referral (fail closed). A public answer with numbers that only look alike
(opening hours beside a street number, a phone number) goes through."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest
from a2a.helpers import new_raw_message, new_text_message
from a2a.server.agent_execution import RequestContext
from google.protobuf.json_format import MessageToDict

from acap.agent import BuiltCard, OnRequestExecutor, create_app
from support.agents import ask, build_example, sdk_client, serving, words_received
from support.executors import REFERRAL, Make, Says


def _never(context: RequestContext) -> str | None:
    return None


def _public(context: RequestContext) -> str | None:
    return "opening-hours"

PRICE = "£1,395"
CODE = "Oakwood casket code ZX-7781"

#: Every spelling the trial sent past the guard: (what the executor says, what no received
#: string may hold once spaces, marks and separators are taken out).
SPELLINGS = {
    "a line break": "It costs £1,\n395.",
    "a tab": "It costs £1,\t395.",
    "spaced digits": "It costs £ 1 3 9 5.",
    "Markdown emphasis": "It costs £1,3**95**.",
    "a Markdown escape": "It costs £1\\,395.",
    "Markdown code marks": "It costs `£1`,`395`.",
    "a Cyrillic Ze for 3": "It costs £1,З95.",
    "a lower-case L for 1": "It costs £l,395.",
    "digits and words": "It costs 13 hundred and 95 pounds.",
    "words and digits": "It costs one thousand 3 hundred ninety five pounds.",
    "Japanese numerals": "千三百九十五ポンドです。",
    "Japanese numerals in a sentence": "Opening 9-5. 火葬の費用は千三百九十五ポンドです。",
    "Chinese numerals": "一千三百九十五英镑",
    "scientific notation": "It costs 1.395e3 GBP.",
    "Roman numerals": "It costs MCCCXCV pounds.",
    "a spaced code": "Ask for Z X 7 7 8 1.",
}
#: Number words of a language acap reads none in, beside a currency: withheld for a caller
#: not entitled (a guess: acap cannot tell them from the price).
UNREAD = {"Swedish words": "Det kostar ettusen trehundranittiofem pund."}


@pytest.fixture(scope="module")
def config(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("spellings")
    (folder / "operator.private.yaml").write_text(
        f'service-pricing:\n  - "{PRICE}"\n  - "{CODE}"\n', encoding="utf-8")
    return build_example(folder)


def _run(config: Path, make: Make, skill_of: Any, question: str = "When are you open?") -> Any:
    built = BuiltCard.from_project(config)
    runtime = OnRequestExecutor(Says(make), built, skill_of=skill_of)
    with serving(create_app(runtime, built)) as base:
        async def go() -> list[Any]:
            async with sdk_client(base, dict(built.card), streaming=False) as client:
                return await ask(client, question, activated=False)

        return asyncio.run(go())


def _says(text: str) -> Make:
    def make(context: RequestContext) -> list[Any]:
        return [new_text_message(text, context_id=context.context_id)]
    return make


def _json_raw(context: RequestContext) -> list[Any]:
    return [new_raw_message(b'{"price": "\\u00a31,395"}', context_id=context.context_id,
                            media_type="application/json")]


def _received(events: list[Any]) -> tuple[str, str]:
    """What the client received (words), and all of it with every space, mark and
    separator taken out, but UUIDs (random: they may hold any digits)."""
    everything = re.sub(r"[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}",
                        "", json.dumps([MessageToDict(e) for e in events], ensure_ascii=False))
    return "\n".join(words_received([MessageToDict(e) for e in events])), \
        re.sub(r"[\W_]+", "", everything)


def _assert_referred(events: list[Any], said: str) -> None:
    words, bare = _received(events)
    assert events[-1].message.parts[0].text == REFERRAL, words
    for needle in ("1395", "395", "ZX7781", "7781", "З95", "千三百", "MCCCXCV", "1395e3",
                   "u00a3", "trehundra"):
        assert needle.casefold() not in bare.casefold(), (needle, bare)
    assert said not in words


@pytest.mark.parametrize("spelling", sorted(SPELLINGS))
@pytest.mark.parametrize("skill_of", [_public, _never], ids=["public skill", "unrecognised"])
def test_every_spelling_reaches_the_caller_as_the_referral(config: Path, spelling: str,
                                                           skill_of: Any) -> None:
    said = SPELLINGS[spelling]
    _assert_referred(_run(config, _says(said), skill_of), said)


@pytest.mark.parametrize("skill_of", [_public, _never], ids=["public skill", "unrecognised"])
def test_a_raw_json_part_is_read_as_json(config: Path, skill_of: Any) -> None:
    _assert_referred(_run(config, _json_raw, skill_of), '{"price": "\\u00a31,395"}')


@pytest.mark.parametrize("skill_of", [_public, _never], ids=["public skill", "unrecognised"])
def test_number_words_acap_cannot_read_beside_a_currency_are_withheld(config: Path,
                                                                      skill_of: Any) -> None:
    """Fail closed: the caller may not have the price (nor, for an unrecognised question, any
    amount), and acap cannot tell that Swedish number words are not it."""
    said = UNREAD["Swedish words"]
    _assert_referred(_run(config, _says(said), skill_of, "Hello, tell me"), said)


@pytest.mark.parametrize("said", [
    "We are open 9-13, 95 Main St, Leeds.",
    "Open 9 to 5; call 01632 960 395.",
    "We have 3 chapels and 1 car park; parking is £2 an hour.",
    "Vi har öppet 9-17, Storgatan 95.",  # Swedish with no currency beside it
])
def test_a_public_answer_with_numbers_near_the_value_goes_through(config: Path,
                                                                  said: str) -> None:
    events = _run(config, _says(said), _public)
    assert events[-1].message.parts[0].text == said
