"""OR-5.3: a referral gives nothing of what it refers (issue 14): a reply that gives the
personEntry and still states the price is caught, with the operator's private values
(an error) or by the money heuristic (a warning)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support.cards import acap, run_build

REPLY = {"messageId": "m-1", "role": "ROLE_AGENT", "parts": [{"text": (
    "Our cremation service is £2,450. The chapel gives its prices to the person who asks: "
    "https://ask.example.com/talk")}]}


def _setup(example: Path) -> tuple[Path, Path]:
    assert run_build(example).report.ok
    card = example.parent / "site" / "example.com" / ".well-known" / "agent-card.json"
    reply = example.parent / "reply.json"
    reply.write_text(json.dumps(REPLY, indent=2), encoding="utf-8")
    return card, reply


def test_with_the_private_values_a_stated_price_is_an_error(example: Path) -> None:
    card, reply = _setup(example)
    (example.parent / "operator.private.yaml").write_text('service-pricing: ["£2,450"]\n',
                                                           encoding="utf-8")
    out = acap("check-reply", str(reply), "--card", str(card), "--not-activated",
               "--skill", "service-pricing", "--operator", str(example))
    assert out.exit_code == 1
    assert "error: the reply refers the person to https://ask.example.com/talk, yet states a " \
           "value the operator gives on request (" in out.stderr
    assert "operator.private.yaml line 1 (service-pricing)) [OR-5.3]" in out.stderr
    assert "2,450" not in out.stderr  # the private value itself is never printed


def test_without_them_an_amount_of_money_is_a_warning(example: Path) -> None:
    card, reply = _setup(example)
    out = acap("check-reply", str(reply), "--card", str(card), "--not-activated",
               "--skill", "service-pricing")
    assert out.exit_code == 0
    assert "warning: the reply refers the person to https://ask.example.com/talk, yet states " \
           "an amount of money (£2,450)" in out.stderr


def test_a_plain_referral_says_nothing(example: Path) -> None:
    card, reply = _setup(example)
    plain = dict(REPLY, parts=[{"text": "The chapel gives its prices to the person who asks: "
                                        "https://ask.example.com/talk"}])
    reply.write_text(json.dumps(plain), encoding="utf-8")
    out = acap("check-reply", str(reply), "--card", str(card), "--not-activated",
               "--skill", "service-pricing")
    assert out.exit_code == 0 and "[OR-5.3]" not in out.stderr


REFERS = ("The chapel gives its prices to the person who asks: https://ask.example.com/talk")

#: A referral whose words are clean, the price elsewhere in the reply (the attacker trial's
#: HIGH 2): each is OR-5.3's error with the private values, at the line that carries it.
HIDDEN = {
    "a data part's JSON number": (
        {"messageId": "m-1", "role": "ROLE_AGENT", "parts": [
            {"text": REFERS}, {"data": {"amount": 2450, "currency": "GBP"}}]}, '"amount"'),
    "the Message's metadata": (
        {"messageId": "m-1", "role": "ROLE_AGENT", "parts": [{"text": REFERS}],
         "metadata": {"quote": "GBP 2450.00"}}, '"quote"'),
    "raw text bytes": (
        {"messageId": "m-1", "role": "ROLE_AGENT", "parts": [
            {"text": REFERS},
            {"raw": "UHJpY2U6IMKjMiw0NTA=", "mediaType": "text/plain"}]}, '"raw"'),
    "fullwidth digits": (
        {"messageId": "m-1", "role": "ROLE_AGENT", "parts": [
            {"text": f"£２，４５０. {REFERS}"}]}, '"text"'),
    "HTML entities": (
        {"messageId": "m-1", "role": "ROLE_AGENT", "parts": [
            {"text": f"&pound;2&#44;450. {REFERS}"}]}, '"text"'),
    "two Parts": (
        {"messageId": "m-1", "role": "ROLE_AGENT", "parts": [
            {"text": "It is £2,"}, {"text": f"450. {REFERS}"}]}, '"text": "450.'),
}


@pytest.mark.parametrize("name", sorted(HIDDEN))
def test_a_value_anywhere_in_the_reply_is_the_error(example: Path, name: str) -> None:
    card, reply = _setup(example)
    body, line_holds = HIDDEN[name]
    text = json.dumps(body, indent=2, ensure_ascii=False)
    reply.write_text(text, encoding="utf-8")
    line = next(n for n, s in enumerate(text.splitlines(), 1) if line_holds in s)
    (example.parent / "operator.private.yaml").write_text('service-pricing: ["£2,450"]\n',
                                                           encoding="utf-8")
    out = acap("check-reply", str(reply), "--card", str(card), "--not-activated",
               "--skill", "service-pricing", "--operator", str(example))
    assert out.exit_code == 1, out.stderr
    assert f"reply.json:{line}:" in out.stderr.split("error: ")[0]
    assert "yet states a value the operator gives on request (" in out.stderr
    assert "operator.private.yaml line 1 (service-pricing)) [OR-5.3]" in out.stderr
    assert "2,450" not in out.stderr and "2450" not in out.stderr
