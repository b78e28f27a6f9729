"""Incremental batch builds (issue 16): an operator whose inputs and outputs did not change
is kept as it is, and the site is byte for byte what a full build gives."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from acap.builder.batch import BatchOptions, BatchResult, build_many
from acap.cli import cli, report_text
from support.paths import REPO
from support.sites import site_tree

sys.path.insert(0, str(REPO / "bench"))
from generate import write_operators


def tree(site: Path) -> dict[str, str]:
    return site_tree(site)


@pytest.fixture
def ops(tmp_path: Path) -> list[Path]:
    """Six operators, built once (pages on) into tmp_path/site; op5 has a warning."""
    paths = write_operators(tmp_path / "ops", 6)
    paths[5].write_text(paths[5].read_text() + "ownOrigins: [https://op5.example/path]\n")
    res = build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=tmp_path / "site"))
    assert res.written and not res.failed and len(res.reused) == 0
    return paths


def rebuilt(res: BatchResult) -> list[str]:
    return sorted(o.config.parent.name for o in res.outcomes if not o.reused)


def test_nothing_changed_keeps_every_operator_and_the_same_bytes(tmp_path: Path,
                                                                 ops: list[Path]) -> None:
    before = tree(tmp_path / "site")
    res = build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=tmp_path / "site"))
    assert res.written and len(res.reused) == 6 and rebuilt(res) == []
    assert tree(tmp_path / "site") == before  # manifest included
    [w] = res.outcomes[5].report.warnings  # the warning a rebuild gives, at its line
    line = ops[5].read_text().splitlines().index("ownOrigins: [https://op5.example/path]") + 1
    assert (w.rule, w.location.file, w.location.line) == ("URL-FORM", str(ops[5]), line)


def full_tree(tmp_path: Path) -> dict[str, str]:
    """A full build of tmp_path/ops, with the same history as site/ (a copy of it)."""
    full = tmp_path / "full"
    shutil.rmtree(full, ignore_errors=True)
    shutil.copytree(tmp_path / "site", full)
    res = build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=full, full=True))
    assert not res.reused
    return tree(full)


def test_changed_operators_alone_are_rebuilt_with_the_bytes_of_a_full_build(
        tmp_path: Path, ops: list[Path]) -> None:
    for i in (1, 4):
        ops[i].write_text(ops[i].read_text().replace("assistant\n", "helper\n"))
    expected = full_tree(tmp_path)
    res = build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=tmp_path / "site"))
    assert rebuilt(res) == ["op00001", "op00004"]
    assert tree(tmp_path / "site") == expected


def test_a_key_rotation_a_template_and_a_deleted_output_are_each_rebuilt(
        tmp_path: Path, ops: list[Path]) -> None:
    site = tmp_path / "site"
    rotated = CliRunner().invoke(cli, ["keys", "rotate", "-c", str(ops[0]), "--site-dir",
                                       str(site)])
    assert rotated.exit_code == 0, rotated.output
    (ops[2].parent / "templates").mkdir()
    (ops[2].parent / "templates" / "footer.html").write_text("<p>Family run.</p>\n")
    (site / "op3.example" / ".well-known" / "jwks.json").unlink()
    (site / "op4.example" / "_headers").write_text("edited by hand\n")
    expected = full_tree(tmp_path)
    res = build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=site))
    assert not res.failed, [report_text(o.report) for o in res.failed]
    assert rebuilt(res) == ["op00000", "op00002", "op00003", "op00004"]
    assert tree(site) == expected
    assert b"Family run." in (site / "op2.example" / "ask" / "index.html").read_bytes()


def test_a_new_key_in_the_same_file_is_a_change(tmp_path: Path, ops: list[Path]) -> None:
    """The key is read too: a key replaced under a published kid is refused as a rebuild
    refuses it (KEY), and the operator keeps its folders."""
    from acap.keys import generate_private_key, write_private_key

    key = ops[1].parent / ".acap" / "signing-key.pem"
    key.unlink()
    write_private_key(key, generate_private_key("ES256"))
    before = tree(tmp_path / "site")
    res = build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=tmp_path / "site"))
    assert [o.config for o in res.failed] == [ops[1]]
    assert [f.rule for f in res.failed[0].report.errors] == ["KEY"]
    assert {k: v for k, v in tree(tmp_path / "site").items() if k.startswith("op1.")} == \
        {k: v for k, v in before.items() if k.startswith("op1.")}


def test_full_rebuilds_everything_to_the_same_bytes(tmp_path: Path, ops: list[Path]) -> None:
    before = tree(tmp_path / "site")
    out = CliRunner().invoke(cli, ["build", str(tmp_path / "ops"), "--site-dir",
                                   str(tmp_path / "site"), "--full", "-j", "2"])
    assert out.exit_code == 0, out.output
    assert tree(tmp_path / "site") == before


@pytest.mark.parametrize("by_stat", [False, True])
def test_confinement_holds_on_the_fast_path(tmp_path: Path, ops: list[Path], by_stat: bool,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """The same key bytes, the same path as written, but its folder is now a link out of
    the tenant's folder: not kept, and refused as a rebuild refuses it. Also when the
    key's signature is recorded: moving its folder leaves the key's own stat as it was."""
    if by_stat:
        import acap.site._file_stats

        monkeypatch.setattr(acap.site._file_stats, "SETTLED_NS", 0)
        build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=tmp_path / "site"))
        key = ops[0].parent / ".acap" / "signing-key.pem"
        sig = os.stat(key)
    own = ops[0].parent / ".acap"
    outside = tmp_path / "elsewhere"
    shutil.move(own, outside)
    own.symlink_to(outside)
    if by_stat:
        assert os.stat(key).st_ctime_ns == sig.st_ctime_ns  # only the confinement tells
    before = tree(tmp_path / "site")
    res = build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=tmp_path / "site"))
    assert [o.config for o in res.failed] == [ops[0]]
    assert [f.rule for f in res.failed[0].report.errors] == ["KEY-FILE"]
    assert tree(tmp_path / "site") == before | {".acap/manifest.json":
                                                tree(tmp_path / "site")[".acap/manifest.json"]}
    assert len(res.reused) == 5


def test_strict_fails_a_kept_operator_with_a_warning(tmp_path: Path, ops: list[Path]) -> None:
    res = build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=tmp_path / "site",
                                  strict=True))
    assert [o.config for o in res.failed] == [ops[5]]
    assert [f.rule for f in res.failed[0].report.warnings] == ["URL-FORM"]
    assert os.path.isdir(tmp_path / "site" / "op5.example")  # kept, as a failure keeps it



def test_the_summary_says_how_many_were_kept_unchanged(tmp_path: Path, ops: list[Path]) -> None:
    ops[2].write_text(ops[2].read_text().replace("assistant\n", "helper\n"))
    res = CliRunner().invoke(cli, ["build", str(tmp_path / "ops"), "--site-dir",
                                   str(tmp_path / "site")])
    assert res.exit_code == 0, res.output
    assert (f"built 6 of 6 operators into {tmp_path / 'site'}/ (5 unchanged since the last "
            "build, kept as they were)") in res.stdout

# -- the kept path by file signatures (acap.site._file_stats) ---------------------------

@pytest.fixture
def settled_now(monkeypatch: pytest.MonkeyPatch) -> None:
    """Files written just before a build count as settled (the tests cannot wait the
    seconds a signature otherwise needs; see acap.site._file_stats)."""
    import acap.site._file_stats

    monkeypatch.setattr(acap.site._file_stats, "SETTLED_NS", 0)


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every file the kept path reads and hashes (rather than judging it by its stat)."""
    import acap.builder.batch._keep as batch_keep

    seen: list[str] = []
    real_read, real_hash = batch_keep.read_regular, batch_keep.file_hash

    def read(path: Any, *args: Any, **kwargs: Any) -> bytes:
        seen.append(str(path))
        return real_read(path, *args, **kwargs)

    def hashed(path: Path) -> bytes | None:
        seen.append(str(path))
        return real_hash(path)

    monkeypatch.setattr(batch_keep, "read_regular", read)
    monkeypatch.setattr(batch_keep, "file_hash", hashed)
    return seen


