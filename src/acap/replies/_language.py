"""Which of the operator's languages a reply is in: the one the request asks for, else the
operator's own (its first page language).

A2A 1.0 messages carry no language; HTTP requests say which languages their sender prefers
in ``Accept-Language`` (RFC 9110 §12.5.4: language ranges with optional ``q`` weights).
The languages the agent offers are matched in the order of preference: a range equal to an
offered tag, then the range shortened subtag by subtag (RFC 4647 §3.4 "lookup": ``de-CH``
finds ``de``), then an offered tag the range is a prefix of (RFC 4647 §3.3.1 "basic
filtering": ``pt`` finds ``pt-PT``); ``*`` takes the operator's own. Tags compare without
regard to case (RFC 5646 §2.1.1).

Own code rather than a library: the matching is a dozen lines, and none of acap's
dependencies offers it (Babel's ``negotiate_locale`` is for locale identifiers, and Babel
is not one of them).
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["choose_language"]

#: The most language ranges read from one header (a hostile header may list thousands).
MAX_RANGES = 32


def _ranges(accept_language: str) -> list[str]:
    """The ranges of an ``Accept-Language`` value, most preferred first; ``q=0`` dropped."""
    weighted: list[tuple[float, int, str]] = []
    for i, item in enumerate(accept_language.split(",")[:MAX_RANGES]):
        tag, _, params = item.strip().partition(";")
        q = 1.0
        for p in params.split(";"):
            name, _, value = p.strip().partition("=")
            if name.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        if tag.strip() and q > 0:
            weighted.append((-q, i, tag.strip().lower()))
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
