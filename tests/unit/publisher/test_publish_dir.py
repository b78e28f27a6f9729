"""acap publish into a directory: files staged beside the folder, then put in place; a
failure before the last rename leaves every file, and acap's record, as they were."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from jsonschema import Draft202012Validator

from acap import schemas
from acap.cli import cli, report_text
from acap.publisher import PublishOptions, _local, publish
from acap.publisher._fs import STAGED, FileStore
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


def _cut_after(monkeypatch: pytest.MonkeyPatch, step: str, n: int) -> list[str]:
    """Make the folder store fail once, as a full disk would, when it has staged
    (``write``) or put in place (``put``: a new file placed, or one replaced) ``n`` of the
    site's files; returns the paths done before."""
    done: list[str] = []
    failed: list[str] = []

    def counts(a: str, b: str | bytes) -> bool:
        if step == "write":  # a file of the site, not acap's record or its kept copy
            return isinstance(b, bytes) and not b.startswith(b'{\n "publishedBy"') \
                and not a.endswith("record-old")
        return True

    for method in (["write"] if step == "write" else ["place", "swap"]):
        real = getattr(_local.LocalFs, method)

        def flaky(self: _local.LocalFs, a: str, b: str | bytes, *more: object,
                  real: Any = real) -> None:
            if counts(a, b) and not failed:
                if len(done) == n:
                    failed.append(a)
                    raise OSError(28, "No space left on device", a)
                done.append(a)
            real(self, a, b, *more)

        monkeypatch.setattr(_local.LocalFs, method, flaky)
    return done


@pytest.mark.parametrize("method", ["write", "put"])
def test_a_publish_cut_in_the_middle_leaves_every_file_and_the_record_as_they_were(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, method: str) -> None:
    """Cut while staging (``write``) or while putting files in place (``put``: what
    was put in place is put back)."""
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


def _killed_after_staging(monkeypatch: pytest.MonkeyPatch, options: PublishOptions) -> None:
    """Make the next publish stop as ``kill -9`` stops it once every file is staged: no
    rollback, no cleaning (what a real ``kill -9`` leaves is the acceptance test's
    :mod:`test_publish_interrupted`)."""
    class Killed(BaseException):
        pass

    def die(*_a: object, **_k: object) -> None:
        raise Killed
    monkeypatch.setattr(FileStore, "commit", die)
    monkeypatch.setattr(FileStore, "roll_back", lambda self: None)
    with pytest.raises(Killed):
        publish(options)
    monkeypatch.undo()


