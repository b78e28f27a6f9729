"""Every fetch is judged before it is made (issue 12, item 3), against real local servers:
HTTPS with a test CA made here, and a second server that must never be reached.

Each test starts the servers it needs on 127.0.0.1 and fetches with ``allow_private``
where it must reach them at all; what must be refused is refused before its request,
which the second server's empty request log proves.
"""

from __future__ import annotations

import copy
import json
import time

import pytest

from acap.card import Signer, build_card, verify_card
from acap.checks import check_card
from acap.cli._reporters import SIGNATURES_VERIFIED
from acap.errors import FetchError
from acap.keys import SigningKey, jwks
from acap.load import fetch, load_operator
from acap.publisher import live_check
from support.cards import acap, new_private
from support.https_servers import LocalCA, dripping, serve
from support.paths import EXAMPLE

CARD_PATH = "/.well-known/agent-card.json"


@pytest.fixture(scope="module")
def key() -> SigningKey:
    return SigningKey(new_private("ES256"), "ES256", "chapel-1")


def signed_card(key: SigningKey, jku: str, *others: SigningKey) -> bytes:
    card = Signer(key, jku=jku).sign(copy.deepcopy(build_card(load_operator(EXAMPLE))))
    for other in others:
        card["signatures"].append(Signer(other, jku=jku + "?" + other.kid).signature(
            {k: v for k, v in card.items() if k != "signatures"}))
    return json.dumps(card, indent=2).encode()


def test_https_with_the_test_ca(trusted: LocalCA) -> None:
    with serve(trusted) as a:
        url = a.answer("/x.json", b'{"ok": true}')
        resp = fetch(url, allow_private=True)
    assert (resp.status, resp.body, resp.url) == (200, b'{"ok": true}', url)


def test_an_untrusted_certificate_is_refused(ca: LocalCA) -> None:
    with serve(ca) as a:
        url = a.answer("/x.json", b"{}")
        with pytest.raises(FetchError) as info:
            fetch(url, allow_private=True)
    assert info.value.reason.startswith("its TLS certificate is not valid")


def test_a_private_address_is_refused_before_any_request(trusted: LocalCA) -> None:
    with serve(trusted) as a:
        url = a.answer(CARD_PATH, b"{}")
        result = check_card(url)
        assert a.requests == []
    [f] = result.report.findings
    assert (f.rule, f.level) == ("CARD-READ", "error")
    assert "is a loopback address" in f.message
    assert f.hint == ("a card on the Web is on a public address; --allow-private exists only "
                      "for checking your own test server on this machine or its network")


@pytest.mark.parametrize("target", ["http://127.0.0.1:{port}/card.json",
                                    "ftp://127.0.0.1:{port}/card.json",
                                    "file:///etc/passwd"])
def test_a_redirect_off_https_is_refused_before_it_is_followed(trusted: LocalCA,
                                                               target: str) -> None:
    with serve(trusted) as a, serve() as b:
        port = b.base.rsplit(":", 1)[1]
        url = a.redirect(CARD_PATH, target.format(port=port))
        result = check_card(url, allow_private=True)
        assert b.requests == []  # never reached
    [f] = result.report.findings
    assert f.rule == "CARD-READ"
    assert "it redirects to" in f.message
    assert "refusedDocumentMember" not in f.message  # nothing of the refused answer


def test_a_redirect_to_a_private_address_is_refused(trusted: LocalCA) -> None:
    """A public host (routed here with connect_to, as the user's own choice) that
    redirects to a loopback address: refused without --allow-private, nothing sent."""
    with serve(trusted) as a, serve(trusted) as b:
        b.answer("/card.json", b'{"name": "the other server"}')
        a.redirect("/card.json", b.url("/card.json"))
        with pytest.raises(FetchError) as info:
            fetch("https://card.example/card.json", connect_to={"card.example": a.base})
        assert b.requests == []
        assert a.requests == ["/card.json"]
    assert "127.0.0.1 is a loopback address" in info.value.reason
    assert "redirects to" in info.value.reason


def test_redirects_are_limited(trusted: LocalCA) -> None:
    with serve(trusted) as a:
        for i in range(10):
            a.redirect(f"/{i}", a.url(f"/{i + 1}"))
        with pytest.raises(FetchError) as info:
            fetch(a.url("/0"), allow_private=True)
        assert a.requests == [f"/{i}" for i in range(6)]
    assert info.value.reason == "it redirects more than 5 times"
    assert info.value.hint == ("give the address the redirects end at, or make the server "
                               "redirect there at once")


def test_one_deadline_for_the_whole_fetch() -> None:
    """A server sending a byte every half second is cut off at the deadline; a timeout
    per read would wait for all 200 bytes (100 seconds)."""
    with dripping(interval=0.5, total=200) as (url, sent):
        start = time.monotonic()
        with pytest.raises(FetchError) as info:
            fetch(url, timeout=1.5, allow_private=True)
        took = time.monotonic() - start
    assert info.value.reason == "no complete answer within 1.5 seconds (timed out)"
    assert sent[0] < 200
    assert took < 10


