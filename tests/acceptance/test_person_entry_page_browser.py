"""The personEntry page in a real browser: Debian's Chromium driven by Playwright.

The built site is served from a local HTTP server. The tests check that the
page makes no request outside its own origin, sets no cookie and stores
nothing, needs no JavaScript, has no axe-core violation of WCAG 2.1 A and AA
(light and dark), has no horizontal scroll at 360 px and 1280 px, and follows
the reader's reduced-motion and print settings. Screenshots of each width go
to tests/output/ (git-ignored) for a person to look at.

Chromium is Debian's (``apt-get install chromium``; .ci/run installs it);
Playwright never downloads a browser here. axe-core comes bundled inside
axe-playwright-python (axe.min.js, MPL-2.0), so nothing is fetched.
"""

from __future__ import annotations

import functools
import http.client
import os
import shutil
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, Page, sync_playwright

from acap.cli import report_text
from support.languages import example_in, shipped_languages
from support.pages import PAYLOADS, everything_set_to, example_data, run_build, write_yaml
from support.paths import REPO, SRC
from support.publishing import set_overlay

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
OUTPUT = REPO / "tests" / "output"
WCAG21_AA = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}}


class PagesLike(SimpleHTTPRequestHandler):
    """Answers paths in GitHub Pages' order, as measured by
    github.com/slorber/trailing-slash-guide (docs/Hosting-Providers.md) and
    github.com/simonw/playing-with-github-pages: ``/x`` is the file ``x``, else
    ``x.html`` (200, no redirect, even when a folder ``x/`` exists too), else a
    folder ``x/`` (301 to ``/x/``); ``/x/`` is ``x/index.html``; anything else is a 404
    (no folder listings). test_the_test_server_resolves_paths_like_github_pages
    checks it against that table."""

    def send_head(self) -> Any:
        path = urlsplit(self.path).path
        if not path.endswith("/"):
            fs = self.translate_path(path)
            if not os.path.isfile(fs) and os.path.isfile(fs + ".html"):
                self.path = path + ".html"
        return super().send_head()

    def list_directory(self, path: Any) -> None:
        self.send_error(404, "File not found")
        return None

    def log_message(self, format: str, *args: Any) -> None:
        pass


class Server:
    """A host folder of site/ served on 127.0.0.1 (a free port), in a thread, the way
    GitHub Pages resolves paths (:class:`PagesLike`)."""

    def __init__(self, folder: Path) -> None:
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0),
                                         functools.partial(PagesLike, directory=str(folder)))
        self.origin = f"http://127.0.0.1:{self.httpd.server_port}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Server]]:
    """Three builds, each host folder served: the bundled example exactly as the
    repository builds it (with its templates/ override), the example with a French
    page, and the example with every text set to markup."""
    root = tmp_path_factory.mktemp("sites")
    bundled = root / "bundled"
    bundled.mkdir()
    shutil.copyfile(REPO / "operator.yaml", bundled / "operator.yaml")
    shutil.copytree(REPO / "templates", bundled / "templates")
    french = root / "french"
    french.mkdir()
    data = example_data()
    data["page"] = {"languages": ["en", "fr"], "translations": {"fr": {
        "hours": "Du lundi au vendredi, de 9 h à 17 h",
        "skills": {"service-pricing": {
                       "name": "Coût des services",
                       "forPeople": "Ce que coûte chacun de nos services, et ce qu’il "
                                    "comprend. Nous en parlons avec vous, à votre rythme."},
                   "arrangement-booking": {
                       "name": "Prendre rendez-vous",
                       "forPeople": "Un moment avec l’un de nos conseillers funéraires pour "
                                    "préparer ensemble les obsèques. Rien n’est réservé sans "
                                    "votre accord."},
                   "speak-to-staff": {"name": "Parler à un membre du personnel",
                                      "description": "Un conseiller vous rappelle."}}}}}
    write_yaml(french, data)
    markup = root / "markup"
    markup.mkdir()
    write_yaml(markup, everything_set_to(PAYLOADS[1]))
    # The card host is the operator's website, where acap writes no home page unless it
    # owns the host whole (overlay: false): that variant of acap's root page is served too.
    whole = root / "whole"
    shutil.copytree(bundled, whole)
    set_overlay(whole / "operator.yaml", "example.com", False)
    servers: dict[str, Server] = {}
    for name, folder in (("bundled", bundled), ("french", french), ("markup", markup),
                         ("whole", whole)):
        result = run_build(folder / "operator.yaml", write=True)
        assert result.report.ok, report_text(result.report)
        servers[name] = Server(folder / "site" / "ask.example.com")
        servers[name + "-card-host"] = Server(folder / "site" / "example.com")
    assert (whole / "site/example.com/index.html").is_file()
    assert not (bundled / "site/example.com/index.html").exists()
    yield servers
    for s in servers.values():
        s.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    assert Path(CHROMIUM).is_file(), \
        "Debian's Chromium is needed: apt-get install chromium (.ci/run installs it)"
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield b
        b.close()