def test_what_a_killed_publish_left_beside_the_folder_is_acaps_and_cleaned(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A publish killed once its files are staged leaves them beside the folder (never in
    what the web server serves), under a token its record names: the next publish proves
    them its own and removes them."""
    config = project(tmp_path, overlay=False)
    do_build(config)
    www = tmp_path / "www"
    assert publish(trial(config=config, dir=www)).ok
    before = snapshot(www)
    set_version(config, "6.0.0")
    do_build(config)
    _killed_after_staging(monkeypatch, trial(config=config, dir=www))
    stage = tmp_path / ".www.acap-stage"
    left = sorted(p.name for p in stage.iterdir())
    assert left and all(STAGED.fullmatch(n) for n in left)
    assert snapshot(www) == before  # nothing staged is served
    dry = publish(trial(config=config, dir=www, dry_run=True))
    assert sorted(where.rsplit("/", 1)[-1] for where, _why in dry.hosts[0].swept) == left
    said = CliRunner().invoke(cli, ["publish", "--dry-run", "--allow-example-hosts", "-c",
                                    str(config), "--dir", str(www)])
    assert said.exit_code == 0, said.output
    assert sorted(line for line in said.stdout.splitlines() if "cut short" in line) == [
        f"  - {stage / name} (left by acap's publish {name[:16]}, which was cut short; a "
        "record acap signed names it)" for name in left]
    out = CliRunner().invoke(cli, ["publish", "--dry-run", "--allow-example-hosts", "-c",
                                   str(config), "--dir", str(www), "--format", "json"])
    doc = json.loads(out.stdout)
    assert list(Draft202012Validator(schemas.schema(schemas.OUTPUT)).iter_errors(doc)) == []
    assert sorted(d["path"] for d in doc["results"][0]["hosts"][0]["leftovers"]) == \
        [str(stage / name) for name in left]
    res = publish(trial(config=config, dir=www))
    assert res.ok, report_text(res.report)
    assert not stage.exists() and snapshot(www) == _host_tree(config)
    assert "a record acap signed names it" in res.hosts[0].swept[0][1]


def test_a_file_named_like_acaps_temporary_files_that_is_not_acaps_is_never_removed(
        tmp_path: Path) -> None:
    """``x.acap-new-123`` in the folder, or a name of acap's own kind in its staging
    folder under a token no record of acap's names, may be anyone's: it stays, and is
    named (the folder's: ``PUBLISH-FOREIGN``; the staging folder's: ``PUBLISH-LEFTOVER``)."""
    config = project(tmp_path, overlay=False)
    do_build(config)
    www = tmp_path / "www"
    assert publish(trial(config=config, dir=www)).ok
    planted = {www / "x.acap-new-123": b"someone's notes\n",
               www / ".well-known/.agent-card.json.acap-new-1a2b3c4d": b"{"}
    for path, data in planted.items():
        path.write_bytes(data)
    set_version(config, "6.0.0")
    do_build(config)
    res = publish(trial(config=config, dir=www))
    assert [f.rule for f in res.report.errors] == ["PUBLISH-FOREIGN"]
    assert "x.acap-new-123" in res.report.errors[0].message
    assert all(path.read_bytes() == data for path, data in planted.items())
    for path in planted:
        path.unlink()

    stage = tmp_path / ".www.acap-stage"
    stage.mkdir()
    theirs = {"7": b"half an upload", "0123456789abcdef.new.1": b"not acap's",
              ".x.acap-new-123": b"someone's"}
    for name, data in theirs.items():
        (stage / name).write_bytes(data)
    res = publish(trial(config=config, dir=www))
    assert res.ok, report_text(res.report)
    assert snapshot(www) == _host_tree(config)
    assert {p.name: p.read_bytes() for p in stage.iterdir()} == theirs
    left = [f for f in res.report.warnings if f.rule == "PUBLISH-LEFTOVER"]
    assert len(left) == 1 and all(name in left[0].message for name in theirs)
    assert res.hosts[0].swept == []


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


def test_a_write_cut_by_ctrl_c_leaves_nothing_staged(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C can land inside :func:`acap.load.write_file` after it made its temporary file
    (``.<token>.new.2.<8 hex>.acap-tmp``) and before it cleans it: the rollback removes
    that too (it carries this publish's token), and the site and record are as before."""
    config = project(tmp_path, overlay=False)
    do_build(config)
    www = tmp_path / "www"
    assert publish(trial(config=config, dir=www)).ok
    before, record = snapshot(www), record_path(www).read_bytes()
    set_version(config, "6.0.0")
    do_build(config)
    add_to_site(config.parent / "site", "example.com/new.html", b"<p>new</p>\n")
    real = _local.LocalFs.write

    def cut(fs: _local.LocalFs, path: str, data: bytes) -> None:
        if ".new." in path and not data.startswith(b'{\n "publishedBy"'):
            Path(f"{path.rsplit('/', 1)[0]}/.{path.rsplit('/', 1)[1]}.1a2b3c4d.acap-tmp") \
                .write_bytes(data[:10])
            raise KeyboardInterrupt
        real(fs, path, data)
    monkeypatch.setattr(_local.LocalFs, "write", cut)
    with pytest.raises(KeyboardInterrupt):
        publish(trial(config=config, dir=www))
    assert not (tmp_path / ".www.acap-stage").exists()
    assert snapshot(www) == before and record_path(www).read_bytes() == record
