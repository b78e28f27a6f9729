"""A kid names one key for good (second trial report, item 3).

The trial lost a published kid without a word three ways: (a) the key file
removed and ``signing.kid`` set to chapel-2: the JWKS became ``[chapel-2]``;
(b) the same with an Ed25519 key in ``ACAP_SIGNING_KEY`` under ``ed-1``; (c)
``keys rotate``, ``keys retire chapel-1``, build, then ``kid: chapel-1`` on the
current key: it built, and an old cached card showed chapel-1 INVALID. Now a
kid that leaves the JWKS without being retired is a KEY warning (on every build
until it is kept or retired), and a retired kid, or a kid published with
another key, is refused (KEY error).
"""

from __future__ import annotations

import json
from pathlib import Path

from acap.builder._build import BuildResult
from acap.card import verify_card
from acap.cli import report_text
from acap.keys import SigningKey
from acap.site import read_manifest
from support.cards import CARD, JWKS, acap, new_private, pem, run_build, set_key_file, tree

PREV = Path("keys/previous-keys.json")


def _kid_line(config: Path, kid: str) -> int:
    return config.read_text(encoding="utf-8").splitlines().index(f"  kid: {kid}") + 1


def _set_kid(config: Path, old: str, new: str) -> None:
    text = config.read_text(encoding="utf-8")
    assert text.count(f"  kid: {old}\n") == 1
    config.write_text(text.replace(f"  kid: {old}\n", f"  kid: {new}\n"), encoding="utf-8")


def _first_build(example: Path) -> Path:
    """Build with a key made here; returns a copy of the card (as a client caches it)."""
    set_key_file(example, new_private("ES256"))
    res = run_build(example)
    assert res.ok, report_text(res.report)
    cached = example.parent / "cached-card.json"
    cached.write_bytes((example.parent / "site" / CARD).read_bytes())
    return cached


def _kids(example: Path) -> list[str]:
    return [k["kid"] for k in json.loads((example.parent / "site" / JWKS).read_bytes())["keys"]]


def _key_findings(res: BuildResult) -> list[tuple[str, str, int | None, str]]:
    return [(f.level, f.location.file, f.location.line, f.message)
            for f in res.report if f.rule == "KEY"]


def dropped(kid: str, where: str) -> str:
    return (f"kid {kid} was published ({where}) and is not in this build's JWKS: cards that "
            "clients cached, signed with it, will stop verifying")


def test_a_lost_key_is_not_replaced_by_a_new_one_until_its_kid_is_kept(example: Path) -> None:
    """The trial's case (a): the key file removed and signing.kid set to chapel-2. A new
    key would replace the published one without a rotation (issue 20, item 4): the build
    refuses, and says how to keep chapel-1's public key; once kept, the new key is made."""
    cached = _first_build(example)
    (example.parent / ".acap" / "signing-key.pem").unlink()
    _set_kid(example, "chapel-1", "chapel-2")
    line = _kid_line(example, "chapel-2")

    res = run_build(example)
    assert not res.ok and not (example.parent / ".acap" / "signing-key.pem").exists()
    [f] = [f for f in res.report if f.rule == "KEY"]
    key_line = next(i for i, t in enumerate(example.read_text("utf-8").splitlines(), 1)
                    if t.startswith("  keyFile:"))
    assert (f.level, f.location.file, f.location.line) == ("error", str(example), key_line)
    assert f.message == (
        "this computer has no signing key (.acap/signing-key.pem), but this project's card was "
        "published with kid chapel-1 (site/example.com/.well-known/jwks.json): a new key would "
        "replace the live card's key without a rotation, and clients that cached the card "
        "would see a key they cannot check")
    assert "acap keys rotate --lost --old-kid chapel-1" in (f.hint or "")

    out = acap("keys", "rotate", "--lost", "--old-kid", "chapel-1", "-c", str(example))
    assert out.exit_code == 0, out.stderr
    assert out.stdout.strip() == (
        "kept the published public key of chapel-1 in keys/previous-keys.json, so cards signed "
        "with it still verify; the current key is unchanged. Run `acap build` and `acap "
        "publish` now.")
    assert _kid_line(example, "chapel-2") == line  # operator.yaml unchanged
    kept = run_build(example)
    assert kept.ok and _key_findings(kept) == []
    assert _kids(example) == ["chapel-2", "chapel-1"]
    assert verify_card(str(cached), str(example.parent / "site" / JWKS)).ok


def test_a_kid_dropped_for_an_environment_key_then_retired(example: Path) -> None:
    cached = _first_build(example)
    _set_kid(example, "chapel-1", "ed-1")
    env_key = pem(new_private("EdDSA")).decode()
    out = acap("build", "-c", str(example), "--no-spec-site", env={"ACAP_SIGNING_KEY": env_key})
    assert out.exit_code == 0
    assert (f"{example}:{_kid_line(example, 'ed-1')}:8: warning: "
            + dropped("chapel-1", "site/example.com/.well-known/jwks.json") + " [KEY]") \
        in out.stderr

    ret = acap("keys", "retire", "chapel-1", "-c", str(example))
    assert ret.exit_code == 0, ret.stderr
    assert ret.stdout.strip() == ("retired chapel-1: it has left the JWKS already; "
                                  "keys/previous-keys.json lists it as retired, so no key takes "
                                  "that kid again")
    assert json.loads((example.parent / PREV).read_bytes()) == {"keys": [],
                                                                "retired": ["chapel-1"]}
    out = acap("build", "-c", str(example), "--no-spec-site", env={"ACAP_SIGNING_KEY": env_key})
    assert out.exit_code == 0 and "[KEY]" not in out.stderr
    manifest = read_manifest(example.parent / "site")
    assert manifest is not None
    assert [k["kid"] for k in manifest.published_keys] == ["ed-1"]
    assert not verify_card(str(cached), str(example.parent / "site" / JWKS)).ok  # deliberately


