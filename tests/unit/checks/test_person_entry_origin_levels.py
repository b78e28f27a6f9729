"""OR-3.4's origin (trial 3, F8b): a personEntry on another origin is an error in
operator.yaml, which declares the operator's origins, and a warning on a card, from which
acap guesses them; the rule's listing says why the levels differ."""

from __future__ import annotations

import json
from pathlib import Path

from acap.requirements import requirements
from support.cards import CARD, acap, run_build

OTHER = "https://booking.other-platform.org/chapel"
OURS = "personEntry: https://ask.example.com/talk"


def _line(path: Path, needle: str) -> int:
    return next(n for n, ln in enumerate(path.read_text(encoding="utf-8").split("\n"), 1)
                if needle in ln)


def test_operator_error_card_warning_and_the_listing_says_why(example: Path) -> None:
    assert run_build(example).report.ok
    card = json.loads((example.parent / "site" / CARD).read_text(encoding="utf-8"))
    text = example.read_text(encoding="utf-8")
    assert OURS in text
    example.write_text(text.replace(OURS, f"personEntry: {OTHER}", 1), encoding="utf-8")
    said = acap("check", str(example))
    found = [ln for ln in said.stderr.splitlines() if ln.endswith("[OR-3.4]")]
    assert len(found) == 1 and ": error: " in found[0], said.stderr
    assert found[0].startswith(f"{example}:{_line(example, OTHER)}:")

    for entry in card["capabilities"]["extensions"][0]["params"]["skills"]:
        if entry.get("personEntry") == OURS.split(": ", 1)[1]:
            entry["personEntry"] = OTHER
            break
    path = example.parent / "card.json"
    path.write_text(json.dumps(card, indent=1), encoding="utf-8")
    judged = acap("check", str(path))
    found = [ln for ln in judged.stderr.splitlines() if ln.endswith("[OR-3.4]")]
    assert len(found) == 1 and ": warning: " in found[0] and "a guess" in found[0], judged.stderr
    assert found[0].startswith(f"{path}:{_line(path, OTHER)}:")

    note = next(r for r in requirements() if r.id == "OR-3.4").check_note or ""
    assert "operator.yaml declares the operator's origins" in note and "guesses" in note


CASE = Path(__file__).parents[2] / "cases" / "operator" / \
    "or-3.4-action-by-phone-person-acts-unsaid.yaml"


def test_an_action_by_phone_said_not_done_by_the_person_passes(tmp_path: Path) -> None:
    """F8c: the warning is for personActs unsaid; personActs: false says a call does it."""
    path = tmp_path / "operator.yaml"
    text = CASE.read_text(encoding="utf-8")
    path.write_text(text.replace("    action: true\n", "    action: true\n    personActs: "
                                 "false\n", 1), encoding="utf-8")
    said = acap("check", str(path))
    assert said.exit_code == 0 and "[OR-3.4]" not in said.stderr, said.stderr
    path.write_text(text, encoding="utf-8")
    unsaid = acap("check", str(path))
    found = [ln for ln in unsaid.stderr.splitlines() if ln.endswith("[OR-3.4]")]
    assert len(found) == 1 and found[0].startswith(f"{path}:21:18: warning: "), unsaid.stderr
