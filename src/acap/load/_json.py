"""Reading JSON text strictly (RFC 8259), with faults said in plain words.

Python's :func:`json.loads` accepts ``NaN``, ``Infinity`` and ``-Infinity``, which
are not JSON (RFC 8259 §6: "Numeric values that cannot be represented ... such as
Infinity and NaN are not permitted"): another reader of a card would refuse the
file, or read something else. :func:`json_loads` refuses them, and turns the
decoder's terse messages (``Expecting value``) into sentences a person can act
on, with the line and column.
"""

from __future__ import annotations

from acap.errors import JsonTextError

__all__ = ["json_loads", "plain_message"]

import json
import re
from typing import Any

#: The decoder's messages (CPython's json module, stable since 3.5), in plain words.
_PLAIN = {
    "Expecting value": "a value is missing or is not JSON here (text goes in double quotes; "
                       "true, false and null are written in lower case)",
    "Expecting property name enclosed in double quotes":
        "a key is expected here, in double quotes (or a comma stands before a closing })",
    "Expecting ',' delimiter": "a comma is missing between two values",
    "Expecting ':' delimiter": "a colon is missing after a key",
    "Unterminated string starting at": "a text in double quotes is not closed",
    "Invalid control character at": "a line break or another control character is inside "
                                    "double quotes (write it as \\n)",
    "Invalid \\escape": "a backslash starts no JSON escape (write \\\\ for a backslash)",
    "Invalid \\uXXXX escape": "a \\u escape lacks its four hexadecimal digits",
    "Extra data": "more follows the end of the JSON value (a file holds one value)",
}
#: A string (skipped) or a constant Python's decoder accepts and JSON does not.
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|(-?Infinity|NaN)')


def plain_message(msg: str) -> str:
    """The decoder message ``msg`` (:attr:`json.JSONDecodeError.msg`) in plain words."""
    return _PLAIN.get(msg, msg)


class _NonFinite(Exception):
    pass


def _refuse(name: str) -> Any:
    raise _NonFinite(name)


def json_loads(text: str) -> Any:
    """Parse JSON text strictly.

    Args:
        text: the whole text (already decoded).

    Returns:
        The parsed value.

    Raises:
        JsonTextError: empty text ("the file is empty"), text that is not JSON (the
            decoder's fault in plain words, at its line and column), or ``NaN``,
            ``Infinity`` or ``-Infinity`` as a value (RFC 8259 §6).
        RecursionError: nesting deeper than Python's stack allows.
    """
    if not text.strip():
        raise JsonTextError("the file is empty", None, None)
    try:
        return json.loads(text, parse_constant=_refuse)
    except json.JSONDecodeError as exc:
        raise JsonTextError(plain_message(exc.msg), exc.lineno, exc.colno) from None
    except _NonFinite as exc:
        line, column = _position(text)
        raise JsonTextError(f"{exc} is not a JSON number (RFC 8259 §6 has no NaN or "
                            "Infinity)", line, column) from None


def _position(text: str) -> tuple[int | None, int | None]:
    """Line and column of the first NaN or Infinity outside a string."""
    for m in _TOKENS.finditer(text):
        if m.group(1):
            before = text[: m.start(1)]
            return before.count("\n") + 1, m.start(1) - (before.rfind("\n") + 1) + 1
    return None, None
