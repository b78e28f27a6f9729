"""When two addresses are one (RFC 3986 §6.2.2, §6.2.3; RFC 3966 §4): the rules every
comparison of a personEntry (a reply's with the card's, OR-6.1; an origin with the
operator's own, OR-3.4) goes through (:mod:`acap.card._equivalent`)."""

from __future__ import annotations

import pytest

from acap.card import normal_url, origin_of, same_address, same_tel

CARD = "https://ask.example.com/talk"


@pytest.mark.parametrize(("written", "why"), [
    ("HTTPS://ASK.EXAMPLE.COM/talk", "scheme and host are case-insensitive (§6.2.2.1)"),
    ("https://Ask.Example.Com/talk", "host case (§6.2.2.1)"),
    ("https://ask.example.com:443/talk", "the default port (§6.2.3)"),
    ("https://ask.example.com:/talk", "an empty port (§6.2.3)"),
    ("https://ask.example.com/%74alk", "an escaped unreserved letter (§6.2.2.2)"),
    ("https://ask.example.com/x/../talk", "dot segments (§6.2.2.3)"),
    ("https://ask.example.com/./talk", "dot segments (§6.2.2.3)"),
])
def test_the_same_url_in_another_spelling(written: str, why: str) -> None:
    assert same_address(written, CARD), why
    assert normal_url(written) == CARD


@pytest.mark.parametrize(("written", "why"), [
    ("https://ask.example.com/Talk", "the path is case-sensitive"),
    ("https://ask.example.com:8443/talk", "another port"),
    ("http://ask.example.com/talk", "another scheme"),
    ("https://ask.example.com/talk?", "an empty query is kept (§6.2.3: not licensed)"),
    ("https://ask.example.com/talk#", "an empty fragment is kept"),
    ("https://ask.example.com/talk/", "a final slash is another path"),
    ("https://ask.example.com/a%2Ftalk", "an escaped slash is not a slash (reserved)"),
    ("https://user@ask.example.com/talk", "user information"),
])
def test_another_url(written: str, why: str) -> None:
    assert not same_address(written, CARD), why


def test_escapes_of_reserved_characters_compare_in_upper_case() -> None:
    assert same_address("https://a.example/%2f", "https://a.example/%2F")
    assert normal_url("https://a.example/%2f%7e") == "https://a.example/%2F~"


def test_an_empty_path_is_the_root_for_http_schemes() -> None:
    assert same_address("https://ask.example.com", "https://ask.example.com/")
    assert normal_url("https://ask.example.com") == "https://ask.example.com/"


@pytest.mark.parametrize(("a", "b", "same"), [
    ("tel:+1-201-555-0123;ext=42", "tel:+1-201-555-0123;ext=42", True),
    ("tel:+1-201-555-0123;ext=42", "TEL:+1.201.555.0123;EXT=42", True),  # case, separators
    ("tel:+1-201-555-0123;ext=42", "tel:+1(201)5550123;ext=4-2", True),   # §3: visual only
    ("tel:+1-201-555-0123;ext=42;isub=ab", "tel:+12015550123;isub=AB;ext=42", True),  # order
    ("tel:+1-201-555-0123;ext=42", "tel:+1-201-555-0123", False),  # a parameter missing
    ("tel:+1-201-555-0123;ext=42", "tel:+1-201-555-0123;ext=43", False),
    ("tel:+1-201-555-0123", "tel:+1-201-555-0124", False),
    ("tel:+1-201-555-0123", "https://ask.example.com/talk", False),
])
def test_tel_uris_compare_by_rfc_3966(a: str, b: str, same: bool) -> None:
    assert same_tel(a, b) is same
    assert same_address(a, b) is same
    assert same_address(b, a) is same


@pytest.mark.parametrize(("url", "origin"), [
    ("HTTPS://Ask.Example.com:443/talk", "https://ask.example.com"),
    ("https://ask.example.com:8443/x", "https://ask.example.com:8443"),
    ("https://user@ask.example.com/x", "https://ask.example.com"),
    ("https://[::1]:443/x", "https://[::1]"),
    ("tel:+1-201-555-0123", None),
    ("/talk", None),
])
def test_origins_in_normal_form(url: str, origin: str | None) -> None:
    assert origin_of(url) == origin
