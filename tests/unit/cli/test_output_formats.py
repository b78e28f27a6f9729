"""Outputs as contracts (issue 23, item 3): ``--format json`` is one versioned document
for one input or many, valid against the schema acap ships; ``--format sarif`` is valid
SARIF 2.1.0 (the official OASIS schema, tests/data/); ``--format github`` prints workflow
commands escaped as GitHub's runner reads them; text findings go to one stream for every
command, coloured on a terminal as NO_COLOR and FORCE_COLOR say; ``-`` is standard input.
"""

from __future__ import annotations

import json
import os
import pty
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from click.testing import CliRunner

from acap import schemas
from acap.cli import annotation, cli, sarif_log
from acap.findings import Finding, Location
from support.cases import CARD_CASES
from support.paths import DATA, REPO
from support.replies import CARDS, CASES

OUTPUT = jsonschema.Draft202012Validator(schemas.schema(schemas.OUTPUT),
                                         format_checker=jsonschema.FormatChecker())
SARIF = jsonschema.Draft4Validator(
    json.loads((DATA / "sarif-schema-2.1.0.json").read_text(encoding="utf-8")))
#: A card with one error: OR-3.8 at line 16, column 54 (a query string in personEntry).
BAD = CARD_CASES / "or-3.8-query.json"
BAD_AT = (16, 54)
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def acap(*args: str | Path, input: bytes | None = None) -> Any:
    res = CliRunner().invoke(cli, [str(a) for a in args], input=input)
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
    return res


def valid_output(text: str) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(text)
    errors = [f"{list(e.path)}: {e.message}" for e in OUTPUT.iter_errors(doc)]
    assert errors == []
    return doc


def valid_sarif(text: str) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(text)
    errors = [f"{list(e.path)}: {e.message}" for e in SARIF.iter_errors(doc)]
    assert errors == []
    return doc


# -- JSON: one shape ---------------------------------------------------------------------------

def test_json_has_one_shape_for_one_input_or_many() -> None:
    one = valid_output(acap("check", BAD, "--format", "json").stdout)
    many = valid_output(acap("check", BAD, REPO / "operator.yaml", "--format", "json").stdout)
    assert type(one) is type(many) is dict and set(one) == set(many)
    assert (one["formatVersion"], one["command"]) == (1, "check")
    assert [r["kind"] for r in one["results"]] == ["card"]
    assert [(r["kind"], r["ok"]) for r in many["results"]] == [("card", False),
                                                               ("operator", True)]
    assert (one["ok"], one["errors"], one["warnings"]) == (False, 1, 0)
    [f] = one["findings"]
    assert (f["rule"], f["location"]["line"], f["location"]["column"]) == ("OR-3.8", *BAD_AT)
    assert many["findings"] == one["findings"]


def test_the_schema_refuses_what_is_not_the_shape() -> None:
    """The schema is no rubber stamp: a document without its version, a finding without a
    rule, a list in place of the document are each refused."""
    doc = json.loads(acap("check", BAD, "--format", "json").stdout)
    for broken in ({k: v for k, v in doc.items() if k != "formatVersion"},
                   {**doc, "findings": [{**doc["findings"][0], "rule": ""}]},
                   doc["results"], {**doc, "formatVersion": 2}):
        assert list(OUTPUT.iter_errors(broken)), broken


def test_strict_is_in_the_verdict(tmp_path: Path) -> None:
    card = CARD_CASES / "a2a-empty-optional.json"  # warnings only
    plain = valid_output(acap("check", card, "--format", "json").stdout)
    strict = acap("check", card, "--format", "json", "--strict")
    assert plain["ok"] is True and plain["warnings"] > 0 and plain["errors"] == 0
    assert strict.exit_code == 1 and valid_output(strict.stdout)["ok"] is False


