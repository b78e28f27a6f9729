"""Each way a fetch fails has its own hint (a directory service's trial: every failure
said "check the URL and that the site is up"), against real servers on 127.0.0.1:
a compressed card, a redirect loop, the size limit, the deadline, a private address,
TLS, DNS, and HTTP statuses.
"""

from __future__ import annotations

import gzip
import json
import socket
import threading

import pytest

from acap.checks import check_card
from acap.errors import FetchError
from acap.findings import Finding
from acap.load import fetch
from support.https_servers import LocalCA, dripping, serve
from support.servers import free_port

CARD_PATH = "/.well-known/agent-card.json"
PRIVATE = ("a card on the Web is on a public address; --allow-private exists only for "
           "checking your own test server on this machine or its network")


def only_finding(url: str, **kw: float) -> Finding:
    [f] = check_card(url, allow_private=True, **kw).report.findings  # type: ignore[arg-type]
    return f


def test_a_compressed_card_is_named_as_compressed_not_as_not_utf8(trusted: LocalCA) -> None:
    body = gzip.compress(json.dumps({"name": "Praxis"}).encode())
    with serve(trusted) as a:
        url = a.answer(CARD_PATH, body, **{"Content-Encoding": "gzip"})
        f = only_finding(url)
    assert (f.rule, f.level) == ("CARD-READ", "error")
    assert f.message == ("cannot read the card: the server sent it compressed "
                         "(Content-Encoding: gzip) although acap asked for it uncompressed")
    assert f.hint == ("serve agent-card.json without compression (switch off gzip or brotli "
                      "for it in the server's settings)")


def test_identity_encoding_is_read(trusted: LocalCA) -> None:
    with serve(trusted) as a:
        url = a.answer("/x.json", b"{}", **{"Content-Encoding": "identity"})
        assert fetch(url, allow_private=True).body == b"{}"


def test_a_redirect_loop_is_called_a_loop(trusted: LocalCA) -> None:
    with serve(trusted) as a:
        a.redirect("/a", a.url("/b"))
        a.redirect("/b", a.url("/a"))
        with pytest.raises(FetchError) as info:
            fetch(a.url("/a"), allow_private=True)
        assert a.requests == ["/a", "/b"]  # stopped at the first repeat, not after 5
    assert info.value.reason == f"it redirects in a loop: {a.url('/b')} leads back to " \
                                f"{a.url('/a')}"
    assert info.value.hint is not None and "go round in a circle" in info.value.hint


def test_a_redirect_to_itself_is_a_loop(trusted: LocalCA) -> None:
    with serve(trusted) as a:
        url = a.redirect(CARD_PATH, CARD_PATH)
        f = only_finding(url)
    assert (f.rule, f.message) == ("CARD-READ", f"cannot read the card: it redirects in a "
                                                f"loop: {url} leads back to itself")


def test_a_card_over_the_limit_says_the_limit_and_the_size(trusted: LocalCA) -> None:
    with serve(trusted) as a:
        url = a.answer(CARD_PATH, b" " * 2_000_000 + b"{}")
        f = only_finding(url)
    assert f.message == ("cannot read the card: the answer is 2,000,002 bytes (its "
                         "Content-Length); acap reads at most 1 MiB (1,048,576 bytes)")
    assert f.hint is not None and f.hint.startswith("an Agent Card or a JWKS is a few kilobytes")


def test_a_timeout_says_the_seconds() -> None:
    with dripping(interval=0.5, total=200) as (url, _sent):
        f = only_finding(url, timeout=1.0)
    assert f.message == "cannot read the card: no complete answer within 1 seconds (timed out)"
    assert f.hint == ("acap waits 1 second for the whole answer: check that the site is up "
                      "and answers quickly, or try again later")


def test_a_private_address_names_the_address_and_what_allow_private_is_for(
        trusted: LocalCA) -> None:
    with serve(trusted) as a, serve(trusted) as b:
        a.redirect("/card.json", b.url("/card.json"))
        with pytest.raises(FetchError) as info:
            fetch("https://card.example/card.json", connect_to={"card.example": a.base})
        assert b.requests == []
    assert info.value.reason.startswith(f"it redirects to {b.url('/card.json')}, which is "
                                        "refused: its host 127.0.0.1 is a loopback address")
    assert info.value.hint == PRIVATE


