"""The files static hosts need: .nojekyll, CNAME, 404.html, _headers, index.html."""

from __future__ import annotations

from pathlib import Path

import pytest

from acap.cli import report_text
from support.pages import (
    example_data,
    headers_for,
    page_text,
    parse_headers,
    run_build,
    scan,
    write_yaml,
)
from support.publishing import set_overlay

HOSTS = ("example.com", "ask.example.com")


def test_every_host_folder_has_its_hosting_files(example: Path) -> None:
    set_overlay(example, "example.com", False)  # acap's pages are the whole of example.com
    result = run_build(example, write=True)
    assert result.report.ok, report_text(result.report)
    site = example.parent / "site"
    for host in HOSTS:
        assert (site / host / ".nojekyll").read_bytes() == b""
        assert (site / host / "CNAME").read_text() == f"{host}\n"
        for name in ("404.html", "index.html", "_headers"):
            assert (site / host / name).is_file(), (host, name)


def test_no_cname_without_a_custom_domain(tmp_path: Path) -> None:
    data = example_data()
    del data["hosts"]["ask.example.com"]["cname"]
    result = run_build(write_yaml(tmp_path, data))
    assert "ask.example.com/CNAME" not in result.files
    assert "ask.example.com/.nojekyll" in result.files
    assert result.files["example.com/CNAME"] == b"example.com\n"


def test_no_index_html_where_the_operator_has_pages_of_its_own(tmp_path: Path) -> None:
    data = example_data()
    data["hosts"]["example.com"].update(ownPages=True, overlay=False)
    result = run_build(write_yaml(tmp_path, data))
    assert "example.com/index.html" not in result.files
    assert "example.com/404.html" in result.files
    assert "ask.example.com/index.html" in result.files


def test_the_website_host_gets_acaps_files_only(example: Path) -> None:
    """Issue 15: the card host defaults to the operator's own website, where acap adds its
    files and writes no home page, no 404 page and no .nojekyll (a GitHub Pages branch
    gets .nojekyll from acap publish, where the branch's site can do without Jekyll)."""
    result = run_build(example)
    assert result.report.ok, report_text(result.report)
    mine = sorted(rel for rel in result.files if rel.startswith("example.com/"))
    assert mine == ["example.com/.well-known/.htaccess", "example.com/.well-known/agent-card.json",
                    "example.com/.well-known/jwks.json", "example.com/CNAME",
                    "example.com/_headers"]
    assert result.overlay == {"ask.example.com": False, "example.com": True}
    for name in ("index.html", "404.html", ".nojekyll"):  # the whole site's, on acap's host
        assert f"ask.example.com/{name}" in result.files, name


def test_own_pages_on_another_host_means_acap_adds_to_it(tmp_path: Path) -> None:
    data = example_data()
    data["hosts"]["ask.example.com"]["ownPages"] = True
    result = run_build(write_yaml(tmp_path, data))
    assert result.overlay["ask.example.com"] is True
    assert "ask.example.com/talk/index.html" in result.files  # its page, beside the site's
    for name in ("index.html", "404.html", ".nojekyll"):
        assert f"ask.example.com/{name}" not in result.files, name


def test_a_person_entry_at_the_websites_root_is_refused_on_its_line(tmp_path: Path) -> None:
    data = example_data()
    data["skills"][1]["personEntry"] = "https://example.com/"
    cfg = write_yaml(tmp_path, data)
    result = run_build(cfg)
    [err] = result.report.errors
    line = next(i for i, t in enumerate(cfg.read_text().splitlines(), 1)
                if "personEntry: https://example.com/" in t)
    assert (err.rule, err.location.line) == ("SITE-OVERLAY", line)
    assert err.message == ("acap would write index.html on example.com, where your own website "
                           "lives: it would replace your website's home page")
    assert "overlay: false" in (err.hint or "")
    data["hosts"]["example.com"]["overlay"] = False  # acap's pages are all of example.com
    assert run_build(write_yaml(tmp_path, data)).report.ok