def test_every_command_that_reports_findings_prints_the_shape(example: Path,
                                                              tmp_path: Path) -> None:
    site = example.parent / "site"
    built = valid_output(acap("build", "-c", example, "--format", "json").stdout)
    assert built["command"] == "build" and built["results"][0]["written"] is True
    card = site / "example.com" / ".well-known" / "agent-card.json"
    verified = valid_output(acap("verify", card, "--jwks", card.parent / "jwks.json",
                                 "--format", "json").stdout)
    assert verified["ok"] and verified["results"][0]["signatures"][0]["valid"] is True
    published = valid_output(acap("publish", "-c", example, "--dry-run", "--allow-example-hosts",
                                  "--dir", tmp_path / "www", "--format", "json").stdout)
    assert published["command"] == "publish" and published["results"][0]["dryRun"] is True
    reply = valid_output(acap("check-reply", CASES / "or-6.2-text-lacks-entry.json", "--card",
                              CARDS / "annex-a1.json", "--activated", "--format", "json").stdout)
    assert reply["command"] == "check-reply" and "OR-6.2" in {f["rule"] for f in
                                                             reply["findings"]}
    broken = example.read_text(encoding="utf-8").replace("  version: 1.0.0\n", "  verison: 1\n")
    example.write_text(broken, encoding="utf-8")
    failed = valid_output(acap("build", "-c", example, "--format", "json").stdout)
    assert failed["ok"] is False and failed["results"][0]["written"] is False


def test_a_batch_gives_one_result_per_operator_and_one_for_the_batch(tmp_path: Path) -> None:
    tenants = tmp_path / "tenants"
    (tenants / "a").mkdir(parents=True)
    shutil.copyfile(REPO / "operator.yaml", tenants / "a" / "operator.yaml")
    res = acap("build", tenants, "--site-dir", tmp_path / "site", "--new-keys",
               "--no-spec-site", "--format", "json")
    doc = valid_output(res.stdout)
    assert [r["kind"] for r in doc["results"]] == ["build", "batch"]
    assert doc["results"][0]["source"] == str(tenants / "a" / "operator.yaml")
    assert doc["ok"] is (res.exit_code == 0)


# -- SARIF ------------------------------------------------------------------------------------

