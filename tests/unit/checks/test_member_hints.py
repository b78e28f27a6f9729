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


def test_a_typo_d_member_of_a_card_gets_a_did_you_mean(tmp_path: Any) -> None:
    """Fresh-operator trial (LOW): a misspelt member was only "remove it", though it was
    meant as a field the reader then misses. The nearest field is named, at its line, for
    A2A's members and for the On Request entries alike; a member near nothing keeps
    "remove it"."""
    from acap.checks import check_card

    card = copy.deepcopy(BASE)
    card["skills"][0]["exampls"] = card["skills"][0].pop("examples", ["When are you open?"])
    [ext] = [e for e in card["capabilities"]["extensions"] if "on-request" in e["uri"]]
    entry = ext["params"]["skills"][0]
    entry["assistantAcess"] = False
    entry["zzz"] = 1
    path = tmp_path / "card.json"
    text = json.dumps(card, indent=2)
    path.write_text(text, encoding="utf-8")
    lines = text.splitlines()

    def line(key: str) -> int:
        return next(i for i, t in enumerate(lines, 1) if t.strip().startswith(f'"{key}"'))

    found = {(f.rule, f.location.line): f.hint for f in check_card(str(path)).report}
    assert found[("A2A-UNKNOWN-FIELD", line("exampls"))] == \
        "did you mean examples? (as written, it is ignored)"
    assert found[("OR-3.2", line("assistantAcess"))] == \
        "did you mean assistantAccess? (as written, it is ignored)"
    assert found[("OR-3.2", line("zzz"))] == "remove it"
