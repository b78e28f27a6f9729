"""OR-5.3: a referral gives nothing of what it refers (issue 14): a reply that gives the
personEntry and still states the price is caught, with the operator's private values
(an error) or by the money heuristic (a warning)."""

from __future__ import annotations

import json
from pathlib import Path

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
