"""JSON pointers (RFC 6901): how every finding names the place of a value.

A finding's :class:`~acap.findings.Location` carries the pointer of the value it
is about (``/skills/1/personEntry``); a message names the place as people read
it (:func:`dotted`: ``skills[1].personEntry``). The standard library and our
libraries have no pointer helpers (jsonschema gives paths as token lists), hence
these four small functions.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from acap.load._shown import shorten

__all__ = ["dotted", "pointer_join", "pointer_of", "pointer_tokens"]


def pointer_join(base: str, token: str | int) -> str:
    """Append one reference token to a JSON pointer, escaping per RFC 6901 §3.

    ``pointer_join("/skills", 1)`` -> ``"/skills/1"``; ``pointer_join("", "a/b")`` ->
    ``"/a~1b"``.
    """
    t = str(token)
    if "~" in t or "/" in t:
        t = t.replace("~", "~0").replace("/", "~1")
    return f"{base}/{t}"


def pointer_of(path: Iterable[str | int], base: str = "") -> str:
    """The pointer of a token path (a jsonschema error's ``absolute_path``), under ``base``."""
    ptr = base
    for token in path:
        ptr = pointer_join(ptr, token)
    return ptr


def pointer_tokens(pointer: str, *, indexes: bool = False) -> list[Any]:
    """The unescaped reference tokens of ``pointer`` (RFC 6901 §4): ``"/a~1b/0"`` ->
    ``["a/b", "0"]``; with ``indexes``, tokens of digits only are ``int`` (``0``)."""
    tokens: list[Any] = []
    for t in pointer.split("/")[1:]:
        t = t.replace("~1", "/").replace("~0", "~")
        tokens.append(int(t) if indexes and t.isdigit() else t)
    return tokens


def dotted(pointer: str) -> str:
    """A JSON pointer as people read a field path: ``/skills/1/tags/0`` -> ``skills[1].tags[0]``.

    The root pointer ``""`` reads ``the card``; a name longer than 40 characters is
    shortened (:func:`acap.load._shown.shorten`).
    """

    out = ""
    for token in pointer_tokens(pointer):
        token = shorten(token, 40)
        out += f"[{token}]" if token.isdigit() else (f".{token}" if out else token)
    return out or "the card"
