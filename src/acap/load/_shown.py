"""Values as messages quote them: never longer than a line.

A card, a server or a file may hold a value of any length (a kid of 100,000
characters); every message that quotes one shortens it here first.
"""

from __future__ import annotations

__all__ = ["SHOWN_LIMIT", "shorten"]

#: Longest value quoted in a message, in characters (a kid, a URL, a name from a card).
SHOWN_LIMIT = 80


def shorten(text: str, limit: int = SHOWN_LIMIT) -> str:
    """``text`` as a message quotes it: at most ``limit`` characters, a longer text cut
    with ``…`` and its length said (``abc… (100,000 characters)``), so that a hostile
    value of any size prints as one short line."""
    if len(text) <= limit:
        return text
    return f"{text[:max(1, limit - 24)]}… ({len(text):,} characters)"
