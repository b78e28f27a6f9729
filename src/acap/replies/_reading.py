"""What an A2A reply carries, as the egress guard, ``acap probe`` and ``acap check-reply``
read it for what it may give away (issue 19): everything a caller receives, whatever part of
the reply holds it. One reading, so that the three never disagree on what a reply says.

A reply (a Message, a Task, a status or artifact update, a ``StreamResponse``, a JSON-RPC
response, as A2A 1.0 JSON, or a list of them: a stream) is read into :class:`Piece`\\ s, in
order, each with its JSON pointer and its kind:

* ``text``: what a Part says: ``text``, and ``raw`` bytes decoded (:func:`decode_raw`);
* ``content``: everything else that is not the protocol's own: a Part's ``data`` and every
  ``metadata`` (keys and values, numbers as digits), file names and URLs, an Artifact's name
  and description, a JSON-RPC error's message and data, and any member A2A 1.0 does not
  define (its name too);
* ``field``: the protocol's own members: ids (``messageId``, ``artifactId``,
  ``referenceTaskIds``, ``taskId``, ``contextId``), ``extensions``, roles, states,
  timestamps. Read too: an executor chooses its ids and may write anything in them.

What is not read: the ``exempt`` strings (the task and context ids the runtime, not the
executor, made), and what the caller itself sent (``own``: a message of the caller's in a
Task's ``history``, member by member: a member that differs from the caller's, or a
``ROLE_USER`` message the caller never sent, is read).

What cannot be read is said (:attr:`Reading.unreadable`), so that a guard can fail closed:
``raw`` bytes that are not text of a text media type in a known encoding (what a guess at
their encoding reads is read too), a file by ``url`` (what it points at is not fetched), a
Part of no kind A2A 1.0 defines, a reply nested deeper than :data:`MAX_DEPTH` or larger than
:data:`MAX_CHARS`.

Amounts in structured data (:class:`DataAmount`): a JSON object of ``data`` or ``metadata``
holding a number (a JSON number, or a string that is one) and a currency (a member's name
or a short string of it or of an enclosing object that names one, as
:func:`acap.checks.amounts` knows currencies: ``{"amount": 1395, "currency": "GBP"}``,
``{"pence": 139500}``).

Pure: no SDK import (the probe loads a2a-sdk only when it sends).
"""

from __future__ import annotations

import base64
import binascii
import codecs
import json
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Literal

from acap.checks import amounts
from acap.load import pointer_join

__all__ = ["MAX_CHARS", "MAX_DEPTH", "DataAmount", "Piece", "Reading", "decode_raw",
           "is_currency", "reading_of", "sdk_ids"]

#: Characters read from one reply at most (a larger one is read so far, and said to be
#: unreadable beyond: a guard then fails closed).
MAX_CHARS = 1024 * 1024
#: JSON nesting read at most.
MAX_DEPTH = 64

Kind = Literal["text", "content", "field"]

#: The members A2A 1.0 defines on the objects of a reply (specification/a2a.proto, in JSON
#: names) and of a JSON-RPC 2.0 response: their names are the protocol's, not words of the
#: agent's. Any other member's name is read.
_A2A_MEMBERS = frozenset({
    "jsonrpc", "id", "result", "error", "code", "message", "task", "statusUpdate",
    "artifactUpdate", "messageId", "contextId", "taskId", "role", "parts", "metadata",
    "extensions", "referenceTaskIds", "status", "state", "timestamp", "artifacts", "history",
    "artifactId", "name", "description", "append", "lastChunk", "artifact", "final",
    "text", "raw", "url", "data", "filename", "mediaType",
})
#: Members whose value is read as ``content`` (free JSON, or the agent's own words).
_CONTENT = frozenset({"metadata", "data", "name", "description", "filename", "url"})
#: What a Part holds (one of them, A2A 1.0 ``Part.content``).
_PART_CONTENT = ("text", "raw", "url", "data")
#: Media types read as text besides ``text/*`` (and ``+json``, ``+xml`` types).
_TEXT_TYPES = frozenset({"application/json", "application/xml", "application/yaml",
                         "application/x-yaml", "application/javascript",
                         "application/x-www-form-urlencoded", "application/ld+json"})
