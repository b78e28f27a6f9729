"""The specification site: anchors, examples, schemas, links, origins, reproducibility."""

from __future__ import annotations

import gzip
import html
import json
import re
import shutil
import subprocess
import sys
from collections import Counter
from html.parser import HTMLParser
from importlib import resources
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest
import yaml

from acap import schemas
from acap.builder import BuildOptions, build
from acap.builder.specsite import _site as spec_site
from acap.builder.specsite import check_examples
from acap.cli import finding_json, finding_text, report_text
from acap.findings import Finding, Location, Report
from acap.requirements import own_rules, requirements
from acap.site import url_to_path
from acap.uris import SPEC_BASE

EXTENSION_URI = "https://agent-capability.org/ext/on-request/v1"
ORIGIN = "https://agent-capability.org"
SPEC_DIR = "agent-capability.org/ext/on-request/v1"
SOURCES = Path(str(resources.files("acap") / "spec"))

#: The 23 requirement ids and the RFC 2119 keywords their text uses (each once, in
#: order of first use), as read from the specification, not from the registry.
SPEC_LEVELS = {
    "OR-3.1": ["MUST"], "OR-3.2": ["MUST"], "OR-3.3": ["MUST"], "OR-3.4": ["MUST"],
    "OR-3.5": ["MAY"], "OR-3.6": ["MAY", "MUST NOT"], "OR-3.7": ["MUST NOT"],
    "OR-3.8": ["MUST NOT"], "OR-3.9": ["MUST NOT"], "OR-5.1": ["MUST"], "OR-5.2": [],
    "OR-5.3": ["MUST NOT", "MUST"], "OR-5.4": ["MAY", "MUST NOT"], "OR-5.5": ["SHOULD"],
    "OR-5.6": ["MAY"], "OR-5.7": ["MUST NOT", "MUST"], "OR-5.8": ["MUST NOT"], "OR-5.9": [],
    "OR-5.10": ["SHOULD", "MUST"], "OR-6.1": ["MUST"], "OR-6.2": ["MUST"],
    "OR-6.3": ["MUST NOT", "SHOULD"], "OR-6.4": ["SHOULD"],
}


# ---------------------------------------------------------------------------
# One build of this repository's example, with the spec site, shared by the tests.

