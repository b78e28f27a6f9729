"""``acap check`` from the command line: output format, exit codes, URLs; and the bundled
example, built and then checked."""

from __future__ import annotations

import http.server
import json
import re
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from acap.builder import BuildOptions, build
from acap.cli import cli
from acap.requirements import rule_ids
from support.cases import CARD_CASES, OPERATOR_CASES
from support.paths import REPO

TEXT_LINE = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<col>\d+): (?P<level>error|warning): "
                       r"(?P<message>.+) \[(?P<rule>[A-Z0-9.-]+)\]$")


def run(*args: str, stream: str = "stdout") -> tuple[int, str]:
    """Run acap; returns the exit code and what it printed on ``stream`` (text findings
    are on standard error, a document of --format json on standard output)."""
    res = CliRunner().invoke(cli, list(args))
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
    assert "Traceback" not in res.output
    return res.exit_code, res.stdout if stream == "stdout" else res.stderr


def test_the_built_example_card_has_no_error(example: Path) -> None:
    """The guide's promise: `acap check` on the card `acap build` made reports no errors."""
    result = build(BuildOptions(config=example))
    assert result.report.ok
    card = example.parent / "site" / "example.com" / ".well-known" / "agent-card.json"
    code, out = run("check", str(card))
    assert code == 0, out
    assert out.splitlines()[0] == f"{card}: no problems found"
    code, out = run("check", str(card), "--strict")
    assert code == 0, out


def test_the_example_acknowledges_or_5_5_and_annex_a3s_level_1_adds_the_referral_warnings(
        example: Path) -> None:
    """The bundled chapel opens a booking to assistants and says, with
    acceptAssistantsWord, that it takes the assistant's word (OR-5.5): no warning, and
    --strict passes. Without that line the build says it (OR-5.5). With Annex A.3's
    level-1 attestation it also warns that bookings must be referred (OR-5.6 (a),
    OR-5.7), and still builds."""
    text = example.read_text(encoding="utf-8")
    lines = text.splitlines()
    access = next(i for i, line in enumerate(lines, 1) if "assistantAccess: true" in line)
    level = next(i for i, line in enumerate(lines, 1) if "attestationLevel: 2" in line)
    result = build(BuildOptions(config=example, write=False))
    assert result.report.findings == []
    strict = ["build", "-c", str(example), "--strict", "--no-spec-site"]
    assert CliRunner().invoke(cli, strict).exit_code == 0
    example.write_text(re.sub(r"\n *acceptAssistantsWord: true[^\n]*", "", text),
                       encoding="utf-8")
    result = build(BuildOptions(config=example, write=False))
    assert sorted((f.rule, f.level, f.location.line) for f in result.report) == \
        [("OR-5.5", "warning", access)]
    res = CliRunner().invoke(cli, strict)
    assert res.exit_code == 1 and "[OR-5.5]" in res.stderr
    example.write_text(text.replace("attestationLevel: 2", "attestationLevel: 1"),
                       encoding="utf-8")
    result = build(BuildOptions(config=example, write=False))
    got = sorted((f.rule, f.level, f.location.line) for f in result.report)
    assert got == [("OR-5.6", "warning", level), ("OR-5.7", "warning", access)]
    assert result.report.ok


def test_text_format_and_exit_code_on_errors() -> None:
    """Findings on standard error (as every command prints them), the outcome with its
    counts on standard output."""
    card = CARD_CASES / "many-faults.json"
    res = CliRunner().invoke(cli, ["check", str(card)])
    assert res.exit_code == 1
    err = res.stderr
    lines = [line for line in err.splitlines() if TEXT_LINE.match(line)]
    assert len(lines) == 11
    m = TEXT_LINE.match(next(line for line in lines if "[OR-3.5]" in line))
    assert m and m["file"] == str(card) and m["line"] == "17" and m["level"] == "error"
    hints = [line for line in err.splitlines() if line.startswith("    hint: ")]
    assert len(hints) == 11
    assert res.stdout == f"{card}: 9 errors, 2 warnings\n"
    assert re.search(r"^note: without operator\.yaml, checked in part only: OR-3\.4", err, re.M)


