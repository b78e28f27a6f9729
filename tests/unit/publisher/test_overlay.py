"""acap beside an existing website (issue 15, "Overlay"), and publish targets that are not
what they seem (issue 12, item 6: a .git folder, a FIFO, a link to /dev/zero).

The practice's case: its web server serves a folder (or a GitHub Pages branch) holding its
website; acap adds the card, the JWKS and its pages there, and every other file is byte for
byte the same after a publish, after a republish, and after a skill is removed (its page
goes, nothing else).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from acap.cli import cli, report_text
from acap.publisher import PublishResult, _local, publish
from support.publishing import (
    bare_repo,
    branch_record,
    branch_tip,
    change,
    do_build,
    git,
    project,
    record_files,
    record_path,
    served,
    set_cname,
    snapshot,
    tree_files,
    trial,
)

WEBSITE = {
    "index.html": b"<!doctype html><title>Zahnarztpraxis</title><p>Willkommen</p>\n",
    "impressum.html": b"<!doctype html><title>Impressum</title>\n",
    "css/site.css": b"body { font-family: serif }\n",
    "css/img/logo.svg": b"<svg xmlns='http://www.w3.org/2000/svg'/>\n",
    ".htaccess": b"RewriteEngine On\n",
    ".well-known/security.txt": b"Contact: mailto:praxis@example.com\n",
}


def _practice(tmp_path: Path) -> Path:
    """The bundled example with its two pages on the website's own host (example.com/talk
    and example.com/book), where the practice's website lives."""
    config = project(tmp_path)

    def pages_on_the_website(d: dict[str, object]) -> None:
        skills = d["skills"]
        assert isinstance(skills, list)
        entries = {"service-pricing": "https://example.com/talk",
                   "arrangement-booking": "https://example.com/book"}
        for s in skills:
            if s["id"] in entries:
                s["personEntry"] = entries[s["id"]]
    change(config, pages_on_the_website)
    return config


def _remove_skill(config: Path, skill: str) -> None:
    change(config, lambda d: d.__setitem__("skills", [s for s in d["skills"]
                                                      if s["id"] != skill]))


def _website(folder: Path) -> dict[str, bytes]:
    for rel, data in WEBSITE.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_bytes(data)
    return snapshot(folder)


def _built(config: Path, host: str = "example.com", hosting: str = "apache"
           ) -> dict[str, bytes]:
    """What acap publishes of ``host`` where ``hosting`` serves it (the website's own
    ``.htaccess`` says Apache)."""
    return served(config, host, hosting)


def _stats(folder: Path) -> dict[str, tuple[int, int]]:
    return {p.relative_to(folder).as_posix(): (p.stat().st_ino, p.stat().st_mtime_ns)
            for p in folder.rglob("*") if p.is_file()}


def _errors(res: PublishResult, rule: str) -> list[str]:
    return [f.message for f in res.report.errors if f.rule == rule]


# -- a folder holding the website ----------------------------------------------------------------

def test_overlay_into_the_folder_the_web_server_serves(tmp_path: Path) -> None:
    config = _practice(tmp_path)
    do_build(config)
    built = _built(config)
    assert {"talk/index.html", "book/index.html", ".well-known/agent-card.json",
            ".well-known/jwks.json"} <= set(built)
    assert "index.html" not in built and "404.html" not in built
    www = tmp_path / "srv/www/praxis"
    website = _website(www)

    res = CliRunner().invoke(cli, ["publish", "--create", "--allow-example-hosts",
                                   "-c", str(config), "--dir", str(www)])
    assert res.exit_code == 0, res.output
    assert f"example.com: published (directory {www})" in res.stdout
    assert snapshot(www) == {**website, **built}  # the website's files, each as it was
    assert sorted(record_files(www)) == sorted(built)  # acap's files only: never the website's

    # Republished unchanged: nothing is written, not even a file's time.
    before = _stats(www)
    again = publish(trial(config=config, dir=www))
    assert again.ok and again.hosts[0].outcome == "up to date"
    assert _stats(www) == before

    # A skill removed: its page goes, and nothing else.
    _remove_skill(config, "arrangement-booking")
    do_build(config)
    res2 = publish(trial(config=config, dir=www))
    assert res2.ok, report_text(res2.report)
    plan = res2.hosts[0].plan
    assert plan is not None
    assert plan.removed == sorted(set(built) - set(_built(config)))
    assert "book/index.html" in plan.removed
    assert set(plan.changed) <= set(built)
    assert snapshot(www) == {**website, **_built(config)}
    assert not (www / "book").exists()  # the folder acap's page left empty
    assert sorted(record_files(www)) == sorted(_built(config))