def test_root_and_404_pages_point_to_where_to_ask(example: Path) -> None:
    set_overlay(example, "example.com", False)
    result = run_build(example)
    for rel, href in (("ask.example.com/index.html", "/talk"),
                      ("ask.example.com/404.html", "/talk"),
                      ("example.com/index.html", "https://ask.example.com/talk"),
                      ("example.com/404.html", "https://ask.example.com/talk")):
        s = scan(page_text(result, rel))
        assert {"href": href} in s.find("a"), rel
        assert {"class": "phone", "href": "tel:+44-20-7946-0000"} in s.find("a"), rel
        assert "<span>Service costs</span>, <span>Book an arrangement meeting</span>" in \
            page_text(result, rel), rel
    assert "Page not found" in scan(page_text(result, "example.com/404.html")).all_text()


def test_headers_give_card_and_jwks_cors_cache_and_nosniff(example: Path) -> None:
    result = run_build(example)
    rules = parse_headers(page_text(result, "example.com/_headers"))
    for path in ("/.well-known/agent-card.json", "/.well-known/jwks.json"):
        got = headers_for(rules, path)
        assert dict(got) == {"Access-Control-Allow-Origin": "*",
                             "Cache-Control": "public, max-age=600",
                             "X-Content-Type-Options": "nosniff",
                             "Referrer-Policy": "no-referrer"}, path
        assert len(got) == len(dict(got)), f"a header is given twice for {path}"


def test_headers_for_pages_and_no_header_twice(example: Path) -> None:
    result = run_build(example)
    rules = parse_headers(page_text(result, "ask.example.com/_headers"))
    for path in ("/talk", "/talk/", "/talk/index.html", "/", "/index.html"):
        got = headers_for(rules, path)
        assert dict(got)["Cache-Control"] == "public, max-age=600", path
        assert dict(got)["X-Content-Type-Options"] == "nosniff"
        assert len(got) == len(dict(got)), path
    assert "Access-Control-Allow-Origin" not in dict(headers_for(rules, "/talk"))


def test_cache_max_age_is_configurable(tmp_path: Path) -> None:
    data = example_data()
    data["cache"] = {"card": 120, "pages": 0}
    result = run_build(write_yaml(tmp_path, data))
    assert result.report.ok, report_text(result.report)
    card = parse_headers(page_text(result, "example.com/_headers"))
    assert dict(headers_for(card, "/.well-known/agent-card.json"))["Cache-Control"] == \
        "public, max-age=120"
    pages = parse_headers(page_text(result, "ask.example.com/_headers"))
    assert dict(headers_for(pages, "/talk"))["Cache-Control"] == "no-cache"


def test_a_negative_max_age_is_a_schema_error_on_its_line(tmp_path: Path) -> None:
    data = example_data()
    data["cache"] = {"card": -1}
    cfg = write_yaml(tmp_path, data)
    result = run_build(cfg)
    [f] = result.report.errors
    line = next(i for i, t in enumerate(cfg.read_text().splitlines(), 1) if "card: -1" in t)
    assert f.location.line == line


def test_language_pages_get_headers_too(tmp_path: Path) -> None:
    data = example_data()
    data["page"] = {"languages": ["en", "fr"], "translations": {"fr": {}}}
    result = run_build(write_yaml(tmp_path, data))
    rules = parse_headers(page_text(result, "ask.example.com/_headers"))
    for path in ("/talk/fr", "/talk/fr/", "/talk/fr/index.html"):
        got = headers_for(rules, path)
        assert dict(got)["Cache-Control"] == "public, max-age=600", path
        assert len(got) == len(dict(got)), path


