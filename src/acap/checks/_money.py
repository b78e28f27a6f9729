"""Amounts of money in text, read the way a person reads them (OR-3.9).

``£2,450``, ``£2450``, ``£ 2 450``, ``GBP 2450``, ``2,450 pounds`` and
``£2,450.00`` are one amount: the currency (symbol, ISO 4217 code or word) and
the value, whatever separators group the digits. A value listed in
operator.private.yaml is found in any of these forms (:func:`same_amount`), and
an on-request skill's text is searched for any amount at all (:func:`amounts`).

Reading the digits: a separator (``,`` ``.`` ``'`` or a space) followed by
exactly three digits groups thousands; ``,`` or ``.`` followed by one or two
digits at the end is the decimal separator (``2.450 €`` is 2450, ``2,45 €`` is
2.45, ``2,450.50`` is 2450.5). Digits grouped by spaces are also read as their
first (or last) group alone, because ``£120 300 people`` may be £120: for
privacy a doubtful reading counts. No library reads amounts in free text in
every locale (Babel parses one locale's numbers, with the locale known), hence
this module.
"""

from __future__ import annotations

__all__ = ["Amount", "amounts", "same_amount"]

import re
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache
from typing import NamedTuple

#: Symbols and ISO 4217 codes of one currency, or of currencies written alike ($, ¥, kr),
#: by the family they are compared in.
_FAMILIES: dict[str, str] = {
    "£": "GBP", "GBP": "GBP", "pound": "GBP", "pounds": "GBP", "sterling": "GBP",
    "€": "EUR", "EUR": "EUR", "euro": "EUR", "euros": "EUR",
    "$": "$", "US$": "$", "C$": "$", "A$": "$", "NZ$": "$", "HK$": "$", "S$": "$",
    "USD": "$", "CAD": "$", "AUD": "$", "NZD": "$", "HKD": "$", "SGD": "$",
    "dollar": "$", "dollars": "$",
    "¥": "¥", "JPY": "¥", "CNY": "¥", "RMB": "¥", "yen": "¥", "yuan": "¥",
    "₹": "INR", "INR": "INR", "Rs": "INR", "Rs.": "INR", "rupee": "INR", "rupees": "INR",
    "CHF": "CHF", "Fr.": "CHF", "SFr.": "CHF", "franc": "CHF", "francs": "CHF",
    "kr": "kr", "kr.": "kr", "SEK": "kr", "NOK": "kr", "DKK": "kr", "ISK": "kr",
    "kronor": "kr", "kroner": "kr", "krona": "kr", "krone": "kr",
    "zł": "PLN", "PLN": "PLN", "zloty": "PLN", "złoty": "PLN", "zlotys": "PLN",
    "R$": "BRL", "BRL": "BRL", "reais": "BRL", "real": "BRL",
    "R": "ZAR", "ZAR": "ZAR", "rand": "ZAR",
    "₽": "RUB", "₺": "TRY", "₩": "KRW", "₪": "ILS", "₫": "VND", "฿": "THB", "₴": "UAH",
    "₦": "NGN", "₱": "PHP", "₲": "PYG", "₡": "CRC", "₵": "GHS",
    "CZK": "CZK", "Kč": "CZK", "HUF": "HUF", "Ft": "HUF", "MXN": "MXN", "peso": "MXN",
    "pesos": "MXN",
    "pence": "GBp", "cent": "cent", "cents": "cent",
    ",-": "?", ".-": "?",
}
_SYMBOLS = "£€$¥₹₽₺₩₪₫฿₴₦₱₲₡₵"
_CODES = ("GBP|EUR|USD|CAD|AUD|NZD|HKD|SGD|JPY|CNY|RMB|INR|CHF|SEK|NOK|DKK|ISK|PLN|BRL|ZAR"
          "|CZK|HUF|MXN")
_BEFORE = (rf"(?:US|C|A|NZ|HK|S|R)\$|[{_SYMBOLS}]|(?<![A-Za-z])(?:{_CODES}|Rs\.?|SFr\.|Fr\."
           r"|kr\.?|zł|Kč)(?![A-Za-z])")
_AFTER = (rf"[{_SYMBOLS}]|(?:{_CODES}|kr\.?|zł|Kč|Ft)(?![A-Za-z])|,-|\.-"
          r"|(?:pounds?|sterling|euros?|dollars?|yen|yuan|rupees?|francs?|kronor|kroner|krona"
          r"|krone|z[lł]otys?|reais|rand|pesos?|pence|cents?)(?![A-Za-z])")