def test_a_file_of_the_website_at_one_of_acaps_paths_is_replaced_only_with_force(
        tmp_path: Path) -> None:
    config = _practice(tmp_path)
    do_build(config)
    www = tmp_path / "www"
    _website(www)
    (www / ".well-known/.htaccess").write_bytes(b"Header set X-Frame-Options DENY\n")  # theirs
    website = snapshot(www)
    res = publish(trial(config=config, dir=www))
    assert _errors(res, "PUBLISH-FOREIGN") == [
        f"directory {www} holds 1 file that acap did not publish there, and publishing "
        "example.com would delete or replace it: .well-known/.htaccess"]
    assert res.report.errors[0].hint == ("these files are not acap's: rename or move them, or "
                                         "acap publish --force replaces them with acap's (copy "
                                         "them first)")
    assert snapshot(www) == website and not record_path(www).exists()
    forced = publish(trial(config=config, dir=www, force=True))
    assert forced.ok, report_text(forced.report)
    assert (www / ".well-known/.htaccess").read_bytes() == \
        _built(config)[".well-known/.htaccess"]
    assert ".well-known/.htaccess" in record_files(www)


def test_a_file_the_website_already_had_stays_the_websites(tmp_path: Path) -> None:
    """The same CNAME was there before acap: acap leaves it alone, and never removes it."""
    config = _practice(tmp_path)
    do_build(config)
    www = tmp_path / "www"
    _website(www)
    (www / "CNAME").write_bytes(b"example.com\n")
    assert publish(trial(config=config, dir=www, hosting="github-pages")).ok
    assert "CNAME" not in record_files(www)
    set_cname(config, "example.com", None)
    do_build(config)
    res = publish(trial(config=config, dir=www, hosting="github-pages"))
    assert res.ok and res.hosts[0].plan is not None and res.hosts[0].plan.removed == []
    assert (www / "CNAME").read_bytes() == b"example.com\n"