def test_json_format() -> None:
    code, out = run("check", str(CARD_CASES / "or-3.8-query.json"), "--format", "json")
    assert code == 1
    doc = json.loads(out)
    assert doc["errors"] == 1 and doc["warnings"] == 0
    [f] = doc["findings"]
    assert f["rule"] == "OR-3.8" and f["level"] == "error"
    assert f["location"]["line"] == 16
    assert f["location"]["pointer"] == "/capabilities/extensions/0/params/skills/0/personEntry"
    assert f["doc"].endswith("#OR-3.8")
    assert {"rule": "OR-5.5", "checked": "none"}.items() <= \
        next(s for s in doc["results"][0]["skipped"] if s["rule"] == "OR-5.5").items()


def test_warnings_pass_unless_strict() -> None:
    card = str(CARD_CASES / "or-5.10-no-staff.json")
    assert run("check", card)[0] == 0
    assert run("check", card, "--strict")[0] == 1


def test_usage_errors_exit_2() -> None:
    assert run("check")[0] == 2
    assert run("check", "card.json", "--format", "xml")[0] == 2


def test_many_faults_in_one_operator_file_are_reported_in_one_run(tmp_path: Path) -> None:
    shutil.copyfile(OPERATOR_CASES / "many-faults.yaml", tmp_path / "operator.yaml")
    code, out = run("build", "-c", str(tmp_path / "operator.yaml"), "--format", "json")
    assert code == 1
    rules = {f["rule"] for f in json.loads(out)["findings"]}
    assert len(rules) >= 8, rules
    assert not (tmp_path / "site").exists()


def test_many_faults_in_one_card_are_reported_in_one_run() -> None:
    code, out = run("check", str(CARD_CASES / "many-faults.json"), "--format", "json")
    assert code == 1
    assert len({f["rule"] for f in json.loads(out)["findings"]}) >= 8


class _Redirect(http.server.BaseHTTPRequestHandler):
    card = b""

    def do_GET(self) -> None:
        if self.path == "/.well-known/agent-card.json":
            self.send_response(301)
            self.send_header("Location", "/cards/chapel.json")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.end_headers()
        self.wfile.write(self.card)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def redirecting() -> Iterator[str]:
    handler = type("H", (_Redirect,), {"card": (CARD_CASES / "valid" / "annex-a-like.json")
                                       .read_bytes()})
    server = http.server.HTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/.well-known/agent-card.json"
    server.shutdown()
    server.server_close()


def test_a_redirect_is_reported(redirecting: str) -> None:
    code, out = run("check", redirecting, "--format", "json", "--allow-private")
    assert code == 0
    [f] = json.loads(out)["findings"]
    assert (f["rule"], f["level"]) == ("CARD-URL", "warning")
    assert "/cards/chapel.json" in f["message"]


def test_plain_http_elsewhere_is_refused() -> None:
    code, out = run("check", "http://example.com/.well-known/agent-card.json", "--format", "json")
    assert code == 1
    assert [f["rule"] for f in json.loads(out)["findings"]] == ["CARD-READ"]


def test_the_rules_page_has_a_row_for_every_rule_id() -> None:
    """Every id of the registry (requirements and acap's own rules, wherever acap emits
    them: build, card, reply, publish, live, pages) has its row in the user guide's rule
    page (docs/rules.md's table, written from the registry when the guide is built:
    scripts/guide_hooks.py): anchored by itself, with its level, what it means and how
    to fix it, none of them empty."""
    import re

    from acap.requirements import rules_table

    page = (REPO / "docs" / "rules.md").read_text(encoding="utf-8")
    assert "<!-- acap:rules -->" in page
    rows = {m[1]: m[0] for m in re.finditer(r'^\| <a id="([A-Z0-9.-]+)"></a>.*$', rules_table(),
                                            re.M)}
    assert sorted(rows) == sorted(rule_ids())
    for rid, row in rows.items():
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", row)[1:-1]]
        assert len(cells) == 4 and all(cells), (rid, cells)
        assert re.fullmatch(r"((MUST|MUST NOT|SHOULD|MAY): )?(error|warning|error or warning|"
                            r"not checked)", cells[1]), (rid, cells[1])


