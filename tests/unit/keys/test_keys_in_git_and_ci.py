"""Keys that end up where they must not (issue 12, "Keys"): a CI secret still holding the
key ``acap keys rotate`` replaced, and a new key that git does not ignore."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from acap.builder import init_project
from acap.cli import cli, report_text
from support.cards import run_build, tree
from support.publishing import git


def test_a_secret_still_holding_the_rotated_key_is_refused(
        example: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """After `acap keys rotate` (chapel-1 -> chapel-2), CI's ACAP_SIGNING_KEY still held
    the old key, and the build signed chapel-2 with it: one kid, two keys in the wild."""
    assert run_build(example).ok
    rotated = CliRunner().invoke(cli, ["keys", "rotate", "-c", str(example)])
    assert rotated.exit_code == 0, rotated.output
    assert "update it now with the new key" in rotated.stderr
    assert "ACAP_SIGNING_KEY" in rotated.stderr
    assert run_build(example).ok  # the new key, from its file: fine
    site = example.parent / "site"
    before = tree(site)
    old = (example.parent / ".acap" / "signing-key.1.old.pem").read_text()
    monkeypatch.setenv("ACAP_SIGNING_KEY", old)
    res = run_build(example)
    assert not res.ok and not res.written
    [err] = res.report.errors
    assert err.rule == "KEY"
    assert err.message.startswith("the secret ACAP_SIGNING_KEY holds the old key of kid "
                                  "chapel-1")
    assert "would sign kid chapel-2 with it" in err.message
    assert err.hint is not None and err.hint.startswith("update the secret ACAP_SIGNING_KEY")
    lines = example.read_text(encoding="utf-8").splitlines()
    assert err.location.line == lines.index("  kid: chapel-2") + 1
    assert tree(site) == before
    assert "PRIVATE KEY" not in report_text(res.report)
    monkeypatch.setenv("ACAP_SIGNING_KEY",
                       (example.parent / ".acap" / "signing-key.pem").read_text())
    assert run_build(example).ok  # the secret updated: it builds


def test_a_new_key_is_called_git_ignored_only_when_git_says_so(example: Path) -> None:
    project = example.parent
    git("init", "-q", cwd=project)
    res = run_build(example)
    assert res.ok
    [note] = [n for n in res.notices if "signing key" in n]
    assert "ignore" not in note
    [w] = [f for f in res.report.warnings if f.rule == "KEY"]
    assert "is not ignored by git: one `git add .` would commit it" in w.message
    assert w.hint == "add the line /.acap/ to .gitignore (acap init writes one that does)"
    assert git("status", "--porcelain", "--untracked-files=all", cwd=project).count(
        ".acap/signing-key.pem") == 1  # git would take it: the warning is true
    (project / ".gitignore").write_text("/.acap/\n")
    shutil.rmtree(project / ".acap")  # the key, and the agent's policy beside it
    shutil.rmtree(project / "site")
    res = run_build(example)
    assert res.ok and not [f for f in res.report.warnings if f.rule == "KEY"]
    [note] = [n for n in res.notices if "signing key" in n]
    assert note.endswith("(keep it safe and out of git; git ignores it)")


def test_a_new_key_outside_git_makes_no_claim_about_git(example: Path) -> None:
    res = run_build(example)
    [note] = [n for n in res.notices if "signing key" in n]
    assert note.endswith("(keep it safe and out of git)")
    assert not [f for f in res.report.warnings if f.rule == "KEY"]


def test_init_appends_what_an_existing_gitignore_lacks(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("node_modules/\n*.pem", encoding="utf-8")
    res = CliRunner().invoke(cli, ["init", str(tmp_path)])
    assert res.exit_code == 0
    text = (tmp_path / ".gitignore").read_text(encoding="utf-8")
    assert text.startswith("node_modules/\n*.pem\n")  # nothing removed or changed
    assert text.count("*.pem") == 1  # only what it lacked
    assert "added to .gitignore, which lacked them: /site/  /.acap/" in res.stderr
    git("init", "-q", cwd=tmp_path)
    for path in (".acap/signing-key.pem", "site/x", "operator.private.yaml"):
        assert git("check-ignore", path, cwd=tmp_path).strip() == path
    again = init_project(tmp_path)
    assert again.appended == [] and (tmp_path / ".gitignore").read_text("utf-8") == text