def test_a_retired_kid_is_not_used_again(example: Path) -> None:
    _first_build(example)
    assert acap("keys", "rotate", "-c", str(example)).exit_code == 0
    assert run_build(example).ok
    assert acap("keys", "retire", "chapel-1", "-c", str(example)).exit_code == 0
    assert run_build(example).ok
    site = example.parent / "site"
    before = tree(site)
    _set_kid(example, "chapel-2", "chapel-1")

    res = run_build(example)
    assert not res.ok and not res.written
    assert _key_findings(res) == [(
        "error", str(example), _kid_line(example, "chapel-1"),
        'kid chapel-1 was retired (keys/previous-keys.json lists it under "retired"): a kid '
        "names one key for good, and clients may still hold cards signed under it")]
    assert [f.hint for f in res.report if f.rule == "KEY"] == [
        "give the key a new kid: signing.kid: chapel-3"]
    assert tree(site) == before

    _set_kid(example, "chapel-1", "chapel-2")
    out = acap("keys", "rotate", "--kid", "chapel-1", "-c", str(example))
    assert out.exit_code == 1
    assert "kid 'chapel-1' is already used (retired)" in out.stderr


def test_a_previous_key_under_a_retired_kid_is_refused(example: Path) -> None:
    _first_build(example)
    assert acap("keys", "rotate", "-c", str(example)).exit_code == 0
    prev_file = example.parent / PREV
    doc = json.loads(prev_file.read_bytes())
    doc["retired"] = ["chapel-1"]  # retired by hand, the key left in "keys"
    prev_file.write_text(json.dumps(doc), encoding="utf-8")
    res = run_build(example)
    assert _key_findings(res) == [(
        "error", "keys/previous-keys.json", None,
        "keys/previous-keys.json keeps a key under kid chapel-1, which it also lists as retired: "
        "a retired kid is not published again")]
    assert not res.written


def test_a_previous_key_under_a_kid_published_with_another_key_is_refused(
        example: Path) -> None:
    _first_build(example)
    assert acap("keys", "rotate", "-c", str(example)).exit_code == 0
    prev_file = example.parent / PREV
    doc = json.loads(prev_file.read_bytes())
    doc["keys"] = [SigningKey(new_private("ES256"), "ES256", "chapel-1").public_jwk()]
    prev_file.write_text(json.dumps(doc), encoding="utf-8")
    res = run_build(example)
    assert _key_findings(res) == [(
        "error", "keys/previous-keys.json", None,
        "keys/previous-keys.json keeps another key under kid chapel-1 than the one published "
        "under it (site/example.com/.well-known/jwks.json): clients that cached a card signed "
        "under it would check it against the wrong key")]
    assert not res.written


def test_retire_refuses_the_current_kid_and_unknown_kids(example: Path) -> None:
    _first_build(example)
    out = acap("keys", "retire", "chapel-1", "-c", str(example))
    assert out.exit_code == 1
    assert "error: kid 'chapel-1' is the current key's" in out.stderr
    out = acap("keys", "retire", "chapel-9", "-c", str(example))
    assert out.exit_code == 1
    assert "no previous key has kid 'chapel-9', and no build published it" in out.stderr
    assert not (example.parent / PREV).exists()


def test_old_kid_must_have_been_published(example: Path) -> None:
    _first_build(example)
    out = acap("keys", "rotate", "--lost", "--old-kid", "chapel-0", "-c", str(example))
    assert out.exit_code == 1
    assert "no key was published under kid chapel-0 (looked in site/)" in out.stderr
    assert acap("keys", "rotate", "--old-kid", "x", "-c", str(example)).exit_code == 2


def _build_with_kid(example: Path, old: str, new: str) -> tuple[BuildResult, int]:
    """Build again with ``signing.kid`` changed from ``old`` to ``new``: the result and the
    kid's line."""
    from support.cards import run_build

    text = example.read_text(encoding="utf-8")
    example.write_text(text.replace(f"  kid: {old}\n", f"  kid: {new}\n"), encoding="utf-8")
    return run_build(example), text.splitlines().index(f"  kid: {old}") + 1


def test_renaming_the_kid_of_the_same_key_says_so(example: Path) -> None:
    """Trial 5: a new signing.kid for the same key was told to `rotate --lost`."""
    from support.cards import run_build

    assert run_build(example).ok
    res, line = _build_with_kid(example, "chapel-1", "'12'")
    [w] = [f for f in res.report.warnings if f.rule == "KEY"]
    assert "this key was published as kid chapel-1" in w.message
    assert "now signs as kid 12" in w.message
    assert w.hint is not None and "write signing.kid: chapel-1 again" in w.hint
    assert w.location.line == line


def test_setting_the_kid_back_to_an_older_one_says_which_kid_this_key_has(
        example: Path) -> None:
    """Trial 6: after a rotation (chapel-1 -> chapel-2), signing.kid put back to chapel-1
    was told to rotate --lost or put the old key back; the fix is the current kid."""
    from support.cards import acap, run_build

    assert run_build(example).ok
    assert acap("keys", "rotate", "-c", str(example)).exit_code == 0
    assert run_build(example).ok
    res, line = _build_with_kid(example, "chapel-2", "chapel-1")
    [err] = [f for f in res.report.errors if f.rule == "KEY"]
    assert "this key was published as kid chapel-2" in err.message
    assert err.hint == "write signing.kid: chapel-2 again"
    assert err.location.line == line
