"""Helpers for the core tests: keys made in the test, in-process builds, CLI runs.

Nothing here is a fixture (those live in conftest.py); these are plain functions
the test modules import.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa

from acap.builder import BuildOptions, build
from acap.builder._build import BuildResult
from acap.cli import cli

ALGS = ("ES256", "EdDSA", "RS256", "PS256")
CARD = Path("example.com/.well-known/agent-card.json")
JWKS = Path("example.com/.well-known/jwks.json")


def new_private(alg: str) -> Any:
    """A fresh private key for ``alg`` (RSA 2048 to keep the tests quick)."""
    if alg == "ES256":
        return ec.generate_private_key(ec.SECP256R1())
    if alg == "EdDSA":
        return ed25519.Ed25519PrivateKey.generate()
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def pem(private: Any) -> bytes:
    """PKCS#8 PEM of a private key."""
    return private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                 serialization.NoEncryption())


def private_jwk(private: Any, **extra: str) -> dict[str, Any]:
    """The private JWK of a key (via jwcrypto, the independent reference)."""
    from jwcrypto import jwk

    data: dict[str, Any] = json.loads(jwk.JWK.from_pyca(private).export_private())
    data.update(extra)
    return data


def secret_markers(private: Any) -> list[str]:
    """Strings that would show a private key leaked: PEM header and body lines,
    and every private JWK member in base64url, hex and decimal."""
    out = ["PRIVATE KEY"]
    out += [line for line in pem(private).decode().splitlines() if "-----" not in line][:3]
    members = private_jwk(private)
    for name in ("d", "p", "q", "dp", "dq", "qi"):
        if name in members:
            out.append(members[name])
    if isinstance(private, ec.EllipticCurvePrivateKey):
        d = private.private_numbers().private_value
        out += [format(d, "x"), str(d)]
    elif isinstance(private, rsa.RSAPrivateKey):
        d = private.private_numbers().d
        out += [format(d, "x")[:40], str(d)[:40]]
    return out


def set_key_file(cfg_path: Path, private: Any, name: str = ".acap/signing-key.pem") -> Path:
    """Write ``private`` as the operator's key file (mode 0600)."""
    path = cfg_path.parent / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(pem(private))
    path.chmod(0o600)
    return path


def with_algorithm(cfg_path: Path, alg: str) -> None:
    """Add ``signing.algorithm: ALG`` to the example operator.yaml."""
    text = cfg_path.read_text(encoding="utf-8")
    text = text.replace("  kid: chapel-1\n", f"  kid: chapel-1\n  algorithm: {alg}\n")
    cfg_path.write_text(text, encoding="utf-8")


def run_build(cfg_path: Path, **kw: Any) -> BuildResult:
    """Build in-process (spec site off unless asked)."""
    kw.setdefault("spec_site", False)
    return build(BuildOptions(config=cfg_path, **kw))


def site_card(cfg_path: Path) -> dict[str, Any]:
    """The card of the last build next to ``cfg_path``."""
    data: dict[str, Any] = json.loads((cfg_path.parent / "site" / CARD).read_bytes())
    return data


def acap(*args: str, env: dict[str, str] | None = None) -> Result:
    """Run the ``acap`` command in-process (stdout and stderr kept apart)."""
    return CliRunner().invoke(cli, list(args), env=env, catch_exceptions=False)


def acap_process(*args: str, cwd: Path, env: dict[str, str] | None = None
                 ) -> subprocess.CompletedProcess[str]:
    """Run ``python -m acap`` as a separate process."""
    full_env = {k: v for k, v in os.environ.items() if k != "ACAP_SIGNING_KEY"}
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-m", "acap", *args], cwd=cwd, env=full_env,
                          capture_output=True, text=True, timeout=120)


def tree(root: Path) -> dict[str, bytes]:
    """Every file under ``root``: relative path -> bytes."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file()}


def leaves(value: Any, ptr: str = "") -> Iterator[tuple[str, Any]]:
    """Every scalar of a JSON value with its JSON pointer."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from leaves(v, f"{ptr}/{k.replace('~', '~0').replace('/', '~1')}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from leaves(v, f"{ptr}/{i}")
    else:
        yield ptr, value


def set_at(doc: Any, ptr: str, value: Any) -> None:
    """Set the value at a JSON pointer (in place)."""
    parts = [p.replace("~1", "/").replace("~0", "~") for p in ptr.split("/")[1:]]
    for p in parts[:-1]:
        doc = doc[int(p)] if isinstance(doc, list) else doc[p]
    last = parts[-1]
    if isinstance(doc, list):
        doc[int(last)] = value
    else:
        doc[last] = value


def differential_card(base: dict[str, Any], case: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``base`` with one case of tests/cases/differential/cards.json applied:
    its ``remove`` (JSON pointers) and its ``set`` (JSON pointer -> value; a last token
    ``-`` appends to a list)."""
    card = copy.deepcopy(base)
    for ptr in case.get("remove", ()):
        *head, last = _tokens(ptr)
        target: Any = card
        for t in head:
            target = target[int(t)] if isinstance(target, list) else target[t]
        del target[int(last) if isinstance(target, list) else last]
    for ptr, value in case.get("set", {}).items():
        *head, last = _tokens(ptr)
        target = card
        for t in head:
            target = target[int(t)] if isinstance(target, list) else target[t]
        if isinstance(target, list):
            if last == "-":
                target.append(value)
            else:
                target[int(last)] = value
        else:
            target[last] = value
    return card


def _tokens(ptr: str) -> list[str]:
    return [t.replace("~1", "/").replace("~0", "~") for t in ptr.split("/")[1:]]


def check_text(result: Any) -> str:
    """An ``acap check`` result (:class:`acap.checks.CardCheck`) as the text reporter
    prints it."""
    from acap.cli import TextReporter

    out: list[str] = []
    TextReporter(lambda text, err: out.append(text)).card_check(result)
    return "\n".join(out)


def places(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The path (keys and indexes) of every value inside a JSON value, the value itself
    (``()``) first."""
    out = [path]
    if isinstance(value, dict):
        for k, v in value.items():
            out += places(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += places(v, (*path, i))
    return out
