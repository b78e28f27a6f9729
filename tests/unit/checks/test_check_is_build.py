"""``acap check operator.yaml`` runs exactly the checks of ``acap build`` (issue 21): on
every operator case file, failing and valid, the check and a build of the same folder
give the same findings, rule, level, place and words alike; and the check writes
nothing (no key, no site/), where the build makes its key and may write site/."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from acap.builder import BuildOptions, build, check_operator_file
from acap.findings import Finding
from support.cases import Case, materialise, operator_cases

CASES = operator_cases() + operator_cases(valid=True)


def _said(findings: list[Finding], folder: Path) -> list[tuple[object, ...]]:
    return sorted((f.rule, f.level, os.path.relpath(f.location.file, folder)
                   if f.location.file.startswith(str(folder)) else f.location.file,
                   f.location.line, f.location.column, f.message, f.hint) for f in findings)


def _tree(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_check_of_an_operator_file_is_its_build(case: Case, tmp_path: Path) -> None:
    target = materialise(case.path, tmp_path / "operator.yaml")
    private = case.path.with_name(case.path.stem + ".private.yaml")
    if private.exists():
        shutil.copyfile(private, tmp_path / "operator.private.yaml")
    before = _tree(tmp_path)
    checked = check_operator_file(target)
    assert _tree(tmp_path) == before, "acap check wrote into the project"
    built = build(BuildOptions(config=target, write=False))
    assert _said(checked.findings, tmp_path) == _said(built.report.findings, tmp_path)
    assert checked.ok is built.ok