def test_an_overlay_cut_in_the_middle_leaves_every_file_as_it_was(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = _practice(tmp_path)
    do_build(config)
    www = tmp_path / "www"
    _website(www)
    assert publish(trial(config=config, dir=www)).ok
    before = snapshot(www)
    change(config, lambda d: d["operator"].__setitem__("name", "Zahnarztpraxis Beispiel"))
    do_build(config)
    renamed: list[str] = []
    failed: list[str] = []
    for method in ("place", "swap"):  # a new file put in place, and one replaced
        real = getattr(_local.LocalFs, method)

        def flaky(fs: _local.LocalFs, tmp: str, dest: str, *more: Any,
                  real: Any = real) -> None:
            if len(renamed) == 2 and not failed:
                failed.append(dest)
                raise OSError(5, "Input/output error", dest)
            real(fs, tmp, dest, *more)
            if not failed:
                renamed.append(dest)

        monkeypatch.setattr(_local.LocalFs, method, flaky)
    res = publish(trial(config=config, dir=www))
    assert len(renamed) == 2  # two files were in place when it failed
    assert [f.rule for f in res.report.errors] == ["PUBLISH-FAILED"]
    assert snapshot(www) == before  # put back, and no temporary file left
    monkeypatch.undo()
    assert publish(trial(config=config, dir=www)).ok
    assert snapshot(www) == {**WEBSITE, **_built(config)}


def _unreplaceable(path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[[], None]:
    """Make ``path`` a file that cannot be replaced, even by root: immutable
    (``chattr +i``) where the file system allows it, else a rename into its place
    refused as the kernel refuses it (EPERM). Returns how to undo it."""
    if subprocess.run(["chattr", "+i", str(path)], capture_output=True,
                      check=False).returncode == 0:
        return lambda: subprocess.run(["chattr", "-i", str(path)], check=True)
    real = _local.LocalFs.swap

    def refuse(fs: _local.LocalFs, tmp: str, dest: str, same: Any) -> None:
        if dest == str(path):
            raise PermissionError(1, "Operation not permitted", dest)
        real(fs, tmp, dest, same)

    monkeypatch.setattr(_local.LocalFs, "swap", refuse)
    return monkeypatch.undo


def test_a_failed_overlay_leaves_the_record_as_it_was_so_a_hand_edit_is_still_asked_about(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A fresh user's trial: a failed publish said "it is as it was" but left a record
    without digests, and the next publish replaced a hand-edited file without asking."""
    config = _practice(tmp_path)
    do_build(config)
    www = tmp_path / "www"
    _website(www)
    assert publish(trial(config=config, dir=www)).ok
    record = record_path(www).read_bytes()
    change(config, lambda d: d["agent"].__setitem__("version", "2.0.0"))
    do_build(config)
    undo = _unreplaceable(www / ".well-known/agent-card.json", monkeypatch)
    try:
        res = publish(trial(config=config, dir=www))
    finally:
        undo()
    [msg] = _errors(res, "PUBLISH-FAILED")
    assert "failed; it is as it was" in msg and "Operation not permitted" in msg
    assert record_path(www).read_bytes() == record  # the record too, byte for byte
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".www")) == [
        ".www.acap-published.json"]  # and no copy of it left
    (www / ".well-known/.htaccess").write_bytes(b"# the agency's own rules\n")
    res = publish(trial(config=config, dir=www))
    [found] = [f for f in res.report.errors if f.rule == "PUBLISH-FOREIGN"]
    assert found.message == (
        f"1 file acap published in directory {www} has changed since acap published it (by "
        "hand or by another tool), and publishing example.com would replace it: "
        ".well-known/.htaccess")
    assert found.hint is not None and found.hint.startswith("to keep a change, make it where "
                                                            "acap builds the file")
    assert "acap publish --force replaces the changed file" in found.hint
    assert (www / ".well-known/.htaccess").read_bytes() == b"# the agency's own rules\n"


def test_a_symbolic_link_on_acaps_way_is_never_written_through(tmp_path: Path) -> None:
    config = _practice(tmp_path)
    do_build(config)
    www = tmp_path / "www"
    _website(www)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (www / "talk").symlink_to(elsewhere)
    res = publish(trial(config=config, dir=www))
    assert _errors(res, "PUBLISH-TARGET") == [
        f"example.com: {www}/talk is a symbolic link: acap reads, replaces and deletes only "
        "regular files and folders, and never writes through a link"]
    assert list(elsewhere.iterdir()) == [] and not (www / ".well-known/agent-card.json").exists()


# -- FIFOs and links to /dev/zero in a target: a finding, never a hang (issue 12) ----------------

def _publish_cli(config: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """acap publish as its own process, with a deadline: a hang is a failure, not a stall."""
    return subprocess.run([sys.executable, "-m", "acap", "publish", "--allow-example-hosts",
                           "-c", str(config), *args],
                          capture_output=True, text=True, timeout=120, check=False)


@pytest.mark.parametrize("overlay", [True, False])
@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_a_fifo_or_a_link_to_dev_zero_in_the_target_is_a_finding(
        tmp_path: Path, kind: str, overlay: bool) -> None:
    config = project(tmp_path, overlay=overlay)
    do_build(config)
    www = tmp_path / "www"
    (www / ".well-known").mkdir(parents=True)
    bad = www / ".well-known/agent-card.json"
    if kind == "fifo":
        os.mkfifo(bad)
    else:
        bad.symlink_to("/dev/zero")
    res = _publish_cli(config, "--dir", str(www), "--force")
    assert res.returncode == 1
    what = "a named pipe (FIFO)" if kind == "fifo" else "a symbolic link"
    assert f"{bad} is {what}: acap reads, replaces and deletes only regular files" in res.stderr
    assert "[PUBLISH-TARGET]" in res.stderr and "Traceback" not in res.stderr
    assert sorted(p.name for p in (www / ".well-known").iterdir()) == ["agent-card.json"]
    assert (bad.is_fifo() if kind == "fifo" else os.readlink(bad) == "/dev/zero")


def test_a_fifo_anywhere_in_a_folder_acap_replaces_whole_is_a_finding(tmp_path: Path) -> None:
    config = project(tmp_path, overlay=False)
    do_build(config)
    www = tmp_path / "www"
    (www / "deep/er").mkdir(parents=True)
    os.mkfifo(www / "deep/er/pipe")
    res = _publish_cli(config, "--dir", str(www), "--force")
    assert res.returncode == 1 and "[PUBLISH-TARGET]" in res.stderr
    assert f"{www}/deep/er/pipe is a named pipe (FIFO)" in res.stderr
    assert (www / "deep/er/pipe").is_fifo() and not (www / ".well-known").exists()


# -- .git folders (issue 12, item 6) --------------------------------------------------------------

def _in_git(folder: Path) -> None:
    git("init", "-q", "-b", "main", str(folder))
    git("add", "-A", cwd=folder)
    git("commit", "-q", "-m", "project", cwd=folder)


def test_the_projects_own_git_folder_is_refused_even_with_force(tmp_path: Path) -> None:
    config = project(tmp_path, overlay=False)
    _in_git(config.parent)
    do_build(config)
    dot_git = config.parent / ".git"
    before = snapshot(dot_git)
    for target in (dot_git, dot_git / "refs"):
        res = CliRunner().invoke(cli, ["publish", "--create", "--allow-example-hosts",
                                       "-c", str(config), "--dir", str(target),
                                       "--force"])
        assert res.exit_code == 1
        assert "[PUBLISH-TARGET]" in res.stderr
        assert "a git repository's own folder" in res.stderr
        assert "publishing would destroy its history" in res.stderr
    assert snapshot(dot_git) == before
    assert git("log", "--format=%s", cwd=config.parent).strip() == "project"


def test_a_bare_repository_is_refused(tmp_path: Path) -> None:
    config = project(tmp_path)
    do_build(config)
    repo = bare_repo(tmp_path / "pages.git")
    res = publish(trial(config=config, dir=repo, force=True))
    [msg] = _errors(res, "PUBLISH-TARGET")
    assert msg == (f"cannot publish example.com into {repo}: it is a git repository's own "
                   f"folder ({repo}): publishing would destroy its history")


def test_a_working_tree_of_another_branch_is_refused(tmp_path: Path) -> None:
    config = project(tmp_path)
    do_build(config)
    clone = tmp_path / "website"
    clone.mkdir()
    (clone / "index.html").write_text("<p>site</p>\n", encoding="utf-8")
    _in_git(clone)
    before = snapshot(clone)
    res = publish(trial(config=config, dir=clone))
    [err] = [f for f in res.report.errors if f.rule == "PUBLISH-TARGET"]
    assert err.message == (f"cannot publish example.com into {clone}: it is a git working "
                           "tree of branch main, not of the branch gh-pages: acap would mix its "
                           "files into that tree")
    assert err.hint == ("publish to the branch itself (--remote <repository> --branch "
                        "gh-pages), or into a working tree of gh-pages (git worktree add "
                        "<folder> gh-pages)")
    assert snapshot(clone) == before
    # A web root that is a checkout of the site's main: said so, acap adds its files.
    res = publish(trial(config=config, dir=clone, branch="main"))
    assert res.ok, report_text(res.report)
    assert {rel: b for rel, b in snapshot(clone).items() if rel in before} == before
    assert (clone / ".well-known/agent-card.json").is_file()


@pytest.mark.parametrize("overlay", [True, False])
def test_a_worktree_of_the_target_branch_is_published_into_and_stays_a_worktree(
        tmp_path: Path, overlay: bool) -> None:
    config = project(tmp_path, overlay=overlay)
    do_build(config)
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "README.md").write_text("site sources\n", encoding="utf-8")
    _in_git(repo)
    git("branch", "gh-pages", cwd=repo)
    worktree = tmp_path / "pages"
    git("worktree", "add", "-q", str(worktree), "gh-pages", cwd=repo)
    (worktree / "README.md").unlink()  # the branch as the site wants it: acap's files only
    git("commit", "-q", "-am", "empty", cwd=worktree)
    dot_git = (worktree / ".git").read_bytes()
    res = publish(trial(config=config, dir=worktree))
    assert res.ok, report_text(res.report)
    assert (worktree / ".git").read_bytes() == dot_git  # never read, replaced or deleted
    assert snapshot(worktree) == {".git": dot_git, **_built(config, hosting="plain")}
    status = git("status", "--porcelain", cwd=worktree)
    assert "?? .well-known/" in status  # git still sees a working tree of gh-pages
    assert git("rev-parse", "--abbrev-ref", "HEAD", cwd=worktree).strip() == "gh-pages"


# -- a GitHub Pages branch holding the website ---------------------------------------------------

def _pages_branch(tmp_path: Path, files: dict[str, bytes]) -> tuple[Path, Path]:
    """A bare repository whose gh-pages holds ``files``, and a clone to commit from."""
    remote = bare_repo(tmp_path / "pages.git")
    work = tmp_path / "website-clone"
    git("init", "-q", "-b", "gh-pages", str(work))
    for rel, data in files.items():
        (work / rel).parent.mkdir(parents=True, exist_ok=True)
        (work / rel).write_bytes(data)
    git("add", "-A", cwd=work)
    git("commit", "-q", "-m", "the practice's website", cwd=work)
    git("push", "-q", str(remote), "gh-pages", cwd=work)
    return remote, work


def test_overlay_on_the_pages_branch_of_the_website(tmp_path: Path) -> None:
    config = _practice(tmp_path)
    do_build(config)
    website = {**WEBSITE, "CNAME": b"example.com\n"}
    remote, work = _pages_branch(tmp_path, website)
    theirs = branch_tip(remote)
    res = publish(trial(config=config, remote=str(remote)))
    assert res.ok, report_text(res.report)
    tip = branch_tip(remote)
    assert git("rev-parse", f"{tip}^", cwd=remote).strip() == theirs
    built = _built(config, hosting="github-pages")
    assert tree_files(remote, "gh-pages") == {**website, **built, ".nojekyll": b""}
    # acap's files: not the CNAME, which the website had already, byte for byte.
    assert sorted(branch_record(remote)) == sorted({*built, ".nojekyll"} - {"CNAME"})

    again = publish(trial(config=config, remote=str(remote)))
    assert again.ok and again.hosts[0].outcome == "up to date" and branch_tip(remote) == tip

    # The practice changes its imprint on the branch; then a skill goes.
    git("pull", "-q", str(remote), "gh-pages", cwd=work)
    (work / "impressum.html").write_bytes(b"<!doctype html><title>Impressum 2</title>\n")
    git("commit", "-q", "-am", "new imprint", cwd=work)
    git("push", "-q", str(remote), "gh-pages", cwd=work)
    _remove_skill(config, "arrangement-booking")
    do_build(config)
    res3 = publish(trial(config=config, remote=str(remote)))
    assert res3.ok, report_text(res3.report)
    plan = res3.hosts[0].plan
    assert plan is not None and "book/index.html" in plan.removed
    assert set(plan.removed) == set(built) - set(_built(config, hosting="github-pages"))
    assert tree_files(remote, "gh-pages") == {
        **website, "impressum.html": b"<!doctype html><title>Impressum 2</title>\n",
        **_built(config, hosting="github-pages"), ".nojekyll": b""}


def test_a_jekyll_site_on_the_branch_needs_well_known_included(tmp_path: Path) -> None:
    config = _practice(tmp_path)
    do_build(config)
    site = {"index.md": b"---\nlayout: home\n---\n# Praxis\n", "_config.yml": b"title: Praxis\n"}
    remote, work = _pages_branch(tmp_path, site)
    theirs = branch_tip(remote)
    res = publish(trial(config=config, remote=str(remote)))
    [err] = [f for f in res.report.errors if f.rule == "PUBLISH-TARGET"]
    assert err.message == (f"example.com: the site at branch gh-pages of {remote} is built by "
                           "Jekyll (it holds _config.yml), which leaves out .well-known/, where "
                           "the card lies")
    assert "include: [.well-known]" in (err.hint or "")
    assert branch_tip(remote) == theirs
    (work / "_config.yml").write_bytes(b"title: Praxis\ninclude: [.well-known]\n")
    git("commit", "-q", "-am", "serve .well-known", cwd=work)
    git("push", "-q", str(remote), "gh-pages", cwd=work)
    res = publish(trial(config=config, remote=str(remote)))
    assert res.ok, report_text(res.report)
    files = tree_files(remote, "gh-pages")
    assert ".nojekyll" not in files  # Jekyll still builds the practice's pages
    assert files["index.md"] == site["index.md"] and ".well-known/agent-card.json" in files


def test_a_record_that_names_paths_outside_the_folder_removes_nothing_there(
        tmp_path: Path) -> None:
    """The record lies beside the folder, where someone else may write: a record naming
    paths that climb out, or into .git, is not acap's at all; acap says so and deletes
    nothing it lists."""
    config = _practice(tmp_path)
    do_build(config)
    www = tmp_path / "www"
    website = _website(www)
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n", encoding="utf-8")
    zero = "0" * 64
    record_path(www).write_text(json.dumps({
        "publishedBy": "acap", "acap": "0.1.0", "host": "example.com",
        "files": {p: [zero] for p in ("../victim.txt", "/etc/hostname", ".git/config",
                                      "css/../../victim.txt", "talk.html")}}),
        encoding="utf-8")
    res = publish(trial(config=config, dir=www))
    assert res.ok, report_text(res.report)
    [note] = [f for f in res.report.warnings if f.rule == "PUBLISH-RECORD"]
    assert note.message == (
        f"example.com: directory {www} holds a record of acap's publish that acap does not "
        "trust: it names the path '../victim.txt', which leaves the folder or enters .git; "
        "acap deletes nothing it lists, and replaces only the files it recognises as its own")
    assert victim.read_text(encoding="utf-8") == "keep me\n"
    assert snapshot(www) == {**website, **_built(config)}


def test_a_file_someone_changed_after_acap_wrote_it_is_theirs(tmp_path: Path) -> None:
    """acap published the host whole (its home page), then the practice put its own home
    page there and made the host an overlay: acap neither removes nor replaces it; the
    same for a page of acap's the agency rewrote by hand."""
    config = _practice(tmp_path)
    from support.publishing import set_overlay

    set_overlay(config, "example.com", False)
    do_build(config)
    www = tmp_path / "www"
    assert publish(trial(config=config, dir=www)).ok
    assert (www / "index.html").is_file()  # acap's, while it owned the host
    (www / "index.html").write_bytes(WEBSITE["index.html"])  # the practice's own now
    set_overlay(config, "example.com", True)
    do_build(config)
    res = publish(trial(config=config, dir=www))
    assert res.ok, report_text(res.report)
    plan = res.hosts[0].plan
    assert plan is not None and plan.removed == ["404.html"]  # acap's, as written
    assert (www / "index.html").read_bytes() == WEBSITE["index.html"]
    assert "index.html" not in record_files(www)
    # acap's booking page, rewritten by hand: acap would replace it, so it asks first;
    # and once the skill is gone, the page stays theirs.
    (www / "book/index.html").write_bytes(b"<p>our own booking page</p>\n")
    res = publish(trial(config=config, dir=www))
    [msg] = _errors(res, "PUBLISH-FOREIGN")
    assert msg.endswith("has changed since acap published it (by hand or by another tool), "
                        "and publishing example.com would replace it: book/index.html")
    _remove_skill(config, "arrangement-booking")
    do_build(config)
    res = publish(trial(config=config, dir=www))
    assert res.ok, report_text(res.report)
    assert res.hosts[0].plan is not None and res.hosts[0].plan.removed == ["book.html"]
    assert (www / "book/index.html").read_bytes() == b"<p>our own booking page</p>\n"


def test_a_page_of_acaps_rewritten_on_the_branch_is_the_websites(tmp_path: Path) -> None:
    config = _practice(tmp_path)
    do_build(config)
    remote, work = _pages_branch(tmp_path, WEBSITE)
    assert publish(trial(config=config, remote=str(remote))).ok
    git("pull", "-q", str(remote), "gh-pages", cwd=work)
    (work / "book/index.html").write_bytes(b"<p>our own booking page</p>\n")
    git("commit", "-q", "-am", "our booking page", cwd=work)
    git("push", "-q", str(remote), "gh-pages", cwd=work)
    theirs = branch_tip(remote)
    res = publish(trial(config=config, remote=str(remote)))
    [msg] = _errors(res, "PUBLISH-FOREIGN")
    assert msg.endswith("has changed since acap published it (by hand or by another tool), "
                        "and publishing example.com would replace it: book/index.html")
    assert branch_tip(remote) == theirs
    _remove_skill(config, "arrangement-booking")
    do_build(config)
    res = publish(trial(config=config, remote=str(remote)))
    assert res.ok, report_text(res.report)
    assert res.hosts[0].plan is not None and res.hosts[0].plan.removed == ["book.html"]
    assert tree_files(remote, "gh-pages")["book/index.html"] == b"<p>our own booking page</p>\n"
