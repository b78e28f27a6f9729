"""``acap check`` and ``acap verify`` judge a card's members with one judgement (issue 14,
item 2), and ``acap check`` gives no traceback and no ACAP-BUG for any card text.

* Every card case file is checked and verified; the findings of the member rules (and
  of the reader: a name twice, a lone surrogate, a number beyond I-JSON) are the same,
  rule, level, pointer and line.
* Hypothesis writes card texts a reader must survive: a valid card with any value put
  anywhere, lone surrogate escapes in names and texts, integers of any size, names
  written twice, deep nesting. ``acap check`` of each gives findings only.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from acap.card import Verifier, verify_card
from acap.checks import check_card, check_card_file
from acap.findings import Finding
from acap.load import JsonDocument, parse_document
from acap.requirements import rule_ids
from support.cards import places
from support.cases import CARD_CASES, Case, card_cases, materialise

#: The rules both commands judge with one judgement.
SHARED = {"CARD-JSON", "CARD-NUMBER", "A2A-LEGACY", "A2A-REQUIRED", "A2A-TYPE",
          "A2A-FIELD-NAME", "A2A-UNKNOWN-FIELD", "A2A-EMPTY", "A2A-MEDIA-TYPE",
          ("A2A-OAUTH-FLOWS", "error")}


def shared(findings: list[Finding]) -> list[tuple[str, str, str | None, int | None]]:
    return sorted(((f.rule, f.level, f.location.pointer, f.location.line) for f in findings
                   if f.rule in SHARED or (f.rule, f.level) in SHARED), key=str)


@pytest.mark.parametrize("case", card_cases() + card_cases(valid=True), ids=lambda c: c.id)
def test_check_and_verify_agree_on_every_case(case: Case, tmp_path: Path) -> None:
    path = materialise(case.path, tmp_path / case.path.name)
    no_keys = tmp_path / "jwks.json"
    no_keys.write_text('{"keys": []}', encoding="utf-8")
    checked = check_card(str(path))
    verified = verify_card(str(path), str(no_keys))
    assert shared(checked.report.findings) == shared(verified.report.findings)


def test_the_comparison_sees_the_member_rules() -> None:
    """The comparison is not empty: the case files give every shared rule somewhere."""
    seen: set[str] = set()
    for case in card_cases():
        seen |= {e[0] for e in case.expected}
    assert {r for r in SHARED if isinstance(r, str)} - seen == set()


# -- any text: findings, never a traceback, never ACAP-BUG --------------------------------

_BASE = json.loads((CARD_CASES / "valid" / "annex-a-like.json").read_text(encoding="utf-8"))
_ANY_TEXT = st.text(st.characters(codec=None), max_size=8)  # lone surrogates included
_NUMBER_TEXT = st.one_of(st.integers().map(str), st.sampled_from(
    ["9" * 5000, "-" + "9" * 400, "1e400", "-1e400", "1e-400", "9007199254740993", "-0",
     "0.1e1", "123456789012345678901234567890.5"]))


class _Num:
    def __init__(self, text: str) -> None:
        self.text = text


def _values() -> st.SearchStrategy[Any]:
    leaves = st.one_of(st.none(), st.booleans(), _ANY_TEXT, _NUMBER_TEXT.map(_Num))
    return st.recursive(leaves, lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.lists(st.tuples(_ANY_TEXT, inner), max_size=3)), max_leaves=10)


def _dump(v: Any) -> str:
    """JSON text: a list of pairs is an object (so a name may come twice)."""
    if isinstance(v, _Num):
        return v.text
    if isinstance(v, list) and v and all(isinstance(x, tuple) for x in v):
        return "{" + ",".join(json.dumps(k) + ":" + _dump(x) for k, x in v) + "}"
    if isinstance(v, list):
        return "[" + ",".join(_dump(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ",".join(json.dumps(k) + ":" + _dump(x) for k, x in v.items()) + "}"
    return json.dumps(v)  # ensure_ascii: a lone surrogate becomes its escape


_PLACES = [p for p in places(_BASE) if p]


@st.composite
def card_texts(draw: st.DrawFn) -> str:
    card: Any = copy.deepcopy(_BASE)
    for _ in range(draw(st.integers(1, 4))):
        place = draw(st.sampled_from(_PLACES))
        value = draw(_values())
        target = card
        try:
            for key in place[:-1]:
                target = target[key]
            if draw(st.booleans()) and isinstance(target, dict):
                target[draw(_ANY_TEXT)] = value  # a new member, maybe an odd name
            else:
                target[place[-1]] = value
        except (KeyError, IndexError, TypeError):
            continue
    text = _dump(card)
    if draw(st.booleans()):  # a name written twice, in the text itself
        text = text.replace('"name":', '"name": "first", "name":', 1)
    return text


@settings(max_examples=300, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(text=card_texts())
def test_check_of_any_card_gives_findings_never_acap_bug(text: str) -> None:
    cf = JsonDocument("card.json", raw=text.encode("utf-8", "surrogatepass"))
    parse_document(cf)
    result = check_card_file(cf, url="https://example.com/.well-known/agent-card.json")
    assert [f.message for f in result.report if f.rule == "ACAP-BUG"] == []
    assert {f.rule for f in result.report} <= rule_ids()
    if isinstance(cf.data, dict):  # and verify reads it too, without a traceback
        res = Verifier.from_jwks({"keys": []}).verify(cf.data, cf=cf)
        assert {f.rule for f in res.report} <= rule_ids()


def test_a_lone_surrogate_gives_its_finding_and_every_other_check_runs() -> None:
    text = json.dumps(_BASE).replace('"name": "', '"name": "\\ud800', 1)
    cf = JsonDocument("card.json", raw=text.encode())
    parse_document(cf)
    result = check_card_file(cf)
    rules = [f.rule for f in result.report]
    assert "ACAP-BUG" not in rules
    assert rules.count("CARD-JSON") == 1
    assert result.skipped  # the checks ran to the end
