"""The money reader (OR-3.9, ``acap.checks.amounts``) reads what the amount pattern read, in
work linear in the text.

Until this change ``amounts`` was one backtracking regular expression (kept below as
``ORACLE``, copied from src/acap/checks/_money.py at commit 87b62a6): right in what it found,
but its work grew with the square of a run of digit groups (``"111 " * 16000`` took 192 s).
The scanner that replaced it must find the same amounts on any text (checked on generated
text, short enough for the oracle), and its work must stay linear (checked on the largest
text acap reads, as a ratio to a plain ``str.split`` of the same text timed in the same run).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable

from hypothesis import given, settings
from hypothesis import strategies as st

from acap.checks import amounts
from acap.checks._money import _AFTER, _BEFORE, _family, _values

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


#: The largest text acap reads from a stranger: a card or a reply (1 MiB).
MIB = 1024 * 1024

#: Texts that made the pattern retry (each at 1 MiB): runs of digit groups that never end in a
#: currency, that end in one after a break, that start after a currency, and many short ones.
HOSTILE = {
    "groups-no-currency": "111 " * (MIB // 4),
    "groups-then-currency": "111 " * (MIB // 4 - 2) + "1111 €",
    "commas-then-currency": "1111" + ",111" * (MIB // 4 - 2) + " €",
    "currency-then-groups": "£1" + " 111" * (MIB // 4 - 1),
    "currency-then-broken-groups": ("£1" + " 111" * 200 + "1") * (MIB // 806),
    "ones": "1 " * (MIB // 2),
    "many-amounts": "1 €" * (MIB // 3),
    "currencies-no-digits": "€ " * (MIB // 2),
    "decimals": "1,11.1 " * (MIB // 7),
    "codes": "EUR EUR1" * (MIB // 8),
}


def best_of(runs: int, work: Callable[[], object]) -> float:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        work()
        times.append(time.perf_counter() - t)
    return min(times)


def test_reading_is_linear_on_the_largest_hostile_texts() -> None:
    """Each hostile text of 1 MiB is read within a bounded multiple of splitting it into
    words (measured here, same machine, same moment). The pattern took hours on the first;
    linear reading takes a few dozen splits' time. The multiple allows for the work per
    amount found (each is a Python object) and a busy machine; quadratic work exceeds it by
    orders of magnitude."""
    for name, text in HOSTILE.items():
        split = best_of(5, text.split)
        reading = best_of(1, lambda: amounts(text))  # noqa: B023
        assert reading < 400 * split + 0.05, (name, reading, split)
