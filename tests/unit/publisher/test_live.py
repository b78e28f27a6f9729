"""Live check: what a client gets from the published card, against real local servers."""

from __future__ import annotations

import functools
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from click.testing import CliRunner

from acap.cli import cli, report_text
from acap.publisher import live_check
from acap.publisher._live import person_entry_findings
from acap.site import start_preview
from support.publishing import do_build, project, set_version

CARD = "https://example.com/.well-known/agent-card.json"


@pytest.fixture
def site(tmp_path: Path) -> Path:
    config = project(tmp_path)
    do_build(config)
    return config.parent / "site"


def _warnings(result: object) -> list[str]:
    return sorted(f.rule for f in result.report.warnings)  # type: ignore[attr-defined]


def test_live_check_of_the_preview_reports_every_fact(site: Path) -> None:
    with start_preview(site, port=0) as server:
        local = f"http://127.0.0.1:{server.port}"
        res = live_check(CARD, site_dir=site,
                         connect_to={"example.com": local, "ask.example.com": local})
    assert res.ok, report_text(res.report)
    # the page where a person asks is there too
    [page] = res.person_entries.values()
    assert (page.url, page.status, page.error) == ("https://ask.example.com/talk", 200, None)
    c = res.card
    assert (c.status, c.content_type, c.cors, c.max_age) == \
        (200, "application/json; charset=utf-8", "*", 600)
    assert c.etag is not None and c.etag.startswith('"')
    assert c.same_as_local is True
    assert list(res.jwks) == ["https://example.com/.well-known/jwks.json"]
    j = res.jwks["https://example.com/.well-known/jwks.json"]
    assert (j.status, j.cors, j.same_as_local) == (200, "*", True)
    assert [(s.kid, s.alg, s.valid) for s in res.signatures] == [("chapel-1", "ES256", True)]
    assert len(res.report) == 0


def test_live_bytes_that_differ_from_the_local_build(site: Path, tmp_path: Path) -> None:
    live = tmp_path / "live-site"
    shutil.copytree(site, live)
    config = site.parent / "operator.yaml"
    set_version(config, "7.0.0")
    do_build(config)  # the local build moves on; the "live" copy stays old
    with start_preview(live, port=0) as server:
        res = live_check(CARD, site_dir=site,
                         connect_to={"example.com": f"http://127.0.0.1:{server.port}"})
    assert res.card.same_as_local is False
    assert res.jwks["https://example.com/.well-known/jwks.json"].same_as_local is True
    assert _warnings(res) == ["LIVE-DIFFERS"]
    assert res.ok  # still validly signed: it is the older card


@pytest.fixture
def plain_server(site: Path) -> Iterator[int]:
    """Python's own static server over the host folder: no CORS, no Cache-Control, no ETag."""

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

    handler = functools.partial(Quiet, directory=str(site / "example.com"))
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    t = threading.Thread(target=httpd.serve_forever, daemon=True)
    t.start()
    try:
        yield int(httpd.server_address[1])
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_missing_headers_are_reported(site: Path, plain_server: int) -> None:
    res = live_check(CARD, site_dir=site,
                     connect_to={"example.com": f"http://127.0.0.1:{plain_server}"})
    assert res.signatures[0].valid
    assert res.card.cors is None and res.card.max_age is None and res.card.etag is None
    # Card and JWKS each: no CORS, no max-age, no ETag.
    assert _warnings(res) == ["LIVE-CACHE"] * 2 + ["LIVE-CORS"] * 2 + ["LIVE-ETAG"] * 2
    out = CliRunner().invoke(cli, ["check", CARD, "--live", "--site-dir", str(site), "--connect-to",
                                   f"example.com=http://127.0.0.1:{plain_server}"])
    assert out.exit_code == 0, out.output
    assert "  CORS             -  <- see below" in out.stdout
    assert "signature 0: kid chapel-1, alg ES256: valid" in out.stdout
    assert "[LIVE-CORS]" in out.stderr
    # the fix names where each kind of host takes its headers from (fresh-user trial)
    assert "site/.servers/<host>/" in out.stderr
    strict = CliRunner().invoke(cli, ["check", CARD, "--live", "--strict", "--connect-to",
                                      f"example.com=http://127.0.0.1:{plain_server}"])
    assert strict.exit_code == 1


