"""Issue 21's hand-made replies (tests/cases/differential/replies.json): each gets the
verdict the seed's text gives from ``acap check-reply``'s judge (:func:`check_reply`),
whatever spelling of the card's own address it carries (RFC 3986, RFC 3966), with one
finding per fault; and the official a2a-sdk reads each as the A2A 1.0 object it is (a
reply acap judges is one the reference SDK accepts)."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from acap.replies import check_reply
from support.paths import CASES

DOC = json.loads((CASES / "differential" / "replies.json").read_text(encoding="utf-8"))
CARDS = CASES / "reply" / "cards"
CASE_LIST: list[dict[str, Any]] = DOC["cases"]


def card_of(case: dict[str, Any]) -> dict[str, Any]:
    card: dict[str, Any] = json.loads((CARDS / f"{case.get('card', 'annex-a1')}.json")
                                      .read_text(encoding="utf-8"))
    if "entry" in case:
        card = copy.deepcopy(card)
        for e in card["capabilities"]["extensions"][0]["params"]["skills"]:
            if e["id"] == "service-pricing":
                e["personEntry"] = case["entry"]
    return card


def test_there_are_enough_hand_made_replies() -> None:
    assert len(CASE_LIST) >= 25
    assert len({c["name"] for c in CASE_LIST}) == len(CASE_LIST)
    assert all(c.get("text") for c in CASE_LIST)


@pytest.mark.parametrize("case", CASE_LIST, ids=[c["name"] for c in CASE_LIST])
def test_check_reply_gives_the_texts_verdict(case: dict[str, Any]) -> None:
    options = {"activated": True, **case.get("options", {})}
    res = check_reply(case["reply"], card_of(case), **options)
    got = sorted((f.rule, f.level) for f in res.findings)
    assert got == sorted(tuple(e) for e in case["expect"]), \
        "\n".join(f"{f.rule} {f.level}: {f.message}" for f in res.findings)
    assert sorted({r for r, _ in res.not_judged}) == sorted(case.get("notJudged", []))
    assert res.ok is not any(level == "error" for _, level in case["expect"])


@pytest.mark.parametrize("case", CASE_LIST, ids=[c["name"] for c in CASE_LIST])
def test_the_official_sdk_reads_the_reply(case: dict[str, Any]) -> None:
    from a2a.types import Message, Task
    from google.protobuf.json_format import ParseDict

    reply = case["reply"]
    kind = Message if "messageId" in reply else Task
    parsed = ParseDict(reply, kind())
    assert parsed.ListFields(), case["name"]
