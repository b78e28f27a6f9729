"""operator.private.yaml is judged before it is read, and never quoted (attack-report HIGH 1)."""

from __future__ import annotations

import os
from pathlib import Path

from acap.builder import check_operator_file
from support.paths import REPO

OPERATOR = REPO / "tests" / "cases" / "operator" / "private-values-faults.yaml"


def project(tmp_path: Path) -> Path:
    op = tmp_path / "operator.yaml"
    op.write_text(OPERATOR.read_text(encoding="utf-8"), encoding="utf-8")
    return op


def test_a_value_of_the_wrong_shape_is_named_by_key_and_line_never_quoted(
        tmp_path: Path) -> None:
    op = project(tmp_path)
    (tmp_path / "operator.private.yaml").write_text(
        'service-pricing: "hunter2-secret"\n', encoding="utf-8")
    findings = check_operator_file(op).report.findings
    [f] = [f for f in findings if f.rule == "SCHEMA-TYPE"]
    assert f.location.file.endswith("operator.private.yaml") and f.location.line == 1
    assert "'service-pricing'" in f.message
    assert all("hunter2" not in g.message and "hunter2" not in (g.hint or "")
               for g in findings)


def test_a_private_file_linked_out_of_the_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "p").mkdir()
    op = project(tmp_path / "p")
    (tmp_path / "out.yaml").write_text('service-pricing: ["£2,450"]\n', encoding="utf-8")
    (tmp_path / "p" / "operator.private.yaml").symlink_to(tmp_path / "out.yaml")
    [f] = [f for f in check_operator_file(op).report.findings if f.rule == "PRIVATE-VALUES"]
    assert f.level == "error" and "leads out of the project folder" in f.message
    assert f.location.file.endswith("operator.private.yaml")


def test_a_device_or_folder_as_private_file_is_an_error(tmp_path: Path) -> None:
    op = project(tmp_path)
    private = tmp_path / "operator.private.yaml"
    private.mkdir()
    [f] = [f for f in check_operator_file(op).report.findings if f.rule == "PRIVATE-VALUES"]
    assert "a folder" in f.message
    os.rmdir(private)
    private.symlink_to("/dev/zero")
    [f] = [f for f in check_operator_file(op).report.findings if f.rule == "PRIVATE-VALUES"]
    assert f.level == "error"
