"""The README stays short and the user guide (docs/, built by MkDocs from mkdocs.yml)
stays whole: it builds with --strict, every nav entry becomes a page, a broken link,
a broken anchor or a page left out of the nav fails the build, and every relative link
of README.md and ARCHITECTURE.md names a file that exists and a heading it has."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from html import unescape
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import markdown
import pytest
import yaml

from support.paths import REPO

CONFIG = REPO / "mkdocs.yml"
DOCS = REPO / "docs"


def _mkdocs_build(config: Path, out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f",
                           str(config), "-d", str(out)], capture_output=True, text=True,
                          timeout=120, cwd=config.parent)


def _copy_guide(folder: Path) -> None:
    """The guide's sources in ``folder``: docs/, mkdocs.yml, and what its hooks read
    (scripts/guide_hooks.py, CHANGELOG.md)."""
    shutil.copytree(DOCS, folder / "docs")
    shutil.copy(CONFIG, folder / "mkdocs.yml")
    (folder / "scripts").mkdir()
    shutil.copy(REPO / "scripts" / "guide_hooks.py", folder / "scripts" / "guide_hooks.py")
    shutil.copy(REPO / "CHANGELOG.md", folder / "CHANGELOG.md")


def _nav_pages(nav: list[Any]) -> list[tuple[str, str]]:
    """(title, page) of every entry of an MkDocs nav, sections flattened."""
    out: list[tuple[str, str]] = []
    for entry in nav:
        [(title, value)] = entry.items()
        out.extend(_nav_pages(value) if isinstance(value, list) else [(title, value)])
    return out


def test_the_readme_is_at_most_200_lines() -> None:
    lines = (REPO / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 200, len(lines)


def test_the_guide_builds_strictly_with_a_page_per_nav_entry(tmp_path: Path) -> None:
    done = _mkdocs_build(CONFIG, tmp_path / "guide")
    assert done.returncode == 0, done.stderr
    config = yaml.safe_load(CONFIG.read_text(encoding="utf-8"))
    assert config["strict"] is True and config["docs_dir"] == "docs"
    assert config["validation"]["anchors"] == "warn"  # strict turns warnings into failure
    pages = _nav_pages(config["nav"])
    # every Markdown file of docs/ is in the nav, once
    assert sorted(page for _, page in pages) == sorted(p.name for p in DOCS.glob("*.md"))
    for title, page in pages:
        html = (tmp_path / "guide" / page.replace(".md", ".html")).read_text(encoding="utf-8")
        # the page is the page's own text: its first heading, under the nav entry's title
        first = next(line for line in (DOCS / page).read_text(encoding="utf-8").splitlines()
                     if line.startswith("# "))
        heading = re.search(r"<h1[^>]*>(.*?)</h1>", html, re.S)
        assert heading, page
        assert unescape(re.sub(r"<[^>]+>", "", heading[1])).strip() == \
            first[2:].replace("`", "").strip(), page
        [shown] = re.findall(r"<title>(.*?)</title>", html)
        assert unescape(shown) == ("acap user guide" if page == "index.md"
                                   else f"{title} - acap user guide"), page


@pytest.mark.parametrize(("page", "old", "new", "said"), [
    ("person-entry-page.md", "(publishing.md#hosting-files)", "(publishing.md#hosting-filez)",
     "does not contain an anchor '#hosting-filez'"),
    ("index.md", "(keys.md)", "(key.md)", "'key.md', but the target is not found"),
    ("index.md", "(keys.md)", "(#no-such-heading)",
     "link '#no-such-heading', but there is no such anchor"),
])
def test_a_broken_link_or_anchor_fails_the_build(tmp_path: Path, page: str, old: str,
                                                  new: str, said: str) -> None:
    """The check can fail: a copy of the guide with one link broken does not build."""
    _copy_guide(tmp_path)
    text = (tmp_path / "docs" / page).read_text(encoding="utf-8")
    assert old in text
    (tmp_path / "docs" / page).write_text(text.replace(old, new, 1), encoding="utf-8")
    done = _mkdocs_build(tmp_path / "mkdocs.yml", tmp_path / "out")
    assert done.returncode != 0
    assert said in done.stderr, done.stderr


def test_a_page_left_out_of_the_nav_fails_the_build(tmp_path: Path) -> None:
    _copy_guide(tmp_path)
    (tmp_path / "docs" / "orphan.md").write_text("# Orphan\n", encoding="utf-8")
    done = _mkdocs_build(tmp_path / "mkdocs.yml", tmp_path / "out")
    assert done.returncode != 0
    assert "orphan.md" in done.stderr, done.stderr


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        href = dict(attrs).get("href")
        if tag == "a" and href:
            self.hrefs.append(href)


def _render(path: Path) -> markdown.Markdown:
    md = markdown.Markdown(extensions=["toc", "tables", "fenced_code"])
    md.convert(path.read_text(encoding="utf-8"))
    return md


def _anchors(path: Path) -> set[str]:
    """The ids MkDocs gives the headings of a Markdown file (Python-Markdown's toc, which
    MkDocs uses: lowercase, spaces to hyphens, punctuation dropped, a repeat gets _1)."""
    out: set[str] = set()
    stack = list(_render(path).toc_tokens)  # type: ignore[attr-defined]
    while stack:
        token = stack.pop()
        out.add(token["id"])
        stack.extend(token["children"])
    return out


def _relative_links(path: Path) -> list[str]:
    parser = _Links()
    md = markdown.Markdown(extensions=["toc", "tables", "fenced_code"])
    parser.feed(md.convert(path.read_text(encoding="utf-8")))
    return [h for h in parser.hrefs if not urlsplit(h).scheme and not h.startswith("//")]


@pytest.mark.parametrize("name", ["README.md", "ARCHITECTURE.md"])
def test_every_relative_link_names_a_file_and_a_heading_it_has(name: str) -> None:
    source = REPO / name
    links = _relative_links(source)
    if name == "README.md":
        assert len(links) >= 20  # the README points into the guide
    broken = []
    for link in links:
        parts = urlsplit(link)
        target = (source.parent / unquote(parts.path)).resolve() if parts.path else source
        if not target.exists():
            broken.append(f"{link}: no such file")
        elif parts.fragment and target.suffix == ".md" and \
                parts.fragment not in _anchors(target):
            broken.append(f"{link}: no heading #{parts.fragment} in {target.name}")
        elif parts.fragment and target.suffix != ".md":
            broken.append(f"{link}: an anchor into a file that is not Markdown")
    assert broken == []


def test_the_anchor_check_knows_mkdocs_slugs() -> None:
    """The slugs the link check compares with are MkDocs' own: a heading with code,
    a colon and a parenthesis, as the guide writes them."""
    anchors = _anchors(DOCS / "publishing.md")
    assert {"what-is-live-acap-check-url-live", "start-a-project-acap-init",
            "your-web-servers-settings-for-the-card"} <= anchors
    assert "same-for-everyone-or-38" in _anchors(DOCS / "person-entry-page.md")


def test_the_python_api_page_lists_exactly_the_public_names() -> None:
    """docs/python-api.md's table names every name of ``acap.__all__``, and no other."""
    import acap

    text = (DOCS / "python-api.md").read_text(encoding="utf-8")
    rows = [line.split("|")[1] for line in text.splitlines() if line.startswith("| `")]
    heads = {name for row in rows for name in re.findall(r"`(\w+)", row)}
    words = {name for row in rows for name in re.findall(r"\w+", row)}
    assert heads <= set(acap.__all__), heads - set(acap.__all__)  # nothing private listed
    assert set(acap.__all__) <= words, set(acap.__all__) - words  # every public name listed
