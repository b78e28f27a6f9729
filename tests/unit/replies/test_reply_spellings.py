"""OR-5.3 in ``acap check-reply``: a referral that then gives the price however it is
spelled (attacker trial 3, F3 and F5): one reply, one verdict with the private values or
without. With ``--operator`` the value is an error and an amount that is no value stays a
warning; without it, the amount is a warning named as the reply shows it, whole."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support.cards import acap, run_build

REFERS = "The chapel gives its prices to the person who asks: https://ask.example.com/talk"

#: The price, then how the warning without private values names it.
SPELLED = {
    "a line break": ("£2,\n450", "£2,450"),
    "Markdown emphasis": ("£2,4**50**", "£2,450"),
    "spaced digits": ("£ 2 4 5 0", "£ 2 4 5 0"),
    "words and digits": ("two thousand 4 hundred fifty pounds",
                         "two thousand 4 hundred fifty pounds"),
    "Japanese numerals": ("二千四百五十ポンド", "GBP"),
}


def _setup(example: Path, said: str) -> tuple[Path, Path]:
    assert run_build(example).report.ok
    card = example.parent / "site" / "example.com" / ".well-known" / "agent-card.json"
    reply = example.parent / "reply.json"
    body = {"messageId": "m-1", "role": "ROLE_AGENT", "parts": [{"text": f"{REFERS} {said}"}]}
    reply.write_text(json.dumps(body, ensure_ascii=False), encoding="utf-8")
    (example.parent / "operator.private.yaml").write_text('service-pricing: ["£2,450"]\n',
                                                           encoding="utf-8")
    return card, reply


def _check(card: Path, reply: Path, *more: str) -> tuple[int, str]:
    out = acap("check-reply", str(reply), "--card", str(card), "--not-activated",
               "--skill", "service-pricing", *more)
    return out.exit_code, out.stderr


@pytest.mark.parametrize("name", sorted(SPELLED))
def test_the_private_value_however_spelled_is_the_error(example: Path, name: str) -> None:
    said, _ = SPELLED[name]
    card, reply = _setup(example, said)
    code, err = _check(card, reply, "--operator", str(example))
    assert code == 1, err
    assert "error: the reply refers the person to https://ask.example.com/talk, yet states a " \
           "value the operator gives on request (" in err
    assert "operator.private.yaml line 1 (service-pricing)) [OR-5.3]" in err
    assert "2,450" not in err and "2450" not in err


@pytest.mark.parametrize("name", sorted(SPELLED))
def test_without_the_private_values_the_amount_is_named_whole(example: Path,
                                                              name: str) -> None:
    said, shown = SPELLED[name]
    card, reply = _setup(example, said)
    code, err = _check(card, reply)
    assert code == 0, err
    warned = [line for line in err.splitlines() if "warning:" in line and "[OR-5.3]" in line]
    assert len(warned) == 1, err
    assert f"({shown}" in warned[0] or (name == "Japanese numerals" and "GBP" in warned[0]), err


def test_with_the_operator_another_amount_stays_a_warning(example: Path) -> None:
    """The value is the error, and another sum the reply states is still a warning."""
    card, reply = _setup(example, "£2,\n450, or £99 for the urn.")
    code, err = _check(card, reply, "--operator", str(example))
    assert code == 1, err
    assert "operator.private.yaml line 1 (service-pricing)) [OR-5.3]" in err
    assert "warning: the reply refers the person to https://ask.example.com/talk, yet states " \
           "an amount of money (£99)" in err


def test_a_public_answer_with_near_numbers_is_no_finding(example: Path) -> None:
    card, reply = _setup(example, "We are at 9-24, 50 Main St.")
    code, err = _check(card, reply, "--operator", str(example))
    assert code == 0 and "[OR-5.3]" not in err, err


def test_a_reply_past_what_is_read_says_so(example: Path) -> None:
    """F9: check-reply reads a reply's first 256 KiB for what it gives, as the egress
    guard's readers do, and says the rest was not read (OR-5.3, a warning), in seconds."""
    import time

    card, reply = _setup(example, "one thousand and " * 60000)
    start = time.monotonic()
    code, err = _check(card, reply)
    assert time.monotonic() - start < 15
    assert code == 0, err
    assert "996 KiB of text: what is past the first 256 KiB is not read" in err
    assert "[OR-5.3]" in err
