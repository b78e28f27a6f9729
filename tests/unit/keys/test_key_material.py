"""Invalid key material is a KEY finding, never a traceback (trial report items 4 and 10).

``ACAP_SIGNING_KEY='<EC JWK with d but x="AAAA">' acap build`` raised
``ValueError: point not on curve`` from ``get_op_key``. Here every member of a
private JWK (EC, OKP, RSA) is mutated, and PEM text is damaged, and the only
outcomes allowed are a usable key or :class:`~acap.keys._key.KeyProblem`. Through the
build, the finding is about its source: for ``ACAP_SIGNING_KEY`` the location is
the variable and the hint says to fix or unset it; the key text is never quoted.
"""

from __future__ import annotations

import json
import os
from functools import cache
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from acap.cli import finding_text
from acap.errors import KeyProblem
from acap.keys import SigningKey, b64url, load_signing_key, resolve_signing_key, thumbprint
from acap.load import load_operator
from support.cards import acap, new_private, pem, private_jwk, set_key_file

MEMBERS = ["kty", "crv", "x", "y", "d", "n", "e", "p", "q", "dp", "dq", "qi", "oth", "k",
           "alg", "kid", "use", "key_ops"]


@cache
def base_jwks() -> dict[str, tuple[dict[str, Any], dict[str, Any]]]:
    """Two private JWKs per key type (mutations borrow members of the other one)."""
    return {alg: (private_jwk(new_private(alg)), private_jwk(new_private(alg)))
            for alg in ("ES256", "EdDSA", "RS256")}


values = st.one_of(
    st.just(None),  # delete the member
    st.text(max_size=12),
    st.integers(min_value=-2**70, max_value=2**70),
    st.booleans(),
    st.lists(st.text(max_size=4), max_size=3),
    st.dictionaries(st.text(max_size=3), st.text(max_size=3), max_size=2),
    st.binary(max_size=80).map(b64url),
    st.sampled_from(["AAAA", "", "=", "P-384", "secp256k1", "X25519", "Ed448", "oct", "RSA",
                     "EC", "OKP", "enc", "sig", "ES256", "RS256", "none", "HS256"]),
    st.just("OTHER"),  # the same member of the other key of the same type
)

mutations = st.lists(st.tuples(st.sampled_from(MEMBERS), values), min_size=1, max_size=3)


def mutate(alg: str, changes: list[tuple[str, Any]]) -> dict[str, Any]:
    jwk, other = (dict(j) for j in base_jwks()[alg])
    for name, value in changes:
        if value is None:
            jwk.pop(name, None)
        elif value == "OTHER":
            if name in other:
                jwk[name] = other[name]
        else:
            jwk[name] = value
    return jwk


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["ES256", "EdDSA", "RS256"]), mutations)
def test_a_mutated_jwk_is_a_key_or_a_key_problem(alg: str, changes: list[tuple[str, Any]]) -> None:
    text = json.dumps(mutate(alg, changes)).encode()
    try:
        key = load_signing_key(text, kid=None, alg_hint="RS256" if alg == "RS256" else None)
    except KeyProblem as exc:
        assert str(exc) and exc.hint
        return
    assert isinstance(key, SigningKey)
    assert key.sign(b"payload")  # a key acap accepts can sign
    assert thumbprint(key.public_jwk())


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(["ES256", "EdDSA"]), st.integers(min_value=0),
       st.sampled_from("AB/+=\n-x"), st.integers(min_value=1, max_value=4))
def test_damaged_pem_is_a_key_or_a_key_problem(alg: str, at: int, char: str, n: int) -> None:
    text = bytearray(pem(new_private(alg)))
    body = [i for i, c in enumerate(text) if chr(c) not in "-\n"][30:-1]
    for k in range(n):
        text[body[(at + k * 7) % len(body)]] = ord(char)
    try:
        load_signing_key(bytes(text), kid=None, alg_hint=None)
    except KeyProblem as exc:
        assert str(exc) and exc.hint


