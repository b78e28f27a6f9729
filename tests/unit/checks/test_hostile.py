"""Hostile inputs give a clean finding, quickly, and never a traceback.

The one-second bound is a safety limit against runaway parsing (an alias bomb
expanding, a 10 MB file read whole), not a benchmark.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from acap.builder import BuildOptions, build
from acap.checks import check_card
from acap.cli import cli, report_text
from support.hostile import CARD, OPERATOR

SAFETY_BOUND_S = 1.0


@pytest.mark.parametrize("name", sorted(OPERATOR))
def test_hostile_operator_yaml(name: str, tmp_path: Path) -> None:
    raw, rule = OPERATOR[name]
    config = tmp_path / "operator.yaml"
    config.write_bytes(raw)
    build(BuildOptions(config=config, write=False))  # warm up: schemas compile once per process
    start = time.perf_counter()
    result = build(BuildOptions(config=config, write=False))
    elapsed = time.perf_counter() - start
    assert elapsed < SAFETY_BOUND_S
    assert rule in {f.rule for f in result.report.errors}, report_text(result.report)
    assert all(f.location.file == str(config) for f in result.report)
    assert not (tmp_path / "site").exists()


@pytest.mark.parametrize("name", sorted(OPERATOR))
def test_hostile_operator_yaml_on_the_command_line(name: str, tmp_path: Path) -> None:
    raw, rule = OPERATOR[name]
    config = tmp_path / "operator.yaml"
    config.write_bytes(raw)
    res = CliRunner().invoke(cli, ["build", "-c", str(config), "--format", "json"])
    assert res.exit_code == 1, res.output
    assert res.exception is None or isinstance(res.exception, SystemExit)
    assert "Traceback" not in res.output
    assert f'"rule": "{rule}"' in res.output


def test_missing_operator_yaml(tmp_path: Path) -> None:
    result = build(BuildOptions(config=tmp_path / "nowhere.yaml", write=False))
    assert [f.rule for f in result.report.errors] == ["FILE"]


@pytest.mark.parametrize("name", sorted(CARD))
def test_hostile_card(name: str, tmp_path: Path) -> None:
    raw, rule = CARD[name]
    card = tmp_path / "card.json"
    card.write_bytes(raw)
    check_card(str(card))  # warm up
    start = time.perf_counter()
    result = check_card(str(card))
    elapsed = time.perf_counter() - start
    assert elapsed < SAFETY_BOUND_S
    rules = {f.rule for f in result.report.errors}
    assert rule in rules, report_text(result.report)
    assert "ACAP-BUG" not in rules, report_text(result.report)


@pytest.mark.parametrize("name", sorted(CARD))
def test_hostile_card_on_the_command_line(name: str, tmp_path: Path) -> None:
    raw, rule = CARD[name]
    card = tmp_path / "card.json"
    card.write_bytes(raw)
    res = CliRunner().invoke(cli, ["check", str(card), "--format", "json"])
    assert res.exit_code == 1, res.output
    assert res.exception is None or isinstance(res.exception, SystemExit)
    assert "Traceback" not in res.output
    assert f'"rule": "{rule}"' in res.output


def test_one_clear_finding_for_a_card_that_is_not_json(tmp_path: Path) -> None:
    card = tmp_path / "card.json"
    card.write_bytes(b"<html><body>Not found</body></html>")
    result = check_card(str(card))
    assert [(f.rule, f.location.line) for f in result.report] == [("CARD-JSON", 1)]


def test_missing_card_file(tmp_path: Path) -> None:
    result = check_card(str(tmp_path / "nowhere.json"))
    assert [f.rule for f in result.report] == ["CARD-READ"]