def same_size_edit(path: Path, old: bytes, new: bytes) -> None:
    """Change ``old`` to ``new`` (as long) in ``path`` and put its times back as they were:
    only its ctime, which no call sets, shows the change."""
    assert len(old) == len(new)
    before = os.stat(path)
    data = path.read_bytes()
    assert old in data
    path.write_bytes(data.replace(old, new, 1))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = os.stat(path)
    assert (after.st_size, after.st_mtime_ns, after.st_ino) == \
        (before.st_size, before.st_mtime_ns, before.st_ino)
    assert after.st_ctime_ns != before.st_ctime_ns


def test_nothing_changed_is_judged_by_stat_alone(tmp_path: Path, settled_now: None,
                                                 reads: list[str]) -> None:
    write_operators(tmp_path / "ops", 4)
    site = tmp_path / "site"
    assert build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=site)).written
    before = tree(site)
    reads.clear()
    res = build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=site))
    assert len(res.reused) == 4 and reads == []  # nothing read, nothing hashed
    assert tree(site) == before
    reads.clear()
    res = build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=site))
    assert len(res.reused) == 4 and reads == []  # the kept files' new marks hold too
    assert tree(site) == before


def test_a_file_touched_but_the_same_is_hashed_and_kept(tmp_path: Path, settled_now: None,
                                                        reads: list[str]) -> None:
    paths = write_operators(tmp_path / "ops", 3)
    site = tmp_path / "site"
    build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=site))
    before = tree(site)
    os.utime(paths[1])  # a checkout or a copy touches it; its bytes are the same
    (site / "op2.example" / "_headers").touch()
    reads.clear()
    res = build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=site))
    assert len(res.reused) == 3 and rebuilt(res) == []
    assert sorted(reads) == sorted([str(paths[1]), str(site / "op2.example" / "_headers")])
    assert tree(site) == before
    reads.clear()  # their new signatures were recorded
    assert len(build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=site)).reused) == 3
    assert reads == []


