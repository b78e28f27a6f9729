"""One result protocol for every public entry point (issue 21): ``ok`` a bool property,
``passes(strict)``, ``report`` and ``findings``, a short repr; ``check_reply`` returns a
result object; every entry point takes a path, bytes or parsed JSON alike."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import acap
from acap.agent import ProbeResult
from acap.builder.batch import BatchResult
from acap.builder.batch._model import OperatorOutcome
from acap.checks import OperatorCheck
from acap.findings import Finding, Location, Report, Result
from acap.publisher import PublishResult
from acap.publisher._live import LiveCheck
from acap.replies import ReplyCheck
from support.paths import CASES

RESULTS = [acap.BuildResult, BatchResult, OperatorOutcome, acap.CardCheck, OperatorCheck,
           acap.Verification, ReplyCheck, PublishResult, LiveCheck, ProbeResult]
BAD_CARD = CASES / "card" / "or-3.4-http.json"


@pytest.mark.parametrize("cls", RESULTS, ids=lambda c: c.__name__)
def test_every_result_follows_the_protocol(cls: type) -> None:
    assert issubclass(cls, Result)
    assert isinstance(cls.ok, property), f"{cls.__name__}.ok must be a property"
    assert isinstance(cls.findings, property)
    assert callable(cls.passes)
    assert cls.__repr__ is Result.__repr__, f"{cls.__name__} has a long repr of its own"


def test_ok_is_false_for_a_bad_card_and_a_bool() -> None:
    res = acap.check_card(str(BAD_CARD))
    assert res.ok is False
    assert res.findings == res.report.findings and res.findings
    good = acap.check_card(str(CASES / "card" / "valid" / "annex-a-like.json"))
    assert good.ok is True and good.passes(strict=True) is True


def test_strict_fails_on_a_warning() -> None:
    report = Report([Finding("OR-3.8", "warning", "a guess", Location("card.json"))])
    res = acap.CardCheck("card.json", report=report)
    assert res.ok is True and res.passes() is True and res.passes(strict=True) is False
    assert report.ok is True and report.passes(strict=True) is False


def test_a_repr_is_one_short_line_however_many_findings() -> None:
    many = Report([Finding("OR-3.8", "error", "x" * 500, Location("card.json"))] * 300)
    text = repr(acap.CardCheck("https://example.com/" + "a" * 300, report=many))
    assert "\n" not in text and len(text) < 140, text
    assert text.endswith("ok=False 300 errors, 0 warnings>")
    assert repr(many) == "<Report 300 errors, 0 warnings>"


def test_every_entry_point_takes_a_path_bytes_or_parsed_json(tmp_path: Path) -> None:
    raw = BAD_CARD.read_bytes()
    by_path = acap.check_card(str(BAD_CARD))
    by_pathlib = acap.check_card(BAD_CARD)
    by_bytes = acap.check_card(raw)
    by_data = acap.check_card(json.loads(raw))

    def said(r: Result) -> list[tuple[str, str, str | None]]:
        return [(f.rule, f.level, f.location.pointer) for f in r.findings]

    assert said(by_path) == said(by_pathlib) == said(by_bytes) == said(by_data)
    assert by_bytes.findings[0].location.line == by_path.findings[0].location.line
    assert by_data.findings[0].location.line is None  # parsed data has no lines
    verified = [acap.verify_card(x).ok for x in (str(BAD_CARD), raw, json.loads(raw))]
    assert verified == [False, False, False]
    reply = {"messageId": "m", "role": "ROLE_AGENT", "parts": [{"text": "Ask here."}]}
    path = tmp_path / "reply.json"
    path.write_text(json.dumps(reply), encoding="utf-8")
    card = CASES / "reply" / "cards" / "annex-a1.json"
    results = [acap.check_reply(r, c, activated=False, skill_id="service-pricing")
               for r, c in ((str(path), str(card)), (path.read_bytes(), card.read_bytes()),
                            (reply, json.loads(card.read_bytes())))]
    assert all(isinstance(r, ReplyCheck) for r in results)
    assert [[f.rule for f in r.findings] for r in results] == [["OR-5.3"]] * 3
    assert not any(r.ok for r in results)