_SPACE = "[ \u00a0\u202f\u2009]"
_GAP = rf"{_SPACE}?"
#: What may group thousands between two digits: one of these characters.
_THOUSANDS = ",.'’ \u00a0\u202f\u2009"

# How the text is read, and why not with one regular expression. An amount is a currency and
# a number, the currency before it (``£ 2 450``, perhaps with one after it too) or after it
# (``2 450 €``); the number is digits grouped by thousands, with a decimal part or none, or
# plain digits. As one backtracking pattern (``\d{1,3}(?:[ ,.]\d{3})+ ... currency``) the
# engine retries the number from each group of a long run of digits ("111 111 111 ... x"),
# every try walking to the run's end: the work grows with the square of the text (192 s for
# 64 KB, reachable from a card, a reply and a batch tenant). Here each part is looked at once:
# the engine only finds where an amount can start (a currency before digits) or end (digits
# followed by a currency), each a bounded look at a few characters, and the digits before such
# an end are read back group by group, once. What is found is what that pattern found (a test
# holds the two equal on generated text). No library reads amounts in free text (see above).


class _Patterns(NamedTuple):
    before: re.Pattern[str]    # a currency, then (after one space or none) a digit
    after: re.Pattern[str]     # (one space or none, then) a currency
    event: re.Pattern[str]     # where an amount may end (group ``after``) or start
    grouped: re.Pattern[str]   # digits grouped by thousands, every group that follows
    decimals: re.Pattern[str]  # a decimal part: ``,`` or ``.`` and one or two digits
    plain: re.Pattern[str]     # plain digits, perhaps a decimal part
    digits: re.Pattern[str]


@lru_cache(maxsize=1)
def _patterns() -> _Patterns:
    """The patterns, compiled on first use (a few ms: not at start-up). None of them has a
    repeat that another repeat or what follows can make the engine retry."""
    return _Patterns(
        before=re.compile(rf"(?P<pre>{_BEFORE})(?P<gap>{_GAP})(?=\d)", re.IGNORECASE),
        after=re.compile(rf"{_GAP}(?P<post>{_AFTER})", re.IGNORECASE),
        # each alternative first looks at one character (a letter, a symbol), which most
        # places fail at once, before it tries the currencies one by one
        event=re.compile(rf"(?<=\d)(?P<after>)(?={_GAP}[{_SYMBOLS}a-z,.])(?={_GAP}(?:{_AFTER}))"
                         rf"|(?=[{_SYMBOLS}a-z])(?=(?:{_BEFORE}){_GAP}\d)", re.IGNORECASE),
        grouped=re.compile(rf"(?P<first>\d{{1,3}})(?:[{_THOUSANDS}]\d{{3}})+"),
        decimals=re.compile(r"[.,]\d{1,2}(?!\d)"),
        plain=re.compile(r"\d+(?:[.,]\d{1,2}(?!\d))?"),
        digits=re.compile(r"\d+"))


@dataclass(frozen=True)
class Amount:
    """One amount of money found in text.

    Attributes:
        family: the currency, or the family of currencies written alike (``GBP``, ``$``,
            ``kr``); ``?`` when only ``,-`` says it is money.
        values: the value, and other readings of doubtful digits (see the module).
        text: the amount as written.
        start: where it starts in the text.
    """

    family: str
    values: frozenset[Decimal]
    text: str
    start: int


_FOLDED = {k.casefold(): v for k, v in _FAMILIES.items()}


def _family(token: str) -> str:
    t = token.strip()
    return _FAMILIES.get(t) or _FOLDED.get(t.casefold()) or t.upper()


def _values(number: str, before: bool) -> frozenset[Decimal]:
    m = re.search(r"[.,](\d{1,2})$", number)
    whole, cents = (number[: m.start()], m.group(1)) if m else (number, "")
    digits = re.sub(r"\D", "", whole)
    out = {Decimal(f"{digits}.{cents}" if cents else digits)}
    groups = re.split(_SPACE, whole)
    if len(groups) > 1:  # £120 300 people: perhaps £120; 2 people 450 €: perhaps 450 €
        out.add(Decimal(re.sub(r"\D", "", groups[0] if before else groups[-1])))
    return frozenset(out)


def _number_end(text: str, start: int) -> int:
    """Where the number starting at ``start`` (a digit) ends, read as the amount pattern's
    first reading: every group of thousands that follows, and a decimal part; or, when the
    last group runs on into more digits, the groups before it; or plain digits."""
    pat = _patterns()
    grouped = pat.grouped.match(text, start)
    if grouped:
        end = grouped.end()
        if not text[end:end + 1].isdecimal():
            decimals = pat.decimals.match(text, end)
            return decimals.end() if decimals else end
        if (end - grouped.end("first")) // 4 >= 2:  # each group is a separator and 3 digits
            return end - 4
    plain = pat.plain.match(text, start)
    assert plain is not None  # text[start] is a digit
    return plain.end()


