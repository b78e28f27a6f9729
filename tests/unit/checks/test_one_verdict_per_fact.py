"""One judgement per fact (issue 21): for each requirement id and every surface that can
see its fact (operator.yaml at build, a card with ``acap check``, a reply with ``acap
check-reply``, a pair of replies as ``acap probe`` judges them), the same fact gives the
same verdict: the levels of that rule's findings, or none.

Each fact is written once, as the value it is about (a personEntry, a skill's words, a
reply's words), and put on each surface: the operator file
tests/cases/operator/valid/minimal.yaml, the card tests/cases/card/valid/annex-a-like.json
(both with ``example.com``'s personEntry ``https://example.com/talk``), a reply to that
card carrying the card's personEntry, and the pair of replies (activated, not) that the
probe sends for a caller acting for nobody. The probe's verdicts are the reply checker's
(:func:`acap.replies.compare_replies`); a test of acap probe against a real agent is
tests/unit/agent/test_probe_command.py.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from acap.builder import check_operator_file
from acap.checks import PrivateValue, check_card
from acap.replies import check_reply, compare_replies
from support.paths import CASES

OPERATOR = (CASES / "operator" / "valid" / "minimal.yaml").read_text(encoding="utf-8")
CARD = json.loads((CASES / "card" / "valid" / "annex-a-like.json").read_text(encoding="utf-8"))
URI = "https://agent-capability.org/ext/on-request/v1"
ENTRY = "https://example.com/talk"
SKILL_TEXT = "Costs of the chapel's services, given to the person who asks."
STAFF = "Transfer to a funeral director, Monday to Friday 09:00 to 17:00, in English."


@dataclass
class Fact:
    """One fact, as each surface shows it.

    Attributes:
        rule: the requirement (or acap rule) id judged.
        verdict: the levels of its findings on every surface (``()``: none).
        entry: the personEntry (operator.yaml, card, reply's §6.1 object alike).
        said: the words of the reply (``{entry}`` is the personEntry as the card has it).
        skill_text: the on-request skill's description (operator.yaml, card).
        no_staff: no skill says how to reach staff (operator.yaml: no reachesStaff; card:
            its words).
        surfaces: where the fact can be seen.
        private: values given on request (operator.private.yaml; the reply checker's).
    """

    rule: str
    verdict: tuple[str, ...]
    entry: str = ENTRY
    said: str = "We give prices to the person who asks: {entry}"
    skill_text: str = SKILL_TEXT
    no_staff: bool = False
    surfaces: tuple[str, ...] = ("operator", "card", "reply", "probe")
    private: tuple[str, ...] = ()
    name: str = field(default="")


FACTS = [
    Fact("OR-3.8", ("error",), entry=ENTRY + "?topic=funeral", name="a query string"),
    Fact("OR-3.8", (), entry=ENTRY + "?", name="an empty query"),
    Fact("OR-3.8", (), entry=ENTRY + "#ask", name="a neutral fragment"),
    Fact("OR-3.8", ("error",), entry="https://example.com/bereavement",
         name="the text's own example"),
    Fact("OR-3.8", ("warning",), entry="https://example.com/funeral-home/talk",
         name="a word of acap's list"),
    Fact("OR-3.8", ("warning",), entry="https://example.com/talk/12345678",
         name="a segment like an identifier"),
    Fact("URL-FORM", ("error",), entry="https://family@example.com/talk",
         name="user information"),
    Fact("OR-3.4", ("error",), entry="http://example.com/talk", name="http"),
    Fact("OR-3.4", (), entry="HTTPS://EXAMPLE.COM/talk", name="https in capitals"),
    Fact("OR-3.4", (), entry="https://example.com:443/talk", name="the default port"),
    Fact("OR-3.9", ("warning",), skill_text="Costs of our services, from £1,395, given to "
         "the person who asks.", surfaces=("operator", "card"), name="an amount in the text"),
    Fact("OR-5.10", ("warning",), no_staff=True, surfaces=("operator", "card"),
         name="nobody to reach"),
    Fact("OR-5.3", ("warning",), said="A cremation is £1,395; ask here: {entry}",
         surfaces=("reply", "probe"), name="a referral naming an amount"),
    Fact("OR-5.3", ("error",), said="A cremation is £1,395; ask here: {entry}",
         private=("£1,395",), surfaces=("reply", "probe"),
         name="a referral naming a private value"),
    Fact("OR-5.3", ("warning",), said="We don't have a price list. Ask here: {entry}",
         surfaces=("reply", "probe"), name="words that deny it exists"),
    Fact("OR-5.3", (), said="Prices are not available to assistants; ask here: {entry}",
         surfaces=("reply", "probe"), name="not available to assistants"),
    Fact("OR-6.2", ("error",), said="We give prices to the person who asks.",
         surfaces=("reply", "probe"), name="a marked referral without the address"),
]


def _operator(fact: Fact, folder: Path) -> list[str]:
    text = OPERATOR.replace(f"personEntry: {ENTRY}", f"personEntry: {json.dumps(fact.entry)}")
    text = text.replace(f"description: {SKILL_TEXT}", f"description: {json.dumps(fact.skill_text)}")
    if fact.no_staff:
        text = text.replace("    reachesStaff: true\n", "").replace(STAFF, "Where to find us.")
    path = folder / "operator.yaml"
    path.write_text(text, encoding="utf-8")
    if fact.private:
        (folder / "operator.private.yaml").write_text(
            "service-pricing:\n" + "".join(f"  - {json.dumps(v)}\n" for v in fact.private),
            encoding="utf-8")
    return [f.level for f in check_operator_file(path).findings if f.rule == fact.rule]


def _card(fact: Fact) -> dict[str, Any]:
    card = copy.deepcopy(CARD)
    card["capabilities"]["extensions"][0]["params"]["skills"][0]["personEntry"] = fact.entry
    card["skills"][0]["description"] = fact.skill_text
    if fact.no_staff:
        card["skills"][1] = {"id": "where", "name": "Where we are",
                             "description": "Where to find the chapel and when it is open.",
                             "tags": ["location"]}
    return card


def _reply(fact: Fact, marked: bool) -> dict[str, Any]:
    msg: dict[str, Any] = {"messageId": "m-1", "role": "ROLE_AGENT",
                           "parts": [{"text": fact.said.format(entry=fact.entry)}]}
    if marked:
        msg["extensions"] = [URI]
        msg["metadata"] = {URI: {"status": "on-request", "skillId": "service-pricing",
                                 "personEntry": fact.entry}}
    return msg


def _values(fact: Fact) -> list[PrivateValue]:
    return [PrivateValue("service-pricing", v, "operator.private.yaml", i + 2)
            for i, v in enumerate(fact.private)]


def verdict(fact: Fact, surface: str, folder: Path) -> tuple[str, ...]:
    """The levels of ``fact.rule``'s findings on ``surface``, sorted, without repeats."""
    if surface == "operator":
        levels = _operator(fact, folder)
    elif surface == "card":
        levels = [f.level for f in check_card(json.dumps(_card(fact)).encode()).findings
                  if f.rule == fact.rule]
    elif surface == "reply":
        levels = [f.level for f in check_reply(_reply(fact, True), _card(fact), activated=True,
                                                private_values=_values(fact)).findings
                  if f.rule == fact.rule]
    else:  # the probe: the pair of replies to a caller acting for nobody
        found = compare_replies(_reply(fact, True), _reply(fact, False), _card(fact),
                                skill_id="service-pricing", for_named_person=False,
                                private_values=_values(fact)).findings
        levels = [f.level for f in found if f.rule == fact.rule]
    return tuple(sorted(set(levels)))


@pytest.mark.parametrize("fact", FACTS, ids=[f"{f.rule} {f.name}" for f in FACTS])
def test_the_same_fact_gives_the_same_verdict_everywhere(fact: Fact, tmp_path: Path) -> None:
    got = {s: verdict(fact, s, tmp_path) for s in fact.surfaces}
    assert got == dict.fromkeys(fact.surfaces, fact.verdict), got


def test_every_id_judged_on_two_surfaces_has_a_fact() -> None:
    """The registry's ids checked at build and in a card, or in a reply and by the probe,
    that a personEntry, a skill's words or a reply's words show, each have a fact here."""
    covered = {f.rule for f in FACTS}
    assert {"OR-3.4", "OR-3.8", "OR-3.9", "OR-5.10", "OR-5.3", "OR-6.2"} <= covered
