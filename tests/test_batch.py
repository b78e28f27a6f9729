"""Batch builds (issue 7): many operators into one site/, failures isolated, nothing lost."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from acap.batch import BatchOptions, build_many, find_configs
from acap.cli import cli
from acap.verify import verify_file
from conftest import REPO

sys.path.insert(0, str(REPO / "bench"))
from generate import operator_yaml, write_operators


def tree(site: Path) -> dict[str, str]:
    return {str(p.relative_to(site)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(site.rglob("*")) if p.is_file()}


def test_every_operator_gets_its_own_signed_card_with_its_own_key(tmp_path: Path) -> None:
    ops = write_operators(tmp_path / "ops", 5)
    res = build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=tmp_path / "site",
                                  jobs=1, pages=False))
    assert res.written and not res.failed and len(res.built) == 5
    keys = set()
    for i, _ in enumerate(ops):
        card = tmp_path / "site" / f"op{i}.example" / ".well-known" / "agent-card.json"
        v = verify_file(str(card))
        assert v.ok, v.report.format_text()
        jwks = json.loads(card.with_name("jwks.json").read_text())
        keys.add(jwks["keys"][0]["x"])
        assert json.loads(card.read_text())["provider"]["url"] == f"https://op{i}.example"
    assert len(keys) == 5  # distinct keys, each operator its own
    # pages off: no HTML written
    assert not [p for p in (tmp_path / "site").rglob("*.html")]


def test_one_broken_operator_is_reported_and_the_others_build(tmp_path: Path) -> None:
    write_operators(tmp_path / "ops", 3)
    broken = tmp_path / "ops" / "op00001" / "operator.yaml"
    broken.write_text(broken.read_text().replace("kind: on-request", "kind: on-requst"))
    res = build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=tmp_path / "site"))
    assert [o.config for o in res.failed] == [broken]
    [err] = res.failed[0].report.errors
    assert err.rule == "SCHEMA-ENUM" and err.location.file == str(broken)
    assert err.location.line == 13
    assert sorted(p.name for p in (tmp_path / "site").iterdir() if not p.name.startswith(".")) \
        == ["op0.example", "op2.example"]


def test_a_failed_operator_keeps_its_previous_folders_byte_for_byte(tmp_path: Path) -> None:
    write_operators(tmp_path / "ops", 3)
    site = tmp_path / "site"
    assert not build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=site)).failed
    before = {k: v for k, v in tree(site).items() if k.startswith("op1.example/")}
    assert before
    # op1 breaks, op2 changes: op1's folder stays as published, op2's is rebuilt.
    op1 = tmp_path / "ops" / "op00001" / "operator.yaml"
    op1.write_text(op1.read_text() + "\nunknownKey: 1\n")
    op2 = tmp_path / "ops" / "op00002" / "operator.yaml"
    op2.write_text(op2.read_text().replace("version: 1.2.2", "version: 9.9.9"))
    res = build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=site))
    assert [o.config for o in res.failed] == [op1]
    after = tree(site)
    assert {k: v for k, v in after.items() if k.startswith("op1.example/")} == before
    card2 = json.loads((site / "op2.example/.well-known/agent-card.json").read_text())
    assert card2["version"] == "9.9.9"


def test_two_operators_claiming_one_host_the_second_is_refused(tmp_path: Path) -> None:
    a = tmp_path / "a" / "operator.yaml"
    b = tmp_path / "b" / "operator.yaml"
    for p in (a, b):
        p.parent.mkdir()
    import random

    a.write_text(operator_yaml(1, random.Random(1)))
    b.write_text(operator_yaml(1, random.Random(2)).replace("Example", "Other"))
    res = build_many(BatchOptions(configs=[a, b], site_dir=tmp_path / "site"))
    assert [o.config for o in res.built] == [a]
    [err] = res.outcomes[1].report.errors
    assert err.rule == "SITE-PATH" and "op1.example" in err.message and str(a) in err.message


def test_jobs_give_the_same_site_as_one_process(tmp_path: Path) -> None:
    write_operators(tmp_path / "ops", 6)
    one = build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=tmp_path / "s1", jobs=1))
    two = build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=tmp_path / "s2", jobs=2))
    assert not one.failed and not two.failed
    assert tree(tmp_path / "s1") == tree(tmp_path / "s2")


def test_the_cli_takes_a_folder_and_reports_per_file(tmp_path: Path) -> None:
    write_operators(tmp_path / "ops", 2)
    bad = tmp_path / "ops" / "op00000" / "operator.yaml"
    bad.write_text(bad.read_text().replace("personEntry: https://", "personEntry: http://"))
    res = CliRunner().invoke(cli, ["build", str(tmp_path / "ops"), "--site-dir",
                                   str(tmp_path / "site"), "--no-pages", "-j", "2"])
    assert res.exit_code == 1
    assert f"{bad}:" in res.stderr and "[OR-3.4]" in res.stderr
    assert "built 1 of 2 operators" in res.stdout
    assert (tmp_path / "site" / "op1.example" / ".well-known" / "agent-card.json").is_file()


def test_find_configs_reads_files_and_folders(tmp_path: Path) -> None:
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "a.yaml").write_text("")
    (tmp_path / "x" / "a.private.yaml").write_text("")
    (tmp_path / "x" / "sub").mkdir()
    (tmp_path / "x" / "sub" / "operator.yaml").write_text("")
    (tmp_path / "y.yml").write_text("")
    found = find_configs([tmp_path / "x", tmp_path / "y.yml"])
    assert found == [tmp_path / "x" / "a.yaml", tmp_path / "x" / "sub" / "operator.yaml",
                     tmp_path / "y.yml"]


def test_an_operator_of_a_batch_publishes_its_own_hosts_from_the_shared_site(
        tmp_path: Path) -> None:
    from acap.publish import PublishOptions, publish

    write_operators(tmp_path / "ops", 2)
    site = tmp_path / "site"
    assert not build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=site,
                                       pages=False)).failed
    config = tmp_path / "ops" / "op00001" / "operator.yaml"
    res = publish(PublishOptions(config=config, site_dir=site, dir=tmp_path / "out"))
    assert res.report.ok(), res.report.format_text()
    assert (tmp_path / "out" / ".well-known" / "agent-card.json").read_bytes() == \
        (site / "op1.example" / ".well-known" / "agent-card.json").read_bytes()
    # A changed operator file makes its part of the batch stale: publish refuses.
    config.write_text(config.read_text().replace("version: 1.1.1", "version: 2.0.0"))
    stale = publish(PublishOptions(config=config, site_dir=site, dir=tmp_path / "out"))
    assert [f.rule for f in stale.report.errors] == ["PUBLISH-STALE"]


def test_each_operator_of_a_folder_has_its_own_private_file(tmp_path: Path) -> None:
    """chapel.yaml's private values are in chapel.private.yaml (operator.yaml's in
    operator.private.yaml): one operator's prices never apply to another."""
    import random

    ops = tmp_path / "ops"
    ops.mkdir()
    for i in (1, 2):
        text = operator_yaml(i, random.Random(i)).replace(
            "Given to the person who asks, on request.", "From £2,450. Given on request.")
        (ops / f"op{i}.yaml").write_text(text)
    (ops / "op1.private.yaml").write_text('treatment-fees:\n  - "£2,450"\n')
    # op2's own private file lists a skill op2 does not have (op1's): its own error only
    (ops / "op2.private.yaml").write_text('treatment-fees:\n  - "£9,999"\n')
    res = build_many(BatchOptions(configs=[ops], site_dir=tmp_path / "site", pages=False))
    by = {o.config.name: o for o in res.outcomes}
    assert [f.rule for f in by["op1.yaml"].report.errors] == ["OR-3.9"]
    assert by["op1.yaml"].report.errors[0].location.file == str(ops / "op1.yaml")
    assert [(f.rule, f.location.file) for f in by["op2.yaml"].report.errors] == \
        [("PRIVATE-VALUES", str(ops / "op2.private.yaml"))]