def test_check_bad_format_sarif_is_valid_sarif_2_1_0(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITHUB_WORKSPACE", raising=False)
    shutil.copyfile(BAD, tmp_path / "bad card.json")
    monkeypatch.chdir(tmp_path)
    res = acap("check", "bad card.json", "--format", "sarif")
    assert res.exit_code == 1
    log = valid_sarif(res.stdout)
    [run] = log["runs"]
    assert log["version"] == "2.1.0" and run["tool"]["driver"]["name"] == "acap"
    [result] = run["results"]
    [rule] = run["tool"]["driver"]["rules"]
    assert (result["ruleId"], result["ruleIndex"], result["level"]) == ("OR-3.8", 0, "error")
    assert rule["id"] == "OR-3.8" and rule["defaultConfiguration"]["level"] == "error"
    assert rule["helpUri"] == "https://agent-capability.org/ext/on-request/v1/#OR-3.8"
    [where] = result["locations"]
    physical = where["physicalLocation"]
    assert physical["artifactLocation"] == {"uri": "bad%20card.json", "uriBaseId": "SRCROOT"}
    assert (physical["region"]["startLine"], physical["region"]["startColumn"]) == BAD_AT
    assert run["originalUriBaseIds"]["SRCROOT"]["uri"] == tmp_path.resolve().as_uri() + "/"
    assert "hint: remove everything from ? on" in result["message"]["text"]


def test_sarif_of_a_failed_build_and_of_acap_s_own_rules(example: Path) -> None:
    text = example.read_text(encoding="utf-8")
    example.write_text(text.replace("\t", "") + "agent:\n\tname: x\n", encoding="utf-8")
    res = acap("build", "-c", example, "--format", "sarif")
    assert res.exit_code == 1
    log = valid_sarif(res.stdout)
    ids = {r["id"]: r for r in log["runs"][0]["tool"]["driver"]["rules"]}
    assert "YAML-TAB" in ids
    assert ids["YAML-TAB"]["helpUri"].endswith("conformance.html#YAML-TAB")
    assert ids["YAML-TAB"]["shortDescription"]["text"].startswith("No line is indented with a tab")
    tab = next(r for r in log["runs"][0]["results"] if r["ruleId"] == "YAML-TAB")
    line = len(text.replace("\t", "").splitlines()) + 2
    assert tab["locations"][0]["physicalLocation"]["region"]["startLine"] == line


def test_sarif_keeps_to_the_schema_for_urls_stdin_and_no_line() -> None:
    found = [Finding("CARD-READ", "error", "cannot read", Location("https://x.example/c.json")),
             Finding("OR-3.8", "error", "query", Location("<stdin>", 3, 9, "/a")),
             Finding("SIG-KEYS", "warning", "no keys", Location("card.json"))]
    log = sarif_log(found)
    assert list(SARIF.iter_errors(log)) == []
    results = {r["ruleId"]: r for r in log["runs"][0]["results"]}
    assert results["CARD-READ"]["locations"][0]["physicalLocation"]["artifactLocation"] == \
        {"uri": "https://x.example/c.json"}
    assert "locations" not in results["OR-3.8"]  # standard input: no artifact
    assert "region" not in results["SIG-KEYS"]["locations"][0]["physicalLocation"]
    # and the schema would say so: a line 0 is refused
    results["SIG-KEYS"]["locations"][0]["physicalLocation"]["region"] = {"startLine": 0}
    assert list(SARIF.iter_errors(log))


# -- GitHub workflow commands ------------------------------------------------------------------

def test_check_bad_format_github_prints_annotations(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    shutil.copyfile(BAD, tmp_path / "card.json")
    monkeypatch.setenv("GITHUB_WORKSPACE", str(tmp_path))
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")  # paths are given from the repository's root
    res = acap("check", "../card.json", "--format", "github")
    assert res.exit_code == 1 and res.stderr == ""
    first, last = res.stdout.splitlines()
    assert first.startswith("::error file=card.json,line=16,col=54,title=acap OR-3.8::"
                            "personEntry of skill 'service-pricing': it carries a query string")
    assert first.endswith("%0Ahint: remove everything from ? on%0A"
                          "see: https://agent-capability.org/ext/on-request/v1/#OR-3.8")
    assert last == "acap: 1 error, 0 warnings"


def test_annotations_escape_what_would_end_or_start_a_command(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """GitHub's toolkit escapes %, CR and LF in a command's message, and ':' and ',' too
    in its properties: a value from a card can neither end the annotation nor start a
    workflow command of its own (``::add-mask::``, ``::stop-commands::``)."""
    monkeypatch.setenv("GITHUB_WORKSPACE", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a,b:c%d.yaml").write_text("x: 1\n", encoding="utf-8")
    f = Finding("OR-3.8", "warning", "50% off\r\n::stop-commands::x,y:z\x1b[2J",
                Location("a,b:c%d.yaml", 2, 3), "fix: it")
    line = annotation(f)
    assert line == ("::warning file=a%2Cb%3Ac%25d.yaml,line=2,col=3,title=acap OR-3.8::"
                    "50%25 off\\r%0A::stop-commands::x,y:z\\x1b[2J%0Ahint: fix: it%0A"
                    "see: https://agent-capability.org/ext/on-request/v1/#OR-3.8")
    assert "\n" not in line and "\r" not in line and "\x1b" not in line
    url = annotation(Finding("CARD-READ", "error", "gone", Location("https://x.example/c")))
    assert url == ("::error title=acap CARD-READ::https://x.example/c: gone%0A"
                   "see: https://agent-capability.org/ext/on-request/v1/conformance.html"
                   "#CARD-READ")
    # a place that names no file (acap publish's "command line") is said in the text,
    # never as a file GitHub would show (the trial's "file=command line")
    cli = annotation(Finding("PUBLISH-TARGET", "warning", "no website", Location("command line")))
    assert cli.startswith("::warning title=acap PUBLISH-TARGET::command line: no website%0A")


# -- one stream, colour -----------------------------------------------------------------------

FINDING_LINE = re.compile(r": (error|warning): .* \[[A-Z0-9.-]+\]$", re.M)


def test_text_findings_are_on_standard_error_for_every_command(example: Path) -> None:
    card = REPO / "tests" / "cases" / "card" / "or-3.8-query.json"
    runs = {
        "check card": acap("check", card),
        "check operator": acap("check", CARD_CASES.parent / "operator" / "a2a-binding-rest.yaml"),
        "verify": acap("verify", card),
        "check-reply": acap("check-reply", CASES / "or-6.2-text-lacks-entry.json", "--card",
                            CARDS / "annex-a1.json", "--activated"),
    }
    example.write_text(example.read_text(encoding="utf-8").replace(
        "  version: 1.0.0\n", "  verison: 1\n"), encoding="utf-8")
    runs["build"] = acap("build", "-c", example)
    for name, res in runs.items():
        assert res.exit_code == 1, name
        assert FINDING_LINE.search(res.stderr), (name, res.stderr)
        assert not FINDING_LINE.search(res.stdout), (name, res.stdout)


def _on_a_terminal(env: dict[str, str]) -> str:
    """``acap check BAD`` with standard error on a pseudo-terminal; what it wrote there."""
    main, side = pty.openpty()
    proc = subprocess.run([sys.executable, "-m", "acap", "check", str(BAD)],
                          stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=side,
                          env=env, timeout=120, check=False)
    os.close(side)
    chunks = []
    while True:
        try:
            chunk = os.read(main, 65536)
        except OSError:  # EIO: the terminal's other side is closed and drained
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(main)
    assert proc.returncode == 1
    return b"".join(chunks).decode()


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("NO_COLOR", "FORCE_COLOR", "TERM")}
    return {**env, "TERM": "xterm-256color", **extra}


def test_colour_on_a_terminal_honouring_no_color() -> None:
    coloured = _on_a_terminal(_env())
    assert "\x1b[31m\x1b[1merror\x1b[0m" in coloured  # the level in bold red
    assert "[OR-3.8]" in ANSI.sub("", coloured)
    assert not ANSI.search(_on_a_terminal(_env(NO_COLOR="1")))
    assert not ANSI.search(_on_a_terminal(_env(TERM="dumb")))
    assert ANSI.search(_on_a_terminal(_env(NO_COLOR="")))  # empty: not set (no-color.org)


def test_force_color_colours_a_pipe_and_no_color_wins() -> None:
    def piped(**extra: str) -> str:
        return subprocess.run([sys.executable, "-m", "acap", "check", str(BAD)],
                              capture_output=True, text=True, env=_env(**extra), timeout=120,
                              check=False).stderr

    assert not ANSI.search(piped())
    forced = piped(FORCE_COLOR="1")
    assert "\x1b[31m\x1b[1merror\x1b[0m" in forced
    assert ANSI.sub("", forced) == piped()  # the same text, coloured
    assert not ANSI.search(piped(FORCE_COLOR="1", NO_COLOR="1"))


# -- standard input ---------------------------------------------------------------------------

def test_check_dash_reads_a_card_from_standard_input() -> None:
    res = acap("check", "-", input=BAD.read_bytes())
    assert res.exit_code == 1
    assert f"<stdin>:{BAD_AT[0]}:{BAD_AT[1]}: error: " in res.stderr
    assert res.stderr.splitlines()[0].endswith("[OR-3.8]")
    assert res.stdout == "<stdin>: 1 error, 0 warnings\n"
    good = REPO / "tests" / "data" / "annex-a1-card.json"
    doc = valid_output(acap("check", "-", "--format", "json", input=good.read_bytes()).stdout)
    assert doc["results"][0]["source"] == "<stdin>"


def test_check_dash_reads_an_operator_file_standing_in_the_current_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An operator file from standard input is checked as if it stood in the current
    folder: its operator.private.yaml is read there (OR-3.9 at the line that leaks)."""
    text = (REPO / "operator.yaml").read_text(encoding="utf-8")
    line = "      Costs and inclusions of the chapel's services. Given to the person who\n"
    leaking = text.replace(line, line.replace("services.", "services, from £2450."), 1)
    description = 1 + text[:text.index(line)].count("\n") - 1  # "description: >-" above it
    (tmp_path / "operator.private.yaml").write_text('service-pricing:\n  - "£2,450"\n',
                                                    encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    res = acap("check", "-", input=leaking.encode())
    assert res.exit_code == 1, res.output
    [leak] = [ln for ln in res.stderr.splitlines() if ln.endswith("[OR-3.9]")]
    assert leak.startswith(f"<stdin>:{description}:"), res.stderr
    assert "2450" not in res.stderr and "2,450" not in res.stderr
    assert acap("check", "-", input=text.encode()).exit_code == 0
    (tmp_path / "operator.private.yaml").unlink()
    assert acap("check", "-", input=leaking.encode()).exit_code == 0  # nothing private here


def test_standard_input_once_and_bounded() -> None:
    assert acap("check", "-", "-", input=b"{}").exit_code == 2
    huge = acap("check", "-", input=b"{" + b" " * (2 * 1024 * 1024) + b"}")
    assert huge.exit_code == 1 and "[CARD-READ]" in huge.stderr and "larger than" in huge.stderr


def test_sarif_and_github_render_any_result_s_findings() -> None:
    """The two CI formats render the findings of every kind of result, a kind they were
    not written for included: whatever carries a ``report`` or ``findings`` (a probe, a
    publish, a batch of operators with findings of their own)."""
    from types import SimpleNamespace

    from acap.cli import GithubReporter, SarifReporter
    from acap.findings import Report

    def finding(rule: str, line: int) -> Finding:
        return Finding(rule, "error", f"{rule} here", Location("operator.yaml", line, 1))

    probe = SimpleNamespace(report=Report([finding("OR-5.3", 3)]), ok=lambda strict: False)
    publish = SimpleNamespace(report=Report([finding("PUBLISH-FAILED", 4)]), ok=False)
    batch = SimpleNamespace(report=Report([finding("SITE-HOST", 5)]),
                            outcomes=[SimpleNamespace(report=Report([finding("OR-3.8", 6)]))])
    new_kind = SimpleNamespace(findings=[finding("A2A-REQUIRED", 7)])
    calls = [("probe", (probe, False)), ("publish", (publish, False)),
             ("batch", (batch, None)), ("findings", (Report(new_kind.findings),))]
    def rendered(reporter: type[Any], method: str, args: tuple[Any, ...]) -> list[str]:
        out: list[str] = []
        getattr(reporter(lambda text, err: out.append(text)), method)(*args)
        return out

    seen = {}
    for method, args in calls:
        log = valid_sarif(rendered(SarifReporter, method, args)[0])
        rules = [r["ruleId"] for r in log["runs"][0]["results"]]
        lines = rendered(GithubReporter, method, args)
        assert [ln.split("title=acap ")[1].split("::")[0] for ln in lines[:-1]] == rules
        seen[method] = rules
    assert seen == {"probe": ["OR-5.3"], "publish": ["PUBLISH-FAILED"],
                    "batch": ["SITE-HOST", "OR-3.8"], "findings": ["A2A-REQUIRED"]}


def test_what_was_not_judged_is_in_the_document_and_on_standard_error() -> None:
    """A card without provider.url, read from standard input: nothing says whose origin
    personEntry is on, so OR-3.4's "an origin the operator controls" is not judged, and
    every format says so (never a silent pass)."""
    card = json.loads((REPO / "tests" / "data" / "annex-a1-card.json").read_text("utf-8"))
    del card["provider"]
    raw = json.dumps(card).encode()
    doc = valid_output(acap("check", "-", "--format", "json", input=raw).stdout)
    assert "OR-3.4" in [j["rule"] for j in doc["results"][0]["notJudged"]]
    text = acap("check", "-", input=raw)
    assert "not judged [OR-3.4]" in text.stderr and "not judged" not in text.stdout