def test_hosts_built_by_other_steps_get_nojekyll_and_headers_only(example: Path) -> None:
    from acap.builder import BuildOptions, build

    result = build(BuildOptions(config=example, spec_site=True, write=False))
    assert result.report.ok, report_text(result.report)
    host = "agent-capability.org"
    assert result.files[f"{host}/.nojekyll"] == b""
    for name in ("index.html", "404.html", "CNAME"):
        assert f"{host}/{name}" not in result.files, name
    rules = parse_headers(page_text(result, f"{host}/_headers"))
    schema = "/ext/on-request/v1/operator.schema.json"
    assert f"{host}{schema}" in result.files
    assert dict(headers_for(rules, schema))["Access-Control-Allow-Origin"] == "*"


# -- /talk answers 200 on GitHub Pages: the page is also written at talk.html --------------

def test_html_twin_of_a_person_entry() -> None:
    from acap.builder.pages._pages import html_twin

    assert html_twin("https://ask.example.com/talk") == "ask.example.com/talk.html"
    assert html_twin("https://Ask.Example.com/a/b") == "ask.example.com/a/b.html"
    assert html_twin("https://ask.example.com/caf%C3%A9") == "ask.example.com/café.html"
    for url in ("https://ask.example.com/talk/", "https://ask.example.com/",
                "https://ask.example.com", "https://ask.example.com/talk.html",
                "https://ask.example.com/talk/fr/"):
        assert html_twin(url) is None, url


def test_the_page_is_written_at_talk_html_and_talk_index_html(tmp_path: Path) -> None:
    data = example_data()
    data["page"] = {"languages": ["en", "fr"], "translations": {"fr": {}}}
    result = run_build(write_yaml(tmp_path, data))
    assert result.report.ok, report_text(result.report)
    pages = sorted(p for p in result.files if p.startswith("ask.example.com/talk"))
    assert pages == ["ask.example.com/talk.html", "ask.example.com/talk/fr/index.html",
                     "ask.example.com/talk/index.html"]
    assert result.files["ask.example.com/talk.html"] == \
        result.files["ask.example.com/talk/index.html"]
    # one canonical address for both files; every link is an absolute path, so it
    # works from /talk, /talk/ and /talk.html alike
    for rel in ("ask.example.com/talk.html", "ask.example.com/talk/fr/index.html"):
        s = scan(page_text(result, rel))
        hrefs = [a["href"] for a in s.find("a")] + [a["href"] for a in s.find("link")]
        assert all(h.startswith(("/", "https://", "tel:", "mailto:")) for h in hrefs), hrefs
    s = scan(page_text(result, "ask.example.com/talk.html"))
    assert s.find("link", rel="canonical") == [{"rel": "canonical",
                                                "href": "https://ask.example.com/talk"}]
    assert s.find("a", hreflang="fr")[0]["href"] == "/talk/fr/"
    fr = scan(page_text(result, "ask.example.com/talk/fr/index.html"))
    assert fr.find("a", hreflang="en")[0]["href"] == "/talk"


def test_a_person_entry_with_a_slash_or_a_file_name_is_written_once(tmp_path: Path) -> None:
    for entry, rel in (("https://ask.example.com/talk/", "ask.example.com/talk/index.html"),
                       ("https://ask.example.com/talk.html", "ask.example.com/talk.html")):
        data = example_data()
        for s in data["skills"]:
            if s.get("kind") == "on-request":
                s["personEntry"] = entry
        result = run_build(write_yaml(tmp_path, data))
        assert result.report.ok, report_text(result.report)
        assert [p for p in result.files if p.startswith("ask.example.com/talk")] == [rel]
        canonical = scan(page_text(result, rel)).find("link", rel="canonical")[0]["href"]
        assert canonical == entry


def test_talk_and_talk_html_as_two_person_entries_are_one_page(tmp_path: Path) -> None:
    data = example_data()
    data["skills"][2]["personEntry"] = "https://ask.example.com/talk.html"
    result = run_build(write_yaml(tmp_path, data))
    assert result.report.ok, report_text(result.report)
    html = page_text(result, "ask.example.com/talk.html")
    assert html.encode() == result.files["ask.example.com/talk/index.html"]
    text = scan(html).all_text()
    assert "Service costs" in text and "Book an arrangement meeting" in text