def test_http_errors_size_limit_and_timeout(site: Path) -> None:
    with start_preview(site, port=0) as server:
        route = {"example.com": f"http://127.0.0.1:{server.port}"}
        missing = live_check("https://example.com/.well-known/nothing.json", connect_to=route)
        assert [f.rule for f in missing.report.errors] == ["LIVE-HTTP"]
        assert missing.card.status == 404 and not missing.ok
        small = live_check(CARD, connect_to=route, max_bytes=100)
        assert [f.rule for f in small.report.errors] == ["LIVE-HTTP"]
        assert small.report.errors[0].message.endswith("acap reads at most 100 bytes")
        assert missing.report.errors[0].hint is not None
        assert missing.report.errors[0].hint.startswith("the card is not at that address")
    # A server that accepts the connection and never answers.
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(1)
    try:
        start = time.monotonic()
        res = live_check(CARD, connect_to={"example.com":
                                           f"http://127.0.0.1:{silent.getsockname()[1]}"},
                         timeout=0.5)
        assert time.monotonic() - start < 5
    finally:
        silent.close()
    assert [f.rule for f in res.report.errors] == ["LIVE-HTTP"]
    assert "timed out" in res.report.errors[0].message


def test_a_personentry_page_that_is_not_there_is_an_error(site: Path) -> None:
    """Fresh-user trial (HIGH): a card whose personEntry names a page nobody published.
    The live check fetches it (only because the card verified) and says so: a 404 is an
    error naming the page; a host --connect-to does not route is not fetched, and says
    why; the CLI's exit code and table follow."""
    for page in (site / "ask.example.com").rglob("*.html"):
        page.unlink()
    with start_preview(site, port=0) as server:
        local = f"http://127.0.0.1:{server.port}"
        res = live_check(CARD, site_dir=site,
                         connect_to={"example.com": local, "ask.example.com": local})
        [f] = res.report.errors
        assert (f.rule, str(f.location)) == ("LIVE-PERSON-ENTRY", "https://ask.example.com/talk")
        assert f.message == ("the personEntry page answers HTTP 404: the signed card sends "
                             "people to a page that does not exist")
        assert res.person_entries["https://ask.example.com/talk"].status == 404
        out = CliRunner().invoke(cli, ["check", CARD, "--live", "--site-dir", str(site),
                                       "--connect-to", f"example.com={local}",
                                       "--connect-to", f"ask.example.com={local}"])
        assert out.exit_code == 1, out.output
        assert "personEntry https://ask.example.com/talk" in out.stdout
        assert "[LIVE-PERSON-ENTRY]" in out.stderr
        # only the card's host routed: the page is on the live web, not fetched from here
        only = live_check(CARD, site_dir=site, connect_to={"example.com": local})
    assert only.ok and not only.report.findings
    assert only.person_entries["https://ask.example.com/talk"].error == (
        "not fetched: --connect-to gives no address for ask.example.com")


def test_an_unverified_card_steers_no_fetch_to_its_personentry(site: Path) -> None:
    """A card whose signature does not verify names no address acap fetches."""
    (site / "example.com/.well-known/jwks.json").unlink()
    with start_preview(site, port=0) as server:
        local = f"http://127.0.0.1:{server.port}"
        res = live_check(CARD, connect_to={"example.com": local, "ask.example.com": local})
    assert not res.ok and res.person_entries == {}


def test_a_personentry_page_that_answers_otherwise_is_a_warning() -> None:
    """Any answer but 200, 404 and 410 (a server that refuses acap, one that is down) is
    a guess, a warning; a 410 is an error like a 404."""
    from email.message import Message

    from acap.errors import FetchError
    from acap.load import Response

    def answer(status: int) -> object:
        return lambda url: Response(url, status, Message(), b"")

    url = "https://ask.example.com/talk"
    _, [w] = person_entry_findings(url, answer(403))
    assert (w.rule, w.level) == ("LIVE-PERSON-ENTRY", "warning")
    _, [e] = person_entry_findings(url, answer(410))
    assert e.level == "error"
    assert person_entry_findings(url, answer(200))[1] == []

    def down(url: str) -> object:
        raise FetchError(url, "connection refused", None)

    facts, [d] = person_entry_findings(url, down)
    assert (d.level, facts.error) == ("warning", "connection refused")


