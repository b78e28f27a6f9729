"""A card read from this machine (an agent or a preview served locally, read with
--allow-private) is not read where it is published: whether its jku is on the card's own
origin cannot be judged there, so that is a warning, never the error "publish the JWKS on
the card's own origin"; the way to check it as it will be served, --connect-to, is named,
and followed as printed it verifies. A card read from the Web, or a jku that is itself a
local address, keeps the error.

The card is signed here with a jku on https://example.com and served over plain http on
127.0.0.1 with its JWKS beside it, as examples/agent/agent.py serves it.
"""

from __future__ import annotations

import copy
import json
import shlex
from collections.abc import Iterator

import pytest

from acap.card import Signer, Verifier, build_card, read_away_from_home, verify_card
from acap.cli._reporters import SIGNATURES_VERIFIED
from acap.keys import SigningKey, jwks
from acap.load import load_operator
from support.cards import acap, new_private
from support.https_servers import Server, serve
from support.paths import EXAMPLE

CARD_PATH = "/.well-known/agent-card.json"
JKU = "https://example.com/.well-known/jwks.json"


@pytest.fixture(scope="module")
def key() -> SigningKey:
    return SigningKey(new_private("ES256"), "ES256", "chapel-1")


@pytest.fixture
def agent(key: SigningKey) -> Iterator[Server]:
    """The card (jku on https://example.com) and its JWKS, on http://127.0.0.1:PORT."""
    card = Signer(key, jku=JKU).sign(copy.deepcopy(build_card(load_operator(EXAMPLE))))
    with serve() as local:
        local.answer(CARD_PATH, json.dumps(card, indent=2).encode())
        local.answer("/.well-known/jwks.json", json.dumps(jwks(key, [])).encode())
        yield local


def _hint_command(stderr: str, rule: str) -> list[str]:
    """The command a finding's hint gives, after its last colon."""
    lines = stderr.splitlines()
    at = next(i for i, line in enumerate(lines) if line.endswith(f"[{rule}]"))
    hint = lines[at + 1].strip()
    assert hint.startswith("hint: ")
    return shlex.split(hint.rsplit(": ", 1)[1])


def test_verify_of_a_locally_served_card_names_connect_to_and_it_works(agent: Server) -> None:
    out = acap("verify", agent.url(CARD_PATH), "--allow-private")
    assert out.exit_code == 1  # nothing was checked: nothing is verified
    assert agent.requests == [CARD_PATH]  # the keys on the Web were not fetched either
    assert "error: signature 0 names a jku" not in out.stderr
    assert "publish the JWKS on the card's own origin" not in out.stderr
    assert (f"warning: signature 0 names a jku on https://example.com; the card was read "
            f"from {agent.base}, a local address") in out.stderr
    assert out.stdout.splitlines()[0] == (
        f"signature 0: kid chapel-1, alg ES256: NOT CHECKED (the card was read from a local "
        f"address ({agent.base}), not from its jku's origin (https://example.com), so its "
        "keys were not fetched)")
    wanted = ["https://example.com/.well-known/agent-card.json", "--connect-to",
              f"example.com={agent.base}"]
    assert _hint_command(out.stderr, "SIG-JKU-ORIGIN") == wanted
    assert _hint_command(out.stderr, "SIG-KEYS") == wanted
    # followed as printed, it reads the card and its jku from this server, and verifies
    done = acap("verify", *wanted)
    assert done.exit_code == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == SIGNATURES_VERIFIED
    assert agent.requests[1:] == [CARD_PATH, "/.well-known/jwks.json"]
    assert "[SIG-" not in done.stderr


def test_verify_of_a_locally_served_card_with_the_users_keys_passes(agent: Server) -> None:
    out = acap("verify", agent.url(CARD_PATH), "--allow-private",
               "--jwks", agent.url("/.well-known/jwks.json"))
    assert out.exit_code == 0, out.stdout + out.stderr
    assert out.stdout.splitlines()[0] == "signature 0: kid chapel-1, alg ES256: valid"
    assert "warning: signature 0 names a jku on https://example.com" in out.stderr
    assert "error" not in out.stderr.replace("0 errors", "")


def test_check_live_of_a_locally_served_card_names_connect_to(agent: Server) -> None:
    out = acap("check", agent.url(CARD_PATH), "--allow-private", "--live")
    assert "publish the JWKS" not in out.stderr
    wanted = ["https://example.com/.well-known/agent-card.json", "--connect-to",
              f"example.com={agent.base}"]
    assert _hint_command(out.stderr, "SIG-KEYS") == wanted
    done = acap("check", *wanted, "--live")
    assert "signature 0: kid chapel-1, alg ES256: valid" in done.stdout, done.stderr
    assert "[SIG-" not in done.stderr


def test_a_card_read_from_the_web_keeps_the_error(key: SigningKey) -> None:
    card = Signer(key, jku=JKU).sign(copy.deepcopy(build_card(load_operator(EXAMPLE))))
    public = {"keys": [key.public_jwk()]}
    for card_url in ("https://agents.example.net/.well-known/agent-card.json",
                     "https://8.8.8.8/.well-known/agent-card.json"):
        res = Verifier.from_jwks(public).verify(card, card_url=card_url)
        [f] = [f for f in res.report if f.rule == "SIG-JKU-ORIGIN"]
        assert (f.level, f.hint) == ("error", "publish the JWKS on the card's own origin")


