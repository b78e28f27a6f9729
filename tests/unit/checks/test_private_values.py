"""OR-3.9, the private part of the configuration (trial report item 3).

A value listed in operator.private.yaml is an error wherever it is published, however
it is written; a misspelt skill id there is an error, not a silent loss of
protection; an amount in an on-request skill without a private file stays a
warning that says it will be published and how to keep it private.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from acap.builder import BuildOptions, build
from acap.checks import PrivateValue
from acap.checks import _on_request_values as on_request_values
from acap.checks._facts import from_operator
from acap.checks._on_request_values import published_files
from acap.cli import report_text
from acap.load import load_operator
from support.cards import acap

PRICE_LINE = ("      Costs and inclusions of the chapel's services. Given to the person who\n")
#: The line of service-pricing's "description: >-": findings in a folded text point there.
DESCRIPTION_LINE = 59


def with_private(example: Path, private: str, old: str = "", new: str = "") -> Path:
    (example.parent / "operator.private.yaml").write_text(private, encoding="utf-8")
    if old:
        text = example.read_text(encoding="utf-8")
        assert old in text
        example.write_text(text.replace(old, new, 1), encoding="utf-8")
    return example


def line_of(path: Path, needle: str) -> int:
    return next(n for n, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1)
                if needle in line)


@pytest.mark.parametrize("written", ["from £2450", "from £ 2 450", "from GBP 2450",
                                     "from 2,450 pounds", "from £2,450.00", "from gbp 2.450"])
def test_the_trial_case_is_an_error_and_nothing_is_published(example: Path,
                                                             written: str) -> None:
    with_private(example, 'service-pricing:\n  - "£2,450"\n',
                 PRICE_LINE, PRICE_LINE.replace("services.", f"services, {written}."))
    res = acap("build", "-c", str(example), "--no-spec-site")
    assert res.exit_code == 1
    errors = [ln for ln in res.stderr.splitlines() if ": error: " in ln]
    assert len(errors) == 1 and errors[0].endswith("[OR-3.9]"), res.stderr
    assert errors[0].startswith(f"{example}:{DESCRIPTION_LINE}:")
    assert "2450" not in res.stderr and "2,450" not in res.stderr
    assert not (example.parent / "site").exists()


def test_a_template_that_writes_the_value_otherwise_is_refused(example: Path) -> None:
    with_private(example, 'service-pricing:\n  - "£2,450"\n')
    tpl = example.parent / "templates"
    tpl.mkdir()
    (tpl / "person-entry.html").write_text(
        '{% extends "acap/person-entry.html" %}'
        "{% block about %}<p>Cremation <b>£</b>2&#8239;450</p>{% endblock %}",
        encoding="utf-8")
    result = build(BuildOptions(config=example, write=False, spec_site=False))
    found = [f for f in result.report.errors if f.rule == "OR-3.9"]
    assert found, report_text(result.report)
    # the personEntry page, written at talk/index.html and talk.html (no redirect)
    assert {f.location.file.rsplit("/", 1)[-1] for f in found} <= {"index.html", "talk.html"}


def test_a_json_escape_does_not_hide_a_value(example: Path) -> None:
    cfg = load_operator(example)
    value = PrivateValue("service-pricing", "£2,450", "operator.private.yaml", 2)
    files = [("example.com/x.json", b'{"note": "cremation \\u00a32450"}\n')]
    [f] = published_files(cfg, files, [value])
    assert (f.rule, f.level, f.location.file, f.location.line) == ("OR-3.9", "error",
                                                                   "example.com/x.json", 1)


def test_a_misspelt_skill_id_is_an_error_with_did_you_mean(example: Path) -> None:
    with_private(example, 'service-pricng:\n  - "£2,450"\n')
    result = build(BuildOptions(config=example, write=False, spec_site=False))
    [f] = result.report.errors
    assert (f.rule, f.level, f.location.line) == ("PRIVATE-VALUES", "error", 1)
    assert f.location.file.endswith("operator.private.yaml")
    assert f.message == "'service-pricng' is not the id of a skill in operator.yaml"
    assert f.hint == "did you mean 'service-pricing'?"


def test_values_under_a_public_skill_are_an_error(example: Path) -> None:
    with_private(example, 'opening-hours:\n  - "closed on Sundays"\n')
    result = build(BuildOptions(config=example, write=False, spec_site=False))
    [f] = result.report.errors
    assert (f.rule, f.location.line) == ("PRIVATE-VALUES", 1)
    assert f.message.startswith("'opening-hours' is a public skill, not an on-request one")
    assert "service-pricing" in (f.hint or "")


def test_money_without_a_private_file_says_it_will_be_published(example: Path) -> None:
    with_private(example, "", PRICE_LINE, PRICE_LINE.replace("services.", "services, £2,450."))
    (example.parent / "operator.private.yaml").unlink()
    result = build(BuildOptions(config=example, write=False, spec_site=False))
    assert result.report.ok
    [f] = [f for f in result.report if f.rule == "OR-3.9"]
    assert (f.level, f.location.line) == ("warning", DESCRIPTION_LINE)
    assert "it will be published in the card and on the pages" in f.message
    assert f.hint is not None and "operator.private.yaml" in f.hint
    assert 'service-pricing: ["£2,450"]' in f.hint


def test_money_warning_gives_way_to_the_private_value_error(example: Path) -> None:
    with_private(example, 'service-pricing:\n  - "£2,450"\n',
                 PRICE_LINE, PRICE_LINE.replace("services.", "services, £2450."))
    result = build(BuildOptions(config=example, write=False, spec_site=False))
    assert [(f.rule, f.level) for f in result.report if f.rule == "OR-3.9"] == [
        ("OR-3.9", "error")]


def test_money_heuristic_reads_amounts_not_times(example: Path) -> None:
    # The example's texts hold times (09:00 to 17:00) and numbers, and no amount.
    assert list(on_request_values.money_in_text(from_operator(load_operator(example)))) == []