def test_a_card_whose_jwks_is_missing_does_not_verify(site: Path) -> None:
    (site / "example.com/.well-known/jwks.json").unlink()
    with start_preview(site, port=0) as server:
        res = live_check(CARD, site_dir=None,
                         connect_to={"example.com": f"http://127.0.0.1:{server.port}"})
    assert not res.ok
    assert res.jwks["https://example.com/.well-known/jwks.json"].status == 404
    # The signature was not checked (no keys), not found wrong: SIG-KEYS, not SIG-INVALID.
    assert {f.rule for f in res.report.errors} == {"LIVE-HTTP", "SIG-KEYS"}
    assert [(s.checked, s.state) for s in res.signatures] == [(False, "NOT CHECKED")]
    assert res.card.same_as_local is None


def test_connect_to_is_a_route_not_a_redirect(site: Path) -> None:
    """Trial item 10: checking acap serve via --connect-to gave "the card URL redirects to
    http://127.0.0.1:..." [CARD-URL]; a real redirect through the route is still seen, at
    the public origin."""
    import json

    from acap.load import fetch

    with start_preview(site, port=0) as server:
        local = f"http://127.0.0.1:{server.port}"
        out = CliRunner().invoke(cli, ["check", CARD, "--live", "--format", "json",
                                       "--site-dir", str(site),
                                       "--connect-to", f"example.com={local}"])
        assert out.exit_code == 0, out.output
        doc = json.loads(out.stdout)
        check = next(r for r in doc["results"] if r["kind"] == "card")
        assert [(f["rule"], f["message"]) for f in check["findings"]
                if f["rule"] == "CARD-URL"] == []
        text = CliRunner().invoke(cli, ["check", CARD, "--live", "--site-dir", str(site),
                                        "--connect-to", f"example.com={local}"])
        assert "the card URL redirects" not in text.output
        # acap serve answers a folder without its slash (and no .html twin) with 301 to
        # the slash, as GitHub Pages does: the route reports it as the public URL.
        (site / "ask.example.com" / "moved").mkdir()
        (site / "ask.example.com" / "moved" / "index.html").write_text("<p>moved</p>")
        moved = fetch("https://ask.example.com/moved", connect_to={"ask.example.com": local})
        assert (moved.status, moved.url) == (200, "https://ask.example.com/moved/")
        same = fetch(CARD, connect_to={"example.com": local})
        assert same.url == CARD


def _cors_server(site: Path, value: str) -> ThreadingHTTPServer:
    """Python's static server over the host folder, sending ``value`` as the CORS header."""

    class Cors(SimpleHTTPRequestHandler):
        def end_headers(self) -> None:
            self.send_header("Access-Control-Allow-Origin", value)
            super().end_headers()

        def log_message(self, *args: object) -> None:
            pass

    handler = functools.partial(Cors, directory=str(site / "example.com"))
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd


@pytest.mark.parametrize(("value", "passes"), [("*", True), ("\t* ", True),
                                               ("\x1b[41m*", False), ("https://evil", False),
                                               ("**", False)])
def test_cors_passes_only_when_exactly_a_star(site: Path, value: str, passes: bool) -> None:
    httpd = _cors_server(site, value)
    try:
        res = live_check(CARD, site_dir=site, connect_to={
            "example.com": f"http://127.0.0.1:{httpd.server_address[1]}"})
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert res.card.cors is not None
    assert res.card.cors_open is passes
    assert ("LIVE-CORS" in _warnings(res)) is not passes


def test_verify_connect_to_checks_the_card_where_it_is_served(site: Path) -> None:
    """acap verify had no --connect-to (check --live had): the card and the JWKS its jku
    names are fetched from the route, with Host: example.com; without the route, the
    public address is asked (and, here, cannot be reached)."""
    with start_preview(site, port=0) as server:
        local = f"http://127.0.0.1:{server.port}"
        out = CliRunner().invoke(cli, ["verify", CARD, "--connect-to", f"example.com={local}"])
        assert out.exit_code == 0, out.output
        assert "chapel-1" in out.stdout and "valid" in out.stdout
        bad = CliRunner().invoke(cli, ["verify", CARD, "--connect-to", "example.com"])
        assert bad.exit_code == 2 and "write HOST=URL" in bad.output
    # the route is a place to connect to, not a trust: a tampered card there fails
    card = site / "example.com/.well-known/agent-card.json"
    card.write_bytes(card.read_bytes().replace(b"Example Memorial", b"Exemplary Memorial"))
    with start_preview(site, port=0) as server:
        out = CliRunner().invoke(cli, ["verify", CARD, "--connect-to",
                                       f"example.com=http://127.0.0.1:{server.port}"])
    assert out.exit_code == 1 and "INVALID" in out.stdout