def test_a_host_name_that_resolves_to_loopback_names_the_address(trusted: LocalCA) -> None:
    """``127.1`` is no IP address to Python's ipaddress, but the resolver reads it as
    127.0.0.1 (inet_aton's short form): refused by the address it resolves to."""
    with serve(trusted) as a:
        port = a.base.rsplit(":", 1)[1]
        f = check_card(f"https://127.1:{port}{CARD_PATH}").report.findings[0]
        assert a.requests == []
    assert f.message.startswith("cannot read the card: its host name 127.1 leads to "
                                "127.0.0.1, a loopback address")
    assert f.hint == PRIVATE


def test_a_private_literal_address_gets_the_same_hint() -> None:
    f = check_card("https://10.1.2.3/.well-known/agent-card.json").report.findings[0]
    assert (f.rule, f.hint) == ("CARD-READ", PRIVATE)
    assert f.message.startswith("cannot read the card: its host 10.1.2.3 is a private address")
    f = check_card("https://169.254.169.254/.well-known/agent-card.json").report.findings[0]
    assert f.message.startswith("cannot read the card: its host 169.254.169.254 is a "
                                "link-local address")


def test_an_untrusted_certificate_says_what_the_server_needs(ca: LocalCA) -> None:
    with serve(ca) as a:  # the test CA is not trusted here
        f = only_finding(a.answer(CARD_PATH, b"{}"))
    assert f.message.startswith("cannot read the card: its TLS certificate is not valid")
    assert f.hint is not None and f.hint.startswith("the server needs a certificate for "
                                                    "127.0.0.1 from a certificate authority")


def test_plain_http_on_an_https_port_is_a_tls_failure() -> None:
    with serve() as a:  # plain HTTP, asked for over https
        url = a.answer(CARD_PATH, b"{}").replace("http://", "https://")
        f = only_finding(url)
    assert f.hint == ("the server must answer https (TLS 1.2 or later) on this port: check "
                      "that the URL's port is the https one")


def test_nothing_listening_names_the_port() -> None:
    port = free_port()
    f = only_finding(f"https://127.0.0.1:{port}{CARD_PATH}")
    assert f.message == "cannot read the card: the server refused the connection"
    assert f.hint == (f"nothing answers at 127.0.0.1 on port {port}: check the port in the "
                      "URL and that the server is running")


def test_a_host_not_found_says_to_check_its_spelling() -> None:
    f = check_card("https://nowhere.example/.well-known/agent-card.json").report.findings[0]
    assert f.message == "cannot read the card: the host name was not found (DNS)"
    assert f.hint == ("check the spelling of nowhere.example; a domain registered in the "
                      "last hours may not be found yet")


@pytest.mark.parametrize(("status", "start"), [
    (404, "the card is not at that address: an Agent Card is published at "
          "https://HOST/.well-known/agent-card.json"),
    (410, "the card is not at that address"),
    (403, "the server refuses to give the card (HTTP 403): a card is public"),
    (500, "the server had an error (HTTP 500): try again later"),
    (503, "the server had an error (HTTP 503)"),
])
def test_each_http_status_has_its_own_hint(trusted: LocalCA, status: int, start: str) -> None:
    with serve(trusted) as a:
        f = only_finding(a.answer(CARD_PATH, b"{}", status=status))
    assert (f.rule, f.message) == ("CARD-READ", f"HTTP {status} for the card")
    assert f.hint is not None and f.hint.startswith(start), f.hint


def test_an_answer_without_a_length_is_cut_at_the_limit() -> None:
    """No Content-Length (the body ends when the server closes): acap stops reading one
    byte past the limit and says the limit."""
    listener = socket.create_server(("127.0.0.1", 0))

    def answer() -> None:
        conn, _ = listener.accept()
        with conn:
            conn.recv(4096)
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                         b"Connection: close\r\n\r\n" + b" " * 100_000)

    thread = threading.Thread(target=answer, daemon=True)
    thread.start()
    try:
        with pytest.raises(FetchError) as info:
            fetch(f"http://127.0.0.1:{listener.getsockname()[1]}/card.json",
                  allow_private=True, max_bytes=1024)
    finally:
        thread.join(5)
        listener.close()
    assert info.value.reason == ("the answer is larger than 1 KiB (1,024 bytes), the most acap "
                                 "reads (it stopped reading there)")