def test_an_input_changed_with_its_mtime_put_back_is_rebuilt(tmp_path: Path,
                                                             settled_now: None) -> None:
    paths = write_operators(tmp_path / "ops", 3)
    site = tmp_path / "site"
    build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=site))
    same_size_edit(paths[2], b"Answers questions", b"Answers Questions")
    expected = full_tree(tmp_path)
    res = build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=site))
    assert rebuilt(res) == ["op00002"]
    assert tree(site) == expected
    assert b"Answers Questions" in (site / "op2.example" / ".well-known" /
                                    "agent-card.json").read_bytes()


def test_an_output_changed_with_its_mtime_put_back_is_rebuilt(tmp_path: Path,
                                                              settled_now: None) -> None:
    write_operators(tmp_path / "ops", 3)
    site = tmp_path / "site"
    build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=site))
    build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=site))  # kept: linked
    expected = tree(site)
    card = site / "op1.example" / ".well-known" / "agent-card.json"
    same_size_edit(card, b'"name"', b'"NAME"')
    res = build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=site))
    assert rebuilt(res) == ["op00001"]
    assert tree(site) == expected


def test_a_key_file_become_a_fifo_is_refused_on_the_fast_path(tmp_path: Path,
                                                              settled_now: None) -> None:
    """The recorded signature is of a regular file: a FIFO in its place is judged as a
    rebuild judges it (KEY-FILE), never opened, and the operator keeps its folders."""
    paths = write_operators(tmp_path / "ops", 3)
    site = tmp_path / "site"
    build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=site))
    before = tree(site)
    key = paths[1].parent / ".acap" / "signing-key.pem"
    key.unlink()
    os.mkfifo(key)
    res = build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=site))
    assert [o.config for o in res.failed] == [paths[1]]
    [err] = res.failed[0].report.errors
    assert err.rule == "KEY-FILE" and "FIFO" in err.message
    assert len(res.reused) == 2
    after = tree(site)
    assert {k: v for k, v in after.items() if k != ".acap/manifest.json"} == \
        {k: v for k, v in before.items() if k != ".acap/manifest.json"}


def test_files_changed_just_before_a_build_are_not_trusted_by_the_next(
        tmp_path: Path, reads: list[str]) -> None:
    """Without the test's shortcut, files written seconds before a build get no
    signature (a change in the same clock tick would keep it): the next batch hashes
    them, and keeps the operators all the same."""
    from acap.site import read_file_stats

    write_operators(tmp_path / "ops", 2)
    site = tmp_path / "site"
    res = build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=site))
    stats = read_file_stats(site)
    assert [stats.inputs(o.state) for o in res.outcomes] == [{}, {}]
    assert stats.outputs(["op0.example/_headers"])  # site/'s files have the mark instead
    reads.clear()
    res = build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=site))
    assert len(res.reused) == 2
    assert any(r.endswith("operator.yaml") for r in reads)


def test_the_fast_path_in_worker_processes(tmp_path: Path, settled_now: None) -> None:
    paths = write_operators(tmp_path / "ops", 4)
    site = tmp_path / "site"
    build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=site, jobs=2))
    same_size_edit(paths[3], b"Answers questions", b"Answers Questions")
    expected = full_tree(tmp_path)
    res = build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=site, jobs=2))
    assert rebuilt(res) == ["op00003"] and len(res.reused) == 3
    assert tree(site) == expected


def test_a_file_added_where_one_was_missing_is_seen_by_its_folder(
        tmp_path: Path, settled_now: None, reads: list[str]) -> None:
    """The kept path does not look for the files an operator lacks (its private values,
    previous keys, templates/) while its folder is unchanged (issue 24): adding one
    changes the folder, and that operator alone is rebuilt, with a full build's bytes."""
    paths = write_operators(tmp_path / "ops", 4)
    site = tmp_path / "site"
    build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=site))
    reads.clear()
    assert len(build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=site)).reused) == 4
    assert reads == []
    (paths[1].parent / "operator.private.yaml").write_text("{}\n")
    (paths[2].parent / "templates").mkdir()
    (paths[2].parent / "templates" / "footer.html").write_text("<p>Family run.</p>\n")
    (paths[3].parent / "keys").mkdir()
    (paths[3].parent / "keys" / "previous-keys.json").write_text('{"keys": []}\n')
    expected = full_tree(tmp_path)
    res = build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=site))
    assert not res.failed, [report_text(o.report) for o in res.failed]
    assert rebuilt(res) == ["op00001", "op00002", "op00003"]
    assert tree(site) == expected
