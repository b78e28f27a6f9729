"""Apache, nginx and Caddy serve the built card with the right headers (issue 15).

The operator's path, for real: ``acap build``, ``acap publish --dir`` into the folder a
web server serves (which holds the practice's website), then the server from Debian's
packages serves it on 127.0.0.1 with the settings acap wrote (``.well-known/.htaccess`` in
the site; ``apache.conf``, ``nginx.conf`` and ``Caddyfile`` beside it), and curl asks for
the card and its keys: JSON, readable from any origin (CORS), cached as ``cache.card``
says, ``nosniff``, an ETag; the website's own pages get none of the card's headers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path

import pytest

from acap.cli import report_text
from acap.publisher import live_check, publish
from support.publishing import do_build, project, snapshot, trial
from support.servers import Response, apache, caddy, curl, nginx, world_readable_dir

CARD = "/.well-known/agent-card.json"
JWKS = "/.well-known/jwks.json"
WEBSITE = {"index.html": b"<!doctype html><title>Praxis</title><p>Willkommen</p>\n",
           "impressum.html": b"<!doctype html><title>Impressum</title>\n",
           "css/site.css": b"body { font-family: serif }\n"}


@dataclass
class Published:
    """A built and published site: the web root, the settings beside the build."""

    root: Path
    servers: Path
    work: Path
    built: dict[str, bytes]
    site: Path


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Published]:
    tmp = tmp_path_factory.mktemp("web")
    config = project(tmp)
    do_build(config)
    with world_readable_dir("acap-www-") as www:
        root = www / "praxis"
        for rel, data in WEBSITE.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_bytes(data)
        res = publish(trial(config=config, dir=root, hosting="apache"))
        assert res.ok, res.report
        assert {rel: snapshot(root)[rel] for rel in WEBSITE} == WEBSITE  # nothing lost
        work = www / "work"
        work.mkdir()
        work.chmod(0o755)
        yield Published(root, config.parent / "site/.servers/example.com", work,
                        snapshot(config.parent / "site/example.com"), config.parent / "site")


def _server_of(kind: str, p: Published) -> AbstractContextManager[str]:
    folder = p.work / kind
    folder.mkdir(exist_ok=True)
    folder.chmod(0o755)
    servers: dict[str, Callable[[], AbstractContextManager[str]]] = {
        "apache .htaccess": lambda: apache(p.root, folder, override="FileInfo"),
        "apache apache.conf": lambda: apache(p.root, folder, override="None",
                                             include=p.servers / "apache.conf"),
        "nginx": lambda: nginx(p.root, folder, p.servers / "nginx.conf"),
        "caddy": lambda: caddy(p.root, folder, p.servers / "Caddyfile"),
    }
    return servers[kind]()


def _card_headers(r: Response) -> dict[str, str | None]:
    return {name: r.headers.get(name) for name in (
        "content-type", "access-control-allow-origin", "cache-control",
        "x-content-type-options")}


EXPECTED = {"content-type": "application/json", "access-control-allow-origin": "*",
            "cache-control": "public, max-age=600", "x-content-type-options": "nosniff"}


@pytest.mark.parametrize("kind", ["apache .htaccess", "apache apache.conf", "nginx", "caddy"])
def test_the_server_gives_the_card_and_jwks_their_headers(published: Published,
                                                          kind: str) -> None:
    with _server_of(kind, published) as origin:
        for path in (CARD, JWKS):
            got = curl(origin + path)
            assert got.status == 200, (kind, path)
            assert _card_headers(got) == EXPECTED, (kind, path)
            assert got.headers.get("etag"), (kind, path)  # A2A §8.6.1
            assert got.body == published.built[path.lstrip("/")]
            again = curl(origin + path, headers={"If-None-Match": got.headers["etag"]})
            assert again.status == 304, (kind, path)
            head = curl(origin + path, method="HEAD")
            assert head.status == 200 and _card_headers(head) == EXPECTED, (kind, path)
        # A browser's CORS preflight is answered and allowed.
        pre = curl(origin + CARD, method="OPTIONS", headers={
            "Origin": "https://agent.example", "Access-Control-Request-Method": "GET"})
        assert pre.status in (200, 204), kind
        assert pre.headers.get("access-control-allow-origin") == "*", kind
        # The website's own files get none of the card's headers.
        page = curl(origin + "/impressum.html")
        assert page.status == 200 and page.body == WEBSITE["impressum.html"]
        assert page.headers["content-type"].startswith("text/html")
        assert "access-control-allow-origin" not in page.headers, kind
        assert curl(origin + "/").body == WEBSITE["index.html"]  # the practice's home page


def test_without_acaps_settings_the_headers_are_missing(published: Published) -> None:
    """The check above can fail: Debian's default (AllowOverride None, nothing included)
    serves the card without CORS or acap's cache time."""
    folder = published.work / "apache-plain"
    folder.mkdir()
    folder.chmod(0o755)
    with apache(published.root, folder, override="None") as origin:
        got = curl(origin + CARD)
        assert got.status == 200
        assert "access-control-allow-origin" not in got.headers
        assert got.headers.get("cache-control") != EXPECTED["cache-control"]


@pytest.mark.parametrize(("headers", "override", "cause"), [
    (True, "FileInfo", None),
    (False, "FileInfo", "it read acap's .well-known/.htaccess, but mod_headers is off there"),
    (True, "None", "it does not read acap's .well-known/.htaccess"),
])
def test_the_live_check_names_why_apache_sends_no_headers(published: Published, headers: bool,
                                                          override: str,
                                                          cause: str | None) -> None:
    """The trial's case: with mod_headers off, check --live said "verified" with warnings
    that did not name the cause. Debian's Apache with and without mod_headers, and with
    .htaccess files not read (AllowOverride None)."""
    folder = published.work / f"apache-{headers}-{override}"
    folder.mkdir()
    folder.chmod(0o755)
    with apache(published.root, folder, override=override, headers=headers) as origin:
        res = live_check(f"https://example.com{CARD}", site_dir=published.site,
                         connect_to={"example.com": origin}, allow_private=True)
    assert [s.valid for s in res.signatures] == [True]  # the card verifies either way
    cors = [f for f in res.report.warnings if f.rule == "LIVE-CORS"]
    if cause is None:
        assert cors == [] and res.ok, report_text(res.report)
        return
    assert {f.location.file for f in cors} == {f"https://example.com{CARD}",
                                               f"https://example.com{JWKS}"}
    for f in cors:
        assert f.message.endswith("has no Access-Control-Allow-Origin header: clients "
                                  "running in a browser cannot read it")
        assert f.hint is not None and f.hint.startswith(
            f"likely cause: the server is Apache, and {cause}")
