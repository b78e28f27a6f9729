"""Every reply case under tests/cases/reply gives exactly the findings it expects
(rule, level, line), and every id the registry checks "in a reply check" has one that
fails it (the meta-test).

Merging note: tests/test_cases.py (the card and operator cases) keeps a COVERAGE map
per place; ``reply_coverage`` below is what its ``"reply"`` entry would be.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import pytest

from acap.cli import finding_text
from acap.load import read_reply
from acap.replies import check_reply
from acap.replies._check import OWN_RULES, REPLY_REQUIREMENTS
from acap.requirements import requirement, requirements, rule_ids
from support.replies import (
    CARDS,
    CASES,
    Case,
    found,
    missing_failing_cases,
    reply_case,
    reply_cases,
    run_case,
)

FAILING = reply_cases()
VALID = reply_cases(valid=True)


@pytest.mark.parametrize("case", FAILING, ids=lambda c: c.id)
def test_reply_case(case: Case) -> None:
    assert case.expected, f"{case.path.name} has no .expect lines"
    got = run_case(case)
    assert found(got) == case.expected, "\n".join(finding_text(f) for f in got)


@pytest.mark.parametrize("case", VALID, ids=lambda c: c.id)
def test_valid_reply_case(case: Case) -> None:
    got = run_case(case)
    assert [f for f in got if f.level == "error"] == []
    assert found(got) == case.expected, "\n".join(finding_text(f) for f in got)


def test_case_files_are_whole() -> None:
    assert {p.stem for p in CASES.glob("*.expect")} == {c.path.stem for c in FAILING}
    assert {p.stem for p in (CASES / "valid").glob("*.expect")} <= {c.path.stem for c in VALID}
    for c in FAILING + VALID:
        assert (CARDS / f"{c.card}.json").is_file(), c.id
        assert c.compare is None or c.compare.is_file(), c.id


# -- hostile inputs: files that cannot be case files ----------------------------------------

def _hostile(tmp: Path) -> dict[str, tuple[Path, str]]:
    big = tmp / "big.json"
    big.write_bytes(b" " * (1024 * 1024 + 1))
    utf16 = tmp / "utf16.json"
    utf16.write_bytes('{"messageId": "m"}'.encode("utf-16"))
    deep = tmp / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    return {"missing": (tmp / "missing.json", "REPLY-READ"),
            "larger-than-1-MiB": (big, "REPLY-READ"),
            "a-folder": (tmp, "REPLY-READ"),
            "utf-16": (utf16, "REPLY-JSON"),
            "deep-nesting": (deep, "REPLY-JSON")}


HOSTILE_COVERS = {"REPLY-READ", "REPLY-JSON"}
HOSTILE_NAMES = ["missing", "larger-than-1-MiB", "a-folder", "utf-16", "deep-nesting"]


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_hostile_reply_is_one_finding(name: str, tmp_path: Path) -> None:
    path, rule = _hostile(tmp_path)[name]
    got = check_reply(read_reply(path), json.loads((CARDS / "annex-a1.json").read_text()),
                      activated=True).findings
    assert [(f.rule, f.level) for f in got] == [(rule, "error")]


def test_hostile_names_are_all_tested(tmp_path: Path) -> None:
    assert sorted(_hostile(tmp_path)) == sorted(HOSTILE_NAMES)
    assert {r for _, r in _hostile(tmp_path).values()} == HOSTILE_COVERS


# -- the registry and the cases ------------------------------------------------------------

def reply_checked_ids() -> set[str]:
    """Every id the registry says is checked in a reply check (requirements and own rules)."""
    ids = {r.id for r in requirements() if "reply" in r.where}
    doc = json.loads(resources.files("acap").joinpath("data/requirements.json").read_bytes())
    ids |= {e["id"] for e in doc["rules"] if "reply" in e.get("where", ())}
    return ids


def reply_coverage(cases: list[Case]) -> set[str]:
    """The ids some failing reply example proves."""
    return {rule for c in cases for rule in c.rules()} | HOSTILE_COVERS


def test_registry_reply_ids_are_the_checkers() -> None:
    assert reply_checked_ids() == set(REPLY_REQUIREMENTS) | set(OWN_RULES)
    for rid in REPLY_REQUIREMENTS:
        assert requirement(rid).check_note, f"{rid}: say what a reply check covers"


def test_every_reply_checked_id_has_a_failing_example() -> None:
    missing = sorted(reply_checked_ids() - reply_coverage(FAILING))
    assert not missing, f"checked in a reply check but no failing example: {missing}"
    # The requirement ids must each be failed at level error: a heuristic warning
    # alone does not show that the checker can fail a reply for them.
    errors = {r for c in FAILING for r, level, _ in c.expected if level == "error"}
    assert set(REPLY_REQUIREMENTS) <= errors


def test_the_meta_test_can_fail() -> None:
    """Drop OR-5.8's cases, or register an id nobody tests: the meta-test reports it."""
    fewer = [c for c in FAILING if "OR-5.8" not in c.rules()]
    assert sorted(reply_checked_ids() - reply_coverage(fewer)) == ["OR-5.8"]
    assert missing_failing_cases({"OR-6.1", "OR-9.9"}, FAILING) == ["OR-9.9"]


def test_cases_cite_only_registered_ids() -> None:
    assert {r for c in FAILING + VALID for r in c.rules()} - rule_ids() == set()


def test_case_format_rejects_what_it_does_not_know(tmp_path: Path) -> None:
    reply = tmp_path / "x.json"
    reply.write_text("{}", encoding="utf-8")
    for bad in ("@activted false", "@activated maybe", "OR-6.1 eror 3", "OR-6.1 error"):
        reply.with_suffix(".expect").write_text(bad + "\n", encoding="utf-8")
        with pytest.raises(ValueError):
            reply_case(reply)
