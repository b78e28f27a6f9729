"""Reply case files: tests/cases/reply/<name>.json (a reply) + <name>.expect.

An .expect file holds ``key: value`` lines; ``#`` starts a comment:

* ``expect: RULE LEVEL LINE`` — one finding the checker must report in this reply
  file (``LINE`` is ``-`` for a finding without a line); ``expect: none`` for a
  reply that must pass. The findings must be exactly these, no more.
* ``card: NAME`` — tests/cases/reply/cards/NAME.json (default ``annex-a1``, the spec's
  Annex A.1 card).
* ``activated: true|false`` (default true), ``skill: ID``, ``for-named-person: true|false``,
  ``action: true|false``, ``safeguards-hold: true|false``, ``response-extensions: VALUE``:
  the arguments of :func:`acap.replies.check.check_reply`.
* ``compare: OTHER.json`` — OR-5.1: this reply is the activated one and OTHER the
  reply to the same request without activation (:func:`compare_replies`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acap.findings import Finding
from acap.replies.check import check_reply, compare_replies, read_reply

CASES = Path(__file__).resolve().parent / "cases" / "reply"
CARDS = CASES / "cards"
DEFAULT_CARD = "annex-a1"

Expect = tuple[str, str, "int | None"]


@dataclass
class Case:
    """One reply case."""

    name: str
    reply: Path
    card: str = DEFAULT_CARD
    options: dict[str, Any] = field(default_factory=dict)
    compare: str | None = None
    expects: list[Expect] = field(default_factory=list)
    none: bool = False


_BOOL = {"true": True, "false": False}
_OPTS = {"activated": "activated", "skill": "skill_id", "for-named-person": "for_named_person",
         "action": "action", "safeguards-hold": "safeguards_hold",
         "response-extensions": "response_extensions"}


def load_case(expect_file: Path) -> Case:
    """Read ``<name>.expect`` beside ``<name>.json``.

    Raises:
        ValueError: a line the format does not know (a broken case must not pass).
    """
    case = Case(expect_file.stem, expect_file.with_suffix(".json"))
    case.options["activated"] = True
    for n, raw in enumerate(expect_file.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.split("#", 1)[0].strip() if not raw.lstrip().startswith("#") else ""
        if not line:
            continue
        key, sep, value = line.partition(":")
        key, value = key.strip(), value.strip()
        if not sep:
            raise ValueError(f"{expect_file}:{n}: expected 'key: value'")
        if key == "expect":
            if value == "none":
                case.none = True
                continue
            rule, level, where = value.split()
            case.expects.append((rule, level, None if where == "-" else int(where)))
        elif key == "card":
            case.card = value
        elif key == "compare":
            case.compare = value
        elif key in _OPTS:
            case.options[_OPTS[key]] = _BOOL.get(value, value) if key not in (
                "skill", "response-extensions") else value
        else:
            raise ValueError(f"{expect_file}:{n}: unknown key {key!r}")
    if case.none == bool(case.expects):
        raise ValueError(f"{expect_file}: give either 'expect: none' or expect lines")
    return case


def all_cases() -> list[Case]:
    """Every case, by name."""
    return [load_case(p) for p in sorted(CASES.glob("*.expect"))]


def card_data(name: str) -> Any:
    """A card of tests/cases/reply/cards/ as parsed JSON."""
    return json.loads((CARDS / f"{name}.json").read_text(encoding="utf-8"))


def run_case(case: Case) -> list[Finding]:
    """The findings the checker reports for the case's own reply file."""
    card = card_data(case.card)
    rf = read_reply(case.reply)
    if case.compare:
        opts = {k: v for k, v in case.options.items()
                if k in ("skill_id", "for_named_person", "action", "safeguards_hold")}
        found = compare_replies(rf, read_reply(CASES / case.compare), card, **opts)
    else:
        found = check_reply(rf, card, **case.options)
    return [f for f in found if f.location.file == str(case.reply)]


def missing_failing_cases(rule_ids: set[str], cases: list[Case]) -> list[str]:
    """The ids in ``rule_ids`` that no case expects a finding for, sorted."""
    covered = {rule for c in cases for rule, _, _ in c.expects}
    return sorted(rule_ids - covered)
