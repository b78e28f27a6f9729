"""Whether a reply gives what a caller may not have: the one judgement the egress guard,
``acap probe`` and ``acap check-reply`` make (issue 19), on the one reading of
:mod:`acap.replies._reading`.

**The text judged.** Every string the reply carries, folded (:func:`fold`) so that one
value has one spelling: Unicode compatibility forms (NFKC: ``１３９５``, ``¹³⁹⁵``), format
characters and control characters removed (``£1\\u200b395``, ``£1\\u00ad395``), every space
and dash one space, HTML entities and percent-escapes decoded (``&pound;1&#44;395``), digits
of any script as ASCII digits, combining marks on digits dropped, and ids written in
hexadecimal (a UUID, a long hex token) read as hexadecimal (a group of letters and digits is
no word; a group of decimal digits is a number). The strings are judged each on its own,
and joined in the order they were sent (a Part's text after another's, across Messages,
status updates and Artifacts; and all the reply's words and data together), so that a
value split across Parts or events is one text; with HTML tags left out too.

**One number however it is written** (:func:`skeleton`, a further view of each text):
Markdown marks and backslash escapes removed, spaces and line breaks inside a number
removed (never across a letter), TR39 look-alikes folded (Cyrillic ``З`` for 3, ``l`` for
1 beside a digit), scientific notation and Roman numerals as digits, CJK numerals and
currency words read (:func:`cjk`); a code of a value (``ZX-7781``) is found with any
separators between its characters. Where a currency stands beside words that look like
numbers in a language acap does not read (Swedish, Finnish, Polish ...), and anything is
kept from the caller, that is ``unsure`` (fail closed).

**Spelled-out numbers** are made digits in Danish, Dutch, English, French, German, Italian,
Portuguese and Spanish (the ``text2num`` library) and Catalan (:func:`_catalan`: acap ships
Catalan words and ``text2num`` has none), and read like digits. A sequence of numbers that
words left side by side (``thirteen ninety-five`` reads ``13 95``) is also read as one
number, as a sum and by place value (``1395``): for privacy, a doubtful reading counts.

**What is found** (:class:`Leak`):

* a value of ``operator.private.yaml`` (``value``, an error), in any of the forms
  :func:`acap.checks.find_private_values` finds, or as an amount of money in the same
  currency and any unit :func:`acap.checks.amounts` knows (pence for pounds, cents);
  the value's number alone is ``number`` (a warning: it may be a year or a street number);
* with ``any_amount`` (a question about an on-request skill, asked by a caller not
  entitled to it, or a question nobody recognised): any amount of money (``amount``, an
  error), in words or in structured data (a number and a currency in one JSON object; an
  integer there is also read in minor units, ``139500`` GBP as £1,395);
* with ``unsure`` (an operator language acap reads no spelled numbers in): a currency next
  to a word (``unsure``, a warning: it may be an amount spelled out);
* what could not be read (``unreadable``, a warning: binary bytes, a file by URL).

Whoever calls decides what a finding means: the guard refuses all of them for a caller not
entitled; the probe and the reply checker report them under the rule the request falls
under (OR-5.3, OR-5.4, OR-5.7) at the level given.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal, InvalidOperation
from functools import cache, lru_cache
from itertools import pairwise
from typing import Literal
from urllib.parse import unquote

from acap.checks import Amount, PrivateValue, amounts, find_private_values, same_amount
from acap.findings import Level
from acap.replies._reading import DataAmount, Reading, is_currency

__all__ = ["READERS", "Leak", "find_leaks", "fold", "may_continue"]

LeakKind = Literal["value", "number", "amount", "unsure", "unreadable"]

#: The languages whose spelled-out numbers are read: ``text2num``'s, and Catalan.
READERS = ("ca", "da", "de", "en", "es", "fr", "it", "nl", "pt")
_TEXT2NUM = ("da", "de", "en", "es", "fr", "it", "nl", "pt")

#: Amounts in a unit below the currency's: ``(family, how many make one)``, for the
#: families :func:`acap.checks.amounts` gives them (``pence``, ``cents``; ``?``: any).
_SUBUNITS = {"GBp": ("GBP", 100), "cent": ("?", 100)}

_HEX_UUID = re.compile(r"(?<![0-9A-Za-z])[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-"
                       r"[0-9a-fA-F]{12}(?![0-9A-Za-z])")
_HEX_TOKEN = re.compile(r"(?<![0-9A-Za-z])(?=[0-9]*[a-fA-F])(?=[a-fA-F]*[0-9])"
                        r"[0-9a-fA-F]{16,}(?![0-9A-Za-z])")
_HEX_GROUP = re.compile(r"[0-9a-fA-F]+")
_PERCENT = re.compile(r"%[0-9A-Fa-f]{2}")
_TAG = re.compile(r"<[^<>]{0,1000}>")
_MARKS = re.compile(r"(?<![^\W\d_])[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff"
                    r"\ufe20-\ufe2f]+")
_RUN = re.compile(r"(?<![\d.,])\d{1,15}(?:,? (?:(?:and|und|et|e|y|i|en|og|och) )?\d{1,15})"
                  r"{1,7}(?![\d.,])")
_TOKEN = re.compile(r"\S+")
#: Text of one view past which the spelled-number readers do not read (they cost about a
#: microsecond a character): digits and amounts are still read whole, and what the readers
#: did not read is said (an ``unreadable`` leak: a guard fails closed).
_SPELLED_MAX = 256 * 1024
_TOO_LONG = "\x00too long"


@cache
def _table() -> dict[int, int | str | None]:
    """The character folding of :func:`fold` (built once, on first use): format characters,
    variation selectors and controls removed; spaces, separators and dashes one space;
    digits of any script ASCII."""
    out: dict[int, int | str | None] = {}
    for cp in (*range(0x20000), *range(0xE0000, 0xE1000)):
        ch = chr(cp)
        cat = unicodedata.category(ch)
        if ch == "\n":
            continue  # a line break stays: it parts the strings of a reply read apart
        if ch in "\t\r\v\f" or cat in ("Zs", "Zl", "Zp", "Pd") or ch in "_/":
            out[cp] = " "
        elif cat in ("Cf", "Cc") or 0xFE00 <= cp <= 0xFE0F or 0xE0100 <= cp <= 0xE01EF:
            out[cp] = None
        elif cat == "Nd" and not ch.isascii():
            out[cp] = str(unicodedata.decimal(ch))
    return out


def _neutral(m: re.Match[str]) -> str:
    """A hexadecimal id as what it is: a group with a letter in it is no word (``9cad`` is
    not the Canadian dollar), a group of decimal digits is a number."""
    return _HEX_GROUP.sub(lambda g: g.group(0) if g.group(0).isdigit() else "x", m.group(0))


def fold(text: str) -> str:
    """``text`` in the one spelling a value is looked for in (module docstring): NFKC,
    HTML entities and percent-escapes decoded, hexadecimal ids neutral, format and control
    characters removed, spaces and dashes one space, digits ASCII, combining marks on
    anything but a letter dropped. Line breaks stay."""
    text = unicodedata.normalize("NFKC", text)
    for _ in range(3):  # &amp;pound; is &pound; is £
        if "&" not in text:
            break
        decoded = html.unescape(text)
        if decoded == text:
            break
        text = decoded
    if "%" in text and _PERCENT.search(text):
        text = unquote(text, errors="replace")
    text = unicodedata.normalize("NFKC", text)
    text = _HEX_UUID.sub(_neutral, text)
    text = _HEX_TOKEN.sub(_neutral, text)
    text = text.translate(_table())
    return _MARKS.sub("", text)


# -- one number however it is written ------------------------------------------------------

#: Look-alikes (Unicode TR39 confusables.txt, the entries whose skeleton is an ASCII Latin
#: letter or digit, for the Cyrillic, Greek and Latin letters that pass for them; written
#: here because no confusables library is installed and the whole table is thousands of
#: pairs no reply about a price uses). Latin look-alikes are folded everywhere in the
#: skeleton view; letters that pass for digits only beside a digit or a currency sign.
_LATIN_LOOKALIKES = str.maketrans(
    "АВЕЅІЈКМНОРСТХУаеіјосрхуѕԁԛԝΑΒΕΖΗΙΚΜΝΟΡΤΥΧαοορϲ",
    "ABESIJKMHOPCTXYaeijocpxysdqwABEZHIKMNOPTYXaoopc")
_DIGIT_LOOKALIKES = {"З": "3", "з": "3", "Ӡ": "3", "ӡ": "3", "Ʒ": "3", "ʒ": "3", "O": "0",
                     "o": "0", "l": "1", "I": "1", "|": "1", "ǀ": "1"}
_LOOK = "".join(_DIGIT_LOOKALIKES)
_LOOK_ONE = re.compile(f"[{re.escape(_LOOK)}]")


def _digit_lookalike(m: re.Match[str], signs: str) -> str:
    """The digit a look-alike letter stands for beside a digit (across one separator) or
    after a currency sign; the letter itself elsewhere (one test per look-alike: linear)."""
    s, i, ch = m.string, m.start(), m.group(0)
    before, after = s[max(0, i - 2):i], s[i + 1:i + 3]
    near = (before[-1:].isdigit() or (before[-1:] in ",." and before[:1].isdigit())
            or (before[-1:] != "" and before[-1] in _SIGN_SET)
            or after[:1].isdigit() or (after[:1] in ",." and after[1:2].isdigit()))
    return _DIGIT_LOOKALIKES[ch] if near and signs else ch


@cache
def _signs() -> str:
    """Every currency sign (Unicode category Sc), as a regular-expression class body."""
    return "".join(re.escape(chr(c)) for c in range(0x10000)
                   if unicodedata.category(chr(c)) == "Sc")


_SIGN_SET = frozenset(c for c in map(chr, range(0x10000)) if unicodedata.category(c) == "Sc")


@cache
def _skeleton_patterns() -> tuple[re.Pattern[str], ...]:
    s = _signs()
    return (
        # a look-alike of a digit beside a digit (across one separator) or a currency sign
        re.compile(rf"(?:(?<=\d)|(?<=\d[,.])|(?<=[{s}]))[{_LOOK}]|[{_LOOK}](?=[,.]?\d)"),
        # space, line breaks, tabs between the digits, separators and sign of one number
        re.compile(rf"(?<=[\d,.{s}])\s+(?=[\d,.])|(?<=\d)\s+(?=[{s}])"),
    )


#: Markdown emphasis and code marks (``_`` is a space already), and backslash escapes.
_MARKUP = re.compile(r"[*`~]+|\\(?=[^\w\s])")
_SCIENTIFIC = re.compile(r"(?<![\w.])(\d{1,15}(?:\.\d{1,15})?)[eE]\+?(\d{1,2})(?![\w.])")
_ROMAN = re.compile(r"(?<![\w])M{0,4}(?:CM|CD|D?C{0,3})(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3})"
                    r"(?![\w])")
_ROMAN_VALUES = {"M": 1000, "D": 500, "C": 100, "L": 50, "X": 10, "V": 5, "I": 1}


def _roman(m: re.Match[str]) -> str:
    word = m.group(0)
    if len(word) < 3:  # "CV", "MD", "I": words more often than numbers
        return word
    values = [_ROMAN_VALUES[c] for c in word]
    return str(sum(-v if i + 1 < len(values) and v < values[i + 1] else v
                   for i, v in enumerate(values)))


def _scientific(m: re.Match[str]) -> str:
    value = Decimal(m.group(1)).scaleb(int(m.group(2)))
    return f"{value:f}" if value == value.to_integral_value() else m.group(0)


def skeleton(text: str) -> str:
    """``text`` (folded, :func:`fold`) with one number one run of characters however it is
    written: Markdown marks and backslash escapes removed, look-alike letters folded (TR39:
    Cyrillic ``З`` for 3, ``l`` for 1 beside a digit), white space between the digits,
    separators and currency sign of one number removed (``£ 1 3 9 5``, ``£1,\\n395``),
    numbers in scientific notation and Roman numerals of three letters or more as digits.
    Only separators and spaces are crossed, never a letter: ``open 9-13, 95 Main St``
    reads ``913,95``, no ``1395``."""
    _, gap = _skeleton_patterns()
    text = _MARKUP.sub("", text).translate(_LATIN_LOOKALIKES)
    for _ in range(2):
        text = _LOOK_ONE.sub(lambda m: _digit_lookalike(m, _signs()), text)
    text = gap.sub("", text)
    text = _SCIENTIFIC.sub(_scientific, text)
    return _ROMAN.sub(_roman, text)


#: CJK numerals (Chinese, Japanese; Korean hanja too): a closed system of a few characters
#: that ``text2num`` does not read, small enough to read here.
_CJK_DIGITS = {"〇": 0, "零": 0, "一": 1, "壱": 1, "壹": 1, "二": 2, "弐": 2, "贰": 2, "貳": 2,
               "两": 2, "兩": 2, "三": 3, "参": 3, "叁": 3, "參": 3, "四": 4, "肆": 4, "五": 5,
               "伍": 5, "六": 6, "陆": 6, "陸": 6, "七": 7, "柒": 7, "八": 8, "捌": 8, "九": 9,
               "玖": 9}
_CJK_UNITS = {"十": 10, "拾": 10, "百": 100, "佰": 100, "千": 1000, "仟": 1000}
_CJK_BIG = {"万": 10**4, "萬": 10**4, "億": 10**8, "亿": 10**8}
_CJK_RUN = re.compile("[" + "".join([*_CJK_DIGITS, *_CJK_UNITS, *_CJK_BIG]) + r"\d]+")
#: Currency words of the languages of CJK numerals, as the ISO code acap reads.
_CJK_CURRENCIES = {"ポンド": " GBP ", "英镑": " GBP ", "英鎊": " GBP ", "円": " JPY ",
                   "日元": " JPY ", "ドル": " USD ", "美元": " USD ", "ユーロ": " EUR ",
                   "欧元": " EUR ", "歐元": " EUR ", "人民币": " CNY ", "元": " CNY ",
                   "원": " KRW "}


def _cjk_number(run: str) -> str:
    """A run of CJK numerals as digits: with units (``千三百九十五``) by place value, without
    (``一三九五``) digit by digit."""
    if not any(c in _CJK_UNITS or c in _CJK_BIG for c in run):
        return "".join(str(_CJK_DIGITS.get(c, c)) for c in run)
    total = section = current = 0
    for ch in run:
        if ch.isdigit():
            current = current * 10 + int(ch)
        elif ch in _CJK_DIGITS:
            current = _CJK_DIGITS[ch]
        elif ch in _CJK_UNITS:
            section += (current or 1) * _CJK_UNITS[ch]
            current = 0
        else:
            total += ((section + current) or 1) * _CJK_BIG[ch]
            section = current = 0
    return str(total + section + current)


def cjk(text: str) -> str:
    """``text`` with CJK numerals as digits and CJK currency words as ISO codes
    (``千三百九十五ポンド`` reads ``1395 GBP``); ``text`` itself when it has none."""
    if text.isascii():
        return text
    # a number apart from the words it is written into (no spaces in Japanese or Chinese)
    out = _CJK_RUN.sub(lambda m: m.group(0) if m.group(0).isdigit() else
                       f" {_cjk_number(m.group(0))} ", text)
    for word, code in _CJK_CURRENCIES.items():
        out = out.replace(word, code)
    return re.sub(r"  +", " ", out) if out != text else text


# -- spelled-out numbers -------------------------------------------------------------------

#: Catalan number words (acap ships Catalan and valencià words; text2num reads neither),
#: by value; the powers of ten multiply what comes before them (:func:`_place_value`).
_CA: dict[str, int] = {
    "zero": 0, "u": 1, "un": 1, "una": 1, "dos": 2, "dues": 2, "tres": 3, "quatre": 4,
    "cinc": 5, "sis": 6, "set": 7, "vuit": 8, "huit": 8, "nou": 9, "deu": 10, "onze": 11,
    "dotze": 12, "tretze": 13, "catorze": 14, "quinze": 15, "setze": 16, "disset": 17,
    "desset": 17, "divuit": 18, "devuit": 18, "dihuit": 18, "dinou": 19, "denou": 19,
    "vint": 20, "trenta": 30, "quaranta": 40, "cinquanta": 50, "seixanta": 60,
    "setanta": 70, "vuitanta": 80, "huitanta": 80, "noranta": 90, "cent": 100,
    "cents": 100, "centes": 100, "mil": 1000, "milió": 10**6, "milions": 10**6,
}
_CA_WORD = re.compile(r"[^\W\d_]+|\d+", re.UNICODE)


def _place_value(numbers: Sequence[Decimal]) -> Decimal:
    """Numbers read as words say them: ``2 100 50`` is 250, ``1 1000 395`` is 1395."""
    total, current = Decimal(0), Decimal(0)
    for n in numbers:
        if n >= 100 and n == 10 ** (len(str(int(n))) - 1):  # a power of ten: multiplies
            current = (current or Decimal(1)) * n
            if n >= 1000:
                total, current = total + current, Decimal(0)
        else:
            current += n
    return total + current


def _catalan(text: str) -> str:
    """``text`` with Catalan number words made digits (``mil dos cents cinquanta`` is
    ``1250``; ``vint i cinc``, once dashes are spaces, ``25``)."""
    spans: list[tuple[int, int, str]] = []
    run: list[Decimal] = []
    start = end = 0
    for m in _CA_WORD.finditer(text):
        word = m.group(0).lower()
        if word in _CA:
            start = start if run else m.start()
            run.append(Decimal(_CA[word]))
            end = m.end()
        elif word == "i" and run:
            continue  # vint-i-cinc
        elif run:
            spans.append((start, end, str(_place_value(run))))
            run = []
    if run:
        spans.append((start, end, str(_place_value(run))))
    out, at = [], 0
    for s, e, digits in spans:
        out += [text[at:s], digits]
        at = e
    return "".join(out) + text[at:] if spans else text


@lru_cache(maxsize=1)
def _alpha2digit() -> Callable[..., str]:
    from text_to_num import alpha2digit  # start-up: only when a reply is read

    return alpha2digit  # type: ignore[no-any-return]


_GATE_WORDS = 512  # a text of more words is read whole: the gate would cost more


@lru_cache(maxsize=1 << 16)
def _reads_as_number(words: str) -> frozenset[str]:
    """The languages of :data:`READERS` (but Catalan, :func:`_catalan`) in which
    ``text2num`` turns ``words`` (one word, or two with a space) into digits; all of them
    where the library cannot tell (fail closed: the text is then read whole)."""
    found = set()
    for lang in READERS[1:]:
        try:
            if _alpha2digit()(words, lang, threshold=0) != words:
                found.add(lang)
        except (ValueError, RuntimeError):
            found.add(lang)
    return frozenset(found)


@lru_cache(maxsize=256)
def _languages_to_read(text: str) -> frozenset[str]:
    """The languages whose spelled-out numbers ``text`` may hold: those in which one of its
    words, or two words side by side, reads as a number. Our own gate, because
    ``text2num`` costs about 10 µs a call and a language, eight calls a text (OR-3.9 reads
    every skill text of every tenant of a batch), while words and pairs recur from text to
    text and their answers are kept. A number ``text2num`` reads in a text holds such a
    word or pair (held on generated texts by tests/unit/replies/test_spelled_gate.py;
    ``o o`` reads ``00`` where ``o`` alone reads nothing, hence the pairs)."""
    toks = text.split()
    if len(toks) > _GATE_WORDS:
        return frozenset(READERS[1:])
    out: frozenset[str] = frozenset()
    for w in toks:
        out |= _reads_as_number(w)
    for a, b in pairwise(toks):
        out |= _reads_as_number(f"{a} {b}")
    return out


def spelled(text: str, language: str) -> str:
    """``text`` with the spelled-out numbers of ``language`` (one of :data:`READERS`) made
    digits; ``text`` as it is when it has none."""
    if language == "ca":
        return _catalan(text)
    if language not in _languages_to_read(text):
        return text
    try:
        return _alpha2digit()(text, language, threshold=0)
    except (ValueError, RuntimeError):  # a text the library cannot read: nothing converted
        return text


def _hundreds(nums: Sequence[Decimal]) -> list[Decimal]:
    """A digit before a number the words made of "hundred ..." (``3 hundred ninety five``
    reads ``3 195``) as the hundreds it counts: ``395``."""
    out: list[Decimal] = []
    for n in nums:
        if out and 0 < out[-1] < 10 and 100 <= n < 200:
            out[-1] = out[-1] * 100 + n - 100
        else:
            out.append(n)
    return out


def _runs(text: str) -> list[str]:
    """Other readings of numbers that words left side by side (module docstring): each as
    the text around it with the run replaced, by concatenation, sum and place value."""
    out = []
    for n, m in enumerate(_RUN.finditer(text)):
        if n >= 64:
            break
        nums = [Decimal(x) for x in re.findall(r"\d+", m.group(0))]
        readings = {"".join(re.findall(r"\d+", m.group(0))), str(sum(nums)),
                    str(_place_value(nums)), str(_place_value(_hundreds(nums)))}
        before, after = text[max(0, m.start() - 40):m.start()], text[m.end():m.end() + 40]
        out += [f"{before}{r}{after}" for r in sorted(readings)]
    return out


# -- the judgement -------------------------------------------------------------------------

@dataclass(frozen=True)
class Leak:
    """One thing a reply gives that a caller may not have (module docstring).

    Attributes:
        kind: ``value``, ``number``, ``amount``, ``unsure`` or ``unreadable``.
        level: ``error`` (certainly given) or ``warning`` (perhaps: a number alone, a
            currency beside words, a part not read).
        why: what was found, in plain words: a value by its line in the private file, never
            its text.
        value: the private value found (``value``, ``number``), else ``None``.
        shown: the amount as the reply wrote it (``amount``), else ``""``: an amount that
            matched no private value may be shown.
        pointer: where the reply holds it (RFC 6901; with ``locate``), else ``""``.
    """

    kind: LeakKind
    level: Level
    why: str
    value: PrivateValue | None = None
    shown: str = ""
    pointer: str = ""

    @property
    def key(self) -> tuple[str, str]:
        """What the leak is, whatever its level or place (a value and its number alone are
        one leak: the value)."""
        if self.value is not None:
            return ("value", self.value.ref)
        return (self.kind, self.shown or self.why)


def _streams(reading: Reading, before: tuple[str, str]) -> tuple[str, ...]:
    """``(texts, content, spaced, apart)``: the Parts' texts joined, everything but the
    protocol's own members joined (``£1,`` then ``395``), and again with a space between
    strings (a currency in one, its number in the next: ``GBP``, ``1395``), every string on
    its own line."""
    texts = before[0] + "".join(p.text for p in reading.pieces if p.kind == "text")
    content = before[1] + "".join(p.text for p in reading.pieces if p.kind != "field")
    spaced = " ".join([before[1][-64:], *(p.text for p in reading.pieces if p.kind != "field")])
    return texts, content, spaced, "\n".join(p.text for p in reading.pieces)


def _views(reading: Reading, before: tuple[str, str]) -> list[tuple[str, str]]:
    """Every text a reading is judged in (module docstring), each with the text its
    spelled-out numbers were read from (``""`` for a text as the reply spells it)."""
    folded = [fold(s) for s in _streams(reading, before) if s]
    base = list(dict.fromkeys([*folded, *(cjk(skeleton(s)) for s in folded)]))
    views = list(base)
    for v in base:
        if "<" in v and ">" in v:
            views.append(_TAG.sub("", v))
    derived: list[tuple[str, str]] = []
    read: set[str] = set()
    for v in list(dict.fromkeys(views)):
        if v.strip() in read:  # the same words with a space more: read once
            continue
        read.add(v.strip())
        if len(v) > _SPELLED_MAX:
            derived.append((f"{_TOO_LONG} {len(v) // 1024}", ""))
            v = v[:_SPELLED_MAX]
        for lang in READERS:
            s = spelled(v, lang)
            if s != v:
                derived += [(s, v), *((r, v) for r in _runs(s))]
    return list(dict.fromkeys([(v, "") for v in views] + derived))


def _chunks(text: str, size: int = 32 * 1024, overlap: int = 512) -> list[str]:
    """``text`` in windows of ``size`` characters, each overlapping the next by ``overlap``
    (longer than any value or amount): the matchers read bounded texts, and keep bounded
    ones in their caches."""
    if len(text) <= size:
        return [text]
    return [text[i:i + size] for i in range(0, len(text) - overlap, size - overlap)]


def _readings(a: Amount) -> list[Amount]:
    """``a``, and ``a`` in its currency where it is in a smaller unit (pence, cents)."""
    if a.family not in _SUBUNITS:
        return [a]
    family, per = _SUBUNITS[a.family]
    return [a, Amount(family, frozenset(x / per for x in a.values), a.text, a.start)]


def _same(a: Amount, b: Amount) -> bool:
    return any(same_amount(x, y) for x in _readings(a) for y in _readings(b))


def _data_amounts(d: DataAmount) -> list[Amount]:
    """The amounts a currency and a number of structured data make; an integer is also
    read in minor units (``139500`` with ``GBP``: £1,395)."""
    found = list(amounts(f"{d.currency} {d.number}") or amounts(f"{d.number} {d.currency}"))
    out = list(found)
    for a in found:
        try:
            whole = Decimal(d.number)
        except InvalidOperation:
            continue
        if whole == whole.to_integral_value():
            out.append(Amount(a.family, frozenset(x / 100 for x in a.values), a.text,
                              a.start))
    return out


@lru_cache(maxsize=256)
def _spaced_patterns(value: str) -> tuple[re.Pattern[str], ...]:
    """The codes of a value that is no amount (``ZX-7781`` in ``casket code ZX-7781``): each
    word with a letter and a digit and four characters or more, as its letters and digits
    with any separators or spaces between them (``Z X 7 7 8 1``), never a letter."""
    gap = r"[\s\-.,:;/|*_`~\\'\"]{0,3}"
    out = []
    for word in value.split():
        chars = [c for c in skeleton(fold(word)) if c.isalnum()]
        if len(chars) >= 4 and any(c.isdigit() for c in chars) and \
                any(c.isalpha() for c in chars):
            out.append(re.compile(r"(?<![^\W_])" + gap.join(re.escape(c) for c in chars)
                                  + r"(?![^\W_])", re.IGNORECASE))
    return tuple(out)


#: Number words of languages acap reads no numbers in (Nordic, Finnish, Slavic, Hungarian,
#: Turkish ...), as parts of words (Swedish writes ``trehundranittiofem`` in one), and
#: currency words of theirs :func:`acap.checks.amounts` does not know: beside each other
#: they may be an amount, and a caller not entitled is refused (fail closed). A guess.
_NUMBERISH = re.compile(r"tusen|hundra|hundre(?!d)|tjugo|trettio|fyrtio|femtio|sextio|sjuttio|"
                        r"åttio|nittio|tuhat|sataa|kymment|tysi[aą]c|tysięcy|sto\b|tisíc|"
                        r"тысяч|сот|сто|десят|ezer|száz|bin\b|yüz|milion|miliard|"
                        r"[" + "".join([*_CJK_DIGITS, *_CJK_UNITS, *_CJK_BIG]) + "]",
                        re.IGNORECASE)
_MORE_CURRENCIES = re.compile(r"^(?:pund|punt|funt|фунт\w*|kron[aeo]r?|kroner|kr|złot\w*|zł|"
                              r"рубл\w*|руб|lir[ae]|forint|ft|lira|zloty)$", re.IGNORECASE)


_CONNECTORS = frozenset({"and", "und", "et", "e", "y", "i", "en", "og", "och", "-"})


def _number_word(token: str) -> bool:
    word = token.strip(".,;:!?()\"'")
    return any(c.isdigit() for c in word) or word.lower() in _CONNECTORS or \
        any(spelled(word, lang) != word for lang in READERS)


def _words_of(found: str, source: str) -> str:
    """An amount read from spelled-out numbers (``1395 pounds``) as ``source`` writes it:
    its currency and the number words beside it (``thirteen hundred and ninety five
    pounds``); ``found`` where ``source`` does not show it so."""
    currency = " ".join(w for w in found.split() if not any(c.isdigit() for c in w)) or \
        re.sub(r"[\d.,\s]+", "", found)
    tokens = source.split()
    for i, tok in enumerate(tokens):
        if currency and tok.strip(".,;:!?()\"'").casefold() == currency.casefold():
            lo, hi = i, i
            while lo > 0 and _number_word(tokens[lo - 1]):
                lo -= 1
            while lo == i and hi + 1 < len(tokens) and _number_word(tokens[hi + 1]):
                hi += 1
            if lo < i or hi > i:
                return " ".join(tokens[lo:hi + 1]).strip(".,;:!?()\"'")
    return found


@dataclass
class _Judge:
    values: Sequence[PrivateValue]
    any_amount: bool
    found: dict[tuple[str, str], Leak]

    def __post_init__(self) -> None:
        self.folded = {replace(v, text=fold(v.text)): v for v in self.values}
        self.source = ""
        self.text = ""
        #: the texts whose spelled-out numbers gave a value, and where each amount read from
        #: words came from: another reading of the same words (1310095 of "13 hundred and
        #: 95") is no other amount
        self.valued: set[str] = set()
        self.read_from: dict[tuple[str, str], str] = {}
        self.spelled = [(p, v) for v in self.values if not amounts(v.text)
                        for p in _spaced_patterns(v.text)]

    def add(self, leak: Leak) -> None:
        if self.source and leak.kind == "value":
            self.valued.add(self.source)
        elif self.source and leak.kind == "amount":
            self.read_from.setdefault(leak.key, self.source)
        old = self.found.get(leak.key)
        if old is None or (old.level == "warning" and leak.level == "error"):
            self.found[leak.key] = leak

    def view(self, text: str) -> None:
        for fv, level in find_private_values(text, list(self.folded)):
            v = self.folded[fv]
            if level == "error":
                self.add(Leak("value", "error", f"a value given on request ({v.ref})", v))
            else:
                self.add(Leak("number", "warning", "the number of a value given on request "
                              f"({v.ref})", v))
        for pattern, v in self.spelled:
            if pattern.search(text):
                self.add(Leak("value", "error", f"a value given on request ({v.ref})", v))
        for a in amounts(text):
            self.amount(a, "")

    def amount(self, a: Amount, pointer: str) -> None:
        for v in self.values:
            if any(_same(a, b) for b in amounts(v.text)):
                self.add(Leak("value", "error", f"a value given on request ({v.ref})", v,
                              pointer=pointer))
                return
        if self.any_amount:
            if self.source:
                shown = _words_of(a.text.strip(), self.source[:4096])
            else:  # the number words before a number (13 hundred and 95 pounds) are of it
                around = self.text[max(0, a.start - 200):a.start + len(a.text) + 200]
                shown = _words_of(a.text.strip(), around)
            self.add(Leak("amount", "error", "an amount of money", shown=shown,
                          pointer=pointer))

    def numberish(self, text: str) -> None:
        """A currency beside words that look like numbers in a language acap does not read
        (``ettusen trehundranittiofem pund``): ``unsure`` (module docstring)."""
        tokens = _TOKEN.findall(text)
        numberish: dict[int, bool] = {}  # each token looked at once: linear in the text

        def looks(j: int) -> bool:
            if j not in numberish:
                numberish[j] = bool(_NUMBERISH.search(tokens[j]))
            return numberish[j]

        for i, t in enumerate(tokens):
            core = t.strip(".,;:!?()[]{}\"'«»")
            if not (is_currency(core) or _MORE_CURRENCIES.match(core) or
                    any(unicodedata.category(c) == "Sc" for c in t)):
                continue
            if any(looks(j) for j in range(max(0, i - 3), min(len(tokens), i + 4)) if j != i):
                self.add(Leak("unsure", "warning", "a currency beside words that may be a "
                              "number in a language acap cannot read (a guess)", shown=core))
                return

    def unsure(self, text: str) -> None:
        """A currency beside a word, no digit near it (``unsure``)."""
        tokens = _TOKEN.findall(text)
        for i, t in enumerate(tokens):
            core = t.strip(".,;:!?()[]{}\"'«»")
            if not (is_currency(core) or any(unicodedata.category(c) == "Sc" for c in t)):
                continue
            near = tokens[max(0, i - 2):i + 3]
            if any(c.isdigit() for n in near for c in n):
                continue
            side = [tokens[j] for j in (i - 1, i + 1) if 0 <= j < len(tokens)]
            if any(s.strip(".,;:!?()\"'").isalpha() for s in side):
                self.add(Leak("unsure", "warning", "a currency beside words acap cannot read "
                              "as a number (an amount may be spelled out in a language acap "
                              "reads no numbers in)", shown=core))
                return


def find_leaks(reading: Reading, values: Sequence[PrivateValue], *, any_amount: bool,
               unsure: bool = False, before: tuple[str, str] = ("", ""),
               locate: bool = False) -> list[Leak]:
    """What ``reading`` gives of ``values`` (module docstring).

    Args:
        reading: the reply (:func:`acap.replies.reading_of`).
        values: the private values the caller may not have (an empty list: none).
        any_amount: any amount of money is a leak (an error).
        unsure: a currency beside words is one too (a warning): the operator writes in a
            language acap reads no spelled numbers in.
        before: ``(texts, content)`` sent just before in the same stream (the egress guard's
            judgement of the next events): joined in front, so that a value split across
            the two is found.
        locate: find where each leak is in the reply (``pointer``; costs a few more readings).

    Returns:
        The leaks, errors first, each once (its strongest finding).
    """
    judge = _Judge(values, any_amount, {})
    for view, source in _views(reading, before):
        judge.source = source
        if view.startswith(_TOO_LONG):
            judge.add(Leak("unreadable", "warning", f"{view.split()[-1]} KiB of text: numbers "
                           f"spelled out past its first {_SPELLED_MAX // 1024} KiB are not "
                           "read"))
            continue
        for chunk in _chunks(view):
            judge.text = chunk
            judge.view(chunk)
    judge.source = ""
    for d in reading.amounts:
        found = _data_amounts(d)
        # one number of data is one amount: where a reading of it (units, minor units) is a
        # value given, the other is not another amount
        given = [a for a in found if any(_same(a, b) for v in values for b in amounts(v.text))]
        for a in given or found:
            judge.amount(a, d.pointer)
    if unsure:
        for text in _streams(reading, before)[1:3]:
            judge.unsure(fold(text))
    if unsure or any_amount or values:  # anything kept: a guess is refused too
        for text in _streams(reading, before)[1:3]:
            judge.numberish(fold(text))
    for pointer, why in reading.unreadable:
        judge.add(Leak("unreadable", "warning", why, pointer=pointer))
    leaks = sorted(_whole_amounts([lk for lk in judge.found.values()
                                   if judge.read_from.get(lk.key) not in judge.valued]),
                   key=lambda lk: lk.level != "error")
    if locate:
        leaks = [lk if lk.pointer else replace(lk, pointer=_locate(reading, lk, values,
                                                                   any_amount, unsure))
                 for lk in leaks]
    return leaks


def _whole_amounts(leaks: list[Leak]) -> list[Leak]:
    """The amounts named as the text shows them, whole: an amount that is part of another
    (``£1`` of ``£1,395``, ``£ 13`` of ``£ 1 3 9 5``, ``95 pounds`` of ``13 hundred and 95
    pounds``: read before the skeleton or the words joined it) or of a value given is left
    out."""
    def bare(s: str) -> str:
        return "".join(skeleton(fold(s)).split()).casefold()

    wholes = {bare(lk.shown) for lk in leaks if lk.kind == "amount"} | \
        {bare(lk.value.text) for lk in leaks if lk.kind == "value" and lk.value}
    kept: dict[str, Leak] = {}  # one amount, spelled two ways: named as the reply shows it
    out = []
    for lk in leaks:
        if lk.kind != "amount":
            out.append(lk)
            continue
        b = bare(lk.shown)
        if any(s != b and b in s for s in wholes):
            continue
        if b not in kept:
            out.append(lk)
        elif len(lk.shown) > len(kept[b].shown):
            out[out.index(kept[b])] = lk
        else:
            continue
        kept[b] = lk
    return out


def _locate(reading: Reading, leak: Leak, values: Sequence[PrivateValue], any_amount: bool,
            unsure: bool) -> str:
    """The pointer of the piece where ``leak`` is complete: the fewest first pieces of the
    reading that give it (a binary search)."""
    def gives(n: int) -> bool:
        part = Reading(reading.pieces[:n])
        return any(lk.key == leak.key for lk in find_leaks(part, values, any_amount=any_amount,
                                                           unsure=unsure))

    lo, hi = 1, len(reading.pieces)
    if hi == 0 or not gives(hi):
        return reading.pieces[0].pointer if reading.pieces else ""
    while lo < hi:
        mid = (lo + hi) // 2
        if gives(mid):
            hi = mid
        else:
            lo = mid + 1
    return reading.pieces[lo - 1].pointer


def may_continue(texts: str, content: str, values: Sequence[PrivateValue]) -> bool:
    """Whether the end of what a stream said so far may be the start of a leak that what it
    says next completes (the egress guard holds the events until it may not): one of the
    last four words holds a digit, a currency sign, ``&``, ``%`` or ``#`` (an escape), is a
    currency, or a number word of :data:`READERS`; or the end is the start of a value.

    Args:
        texts: the Parts' texts said so far, joined (their last few hundred characters do).
        content: everything but the protocol's own members, joined (as ``texts``).
        values: the private values the caller may not have.
    """
    for said in (texts, content):
        tail = fold(said[-160:])
        words = _TOKEN.findall(tail)[-4:]
        if not words:
            continue
        last = " ".join(words)
        if any(c.isdigit() or c in "&%#\\" or unicodedata.category(c) == "Sc" for c in last):
            return True
        if any(is_currency(w.strip(".,;:!?()\"'")) for w in words):
            return True
        if any(spelled(last, lang) != last for lang in READERS):
            return True
        end = " ".join(tail.casefold().split())
        for v in values:
            whole = " ".join(fold(v.text).casefold().split())
            if any(end.endswith(whole[:k]) for k in range(1, len(whole))):
                return True
    return False
