"""The member judgements say what to do, and what they say is true (issue 14)."""

from __future__ import annotations

import copy
import json
from typing import Any

from acap.card import member_findings
from acap.findings import Location
from support.cases import CARD_CASES

BASE: dict[str, Any] = json.loads((CARD_CASES / "valid" / "annex-a-like.json")
                                  .read_text(encoding="utf-8"))


def judge(card: dict[str, Any]) -> list[tuple[str, str, str | None, str | None]]:
    return [(f.rule, f.level, f.location.pointer, f.hint)
            for f in member_findings(card, lambda p: Location("card.json", pointer=p))]


def test_empty_capabilities_is_not_told_to_be_left_out() -> None:
    """capabilities is REQUIRED: leaving it out would be A2A-REQUIRED."""
    card = copy.deepcopy(BASE)
    card["capabilities"] = {}
    [(rule, level, ptr, hint)] = judge(card)
    assert (rule, level, ptr) == ("A2A-EMPTY", "warning", "/capabilities")
    assert hint == ('it is REQUIRED, so it cannot be left out: give it a value ("streaming": '
                    'false is enough)')
    del card["capabilities"]
    assert [r[0] for r in judge(card)] == ["A2A-REQUIRED"]


def test_an_empty_tag_is_a_warning_like_an_empty_example() -> None:
    card = copy.deepcopy(BASE)
    card["skills"][0]["tags"] = ["", "x"]
    card["skills"][0]["examples"] = [""]
    assert [(r, lv, p) for r, lv, p, _ in judge(card)] == [
        ("A2A-EMPTY", "warning", "/skills/0/examples/0"),
        ("A2A-EMPTY", "warning", "/skills/0/tags/0")]
    card["skills"][0]["tags"] = ["", " "]  # nothing left once the SDKs drop the empties
    assert ("A2A-REQUIRED", "error", "/skills/0/tags") in [(r, lv, p) for r, lv, p, _ in
                                                           judge(card)]


def test_null_is_unset_not_a_type_error() -> None:
    card = copy.deepcopy(BASE)
    card["documentationUrl"] = None
    card["provider"] = None
    found = [(r, lv, p) for r, lv, p, _ in judge(card)]
    assert ("A2A-TYPE" not in {r for r, _, _ in found})
    assert ("A2A-EMPTY", "warning", "/documentationUrl") in found
    assert ("A2A-EMPTY", "warning", "/provider") in found
