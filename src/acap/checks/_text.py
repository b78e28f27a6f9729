"""Text rules over a whole card (``acap check``): blank, hidden and overlong text, and
the card's size. The rules themselves are :mod:`acap.load._text`'s, shared with
operator.yaml; what differs for a card is which rule id a blank value gets (A2A 1.0
REQUIRES some strings: ``A2A-REQUIRED``, else ``A2A-EMPTY``).
"""

from __future__ import annotations

import json
from typing import Any

from acap.findings import Finding, Location
from acap.load import (
    CARD_LIMIT,
    blank,
    describe,
    dotted,
    hidden_characters,
    length_limit,
    strings,
)

__all__ = ["card_size_finding", "card_text"]


def card_size_finding(size: int, location: Location) -> Finding | None:
    """``TEXT-LENGTH`` warning for a card of ``size`` bytes over :data:`CARD_LIMIT`."""
    if size <= CARD_LIMIT:
        return None
    return Finding("TEXT-LENGTH", "warning", f"the card is {size // 1024} KiB; keep it under "
                   f"{CARD_LIMIT // 1024} KiB", location,
                   "clients fetch the card often, and some refuse large ones: shorten the "
                   "descriptions and examples")


def card_text(card: dict[str, Any], locate: Any) -> list[Finding]:
    """Hidden characters and overlong text anywhere in a card (blank text is judged with
    the members: :func:`acap.card.member_findings`).

    Args:
        card: the parsed card.
        locate: ``(JSON pointer, key) -> Location`` in the card file.

    Returns:
        ``TEXT-INVISIBLE`` errors, ``TEXT-LENGTH`` warnings (the card's size too).
    """


    out: list[Finding] = []
    body = {k: v for k, v in card.items() if k != "signatures"}
    for ptr, text, _ in strings(body):
        if blank(text):
            continue  # blank text is a member judgement (acap.card.member_findings)
        where = dotted(ptr)
        hidden = hidden_characters(text)
        if hidden:
            out.append(Finding("TEXT-INVISIBLE", "error", f"{where} holds the invisible "
                               f"character {describe(hidden[0])}"
                               + (f" and {len(hidden) - 1} more" if len(hidden) > 1 else "")
                               + ", which can make the text read differently from what it says",
                               locate(ptr, False), "delete it"))
        limit = length_limit(ptr)
        if len(text) > limit:
            out.append(Finding("TEXT-LENGTH", "warning", f"{where} is {len(text):,} characters "
                               f"long; keep it under {limit:,}", locate(ptr, False),
                               "shorten it"))
    size = len(json.dumps(card, ensure_ascii=False, indent=2).encode("utf-8"))
    found = card_size_finding(size, locate("", False))
    if found:
        out.append(found)
    return out
