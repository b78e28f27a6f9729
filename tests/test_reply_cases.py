"""Reply case files (tests/cases/reply/): each reply gives exactly the findings its .expect lists.

Plus the meta-tests: every requirement id the registry checks "in a reply check"
has a reply case that fails it, and so has every rule id of acap's own that the
reply checker emits.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from acap.replies.check import OWN_RULES, REPLY_REQUIREMENTS
from acap.requirements import requirements, rule_ids
from reply_cases import CASES, Case, all_cases, load_case, missing_failing_cases, run_case

CASE_LIST = all_cases()


@pytest.mark.parametrize("case", CASE_LIST, ids=[c.name for c in CASE_LIST])
def test_reply_case(case: Case) -> None:
    got = sorted(((f.rule, f.level, f.location.line) for f in run_case(case)),
                 key=lambda t: (t[0], t[1], t[2] or 0))
    want = sorted(case.expects, key=lambda t: (t[0], t[1], t[2] or 0))
    assert got == want


def test_every_reply_file_has_an_expect_file() -> None:
    replies = {p.stem for p in CASES.glob("*.json")}
    expects = {p.stem for p in CASES.glob("*.expect")}
    assert replies == expects
    for c in CASE_LIST:
        assert (CASES / "cards" / f"{c.card}.json").is_file(), c.name
        if c.compare:
            assert (CASES / c.compare).is_file(), c.name


def reply_ids_of_registry() -> set[str]:
    return {r.id for r in requirements() if "reply" in r.where}


def test_registry_reply_ids_are_the_checker_ids() -> None:
    # The registry says "reply" exactly for the ids the reply checker enforces.
    assert reply_ids_of_registry() == set(REPLY_REQUIREMENTS)


def test_every_reply_checkable_id_has_a_failing_reply_case() -> None:
    assert missing_failing_cases(reply_ids_of_registry(), CASE_LIST) == []
    # ... and at level error for the MUST/MUST NOT ids: a warning alone does not
    # show that the checker can fail a reply for it.
    errors = {rule for c in CASE_LIST for rule, level, _ in c.expects if level == "error"}
    assert reply_ids_of_registry() <= errors


def test_meta_test_reports_an_id_without_a_case(tmp_path: Path) -> None:
    # The meta-test fails when an id has no failing case: drop OR-5.8's cases.
    fewer = [c for c in CASE_LIST if not any(r == "OR-5.8" for r, _, _ in c.expects)]
    assert missing_failing_cases(reply_ids_of_registry(), fewer) == ["OR-5.8"]
    assert missing_failing_cases({"OR-6.1", "OR-9.9"}, CASE_LIST) == ["OR-9.9"]


def test_own_rules_are_registered_and_have_cases() -> None:
    assert set(OWN_RULES) <= rule_ids()
    # REPLY-READ (an unreadable file) cannot be a case file; test_replies covers it.
    assert missing_failing_cases(set(OWN_RULES) - {"REPLY-READ"}, CASE_LIST) == []


def test_case_format_rejects_unknown_keys(tmp_path: Path) -> None:
    bad = tmp_path / "x.expect"
    bad.write_text("activted: false\nexpect: none\n", encoding="utf-8")
    with pytest.raises(ValueError, match="unknown key"):
        load_case(bad)
    bad.write_text("# nothing expected\n", encoding="utf-8")
    with pytest.raises(ValueError, match="expect"):
        load_case(bad)