def _groups_back(text: str, reverse: str, end: int, floor: int) -> Iterator[tuple[int, int]]:
    """The groups of digits that end at ``end``, last first, as (start, end), back to
    ``floor`` at most: each group is separated from the one before by one character of
    ``_THOUSANDS``. ``reverse`` is ``text[::-1]`` (Python's engine reads forwards only)."""
    n = len(text)
    digits = _patterns().digits
    while True:
        m = digits.match(reverse, n - end, n - floor)
        assert m is not None  # text[end - 1] is a digit
        start = end - len(m.group(0))
        yield start, end
        if (start - 2 < floor or text[start - 1] not in _THOUSANDS
                or not text[start - 2].isdecimal()):
            return
        end = start - 1


def _starts_a_number(text: str, at: int) -> bool:
    """A number is read from ``at`` only where no letter, digit, ``_``, ``.`` or ``,`` is
    just before it (``2.450`` is not read from its ``450``)."""
    return at == 0 or not (text[at - 1].isalnum() or text[at - 1] in "_.,")


def _start_before(text: str, reverse: str, end: int, floor: int) -> int | None:
    """Where the amount whose digits end at ``end`` (a currency follows) starts, not before
    ``floor``: the first group from which the digits up to ``end`` read as one number (the
    groups after it are all of three digits, but for a decimal part of one or two at the end,
    or it is the last group, or the last but one before a decimal part), and before which no
    letter or digit stands. None when there is none."""
    groups = _groups_back(text, reverse, end, floor)
    last_start, _ = next(groups)
    last_len = end - last_start
    found = last_start if _starts_a_number(text, last_start) else None
    decimal_end = last_len <= 2 and last_start >= 2 and text[last_start - 1] in ".,"
    # threes: every group after the one looked at has three digits (with the decimal part
    # left out, for decimals)
    threes, threes_decimal = last_len == 3, decimal_end
    for index, (start, stop) in enumerate(groups):
        length = stop - start
        # the last but one before a decimal part reads as plain digits with it
        reads = (decimal_end and index == 0) or (length <= 3 and (threes or threes_decimal))
        if reads and _starts_a_number(text, start):
            found = start
        threes, threes_decimal = threes and length == 3, threes_decimal and length == 3
        if not (threes or threes_decimal):
            break
    return found


def _scan(text: str) -> tuple[Amount, ...]:
    """Every amount in ``text``, in order: each place where one may start or end found by a
    bounded look, the digits before an end read back once (see the comment above)."""
    pat = _patterns()
    out: list[Amount] = []
    pos = 0  # text before pos belongs to an amount found already
    reverse = ""
    for event in pat.event.finditer(text):
        at = event.start()
        if at < pos:
            continue
        if event.group("after") is not None:
            reverse = reverse or text[::-1]
            start = _start_before(text, reverse, at, pos)
            if start is not None:
                post = pat.after.match(text, at)
                assert post is not None
                out.append(Amount(_family(post["post"]), _values(text[start:at], False),
                                  text[start:post.end()], start))
                pos = post.end()
                continue
        before = pat.before.match(text, at)
        if before:
            end = _number_end(text, before.end())
            post = pat.after.match(text, end)
            pos = post.end() if post else end
            out.append(Amount(_family(before["pre"]), _values(text[before.end():end], True),
                              text[at:pos], at))
    return tuple(out)


#: Texts at most this long are remembered (a card's skill text is read by several checks);
#: a longer one (a reply, a hostile card) is read each time, never kept.
_REMEMBERED = 4096


@lru_cache(maxsize=1024)
def _remembered(text: str) -> tuple[Amount, ...]:
    return _scan(text)


def amounts(text: str) -> tuple[Amount, ...]:
    """Every amount of money in ``text``, in order, each an :class:`Amount`. The work is
    linear in the length of ``text`` (each character is looked at a bounded number of
    times), whatever the text."""
    return _remembered(text) if len(text) <= _REMEMBERED else _scan(text)


def same_amount(a: Amount, b: Amount) -> bool:
    """True when ``a`` and ``b`` can be the same amount: one currency family (or one of
    them only marked as money) and a common reading of the value."""
    if a.family != b.family and "?" not in (a.family, b.family):
        return False
    return bool(a.values & b.values)
