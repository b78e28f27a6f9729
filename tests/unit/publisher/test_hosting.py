"""Only the files a target's hosting reads go there (issue 20, item 3).

The trial's case: ``_headers`` (read only by Netlify and Cloudflare Pages) and ``.nojekyll``
(GitHub Pages') were uploaded into an Apache web root, which served them. The kind is
declared (``hosts.<host>.hosting``, ``--hosting``) or detected from the target; a folder
whose web server acap cannot tell gets none, and a warning that says how to declare it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from acap.cli import report_text
from acap.publisher import publish
from support.publishing import bare_repo, change, do_build, project, snapshot, tree_files, trial

HOSTING_FILES = {".nojekyll", "CNAME", "_headers", ".well-known/.htaccess"}


def _declare(config: Path, kind: str) -> None:
    change(config, lambda d: d["hosts"]["example.com"].__setitem__("hosting", kind))


@pytest.mark.parametrize(("kind", "written"), [
    (None, {"CNAME", "_headers", ".well-known/.htaccess"}),  # not .nojekyll: a website's host
    ("apache", {".well-known/.htaccess"}),
    ("github-pages", {"CNAME"}),
    ("netlify", {"_headers"}),
    ("cloudflare-pages", {"_headers"}),
    ("nginx", set()), ("caddy", set()), ("plain", set())])
def test_the_build_writes_the_files_the_declared_hosting_reads(tmp_path: Path, kind: str | None,
                                                              written: set[str]) -> None:
    config = project(tmp_path)
    if kind is not None:
        _declare(config, kind)
    do_build(config)
    built = snapshot(config.parent / "site/example.com")
    assert set(built) & HOSTING_FILES == written
    # the settings for a server of one's own are written beside the site whatever it is
    assert (config.parent / "site/.servers/example.com/nginx.conf").is_file()


def _website(www: Path, *names: str) -> None:
    www.mkdir(parents=True)
    (www / "index.html").write_bytes(b"<p>Praxis</p>\n")
    for name in names:
        (www / name).write_bytes(b"# the website's own\n")


@pytest.mark.parametrize(("marker", "sent"), [
    (".htaccess", {".well-known/.htaccess"}),
    ("netlify.toml", {"_headers"}),
    ("wrangler.toml", {"_headers"}),
    ("_config.yml", {"CNAME"})])  # a Jekyll site keeps Jekyll: no .nojekyll
def test_publish_sends_a_folder_the_files_of_the_hosting_it_detects(
        tmp_path: Path, marker: str, sent: set[str]) -> None:
    config = project(tmp_path)
    do_build(config)
    www = tmp_path / "www"
    _website(www, marker)
    if marker == "_config.yml":  # a Jekyll site on a folder: it must serve .well-known
        (www / marker).write_bytes(b"include: [.well-known]\n")
    res = publish(trial(config=config, dir=www))
    assert res.ok, report_text(res.report)
    assert set(snapshot(www)) & HOSTING_FILES == sent
    assert not [f for f in res.report.warnings if f.rule == "PUBLISH-HOSTING"]


def test_a_folder_whose_server_acap_cannot_tell_gets_none_and_a_warning(tmp_path: Path) -> None:
    config = project(tmp_path)
    do_build(config)
    www = tmp_path / "www"
    _website(www)
    res = publish(trial(config=config, dir=www))
    assert res.ok, report_text(res.report)
    assert set(snapshot(www)) & HOSTING_FILES == set()
    [warn] = [f for f in res.report.warnings if f.rule == "PUBLISH-HOSTING"]
    assert warn.message == (
        f"example.com: acap cannot tell which web server serves directory {www}, so it "
        "published none of its server settings there (.well-known/.htaccess is read by Apache "
        "only): the card may go out without the headers clients need (CORS, cache time)")
    assert warn.hint == ("say which it is: hosts: example.com: hosting: apache (or nginx, "
                         "caddy, plain) in operator.yaml; for nginx and Caddy, use the "
                         "settings in site/.servers/example.com/")
    declared = publish(trial(config=config, dir=www, hosting="apache"))
    assert declared.ok and not [f for f in declared.report.warnings
                                if f.rule == "PUBLISH-HOSTING"]
    assert set(snapshot(www)) & HOSTING_FILES == {".well-known/.htaccess"}


def test_a_branch_is_github_pages_whatever_apache_file_its_website_holds(tmp_path: Path) -> None:
    config = project(tmp_path, overlay=False)
    do_build(config)
    remote = bare_repo(tmp_path / "pages.git")
    res = publish(trial(config=config, remote=str(remote)))
    assert res.ok, report_text(res.report)
    assert set(tree_files(remote, "gh-pages")) & HOSTING_FILES == {".nojekyll", "CNAME"}


def test_an_overlay_folder_that_holds_no_website_is_a_warning(tmp_path: Path) -> None:
    """The trial's case: a typo in the folder, or the wrong folder: acap adds its files
    beside the website, so a folder with nothing else in it is likely not the website's."""
    config = project(tmp_path)
    do_build(config)
    empty = tmp_path / "www"
    empty.mkdir()
    res = publish(trial(config=config, dir=empty, hosting="apache"))
    assert res.ok, report_text(res.report)
    [warn] = [f for f in res.report.warnings if f.rule == "PUBLISH-TARGET"
              and "holds no website" in f.message]
    assert warn.message == (f"example.com: directory {empty} holds no website, only acap's "
                            "files: acap adds its files beside your website, so this is likely "
                            "not the folder that serves https://example.com/")
    site = tmp_path / "site-www"
    _website(site)
    again = publish(trial(config=config, dir=site, hosting="apache"))
    assert not [f for f in again.report.warnings if "holds no website" in f.message]


def test_a_dry_run_needs_no_key(tmp_path: Path) -> None:
    """Only a publish that writes signs acap's record: a dry run plans without the key."""
    config = project(tmp_path)
    do_build(config)
    (config.parent / ".acap/signing-key.pem").unlink()
    www = tmp_path / "www"
    _website(www)
    dry = publish(trial(config=config, dir=www, dry_run=True, hosting="apache"))
    assert dry.ok, report_text(dry.report)
    assert dry.hosts[0].plan is not None and CARD_FILE in dry.hosts[0].plan.added
    real = publish(trial(config=config, dir=www, hosting="apache"))
    [err] = real.report.errors
    assert err.rule == "PUBLISH-KEY" and "this computer does not have it" in err.message
    assert set(snapshot(www)) == {"index.html"}


CARD_FILE = ".well-known/agent-card.json"
