"""The money reader (OR-3.9, ``acap.checks.amounts``) reads what the amount pattern read, in
work linear in the text.

Until this change ``amounts`` was one backtracking regular expression (kept below as
``ORACLE``, copied from src/acap/checks/_money.py at commit 87b62a6): right in what it found,
but its work grew with the square of a run of digit groups (``"111 " * 16000`` took 192 s).
The scanner that replaced it must find the same amounts on any text (checked on generated
text, short enough for the oracle), and its work must stay linear (checked up to the largest
text acap reads, as the growth of its time when the text grows eightfold, :mod:`support.linear`).
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acap.checks import amounts
from acap.checks._money import _AFTER, _BEFORE, _family, _values
from support.linear import LINEAR, growth

_SPACE = "[ \u00a0\u202f\u2009]"
_NUM = (rf"\d{{1,3}}(?:(?:[,.'’]|{_SPACE})\d{{3}})+(?:[.,]\d{{1,2}})?(?!\d)"
        r"|\d+(?:[.,]\d{1,2})?(?!\d)")
_GAP = r"[ \u00a0\u202f\u2009]?"
ORACLE = re.compile(
    rf"(?P<pre>{_BEFORE}){_GAP}(?P<n1>{_NUM})(?:{_GAP}(?P<post1>{_AFTER}))?"
    rf"|(?<![\w.,])(?P<n2>{_NUM}){_GAP}(?P<post2>{_AFTER})", re.IGNORECASE)


def oracle(text: str) -> list[tuple[str, frozenset[object], str, int]]:
    out = []
    for m in ORACLE.finditer(text):
        currency = m["pre"] or m["post2"] or ""
        number = m["n1"] or m["n2"]
        out.append((_family(currency), _values(number, bool(m["pre"])), m.group(0), m.start()))
    return out


def read(text: str) -> list[tuple[str, frozenset[object], str, int]]:
    return [(a.family, a.values, a.text, a.start) for a in amounts(text)]


#: Pieces that make amounts, near-amounts and what stands around them: digits (one not
#: ASCII), every separator, currencies before and after (in odd cases), letters that a
#: currency must not touch (K is the Kelvin sign, which case-blind matching reads as k).
PIECES = ["1", "2", "0", "45", "123", "1234", "\u0663", ",", ".", "'", "\u2019", " ", " ",
          "\u00a0", "\u202f", "\u2009", "£", "€", "$", "US$", "R$", "kr", "kr.", "Rs", "Rs.",
          "EUR", "eur", "GBP", "pounds", "pound", "ft", "Fr.", "SFr.", ",-", ".-", "-", "a",
          "x", "_", "\u212a", "r", "s", "zł", "\n"]


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=24).map("".join))
def test_the_scanner_finds_what_the_pattern_found(text: str) -> None:
    assert read(text) == oracle(text)


def test_the_readings_people_write() -> None:
    cases = {
        "from £2,450.00 in all": [("GBP", {"2450.00"}, "£2,450.00")],
        "£120 300 people": [("GBP", {"120300", "120"}, "£120 300")],
        "2 people 450 €": [("EUR", {"450"}, "450 €")],
        "1 2 450 €": [("EUR", {"2450", "450"}, "2 450 €")],
        "£1 234 5678 €": [("GBP", {"1234", "1"}, "£1 234"), ("EUR", {"5678"}, "5678 €")],
        "1111,111 €10": [("EUR", {"10"}, "€10")],
        "2.450,50 kr.": [("kr", {"2450.50"}, "2.450,50 kr.")],
        "at 10:30, 2 450,-": [("?", {"2450", "450"}, "2 450,-")],
    }
    for text, want in cases.items():
        got = [(a.family, {str(v) for v in a.values}, a.text) for a in amounts(text)]
        assert got == [(f, v, t) for f, v, t in want], text
        assert read(text) == oracle(text), text


#: Texts that made the pattern retry, each made ``n`` pieces long: runs of digit groups that
#: never end in a currency, that end in one after a break, that start after a currency, and
#: many short ones.
HOSTILE: dict[str, Callable[[int], str]] = {
    "groups-no-currency": lambda n: "111 " * n,
    "groups-then-currency": lambda n: "111 " * n + "1111 €",
    "commas-then-currency": lambda n: "1111" + ",111" * n + " €",
    "currency-then-groups": lambda n: "£1" + " 111" * n,
    "currency-then-broken-groups": lambda n: ("£1" + " 111" * 200 + "1") * (n // 200),
    "ones": lambda n: "1 " * n,
    "many-amounts": lambda n: "1 €" * n,
    "currencies-no-digits": lambda n: "€ " * n,
    "decimals": lambda n: "1,11.1 " * n,
    "codes": lambda n: "EUR EUR1" * n,
}


@pytest.mark.parametrize("name", HOSTILE)
def test_reading_is_linear_on_hostile_texts(name: str) -> None:
    """Reading a hostile text eight times as long (64 KB to 1 MiB) takes about eight times
    as long (:mod:`support.linear`). The pattern's work grew with the square of the text
    (192 s for the first at 64 KB)."""
    n = 16384 if name in ("codes", "many-amounts") else 32768  # long pieces, many amounts
    ratio = growth(amounts, HOSTILE[name], n, runs=2)
    assert ratio < LINEAR, (name, ratio)
