"""Incremental batch builds (issue 16): an operator whose inputs and outputs did not change
is kept as it is, and the site is byte for byte what a full build gives."""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from acap.builder.batch import BatchOptions, BatchResult, build_many
from acap.cli import cli, report_text
from support.paths import REPO

sys.path.insert(0, str(REPO / "bench"))
from generate import write_operators


def tree(site: Path) -> dict[str, str]:
    return {str(p.relative_to(site)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(site.rglob("*")) if p.is_file()}


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


def test_confinement_holds_on_the_fast_path(tmp_path: Path, ops: list[Path]) -> None:
    """The same key bytes, the same path as written, but its folder is now a link out of
    the tenant's folder: not kept, and refused as a rebuild refuses it."""
    own = ops[0].parent / ".acap"
    outside = tmp_path / "elsewhere"
    shutil.move(own, outside)
    own.symlink_to(outside)
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
