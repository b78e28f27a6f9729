"""The user guide in a real browser (Debian's Chromium, driven by Playwright), at a
laptop's 1280 px and a phone's 390 px: the top navigation fits (one row at 1280, a menu
that opens within the screen at 390), no page scrolls sideways, code is coloured, and
nothing is asked of another origin. The CLI reference and the changelog pages are
written from acap itself when the guide is built."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import pytest

from acap.cli import cli
from acap.cli._group import COMMANDS
from support.browsers import chromium
from support.paths import REPO

WIDTHS = (1280, 390)


@pytest.fixture(scope="module")
def guide(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("guide") / "site"
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f",
                           str(REPO / "mkdocs.yml"), "-d", str(out)], capture_output=True,
                          text=True, timeout=300, cwd=REPO)
    assert done.returncode == 0, done.stderr
    return out


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as b:
        yield b


def _open(browser: Any, guide: Path, page: str, width: int) -> tuple[Any, list[str]]:
    tab = browser.new_page(viewport={"width": width, "height": 900})
    requests: list[str] = []
    tab.on("request", lambda r: requests.append(r.url))
    tab.goto((guide / page).as_uri())
    return tab, requests


def _nav(tab: Any) -> list[dict[str, Any]]:
    return list(tab.evaluate(
        "Array.from(document.querySelectorAll('.navbar-nav > li')).map(e => {"
        "const r = e.getBoundingClientRect(); return {text: e.innerText.trim().split('\\n')[0],"
        " top: r.top, left: r.left, right: r.right, height: r.height}})"))


def test_the_top_navigation_is_one_row_at_1280(browser: Any, guide: Path) -> None:
    tab, _ = _open(browser, guide, "index.html", 1280)
    items = _nav(tab)
    assert [i["text"] for i in items][:7] == ["Home", "Install", "Operators", "Reference",
                                             "Platforms", "Agents", "Spec site"]
    assert len({round(i["top"]) for i in items}) == 1, items  # one row
    assert tab.locator(".navbar").bounding_box()["height"] < 70
    assert max(i["right"] for i in items) <= 1280
    tab.close()


def test_the_navigation_is_a_menu_that_fits_at_390(browser: Any, guide: Path) -> None:
    tab, _ = _open(browser, guide, "index.html", 390)
    assert tab.locator(".navbar").bounding_box()["height"] < 70  # collapsed
    toggle = tab.get_by_role("button", name="Toggle navigation")
    assert toggle.is_visible()
    toggle.click()
    tab.wait_for_function("document.querySelector('#navbar-collapse').classList.contains('show')")
    items = _nav(tab)
    assert all(i["left"] >= 0 and i["right"] <= 390 for i in items), items
    tab.get_by_role("link", name="Install", exact=True).first.click()
    assert tab.url.endswith("/install.html")
    assert tab.locator("h1").inner_text() == "Install"
    tab.close()


@pytest.mark.parametrize("width", WIDTHS)
def test_no_page_scrolls_sideways_or_asks_another_origin(browser: Any, guide: Path,
                                                       width: int) -> None:
    for page in sorted(p.name for p in guide.glob("*.html")):
        tab, requests = _open(browser, guide, page, width)
        assert tab.evaluate("document.documentElement.scrollWidth") <= width, page
        assert [r for r in requests if not r.startswith("file://")] == [], page
        tab.close()


def test_code_is_coloured_without_a_script(browser: Any, guide: Path) -> None:
    tab, requests = _open(browser, guide, "operator-yaml.html", 1280)
    key = tab.locator(".codehilite .nt").first  # a YAML key
    body = tab.evaluate("getComputedStyle(document.body).color")
    assert key.is_visible()
    assert tab.evaluate("e => getComputedStyle(e).color", key.element_handle()) != body
    assert not [r for r in requests if r.endswith(".js") and "highlight" in r]
    assert tab.locator("script[src*='highlight']").count() == 0
    tab.close()


def _visible_commands() -> list[tuple[list[str], click.Command]]:
    ctx = click.Context(cli, info_name="acap")
    out = []
    for name, (_, _, summary) in COMMANDS.items():
        if not summary:
            continue
        command = cli.get_command(ctx, name)
        assert command is not None
        out.append(([name], command))
        if isinstance(command, click.Group):
            sub = click.Context(command, info_name=name, parent=ctx)
            out += [([name, s], c) for s in command.list_commands(sub)
                    if (c := command.get_command(sub, s)) is not None and not c.hidden]
    return out


def test_the_cli_reference_has_every_command_and_option(browser: Any, guide: Path) -> None:
    """Written from the click commands: each command (keys' subcommands too) has its
    section, anchored by its name, with every option it takes (serve -v among them), and
    shell completion is there."""
    tab, _ = _open(browser, guide, "cli.html", 1280)
    commands = _visible_commands()
    assert {"serve", "check", "publish"} <= {p[0] for p, _ in commands}
    assert ["keys", "rotate"] in [p for p, _ in commands]
    for path, command in commands:
        section = tab.locator(f"#acap-{'-'.join(path)}")
        assert section.count() == 1, path
        text = tab.evaluate("e => e.nextElementSibling.nextElementSibling.innerText",
                            section.element_handle())
        assert text.startswith(f"Usage: acap {' '.join(path)}"), (path, text[:80])
        for param in command.params:
            for opt in getattr(param, "opts", []):
                if opt.startswith("-"):
                    assert opt in text, (path, opt)
    serve = tab.evaluate("document.querySelector('#acap-serve').nextElementSibling"
                         ".nextElementSibling.innerText")
    assert "-v, --verbose" in serve
    assert "_ACAP_COMPLETE=bash_source acap" in tab.locator("#shell-completion ~ div").first \
        .inner_text()
    tab.close()


def test_shell_completion_as_the_reference_says_it(tmp_path: Path) -> None:
    """The reference's completion line works: acap prints bash's completion script."""
    import os

    acap = Path(sys.executable).parent / "acap"
    done = subprocess.run([str(acap)], env={**os.environ, "_ACAP_COMPLETE": "bash_source"},
                          capture_output=True, text=True, timeout=60, check=False)
    assert "_acap_completion()" in done.stdout and "complete -o nosort -F" in done.stdout


def test_the_changelog_page_is_changelog_md(browser: Any, guide: Path) -> None:
    tab, _ = _open(browser, guide, "changelog.html", 1280)
    shown = tab.locator("div[role=main]").inner_text()
    changelog = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    for heading in [line[3:] for line in changelog.splitlines() if line.startswith("## ")]:
        assert heading in shown, heading
    assert "Keep a Changelog" in shown
    tab.close()