_BOMS = ((codecs.BOM_UTF32_LE, "utf-32-le"), (codecs.BOM_UTF32_BE, "utf-32-be"),
         (codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"),
         (codecs.BOM_UTF16_BE, "utf-16-be"))
_UUID = re.compile(r"[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}")
_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[^\sA-Za-z0-9_\-./:;,]+")
_NUMBER = re.compile(r"-?[0-9]+(?:\.[0-9]+)?")


@dataclass(frozen=True)
class Piece:
    """One string a reply carries.

    Attributes:
        text: the string as received (a number as digits; raw bytes decoded).
        pointer: where it is (RFC 6901, in the reply as read).
        kind: ``text``, ``content`` or ``field`` (module docstring).
    """

    text: str
    pointer: str
    kind: Kind


@dataclass(frozen=True)
class DataAmount:
    """A currency and a number in one JSON object of structured data (module docstring).

    Attributes:
        currency: the currency as written (``GBP``, ``£``, ``pence``).
        number: the number as digits (``1395``, ``1395.5``).
        pointer: where the number is.
    """

    currency: str
    number: str
    pointer: str


@dataclass
class Reading:
    """Everything a reply carries (module docstring).

    Attributes:
        pieces: every string read, in order.
        amounts: currencies and numbers side by side in structured data.
        unreadable: ``(pointer, why)`` for each thing that could not be read.
        chars: characters read.
    """

    pieces: list[Piece] = field(default_factory=list)
    amounts: list[DataAmount] = field(default_factory=list)
    unreadable: list[tuple[str, str]] = field(default_factory=list)
    chars: int = 0

    def extend(self, other: Reading) -> None:
        """Add what ``other`` read, after what this one read (the next events of a stream)."""
        self.pieces += other.pieces
        self.amounts += other.amounts
        self.unreadable += other.unreadable
        self.chars += other.chars

    def first(self, chars: int) -> Reading:
        """This reading bounded to its first ``chars`` characters (``acap check-reply`` reads
        no more than the readers read in time), what is past them said to be unreadable (a
        guard of it fails closed); this reading itself when it is no longer."""
        if self.chars <= chars:
            return self
        out = Reading(amounts=list(self.amounts), unreadable=list(self.unreadable))
        for p in self.pieces:
            room = chars - out.chars
            if room <= 0:
                break
            out.pieces.append(Piece(p.text[:room], p.pointer, p.kind))
            out.chars += min(room, len(p.text))
        out.unreadable.append((out.pieces[-1].pointer if out.pieces else "",
                               f"{self.chars // 1024} KiB of text: what is past the first "
                               f"{chars // 1024} KiB is not read"))
        return out

    def words(self) -> str:
        """What the reply says in words: its Parts' texts, joined by spaces."""
        return " ".join(p.text for p in self.pieces if p.kind == "text")


@lru_cache(maxsize=4096)
def is_currency(word: str) -> bool:
    """True when ``word`` alone names a currency as :func:`acap.checks.amounts` reads one
    (a sign, an ISO 4217 code, a word: ``£``, ``gbp``, ``pence``, ``euros``)."""
    w = word.strip()
    if not w or len(w) > 12 or any(c.isdigit() for c in w):
        return False
    return any(a.start == 0 and a.text.strip() == f"{w} 1" for a in amounts(f"{w} 1")) or \
        any(a.text.strip() == f"1 {w}" for a in amounts(f"1 {w}"))


def _currencies(text: str) -> list[str]:
    """The currencies a short string or a member's name names (``priceGBP``, ``amount_gbp``,
    ``£``)."""
    if len(text) > 40:
        return []
    return [w for w in _WORDS.findall(text) if is_currency(w)]


def _number(value: float | int) -> str:
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e18:
        return str(int(value))
    return str(value)


def decode_raw(data: bytes, media_type: str | None) -> tuple[str, bool]:
    """The text of a Part's ``raw`` bytes.

    Args:
        data: the bytes.
        media_type: the Part's ``mediaType`` (``text/plain; charset=utf-16``), or ``None``.

    Returns:
        ``(text, read)``: ``read`` is True when the media type is text (``text/*``, JSON,
        XML, YAML, or none given) and the bytes decode in the encoding their byte-order
        mark or ``charset`` names, else as UTF-8. Otherwise ``text`` is what guesses read
        (UTF-16 where NUL bytes suggest it, Windows-1252), to report what the bytes may
        hold, and ``read`` is False: the bytes could not be read.
    """
    mt, _, params = (media_type or "").partition(";")
    mt = mt.strip().lower()
    textual = not mt or mt.startswith("text/") or mt in _TEXT_TYPES or \
        mt.endswith(("+json", "+xml"))
    charset = next((v.strip().strip('"') for k, _, v in (p.partition("=") for p in
                                                         params.split(";"))
                    if k.strip().lower() == "charset"), None)
    for bom, codec in _BOMS:
        if data.startswith(bom):
            try:
                return data[len(bom):].decode(codec), textual
            except UnicodeDecodeError:
                break
    for codec in ([charset] if charset else []) + ["utf-8"]:
        try:
            return data.decode(codec), textual
        except (LookupError, UnicodeDecodeError):
            continue
    guesses = []
    if b"\x00" in data:
        even, odd = data[0::2].count(0), data[1::2].count(0)
        guesses.append(data.decode("utf-16-be" if even > odd else "utf-16-le",
                                   errors="replace"))
    guesses.append(data.decode("cp1252", errors="replace"))
    return "\n".join(guesses), False


def _is_json(media: Any) -> bool:
    """Whether a ``mediaType`` is JSON (``application/json``, ``application/ld+json``)."""
    mt = str(media or "").partition(";")[0].strip().lower()
    return mt == "application/json" or mt.endswith("+json")


def sdk_ids(reply: Any) -> frozenset[str]:
    """The task and context ids of a reply that are UUIDs, as the SDKs make them (a2a-sdk,
    @a2a-js/sdk): what ``acap probe`` and ``acap check-reply``, which cannot know which ids
    the runtime made, leave unread (the egress guard knows them exactly)."""
    found: set[str] = set()

    def walk(v: Any, depth: int, task: bool) -> None:
        if depth > MAX_DEPTH:
            return
        if isinstance(v, list):
            for x in v:
                walk(x, depth + 1, False)
        elif isinstance(v, Mapping):
            for k, x in v.items():
                if isinstance(x, str) and (k in ("taskId", "contextId") or (task and k == "id")) \
                        and _UUID.fullmatch(x):
                    found.add(x)
                elif k not in ("metadata", "data", "parts"):
                    walk(x, depth + 1, k == "task" or (k == "result" and isinstance(x, Mapping)
                                                      and "status" in x))
    walk(reply, 0, isinstance(reply, Mapping) and "status" in reply)
    return frozenset(found)


class _Reader:
    """Reads one reply into a :class:`Reading` (module docstring)."""

    def __init__(self, exempt: Collection[str], own: Sequence[Mapping[str, Any]]) -> None:
        self.out = Reading()
        self.exempt = exempt
        self.own = {(o.get("messageId"), o.get("artifactId")): o for o in own
                    if isinstance(o, Mapping)}

    def add(self, text: str, pointer: str, kind: Kind) -> None:
        if not text or text in self.exempt:
            return
        room = MAX_CHARS - self.out.chars
        if room <= 0:
            return
        if len(text) > room:
            self.unreadable(pointer, f"the reply is larger than {MAX_CHARS // 1024} KiB: "
                            "what is past that is not read")
            text = text[:room]
        self.out.chars += len(text)
        self.out.pieces.append(Piece(text, pointer, kind))

    def unreadable(self, pointer: str, why: str) -> None:
        if (pointer, why) not in self.out.unreadable:
            self.out.unreadable.append((pointer, why))

    def value(self, v: Any, ptr: str, kind: Kind, depth: int, free: bool,
              currencies: tuple[str, ...] = ()) -> None:
        if depth > MAX_DEPTH:
            self.unreadable(ptr, f"nested deeper than {MAX_DEPTH} levels: not read")
        elif isinstance(v, str):
            self.add(v, ptr, kind)
        elif isinstance(v, bool) or v is None:
            return
        elif isinstance(v, (int, float)):
            self.add(_number(v), ptr, kind)
        elif isinstance(v, (list, tuple)):
            for i, x in enumerate(v):
                self.value(x, pointer_join(ptr, i), kind, depth + 1, free, currencies)
        elif isinstance(v, Mapping):
            if free:
                self.data(v, ptr, depth, currencies)
            else:
                self.obj(v, ptr, depth)
        else:
            self.add(str(v), ptr, kind)

    def obj(self, d: Mapping[str, Any], ptr: str, depth: int) -> None:
        """An object of the protocol (a Message, a Task ...)."""
        for k, v in d.items():
            kp = pointer_join(ptr, k)
            if k not in _A2A_MEMBERS:
                self.add(str(k), kp, "content")
                self.value(v, kp, "content", depth + 1, True)
            elif k == "parts" and isinstance(v, list):
                for i, p in enumerate(v):
                    self.part(p, pointer_join(kp, i), depth + 1)
            elif k in ("history", "artifacts") and isinstance(v, list):
                for i, m in enumerate(v):
                    self.record(m, pointer_join(kp, i), depth + 1)
            elif k in _CONTENT:
                self.value(v, kp, "content", depth + 1, k in ("metadata", "data"))
            else:
                self.value(v, kp, "field", depth + 1, False)

    def record(self, m: Any, ptr: str, depth: int) -> None:
        """A message of a Task's history, or an Artifact: what the caller sent itself
        (``own``) is not read again, member by member."""
        mine = self.own.get((m.get("messageId"), m.get("artifactId"))) \
            if isinstance(m, Mapping) else None
        if mine is None or (m.get("messageId") and m.get("role") != mine.get("role")):
            self.value(m, ptr, "field", depth, False)
            return
        self.obj({k: v for k, v in m.items() if mine.get(k) != v}, ptr, depth)

    def part(self, p: Any, ptr: str, depth: int) -> None:
        if not isinstance(p, Mapping):
            self.value(p, ptr, "content", depth, True)
            return
        for k, v in p.items():
            kp = pointer_join(ptr, k)
            if k == "text":
                self.value(v, kp, "text", depth + 1, False)
            elif k == "raw" and isinstance(v, str):
                self.raw(v, p.get("mediaType"), kp, depth + 1)
            elif k == "url":
                self.value(v, kp, "content", depth + 1, False)
                self.unreadable(kp, "a file by URL: what it points at is not read")
            elif k in ("data", "metadata"):
                self.value(v, kp, "content", depth + 1, True)
            elif k in ("filename", "mediaType"):
                self.value(v, kp, "content", depth + 1, False)
            else:
                self.add(str(k), kp, "content")
                self.value(v, kp, "content", depth + 1, True)
        if not any(k in p for k in _PART_CONTENT) and \
                any(k not in ("metadata", "filename", "mediaType") for k in p):
            self.unreadable(ptr, "a Part of no kind A2A 1.0 defines (text, raw, url, data)")

    def raw(self, b64: str, media: Any, ptr: str, depth: int) -> None:
        try:
            data = base64.b64decode(b64, validate=True)
        except (binascii.Error, ValueError):
            self.add(b64, ptr, "text")
            self.unreadable(ptr, "raw bytes that are not base64")
            return
        text, read = decode_raw(data[: MAX_CHARS * 4], media if isinstance(media, str)
                                else None)
        self.add(text, ptr, "text")
        if read and _is_json(media):
            self.json(text, ptr, depth)
        if not read:
            self.unreadable(ptr, f"raw bytes ({media or 'no media type'}) that acap cannot "
                            "read as text")

    def json(self, text: str, ptr: str, depth: int) -> None:
        """Raw bytes of a JSON media type read as JSON too (``"\\u00a31,395"`` is
        ``£1,395``): its strings as text, its objects as structured data."""
        try:
            doc = json.loads(text)
        except (ValueError, RecursionError):
            return  # read as text already; JSON that is not is no more than that
        self.value(doc, ptr, "text", depth, True)

    def data(self, d: Mapping[str, Any], ptr: str, depth: int,
             outer: tuple[str, ...]) -> None:
        """An object of ``data`` or ``metadata``: its names and values, and the amounts its
        currencies and numbers make (module docstring)."""
        found = list(outer)
        numbers: list[tuple[str, str]] = []
        for k, v in d.items():
            found += _currencies(str(k))
            if isinstance(v, str):
                found += _currencies(v)
                if _NUMBER.fullmatch(v.strip()):
                    numbers.append((str(k), v.strip()))
            elif isinstance(v, (int, float)) and not isinstance(v, bool):
                numbers.append((str(k), _number(v)))
        currencies = tuple(dict.fromkeys(found))
        for k, n in numbers:
            for c in currencies:
                self.out.amounts.append(DataAmount(c, n, pointer_join(ptr, k)))
        for k, v in d.items():
            kp = pointer_join(ptr, k)
            self.add(str(k), kp, "content")
            self.value(v, kp, "content", depth + 1, True, currencies)


def reading_of(reply: Any, *, exempt: Collection[str] = (),
               own: Iterable[Mapping[str, Any]] = ()) -> Reading:
    """Everything ``reply`` carries (module docstring).

    Args:
        reply: A2A 1.0 JSON (any shape :func:`acap.replies.check_reply` reads), or a list
            of them (a stream, in order).
        exempt: strings not read wherever they are (the task and context ids the runtime
            made; for a reply whose ids nobody knows, :func:`sdk_ids`).
        own: what the caller sent itself (its messages, as A2A JSON): where a Task's
            ``history`` holds one with the same ``messageId`` and ``role``, the members
            equal to the caller's are not read.

    Returns:
        A :class:`Reading`; never raises for what a reply holds.
    """
    reader = _Reader(frozenset(exempt), list(own))
    reader.value(reply, "", "field", 0, False)
    return reader.out
