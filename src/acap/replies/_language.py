"""Which of the operator's languages a reply is in: the one the request asks for, else the
operator's own (its first page language).

A2A 1.0 messages carry no language; HTTP requests say which languages their sender prefers
in ``Accept-Language`` (RFC 9110 §12.5.4: language ranges with optional ``q`` weights).
The languages the agent offers are matched in the order of preference: a range equal to an
offered tag, then the range shortened subtag by subtag (RFC 4647 §3.4 "lookup": ``de-CH``
finds ``de``), then an offered tag the range is a prefix of (RFC 4647 §3.3.1 "basic
filtering": ``pt`` finds ``pt-PT``); ``*`` takes the operator's own. Tags compare without
regard to case (RFC 5646 §2.1.1).

A header is bounded before any work (a hostile one may be 60 KB, or one range of thousands
of subtags): its first :data:`MAX_HEADER` characters, at most :data:`MAX_RANGES` ranges,
each a well-formed range of at most 8 subtags; what is none is skipped.

Own code rather than a library: the matching is a dozen lines, and none of acap's
dependencies offers it (Babel's ``negotiate_locale`` is for locale identifiers, and Babel
is not one of them).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["choose_language"]

#: The most characters of one ``Accept-Language`` value read (a real one is a few dozen; a
#: hostile one may be 60 KB): the rest is not looked at.
MAX_HEADER = 1024
#: The most language ranges read from one header (a hostile header may list thousands).
MAX_RANGES = 32
#: A language range (RFC 4647 §2.1: ``*``, or a primary subtag of 1 to 8 letters and
#: subtags of 1 to 8 letters or digits), of at most 8 subtags (a longer one names no
#: language an operator offers). Anything else is no range and is skipped, so that
#: matching costs a bounded number of steps per range.
_RANGE = re.compile(r"\*|[a-z]{1,8}(?:-[a-z0-9]{1,8}){0,7}")
#: A weight (RFC 9110 §12.4.2: ``qvalue``).
_QVALUE = re.compile(r"0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?")


def _bounded(accept_language: str) -> str:
    """The part of the header that is read: its first :data:`MAX_HEADER` characters, cut
    back to the last whole range."""
    if len(accept_language) <= MAX_HEADER:
        return accept_language
    head = accept_language[:MAX_HEADER]
    return head[: head.rfind(",")] if "," in head else ""


def _weight(params: str) -> float:
    """The ``q`` of a range's parameters (1 when absent; 0 when it is no qvalue)."""
    for p in params.split(";"):
        name, _, value = p.strip().partition("=")
        if name.strip().lower() == "q":
            value = value.strip()
            return float(value) if _QVALUE.fullmatch(value) else 0.0
    return 1.0


def _ranges(accept_language: str) -> list[str]:
    """The ranges of an ``Accept-Language`` value, most preferred first; ``q=0`` dropped,
    and what is no language range (:data:`_RANGE`) skipped. Bounded before any work: at
    most :data:`MAX_HEADER` characters and :data:`MAX_RANGES` ranges are read."""
    weighted: list[tuple[float, int, str]] = []
    for i, item in enumerate(_bounded(accept_language).split(",", MAX_RANGES)[:MAX_RANGES]):
        tag, _, params = item.partition(";")
        tag = tag.strip().lower()
        q = _weight(params)
        if q > 0 and _RANGE.fullmatch(tag):
            weighted.append((-q, i, tag))
    return [tag for _, _, tag in sorted(weighted)]


def _match(rng: str, offered: Sequence[str]) -> str | None:
    lowered = [t.lower() for t in offered]
    if rng == "*":
        return offered[0]
    parts = rng.split("-")
    while parts:  # lookup: the range, then shorter and shorter
        candidate = "-".join(parts)
        if candidate in lowered:
            return offered[lowered.index(candidate)]
        parts.pop()
    for tag, low in zip(offered, lowered, strict=True):  # basic filtering: a prefix
        if low.startswith(rng + "-"):
            return tag
    return None


def choose_language(accept_language: str | None, offered: Sequence[str]) -> str:
    """The language of the reply.

    Args:
        accept_language: the request's ``Accept-Language`` value, or ``None``.
        offered: the operator's languages, its own first (``page.languages``); not empty.

    Returns:
        One of ``offered``: the first the request prefers, else ``offered[0]``. With
        ``"es-MX, en;q=0.5"`` and ``["en", "es"]``: ``"es"``.
    """
    for rng in _ranges(accept_language or ""):
        found = _match(rng, offered)
        if found is not None:
            return found
    return offered[0]
