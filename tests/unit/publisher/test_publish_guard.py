"""acap publish never deletes what it did not publish, and never publishes one host over another.

Fresh-user trial items 1, 2 and 12: `acap publish --dir` into a folder acap did not publish
(a hand-made site, a copy of an acap project with its private key) deleted everything in it;
`acap publish --host ask.example.com --remote` onto a branch acap had made for example.com
replaced that site; `acap publish --remote` published only the card's host and said nothing
about the personEntry host left behind.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path

from click.testing import CliRunner

from acap.cli import cli, report_text
from acap.findings import Finding
from acap.publisher import PublishResult, publish
from support.publishing import (
    add_to_site,
    bare_repo,
    branch_tip,
    do_build,
    git,
    project,
    publish_to,
    record_files,
    record_path,
    served,
    set_version,
    snapshot,
    tree_files,
    trial,
)


def _errors(result: PublishResult, rule: str) -> list[Finding]:
    return [f for f in result.report.errors if f.rule == rule]


def _hand_made_site(folder: Path) -> dict[str, bytes]:
    folder.mkdir(parents=True)
    (folder / "index.html").write_text("<h1>my own site</h1>\n", encoding="utf-8")
    (folder / "about.html").write_text("<p>about</p>\n", encoding="utf-8")
    return snapshot(folder)


# -- item 1: directories -------------------------------------------------------------------------

def test_a_folder_acap_did_not_publish_is_refused_naming_the_files(tmp_path: Path) -> None:
    config = project(tmp_path, overlay=False)
    do_build(config)
    www = tmp_path / "www"
    before = _hand_made_site(www)
    res = publish(trial(config=config, dir=www))
    found = _errors(res, "PUBLISH-FOREIGN")
    assert [f.rule for f in res.report.errors] == ["PUBLISH-FOREIGN"]
    assert found[0].message == (
        f"directory {www} holds 2 files that acap did not publish there, and publishing "
        "example.com would delete or replace them: about.html, index.html")
    assert "--force" in (found[0].hint or "")
    assert res.hosts[0].outcome == "failed"
    assert snapshot(www) == before
    assert not record_path(www).exists()
    assert sorted(p.name for p in tmp_path.iterdir() if ".acap-" in p.name) == []


def test_force_replaces_a_foreign_folder_and_records_the_publish(tmp_path: Path) -> None:
    config = project(tmp_path, overlay=False)
    do_build(config)
    www = tmp_path / "www"
    _hand_made_site(www)
    res = publish(trial(config=config, dir=www, force=True, hosting="apache"))
    assert res.ok, report_text(res.report)
    assert snapshot(www) == served(config, "example.com", "apache")
    # The record lies beside the folder, not in it: a web server serving www/ never serves it.
    record = record_path(www)
    assert record.parent == www.parent and record.name == ".www.acap-published.json"
    data = json.loads(record.read_text("utf-8"))
    assert data["publishedBy"] == "acap" and data["host"] == "example.com"
    assert set(data) == {"publishedBy", "acap", "host", "files", "staging", "signature"}
    assert re.fullmatch(r"[0-9a-f]{16}", data["staging"])  # the publish's staging token
    assert data["files"] == {rel: [hashlib.sha256(b).hexdigest()]  # what acap put there
                             for rel, b in snapshot(www).items()}
    # From now on acap deletes what it published there, and only that: a page it published
    # earlier goes without --force; a file someone added is refused by name.
    add_to_site(config.parent / "site", "example.com/old-page.html", b"<p>old</p>\n")
    assert publish(trial(config=config, dir=www)).ok
    assert "old-page.html" in record_files(www)
    set_version(config, "2.0.0")
    do_build(config)  # old-page.html is no longer built
    (www / "mine.html").write_text("<p>mine</p>\n", encoding="utf-8")
    res = publish(trial(config=config, dir=www))
    assert [f.message for f in _errors(res, "PUBLISH-FOREIGN")] == [
        f"directory {www} holds 1 file that acap did not publish there, and publishing "
        "example.com would delete or replace it: mine.html"]
    (www / "mine.html").unlink()
    res = publish(trial(config=config, dir=www))
    assert res.ok, report_text(res.report)
    assert res.hosts[0].plan is not None and res.hosts[0].plan.removed == ["old-page.html"]
    assert "old-page.html" not in record_files(www)


def test_an_empty_folder_needs_no_force(tmp_path: Path) -> None:
    config = project(tmp_path, overlay=False)
    do_build(config)
    www = tmp_path / "www"
    www.mkdir()
    res = publish(trial(config=config, dir=www))
    assert res.ok, report_text(res.report)
    assert json.loads(record_path(www).read_text("utf-8"))["host"] == "example.com"


def test_a_folder_acap_published_for_another_host_is_refused(tmp_path: Path) -> None:
    config = project(tmp_path, overlay=False)
    do_build(config)
    www = tmp_path / "www"
    assert publish(trial(config=config, hosts=("ask.example.com",), dir=www)).ok
    before = snapshot(www)
    res = publish(trial(config=config, dir=www))
    found = _errors(res, "PUBLISH-FOREIGN")
    assert len(found) == 1
    assert found[0].message.startswith(
        f"directory {www} was published by acap for ask.example.com, not example.com: "
        "publishing would delete or replace its ")
    assert "talk/index.html" in found[0].message
    assert snapshot(www) == before


def test_a_copy_of_an_acap_project_is_refused_even_with_force(tmp_path: Path) -> None:
    """The trial's case: the copy's private key would have been deleted."""
    config = project(tmp_path, overlay=False)
    do_build(config)
    other = project(tmp_path / "elsewhere")
    do_build(other)  # makes other/.acap/signing-key.pem
    copy = tmp_path / "newproj_copy"
    shutil.copytree(other.parent, copy)
    before = snapshot(copy)
    assert ".acap/signing-key.pem" in before
    res = CliRunner().invoke(cli, ["publish", "--create", "--allow-example-hosts",
                                   "-c", str(config), "--dir", str(copy), "--force"])
    assert res.exit_code == 1
    assert (f"error: cannot publish example.com into {copy}: it is an acap project "
            f"(it holds operator.yaml): mirroring would delete it [PUBLISH-TARGET]") in res.stderr
    assert snapshot(copy) == before


def test_a_folder_holding_an_acap_project_or_a_key_is_refused_even_with_force(
        tmp_path: Path) -> None:
    config = project(tmp_path, overlay=False)
    do_build(config)
    www = tmp_path / "www"
    (www / "deep/proj/.acap").mkdir(parents=True)
    res = publish(trial(config=config, dir=www, force=True))
    assert [f.message for f in _errors(res, "PUBLISH-TARGET")] == [
        f"cannot publish example.com into {www}: it holds an acap project's .acap folder "
        "(deep/proj/.acap): mirroring would delete it"]
    keys = tmp_path / "keys"
    keys.mkdir()
    shutil.copyfile(config.parent / ".acap/signing-key.pem", keys / "backup.txt")
    res = publish(trial(config=config, dir=keys, force=True))
    assert [f.message for f in _errors(res, "PUBLISH-TARGET")] == [
        f"cannot publish example.com into {keys}: it holds a private key (backup.txt): "
        "mirroring would delete it"]
    assert (keys / "backup.txt").is_file() and (www / "deep/proj/.acap").is_dir()


def test_a_folder_inside_an_acap_projects_own_parts_is_refused(tmp_path: Path) -> None:
    config = project(tmp_path, overlay=False)
    do_build(config)
    other = project(tmp_path / "elsewhere")
    (other.parent / "templates").mkdir()
    for inside in (other.parent / "templates" / "www", other.parent / ".acap" / "www"):
        res = publish(trial(config=config, dir=inside, force=True))
        part = inside.parent.name
        assert [f.message for f in _errors(res, "PUBLISH-TARGET")] == [
            f"cannot publish example.com into {inside}: it is inside {part}/ of the acap "
            f"project {other.parent}"], part
        assert not inside.exists()
    # A folder of its own inside a project is fine: the GitHub workflow publishes into _site.
    res = publish(trial(config=config, dir=config.parent / "_site"))
    assert res.ok, report_text(res.report)


# -- item 2: branches ----------------------------------------------------------------------------

def test_a_branch_acap_made_for_another_host_is_refused(tmp_path: Path) -> None:
    config = project(tmp_path, overlay=False)
    do_build(config)
    pages = bare_repo(tmp_path / "pages.git")
    assert publish(trial(config=config, remote=str(pages))).ok
    tip = branch_tip(pages)
    assert tip is not None
    message = git("log", "-1", "--format=%B", tip, cwd=pages)
    assert "\nPublished-by: acap\nPublished-host: example.com\nPublished-record: " in message
    copy = tmp_path / "pages2.git"
    shutil.copytree(pages, copy)
    res = publish(trial(config=config, hosts=("ask.example.com",), remote=str(copy)))
    found = _errors(res, "PUBLISH-FOREIGN")
    assert len(found) == 1
    assert found[0].message.startswith(
        f"branch gh-pages of {copy} was published by acap for example.com, not "
        "ask.example.com: publishing would delete or replace its ")
    assert ".well-known/agent-card.json" in found[0].message
    assert found[0].hint == ("one target serves one host: publish ask.example.com to a target "
                             "of its own; acap publish --force replaces example.com's site")
    assert branch_tip(copy) == tip
    res = publish(trial(config=config, hosts=("ask.example.com",), remote=str(copy),
                                 force=True))
    assert res.ok, report_text(res.report)
    assert tree_files(copy, "gh-pages")["CNAME"] == b"ask.example.com\n"


def test_a_commit_that_only_says_it_is_acaps_is_not_trusted(tmp_path: Path) -> None:
    """Anyone who may push can write ``Published-by: acap`` in a message (an acap before
    signed records did): without acap's signed record, its files are someone's."""
    config = project(tmp_path, overlay=False)
    do_build(config)
    pages = bare_repo(tmp_path / "pages.git")
    work = tmp_path / "old"
    git("init", "-q", "-b", "gh-pages", str(work))
    (work / "CNAME").write_text("example.com\n", encoding="utf-8")
    (work / "index.html").write_text("<p>someone's</p>\n", encoding="utf-8")
    git("add", "-A", cwd=work)
    git("commit", "-q", "-m", "Publish example.com\n\nBuilt and checked by acap 0.0.9.\n\n"
        "Published-by: acap\nPublished-host: example.com", cwd=work)
    git("push", "-q", str(pages), "gh-pages", cwd=work)
    tip = branch_tip(pages)
    res = publish(trial(config=config, remote=str(pages)))
    assert [f.message for f in _errors(res, "PUBLISH-FOREIGN")] == [
        f"branch gh-pages of {pages} holds 1 file that acap did not publish there, and "
        "publishing example.com would delete or replace it: index.html"]
    assert branch_tip(pages) == tip


# -- item 12: hosts left behind ------------------------------------------------------------------

def test_remote_or_dir_on_the_command_line_warns_about_the_hosts_it_leaves_out(
        tmp_path: Path) -> None:
    config = project(tmp_path, overlay=False)
    do_build(config)
    pages = bare_repo(tmp_path / "pages.git")
    publish_to(config, "agent-capability.org", remote="../spec.git")
    do_build(config)
    for target in (["--remote", str(pages)], ["--dir", str(tmp_path / "www")]):
        res = CliRunner().invoke(cli, ["publish", "--create", "--allow-example-hosts",
                                       "-c", str(config), *target])
        assert res.exit_code == 0, res.output
        assert (f"warning: site/ask.example.com/ is not published: {target[0]} publishes only "
                "the card's host example.com, and the card's personEntry "
                "https://ask.example.com/talk is on ask.example.com [PUBLISH-TARGET]"
                ) in res.stderr
        assert (f"hint: publish it to a target of its own: acap publish --host ask.example.com "
                f"{target[0]} <{'git URL' if target[0] == '--remote' else 'folder'}>") \
            in res.stderr
        # A host with a target in operator.yaml: the hint is plain acap publish --host.
        assert ("warning: site/agent-capability.org/ is not published: "
                f"{target[0]} publishes only the card's host example.com [PUBLISH-TARGET]"
                ) in res.stderr
        assert "hint: acap publish --host agent-capability.org publishes it to its target " \
            "in operator.yaml" in res.stderr
