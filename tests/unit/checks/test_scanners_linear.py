"""Every text scanner that reads a stranger's text does work linear in it (attacker trial:
the money reader took 192 s on 64 KB of "111 "; tests/unit/checks/test_money_reading.py).

Each pattern below backtracked on text made for it, its work growing with the square of
the text; each was rewritten so that it finds exactly what it found before. Two tests per
scanner: the rewrite agrees with the old pattern (kept here as the oracle, copied from
main at 87b62a6) on generated text, and its time grows about eightfold when a hostile text
grows eightfold (:mod:`support.linear`, a ratio measured in the same run; the old patterns
grow 64-fold or more).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acap.builder.pages._bounded import _PRINTF, _conversions
from acap.builder.pages._pages import is_plain_email
from acap.checks._person_entry_rules import _FINAL_DOT
from acap.keys import in_value
from acap.keys._history import next_kid
from acap.replies._text import url_tokens
from acap.schemas import schema
from support.linear import LINEAR, growth

OLD_EMAIL = re.compile(r"^[^@\s<>\"'(),;:\\]+@[^@\s<>\"'(),;:\\]+\.[^@\s<>\"'(),;:\\]+$")
OLD_FINAL_DOT = re.compile(r"\.+(?=(:[0-9]*)?$)")
OLD_URLISH = re.compile(r"(?:[Hh][Tt][Tt][Pp][Ss]?://)?[A-Za-z0-9.-]+\.[A-Za-z]{2,}(?::\d+)?"
                        r"(?:/[^\s<>\"'()]*)?")
OLD_TEL = (r"^([Hh][Tt][Tt][Pp][Ss]://[^\s?#]+\??(#\S*)?|[Tt][Ee][Ll]:\+[0-9().-]*[0-9]"
           r"[0-9().-]*(;[^\s;]+)*)$")
PERSON_ENTRY = re.compile(
    schema("on-request-extension.schema.json")["$defs"]["personEntry"]["pattern"])


def old_next_kid(kid: str) -> str | None:
    m = re.fullmatch(r"(.*?)(\d+)", kid)
    return f"{m.group(1)}{int(m.group(2)) + 1}" if m else None


def texts(*pieces: str, size: int = 30) -> st.SearchStrategy[str]:
    """Text made of ``pieces`` (where the patterns branch) and a few others."""
    return st.lists(st.sampled_from([*pieces, "a", "1", " ", "\n", "x"]),
                    max_size=size).map("".join)


@settings(max_examples=1500, deadline=None)
@given(texts("@", ".", "<", ";", "\\", "b.c", "@a.b", "\t"))
def test_the_email_test_accepts_what_the_pattern_accepted(text: str) -> None:
    assert is_plain_email(text) == bool(OLD_EMAIL.match(text))


@settings(max_examples=1500, deadline=None)
@given(texts(".", ":", "8443", "..", ".:", "com", "0"))
def test_the_final_dot_is_found_where_it_was(text: str) -> None:
    assert _FINAL_DOT.sub("", text) == OLD_FINAL_DOT.sub("", text)
    assert [m.span() for m in _FINAL_DOT.finditer(text)] == \
        [m.span() for m in OLD_FINAL_DOT.finditer(text)]


@settings(max_examples=1500, deadline=None)
@given(texts("0", "9", "09", "99", "-", "\u0663", "chapel-"))
def test_the_next_kid_is_what_it_was(kid: str) -> None:
    assert next_kid(kid) == old_next_kid(kid)


def test_a_kid_with_more_digits_than_int_reads() -> None:
    assert next_kid("k-" + "9" * 5000) == "k-1" + "0" * 5000
    assert next_kid("k-" + "1" * 5000) == "k-" + "1" * 4999 + "2"


@settings(max_examples=2000, deadline=None)
@given(texts(".", "-", "http://", "HTTPS://", "xhttp://", "ab", "com", ".com", ":80", "/p",
             "(", "'", "a.b"))
def test_the_url_tokens_of_a_reply_are_what_they_were(text: str) -> None:
    assert [m.span() for m in url_tokens(text)] == \
        [m.span() for m in OLD_URLISH.finditer(text)]


@settings(max_examples=2000, deadline=None)
@given(texts("tel:+", "TEL:+", "https://", "(", ")", "-", ".", ";", ";ext=", "?", "#", "0",
             "9", "=", "\t"))
def test_the_person_entry_pattern_accepts_what_it_accepted(text: str) -> None:
    assert bool(PERSON_ENTRY.search(text)) == bool(re.search(OLD_TEL, text))


@settings(max_examples=2000, deadline=None)
@given(texts("%", "(", ")", "%(", "s", "5", ".", "*", "-", "#", "0", "l", "%%"))
def test_printf_conversions_are_read_as_the_pattern_read_them(fmt: str) -> None:
    assert list(_conversions(fmt)) == _PRINTF.findall(fmt)


def _kid(n: int) -> str:
    return "1" * n + "x"


#: scanner, hostile text of n pieces, n: the small text is 256 KB or more, past where the
#: processor's caches make the first kilobytes cheaper than the rest; quadratic work would
#: take minutes on the large one.
HOSTILE: dict[str, tuple[Callable[[str], object], Callable[[int], str], int]] = {
    "email: dots with no ending": (is_plain_email, lambda n: "a@" + "." * n + "@", 1 << 18),
    "final dot: a run of dots": (lambda t: _FINAL_DOT.sub("", t), lambda n: "." * n + "x",
                                 1 << 18),
    "kid: digits then a letter": (next_kid, lambda n: "1" * n + "x", 1 << 18),
    "reply: host characters with no ending": (
        lambda t: list(url_tokens(t)), lambda n: "a." * n + "1", 1 << 17),
    "reply: tokens touching": (lambda t: list(url_tokens(t)), lambda n: "a.bc:8" * n, 1 << 15),
    "person entry: digits then a space": (
        PERSON_ENTRY.search, lambda n: "tel:+" + "1" * n + " ", 1 << 18),
    "person entry: parameters then a space": (
        PERSON_ENTRY.search, lambda n: "tel:+1" + ";a" * n + " ", 1 << 17),
    "person entry: parameters": (PERSON_ENTRY.search, lambda n: "tel:+1" + ";ab" * n, 1 << 16),
    "printf: keys that never close": (lambda t: list(_conversions(t)), lambda n: "%(" * n,
                                      1 << 15),
    "private key: JWK pieces": (  # 47 s for 800 KB before the work bound
        in_value, lambda n: '{"kty":"x","d":"y","p":[0,0,' * n, 1 << 13),
}


@pytest.mark.parametrize("name", HOSTILE)
def test_each_scanner_is_linear_on_the_text_made_for_it(name: str) -> None:
    scan, make, n = HOSTILE[name]
    ratio = growth(scan, make, n)
    assert ratio < LINEAR, (name, ratio)


def test_a_text_made_of_jwk_pieces_is_reported_as_holding_a_key() -> None:
    """Past the work bound the guard fails closed: a text made of little else than JWK
    pieces is said to hold one, rather than read for minutes."""
    piece = '{"kty":"x","d":"y","p":[0,0,' * 4000
    assert [m.kind for m in in_value(piece)] == ["jwk"]
    assert in_value(json.dumps({"kty": "EC", "crv": "P-256", "x": "a", "y": "b"})) == []
