"""Every example file under tests/cases gives exactly the findings it expects (rule, level,
line), at build time (operator.yaml) and with ``acap check`` (cards).

The meta-test at the end fails when an id the registry marks as checked at ``build``
or in a ``card`` has no failing example. To cover another place (``reply``), add an
entry to :data:`COVERAGE`.
"""

from __future__ import annotations

import http.server
import shutil
import threading
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import pytest

from acap.builder import BuildOptions, build
from acap.builder._build import BuildResult
from acap.checks import CardCheck, check_card
from acap.cli import report_text
from acap.findings import Finding
from acap.requirements import checked_at, rule_ids
from support.cases import Case, Expectation, card_cases, materialise, operator_cases
from support.hostile import HOSTILE_COVERS


def found(findings: Iterable[Finding], case_name: str = "operator.yaml") -> list[Expectation]:
    """Findings as ``(rule, level, line, file)``, file ``""`` for the case file itself."""
    out: list[Expectation] = []
    for f in findings:
        name = Path(f.location.file).name
        out.append((f.rule, f.level, f.location.line, "" if name == case_name else name))
    return sorted(out, key=str)


def build_case(case: Case, folder: Path) -> BuildResult:
    """Build an operator case in ``folder`` (in memory; a key is made there)."""
    target = materialise(case.path, folder / "operator.yaml")
    private = case.path.with_name(case.path.stem + ".private.yaml")
    if private.exists():
        shutil.copyfile(private, folder / "operator.private.yaml")
    return build(BuildOptions(config=target, write=False))


@pytest.mark.parametrize("case", operator_cases(), ids=lambda c: c.id)
def test_operator_case(case: Case, tmp_path: Path) -> None:
    assert case.expected, f"{case.path.name} has no '# expect:' line"
    result = build_case(case, tmp_path)
    assert found(result.report) == case.expected, report_text(result.report)


@pytest.mark.parametrize("case", operator_cases(valid=True), ids=lambda c: c.id)
def test_valid_operator_case(case: Case, tmp_path: Path) -> None:
    """A valid operator.yaml builds with no error, and ``acap check`` finds no error in
    the card it gives: the build and the card checks agree."""
    result = build_case(case, tmp_path)
    assert result.report.ok, report_text(result.report)
    assert found(result.report) == case.expected, report_text(result.report)
    card_rel = next(rel for rel in result.files if rel.endswith(".well-known/agent-card.json"))
    card_file = tmp_path / "site" / card_rel
    card_file.parent.mkdir(parents=True)
    card_file.write_bytes(result.files[card_rel])
    checked = check_card(str(card_file))
    assert checked.url == f"https://{card_rel.split('/')[0]}/.well-known/agent-card.json"
    assert checked.report.errors == [], report_text(checked.report)


class _CardServer(http.server.BaseHTTPRequestHandler):
    body = b""
    content_type = "application/json"
    status = 200

    def do_GET(self) -> None:
        self.send_response(self.status)
        self.send_header("Content-Type", self.content_type)
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def serve() -> Iterator[Callable[[bytes, str, int], str]]:
    """Serve bytes at http://127.0.0.1:PORT/.well-known/agent-card.json; returns the URL."""
    servers: list[http.server.HTTPServer] = []

    def start(body: bytes, content_type: str, status: int) -> str:
        handler = type("Handler", (_CardServer,), {"body": body, "content_type": content_type,
                                                   "status": status})
        server = http.server.HTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_port}/.well-known/agent-card.json"

    yield start
    for s in servers:
        s.shutdown()
        s.server_close()


def card_name(case: Case) -> str:
    """The file name the case's findings carry (a served card is named by its URL)."""
    return "agent-card.json" if case.serve else case.path.name


def check_case(case: Case, serve: Callable[[bytes, str, int], str],
               folder: Path) -> CardCheck:
    path = materialise(case.path, folder / case.path.name)
    if case.serve:
        url = serve(path.read_bytes(), *case.serve)
        return check_card(url, allow_private=True)
    return check_card(str(path), url=case.url)


@pytest.mark.parametrize("case", card_cases(), ids=lambda c: c.id)
def test_card_case(case: Case, serve: Callable[[bytes, str, int], str],
                   tmp_path: Path) -> None:
    assert case.expected, f"{case.path.name} has no .expect lines"
    result = check_case(case, serve, tmp_path)
    assert found(result.report, card_name(case)) == case.expected, report_text(result.report)


@pytest.mark.parametrize("case", card_cases(valid=True), ids=lambda c: c.id)
def test_valid_card_case(case: Case, serve: Callable[[bytes, str, int], str],
                         tmp_path: Path) -> None:
    result = check_case(case, serve, tmp_path)
    assert result.ok, report_text(result.report)
    assert found(result.report, card_name(case)) == case.expected, report_text(result.report)


# -- the registry and the cases ----------------------------------------------------------


def _expected(cases: list[Case]) -> set[str]:
    return {rule for c in cases for rule in c.rules()}


#: For each place the registry names, the ids some failing example proves.
COVERAGE: dict[str, Callable[[], set[str]]] = {
    "build": lambda: _expected(operator_cases()) | HOSTILE_COVERS["build"],
    "card": lambda: _expected(card_cases()) | HOSTILE_COVERS["card"],
}


@pytest.mark.parametrize("where", sorted(COVERAGE))
def test_every_checked_id_has_a_failing_example(where: str) -> None:
    missing = sorted(checked_at(where) - COVERAGE[where]())
    assert not missing, f"checked at {where} but no failing example: {missing}"


def test_cases_cite_only_registered_ids() -> None:
    cited = _expected(operator_cases()) | _expected(card_cases())
    cited |= _expected(operator_cases(valid=True)) | _expected(card_cases(valid=True))
    assert cited - rule_ids() == set()


def test_the_meta_test_can_fail() -> None:
    """An id marked checked with no example is reported (the meta-test is not vacuous)."""
    assert "OR-3.8" in checked_at("build") and "OR-3.8" in COVERAGE["build"]()
    assert checked_at("build") - (COVERAGE["build"]() - {"OR-3.8"}) == {"OR-3.8"}
