"""The attacker trial's findings against a batch (attack-report HIGH 1, 2, LOW 7, 8).

Each test gives one tenant (op00000) the smallest hostile input of the report and
asserts the refusal: its rule id, its place, and that the other tenants were built.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from acap.builder.batch import BatchOptions, build_many
from acap.cli import report_text
from support.batches import batch, only_error, rebuild, write_operators

# -- HIGH 1: the private-values file is confined to the tenant's folder ------------------

def test_a_private_file_linked_out_of_the_folder_is_refused_unread(tmp_path: Path) -> None:
    ops = batch(tmp_path)
    secret = tmp_path / "platform.yaml"
    secret.write_text('database_password: "hunter2-PLATFORM"\n', encoding="utf-8")
    (ops[0].parent / "operator.private.yaml").symlink_to(secret)
    err = only_error(rebuild(tmp_path), ops[0])
    assert err.rule == "PRIVATE-VALUES"
    assert err.location.file.endswith("op00000/operator.private.yaml")
    assert "leads out of the project folder" in err.message
    text = report_text(rebuild(tmp_path).outcomes[0].report)
    assert "hunter2" not in text and "database_password" not in text


def test_another_tenants_private_file_cannot_be_named(tmp_path: Path) -> None:
    ops = batch(tmp_path)
    (ops[1].parent / "operator.private.yaml").write_text(
        'service-pricing: "£2,450 secret"\n', encoding="utf-8")
    (ops[0].parent / "operator.private.yaml").symlink_to("../op00001/operator.private.yaml")
    res = rebuild(tmp_path)
    texts = [report_text(o.report) for o in res.outcomes]
    assert all("secret" not in t for t in texts), texts
    a = next(o for o in res.outcomes if o.config == ops[0])
    assert [f.rule for f in a.report.errors] == ["PRIVATE-VALUES"]
    assert "leads out of the project folder" in a.report.errors[0].message


def test_a_hard_linked_private_file_is_refused_in_a_batch(tmp_path: Path) -> None:
    ops = batch(tmp_path, 2)
    theirs = ops[1].parent / "operator.private.yaml"
    theirs.write_text('service-pricing:\n  - "£2,450"\n', encoding="utf-8")
    os.link(theirs, ops[0].parent / "operator.private.yaml")
    res = rebuild(tmp_path)
    a = next(o for o in res.outcomes if o.config == ops[0])
    [err] = a.report.errors
    assert err.rule == "PRIVATE-VALUES" and "other names" in err.message
    assert err.location.file.endswith("op00000/operator.private.yaml")


def test_a_fifo_private_file_is_an_error_not_absence(tmp_path: Path) -> None:
    ops = batch(tmp_path)
    os.mkfifo(ops[0].parent / "operator.private.yaml")
    err = only_error(rebuild(tmp_path), ops[0])
    assert err.rule == "PRIVATE-VALUES" and "named pipe" in err.message


# -- HIGH 2: one tenant cannot crash the batch -------------------------------------------

def person_entry(config: Path, path: str) -> int:
    """Point the tenant's personEntry at ``path`` on its own host; its line."""
    text = config.read_text(encoding="utf-8")
    old = "personEntry: https://op0.example/ask"
    assert old in text
    config.write_text(text.replace(old, f"personEntry: https://op0.example/{path}"),
                      encoding="utf-8")
    return text[:text.index(old)].count("\n") + 1


def test_a_nul_in_person_entry_is_url_form_at_its_line(tmp_path: Path) -> None:
    ops = batch(tmp_path)
    line = person_entry(ops[0], "ask%00x")
    err = only_error(rebuild(tmp_path), ops[0])
    assert (err.rule, err.location.line) == ("URL-FORM", line)


def test_a_non_utf8_template_name_is_a_finding(tmp_path: Path) -> None:
    ops = batch(tmp_path)
    (ops[0].parent / "templates").mkdir()
    open(os.fsencode(ops[0].parent / "templates") + b"/\xff", "w").close()
    err = only_error(rebuild(tmp_path), ops[0])
    assert err.rule == "PAGE-TEMPLATE" and "not UTF-8" in err.message


def test_an_operator_file_linked_to_a_non_utf8_name_is_a_finding(tmp_path: Path) -> None:
    ops = batch(tmp_path)
    odd = os.fsencode(ops[0].parent) + b"/\xff.yaml"
    os.rename(ops[0], odd)
    ops[0].symlink_to(os.fsdecode(odd))
    res = rebuild(tmp_path)
    failed = [o for o in res.outcomes if not o.built]
    assert len(failed) == 1 and [f.rule for f in failed[0].report.errors] == ["FILE"]
    assert "not UTF-8" in failed[0].report.errors[0].message


def test_an_unexpected_exception_is_acap_bug_for_that_tenant_only(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ops = write_operators(tmp_path / "ops", 3)
    from acap.builder.batch import _build

    real = _build.input_digest

    def crash(cfg: Any, hashes: Any = None) -> str:
        if "op00000" in str(cfg.path):
            raise RuntimeError("boom")
        return real(cfg, hashes)

    monkeypatch.setattr(_build, "input_digest", crash)
    res = build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=tmp_path / "site",
                                  jobs=1))
    err = only_error(res, ops[0])
    assert err.rule == "ACAP-BUG"
    assert "bug in acap" in err.message and "op00000" in err.message
    assert sorted(h for o in res.outcomes if o.built for h in o.hosts) == \
        ["op1.example", "op2.example"]


# -- LOW 8: templates/ itself is confined to the tenant's folder -------------------------

def test_templates_linked_to_another_tenants_folder_are_not_used(tmp_path: Path) -> None:
    ops = batch(tmp_path)
    (ops[1].parent / "footer.html").write_text("B's private note", encoding="utf-8")
    (ops[0].parent / "templates").symlink_to("../op00001")
    err = only_error(rebuild(tmp_path), ops[0])
    assert err.rule == "PAGE-TEMPLATE" and "leads out" in err.message
    assert err.location.file == str(ops[0])
    site = tmp_path / "site" / "op0.example"
    assert not any("B's private note" in p.read_text(encoding="utf-8", errors="replace")
                   for p in site.rglob("*.html"))
