"""An IPv6 address that carries an IPv4 address is judged by the IPv4 address inside it
(attacker trial, issue 19 item 7): ``::127.0.0.1`` leads where ``127.0.0.1`` does, and
Python's ``ipaddress`` calls several such forms global. The one judgement
(:func:`acap.load.address_refusal`) serves the fetches of ``acap check`` / ``verify`` and the
probe's guard alike; each form is tried on both, and on a real listener that must see no
connection.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Iterator

import pytest

from acap.agent._probe_net import Guard, ProbeRefused
from acap.errors import FetchError
from acap.load import address_refusal, embedded_ipv4, fetch, url_problem

#: Each form, the IPv4 address it carries, and the kind it is refused as.
REFUSED = [
    ("::127.0.0.1", "127.0.0.1", "loopback"),  # IPv4-compatible (RFC 4291 §2.5.5.1)
    ("::ffff:127.0.0.1", "127.0.0.1", "loopback"),  # IPv4-mapped (RFC 4291 §2.5.5.2)
    ("::ffff:0:10.0.0.1", "10.0.0.1", "private"),  # IPv4-translated (RFC 2765)
    ("64:ff9b::7f00:1", "127.0.0.1", "loopback"),  # NAT64 well-known prefix (RFC 6052)
    ("64:ff9b::a9fe:a9fe", "169.254.169.254", "link-local"),  # a cloud's metadata service
    ("64:ff9b:1::c0a8:101", "192.168.1.1", "private"),  # NAT64 local use (RFC 8215), /96
    ("64:ff9b:1:7f00:0:100::", "127.0.0.1", "loopback"),  # the same, RFC 6052 /48 layout
    ("2002:7f00:1::1", "127.0.0.1", "loopback"),  # 6to4 (RFC 3056)
    ("2002:a9fe:a9fe::", "169.254.169.254", "link-local"),
    ("2001:0:4136:e378:8000:63bf:80ff:fffe", "127.0.0.1", "loopback"),  # Teredo client
    ("2001:0:a00:1:8000:63bf:3fff:fdd2", "10.0.0.1", "private"),  # Teredo server
]
#: Forms carrying a global IPv4 address, and plain global addresses: reached.
ALLOWED = ["::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::1", "::8.8.8.8",
           "2606:4700:4700::1111", "8.8.8.8"]


@pytest.mark.parametrize(("address", "inside", "kind"), REFUSED)
def test_each_form_is_judged_by_the_ipv4_address_inside_it(address: str, inside: str,
                                                            kind: str) -> None:
    ip = ipaddress.ip_address(address)
    assert ipaddress.ip_address(inside) in embedded_ipv4(ip)
    refusal = address_refusal(ip)
    assert refusal is not None and refusal.startswith(f"a {kind} address"), refusal
    assert f"{inside} inside it" in refusal or kind == "private"
    problem = url_problem(f"https://[{address}]/.well-known/agent-card.json")
    assert problem is not None and f"is a {kind} address" in problem


@pytest.mark.parametrize("address", ALLOWED)
def test_a_global_ipv4_address_inside_is_reached(address: str) -> None:
    assert address_refusal(ipaddress.ip_address(address)) is None
    host = f"[{address}]" if ":" in address else address
    assert url_problem(f"https://{host}/.well-known/agent-card.json") is None


def test_the_nat64_local_use_prefix_is_never_reached() -> None:
    """64:ff9b:1::/48 is not globally reachable (IANA, RFC 8215) whatever it carries."""
    assert address_refusal(ipaddress.ip_address("64:ff9b:1:808:8:808:808:808")) is not None


@pytest.mark.parametrize(("address", "inside", "kind"), REFUSED)
def test_the_probe_refuses_each_form_before_connecting(address: str, inside: str,
                                                       kind: str) -> None:
    guard = Guard()
    with pytest.raises(ProbeRefused) as info:
        asyncio.run(guard.address(address, 443))
    assert f"resolves to {address}, a {kind} address" in str(info.value)
    assert "--allow-private" in str(info.value)
    assert asyncio.run(Guard(allow_private=True).address(address, 443)) == address


@pytest.fixture
def dual_stack() -> Iterator[tuple[int, socket.socket]]:
    """A listener on every IPv6 and IPv4 address of this machine (``::``, dual stack): a
    connection to ``::ffff:127.0.0.1`` would reach it."""
    s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    s.bind(("::", 0))
    s.listen(8)
    s.setblocking(False)
    try:
        yield s.getsockname()[1], s
    finally:
        s.close()


def _accepted(s: socket.socket) -> int:
    n = 0
    while True:
        try:
            s.accept()[0].close()
            n += 1
        except BlockingIOError:
            return n


def test_a_mapped_loopback_address_is_refused_before_a_connection(
        dual_stack: tuple[int, socket.socket]) -> None:
    port, listener = dual_stack
    # the listener is reachable at all through the mapped form (the refusal is what stops it)
    with socket.create_connection(("::ffff:127.0.0.1", port), timeout=5):
        pass
    assert _accepted(listener) == 1
    for address, _inside, kind in REFUSED:
        with pytest.raises(FetchError) as info:
            fetch(f"https://[{address}]:{port}/.well-known/agent-card.json", timeout=5)
        assert f"is a {kind} address" in info.value.reason
    assert _accepted(listener) == 0
