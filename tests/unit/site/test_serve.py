"""acap serve: every host by Host header, GitHub Pages' headers, rebuilds, and the A2A SDK."""

from __future__ import annotations

import asyncio
import http.client
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from acap.builder import BuildOptions, build
from acap.site import PreviewServer, host_from_header, start_preview
from support.publishing import do_build, project, set_version


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[PreviewServer, Path]]:
    config = project(tmp_path)
    do_build(config)
    site = config.parent / "site"

    def rebuild() -> bool:
        return build(BuildOptions(config=config, site_dir=site)).written

    server = start_preview(site, port=0, config=config, interval=0.05, rebuild=rebuild)
    try:
        yield server, config
    finally:
        server.stop()


def _get(server: PreviewServer, path: str, host: str | None = None,
         headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    h = dict(headers or {})
    if host is not None:
        h["Host"] = host
    conn.request("GET", path, headers=h)
    resp = conn.getresponse()
    body = resp.read()
    out = (resp.status, {k.lower(): v for k, v in resp.getheaders()}, body)
    conn.close()
    return out


def test_binds_to_loopback_by_default(served: tuple[PreviewServer, Path]) -> None:
    server, _ = served
    assert server.bind == "127.0.0.1"
    assert server._httpd.server_address[0] == "127.0.0.1"


def test_each_host_by_host_header_with_pages_headers(
        served: tuple[PreviewServer, Path]) -> None:
    server, config = served
    site = config.parent / "site"
    card_bytes = (site / "example.com/.well-known/agent-card.json").read_bytes()
    for host in ("example.com", f"example.com:{server.port}",
                 f"example.com.localhost:{server.port}", f"localhost:{server.port}", None):
        status, headers, body = _get(server, "/.well-known/agent-card.json", host)
        assert status == 200, host
        assert body == card_bytes
        assert headers["content-type"] == "application/json; charset=utf-8"
        assert headers["access-control-allow-origin"] == "*"
        assert headers["cache-control"] == "max-age=600"
    status, headers, body = _get(server, "/ext/on-request/v1/operator.schema.json",
                                 "agent-capability.org")
    assert status == 200 and json.loads(body)["$schema"].startswith("https://json-schema.org/")
    # Not there on the other host.
    assert _get(server, "/ext/on-request/v1/operator.schema.json", "example.com")[0] == 404
    # Conditional requests (A2A §8.6.2) get 304.
    etag = _get(server, "/.well-known/jwks.json", "example.com")[1]["etag"]
    status, headers, body = _get(server, "/.well-known/jwks.json", "example.com",
                                 {"If-None-Match": etag})
    assert status == 304 and body == b"" and headers["etag"] == etag


def test_nothing_outside_the_host_folders(served: tuple[PreviewServer, Path]) -> None:
    server, _ = served
    assert _get(server, "/.acap/manifest.json", "example.com")[0] == 404
    assert _get(server, "/manifest.json", ".acap")[0] == 404
    assert _get(server, "/../.acap/manifest.json", "example.com")[0] == 400
    assert _get(server, "/%2e%2e/.acap/manifest.json", "example.com")[0] == 400
    status, _, body = _get(server, "/", "unknown.example")
    assert status == 404 and b"example.com.localhost" in body


def test_folder_without_slash_redirects_like_pages(served: tuple[PreviewServer, Path]) -> None:
    server, _ = served
    status, headers, _ = _get(server, "/.well-known", "example.com")
    assert status == 301 and headers["location"] == "/.well-known/"


def test_page_without_slash_is_answered_from_its_html_file_like_pages(
        served: tuple[PreviewServer, Path]) -> None:
    """GitHub Pages answers /talk from talk.html, with no redirect, when it exists
    (github.com/slorber/trailing-slash-guide: /both is 200), and /talk/ from
    talk/index.html; the preview does the same."""
    server, config = served
    site = config.parent / "site" / "ask.example.com"
    status, headers, body = _get(server, "/talk", "ask.example.com")
    assert status == 200 and "location" not in headers
    assert body == (site / "talk.html").read_bytes()
    assert headers["content-type"] == "text/html; charset=utf-8"
    status, _, body = _get(server, "/talk/", "ask.example.com")
    assert status == 200 and body == (site / "talk" / "index.html").read_bytes()
    (site / "talk.html").unlink()  # a folder alone: redirected, as on Pages
    status, headers, _ = _get(server, "/talk", "ask.example.com")
    assert status == 301 and headers["location"] == "/talk/"
    assert _get(server, "/index", "ask.example.com")[0] == 200  # index.html, as on Pages


def test_host_header_parsing() -> None:
    hosts = ["example.com", "ask.example.com"]
    assert host_from_header("ASK.example.com.localhost:8000", hosts, "example.com") == \
        "ask.example.com"
    assert host_from_header("127.0.0.1:8000", hosts, "example.com") == "example.com"
    assert host_from_header("[::1]:8000", hosts, "example.com") == "example.com"
    assert host_from_header("evil.example", hosts, "example.com") is None


def test_rebuilds_when_operator_yaml_changes(served: tuple[PreviewServer, Path]) -> None:
    server, config = served
    set_version(config, "9.9.9")
    deadline = time.monotonic() + 15
    version = None
    while time.monotonic() < deadline:
        status, _, body = _get(server, "/.well-known/agent-card.json", "example.com")
        version = json.loads(body)["version"] if status == 200 else None
        if version == "9.9.9" and server.rebuilds >= 1:
            break
        time.sleep(0.05)
    assert version == "9.9.9"
    assert server.rebuilds >= 1
    # A broken operator.yaml keeps serving the previous site.
    config.write_text(config.read_text("utf-8") + "\nnot: [valid\n", encoding="utf-8")
    before = server.rebuilds
    while time.monotonic() < deadline and server.rebuilds == before:
        time.sleep(0.05)
    assert server.rebuilds > before
    status, _, body = _get(server, "/.well-known/agent-card.json", "example.com")
    assert status == 200 and json.loads(body)["version"] == "9.9.9"


class _ToPreview(httpx.AsyncBaseTransport):
    """Send every https request to the preview, keeping the host in the Host header
    (the jku and card host example.com are mapped to the local server)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.inner = httpx.AsyncHTTPTransport()
        self.seen: list[str] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.seen.append(str(request.url))
        request.headers["Host"] = request.url.host
        request.url = request.url.copy_with(scheme="http", host="127.0.0.1", port=self.port)
        return await self.inner.handle_async_request(request)


def _sdk_resolve(port: int, verify: bool) -> tuple[Any, list[str], list[str]]:
    from a2a.client.card_resolver import A2ACardResolver
    from a2a.utils.signing import create_signature_verifier
    from jwt.api_jwk import PyJWK

    jku_fetched: list[str] = []

    def key_provider(kid: str | None, jku: str | None) -> PyJWK:
        assert jku is not None
        jku_fetched.append(jku)
        url = httpx.URL(jku)
        r = httpx.get(url.copy_with(scheme="http", host="127.0.0.1", port=port),
                      headers={"Host": url.host}, timeout=10)
        r.raise_for_status()
        assert r.headers["content-type"].startswith("application/json")
        key = next(k for k in r.json()["keys"] if k["kid"] == kid)
        return PyJWK.from_dict(key)

    verifier = create_signature_verifier(key_provider, ["ES256"]) if verify else None
    transport = _ToPreview(port)

    async def go() -> Any:
        async with httpx.AsyncClient(transport=transport, timeout=10) as client:
            resolver = A2ACardResolver(client, "https://example.com")
            return await resolver.get_agent_card(signature_verifier=verifier)

    return asyncio.run(go()), transport.seen, jku_fetched


def test_a2a_sdk_resolves_and_verifies_the_served_card(
        served: tuple[PreviewServer, Path]) -> None:
    server, _ = served
    card, seen, jkus = _sdk_resolve(server.port, verify=True)
    assert seen == ["https://example.com/.well-known/agent-card.json"]
    assert jkus == ["https://example.com/.well-known/jwks.json"]
    assert card.name == "Example Memorial Chapel assistant"
    assert [s.id for s in card.skills][:2] == ["opening-hours", "service-pricing"]
    assert card.capabilities.extensions[0].uri == \
        "https://agent-capability.org/ext/on-request/v1"
    assert len(card.signatures) == 1


def test_a2a_sdk_verifier_rejects_a_changed_served_card(tmp_path: Path) -> None:
    """The positive test above means something: the same path refuses a changed card."""
    from a2a.utils.signing import InvalidSignaturesError

    config = project(tmp_path)
    do_build(config)
    card_file = config.parent / "site/example.com/.well-known/agent-card.json"
    card = json.loads(card_file.read_text("utf-8"))
    card["description"] = "Changed after signing."
    card_file.write_text(json.dumps(card, indent=2), encoding="utf-8")
    with start_preview(config.parent / "site", port=0) as server:
        with pytest.raises(InvalidSignaturesError):
            _sdk_resolve(server.port, verify=True)
        card_obj, _, _ = _sdk_resolve(server.port, verify=False)
        assert card_obj.description == "Changed after signing."


def test_serve_command_prints_each_host_url(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """The command wiring: builds, prints a URL per host, stops on Ctrl-C."""
    from click.testing import CliRunner

    import acap.cli._commands.serve
    from acap.cli import cli

    config = project(tmp_path)
    seen: dict[str, PreviewServer] = {}

    def fake_forever(server: PreviewServer) -> None:
        seen["server"] = server
        assert _get(server, "/.well-known/agent-card.json", "example.com")[0] == 200
        assert _get(server, "/talk", "ask.example.com")[0] == 200
        server.stop()

    monkeypatch.setattr(acap.cli._commands.serve, "serve_forever", fake_forever)
    res = CliRunner().invoke(cli, ["serve", "-c", str(config), "--port", "0"])
    assert res.exit_code == 0, res.output
    port = seen["server"].port
    assert f"example.com                  http://example.com.localhost:{port}/" in res.stdout
    # what to open first: the card and the page where a person asks (the card host's
    # own root is the operator's website, which acap does not make: a 404 there)
    lines = res.stdout.splitlines()
    assert lines[1:3] == [
        f"  the card                     http://example.com.localhost:{port}"
        "/.well-known/agent-card.json",
        f"  where a person asks          http://ask.example.com.localhost:{port}/talk"]
    assert f"http://agent-capability.org.localhost:{port}/" in res.stdout
    # The command built the site before serving it.
    assert (config.parent / "site/example.com/.well-known/agent-card.json").is_file()


def test_watched_files_see_the_private_file_and_same_size_edits(tmp_path: Path) -> None:
    import os
    import shutil

    from acap.site._preview import watched_files
    from support.paths import EXAMPLE

    config = tmp_path / "operator.yaml"
    shutil.copyfile(EXAMPLE, config)
    private = tmp_path / "operator.private.yaml"
    private.write_text('service-pricing:\n  - "£2,450"\n', encoding="utf-8")
    before = watched_files(config)
    assert private in before
    st = config.stat()
    config.write_text(config.read_text("utf-8").replace("1.0.0", "9.9.9"), encoding="utf-8")
    os.utime(config, ns=(st.st_atime_ns, st.st_mtime_ns))  # same size, same mtime
    after = watched_files(config)
    assert after[config] != before[config]


def test_a_port_in_use_is_reported_before_any_build(tmp_path: Path) -> None:
    import socket

    from click.testing import CliRunner

    from acap.cli import cli

    holder = socket.create_server(("127.0.0.1", 0))
    port = holder.getsockname()[1]
    try:
        res = CliRunner().invoke(cli, ["serve", "-c", str(tmp_path / "operator.yaml"),
                                       "--port", str(port)])
    finally:
        holder.close()
    assert res.exit_code == 1
    assert f"cannot listen on 127.0.0.1:{port}: Address already in use" in res.stderr
    assert not (tmp_path / "site").exists()  # nothing was built


def test_a_tel_person_entry_is_named_as_the_phone_number_it_is(tmp_path: Path) -> None:
    """acap serve once printed ``http://.localhost:8011+34-961-23-45-67`` for a tel:
    personEntry: a phone number has no preview address; it is named as a number."""
    config = project(tmp_path, replace={
        "personEntry: https://ask.example.com/talk   # where a person asks":
        'personEntry: "tel:+34 961 23 45 67"'})
    assert build(BuildOptions(config=config, spec_site=False)).ok
    with start_preview(config.parent / "site", port=0) as server:
        points = server.entry_points()
    port = server.port
    assert points == [
        ("the card", f"http://example.com.localhost:{port}/.well-known/agent-card.json"),
        ("a phone number to ask", "+34 961 23 45 67"),
        ("where a person asks", f"http://ask.example.com.localhost:{port}/talk")]
    assert not [url for _, url in points if "+34" in url and "localhost" in url]
