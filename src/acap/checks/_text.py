"""Text rules over a whole card (``acap check``): blank, hidden and overlong text, and
the card's size. The rules themselves are :mod:`acap.load._text`'s, shared with
operator.yaml; what differs for a card is which rule id a blank value gets (A2A 1.0
REQUIRES some strings: ``A2A-REQUIRED``, else ``A2A-EMPTY``).
"""

from __future__ import annotations

import json
from typing import Any

from acap import schemas
from acap.findings import Finding, Location
from acap.load import (
    CARD_LIMIT,
    blank,
    describe,
    dotted,
    hidden_characters,
    length_limit,
    pointer_of,
    pointer_tokens,
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
    """Blank text, hidden characters and overlong text anywhere in a card.

    Args:
        card: the parsed card.
        locate: ``(JSON pointer, key) -> Location`` in the card file.

    Returns:
        ``A2A-REQUIRED`` errors for blank text where A2A 1.0 REQUIRES a value (the
        card schema's ``minLength``), ``A2A-EMPTY`` warnings for other blank text,
        ``TEXT-INVISIBLE`` errors, ``TEXT-LENGTH`` warnings (the card's size too).
    """


    out: list[Finding] = []
    blanks: list[str] = []
    body = {k: v for k, v in card.items() if k != "signatures"}
    for ptr, text, _ in strings(body):
        where = dotted(ptr)
        if blank(text):
            blanks.append(ptr)
            continue
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
    if blanks:
        blanked = json.loads(json.dumps(card))
        for ptr in blanks:
            _set(blanked, ptr, "")
        required = {pointer_of(e.absolute_path) for e in schemas.errors(schemas.AGENT_CARD, blanked)
                    if e.validator == "minLength"}
        for ptr in blanks:
            if ptr in required:
                out.append(Finding("A2A-REQUIRED", "error", f"{dotted(ptr)} has only spaces or "
                                   "invisible characters; a REQUIRED string must have a value",
                                   locate(ptr, False), "write the text"))
            else:
                out.append(Finding("A2A-EMPTY", "warning", f"{dotted(ptr)} has only spaces or "
                                   "invisible characters", locate(ptr, False),
                                   "write the text, or leave the field out"))
    size = len(json.dumps(card, ensure_ascii=False, indent=2).encode("utf-8"))
    found = card_size_finding(size, locate("", False))
    if found:
        out.append(found)
    return out


def _set(data: Any, pointer: str, value: Any) -> None:
    """Set the value at a JSON pointer that exists in ``data``."""
    tokens = pointer_tokens(pointer)
    for t in tokens[:-1]:
        data = data[int(t)] if isinstance(data, list) else data[t]
    if isinstance(data, list):
        data[int(tokens[-1])] = value
    else:
        data[tokens[-1]] = value