def _build(folder: Path, example: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    config = folder / "operator.yaml"
    shutil.copyfile(example, config)
    result = build(BuildOptions(config=config, spec_site=True))
    assert result.report.ok, report_text(result.report)
    assert result.written
    return result.site_dir


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from support.paths import EXAMPLE

    return _build(tmp_path_factory.mktemp("spec") / "project", EXAMPLE)


class Page(HTMLParser):
    """Everything the tests need from one HTML file."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: list[str] = []
        self.refs: list[tuple[str, str, str]] = []  # (tag, attribute, url)
        self.styles: list[str] = []
        self.tags: Counter[str] = Counter()
        self.rows: dict[str, list[str]] = {}
        self.examples: dict[str, str] = {}
        self._row: str | None = None
        self._cell: list[str] | None = None
        self._pre: str | None = None
        self._style = False
        self.metas: list[dict[str, str | None]] = []
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags[tag] += 1
        a = dict(attrs)
        if a.get("id"):
            self.ids.append(a["id"] or "")
        if tag == "a" and a.get("name"):
            self.ids.append(a["name"] or "")
        for attr in ("href", "src", "srcset", "action", "poster", "data", "formaction",
                     "manifest", "background", "cite"):
            if a.get(attr):
                self.refs.append((tag, attr, a[attr] or ""))
        if a.get("style"):
            self.styles.append(a["style"] or "")
        if tag == "style":
            self._style = True
        if tag == "meta":
            self.metas.append(a)
        if tag == "tr" and a.get("id", "").startswith("OR-"):  # type: ignore[union-attr]
            self._row = a["id"]
            self.rows[self._row or ""] = []
        if tag in ("td", "th") and self._row:
            self._cell = []
        if tag == "pre" and a.get("data-example"):
            self._pre = a["data-example"]
            self.examples[self._pre or ""] = ""

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._row and self._cell is not None:
            self.rows[self._row].append("".join(self._cell).strip())
            self._cell = None
        if tag == "tr":
            self._row = None
        if tag == "pre":
            self._pre = None
        if tag == "style":
            self._style = False

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)
        if self._pre:
            self.examples[self._pre] += data
        if self._style:
            self.styles.append(data)


def page(site: Path, name: str) -> Page:
    return Page((site / SPEC_DIR / name).read_text(encoding="utf-8"))


# ---------------------------------------------------------------------------

def test_the_specification_opens_at_the_extension_uri(site: Path) -> None:
    assert url_to_path(EXTENSION_URI) == f"{SPEC_DIR}/index.html"
    assert url_to_path(EXTENSION_URI + "/") == f"{SPEC_DIR}/index.html"
    assert SPEC_BASE == EXTENSION_URI + "/"
    index = page(site, "index.html")
    assert index.tags["h1"] == 1
    # The operator's own site is built next to it.
    assert (site / "example.com/.well-known/agent-card.json").is_file()
    assert sorted(p.name for p in (site / SPEC_DIR).glob("*.html")) == [
        "changelog.html", "conformance.html", "developers.html", "index.html", "operators.html"]


def test_each_requirement_has_exactly_one_anchor_and_no_id_repeats(site: Path) -> None:
    index = page(site, "index.html")
    repeated = [i for i, n in Counter(index.ids).items() if n > 1]
    assert repeated == []
    registry = {r.id for r in requirements()}
    assert registry == set(SPEC_LEVELS)
    anchors = Counter(i for i in index.ids if re.fullmatch(r"OR-\d+\.\d+", i))
    assert anchors == Counter({rid: 1 for rid in SPEC_LEVELS})


def test_each_requirement_row_shows_the_registry_and_the_spec_levels(site: Path) -> None:
    rows = page(site, "index.html").rows
    for r in requirements():
        rid, level, statement = rows[r.id]
        assert rid == r.id
        assert statement == r.statement
        if SPEC_LEVELS[r.id]:
            assert level == ", ".join(SPEC_LEVELS[r.id]), r.id
        else:
            assert level == f"none{r.level_note}", r.id


def test_a_finding_links_to_its_anchor_on_that_page(site: Path) -> None:
    finding = Finding("OR-3.8", "error", "personEntry carries a query string",
                      Location("operator.yaml", 58, 18), "drop the query")
    doc = finding_json(finding)["doc"]
    assert doc == "https://agent-capability.org/ext/on-request/v1/#OR-3.8"
    assert finding_text(finding).splitlines()[-1] == f"    see: {doc}"
    url, fragment = str(doc).split("#")
    assert fragment in page(site, url_to_path(url).removeprefix(SPEC_DIR + "/")).ids



def test_a_finding_of_acaps_own_rules_links_to_its_row_on_the_conformance_page(
        site: Path) -> None:
    """Every own rule id has its anchor there, so every finding has a see: link that works."""
    conformance = page(site, "conformance.html").ids
    for rule, _statement in own_rules():
        doc = Finding(rule, "error", "x", Location("f")).doc
        assert doc == f"https://agent-capability.org/ext/on-request/v1/conformance.html#{rule}"
        assert rule in conformance, rule


def test_the_conformance_page_lists_every_requirement_and_where_it_is_checked(site: Path) -> None:
    conf = page(site, "conformance.html")
    links = [u for t, a, u in conf.refs if t == "a" and u.startswith("index.html#OR-")]
    assert sorted(set(links)) == sorted(f"index.html#{rid}" for rid in SPEC_LEVELS)
    text = (site / SPEC_DIR / "conformance.html").read_text(encoding="utf-8")
    for r in requirements():
        if not r.checkable:
            assert html.escape(r.not_checkable or "") in text


def test_every_example_on_the_page_is_the_file_and_validates(site: Path) -> None:
    shown = page(site, "index.html").examples
    assert sorted(shown) == ["a1-agent-card.json", "a2-information-referred.json",
                             "a3-action-referred.json", "a4-given-on-opt-in.json",
                             "a5-activation.http"]
    for name, text in shown.items():
        assert (text + "\n").encode() == (SOURCES / "docs" / "examples" / name).read_bytes()
        published = site / SPEC_DIR / "examples" / name
        assert published.read_bytes() == (SOURCES / "docs" / "examples" / name).read_bytes()
    # The text shown on the page passes the same checks the build runs.
    assert check_examples(lambda n: (shown[n] + "\n").encode(), lambda n: n) == []
    # And the developers page shows the three replies, the same bytes.
    dev = page(site, "developers.html").examples
    assert sorted(dev) == ["a2-information-referred.json", "a3-action-referred.json",
                           "a4-given-on-opt-in.json"]
    assert all(dev[n] == shown[n] for n in dev)


def test_a_broken_example_fails_the_build_and_keeps_the_old_site(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from support.paths import EXAMPLE

    site = _build(tmp_path / "project", EXAMPLE)
    before = {p: p.read_bytes() for p in site.rglob("*") if p.is_file()}
    broken = tmp_path / "spec"
    shutil.copytree(SOURCES, broken)
    a3 = broken / "docs" / "examples" / "a3-action-referred.json"
    a3.write_text(a3.read_text(encoding="utf-8").replace("TASK_STATE_REJECTED",
                                                         "TASK_STATE_COMPLETED"), encoding="utf-8")
    monkeypatch.setattr(spec_site, "SOURCES", broken)

    result = build(BuildOptions(config=tmp_path / "project" / "operator.yaml", spec_site=True))

    assert not result.written
    [finding] = result.report.errors
    assert finding.rule == "SPEC-EXAMPLE"
    assert finding.location.file == str(a3)
    assert finding.location.line == 5
    assert {p: p.read_bytes() for p in site.rglob("*") if p.is_file()} == before


def test_a_broken_link_in_a_page_fails_the_build(tmp_path: Path) -> None:
    broken = tmp_path / "spec"
    shutil.copytree(SOURCES, broken)
    dev = broken / "docs" / "developers.md"
    dev.write_text(dev.read_text(encoding="utf-8").replace("(index.md#OR-5.8)",
                                                           "(index.md#OR-5.80)"), encoding="utf-8")
    report = Report()
    assert spec_site.build_spec_site(report, broken) is None
    assert report.errors
    assert {f.rule for f in report} == {"SPEC-SITE"}
    assert any("OR-5.80" in f.message for f in report)


def test_an_unknown_directive_fails_the_build(tmp_path: Path) -> None:
    broken = tmp_path / "spec"
    shutil.copytree(SOURCES, broken)
    idx = broken / "docs" / "index.md"
    idx.write_text(idx.read_text(encoding="utf-8").replace(
        "<!-- acap:requirements 5.1 -->", "<!-- acap:requirements 5.9 -->"), encoding="utf-8")
    report = Report()
    assert spec_site.build_spec_site(report, broken) is None
    [finding] = report.errors
    assert finding.rule == "SPEC-SITE"
    assert "no requirement in section 5.9" in finding.message


def test_the_published_schemas_are_the_package_files_byte_for_byte(site: Path) -> None:
    for name in schemas.ALL:
        published = (site / SPEC_DIR / name).read_bytes()
        package = (resources.files("acap") / "schemas" / name).read_bytes()
        assert published == package
    ext = json.loads((site / SPEC_DIR / schemas.EXTENSION).read_bytes())
    assert ext["$id"] == f"{EXTENSION_URI}/{schemas.EXTENSION}"
    assert url_to_path(ext["$id"]) == f"{SPEC_DIR}/{schemas.EXTENSION}"


CSS_URL = re.compile(r"""url\(\s*['"]?([^'")\s]+)|@import\s+['"]([^'"]+)""")


def crawl(site: Path) -> tuple[list[str], int]:
    """Every problem a crawl of the spec host finds, and how many references it followed.

    Each src, href, srcset, ... of every HTML file, each url() or @import of inline
    styles and stylesheets: it must stay on https://agent-capability.org, name a
    file of the site and, with a fragment, an id of that page. No id repeats in
    a page; no page runs a script or embeds anything.
    """
    root = site / "agent-capability.org"
    parsed = {p: Page(p.read_text(encoding="utf-8")) for p in sorted(root.rglob("*.html"))}
    problems: list[str] = []
    checked = 0
    for path, pg in parsed.items():
        base = f"{ORIGIN}/{path.relative_to(root).as_posix()}"
        for tag in ("script", "iframe", "img", "object", "embed"):
            if pg.tags[tag]:
                problems.append(f"{path.name}: has <{tag}>")
        repeated = sorted(i for i, n in Counter(pg.ids).items() if n > 1)
        if repeated:
            problems.append(f"{path.name}: ids repeat: {repeated}")
        csp = [m for m in pg.metas if m.get("http-equiv") == "Content-Security-Policy"]
        if not (csp and "default-src 'none'" in (csp[0].get("content") or "")):
            problems.append(f"{path.name}: no Content-Security-Policy default-src 'none'")
        refs = list(pg.refs)
        for style in pg.styles:
            refs += [("style", "url", m[1] or m[2]) for m in CSS_URL.finditer(style)]
        for tag, attr, ref in refs:
            checked += 1
            url = urljoin(base, ref)
            parts = urlsplit(url)
            if parts.scheme != "https" or parts.netloc != "agent-capability.org":
                problems.append(f"{path.name}: <{tag} {attr}={ref!r}> leaves the origin")
                continue
            target = site / url_to_path(url.split("#")[0])
            if not target.is_file():
                problems.append(f"{path.name}: {ref!r} names no file")
            elif parts.fragment and (target not in parsed
                                     or parts.fragment not in parsed[target].ids):
                problems.append(f"{path.name}: {ref!r} names no anchor")
    for css in sorted(root.rglob("*.css")):
        for m in CSS_URL.finditer(css.read_text(encoding="utf-8")):
            problems.append(f"{css.name}: loads {m[1] or m[2]}")  # our stylesheet loads nothing
    return problems, checked


def test_a_crawl_finds_no_broken_link_and_no_other_origin(site: Path) -> None:
    assert len(list((site / SPEC_DIR).glob("*.html"))) == 5
    problems, checked = crawl(site)
    assert problems == []
    assert checked > 200


def test_the_crawl_sees_other_origins_and_broken_links(site: Path, tmp_path: Path) -> None:
    copy = tmp_path / "site"
    shutil.copytree(site, copy)
    dev = copy / SPEC_DIR / "developers.html"
    dev.write_text(dev.read_text(encoding="utf-8").replace(
        "</main>", '<img src="https://cdn.example.net/x.png"><a href="index.html#OR-9.9">x</a>'
        '<p id="read" style="background: url(//fonts.example.net/f.woff2)">y</p></main>'),
        encoding="utf-8")
    (copy / SPEC_DIR / "css" / "spec.css").write_text("@import 'https://cdn.example.net/a.css';")
    problems, _ = crawl(copy)
    assert problems == [
        "developers.html: has <img>",
        "developers.html: ids repeat: ['read']",
        "developers.html: <img src='https://cdn.example.net/x.png'> leaves the origin",
        "developers.html: 'index.html#OR-9.9' names no anchor",
        "developers.html: <style url='//fonts.example.net/f.woff2'> leaves the origin",
        "spec.css: loads https://cdn.example.net/a.css",
    ]


def test_two_builds_in_a_row_give_identical_files(
        tmp_path: Path, site: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The same project (same key) built again, with another SOURCE_DATE_EPOCH in the
    # environment: the site's dates are the document's, not the build's.
    project = site.parent
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1000000000")
    again = build(BuildOptions(config=project / "operator.yaml", site_dir=tmp_path / "site",
                               spec_site=True))
    assert again.report.ok
    import os

    assert os.environ["SOURCE_DATE_EPOCH"] == "1000000000"

    def tree(d: Path) -> dict[str, bytes]:
        return {p.relative_to(d).as_posix(): p.read_bytes() for p in d.rglob("*") if p.is_file()}

    first, second = tree(site), tree(tmp_path / "site")
    assert first.keys() == second.keys()
    assert [k for k in first if first[k] != second[k]] == []
    gz = (site / SPEC_DIR / "sitemap.xml.gz").read_bytes()
    assert int.from_bytes(gz[4:8], "little") == spec_site.source_date_epoch()
    sitemap = gzip.decompress(gz).decode()
    assert sitemap == (site / SPEC_DIR / "sitemap.xml").read_text(encoding="utf-8")
    assert set(re.findall(r"<lastmod>(.*)</lastmod>", sitemap)) == {"2026-11-01"}


def test_without_the_spec_site_mkdocs_is_not_even_imported(tmp_path: Path) -> None:
    from support.paths import EXAMPLE

    shutil.copyfile(EXAMPLE, tmp_path / "operator.yaml")
    code = ("import sys; from pathlib import Path; "
            "from acap.builder._build import build, BuildOptions; "
            "r = build(BuildOptions(config=Path('operator.yaml'), spec_site=False)); "
            "assert r.report.ok, report_text(r.report); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('mkdocs', 'markdown')))")
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                         text=True, check=True)
    assert out.stdout.strip() == "[]"
    assert not (tmp_path / "site" / "agent-capability.org").exists()


def test_the_operators_page_yaml_is_valid_operator_yaml() -> None:
    from jsonschema import Draft202012Validator

    text = (SOURCES / "docs" / "operators.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```yaml\n(.*?)```", text, re.S)
    assert len(blocks) >= 5
    root = schemas.schema(schemas.OPERATOR)
    for block in blocks:
        data = yaml.safe_load(block)
        assert set(data) <= set(root["properties"]), block
        for key, value in data.items():
            sub = dict(root["properties"][key], **{"$defs": root["$defs"]})
            errors = [e.message for e in Draft202012Validator(sub).iter_errors(value)]
            assert errors == [], (key, errors)


def test_mkdocs_yml_names_the_hooks_acap_uses() -> None:
    """`mkdocs serve -f src/acap/spec/mkdocs.yml` (for editing the pages) runs the same
    hooks as acap's own build."""
    import yaml

    from acap.builder.specsite._site import HOOKS
    from support.paths import SRC

    config = yaml.safe_load((SRC / "spec" / "mkdocs.yml").read_text(encoding="utf-8"))
    [hooks] = config["hooks"]
    assert (SRC / "spec" / hooks).resolve() == HOOKS.resolve()
