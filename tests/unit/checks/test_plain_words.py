"""Messages an operator sees say what is wrong and what to do in everyday words; the spec
section, the RFC and the standard's name are on the page the ``see:`` link opens.

The operator's path: every operator case file (tests/cases/operator), built as
``acap build`` builds it, and the messages of the commands an operator runs.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from acap.builder import BuildOptions, build
from acap.cli import report_text
from acap.requirements import requirement
from support.cases import OPERATOR_CASES
from support.pages import example_data, run_build, write_yaml

#: Words an operator should not have to look up: spec sections, RFC numbers, the names of
#: standards and of other tools' settings.
JARGON = re.compile(r"§|\bRFC ?\d|\bBCP ?47|\bIDNA|A-label|\bCLDR\b|\bNFKC\b|custom_dir|"
                    r"trust framework|thumbprint|\bUTS ?#|\bE\.164\b|level-2|\bJCS\b",
                    re.IGNORECASE)

CASES = sorted(p for p in OPERATOR_CASES.rglob("*.yaml") if not p.name.endswith(".private.yaml"))


@pytest.mark.parametrize("case", CASES, ids=lambda p: str(p.relative_to(OPERATOR_CASES)))
def test_no_operator_case_message_holds_jargon(tmp_path: Path, case: Path) -> None:
    shutil.copyfile(case, tmp_path / "operator.yaml")
    private = case.with_name(case.stem + ".private.yaml")
    if private.is_file():
        shutil.copyfile(private, tmp_path / "operator.private.yaml")
    result = build(BuildOptions(config=tmp_path / "operator.yaml", spec_site=False,
                                write=False))
    for f in result.report:
        for text in (f.message, f.hint or ""):
            assert not JARGON.search(text), (f.rule, text)
        assert f.doc.startswith("https://agent-capability.org/ext/on-request/v1/")


def test_or_5_5_and_5_6_in_plain_words(tmp_path: Path) -> None:
    data = example_data()
    booking = data["skills"][2]
    del booking["acceptAssistantsWord"]
    booking["safeguards"]["attestationLevel"] = 1
    result = run_build(write_yaml(tmp_path, data))
    said = {f.rule: (f.message, f.hint) for f in result.report}
    assert said["OR-5.5"] == (
        "assistantAccess: true on skill 'arrangement-booking' gives it to any assistant that "
        "says it acts for a person, and there is no way yet to check that it does: you take "
        "the assistant's word for it",
        "if that is acceptable for this skill, write acceptAssistantsWord: true beside it (it "
        "stays out of the card, and this warning goes); if not, write assistantAccess: false")
    assert said["OR-5.6"] == (
        "skill 'arrangement-booking' lets assistants change something, but lacks an "
        "independent check that your business is who it says it is (attestation level 2; "
        "you declare level 1)", "once you have it, declare safeguards.attestationLevel")
    assert said["OR-5.7"][0] == (
        "until skill 'arrangement-booking' has every safeguard above, your agent must not "
        "carry it out when an assistant asks: it sends the assistant to the personEntry "
        "instead")


def test_the_acknowledgment_is_in_no_built_file(tmp_path: Path) -> None:
    data = example_data()
    assert data["skills"][2]["acceptAssistantsWord"] is True
    result = run_build(write_yaml(tmp_path, data))
    assert result.report.findings == [], report_text(result.report)
    files = result.files.digest()
    assert files, "the build wrote files"
    for rel in files:
        assert b"acceptAssistantsWord" not in result.files[rel], rel
        assert b"accept" not in result.files[rel].lower() or not rel.endswith(".json"), rel


def test_a_personentry_on_a_booking_platform_is_declared_only_if_you_control_it(
        tmp_path: Path) -> None:
    data = example_data()
    data["skills"][1]["personEntry"] = "https://www.doctolib.de/zahnarzt/muenchen/dr-huber"
    [f] = run_build(write_yaml(tmp_path, data)).report.errors
    assert (f.rule, f.message) == (
        "OR-3.4", "personEntry of skill 'service-pricing': https://www.doctolib.de is not one "
                  "of the websites you declare as your own")
    assert f.hint == (
        "give the address of a page on your own website (it may link to this one); only if "
        "you control https://www.doctolib.de, that is, you decide what it shows (a page of "
        "yours on a booking platform is the platform's, not yours), declare it in "
        "operator.yaml, in one of two ways: if acap should build the page there, add it "
        "under hosts: as a line www.doctolib.de: {} (indented like the other hosts) and "
        "publish www.doctolib.de too; if that page is already yours and acap should not "
        "build it, declare the origin at the top level: ownOrigins: [https://www.doctolib.de] "
        "(beside any origin already listed there)")
    # the rule's text on the spec site explains the choice
    statement = requirement("OR-3.4").statement
    assert "booking platform" in statement and "only if it controls" in statement
    assert f.doc == "https://agent-capability.org/ext/on-request/v1/#OR-3.4"


def test_an_umlaut_domain_is_one_error_with_its_xn_form(tmp_path: Path) -> None:
    data = example_data()
    for s in data["skills"]:
        if "personEntry" in s:
            s["personEntry"] = "https://termine.zahnärzte-huber.de/fragen"
    data["hosts"]["termine.zahnärzte-huber.de"] = {}
    cfg = write_yaml(tmp_path, data)
    lines = [i for i, t in enumerate(cfg.read_text(encoding="utf-8").splitlines(), 1)
             if "zahnärzte" in t]
    assert len(lines) == 3
    [f] = run_build(cfg).report.errors
    assert f.rule == "URL-IDN" and f.location.line == lines[0]
    assert f.message == (
        "personEntry of skill 'service-pricing': the host of the address "
        "'termine.zahnärzte-huber.de' must be written in letters a to z only, as DNS spells "
        f"names with ä (the same host is on lines {lines[1]} and {lines[2]} too)")
    assert f.hint == ("write termine.xn--zahnrzte-huber-8hb.de (browsers show it as "
                      "termine.zahnärzte-huber.de)")
