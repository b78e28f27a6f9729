"""The attacker re-trial's links against a batch (MEDIUM 1, LOW 4).

A tenant's operator.yaml may be a link only to a file in its own folder; a link out of
it, to nothing or to itself is a ``FILE`` error at the link, nothing of its target read.
A link among a tenant's inputs is part of its input state: an incremental batch says
what ``--full`` says.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from acap.cli import report_text
from support.batches import batch, only_error, rebuild, write_operators
from support.paths import REPO


@pytest.fixture
def settled_now(monkeypatch: pytest.MonkeyPatch) -> None:
    """Files written just before a build count as settled: the stat-signature fast path
    is taken (see acap.site._file_stats)."""
    import acap.site._file_stats

    monkeypatch.setattr(acap.site._file_stats, "SETTLED_NS", 0)


# -- MEDIUM 1: operator.yaml linked out of the tenant's folder ---------------------------

def test_an_operator_file_linked_to_the_build_machine_is_refused_unread(
        tmp_path: Path) -> None:
    ops = batch(tmp_path)
    plat = tmp_path / "plat.yml"
    plat.write_text('operator: "db-password-XYZZY"\nskills: "sk_live_SECRET"\n',
                    encoding="utf-8")
    ops[0].unlink()
    ops[0].symlink_to(plat)
    res = rebuild(tmp_path)
    err = only_error(res, ops[0])
    assert (err.rule, err.location.file, err.location.line) == ("FILE", str(ops[0]), None)
    assert "leads out of this operator's folder" in err.message
    text = "".join(report_text(o.report) for o in res.outcomes)
    assert "XYZZY" not in text and "sk_live" not in text and "plat.yml" not in text
    assert (tmp_path / "site" / "op0.example").is_dir()  # its previous folders kept
    assert not (tmp_path / ".acap").exists()  # no key made in the foreign folder


def test_an_operator_file_linked_to_another_tenants_is_refused(tmp_path: Path) -> None:
    ops = batch(tmp_path)
    ops[0].unlink()
    ops[0].symlink_to("../op00001/operator.yaml")
    err = only_error(rebuild(tmp_path), ops[0])
    assert (err.rule, err.location.file, err.location.line) == ("FILE", str(ops[0]), None)


def test_a_link_within_the_tenants_folder_still_builds_and_is_kept(tmp_path: Path) -> None:
    ops = write_operators(tmp_path / "ops", 2)
    conf = ops[0].parent / "conf"
    conf.mkdir()
    ops[0].rename(conf / "operator.yaml")
    (ops[0].parent / ".acap").rename(conf / ".acap")
    ops[0].symlink_to("conf/operator.yaml")
    res = rebuild(tmp_path)
    assert not res.failed and len(res.built) == 2, [report_text(o.report) for o in res.failed]
    assert len(rebuild(tmp_path).reused) == 2


# -- LOW 4a: a link to nothing or to itself is no silent drop ----------------------------

@pytest.mark.parametrize("target", ["missing.yaml", "operator.yaml"])
def test_an_operator_file_linked_to_nothing_is_a_file_error(tmp_path: Path,
                                                             target: str) -> None:
    ops = batch(tmp_path)
    ops[0].unlink()
    ops[0].symlink_to(target)
    res = rebuild(tmp_path)
    err = only_error(res, ops[0])
    assert (err.rule, err.location.file, err.location.line) == ("FILE", str(ops[0]), None)
    assert "leads nowhere" in err.message
    assert not res.report.ok or res.failed  # the batch fails: exit 1
    assert (tmp_path / "site" / "op0.example").is_dir()


# -- LOW 4b: the incremental build says what --full says ----------------------------------

def test_a_private_file_become_a_link_to_nothing_is_seen_incrementally(
        tmp_path: Path, settled_now: None) -> None:
    ops = batch(tmp_path)
    (ops[0].parent / "operator.private.yaml").symlink_to("nothing")
    for full in (False, True):
        err = only_error(rebuild(tmp_path, full), ops[0])
        assert err.rule == "PRIVATE-VALUES"
        assert err.location.file == str(ops[0].parent / "operator.private.yaml")


def test_a_words_folder_linked_to_another_tenant_is_seen_incrementally(
        tmp_path: Path, settled_now: None) -> None:
    ops = batch(tmp_path)
    words = ops[1].parent / "templates" / "words"
    words.mkdir(parents=True)
    (words / "en.yaml").write_bytes((REPO / "src/acap/templates/words/en.yaml").read_bytes())
    assert not rebuild(tmp_path).failed
    (ops[0].parent / "templates").mkdir()
    (ops[0].parent / "templates" / "words").symlink_to("../../op00001/templates/words")
    for full in (False, True):
        err = only_error(rebuild(tmp_path, full), ops[0])
        assert (err.rule, err.location.file, err.location.line) == \
            ("PAGE-TEMPLATE", str(ops[0].parent / "templates" / "words"), None)
        assert "templates/words is a link that leads outside the templates folder" \
            in err.message


def test_a_link_to_a_folder_inside_templates_builds_and_is_an_input(
        tmp_path: Path, settled_now: None) -> None:
    ops = batch(tmp_path, 2)
    tpl = ops[0].parent / "templates"
    (tpl / "mine").mkdir(parents=True)
    (tpl / "words").symlink_to("mine")
    res = rebuild(tmp_path)
    assert not res.failed and len(res.reused) == 1
    assert len(rebuild(tmp_path).reused) == 2
    (tpl / "words").unlink()
    (tpl / "words").symlink_to("elsewhere")  # another target: a change
    res = rebuild(tmp_path)
    assert len(res.reused) == 1 and not res.failed
