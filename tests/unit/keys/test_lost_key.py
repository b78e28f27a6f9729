"""A lost key is never silently replaced under the same kid (trial report item 5).

``rm .acap/signing-key.pem; acap build`` made a new key still called chapel-1:
clients that cached the card or the JWKS would see another key under a kid they
know. Now the build refuses (KEY) and says how to go on: ``acap keys rotate
--lost`` keeps the published public key of chapel-1 in keys/previous-keys.json
and gives the new key the kid chapel-2; after it, the build works, and cards
signed with the lost key still verify against the new JWKS.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from acap.card import verify_card
from acap.cli import report_text
from acap.keys import SigningKey
from acap.keys._store import same_public_key
from support.cards import CARD, JWKS, acap, new_private, pem, set_key_file, tree

REFUSAL = ("kid chapel-1 was published with another key (site/example.com/.well-known/"
           "jwks.json); clients that cached the card would see a different key under the same "
           "kid [KEY]")
HINT = ("    hint: if the old key is lost, run `acap keys rotate --lost`: it keeps the published "
        "public key of chapel-1 in keys/previous-keys.json (cards signed with it still verify) "
        "and gives the new key the kid chapel-2 (signing.kid); ")


def _build(config: Path, env: dict[str, str] | None = None) -> tuple[int, str]:
    res = acap("build", "-c", str(config), "--no-spec-site", env=env)
    return res.exit_code, res.stderr


def _kid_line(config: Path) -> int:
    return config.read_text(encoding="utf-8").splitlines().index("  kid: chapel-1") + 1


def _first_build(example: Path) -> tuple[Path, bytes, dict[str, object]]:
    code, err = _build(example)
    assert code == 0, err
    site = example.parent / "site"
    old_card = example.parent / "old-card.json"
    old_card.write_bytes((site / CARD).read_bytes())
    old_jwk = json.loads((site / JWKS).read_bytes())["keys"][0]
    return old_card, (site / CARD).read_bytes(), old_jwk


def test_lost_key_file_is_refused_then_rotated_and_old_cards_still_verify(example: Path) -> None:
    old_card, _, old_jwk = _first_build(example)
    site = example.parent / "site"
    key_file = example.parent / ".acap" / "signing-key.pem"
    key_file.unlink()
    line = _kid_line(example)
    before = tree(site)

    code, err = _build(example)
    assert code == 1
    assert f"{example}:{line}:8: error: {REFUSAL}" in err
    assert HINT + "if it is not lost, put the old key back at .acap/signing-key.pem" in err
    assert not key_file.exists()  # no new key made under the published kid
    assert tree(site) == before

    res = acap("keys", "rotate", "--lost", "-c", str(example))
    assert res.exit_code == 0, res.stderr
    assert res.stdout.strip() == (
        "kept the published public key of chapel-1 in keys/previous-keys.json, so cards signed "
        "with it still verify; signing.kid is now chapel-2, and a new key was written at "
        ".acap/signing-key.pem. Run `acap build` and `acap publish` now.")
    assert "  kid: chapel-2" in example.read_text(encoding="utf-8").splitlines()
    previous = json.loads((example.parent / "keys/previous-keys.json").read_bytes())
    assert previous == {"keys": [old_jwk]}
    assert key_file.stat().st_mode & 0o777 == 0o600

    code, err = _build(example)
    assert code == 0, err
    new_jwks = json.loads((site / JWKS).read_bytes())
    assert [k["kid"] for k in new_jwks["keys"]] == ["chapel-2", "chapel-1"]
    assert new_jwks["keys"][1] == old_jwk
    assert verify_card(str(site / CARD)).ok  # the new card, kid chapel-2
    old = verify_card(str(old_card), str(site / JWKS))  # a cached old card
    assert old.ok, report_text(old.report)
    assert [(s.kid, s.valid) for s in old.signatures] == [("chapel-1", True)]


def test_a_new_key_file_made_after_the_loss_is_kept_under_a_new_kid(example: Path) -> None:
    old_card, _, _ = _first_build(example)
    key_file = example.parent / ".acap" / "signing-key.pem"
    key_file.unlink()
    assert acap("keys", "new", "-c", str(example)).exit_code == 0
    made = key_file.read_bytes()

    code, err = _build(example)  # the loaded key differs from the published one
    assert code == 1
    assert REFUSAL in err

    # plain rotate would drop the published key: refused, pointing at --lost
    res = acap("keys", "rotate", "-c", str(example))
    assert res.exit_code == 1
    assert ("error: .acap/signing-key.pem holds another key than the one published under kid "
            "chapel-1 (site/example.com/.well-known/jwks.json); rotating would drop the "
            "published one\n    hint: if the published key is lost, run `acap keys rotate "
            "--lost`") in res.stderr

    res = acap("keys", "rotate", "--lost", "-c", str(example))
    assert res.exit_code == 0, res.stderr
    assert "the key in .acap/signing-key.pem signs under it" in res.stdout
    assert key_file.read_bytes() == made
    assert _build(example)[0] == 0
    assert verify_card(str(old_card), str(example.parent / "site" / JWKS)).ok


def test_a_new_key_in_the_environment_is_refused_then_kept_under_a_new_kid(example: Path) -> None:
    old_card, _, _ = _first_build(example)
    (example.parent / ".acap" / "signing-key.pem").unlink()
    env = {"ACAP_SIGNING_KEY": pem(new_private("ES256")).decode()}

    code, err = _build(example, env)
    assert code == 1
    assert REFUSAL in err
    assert HINT + "if it is not lost, put the old key back in ACAP_SIGNING_KEY" in err

    res = acap("keys", "rotate", "--lost", "-c", str(example), env=env)
    assert res.exit_code == 0, res.stderr
    assert "the key in ACAP_SIGNING_KEY signs under it" in res.stdout
    assert not (example.parent / ".acap" / "signing-key.pem").exists()
    assert _build(example, env)[0] == 0
    assert verify_card(str(old_card), str(example.parent / "site" / JWKS)).ok


def test_rotate_lost_refuses_a_key_that_is_not_lost(example: Path) -> None:
    _first_build(example)
    before = example.read_bytes()
    res = acap("keys", "rotate", "--lost", "-c", str(example))
    assert res.exit_code == 1
    assert ("error: the key of kid chapel-1 is not lost: .acap/signing-key.pem holds it\n"
            "    hint: to replace a key you still have, run `acap keys rotate`") in res.stderr
    assert example.read_bytes() == before
    assert not (example.parent / "keys").exists()


def test_rotate_lost_without_a_published_key_has_nothing_to_keep(example: Path) -> None:
    res = acap("keys", "rotate", "--lost", "-c", str(example))
    assert res.exit_code == 1
    assert "no key was published under kid chapel-1" in res.stderr


def test_the_same_key_builds_again(example: Path) -> None:
    _, card, _ = _first_build(example)
    assert _build(example)[0] == 0
    assert (example.parent / "site" / CARD).read_bytes() == card


def test_a_kid_kept_in_previous_keys_is_not_reused_for_another_key(example: Path) -> None:
    """A previous key under the current kid: that kid named another key already."""
    set_key_file(example, new_private("ES256"))
    keys_dir = example.parent / "keys"
    keys_dir.mkdir()
    old = SigningKey(new_private("ES256"), "ES256", "chapel-1").public_jwk()
    (keys_dir / "previous-keys.json").write_text(json.dumps({"keys": [old]}), encoding="utf-8")
    code, err = _build(example)
    assert code == 1
    assert ("kid chapel-1 was published with another key (keys/previous-keys.json); clients "
            "that cached the card would see a different key under the same kid [KEY]") in err
    assert "gives the new key the kid chapel-2" in err
    res = acap("keys", "rotate", "--lost", "-c", str(example))
    assert res.exit_code == 0, res.stderr
    assert "the key in .acap/signing-key.pem signs under it" in res.stdout
    assert json.loads((keys_dir / "previous-keys.json").read_bytes()) == {"keys": [old]}
    assert _build(example)[0] == 0


def test_same_public_key() -> None:
    private = new_private("RS256")
    rs = SigningKey(private, "RS256", "k").public_jwk()
    ps = SigningKey(private, "PS256", "k").public_jwk()
    other = SigningKey(new_private("RS256"), "RS256", "k").public_jwk()
    bare = {k: v for k, v in rs.items() if k not in ("alg", "use", "kid")}
    assert same_public_key(rs, dict(rs, kid="other"))  # the kid is not part of the key
    assert same_public_key(rs, bare)  # alg left out by hand
    assert not same_public_key(rs, ps)  # same numbers, another algorithm
    assert not same_public_key(rs, other)
    assert not same_public_key({"kty": "EC"}, {"kty": "EC"})  # not a key at all


def test_a_mistyped_key_file_gets_a_did_you_mean_before_any_rotate_advice(
        example: Path) -> None:
    """Issue 15: ``keyFile: .acap/signing-kye.pem`` after a published build was answered
    with ``acap keys rotate --lost``; the key is not lost, its name is mistyped."""
    _first_build(example)
    site = example.parent / "site"
    before = tree(site)
    text = example.read_text(encoding="utf-8")
    example.write_text(text.replace("keyFile: .acap/signing-key.pem",
                                    "keyFile: .acap/signing-kye.pem"), encoding="utf-8")
    line = example.read_text(encoding="utf-8").splitlines().index(
        "  keyFile: .acap/signing-kye.pem") + 1
    code, err = _build(example)
    assert code == 1
    assert err.splitlines()[:2] == [
        f"{example}:{line}:12: error: the signing key file .acap/signing-kye.pem does not "
        "exist; did you mean .acap/signing-key.pem? [KEY]",
        "    hint: write keyFile: .acap/signing-key.pem"]
    assert "rotate" not in err
    assert tree(site) == before
    assert not (example.parent / ".acap" / "signing-kye.pem").exists()  # no new key made


def test_a_mistyped_key_file_in_a_first_build_makes_no_new_key(example: Path) -> None:
    set_key_file(example, new_private("ES256"))
    text = example.read_text(encoding="utf-8")
    example.write_text(text.replace("keyFile: .acap/signing-key.pem",
                                    "keyFile: acap/signing-key.pem"), encoding="utf-8")
    code, err = _build(example)
    assert code == 1
    assert "the signing key file acap/signing-key.pem does not exist; did you mean " \
        ".acap/signing-key.pem? [KEY]" in err
    assert not (example.parent / "acap").exists()


def test_a_key_file_outside_the_project_gets_no_suggestion(example: Path,
                                                           tmp_path_factory: Any) -> None:
    """A did-you-mean never names files outside the operator's own folder."""
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    set_key_file(elsewhere / "operator.yaml", new_private("ES256"), "keys/signing-key.pem")
    text = example.read_text(encoding="utf-8")
    example.write_text(text.replace("keyFile: .acap/signing-key.pem",
                                    f"keyFile: {elsewhere}/keys/signing-kye.pem"),
                       encoding="utf-8")
    res = acap("build", "-c", str(example), "--no-spec-site", "--no-pages", "--site-dir",
               str(example.parent / "out"))
    assert "did you mean" not in res.stderr
    assert "signing-key.pem" not in res.stderr
