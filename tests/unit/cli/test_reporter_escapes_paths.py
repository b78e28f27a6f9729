"""Paths printed by the batch and publish reports are escaped (attack-report MEDIUM 4, LOW 7).

A tenant names its own files, and a file of site/ is named by a URL path: a line break
or an escape sequence there must not rewrite the terminal or a CI log.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from acap.cli._reporters import TextReporter
from acap.publisher import HostResult, Plan, PublishResult, Target
from support.cards import acap
from support.paths import REPO

sys.path.insert(0, str(REPO / "bench"))
from generate import write_operators

HOSTILE = "x\n\x1b[2J\x1b[Hall good\r0 errors.yaml"


def test_a_tenants_file_name_is_escaped_in_the_batch_report(tmp_path: Path) -> None:
    ops = write_operators(tmp_path / "ops", 2)
    real = ops[0].parent / HOSTILE
    ops[0].rename(real)
    ops[0].symlink_to(HOSTILE)
    text = real.read_text(encoding="utf-8")
    real.write_text(text.replace("operator:\n", "operator:\n  colour: red\n", 1),
                    encoding="utf-8")
    res = acap("build", str(tmp_path / "ops"), "--site-dir", str(tmp_path / "site"))
    lines = res.stderr.splitlines()
    assert not any(c in res.stderr for c in "\x1b\r"), res.stderr
    not_built = [ln for ln in lines if ln.startswith("not built: ")]
    assert len(not_built) == 1 and "all good" in not_built[0], res.stderr
    assert not any(ln.startswith("all good") for ln in lines)


def test_plan_paths_and_targets_are_escaped(capsys: pytest.CaptureFixture[str],
                                            tmp_path: Path) -> None:
    target = Target("op0.example", "dir", dir=tmp_path / "www\x1b]0;x\x07")
    result = PublishResult(hosts=[HostResult(target, Plan(added=["ask\x1b]0;owned\x07"],
                                                          changed=["a\nb/index.html"]),
                                             outcome="dry run")])
    TextReporter().publish(result, dry_run=True)
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out
    lines = out.splitlines()
    assert len(lines) == 3 and lines[1].startswith("  + ask") and lines[2].startswith("  ~ a")
