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
from acap.load._pointer import pointer_join

__all__ = ["IJSON_MAX_INT", "JsonFault", "StrictJson", "json_loads", "plain_message",
           "read_json"]

import json
import math
import re
from dataclasses import dataclass, field
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


def json_loads(text: str, *, hooks: bool = False) -> Any:
    """Parse JSON text strictly.

    Args:
        text: the whole text (already decoded).
        hooks: for :func:`read_json`: objects with a name twice and numbers beyond
            the doubles come back marked, for it to find (never set it elsewhere).

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
        if hooks:
            return json.loads(text, parse_constant=_refuse, object_pairs_hook=_pairs,
                              parse_int=_int, parse_float=_float)
        return json.loads(text, parse_constant=_refuse, parse_int=_int_plain)
    except json.JSONDecodeError as exc:
        raise JsonTextError(plain_message(exc.msg), exc.lineno, exc.colno) from None
    except _NonFinite as exc:  # NaN, Infinity
        line, column = _position(text)
        raise JsonTextError(f"{exc} is not a JSON number (RFC 8259 §6 has no NaN or "
                            "Infinity)", line, column) from None


def _int_plain(text: str) -> Any:
    """An integer literal; beyond 4,300 digits (where Python refuses to convert) the
    double it rounds to, never an exception."""
    return int(text) if len(text) < 4000 else float(text)


def _position(text: str) -> tuple[int | None, int | None]:
    """Line and column of the first NaN or Infinity outside a string."""
    for m in _TOKENS.finditer(text):
        if m.group(1):
            before = text[: m.start(1)]
            return before.count("\n") + 1, m.start(1) - (before.rfind("\n") + 1) + 1
    return None, None


# -- what a JSON text holds that not every reader reads alike (I-JSON, RFC 7493) ----------

#: The largest integer every JSON reader keeps exactly: 2^53 - 1 (RFC 7493 §2.2; RFC 8785
#: §3.2.2.3 signs numbers as IEEE 754 doubles, which hold every integer up to it).
IJSON_MAX_INT = 2**53 - 1


@dataclass(frozen=True)
class JsonFault:
    """One place of a JSON text that readers do not all read alike.

    Attributes:
        kind: ``"duplicate"`` (a member name twice in one object: RFC 8259 §4 leaves
            the result to the reader, RFC 7493 §2.3 forbids it), ``"surrogate"`` (a
            ``\\uD800``-style escape of half a character: not Unicode text, RFC 8259
            §8.2, RFC 7493 §2.1), ``"integer"`` (an integer beyond ±(2^53−1): kept
            digit for digit by some readers, rounded to a double by others, RFC 7493
            §2.2), ``"range"`` (a number beyond the range of IEEE 754 doubles), or
            ``"prototype"`` (a member named ``__proto__``: JavaScript code that copies
            an object by assignment sets the copy's prototype instead, and the member
            is gone; the JavaScript SDK's canonical form loses it, so a signature over
            it verifies in one SDK and not the other).
        pointer: JSON pointer of the member (for ``duplicate``: the member written
            twice; for ``surrogate`` in a name: the member so named).
        text: what was written (a number's digits, the name), for messages.
        double: for ``integer``: the double the number rounds to (what JavaScript and
            RFC 8785 read), else ``None``.
    """

    kind: str
    pointer: str
    text: str
    double: float | None = None


@dataclass
class StrictJson:
    """A JSON text read by :func:`read_json`.

    Attributes:
        data: the value, as every reader that keeps doubles reads it: a duplicated
            name keeps its last value (as JavaScript's ``JSON.parse`` and Python's
            ``json`` do), each lone surrogate is U+FFFD, an integer beyond
            ±(2^53−1) is the double it rounds to (what ``JSON.parse`` and RFC 8785
            give), a number beyond the doubles is ``inf``.
        faults: every :class:`JsonFault`, in document order where known.
    """

    data: Any
    faults: list[JsonFault] = field(default_factory=list)


class _Big:
    """An integer literal beyond ±(2^53−1), kept as written until its place is known."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


class _Dups(dict):  # type: ignore[type-arg]
    """An object in which a name was written twice (the names, in order)."""

    dups: list[str]


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    dups: list[str] = []
    for k, v in pairs:
        if k in out:
            dups.append(k)
        out[k] = v
    if not dups:
        return out
    marked = _Dups(out)
    marked.dups = dups
    return marked


def _int(text: str) -> Any:
    # Compare the digits before int(): Python refuses to convert more than 4,300 digits
    # (a ValueError that would end the whole parse), and a card may hold any number.
    digits = text.lstrip("-")
    if len(digits) < 16 or (len(digits) == 16 and int(digits) <= IJSON_MAX_INT):
        return int(text)
    return _Big(text)


def _float(text: str) -> Any:
    value = float(text)
    return _Big(text) if value in (math.inf, -math.inf) else value


def _surrogate_free(text: str) -> bool:
    return text.isascii() or not any("\ud800" <= c <= "\udfff" for c in text)


def read_json(text: str) -> StrictJson:
    """Parse JSON text strictly, and say what in it readers do not all read alike.

    :func:`json_loads` refuses what is not JSON; this also finds what is JSON but
    not I-JSON (RFC 7493): a name twice in one object, a lone surrogate, an integer
    beyond ±(2^53−1), a number beyond the doubles. Each is a :class:`JsonFault` at
    its JSON pointer, and the value read is the one the SDKs' readers see (see
    :class:`StrictJson`), so that every later step reads text and doubles only.

    Args:
        text: the whole text (already decoded).

    Returns:
        A :class:`StrictJson`.

    Raises:
        JsonTextError: as :func:`json_loads`.
        RecursionError: nesting deeper than Python's stack allows.
    """

    cleaner = _Cleaner()
    return StrictJson(cleaner.value(json_loads(text, hooks=True), "", 0), cleaner.faults)


class _Cleaner:
    """What :func:`read_json` does to each value read: the value as the SDKs' readers see
    it, and each fault found on the way (``faults``)."""

    def __init__(self) -> None:
        self.faults: list[JsonFault] = []

    def value(self, value: Any, ptr: str, depth: int) -> Any:
        if isinstance(value, str):
            return self.string(value, ptr)
        if isinstance(value, _Big):
            return self.number(value, ptr)
        if depth > 200:
            return value
        if isinstance(value, dict):
            return self.object(value, ptr, depth)
        if isinstance(value, list):
            return [self.value(v, pointer_join(ptr, i), depth + 1) for i, v in enumerate(value)]
        return value

    def string(self, value: str, ptr: str) -> str:
        """A text with a lone surrogate: the fault, and the text as it is replaced."""
        if _surrogate_free(value):
            return value
        self.faults.append(JsonFault("surrogate", ptr, _escaped(value)))
        return _replace_surrogates(value)

    def number(self, value: _Big, ptr: str) -> float:
        """A number beyond I-JSON: the fault, and the double readers read."""
        number = float(value.text)
        if number in (math.inf, -math.inf):
            self.faults.append(JsonFault("range", ptr, value.text))
        else:
            self.faults.append(JsonFault("integer", ptr, value.text, number))
        return number

    def object(self, value: dict[str, Any], ptr: str, depth: int) -> dict[str, Any]:
        """An object: a name twice, ``__proto__`` and lone surrogates in names are faults."""
        if isinstance(value, _Dups):
            self.faults.extend(JsonFault("duplicate", pointer_join(ptr, k), k)
                               for k in dict.fromkeys(value.dups))
        out: dict[str, Any] = {}
        for k, v in value.items():
            name = k
            if k == "__proto__":
                self.faults.append(JsonFault("prototype", pointer_join(ptr, k), k))
            if not _surrogate_free(k):
                name = _replace_surrogates(k)
                self.faults.append(JsonFault("surrogate", pointer_join(ptr, name),
                                             _escaped(k)))
            out[name] = self.value(v, pointer_join(ptr, name), depth + 1)
        return out


def _replace_surrogates(text: str) -> str:
    return "".join("\ufffd" if "\ud800" <= c <= "\udfff" else c for c in text)


def _escaped(text: str) -> str:
    """``text`` with each lone surrogate written as its JSON escape (printable)."""
    return "".join(f"\\u{ord(c):04x}" if "\ud800" <= c <= "\udfff" else c for c in text)
