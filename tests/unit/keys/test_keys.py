"""Issue 2, item 7: signing keys.

``acap keys new`` writes mode 0600 and never overwrites; the first ``acap build``
creates the key and says so; ``ACAP_SIGNING_KEY`` holds PEM or JWK text; a key
path inside site/ is refused; an RSA key without ``signing.algorithm`` is refused
with a clear finding; ``acap keys rotate`` and ``acap keys retire``; the JWKS
holds public members only; no key material is ever printed or written to site/.
"""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from acap.card import verify_card
from acap.keys import PRIVATE_MEMBERS, public_jwk
from acap.keys._key import parse_private_key
from acap.load import load_operator
from support.cards import (
    ALGS,
    CARD,
    JWKS,
    acap,
    new_private,
    pem,
    private_jwk,
    run_build,
    secret_markers,
    set_key_file,
    tree,
    with_algorithm,
)
from support.paths import SRC

KEY = Path(".acap/signing-key.pem")
PUBLIC_MEMBERS = {"kty", "crv", "x", "y", "n", "e", "kid", "alg", "use"}


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def site_jwks(example: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((example.parent / "site" / JWKS).read_bytes())
    return data


def assert_no_secret(texts: list[str], private: Any) -> None:
    for marker in secret_markers(private):
        for text in texts:
            assert marker not in text, f"key material ({marker[:12]}...) was shown"


def outputs(*results: Result) -> list[str]:
    return [t for r in results for t in (r.stdout, r.stderr)]


# -- acap keys new ------------------------------------------------------------------------------

def test_keys_new_writes_mode_0600_and_never_overwrites(example: Path) -> None:
    first = acap("keys", "new", "-c", str(example))
    assert first.exit_code == 0, first.stderr
    key_path = example.parent / KEY
    assert mode(key_path) == 0o600
    before = key_path.read_bytes()
    private, _, _ = parse_private_key(before)
    assert first.stdout.startswith(f"wrote {key_path} (ES256, fingerprint ")
    second = acap("keys", "new", "-c", str(example))
    assert second.exit_code == 1
    assert "exists; acap never overwrites a key" in second.stderr
    assert key_path.read_bytes() == before
    assert_no_secret(outputs(first, second), private)


@pytest.mark.parametrize("alg", ALGS)
def test_keys_new_out_and_alg(tmp_path: Path, alg: str) -> None:
    out = tmp_path / "k" / "key.pem"
    res = acap("keys", "new", "--out", str(out), "--alg", alg)
    assert res.exit_code == 0
    assert mode(out) == 0o600
    private, hint, _ = parse_private_key(out.read_bytes())
    assert type(private).__name__ == type(new_private(alg)).__name__
    assert hint == (alg if alg in ("RS256", "PS256") else None)
    assert_no_secret(outputs(res), private)


def test_keys_new_unknown_alg_is_a_usage_error(tmp_path: Path) -> None:
    assert acap("keys", "new", "--out", str(tmp_path / "k.pem"), "--alg", "HS256").exit_code == 2


# -- first build --------------------------------------------------------------------------------

def test_first_build_creates_the_key_and_says_so(example: Path) -> None:
    first = acap("build", "-c", str(example), "--no-spec-site")
    assert first.exit_code == 0, first.stderr
    key_path = example.parent / KEY
    assert mode(key_path) == 0o600
    # not in a git repository: no claim that git ignores it (issue 12)
    assert ("note: created a new ES256 signing key at .acap/signing-key.pem (keep it safe and "
            "out of git)\n") in first.stderr
    second = acap("build", "-c", str(example), "--no-spec-site")
    assert second.exit_code == 0
    assert "created" not in second.stderr
    private, _, _ = parse_private_key(key_path.read_bytes())
    jwk = site_jwks(example)["keys"][0]
    assert {k: jwk[k] for k in ("kty", "crv", "x", "y")} == public_jwk(private.public_key())
    assert_no_secret(outputs(first, second) + [b.decode("utf-8", "replace")
                                               for b in tree(example.parent / "site").values()],
                     private)


def test_group_readable_key_is_warned_about(example: Path) -> None:
    path = set_key_file(example, new_private("ES256"))
    path.chmod(0o644)
    result = run_build(example)
    [f] = [f for f in result.report if f.rule == "KEY"]
    assert f.level == "warning"
    assert f.hint == "chmod 600 .acap/signing-key.pem"


# -- ACAP_SIGNING_KEY ---------------------------------------------------------------------------

@pytest.mark.parametrize("alg", ALGS)
@pytest.mark.parametrize("form", ["PEM", "JWK"])
def test_key_from_the_environment(example: Path, alg: str, form: str) -> None:
    private = new_private(alg)
    if form == "PEM":
        text = pem(private).decode()
    else:
        text = json.dumps(private_jwk(private, kid="ignored"))
    if alg.startswith(("RS", "PS")):
        with_algorithm(example, alg)
    res = acap("build", "-c", str(example), "--no-spec-site", env={"ACAP_SIGNING_KEY": text})
    assert res.exit_code == 0, res.stderr
    assert not (example.parent / KEY).exists()  # no key file is created
    jwk = site_jwks(example)["keys"][0]
    assert (jwk["kid"], jwk["alg"]) == ("chapel-1", alg)  # signing.kid wins over the JWK's
    assert {k: v for k, v in jwk.items() if k not in ("kid", "alg", "use")} == \
        public_jwk(private.public_key())
    assert verify_card(str(example.parent / "site" / CARD)).ok
    assert_no_secret(outputs(res) + [b.decode() for b in tree(example.parent / "site").values()],
                     private)


def test_rsa_jwk_in_the_environment_may_name_its_alg(example: Path) -> None:
    private = new_private("PS256")
    text = json.dumps(private_jwk(private, alg="PS256"))
    res = acap("build", "-c", str(example), "--no-spec-site", env={"ACAP_SIGNING_KEY": text})
    assert res.exit_code == 0, res.stderr
    assert site_jwks(example)["keys"][0]["alg"] == "PS256"


def test_bad_environment_key_is_a_finding_without_the_key(example: Path) -> None:
    private = new_private("ES256")
    lines = pem(private).decode().splitlines()
    broken = "\n".join(lines[:2] + lines[-1:])  # header, one body line, footer
    res = acap("build", "-c", str(example), "--no-spec-site", env={"ACAP_SIGNING_KEY": broken})
    assert res.exit_code == 1
    assert ("ACAP_SIGNING_KEY: error: the environment variable ACAP_SIGNING_KEY holds no usable "
            "signing key: this is not a PEM or JWK private key [KEY]") in res.stderr
    assert_no_secret(outputs(res), private)


def test_symmetric_jwk_is_refused(example: Path) -> None:
    text = json.dumps({"kty": "oct", "k": "c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0"})
    res = acap("build", "-c", str(example), "--no-spec-site", env={"ACAP_SIGNING_KEY": text})
    assert res.exit_code == 1
    assert "a symmetric (oct) key cannot sign an Agent Card" in res.stderr
    assert "c2VjcmV0" not in res.stdout + res.stderr


# -- refusals -----------------------------------------------------------------------------------

def test_key_path_inside_site_is_refused(example: Path) -> None:
    text = example.read_text(encoding="utf-8")
    example.write_text(text.replace("keyFile: .acap/signing-key.pem",
                                    "keyFile: site/keys/signing-key.pem"), encoding="utf-8")
    line = example.read_text(encoding="utf-8").splitlines().index(
        "  keyFile: site/keys/signing-key.pem") + 1
    result = run_build(example)
    [f] = result.report.errors
    assert (f.rule, f.location.line, f.location.column) == ("KEY", line, 12)
    assert f.message == ("the signing key file site/keys/signing-key.pem is inside the site "
                         "folder, which is published")
    assert not (example.parent / "site").exists()


def test_key_path_inside_another_site_dir_is_refused(example: Path) -> None:
    text = example.read_text(encoding="utf-8")
    example.write_text(text.replace("keyFile: .acap/signing-key.pem", "keyFile: out/key.pem"),
                       encoding="utf-8")
    res = acap("build", "-c", str(example), "--site-dir", str(example.parent / "out"))
    assert res.exit_code == 1
    assert "is inside the site folder" in res.stderr
    assert not (example.parent / "out").exists()


def test_rsa_key_without_algorithm_is_refused(example: Path) -> None:
    set_key_file(example, new_private("RS256"))
    line = example.read_text(encoding="utf-8").splitlines().index(
        "  keyFile: .acap/signing-key.pem") + 1
    result = run_build(example)
    [f] = result.report.errors
    assert (f.rule, f.location.line) == ("KEY", line)
    assert f.message == (".acap/signing-key.pem: an RSA key can sign RS256 or PS256, and acap "
                         "does not guess")
    assert f.hint == "set signing.algorithm: RS256 (or PS256) in operator.yaml"
    assert not (example.parent / "site").exists()


def test_algorithm_that_does_not_fit_the_key_is_refused(example: Path) -> None:
    set_key_file(example, new_private("ES256"))
    with_algorithm(example, "EdDSA")
    [f] = run_build(example).report.errors
    assert f.message == ".acap/signing-key.pem: the key signs ES256, but EdDSA is named for it"


def test_small_rsa_key_is_refused(example: Path) -> None:
    from cryptography.hazmat.primitives.asymmetric import rsa

    set_key_file(example, rsa.generate_private_key(public_exponent=65537, key_size=1024))
    with_algorithm(example, "RS256")
    [f] = run_build(example).report.errors
    assert f.message == ".acap/signing-key.pem: the RSA key has 1024 bits"


def test_private_member_in_previous_keys_is_refused(example: Path) -> None:
    private = new_private("ES256")
    set_key_file(example, new_private("ES256"))
    prev = example.parent / "keys" / "previous-keys.json"
    prev.parent.mkdir()
    prev.write_text(json.dumps({"keys": [private_jwk(private, kid="old")]}), encoding="utf-8")
    res = acap("build", "-c", str(example), "--no-spec-site")
    assert res.exit_code == 1
    assert "previous-keys.json holds a private key" in res.stderr
    assert_no_secret(outputs(res), private)


# -- rotate and retire --------------------------------------------------------------------------

def test_rotate_then_retire(example: Path, tmp_path: Path) -> None:
    text = example.read_text(encoding="utf-8").replace(
        "  kid: chapel-1\n", "  kid: chapel-1        # the key's name in the JWKS\n")
    example.write_text(text, encoding="utf-8")
    first = acap("build", "-c", str(example), "--no-spec-site")
    assert first.exit_code == 0
    key_path = example.parent / KEY
    old_private, _, _ = parse_private_key(key_path.read_bytes())
    old_card = tmp_path / "old-card.json"
    old_card.write_bytes((example.parent / "site" / CARD).read_bytes())

    rot = acap("keys", "rotate", "-c", str(example))
    assert rot.exit_code == 0, rot.stderr
    assert rot.stdout.startswith("rotated: chapel-1 -> chapel-2. chapel-1 stays in the JWKS")
    after = example.read_text(encoding="utf-8")
    assert after == text.replace("  kid: chapel-1        #", "  kid: chapel-2        #")
    assert mode(key_path) == 0o600
    assert (example.parent / ".acap/signing-key.1.old.pem").read_bytes() == pem(old_private)
    new_private_key, _, _ = parse_private_key(key_path.read_bytes())
    assert public_jwk(new_private_key.public_key()) != public_jwk(old_private.public_key())

    second = acap("build", "-c", str(example), "--no-spec-site")
    assert second.exit_code == 0
    keys = site_jwks(example)["keys"]
    assert [k["kid"] for k in keys] == ["chapel-2", "chapel-1"]
    assert {k: keys[1][k] for k in ("kty", "crv", "x", "y")} == \
        public_jwk(old_private.public_key())
    new_check = verify_card(str(example.parent / "site" / CARD))
    assert new_check.ok
    assert new_check.signatures[0].kid == "chapel-2"
    # a client holding the old card can still verify it against the new JWKS
    jwks_path = str(example.parent / "site" / JWKS)
    old_check = verify_card(str(old_card), jwks_path)
    assert old_check.ok
    assert old_check.signatures[0].kid == "chapel-1"

    listed = acap("keys", "list", "-c", str(example))
    assert listed.stdout.splitlines()[0].startswith("current:  kid chapel-2, ES256, fingerprint ")
    assert listed.stdout.splitlines()[1].startswith("previous: kid chapel-1, ES256, fingerprint ")

    ret = acap("keys", "retire", "chapel-1", "-c", str(example))
    assert ret.exit_code == 0
    assert acap("build", "-c", str(example), "--no-spec-site").exit_code == 0
    assert [k["kid"] for k in site_jwks(example)["keys"]] == ["chapel-2"]
    assert not verify_card(str(old_card), jwks_path).ok
    again = acap("keys", "retire", "chapel-1", "-c", str(example))
    assert again.exit_code == 1
    assert "kid 'chapel-1' is retired already" in again.stderr
    assert_no_secret(outputs(first, rot, second, listed, ret, again), old_private)
    assert_no_secret(outputs(first, rot, second, listed, ret, again), new_private_key)


def test_rotate_in_flow_style_keeps_the_rest_of_the_line(example: Path) -> None:
    text = example.read_text(encoding="utf-8")
    start = text.index("signing:\n")
    end = text.index("\n\n", start)
    flow = 'signing: {kid: "chapel-1", keyFile: .acap/signing-key.pem}  # flow style'
    example.write_text(text[:start] + flow + text[end:], encoding="utf-8")
    set_key_file(example, new_private("EdDSA"))
    assert acap("keys", "rotate", "-c", str(example)).exit_code == 0
    assert "signing: {kid: chapel-2, keyFile: .acap/signing-key.pem}  # flow style" in \
        example.read_text(encoding="utf-8")
    assert load_operator(example).signing["kid"] == "chapel-2"
    assert parse_private_key((example.parent / KEY).read_bytes())[0].__class__.__name__ == \
        "Ed25519PrivateKey"


def test_rotate_a_kid_without_a_number_changes_nothing(example: Path) -> None:
    example.write_text(example.read_text(encoding="utf-8").replace("kid: chapel-1", "kid: chapel"),
                       encoding="utf-8")
    set_key_file(example, new_private("ES256"))
    before = tree(example.parent)
    res = acap("keys", "rotate", "-c", str(example))
    assert res.exit_code == 1
    assert "cannot derive a new kid from 'chapel'" in res.stderr
    assert "--kid NEW-KID" in res.stderr
    assert tree(example.parent) == before
    assert acap("keys", "rotate", "-c", str(example), "--kid", "chapel-b").exit_code == 0
    assert load_operator(example).signing["kid"] == "chapel-b"


def test_rotate_refuses_a_key_from_the_environment(example: Path) -> None:
    set_key_file(example, new_private("ES256"))
    before = tree(example.parent)
    res = acap("keys", "rotate", "-c", str(example),
               env={"ACAP_SIGNING_KEY": pem(new_private("ES256")).decode()})
    assert res.exit_code == 1
    assert "the signing key comes from ACAP_SIGNING_KEY" in res.stderr
    assert tree(example.parent) == before


def test_rotate_to_a_used_kid_is_refused(example: Path) -> None:
    set_key_file(example, new_private("ES256"))
    assert acap("keys", "rotate", "-c", str(example)).exit_code == 0
    res = acap("keys", "rotate", "-c", str(example), "--kid", "chapel-1")
    assert res.exit_code == 1
    assert "kid 'chapel-1' is already used" in res.stderr


# -- the JWKS -----------------------------------------------------------------------------------

@pytest.mark.parametrize("alg", ALGS)
def test_jwks_has_public_members_only(example: Path, alg: str) -> None:
    set_key_file(example, new_private(alg))
    if alg.startswith(("RS", "PS")):
        with_algorithm(example, alg)
    assert run_build(example).report.ok
    doc = site_jwks(example)
    assert list(doc) == ["keys"]
    for jwk in doc["keys"]:
        assert set(jwk) <= PUBLIC_MEMBERS
        assert not set(jwk) & PRIVATE_MEMBERS
        assert jwk["use"] == "sig"
    assert {"d", "p", "q", "dp", "dq", "qi", "k"} <= PRIVATE_MEMBERS


def test_no_key_material_anywhere_in_site(example: Path) -> None:
    private = new_private("RS256")
    set_key_file(example, private)
    with_algorithm(example, "RS256")
    res = acap("build", "-c", str(example))  # spec site as operator.yaml says: everything
    assert res.exit_code == 0, res.stderr
    files = tree(example.parent / "site")
    assert files
    assert_no_secret([b.decode("utf-8", "replace") for b in files.values()] +
                     list(files), private)


def test_rotate_keeps_the_old_key_under_a_name_git_ignores(example: Path) -> None:
    """Trial 5: with keyFile outside .acap/, the old key was kept as signing.pem.1.old,
    which `*.pem` in acap init's .gitignore does not cover; `git add -A` staged it."""
    text = example.read_text(encoding="utf-8")
    example.write_text(text.replace("keyFile: .acap/signing-key.pem",
                                    "keyFile: secrets/signing.pem"), encoding="utf-8")
    assert acap("build", "-c", str(example), "--no-spec-site").exit_code == 0
    old = (example.parent / "secrets" / "signing.pem").read_bytes()
    rot = acap("keys", "rotate", "-c", str(example))
    assert rot.exit_code == 0, rot.stderr
    kept = example.parent / "secrets" / "signing.1.old.pem"
    assert kept.read_bytes() == old
    assert "note: the old private key is now secrets/signing.1.old.pem: keep it out of git" \
        in rot.stderr
    import fnmatch

    gitignore = SRC / "data" / "init" / "gitignore"
    ignored = [ln for ln in gitignore.read_text().splitlines()
               if ln and not ln.startswith("#")]
    assert "*.pem" in ignored and fnmatch.fnmatch(kept.name, "*.pem")