class Visit:
    """A page loaded in a fresh browser context, with everything it did recorded."""

    def __init__(self, browser: Browser, url: str, **context: Any) -> None:
        self.context = browser.new_context(**context)
        self.page: Page = self.context.new_page()
        self.requests: list[str] = []
        self.console: list[str] = []
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.on("console", lambda m: self.console.append(f"{m.type}: {m.text}"))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))
        self.response = self.page.goto(url, wait_until="networkidle")

    def close(self) -> None:
        self.context.close()

    def overflow(self) -> int:
        """How many CSS pixels the page is wider than the viewport (0: no horizontal scroll)."""
        width: int = self.page.evaluate(
            "Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)"
            " - document.documentElement.clientWidth")
        return width


def _status(server: Server, path: str) -> tuple[int, str | None, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", server.httpd.server_port, timeout=10)
    try:
        conn.request("GET", path)
        resp = conn.getresponse()
        return resp.status, resp.getheader("Location"), resp.read()
    finally:
        conn.close()


def test_the_test_server_resolves_paths_like_github_pages(tmp_path: Path) -> None:
    """The GitHub Pages row of the trailing-slash guide's table, on its own site."""
    for rel in ("file.html", "folder/index.html", "both.html", "both/index.html"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(rel)
    server = Server(tmp_path)
    try:
        table = {"/file": (200, "file.html"), "/file/": (404, None),
                 "/file.html": (200, "file.html"), "/folder": (301, "/folder/"),
                 "/folder/": (200, "folder/index.html"),
                 "/folder/index.html": (200, "folder/index.html"),
                 "/both": (200, "both.html"), "/both/": (200, "both/index.html"),
                 "/both.html": (200, "both.html"), "/both/index.html": (200, "both/index.html")}
        for path, (status, what) in table.items():
            got, location, body = _status(server, path)
            assert got == status, path
            if status == 200:
                assert body.decode() == what, path
            elif status == 301:
                assert location == what, path
    finally:
        server.close()


def test_the_person_entry_address_answers_200_without_a_redirect(
        browser: Browser, sites: dict[str, Server]) -> None:
    """https://ask.example.com/talk itself is the page (talk.html), with no 301 to /talk/,
    and its language links work from /talk, /talk/ and /talk/fr/ alike."""
    origin = sites["french"].origin
    for path in ("/talk", "/talk/"):
        v = Visit(browser, origin + path)
        try:
            assert v.response is not None and v.response.status == 200, path
            assert v.response.request.redirected_from is None, path
            assert v.page.url == origin + path
            v.page.get_by_role("link", name="Français").click()
            v.page.wait_for_load_state()
            assert v.page.url == origin + "/talk/fr/"
            assert v.page.evaluate("document.documentElement.lang") == "fr"
            v.page.get_by_role("link", name="English").click()
            v.page.wait_for_load_state()
            assert v.page.url == origin + "/talk"  # no redirect on the way back either
            assert v.page.evaluate("document.documentElement.lang") == "en"
        finally:
            v.close()
    assert _status(sites["french"], "/talk")[:2] == (200, None)
    assert _status(sites["french"], "/talk/fr/")[:2] == (200, None)


def test_the_page_asks_nothing_of_anyone(browser: Browser, sites: dict[str, Server]) -> None:
    origin = sites["bundled"].origin
    v = Visit(browser, origin + "/talk")
    try:
        assert v.response is not None and v.response.status == 200
        assert v.requests == [origin + "/talk"], "the page alone, with no redirect"
        assert [u for u in v.requests if not u.startswith(origin + "/")] == []
        assert v.context.cookies() == []
        assert v.page.evaluate("document.cookie") == ""
        assert v.page.evaluate("localStorage.length + sessionStorage.length") == 0
        assert v.page.evaluate("document.scripts.length") == 1  # the JSON-LD data block
        assert v.errors == [] and v.dialogs == []
        assert [m for m in v.console if "Content Security Policy" in m] == []
        # the inline style is allowed by its hash: the page is styled
        bg = v.page.evaluate("getComputedStyle(document.body).backgroundColor")
        assert bg == "rgb(250, 248, 244)"
        assert v.page.evaluate("document.referrer") == ""
        assert v.page.evaluate("document.documentElement.lang") == "en"
    finally:
        v.close()


def test_the_page_needs_no_javascript(browser: Browser, sites: dict[str, Server]) -> None:
    v = Visit(browser, sites["bundled"].origin + "/talk", java_script_enabled=False)
    try:
        phone = v.page.get_by_role("link", name="+44 20 7946 0000")
        assert phone.is_visible()
        assert phone.get_attribute("href") == "tel:+44-20-7946-0000"
        assert v.page.get_by_role("heading", name="What you can ask us about").is_visible()
    finally:
        v.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize(("site", "path"), [
    ("bundled", "/talk"), ("french", "/talk/fr/"), ("bundled", "/"),
    ("bundled", "/404.html"), ("whole-card-host", "/"), ("markup", "/talk")])
def test_no_wcag21_aa_violation(browser: Browser, sites: dict[str, Server], site: str,
                                path: str, scheme: str) -> None:
    v = Visit(browser, sites[site].origin + path, color_scheme=scheme)
    try:
        results = Axe().run(v.page, options=WCAG21_AA)
        assert results.violations_count == 0, results.generate_report()
        passes = v.page.evaluate("axe.run(document, {runOnly: {type: 'tag', values: "
                                 "['wcag2aa']}}).then(r => r.passes.map(p => p.id))")
        assert "color-contrast" in passes  # contrast was checked, not skipped
    finally:
        v.close()


def test_axe_finds_a_real_violation(browser: Browser, tmp_path: Path) -> None:
    """The accessibility check can fail: pale grey text on white breaks WCAG 1.4.3."""
    cfg = write_yaml(tmp_path, example_data())
    (tmp_path / "templates").mkdir()
    (tmp_path / "templates" / "page.css").write_text("body { color: #bbb; background: #fff; }\n")
    assert run_build(cfg, write=True).report.ok
    server = Server(tmp_path / "site" / "ask.example.com")
    v = Visit(browser, server.origin + "/talk")
    try:
        results = Axe().run(v.page, options=WCAG21_AA)
        assert "color-contrast" in [x["id"] for x in results.response["violations"]]
    finally:
        v.close()
        server.close()


@pytest.mark.parametrize("width", [360, 1280])
def test_no_horizontal_scroll_and_a_screenshot(browser: Browser, sites: dict[str, Server],
                                               width: int) -> None:
    OUTPUT.mkdir(parents=True, exist_ok=True)
    for site, path, name in (("bundled", "/talk", "person-entry"),
                             ("french", "/talk/fr/", "person-entry-fr"),
                             ("markup", "/talk", "person-entry-markup"),
                             ("bundled", "/404.html", "not-found")):
        for scheme in ("light", "dark"):
            v = Visit(browser, sites[site].origin + path,
                      viewport={"width": width, "height": 800}, color_scheme=scheme)
            try:
                assert v.overflow() == 0, (site, path, width, scheme)
                suffix = "" if scheme == "light" else "-dark"
                v.page.screenshot(path=str(OUTPUT / f"{name}-{width}{suffix}.png"),
                                  full_page=True)
            finally:
                v.close()
    assert (OUTPUT / f"person-entry-{width}.png").stat().st_size > 10_000


def test_markup_in_operator_texts_never_runs(browser: Browser, sites: dict[str, Server]) -> None:
    v = Visit(browser, sites["markup"].origin + "/talk")
    try:
        assert v.dialogs == [] and v.errors == []
        assert v.page.evaluate("document.images.length") == 0
        assert PAYLOADS[1] in v.page.inner_text("h1")
    finally:
        v.close()


def test_reduced_motion_turns_every_transition_off(browser: Browser,
                                                   sites: dict[str, Server]) -> None:
    js = ("[...document.querySelectorAll('*')].map(e => getComputedStyle(e))"
          ".filter(s => s.transitionDuration.split(',').some(d => parseFloat(d) > 0)"
          " || s.animationName !== 'none').length")
    v = Visit(browser, sites["bundled"].origin + "/talk", reduced_motion="no-preference")
    try:
        assert v.page.evaluate(js) > 0  # links ease their underline when motion is welcome
    finally:
        v.close()
    v = Visit(browser, sites["bundled"].origin + "/talk", reduced_motion="reduce")
    try:
        assert v.page.evaluate(js) == 0
    finally:
        v.close()


def test_print_is_plain_and_short(browser: Browser, sites: dict[str, Server]) -> None:
    OUTPUT.mkdir(parents=True, exist_ok=True)
    v = Visit(browser, sites["french"].origin + "/talk/fr/", color_scheme="dark")
    try:
        v.page.emulate_media(media="print")
        assert v.page.evaluate("getComputedStyle(document.querySelector('nav')).display") == \
            "none"
        assert v.page.evaluate("getComputedStyle(document.body).backgroundColor") in \
            ("rgb(255, 255, 255)", "rgba(0, 0, 0, 0)")
        assert v.page.evaluate("getComputedStyle(document.body).color") == "rgb(0, 0, 0)"
        v.page.screenshot(path=str(OUTPUT / "person-entry-fr-print.png"), full_page=True)
        pdf = v.page.pdf(path=str(OUTPUT / "person-entry-fr.pdf"), format="A4")
        assert pdf.startswith(b"%PDF")
        pages = pdf.count(b"/Type /Page") - pdf.count(b"/Type /Pages")
        assert 1 <= pages <= 2, pages
    finally:
        v.close()


# -- every shipped language (issue 15) -------------------------------------------------------------

@pytest.fixture(scope="module")
def language_sites(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Server]]:
    """The example written in each language acap ships words for (its page texts in that
    language, English second), built and served: the personEntry host of each."""
    root = tmp_path_factory.mktemp("languages")
    servers: dict[str, Server] = {}
    for tag in shipped_languages():
        folder = root / tag
        folder.mkdir()
        result = run_build(write_yaml(folder, example_in(tag)), write=True)
        assert result.report.findings == [], report_text(result.report)
        servers[tag] = Server(folder / "site" / "ask.example.com")
    yield servers
    for s in servers.values():
        s.close()


@pytest.mark.parametrize("tag", shipped_languages())
def test_each_shipped_language_passes_axe_at_360_px(browser: Browser,
                                                    language_sites: dict[str, Server],
                                                    tag: str) -> None:
    """The personEntry page, the host's root page and its 404 page in each language, on a
    360 px phone, light and dark: no WCAG 2.1 A/AA violation axe-core finds, no sideways
    scroll (long German compounds included), and the page says which language it is in."""
    words = yaml.safe_load((SRC / "templates" / "words" / f"{tag}.yaml").read_text("utf-8"))
    OUTPUT.mkdir(parents=True, exist_ok=True)
    for path in ("/talk", "/", "/404.html"):
        for scheme in ("light", "dark"):
            v = Visit(browser, language_sites[tag].origin + path, color_scheme=scheme,
                      viewport={"width": 360, "height": 740})
            try:
                assert v.page.evaluate("document.documentElement.lang") == tag
                results = Axe().run(v.page, options=WCAG21_AA)
                assert results.violations_count == 0, (tag, path, results.generate_report())
                assert v.overflow() == 0, (tag, path, scheme)
                if path == "/talk":
                    heading = v.page.get_by_role("heading", name=words["asksHeading"])
                    assert heading.is_visible()
                    if scheme == "light":
                        v.page.screenshot(path=str(OUTPUT / f"person-entry-{tag}-360.png"),
                                          full_page=True)
            finally:
                v.close()