@settings(max_examples=80, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(["ES256", "EdDSA", "RS256"]), mutations)
def test_a_mutated_jwk_in_the_environment_is_a_finding(example: Path, alg: str,
                                                       changes: list[tuple[str, Any]]) -> None:
    jwk = mutate(alg, changes)
    text = json.dumps(jwk)
    cfg = load_operator(example)
    with mock.patch.dict(os.environ, {"ACAP_SIGNING_KEY": text}):
        res = resolve_signing_key(cfg, example.parent / "site")
    if res.key is not None:
        return
    [f] = res.findings
    assert (f.rule, f.level) == ("KEY", "error")
    assert f.location.file == "ACAP_SIGNING_KEY"
    for secret in ("d", "p", "q", "dp", "dq", "qi"):
        value = jwk.get(secret)
        if isinstance(value, str) and len(value) > 8:
            assert value not in finding_text(f)


def test_the_trial_report_jwk_is_a_key_finding(example: Path) -> None:
    """An EC JWK with d whose x is "AAAA": the point is not on P-256."""
    jwk = private_jwk(new_private("ES256"), x="AAAA")
    res = acap("build", "-c", str(example), "--no-spec-site",
               env={"ACAP_SIGNING_KEY": json.dumps(jwk)})
    assert res.exit_code == 1
    assert ("ACAP_SIGNING_KEY: error: the environment variable ACAP_SIGNING_KEY holds no usable "
            "signing key: the JWK's members do not make a valid signing key (a point not on its "
            "curve, numbers that do not belong together, or a use or key_ops that forbids "
            "signing) [KEY]") in res.stderr
    assert "hint: fix or unset ACAP_SIGNING_KEY" in res.stderr
    assert jwk["d"] not in res.stdout + res.stderr
    assert not (example.parent / "site").exists()


def test_the_same_jwk_in_a_key_file_points_at_the_key_file(example: Path) -> None:
    jwk = private_jwk(new_private("ES256"), x="AAAA")
    key_file = example.parent / ".acap" / "signing-key.pem"
    key_file.parent.mkdir()
    key_file.write_text(json.dumps(jwk), encoding="utf-8")
    key_file.chmod(0o600)
    res = resolve_signing_key(load_operator(example), example.parent / "site")
    [f] = res.findings
    line = example.read_text(encoding="utf-8").splitlines().index(
        "  keyFile: .acap/signing-key.pem") + 1
    assert (f.rule, f.location.file, f.location.line) == ("KEY", str(example), line)
    assert f.message.startswith(".acap/signing-key.pem: the JWK's members do not make a valid "
                                "signing key")


@pytest.mark.parametrize("value", ["garbage", ".acap/signing-key.pem", "{not json", "[1, 2]",
                                   '{"kty": "EC"}'])
def test_garbage_in_the_environment_is_about_the_variable(example: Path, value: str) -> None:
    res = acap("build", "-c", str(example), "--no-spec-site", env={"ACAP_SIGNING_KEY": value})
    assert res.exit_code == 1
    [line] = [ln for ln in res.stderr.splitlines() if "[KEY]" in ln]
    assert line.startswith("ACAP_SIGNING_KEY: error: the environment variable ACAP_SIGNING_KEY "
                           "holds no usable signing key: ")
    hint = res.stderr.splitlines()[res.stderr.splitlines().index(line) + 1]
    assert hint == ("    hint: fix or unset ACAP_SIGNING_KEY: it must hold the private key "
                    "itself, as PEM text (what `acap keys new --out FILE` writes) or as a JWK "
                    "(JSON), not a file name; unset, acap uses signing.keyFile")
    assert value not in line + hint or len(value) < 6  # never quoted ("[1, 2]" is not quoted)
    assert "keyFile line" not in res.stderr
    assert f"{example}:" not in line  # not located at operator.yaml's keyFile line


def test_key_inside_the_project_site_folder_is_a_site_path_finding(example: Path) -> None:
    """`--site-dir .`: the key at .acap/ is where it should be; the folder is wrong."""
    set_key_file(example, new_private("ES256"))
    res = acap("build", "-c", str(example), "--no-spec-site", "--site-dir", str(example.parent))
    assert res.exit_code == 1
    assert "[SITE-PATH]" in res.stderr
    assert "is inside the site folder" not in res.stderr
    assert "e.g. keyFile: .acap/signing-key.pem" not in res.stderr
