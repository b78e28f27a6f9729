"""acap publish into a directory: a mirror, swapped in atomically, never a mix."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from acap.cli import cli, report_text
from acap.publisher import _directory as dir_mirror
from acap.publisher import publish
from acap.publisher._directory import marker_path
from support.publishing import add_to_site, do_build, project, set_version, snapshot, trial


def _host_tree(config: Path, host: str = "example.com") -> dict[str, bytes]:
    return snapshot(config.parent / "site" / host)


def _leftovers(parent: Path) -> list[str]:
    """Temporary folders and files of a mirror (not the record of the publish)."""
    return sorted(p.name for p in parent.iterdir()
                  if ".acap-" in p.name and not p.name.endswith(dir_mirror.MARKER_SUFFIX))


def test_mirror_removes_stale_files_and_matches_the_build(tmp_path: Path) -> None:
    config = project(tmp_path, overlay=False)
    do_build(config)
    www = tmp_path / "www" / "example.com"
    res = publish(trial(config=config, dir=www))
    assert res.ok, report_text(res.report)
    assert res.hosts[0].outcome == "published"
    # Exactly the host folder: no Pages extras (.nojekyll, CNAME) and never the manifest.
    assert snapshot(www) == _host_tree(config)
    # Files acap published there and no longer builds (recorded beside www/) are removed.
    site = config.parent / "site"
    add_to_site(site, "example.com/old-page.html", b"stale\n")
    add_to_site(site, "example.com/old/x.json", b"{}")
    assert publish(trial(config=config, dir=www)).ok
    assert (www / "old/x.json").is_file()
    set_version(config, "3.0.0")
    do_build(config)
    res = publish(trial(config=config, dir=www))
    assert res.ok, report_text(res.report)
    plan = res.hosts[0].plan
    assert plan is not None
    assert plan.removed == ["old-page.html", "old/x.json"]
    assert plan.changed == [".well-known/agent-card.json"]
    assert snapshot(www) == _host_tree(config)
    assert not (www / "old").exists()
    assert _leftovers(www.parent) == []
    again = publish(trial(config=config, dir=www))
    assert again.hosts[0].outcome == "up to date"


def test_dir_from_operator_yaml_relative_to_it(tmp_path: Path) -> None:
    from support.publishing import publish_to

    config = project(tmp_path, overlay=False)
    publish_to(config, "example.com", dir="../served/example.com")
    do_build(config)
    res = CliRunner().invoke(cli, ["publish", "--allow-example-hosts", "-c", str(config)])
    assert res.exit_code == 0, res.output
    assert snapshot(tmp_path / "served/example.com") == _host_tree(config)


def _interrupt_after(monkeypatch: pytest.MonkeyPatch, n: int) -> list[Path]:
    written: list[Path] = []
    real = dir_mirror._write_file

    def flaky(path: Path, data: bytes) -> None:
        if len(written) == n:
            raise OSError(28, "No space left on device", str(path))
        real(path, data)
        written.append(path)

    monkeypatch.setattr(dir_mirror, "_write_file", flaky)
    return written


def test_copy_interrupted_mid_way_leaves_the_old_tree(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    config = project(tmp_path, overlay=False)
    do_build(config)
    www = tmp_path / "www"
    assert publish(trial(config=config, dir=www)).ok
    (www / "stale.txt").write_text("from before\n", encoding="utf-8")  # --force below
    before = snapshot(www)
    set_version(config, "4.0.0")
    do_build(config)
    written = _interrupt_after(monkeypatch, 1)
    res = publish(trial(config=config, dir=www, force=True))
    assert len(written) == 1  # the copy really was cut in the middle
    assert not res.ok
    assert [f.rule for f in res.report.errors] == ["PUBLISH-FAILED"]
    assert "No space left on device" in res.report.errors[0].message
    assert res.hosts[0].outcome == "failed"
    assert snapshot(www) == before  # the old tree, whole
    assert _leftovers(tmp_path) == []
    monkeypatch.undo()
    assert publish(trial(config=config, dir=www, force=True)).ok
    assert snapshot(www) == _host_tree(config)  # then the new tree, whole


def test_a_copy_interrupted_mid_way_leaves_the_record_as_it_was(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = project(tmp_path, overlay=False)
    do_build(config)
    assert publish(trial(config=config, dir=tmp_path / "www")).ok
    record = marker_path(tmp_path / "www").read_bytes()
    set_version(config, "4.0.0")
    do_build(config)
    _interrupt_after(monkeypatch, 1)
    res = publish(trial(config=config, dir=tmp_path / "www"))
    assert [f.rule for f in res.report.errors] == ["PUBLISH-FAILED"]
    assert marker_path(tmp_path / "www").read_bytes() == record
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".www")) == [
        ".www.acap-published.json"]


def test_first_copy_interrupted_leaves_no_target(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    config = project(tmp_path, overlay=False)
    do_build(config)
    _interrupt_after(monkeypatch, 1)
    res = CliRunner().invoke(cli, ["publish", "--allow-example-hosts",
                                   "-c", str(config), "--dir", str(tmp_path / "www")])
    assert res.exit_code == 1
    assert "No space left on device" in res.stderr
    assert not (tmp_path / "www").exists()
    assert _leftovers(tmp_path) == []


def test_swap_fallback_restores_the_old_tree_when_the_second_rename_fails(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where an atomic exchange is not available, two renames; a failure puts the old back."""
    config = project(tmp_path, overlay=False)
    do_build(config)
    www = tmp_path / "www"
    assert publish(trial(config=config, dir=www)).ok
    before = snapshot(www)
    set_version(config, "5.0.0")
    do_build(config)
    monkeypatch.setattr(dir_mirror, "_exchange", lambda a, b: False)
    real_rename = os.rename

    def rename(src: os.PathLike[str] | str, dst: os.PathLike[str] | str) -> None:
        if ".acap-new-" in str(src):
            raise OSError(5, "Input/output error", str(src))
        real_rename(src, dst)

    monkeypatch.setattr(dir_mirror.os, "rename", rename)
    res = publish(trial(config=config, dir=www))
    assert not res.ok and "Input/output error" in res.report.errors[0].message
    assert snapshot(www) == before
    assert _leftovers(tmp_path) == []


def test_exchange_swaps_two_folders_in_one_step(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    (a / "from-a").write_text("a")
    (b / "from-b").write_text("b")
    if dir_mirror._exchange(a, b):
        assert sorted(os.listdir(a)) == ["from-b"] and sorted(os.listdir(b)) == ["from-a"]
    else:  # not Linux, or a file system without RENAME_EXCHANGE: nothing moved
        assert sorted(os.listdir(a)) == ["from-a"] and sorted(os.listdir(b)) == ["from-b"]


def test_dry_run_into_a_directory_writes_nothing(tmp_path: Path) -> None:
    config = project(tmp_path, overlay=False)
    do_build(config)
    www = tmp_path / "www"
    res = CliRunner().invoke(cli, ["publish", "--allow-example-hosts",
                                   "-c", str(config), "--dir", str(www), "--dry-run"])
    assert res.exit_code == 0, res.output
    # Exactly the built files: a directory gets no Pages extras.
    added = sorted(line[4:] for line in res.stdout.splitlines() if line.startswith("  + "))
    assert added == sorted(_host_tree(config))
    assert ".well-known/agent-card.json" in added
    assert not www.exists()
