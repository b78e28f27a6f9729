"""``acap check-reply``: exit status 0 / 1 / 2, text and JSON output."""

from __future__ import annotations

import json

from click.testing import CliRunner

from acap.cli import cli
from support.replies import CARDS, CASES

A1 = str(CARDS / "annex-a1.json")
URI = "https://agent-capability.org/ext/on-request/v1"


def run(*args: str) -> tuple[int, str, str]:
    res = CliRunner().invoke(cli, ["check-reply", *args])
    return res.exit_code, res.stdout, res.stderr


def test_annex_a2_passes() -> None:
    reply = str(CASES / "valid/a2-information-referred.json")
    code, out, _ = run(reply, "--card", A1, "--activated")
    assert code == 0
    assert "follows §5 and §6" in out


def test_a_broken_reply_fails_with_file_line_and_rule() -> None:
    reply = CASES / "or-6.2-text-lacks-entry.json"
    code, out, err = run(str(reply), "--card", A1, "--activated")
    assert code == 1
    assert f"{reply}:4:12: error: " in err and "[OR-6.2]" in err
    assert "does NOT follow" in out


def test_json_format() -> None:
    reply = CASES / "or-5.3-no-person-entry.json"
    code, out, _ = run(str(reply), "--card", A1, "--not-activated", "--skill", "service-pricing",
                       "--format", "json")
    assert code == 1
    data = json.loads(out)
    assert data["errors"] == 1
    f, = data["findings"]
    assert (f["rule"], f["level"], f["location"]["line"]) == ("OR-5.3", "error", 4)
    assert f["location"]["pointer"] == "/parts"


def test_activation_from_the_request_header() -> None:
    # The A.2 reply to a request that did not activate: marking is allowed, OR-6.1 is not
    # asked for; a plain reply to a request that did activate lacks the object.
    plain = str(CASES / "valid/plain-referral.json")
    code, _, _ = run(plain, "--card", A1, "--skill", "service-pricing",
                     "--request-extensions", "https://example.com/other/v1")
    assert code == 0
    code, _, err = run(plain, "--card", A1, "--skill", "service-pricing",
                       "--request-extensions", f"https://example.com/other/v1, {URI}")
    assert code == 1 and "[OR-6.1]" in err


def test_activation_assumed_from_the_reply_says_so() -> None:
    code, _, err = run(str(CASES / "valid/a2-information-referred.json"), "--card", A1)
    assert code == 0 and "checked as activated" in err
    code, _, err = run(str(CASES / "valid/plain-referral.json"), "--card", A1, "--skill",
                       "service-pricing")
    assert code == 0 and "checked as not activated" in err


def test_warnings_pass_unless_strict() -> None:
    reply = str(CASES / "a2a-ext-echo.json")
    code, _, err = run(reply, "--card", A1, "--activated", "--response-extensions", "")
    assert code == 0 and "[A2A-EXT-ECHO]" in err
    code, _, _ = run(reply, "--card", A1, "--activated", "--response-extensions", "",
                     "--strict")
    assert code == 1


def test_compare_checks_or_5_1() -> None:
    code, _, err = run(str(CASES / "or-5.1-gives-only-when-activated.json"), "--card",
                       str(CARDS / "annex-a4-opted-in.json"), "--compare",
                       str(CASES / "valid/plain-referral-opted-in.json"))
    assert code == 1 and "[OR-5.1]" in err


def test_usage_errors_exit_2() -> None:
    reply = str(CASES / "valid/a2-information-referred.json")
    assert run(reply)[0] == 2  # no --card
    assert run(reply, "--card", A1, "--activated", "--request-extensions", URI)[0] == 2
    assert run(reply, "--card", A1, "--not-activated", "--compare", reply)[0] == 2


def test_unreadable_inputs_are_findings_not_tracebacks(tmp_path: object) -> None:
    code, _, err = run(str(CASES / "reply-json-broken.json"), "--card", A1)
    assert code == 1 and "[REPLY-JSON]" in err and "Traceback" not in err
    code, _, err = run(str(CASES / "valid/a2-information-referred.json"), "--card",
                       str(CASES / "reply-json-broken.json"))
    assert code == 1 and "[CARD-JSON]" in err
