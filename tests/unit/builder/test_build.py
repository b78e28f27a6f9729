"""Issue 2, items 6 and 9: an atomic, deterministic build, and the ``acap build`` command.

* A failed build (an operator.yaml error after a good build; a write failure
  injected into site.write_site, before or during the swap) leaves the previous
  site/ byte for byte, and no temporary folder behind.
* Two builds with the same key give byte-identical files for ES256, EdDSA and
  RS256; for PS256 (randomised, RFC 8017 §9.1) only the signature differs.
* Re-signing replaces ``signatures``; it never appends.
* ``-c FILE`` and ``--site-dir DIR`` work from any folder; ``python -m acap`` works;
  exit status 0, 1, 2.
"""

from __future__ import annotations

import copy
import errno
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from acap.card import Signer
from acap.cli import report_text
from acap.site import _files as site_module
from support.cards import (
    ALGS,
    CARD,
    JWKS,
    acap,
    acap_process,
    new_private,
    run_build,
    set_key_file,
    tree,
    with_algorithm,
)


def good_build(example: Path, alg: str = "ES256") -> dict[str, bytes]:
    set_key_file(example, new_private(alg))
    if alg.startswith(("RS", "PS")):
        with_algorithm(example, alg)
    result = run_build(example)
    assert result.ok and result.written, report_text(result.report)
    return tree(example.parent / "site")


def siblings(example: Path) -> list[str]:
    return sorted(p.name for p in example.parent.iterdir())


# -- atomic -------------------------------------------------------------------------------------

def test_operator_error_after_a_good_build_leaves_site_as_it_was(example: Path) -> None:
    before = good_build(example)
    names = siblings(example)
    text = example.read_text(encoding="utf-8")
    example.write_text(text.replace("  streaming: false\n", "  streaming: maybe\n"),
                       encoding="utf-8")
    res = acap("build", "-c", str(example), "--no-spec-site")
    assert res.exit_code == 1
    assert "'streaming' must be true or false, found the text 'maybe'" in res.stderr
    assert f"not built: errors in {example}; {example.parent / 'site'} was left as it was" \
        in res.stderr
    assert tree(example.parent / "site") == before
    assert siblings(example) == names


