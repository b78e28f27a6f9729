"""What ``acap build`` may replace (second trial report, items 7 and 10).

* ``--site-dir .acap`` gave "hint: move it outside site/, e.g. keyFile:
  .acap/signing-key.pem", the very value it had: now the folder is what is
  refused (SITE-PATH: it holds the signing key), with another folder suggested.
* A site/ without a manifest was refused with "e.g. --site-dir site", the
  folder just refused: now the hint names another folder, or removing it after
  checking it.
* A site/ built for another card (another project) was replaced without a
  word, with a file added by hand (site/mine.txt): now both are refused unless
  ``--force``; the hand-added file is named.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from acap.builder import BuildOptions, build
from acap.builder._build import BuildResult
from acap.cli import report_text
from support.cards import acap, new_private, set_key_file, tree
from support.paths import REPO


def _build(config: Path, **kw: object) -> BuildResult:
    return build(BuildOptions(config=config, spec_site=False, **kw))  # type: ignore[arg-type]


def _site_path(res: BuildResult) -> list[tuple[str, str, str | None]]:
    return [(f.location.file, f.message, f.hint) for f in res.report if f.rule == "SITE-PATH"]


def test_site_dir_holding_the_key_folder_is_refused_as_the_folder(
        example: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(example.parent)
    set_key_file(example, new_private("ES256"))
    before = tree(example.parent)
    res = acap("build", "--site-dir", ".acap", "--no-spec-site")
    assert res.exit_code == 1
    assert ("--site-dir .acap: error: the site folder .acap holds the signing key "
            ".acap/signing-key.pem (signing.keyFile): everything in the site folder is "
            "published, and a build replaces the whole folder [SITE-PATH]\n"
            "    hint: build into a folder of its own, e.g. --site-dir site\n") in res.stderr
    assert "[KEY]" not in res.stderr
    assert "keyFile: .acap/signing-key.pem" not in res.stderr
    assert tree(example.parent) == before


def test_a_key_file_of_its_own_inside_the_site_folder_is_still_the_key_s_fault(
        example: Path) -> None:
    text = example.read_text(encoding="utf-8")
    example.write_text(text.replace("keyFile: .acap/signing-key.pem", "keyFile: out/key.pem"),
                       encoding="utf-8")
    res = _build(example, site_dir=example.parent / "out")
    [f] = res.report.errors
    assert (f.rule, f.hint) == ("KEY", "move it outside site/, e.g. keyFile: "
                                       ".acap/signing-key.pem")


def test_a_foreign_site_folder_hint_names_another_folder(
        example: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(example.parent)
    site = example.parent / "site"
    site.mkdir()
    (site / "index.html").write_text("<p>my own site</p>", encoding="utf-8")
    res = _build(Path("operator.yaml"))
    assert _site_path(res) == [(
        "site", "the site folder site is not empty and was not written by acap build; a build "
        "replaces the whole folder",
        "build into a folder of its own, e.g. --site-dir public, or, after checking that "
        "nothing in site is needed, remove it")]
    (example.parent / "public").mkdir()
    (example.parent / "public" / "x").write_text("x", encoding="utf-8")
    assert "e.g. --site-dir site-out," in str(_site_path(_build(Path("operator.yaml")))[0][2])
    assert (site / "index.html").read_text(encoding="utf-8") == "<p>my own site</p>"


def _other_project(tmp_path: Path) -> Path:
    """A built site/ of another operator (card on other.example), in its own folder.
    (acap init's own placeholder card, on example.org, is replaced without --force.)"""
    other = tmp_path / "other"
    assert acap("init", str(other)).exit_code == 0
    op = other / "operator.yaml"
    op.write_text(op.read_text(encoding="utf-8").replace("example.org", "other.example"),
                  encoding="utf-8")
    res = _build(op)
    assert res.ok, report_text(res.report)
    return other / "site"


def test_a_site_of_another_card_is_replaced_only_with_force(example: Path,
                                                            tmp_path: Path) -> None:
    site = _other_project(tmp_path)
    before = tree(site)
    res = _build(example, site_dir=site)
    assert not res.written and tree(site) == before
    assert _site_path(res) == [(
        f"--site-dir {site}",
        f"the site folder {site} holds the build of another card, "
        "https://other.example/.well-known/agent-card.json (another project, or this one before "
        "its card URL changed); this build would replace it with "
        "https://example.com/.well-known/agent-card.json",
        f"build into a folder of its own, e.g. --site-dir {example.parent / 'site'}, or, to "
        "replace it, build again with --force")]

    out = acap("build", "-c", str(example), "--site-dir", str(site), "--no-spec-site", "--force")
    assert out.exit_code == 0, out.stderr
    assert json.loads((site / ".acap/manifest.json").read_bytes())["card"] == \
        "https://example.com/.well-known/agent-card.json"
    assert not (site / "other.example").exists()
    # the other project's published kids are not this one's: no KEY warning about them
    again = _build(example, site_dir=site)
    assert again.ok and not [f for f in again.report if f.rule == "KEY"]


def test_files_the_last_build_did_not_write_are_named_and_kept(example: Path) -> None:
    assert _build(example).ok
    site = example.parent / "site"
    (site / "mine.txt").write_text("mine", encoding="utf-8")
    (site / "example.com" / "notes").mkdir()
    (site / "example.com" / "notes" / "a.html").write_text("a", encoding="utf-8")
    (site / "ask.example.com" / "link").symlink_to(site / "mine.txt")
    before = tree(site)
    res = _build(example)
    assert not res.written and tree(site) == before
    assert _site_path(res) == [(
        str(site), f"the site folder {site} holds files the last build did not write: "
        "ask.example.com/link, example.com/notes/a.html, mine.txt; a build replaces the whole "
        "folder and would delete them",
        "move them out of the site folder (your own pages belong in templates/, or on a host "
        "with ownPages: true), or build again with --force to delete them")]
    res = _build(example, force=True)
    assert res.ok and res.written
    assert not (site / "mine.txt").exists()


def test_another_card_and_stray_files_are_both_reported(example: Path, tmp_path: Path) -> None:
    site = _other_project(tmp_path)
    (site / "mine.txt").write_text("mine", encoding="utf-8")
    res = _build(example, site_dir=site)
    assert [m.split(":", 1)[0] for _, m, _ in _site_path(res)] == [
        f"the site folder {site} holds the build of another card, https",
        f"the site folder {site} holds files the last build did not write"]


def test_force_is_documented() -> None:
    out = acap("build", "--help")
    assert "--force" in out.stdout
    commands = (REPO / "docs" / "commands.md").read_text(encoding="utf-8")
    assert "`acap build [-c FILE] [--site-dir DIR] [--force]`" in commands


def test_a_batch_build_never_replaces_the_folder_holding_its_operators(
        example: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`acap build ops/a.yaml ops/b.yaml --site-dir .` replaced the current folder,
    operator files and all: a batch build is held to the same rules."""
    monkeypatch.chdir(example.parent)
    ops = example.parent / "ops"
    ops.mkdir()
    (ops / "a.yaml").write_bytes(example.read_bytes())
    (example.parent / "precious.txt").write_text("keep", encoding="utf-8")
    before = tree(example.parent)
    out = acap("build", "ops/", "--site-dir", ".", "--no-spec-site")
    assert out.exit_code == 1
    assert (f"--site-dir .: error: the site folder . holds the operator folder {ops}, whose "
            "files the build reads (operator file, templates, keys); a batch writes the site "
            "folder [SITE-PATH]") in out.stderr
    assert out.stderr.count("[SITE-PATH]") == 1
    after = tree(example.parent)
    assert {k: after.get(k) for k in before} == before  # nothing deleted or changed
    assert set(after) == set(before)  # nothing made either (a batch makes keys when asked)


def test_a_batch_build_names_files_it_did_not_write(example: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Over a batch site, a batch changes host folders tenant by tenant (issue 24): a
    tenant whose host folder holds a file acap did not write is not rebuilt over it
    (unless --force), a tenant that did not change is not touched, and a file outside
    every host folder is never touched."""
    monkeypatch.chdir(example.parent)
    ops = example.parent / "ops"
    ops.mkdir()
    (ops / "a.yaml").write_bytes(example.read_bytes())
    assert acap("build", "ops/", "--no-spec-site", "--new-keys").exit_code == 0
    assert acap("build", "ops/", "--no-spec-site").exit_code == 0  # without --new-keys
    site = example.parent / "site"
    (site / "example.com" / "mine.txt").write_text("mine", encoding="utf-8")
    (site / "notes.txt").write_text("notes", encoding="utf-8")
    assert acap("build", "ops/", "--no-spec-site").exit_code == 0  # unchanged: kept
    (ops / "a.yaml").write_bytes(example.read_bytes() + b"\n# changed\n")
    out = acap("build", "ops/", "--no-spec-site")
    assert out.exit_code == 1
    assert "holds files the last build did not write: example.com/mine.txt;" in out.stderr
    assert (site / "example.com" / "mine.txt").exists()
    assert acap("build", "ops/", "--no-spec-site", "--force").exit_code == 0
    assert not (site / "example.com" / "mine.txt").exists()
    assert (site / "notes.txt").read_text(encoding="utf-8") == "notes"


def test_a_site_dir_naming_the_operator_file_is_called_a_file(example: Path) -> None:
    """Trial 5: `--site-dir operator.yaml` was "the site folder operator.yaml holds
    operator.yaml"."""
    before = example.read_bytes()
    out = acap("build", "-c", str(example), "--site-dir", str(example), "--no-spec-site")
    assert out.exit_code == 1
    assert f"error: the site folder {example} is a file [SITE-PATH]" in out.stderr
    assert example.read_bytes() == before
