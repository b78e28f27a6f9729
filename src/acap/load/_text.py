"""Rules for every piece of text, in operator.yaml and in a card.

* **Blank text** (``SCHEMA-EMPTY`` in operator.yaml, ``A2A-REQUIRED`` for a REQUIRED
  card field, ``A2A-EMPTY`` for another): text made only of spaces or of
  invisible characters (``"   "``, a zero-width space, a Hangul filler) has no
  value, as ``""`` has none; a card would show an empty name.
* **Hidden characters** (``TEXT-INVISIBLE``, error): bidirectional controls
  (U+202A to U+202E, U+2066 to U+2069: "Trojan Source", CVE-2021-42574) and other
  invisible format characters (zero-width space, word joiner, soft hyphen,
  Unicode tag characters that can smuggle instructions to a language model) make
  text read differently from what it says, to people and to the assistants that
  read cards. Allowed: the joiners scripts and emoji need (U+200C, U+200D), the
  plain direction marks (U+200E, U+200F, U+061C), and tag characters inside an
  emoji flag sequence.
* **Length** (``TEXT-LENGTH``, warning): a name over :data:`NAME_LIMIT`
  characters, other text over :data:`TEXT_LIMIT`, a card over
  :data:`CARD_LIMIT` bytes. Clients fetch cards often and show names in one line.

Python's ``unicodedata`` gives the categories; which format characters are safe
is a judgement no library makes, hence the lists here (after Unicode UTS #39 and
UAX #9).
"""

from __future__ import annotations

__all__ = ["CARD_LIMIT", "NAME_LIMIT", "TEXT_LIMIT", "blank", "describe", "hidden_characters",
           "kid_problem", "length_limit", "strings"]

import re
import unicodedata
from collections.abc import Iterator
from typing import Any

#: Longest name (of the operator, the agent, a skill), id, tag or kid, in characters.
NAME_LIMIT = 200
#: Longest other text (a description, an example, a URL), in characters.
TEXT_LIMIT = 2000
#: Largest card, in bytes of its JSON.
CARD_LIMIT = 64 * 1024

#: Format characters that text needs: the joiners of Indic, Persian and emoji
#: sequences, the plain direction marks, and signs that are visible (Arabic number
#: signs, Kaithi number sign ...).
_ALLOWED_FORMAT = {0x200C, 0x200D, 0x200E, 0x200F, 0x061C, 0x0600, 0x0601, 0x0602, 0x0603,
                   0x0604, 0x0605, 0x06DD, 0x070F, 0x0890, 0x0891, 0x08E2, 0x110BD, 0x110CD}
#: Letters that show as nothing: Hangul fillers, the blank Braille pattern.
_BLANK_LETTERS = {0x115F, 0x1160, 0x3164, 0xFFA0, 0x2800}
#: An emoji flag of a region (black flag, tag characters, cancel tag): tags allowed there.
_EMOJI_TAG_SEQUENCE = re.compile("\U0001F3F4[\U000E0020-\U000E007E]+\U000E007F")
_NAME_KEYS = {"name", "id", "kid", "organization", "version", "binding", "protocolBinding",
              "protocolVersion"}
_NAME_LISTS = {"tags", "languages", "inputModes", "outputModes", "defaultInputModes",
               "defaultOutputModes"}


_ASCII_VISIBLE = re.compile(r"[!-~]")
_ASCII_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def blank(text: str) -> bool:
    """True for text that is not empty but shows nothing: only spaces, control and
    format characters, or blank letters (``"   "``, ``"\\u200b"``, ``"\\u3164"``)."""
    if not text:
        return False
    if text.isascii():  # the common case, in C: blank when nothing visible is in it
        return _ASCII_VISIBLE.search(text) is None
    for ch in text:
        if ch.isspace() or ord(ch) in _BLANK_LETTERS:
            continue
        if unicodedata.category(ch) in ("Cc", "Cf", "Zs", "Zl", "Zp"):
            continue
        return False
    return True


def hidden_characters(text: str) -> list[str]:
    """The characters of ``text`` that change how it reads without showing (see the
    module docstring), each once, in order of first appearance.

    Control characters other than tab and line breaks count too.
    """
    if text.isascii():
        if _ASCII_CONTROL.search(text) is None:  # the common case, in C
            return []
        return sorted({ch for ch in text if (ord(ch) < 32 and ch not in "\t\n\r")
                       or ord(ch) == 127}, key=text.index)
    if "\U000E007F" in text:
        text = _EMOJI_TAG_SEQUENCE.sub("", text)
    found: dict[str, None] = {}
    for ch in text:
        cat = unicodedata.category(ch)
        if (cat == "Cf" and ord(ch) not in _ALLOWED_FORMAT) or \
                (cat == "Cc" and ch not in "\t\n\r"):
            found[ch] = None
    return list(found)


def describe(ch: str) -> str:
    """``U+202E (RIGHT-TO-LEFT OVERRIDE)``."""
    name = unicodedata.name(ch, "")
    return f"U+{ord(ch):04X}" + (f" ({name})" if name else "")


def kid_problem(kid: str) -> str | None:
    """What makes ``kid`` unfit as a JWS key id (RFC 7515 §4.1.4), in words, or ``None``.

    A kid is matched byte for byte against the JWKS and printed by verifiers: a space,
    a line break or another control or invisible character there is a mistake (a
    copied line) or a way to forge what a verifier prints.
    """
    for ch in kid:
        if ch == " ":
            return "a space"
        if ch.isspace() or unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp"):
            return f"the character {describe(ch)}"
    return None


def length_limit(pointer: str) -> int:
    """How many characters the text at ``pointer`` should stay under: names, ids, tags
    and the like :data:`NAME_LIMIT`, anything else :data:`TEXT_LIMIT`."""
    parts = pointer.rsplit("/", 2)
    last = parts[-1]
    if last in _NAME_KEYS or (last.isdigit() and len(parts) > 1 and parts[-2] in _NAME_LISTS):
        return NAME_LIMIT
    return TEXT_LIMIT


def strings(data: Any, ptr: str = "", keys: bool = False) -> Iterator[tuple[str, str, bool]]:
    """Every string of JSON-shaped ``data``: ``(pointer, text, is a key)``.

    Keys are included with ``keys=True`` (their pointer is the pointer of their value).
    """
    from acap.load._pointer import pointer_join

    stack: list[tuple[str, Any]] = [(ptr, data)]
    while stack:
        p, v = stack.pop()
        if isinstance(v, str):
            yield p, v, False
        elif isinstance(v, dict):
            for k, x in reversed(list(v.items())):
                child = pointer_join(p, k)
                stack.append((child, x))
                if keys and isinstance(k, str):
                    stack.append((child, _Key(k)))
        elif isinstance(v, list):
            stack.extend((pointer_join(p, i), x) for i, x in reversed(list(enumerate(v))))
        elif isinstance(v, _Key):
            yield p, v.text, True


class _Key:
    """A mapping key on the walk of :func:`strings` (told apart from a value)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text
