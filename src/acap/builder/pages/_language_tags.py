"""Language tags (BCP 47): whether a tag is well-formed, by the syntax of RFC 5646 §2.1.

A well-formed tag matches the ABNF of RFC 5646 §2.1 (case-insensitively):
language with up to three extended subtags, script, region, variants, extensions
(``en-a-bbb``), private use (``en-x-foo``, and ``x-klingon`` on its own) and the
grandfathered tags (``i-klingon``, ``zh-min-nan``). Whether the subtags are
registered at IANA (validity, §2.2.9) is another question, not asked here: a
private-use tag such as ``x-klingon`` is well-formed and is never registered.

Own code, not a library: the grammar is short and exact, and the libraries that
parse tags answer other questions (``langcodes`` also reads ``en_GB`` and ``123``
as tags; ``language-tags`` checks registration against its own copy of the IANA
registry).
"""

from __future__ import annotations

__all__ = ["is_well_formed", "primary_language_is_reserved"]

import re

_ALNUM = "[a-z0-9]"
#: RFC 5646 §2.1, ``langtag``.
_LANGTAG = (
    r"(?:[a-z]{2,3}(?:-[a-z]{3}){0,3}|[a-z]{4}|[a-z]{5,8})"  # language ["-" extlang]
    r"(?:-[a-z]{4})?"  # script
    r"(?:-(?:[a-z]{2}|[0-9]{3}))?"  # region
    rf"(?:-(?:{_ALNUM}{{5,8}}|[0-9]{_ALNUM}{{3}}))*"  # variants
    rf"(?:-[0-9a-wyz](?:-{_ALNUM}{{2,8}})+)*"  # extensions: a singleton other than x
    rf"(?:-x(?:-{_ALNUM}{{1,8}})+)?"  # private use
)
_PRIVATE_USE = rf"x(?:-{_ALNUM}{{1,8}})+"
#: RFC 5646 §2.1, ``irregular`` and ``regular`` (the grandfathered tags).
_GRANDFATHERED = ("en-gb-oed", "i-ami", "i-bnn", "i-default", "i-enochian", "i-hak",
                  "i-klingon", "i-lux", "i-mingo", "i-navajo", "i-pwn", "i-tao", "i-tay",
                  "i-tsu", "sgn-be-fr", "sgn-be-nl", "sgn-ch-de", "art-lojban", "cel-gaulish",
                  "no-bok", "no-nyn", "zh-guoyu", "zh-hakka", "zh-min", "zh-min-nan",
                  "zh-xiang")
_TAG = re.compile(rf"{_LANGTAG}|{_PRIVATE_USE}")


def is_well_formed(tag: str) -> bool:
    """True when ``tag`` is a well-formed BCP 47 language tag (RFC 5646 §2.1, §2.2.9).

    Args:
        tag: the tag as written (any letter case): ``en``, ``de-CH-1901``,
            ``zh-Hant-TW``, ``en-a-bbb-x-private``, ``x-klingon``, ``i-klingon``.

    Returns:
        Whether it matches the RFC's grammar; ``en_GB``, ``en--GB``, ``123``,
        ``en-`` and ``x`` do not. (``english`` does: a language subtag of 5 to 8
        letters is well-formed; see :func:`primary_language_is_reserved`.)
    """
    if not tag.isascii():
        return False
    low = tag.lower()
    return low in _GRANDFATHERED or _TAG.fullmatch(low) is not None


def primary_language_is_reserved(tag: str) -> bool:
    """True for a well-formed tag whose language subtag has 4 to 8 letters (``english``,
    ``fren-CA``): RFC 5646 §2.2.1 reserves 4 letters for future use and 5 to 8 for
    registered languages, and no language is registered so; such a tag is well-formed
    but names no language. Private-use and grandfathered tags are not reserved."""
    low = tag.lower()
    if low in _GRANDFATHERED or not is_well_formed(tag):
        return False
    first = low.split("-", 1)[0]
    return first != "x" and len(first) >= 4