@pytest.mark.parametrize("jku", [
    "https://127.0.0.2/.well-known/jwks.json",   # a local address: no host to connect
    "https://[::1]:8443/.well-known/jwks.json",
    "http://example.com/.well-known/jwks.json",   # not https: never fetched anyway
    "https://localhost/.well-known/jwks.json",
    "example.com/.well-known/jwks.json",          # not a URL
])
def test_a_jku_that_is_not_on_the_web_keeps_the_error(key: SigningKey, jku: str) -> None:
    card = Signer(key, jku=jku).sign(copy.deepcopy(build_card(load_operator(EXAMPLE))))
    card_url = "http://127.0.0.1:8000/.well-known/agent-card.json"
    assert read_away_from_home(card_url, jku) is None
    res = Verifier.from_jwks({"keys": [key.public_jwk()]}).verify(card, card_url=card_url)
    [f] = [f for f in res.report if f.rule == "SIG-JKU-ORIGIN"]
    assert f.level == "error"


@pytest.mark.parametrize(("card_url", "route"), [
    ("http://127.0.0.1:8000/.well-known/agent-card.json", "example.com=http://127.0.0.1:8000"),
    ("http://[::1]:8000/.well-known/agent-card.json", "example.com=http://[::1]:8000"),
    ("https://10.1.2.3/.well-known/agent-card.json", "example.com=https://10.1.2.3"),
    ("https://preview.localhost:8443/.well-known/agent-card.json?x=1",
     "example.com=https://preview.localhost:8443"),
])
def test_every_local_address_is_read_away_from_home(card_url: str, route: str) -> None:
    there, given = read_away_from_home(card_url, JKU) or ("", "")
    query = "?x=1" if "?" in card_url else ""
    assert (there, given) == (f"https://example.com/.well-known/agent-card.json{query}", route)


def test_the_python_api_says_the_same(agent: Server) -> None:
    res = verify_card(agent.url(CARD_PATH), allow_private=True)
    assert sorted((f.rule, f.level) for f in res.report) == [("SIG-JKU-ORIGIN", "warning"),
                                                              ("SIG-KEYS", "error")]
    assert not res.ok


@pytest.mark.parametrize("args", [("check",), ("verify",), ("check", "--live")],
                         ids=["check", "verify", "check-live"])
def test_plain_http_on_this_machine_names_allow_private(agent: Server, args: tuple[str, ...],
                                                        ) -> None:
    """Without --allow-private, http://127.0.0.1:PORT is refused before any request, and the
    hint says what a developer's own server needs (never "check https://127.0.0.1...")."""
    out = acap(args[0], agent.url(CARD_PATH), *args[1:])
    assert out.exit_code == 1
    assert agent.requests == []
    assert "only https URLs are fetched" in out.stderr
    hint = next(line.strip() for line in out.stderr.splitlines() if "hint:" in line)
    assert hint == (f"hint: a server on this machine (acap serve, an agent you are "
                    f"developing): add --allow-private to read it from {agent.base}, or check "
                    f"it as it will be served: acap verify https://HOST{CARD_PATH} "
                    f"--connect-to HOST={agent.base}")
    assert "check https://127.0.0.1" not in out.stderr
    done = acap(args[0], agent.url(CARD_PATH), *args[1:], "--allow-private")  # as hinted
    assert agent.requests[0] == CARD_PATH
    assert "only https URLs are fetched" not in done.stderr


def test_plain_http_elsewhere_keeps_the_https_hint() -> None:
    """A plain http URL on another machine is never fetched, --allow-private or not: its
    hint is the https URL."""
    out = acap("check", "http://192.0.2.7/.well-known/agent-card.json")
    assert "hint: cards are fetched over https only (A2A §8.2 publishes them at " \
        "https://HOST/.well-known/agent-card.json): check " \
        "https://192.0.2.7/.well-known/agent-card.json" in out.stderr
    assert "--allow-private to read it" not in out.stderr


def test_check_live_does_not_leave_the_signatures_to_verify(agent: Server) -> None:
    """--live checks the signatures: its note and its JSON do not list SIG-INVALID as left
    to acap verify (they did, beside 'signature 0: valid'); without --live they do."""
    live = acap("check", "https://example.com/.well-known/agent-card.json", "--live",
                "--connect-to", f"example.com={agent.base}")
    assert "signature 0: kid chapel-1, alg ES256: valid" in live.stdout, live.stderr
    [note] = [line for line in live.stderr.splitlines() if line.startswith("note:")]
    assert "SIG-INVALID" not in note
    as_json = json.loads(acap("check", "https://example.com/.well-known/agent-card.json",
                              "--live", "--connect-to", f"example.com={agent.base}",
                              "--format", "json").stdout)
    card = next(r for r in as_json["results"] if r["kind"] == "card")
    assert "SIG-INVALID" not in [s["rule"] for s in card["skipped"]]
    assert card["skipped"]  # the rest is still listed
    plain = json.loads(acap("check", agent.url(CARD_PATH), "--allow-private",
                            "--format", "json").stdout)
    assert {"rule": "SIG-INVALID", "checked": "none",
            "reason": "signatures are checked by acap verify"} in plain["results"][0]["skipped"]