def test_the_levels_the_rule_table_gives_are_those_the_cases_expect() -> None:
    """A failing example's level (tests/cases) is among the levels the registry says the
    rule is reported at: the table's level column says what a user will see."""
    import re

    from acap.requirements import requirements, rules

    reported = {r.id: set(r.reported) for r in (*requirements(), *rules())}
    seen = []
    for path in sorted((REPO / "tests" / "cases").rglob("*")):
        if path.suffix not in (".expect", ".yaml"):
            continue
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            m = re.match(r"(?:# expect: )?([A-Z][A-Z0-9.-]*) (error|warning)\b", line)
            if m:
                seen.append(m[1])
                assert m[2] in reported[m[1]], (path.name, line)
    assert len(set(seen)) > 50


# -- acap check of an operator file (the pre-commit hook's command) -----------------------

def test_an_operator_file_is_checked_as_a_build_checks_it_without_a_key(tmp_path: Path) -> None:
    """The smallest break (an OR-3.8 revealing path) is found at its line, with nothing
    built and no key made; the example as it ships has no error."""
    config = tmp_path / "operator.yaml"
    text = (REPO / "operator.yaml").read_text(encoding="utf-8")
    entry = next(line for line in text.splitlines() if "personEntry:" in line)
    broken = entry.split("personEntry:")[0] + "personEntry: https://ask.example.com/bereavement"
    config.write_text(text.replace(entry, broken, 1), encoding="utf-8")
    code, out = run("check", str(config), stream="stderr")
    assert code == 1
    [m] = [m for line in out.splitlines() if (m := TEXT_LINE.match(line))]
    assert (m["rule"], m["file"], int(m["line"])) == \
        ("OR-3.8", str(config), text.splitlines().index(entry) + 1)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["operator.yaml"]  # nothing written
    code, out = run("check", str(REPO / "operator.yaml"))
    assert code == 0 and "no problems found" in out


def test_several_files_are_one_json_document_and_one_exit_code(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yml"
    bad.write_text("operator: [\n", encoding="utf-8")
    code, out = run("check", str(REPO / "operator.yaml"),
                    str(CARD_CASES / "or-3.8-query.json"), str(bad), "--format", "json")
    assert code == 1
    docs = json.loads(out)["results"]
    assert [(d["kind"], d["source"]) for d in docs] == \
        [("operator", str(REPO / "operator.yaml")), ("card", str(CARD_CASES / "or-3.8-query.json")),
         ("operator", str(bad))]
    assert [d["errors"] for d in docs[:2]] == [0, 1]
    assert docs[2]["findings"][0]["rule"].startswith("YAML")
    assert docs[2]["findings"][0]["location"]["line"] == 2
    assert run("check", str(REPO / "operator.yaml"), str(bad),
               "--url", "https://x.example/")[0] == 2


def test_the_pre_commit_hook_runs_acap_check_on_operator_files() -> None:
    """.pre-commit-hooks.yaml names a command that exists and the files it is for."""
    import yaml

    [hook] = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert hook["id"] == "acap-check" and hook["entry"] == "acap check"
    assert hook["language"] == "python"
    files = re.compile(hook["files"])
    assert files.search("operator.yaml") and files.search("tenants/a/operator.yml")
    assert not files.search("site/example.com/.well-known/agent-card.json")
    assert not files.search("operator.private.yaml")


def test_the_pre_commit_hook_fails_a_commit_of_a_broken_operator_file(tmp_path: Path) -> None:
    """The real pre-commit, installing acap from this repository as a user's config would."""
    import os
    import subprocess
    import sys

    project = tmp_path / "project"
    project.mkdir()
    config = project / "operator.yaml"
    config.write_text((REPO / "operator.yaml").read_text(encoding="utf-8").replace(
        "personEntry: https://ask.example.com/talk",
        "personEntry: https://ask.example.com/bereavement"),  # the text's own example: an error
        encoding="utf-8")
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    subprocess.run(["git", "add", "operator.yaml"], cwd=project, check=True)
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "cache")}

    def hook() -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "pre_commit", "try-repo", str(REPO),
                               "acap-check", "--files", "operator.yaml"], cwd=project,
                              env=env, capture_output=True, text=True, timeout=600)

    res = hook()
    assert res.returncode == 1, res.stdout + res.stderr
    assert re.search(r"^operator\.yaml:\d+:\d+: error: .*\[OR-3\.8\]$", res.stdout, re.M)
    config.write_text((REPO / "operator.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    res = hook()
    assert res.returncode == 0, res.stdout + res.stderr
    assert re.search(r"acap check \(operator\.yaml\)\.+Passed", res.stdout)