def test_a_body_over_the_limit_is_refused(trusted: LocalCA) -> None:
    with serve(trusted) as a:
        url = a.answer("/big.json", b"[" + b"0," * 4000 + b"0]")
        with pytest.raises(FetchError) as info:
            fetch(url, allow_private=True, max_bytes=1024)
    assert info.value.reason == ("the answer is 8,003 bytes (its Content-Length); acap reads "
                                 "at most 1 KiB (1,024 bytes)")


def test_a_jku_that_redirects_to_another_origin_is_not_followed(trusted: LocalCA,
                                                                key: SigningKey) -> None:
    with serve(trusted) as a, serve(trusted, host="::1") as b:
        b.answer("/jwks.json", json.dumps(jwks(key, [])).encode())
        a.redirect("/.well-known/jwks.json", b.url("/jwks.json"))
        card_url = a.answer(CARD_PATH, signed_card(key, a.url("/.well-known/jwks.json")))
        res = verify_card(card_url, allow_private=True)
        assert b.requests == []
    [s] = res.signatures
    assert (s.valid, s.checked) == (False, False)
    assert "another origin" in s.reason
    assert not res.ok


def test_verify_fetches_one_jwks_per_card(trusted: LocalCA, key: SigningKey) -> None:
    others = [SigningKey(new_private("ES256"), "ES256", f"k{i}") for i in range(3)]
    with serve(trusted) as a:
        a.answer("/.well-known/jwks.json", json.dumps(jwks(key, [])).encode())
        card_url = a.answer(CARD_PATH, signed_card(key, a.url("/.well-known/jwks.json"),
                                                   *others))
        res = verify_card(card_url, allow_private=True)
        assert a.requests == [CARD_PATH, "/.well-known/jwks.json"]
    assert [(s.valid, s.checked) for s in res.signatures] == [(True, True)] + \
        [(False, False)] * 3
    assert all("one JWKS per card" in s.reason for s in res.signatures[1:])


def test_live_check_never_fetches_a_jku_on_another_origin(trusted: LocalCA,
                                                          key: SigningKey) -> None:
    """check --live: a jku on another origin would be a port and status oracle."""
    with serve(trusted) as a, serve(trusted, host="::1") as b:
        card_url = a.answer(CARD_PATH, signed_card(key, b.url("/jwks.json")),
                            **{"Access-Control-Allow-Origin": "*"})
        res = live_check(card_url, site_dir=None, allow_private=True)
        out = acap("check", card_url, "--live", "--allow-private")
        assert b.requests == []
    [s] = res.signatures
    assert (s.valid, s.checked) == (False, False)
    assert res.jwks == {}
    assert "[SIG-JKU-ORIGIN]" in out.stderr
    assert out.exit_code == 1


def test_a_card_with_a_name_twice_is_refused_by_verify_and_check(trusted: LocalCA,
                                                                 key: SigningKey) -> None:
    """The signed value last, another personEntry first: every SDK reader keeps the last
    (the signature verifies), a reader keeping the first would show another address."""
    with serve(trusted) as a:
        a.answer("/.well-known/jwks.json", json.dumps(jwks(key, [])).encode())
        raw = signed_card(key, a.url("/.well-known/jwks.json")).decode()
        raw = raw.replace('"personEntry": "https://ask.example.com/talk"',
                          '"personEntry": "https://elsewhere.example/",\n'
                          '            "personEntry": "https://ask.example.com/talk"', 1)
        assert "elsewhere.example" in raw
        card_url = a.answer(CARD_PATH, raw.encode())
        verified = verify_card(card_url, allow_private=True)
        checked = check_card(card_url, allow_private=True)
    assert verified.signatures[0].valid
    assert not verified.ok
    dup = [(f.rule, f.level, f.location.pointer) for f in verified.report if f.rule == "CARD-JSON"]
    assert dup == [("CARD-JSON", "error",
                    "/capabilities/extensions/0/params/skills/0/personEntry")]
    assert [(f.rule, f.level, f.location.pointer) for f in checked.report
            if f.rule == "CARD-JSON"] == dup


def test_allow_private_on_the_commands(trusted: LocalCA, key: SigningKey) -> None:
    with serve(trusted) as a:
        a.answer("/.well-known/jwks.json", json.dumps(jwks(key, [])).encode())
        card_url = a.answer(CARD_PATH, signed_card(key, a.url("/.well-known/jwks.json")))
        refused = acap("verify", card_url)
        assert a.requests == []
        allowed = acap("verify", card_url, "--allow-private")
    assert refused.exit_code == 1
    assert "--allow-private exists only for checking your own test server" in refused.stderr
    assert allowed.exit_code == 0, allowed.output
    assert allowed.stdout.splitlines()[-1] == SIGNATURES_VERIFIED
