"""acap publish into a directory: files staged beside the folder, then put in place; a
failure before the last rename leaves every file, and acap's record, as they were."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from acap.cli import cli, report_text
from acap.publisher import _local, publish
from support.publishing import (
    add_to_site,
    change,
    do_build,
    project,
    record_path,
    served,
    set_version,
    snapshot,
    trial,
)


def _host_tree(config: Path, host: str = "example.com") -> dict[str, bytes]:
    """What acap publishes of the host to a folder whose web server it cannot tell."""
    return served(config, host, "plain")


def _leftovers(parent: Path) -> list[str]:
    """acap's temporary files and folders beside and in the target (not its record)."""
    return sorted(p.name for p in parent.rglob("*")
                  if ".acap-" in p.name and not p.name.endswith(".acap-published.json"))


def test_a_folder_acap_owns_whole_holds_exactly_what_it_builds(tmp_path: Path) -> None:
    config = project(tmp_path, overlay=False)
    do_build(config)
    www = tmp_path / "www" / "example.com"
    res = publish(trial(config=config, dir=www))
    assert res.ok, report_text(res.report)
    assert res.hosts[0].outcome == "published"
    # The host folder, without the hosting files this folder's server does not read,
    # and never the manifest.
    assert snapshot(www) == _host_tree(config)
    assert "_headers" not in snapshot(www) and ".nojekyll" not in snapshot(www)
    # Files acap published there and no longer builds (its record says so) are removed.
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
    res = CliRunner().invoke(cli, ["publish", "--create", "--allow-example-hosts",
                                   "-c", str(config)])
    assert res.exit_code == 0, res.output
    assert snapshot(tmp_path / "served/example.com") == _host_tree(config)


def _cut_after(monkeypatch: pytest.MonkeyPatch, method: str, n: int) -> list[str]:
    """Make ``LocalFs.<method>`` fail once, as a full disk would, when it has staged
    (``write``) or put in place (``move``) ``n`` of the site's files; returns the paths
    done before."""
    done: list[str] = []
    failed: list[str] = []
    real = getattr(_local.LocalFs, method)

    def counts(a: str, b: str | bytes) -> bool:
        if method == "write":  # a file of the site, not acap's record or its kept copy
            return isinstance(b, bytes) and not b.startswith(b'{\n "publishedBy"') \
                and not a.endswith("record.old")
        return ".acap-" not in str(b)  # a rename into the folder, not the record's

    def flaky(self: _local.LocalFs, a: str, b: str | bytes) -> None:
        if counts(a, b) and not failed:
            if len(done) == n:
                failed.append(a)
                raise OSError(28, "No space left on device", a)
            done.append(a)
        real(self, a, b)

    monkeypatch.setattr(_local.LocalFs, method, flaky)
    return done


@pytest.mark.parametrize("method", ["write", "move"])
def test_a_publish_cut_in_the_middle_leaves_every_file_and_the_record_as_they_were(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, method: str) -> None:
    """Cut while staging (``write``) or while putting files in place (``move``: what
    was renamed is put back)."""
    config = project(tmp_path, overlay=False)
    do_build(config)
    www = tmp_path / "www"
    assert publish(trial(config=config, dir=www)).ok
    (www / "stale.txt").write_text("from before\n", encoding="utf-8")  # --force below
    before = snapshot(www)
    record = record_path(www).read_bytes()
    # A new name changes the card and the pages: more than one file to write.
    change(config, lambda d: d["operator"].__setitem__("name", "Kapelle Beispiel"))
    do_build(config)
    done = _cut_after(monkeypatch, method, 1)
    res = publish(trial(config=config, dir=www, force=True))
    assert len(done) == 1  # the publish really was cut in the middle
    assert [f.rule for f in res.report.errors] == ["PUBLISH-FAILED"]
    assert "No space left on device" in res.report.errors[0].message
    assert res.hosts[0].outcome == "failed"
    assert snapshot(www) == before  # every file as it was
    assert record_path(www).read_bytes() == record  # the record too
    assert _leftovers(tmp_path) == []
    monkeypatch.undo()
    assert publish(trial(config=config, dir=www, force=True)).ok
    assert snapshot(www) == _host_tree(config)  # then the new files, all of them


def test_a_first_publish_cut_in_the_middle_leaves_no_target(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = project(tmp_path, overlay=False)
    do_build(config)
    _cut_after(monkeypatch, "write", 1)
    res = CliRunner().invoke(cli, ["publish", "--create", "--allow-example-hosts",
                                   "-c", str(config), "--dir", str(tmp_path / "www")])
    assert res.exit_code == 1
    assert "No space left on device" in res.stderr
    assert not (tmp_path / "www").exists() and not record_path(tmp_path / "www").exists()
    assert _leftovers(tmp_path) == []


def test_files_are_staged_beside_the_folder_and_what_a_cut_left_is_cleaned(
        tmp_path: Path) -> None:
    """A publish killed with ``kill -9`` leaves its staged files beside the folder (never in
    what the web server serves); an acap before the staging folder left its temporary
    files beside each of its own: the next publish removes both."""
    config = project(tmp_path, overlay=False)
    do_build(config)
    www = tmp_path / "www"
    assert publish(trial(config=config, dir=www)).ok
    stage = tmp_path / ".www.acap-stage"
    stage.mkdir()
    (stage / "7").write_bytes(b"half an upload")
    legacy = www / ".well-known/.agent-card.json.acap-new-1a2b3c4d"
    legacy.write_bytes(b"{")
    set_version(config, "6.0.0")
    do_build(config)
    assert publish(trial(config=config, dir=www)).ok
    assert not stage.exists() and not legacy.exists()
    assert snapshot(www) == _host_tree(config)


def test_a_link_named_as_acaps_staging_folder_is_never_followed(tmp_path: Path) -> None:
    config = project(tmp_path, overlay=False)
    do_build(config)
    www = tmp_path / "www"
    www.mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep.txt").write_text("mine\n", encoding="utf-8")
    (tmp_path / ".www.acap-stage").symlink_to(elsewhere)
    res = publish(trial(config=config, dir=www))
    assert [f.rule for f in res.report.errors] == ["PUBLISH-TARGET"]
    assert "is a symbolic link" in res.report.errors[0].message
    assert (elsewhere / "keep.txt").read_text("utf-8") == "mine\n"
    assert snapshot(www) == {}


def test_dry_run_into_a_directory_writes_nothing(tmp_path: Path) -> None:
    config = project(tmp_path, overlay=False)
    do_build(config)
    www = tmp_path / "www"
    res = CliRunner().invoke(cli, ["publish", "--create", "--allow-example-hosts",
                                   "-c", str(config), "--dir", str(www), "--dry-run"])
    assert res.exit_code == 0, res.output
    # The built files this folder's server reads: no GitHub Pages or Netlify files.
    added = sorted(line[4:] for line in res.stdout.splitlines() if line.startswith("  + "))
    assert added == sorted(_host_tree(config))
    assert ".well-known/agent-card.json" in added
    assert not www.exists()
