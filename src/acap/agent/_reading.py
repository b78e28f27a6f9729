"""What an A2A reply says, as the egress guard and ``acap probe`` read it: every word a
caller receives, whatever part of the reply holds it.

A reply (a Message, a Task, a status or artifact update, as A2A 1.0 JSON) says things in:

* its Parts: ``text``; ``data`` (JSON, each string); ``raw`` bytes that decode as UTF-8
  (base64 in JSON); a file's name and media type;
* every other string: metadata, an Artifact's name and description.

Not read: the protocol's ids and extension URIs (a UUID's group of four digits is no
price), and the caller's own messages in a Task's ``history`` (what the caller wrote is
its own to know). What cannot be read (``raw`` bytes that are not UTF-8 text, a file by
``url``: what it points at is not fetched) is said, so that a guard can fail closed.

Pure: no SDK import (the probe loads a2a-sdk only when it sends).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["what_it_says"]

#: Fields that hold ids and URIs of the protocol, not words.
_ID_KEYS = frozenset({"messageId", "taskId", "contextId", "artifactId", "id",
                      "referenceTaskIds", "extensions"})


@dataclass
class _Read:
    parts: list[str] = field(default_factory=list)
    strings: list[str] = field(default_factory=list)
    unreadable: bool = False


def _part(p: Mapping[str, Any], out: _Read) -> None:
    raw = p.get("raw")
    if isinstance(raw, str):
        try:
            out.parts.append(base64.b64decode(raw, validate=True).decode("utf-8"))
        except (binascii.Error, ValueError):  # binary: no text to read
            out.unreadable = True
    if isinstance(p.get("text"), str):
        out.parts.append(p["text"])
    if isinstance(p.get("url"), str):
        out.unreadable = True  # what the URL points at is not read
        out.strings.append(p["url"])
    _walk({k: v for k, v in p.items() if k not in ("raw", "text", "url")}, out)


def _walk(value: Any, out: _Read) -> None:
    if isinstance(value, str):
        out.strings.append(value)
    elif isinstance(value, list):
        for v in value:
            _walk(v, out)
    elif isinstance(value, dict):
        for k, v in value.items():
            if k in _ID_KEYS:
                continue
            if k == "parts" and isinstance(v, list):
                for p in v:
                    if isinstance(p, dict):
                        _part(p, out)
                continue
            if k == "history" and isinstance(v, list):
                v = [m for m in v if not (isinstance(m, dict) and m.get("role") == "ROLE_USER")]
            _walk(v, out)


def what_it_says(reply: Any) -> tuple[list[str], list[str], bool]:
    """What one reply says (module docstring).

    Args:
        reply: A2A 1.0 JSON (a Message, a Task, an update event, a StreamResponse, or a
            list of them).

    Returns:
        ``(part texts, other strings, unreadable)``: the text of its Parts (text, JSON
        data's strings, raw bytes that are UTF-8), every other string but ids, and
        whether some Part could not be read.
    """
    out = _Read()
    _walk(reply, out)
    return out.parts, out.strings, out.unreadable
