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
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache

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
#: Digits grouped by thousands (any separator) with an optional decimal part, or plain.
_SPACE = "[ \u00a0\u202f\u2009]"
_NUM = (rf"\d{{1,3}}(?:(?:[,.'’]|{_SPACE})\d{{3}})+(?:[.,]\d{{1,2}})?(?!\d)"
        r"|\d+(?:[.,]\d{1,2})?(?!\d)")
_GAP = r"[ \u00a0\u202f\u2009]?"


@lru_cache(maxsize=1)
def _pattern() -> re.Pattern[str]:
    """The amount pattern, compiled on first use (about 3 ms: not at start-up)."""
    return re.compile(
        rf"(?P<pre>{_BEFORE}){_GAP}(?P<n1>{_NUM})(?:{_GAP}(?P<post1>{_AFTER}))?"
        rf"|(?<![\w.,])(?P<n2>{_NUM}){_GAP}(?P<post2>{_AFTER})", re.IGNORECASE)


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


@lru_cache(maxsize=4096)
def amounts(text: str) -> tuple[Amount, ...]:
    """Every amount of money in ``text``, in order."""
    out = []
    for m in _pattern().finditer(text):
        currency = m["pre"] or m["post2"] or ""
        number = m["n1"] or m["n2"]
        out.append(Amount(_family(currency), _values(number, bool(m["pre"])), m.group(0),
                          m.start()))
    return tuple(out)


def same_amount(a: Amount, b: Amount) -> bool:
    """True when ``a`` and ``b`` can be the same amount: one currency family (or one of
    them only marked as money) and a common reading of the value."""
    if a.family != b.family and "?" not in (a.family, b.family):
        return False
    return bool(a.values & b.values)
