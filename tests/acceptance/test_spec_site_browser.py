"""The specification site in a real browser (Debian's Chromium, driven by Playwright):
it opens from file:// and over HTTP, its navigation and anchors work, it asks no other origin."""

from __future__ import annotations

import functools
import http.server
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from acap.builder import BuildOptions, build
from acap.cli import report_text
from support.browsers import chromium

SPEC_DIR = "agent-capability.org/ext/on-request/v1"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from support.paths import EXAMPLE

    folder = tmp_path_factory.mktemp("browser")
    shutil.copyfile(EXAMPLE, folder / "operator.yaml")
    result = build(BuildOptions(config=folder / "operator.yaml", spec_site=True))
    assert result.report.ok, report_text(result.report)
    return result.site_dir


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as b:
        yield b


@pytest.fixture
def server(site: Path) -> Iterator[str]:
    """site/agent-capability.org served on 127.0.0.1 (a stand-in for the https host)."""
    handler = functools.partial(http.server.SimpleHTTPRequestHandler,
                                directory=str(site / "agent-capability.org"))
    handler.log_message = lambda *a, **k: None  # type: ignore[attr-defined]
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def walk(browser: Any, start: str, origin: str) -> list[str]:
    """Open ``start``, go to the conformance page by the navigation bar, follow OR-3.4
    to the specification, and back by the table of contents; return every request."""
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(start)
    assert page.title() == "On Request: an A2A extension"
    assert page.evaluate("getComputedStyle(document.querySelector('main')).maxWidth") != "none"

    page.get_by_role("navigation", name="Pages").get_by_role("link", name="Conformance").click()
    assert page.url.endswith("/conformance.html")
    assert page.locator("h1").inner_text() == "Conformance"

    page.locator("table.requirements a", has_text="OR-3.4").first.click()
    assert page.url.endswith("/index.html#OR-3.4")
    row = page.locator("#OR-3\\.4")
    assert row.is_visible()
    assert page.evaluate("document.querySelector(':target').id") == "OR-3.4"
    top = page.evaluate("document.getElementById('OR-3.4').getBoundingClientRect().top")
    assert 0 <= top < 100  # scrolled to the requirement

    page.get_by_role("navigation", name="On this page").get_by_role(
        "link", name="A.5 Activation over JSON-RPC").click()
    assert page.url.endswith("#A.5")
    assert "A2A-Extensions: https://agent-capability.org/ext/on-request/v1" in page.locator(
        "pre[data-example='a5-activation.http']").inner_text()
    page.close()
    return [u for u in requests if not u.startswith(origin)]


def test_it_opens_from_the_file_system_and_navigates(browser: Any, site: Path) -> None:
    index = (site / SPEC_DIR / "index.html").resolve().as_uri()
    assert walk(browser, index, "file://") == []


def test_it_opens_at_the_folder_url_and_navigates(browser: Any, server: str) -> None:
    # The URI with a trailing slash serves the specification (index.html).
    assert walk(browser, f"{server}/ext/on-request/v1/", server) == []


@pytest.mark.parametrize("width", [360, 1280])
def test_no_page_scrolls_sideways(browser: Any, site: Path, width: int) -> None:
    page = browser.new_page(viewport={"width": width, "height": 800})
    for html in sorted((site / SPEC_DIR).glob("*.html")):
        page.goto(html.resolve().as_uri())
        overflow = page.evaluate("document.documentElement.scrollWidth - "
                                 "document.documentElement.clientWidth")
        assert overflow <= 0, (html.name, width, overflow)
    page.close()


def test_on_a_phone_the_text_comes_before_the_contents(browser: Any, site: Path) -> None:
    """Issue 15: at 360 px the page showed its 25 links of contents before any text. The
    text comes first; a link at the top leads to the contents, which follow the text."""
    page = browser.new_page(viewport={"width": 360, "height": 740})
    page.goto((site / SPEC_DIR / "index.html").resolve().as_uri())
    box = ("(s) => { const r = document.querySelector(s).getBoundingClientRect(); "
           "return [r.top + window.scrollY, r.left]; }")
    first_text, _ = page.evaluate(box, "main p")
    toc_top, _ = page.evaluate(box, "nav.toc")
    assert first_text < 740 / 2, first_text  # text in the first half of the first screen
    assert toc_top > first_text
    assert page.locator("nav.toc a").count() >= 20  # the links the text now comes before
    page.get_by_role("link", name="Contents of this page").click()
    assert page.url.endswith("#toc")
    assert page.evaluate("document.querySelector(':target').id") == "toc"
    page.close()
    wide = browser.new_page(viewport={"width": 1280, "height": 800})
    wide.goto((site / SPEC_DIR / "index.html").resolve().as_uri())
    assert not wide.get_by_role("link", name="Contents of this page").is_visible()
    main_top, main_left = wide.evaluate(box, "main")
    toc_top, toc_left = wide.evaluate(box, "nav.toc")
    assert toc_left > main_left and abs(toc_top - main_top) < 40  # beside the text, as before
    wide.close()