def test_a_batch_never_replaces_a_folder_acap_did_not_write(tmp_path: Path) -> None:
    write_operators(tmp_path / "ops", 2)
    site = tmp_path / "mine"
    site.mkdir()
    (site / "notes.txt").write_text("mine")
    res = build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=site))
    [err] = res.report.errors
    assert err.rule == "SITE-PATH" and "not written by acap build" in err.message
    assert not res.written and (site / "notes.txt").read_text() == "mine"
    # nor one inside an operator's templates/: refused, nothing written
    inside = tmp_path / "ops" / "op00000" / "templates" / "out"
    res = build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=inside))
    assert [f.rule for f in res.report.errors] == ["SITE-PATH"] and not res.written
    assert not inside.exists()


def test_an_interrupted_batch_leaves_site_and_its_parent_as_they_were(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import acap.batch

    write_operators(tmp_path / "ops", 3)
    site = tmp_path / "site"
    assert not build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=site)).failed
    before, beside = tree(site), sorted(p.name for p in tmp_path.iterdir())
    real = acap.batch.build_one
    calls = []

    def interrupted(*args: object, **kwargs: object) -> object:
        calls.append(args[0])
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(acap.batch, "build_one", interrupted)
    with pytest.raises(KeyboardInterrupt):
        build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=site))
    assert tree(site) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == beside  # no half-written folder


def test_an_operator_whose_files_cannot_be_written_fails_alone(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import errno

    write_operators(tmp_path / "ops", 3)
    site = tmp_path / "site"
    assert not build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=site)).failed
    kept = {k: v for k, v in tree(site).items() if k.startswith("op1.example/")}
    real = Path.write_bytes

    def full(self: Path, data: bytes) -> int:
        if "op1.example" in self.parts and ".acap-operators" in self.parts:  # its own write
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(self, data)

    monkeypatch.setattr(Path, "write_bytes", full)
    op1 = tmp_path / "ops" / "op00001" / "operator.yaml"
    res = build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=site))
    monkeypatch.undo()
    assert [o.config for o in res.failed] == [op1]
    [err] = res.failed[0].report.errors
    assert err.rule == "SITE-WRITE" and "No space left on device" in err.message
    assert err.location.file == str(op1)
    assert res.written
    assert {k: v for k, v in tree(site).items() if k.startswith("op1.example/")} == kept


def test_worker_processes_write_their_operators_files(tmp_path: Path) -> None:
    """With --jobs, the parent receives digests, not file contents, and the site holds
    every operator's files as the manifest lists them."""
    write_operators(tmp_path / "ops", 4)
    res = build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=tmp_path / "site",
                                  jobs=2, pages=False))
    assert len(res.built) == 4
    manifest = json.loads((tmp_path / "site" / ".acap" / "manifest.json").read_text())
    assert manifest["files"] == {k: v for k, v in tree(tmp_path / "site").items()
                                 if k != ".acap/manifest.json"}
    assert all(set(o.digests) <= set(manifest["files"]) for o in res.outcomes)