def test_write_failure_before_the_swap_leaves_site_as_it_was(
        example: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before = good_build(example)
    names = siblings(example)
    real = os.open

    def failing(path: str, flags: int, *args: object, **kwargs: object) -> int:
        if flags & os.O_CREAT and Path(path).name == "jwks.json":
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(path, flags, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", failing)
    result = run_build(example)
    assert not result.ok and not result.written
    [f] = result.report.errors
    assert f.rule == "SITE-WRITE"
    assert f.message == f"cannot write {example.parent / 'site'}: No space left on device"
    monkeypatch.undo()
    assert tree(example.parent / "site") == before
    assert siblings(example) == names  # the half-written folder is gone


def test_failure_during_the_swap_restores_the_previous_site(
        example: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before = good_build(example)
    names = siblings(example)
    real = os.rename

    def failing(src: Any, dst: Any) -> None:
        if Path(src).name.startswith(".site-new-"):
            raise OSError(errno.EXDEV, "Invalid cross-device link")
        real(src, dst)

    monkeypatch.setattr(site_module.os, "rename", failing)
    result = run_build(example)
    assert [f.rule for f in result.report.errors] == ["SITE-WRITE"]
    monkeypatch.undo()
    assert tree(example.parent / "site") == before
    assert siblings(example) == names


def test_a_build_that_fails_in_the_cli_says_so_once(example: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    good_build(example)
    monkeypatch.setattr(site_module.tempfile, "mkdtemp",
                        lambda **kw: (_ for _ in ()).throw(OSError(errno.EACCES,
                                                                   "Permission denied")))
    res = acap("build", "-c", str(example), "--no-spec-site")
    assert res.exit_code == 1
    assert "Permission denied [SITE-WRITE]" in res.stderr
    assert "Traceback" not in res.stderr


def test_stale_files_do_not_survive_a_rebuild(example: Path) -> None:
    """A file the last build wrote and this one does not is gone; a file put into
    site/ by hand is refused (SITE-PATH, named) rather than deleted, unless --force."""
    good_build(example)
    text = example.read_text(encoding="utf-8")
    example.write_text(text.replace("specSite: true", "specSite: false"), encoding="utf-8")
    spec = example.parent / "site" / "agent-capability.org"
    assert run_build(example, spec_site=True).ok and spec.is_dir()
    assert run_build(example).ok
    assert not spec.exists()
    stale = example.parent / "site" / "example.com" / "old-page.html"
    stale.write_text("old", encoding="utf-8")
    res = run_build(example)
    assert [(f.rule, f.level) for f in res.report.errors] == [("SITE-PATH", "error")]
    assert "holds files the last build did not write: example.com/old-page.html;" in \
        res.report.errors[0].message
    assert stale.exists()
    assert run_build(example, force=True).ok
    assert not stale.exists()


# -- deterministic ------------------------------------------------------------------------------

@pytest.mark.parametrize("alg", ["ES256", "EdDSA", "RS256"])
def test_two_builds_are_byte_identical(example: Path, alg: str) -> None:
    first = good_build(example, alg)
    assert run_build(example).ok
    assert tree(example.parent / "site") == first


def test_ps256_builds_differ_only_in_the_signature(example: Path) -> None:
    first = good_build(example, "PS256")
    assert run_build(example).ok
    second = tree(example.parent / "site")
    assert set(first) == set(second)
    changed = {name for name in first if first[name] != second[name]}
    assert changed == {str(CARD), ".acap/manifest.json"}
    a, b = json.loads(first[str(CARD)]), json.loads(second[str(CARD)])
    assert a["signatures"][0]["signature"] != b["signatures"][0]["signature"]
    a["signatures"][0]["signature"] = b["signatures"][0]["signature"]
    assert a == b
    m1, m2 = json.loads(first[".acap/manifest.json"]), json.loads(second[".acap/manifest.json"])
    assert m1["files"].pop(str(CARD)) != m2["files"].pop(str(CARD))
    assert m1 == m2


# -- re-signing ---------------------------------------------------------------------------------

@pytest.mark.parametrize("alg", ALGS)
def test_resigning_replaces_signatures(alg: str) -> None:
    from acap.card import build_card
    from acap.keys import SigningKey
    from acap.load import load_operator
    from support.paths import EXAMPLE

    card = build_card(load_operator(EXAMPLE))
    one = Signer(SigningKey(new_private(alg), alg, "a")).sign(card)
    other = Signer(SigningKey(new_private(alg), alg, "b"))
    two = other.sign(copy.deepcopy(one))
    assert len(two["signatures"]) == 1
    assert json.loads(acap_b64(two["signatures"][0]["protected"]))["kid"] == "b"
    assert list(two)[-1] == "signatures"
    three = other.sign({**card, "signatures": one["signatures"] * 3})
    assert len(three["signatures"]) == 1


def acap_b64(text: str) -> bytes:
    from acap.keys import b64url_decode

    return b64url_decode(text)


def test_rebuilt_card_has_one_signature(example: Path) -> None:
    good_build(example)
    assert run_build(example).ok
    card = json.loads((example.parent / "site" / CARD).read_bytes())
    assert len(card["signatures"]) == 1


# -- the command --------------------------------------------------------------------------------

def test_config_and_site_dir_options_from_another_folder(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch,
                                                         example: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    cfg = project / "chapel.yaml"
    cfg.write_bytes(example.read_bytes())
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    out = tmp_path / "public"
    res = acap("build", "-c", str(cfg), "--site-dir", str(out), "--no-spec-site")
    assert res.exit_code == 0, res.stderr
    assert (out / CARD).is_file() and (out / JWKS).is_file()
    assert (project / ".acap/signing-key.pem").is_file()  # keyFile is relative to the config
    assert not (project / "site").exists()
    assert list(elsewhere.iterdir()) == []
    built, *hosts, card, servers = res.stdout.splitlines()
    assert built.startswith(f"built {out}/ (") and "example.com" in built
    assert hosts == [
        "  ask.example.com: acap's own site: acap publish makes it hold exactly "
        "site/ask.example.com/",
        "  example.com: acap adds its files beside your website there (no index.html or "
        "404.html; acap publish changes no other file)"]
    assert card == "card: https://example.com/.well-known/agent-card.json"
    assert servers == ("web server settings (Apache, nginx, Caddy) for the card: "
                       f"{out}/.servers/example.com/")
    assert sorted(p.name for p in (out / ".servers/example.com").iterdir()) == [
        "Caddyfile", "apache.conf", "nginx.conf"]


def test_default_site_dir_is_beside_the_operator_file(example: Path, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path.parent)
    assert acap("build", "-c", str(example), "--no-spec-site").exit_code == 0
    assert (example.parent / "site" / CARD).is_file()


def test_missing_config_file_exits_1(tmp_path: Path) -> None:
    res = acap("build", "-c", str(tmp_path / "nope.yaml"))
    assert res.exit_code == 1
    assert "[FILE]" in res.stderr


def test_usage_errors_exit_2(example: Path) -> None:
    assert acap("build", "--bogus").exit_code == 2
    assert acap("build", "-c", str(example), "--format", "xml").exit_code == 2
    assert acap("frobnicate").exit_code == 2


def test_strict_fails_on_warnings_and_writes_nothing(example: Path) -> None:
    set_key_file(example, new_private("ES256")).chmod(0o644)  # a warning
    res = acap("build", "-c", str(example), "--no-spec-site", "--strict")
    assert res.exit_code == 1
    assert "not built: warnings fail the build with --strict" in res.stderr
    assert not (example.parent / "site").exists()
    res = acap("build", "-c", str(example), "--no-spec-site")
    assert res.exit_code == 0
    assert (example.parent / "site" / CARD).is_file()


def test_json_format_for_ci(example: Path) -> None:
    text = example.read_text(encoding="utf-8").replace("  version: 1.0.0\n", "  verison: 1\n")
    text = re.sub(r"\n *acceptAssistantsWord: true[^\n]*", "", text)  # so that OR-5.5 warns
    example.write_text(text, encoding="utf-8")
    res = acap("build", "-c", str(example), "--format", "json")
    assert res.exit_code == 1
    doc = json.loads(res.stdout)
    assert doc["errors"] == 2
    # the example's OR-5.5 warning (assistantAccess: true) is reported beside the errors
    assert sorted((f["rule"], f["level"]) for f in doc["findings"]) == [
        ("OR-5.5", "warning"), ("SCHEMA-REQUIRED", "error"), ("SCHEMA-UNKNOWN-KEY", "error")]
    [built] = doc["results"]
    assert (built["hosts"], built["servers"]) == ([], [])  # nothing built
    example.write_text(text.replace("  verison: 1\n", "  version: 1.0.0\n"), encoding="utf-8")
    res = acap("build", "-c", str(example), "--format", "json", "--no-spec-site")
    [built] = json.loads(res.stdout)["results"]
    assert built["hosts"] == [{"host": "ask.example.com", "acap": "whole"},
                              {"host": "example.com", "acap": "adds"}]
    assert built["servers"] == [f"{example.parent / 'site'}/.servers/example.com"]


def test_python_dash_m_acap(example: Path) -> None:
    version = acap_process("--version", cwd=example.parent)
    assert version.returncode == 0
    assert version.stdout.startswith("acap, version ")
    built = acap_process("build", "--no-spec-site", cwd=example.parent)
    assert built.returncode == 0, built.stderr
    assert (example.parent / "site" / CARD).is_file()
    checked = acap_process("verify", str(CARD.parent.parent.parent / "site" / CARD),
                           cwd=example.parent)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert acap_process("build", "--nope", cwd=example.parent).returncode == 2


def test_build_path_imports_no_heavy_library() -> None:
    code = ("import sys, acap.cli._group, acap.builder._build; "
            "print(sorted(m for m in ('jwcrypto', 'phonenumbers', 'jinja2', 'mkdocs', 'a2a') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"


def test_signing_imports_no_jwcrypto(example: Path) -> None:
    """jwcrypto is for reading JWK keys and verifying; a PEM key signs without it."""
    set_key_file(example, new_private("ES256"))
    code = ("import sys; from pathlib import Path; "
            "from acap.builder._build import BuildOptions, build; "
            f"r = build(BuildOptions(config=Path({str(example)!r}), spec_site=False)); "
            "assert r.ok; print(sorted(m for m in ('jwcrypto', 'a2a') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"


# -- a site folder that must not be replaced ----------------------------------------------------

@pytest.mark.parametrize("where", [".", "..", "keys"])
def test_site_dir_that_holds_the_project_is_refused(example: Path, where: str) -> None:
    (example.parent / "keys").mkdir()
    (example.parent / "keys" / "previous-keys.json").write_text('{"keys": []}\n',
                                                                encoding="utf-8")
    set_key_file(example, new_private("ES256"))
    before = tree(example.parent)
    res = acap("build", "-c", str(example), "--site-dir", str(example.parent / where))
    assert res.exit_code == 1
    # The folder holds the key too (for "." and ".."), but what is wrong is the folder:
    # a KEY finding would hint "move it to .acap/signing-key.pem", where it already is.
    assert "which the build reads; a build replaces the whole folder [SITE-PATH]" \
        in res.stderr
    assert "[KEY]" not in res.stderr
    assert tree(example.parent) == before


def test_site_dir_with_other_files_is_refused(example: Path, tmp_path: Path) -> None:
    other = tmp_path / "photos"
    other.mkdir()
    (other / "holiday.jpg").write_bytes(b"\xff\xd8")
    res = acap("build", "-c", str(example), "--site-dir", str(other))
    assert res.exit_code == 1
    assert "is not empty and was not written by acap build" in res.stderr
    assert (other / "holiday.jpg").read_bytes() == b"\xff\xd8"
    empty = tmp_path / "empty"
    empty.mkdir()
    assert acap("build", "-c", str(example), "--site-dir", str(empty)).exit_code == 0
    assert acap("build", "-c", str(example), "--site-dir", str(empty)).exit_code == 0


def test_a_card_acap_cannot_build_is_reported_as_a_bug(example: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    import acap.builder._steps

    def broken(cfg: Any) -> dict[str, Any]:
        raise ValueError("a signIn entry names no kind of scheme")

    monkeypatch.setattr(acap.builder._steps, "build_card", broken)
    result = run_build(example)
    [f] = result.report.errors
    assert f.rule == "ACAP-BUG"
    assert f.message == ("the card could not be built from a checked operator.yaml: ValueError: "
                         "a signIn entry names no kind of scheme")
    assert f.hint is not None and f.hint.startswith("this is a bug in acap")
    assert not (example.parent / "site").exists()


def test_site_dir_holding_the_project_is_refused_with_a_key_from_the_environment(
        example: Path) -> None:
    from support.cards import pem

    before = tree(example.parent)
    res = acap("build", "-c", str(example), "--site-dir", str(example.parent),
               env={"ACAP_SIGNING_KEY": pem(new_private("ES256")).decode()})
    assert res.exit_code == 1
    assert "holds operator.yaml, which the build reads; a build replaces the whole folder " \
        "[SITE-PATH]" in res.stderr
    assert tree(example.parent) == before


def test_a_check_that_fails_is_an_acap_bug_finding_not_a_traceback(
        example: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A fault of acap's own in the requirement checks is a finding; site/ is not written."""
    import acap.builder._build

    def broken(cfg: Any, tenant: bool = False) -> list[Any]:
        raise KeyError("skills")

    monkeypatch.setattr(acap.builder._build, "check_operator", broken)
    result = run_build(example)
    [f] = result.report.errors
    assert f.rule == "ACAP-BUG" and f.location.file == str(example)
    assert f.message == "the requirement checks failed: KeyError: 'skills'"
    assert not result.written and not (example.parent / "site").exists()