def test_headers_cover_talk_html_and_give_talk_once(example: Path) -> None:
    result = run_build(example)
    text = page_text(result, "ask.example.com/_headers")
    rules = parse_headers(text)
    assert [r for r, _ in rules].count("/talk") == 1
    for path in ("/talk", "/talk.html", "/talk/", "/talk/index.html"):
        got = headers_for(rules, path)
        assert dict(got)["Cache-Control"] == "public, max-age=600", path
        assert len(got) == len(dict(got)), path


# -- the operator's own home page does not link to itself ----------------------------------

def _website_links(html: str) -> list[dict[str, str]]:
    return [a for a in scan(html).find("a")
            if a.get("href", "").lower().startswith("https://example.com")]


@pytest.mark.parametrize("website", ["https://example.com", "https://example.com/",
                                     "https://Example.com/index.html"])
def test_the_home_page_acap_writes_does_not_link_the_website_to_itself(
        tmp_path: Path, website: str) -> None:
    data = example_data()
    data["operator"]["website"] = website
    data["hosts"]["example.com"]["overlay"] = False
    result = run_build(write_yaml(tmp_path, data))
    assert result.report.ok, report_text(result.report)
    home = page_text(result, "example.com/index.html")
    assert _website_links(home) == []
    assert "<footer>\n<p>Example Memorial Chapel</p>" in home
    [ld] = scan(page_text(result, "ask.example.com/talk/index.html")).jsonld()
    assert ld["url"] == website  # the page's data still names the website
    # every other page still links to it
    for rel in ("example.com/404.html", "ask.example.com/index.html",
                "ask.example.com/talk/index.html"):
        assert _website_links(page_text(result, rel)) == [{"href": website}], rel


# -- settings for a web server of one's own (served for real in test_web_servers.py) --------------

def test_server_settings_follow_the_cards_cache_time(tmp_path: Path) -> None:
    data = example_data()
    data["cache"] = {"card": 0}
    result = run_build(write_yaml(tmp_path, data))
    assert result.report.ok, report_text(result.report)
    assert result.servers == [".servers/example.com"]  # the card's host only
    for rel in ("example.com/.well-known/.htaccess", ".servers/example.com/apache.conf",
                ".servers/example.com/nginx.conf", ".servers/example.com/Caddyfile"):
        text = page_text(result, rel)
        assert "no-cache" in text and "max-age" not in text, rel
        assert "application/json" in text and "Access-Control-Allow-Origin" in text, rel
    assert "ask.example.com/.well-known/.htaccess" not in result.files  # no card there
    assert not any(rel.startswith(".servers/ask.example.com") for rel in result.files)


# -- re-trial LOW 2: no path or host adds a line to a server's settings -------------------

@pytest.mark.parametrize("odd", ["\u2028", "\n", "\u0085", "\u00a0"])
def test_headers_refuse_a_path_with_a_line_break_as_a_second_defence(odd: str) -> None:
    from acap.builder.pages._hosting import CachePolicy, headers_file
    from acap.errors import SitePathError
    from acap.site import SiteFiles

    files = SiteFiles()
    files.add_path(f"op0.example/ask{odd}x/index.html", b"<p>x</p>")  # past path_fault
    with pytest.raises(SitePathError, match=f"U\\+{ord(odd):04X}"):
        headers_file(files, "op0.example", CachePolicy())


@pytest.mark.parametrize("odd", ["\u2028", "\n"])
def test_server_settings_refuse_a_host_with_a_line_break(odd: str) -> None:
    from acap.builder.pages import server_files
    from acap.errors import SitePathError

    assert len(server_files("op0.example", 60)) == 3  # a plain host: every file
    with pytest.raises(SitePathError, match="was not written"):
        server_files(f"op0.example{odd}x", 60)
