"""Private key material where it would be published: one detector for every place.

A pure detector: it reads data and bytes and says where key material is; the
findings (rule ``KEY-PRIVATE``, ``PUBLISH-PRIVATE-KEY``) are made by its callers
(:mod:`acap.checks._private_keys` for operator.yaml, cards and every built file,
:mod:`acap.publisher` for what it would publish and for a target folder). What it finds:
* a PEM private key block of any kind: PKCS#8 ``PRIVATE KEY``, ``EC``, ``RSA``,
  ``ENCRYPTED``, ``OPENSSH``, and PGP's ``PRIVATE KEY BLOCK`` (RFC 7468 §10-§11
  labels; OpenSSH and OpenPGP use the same armour);
* a JWK carrying private members (RFC 7518 §6.2.2, §6.3.2, §6.4.1; RFC 8037
  §2): a JSON object with ``kty`` and any of :data:`acap.keys._key.PRIVATE_MEMBERS`,
  as data or as JSON text inside a string (a JWK pasted into a description).

The detector reports where (a JSON pointer, or a line of text), never the key.
Own code rather than a library: no well-kept library scans text for key
blocks; the PEM labels and JWK members are the RFCs' own.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_left
from dataclasses import dataclass
from typing import Any

from acap.keys._key import PRIVATE_MEMBERS
from acap.load import pointer_join

#: A PEM private key block header of any kind (see the module docstring).
PEM_PRIVATE = re.compile(rb"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")
_PEM_TEXT = re.compile(PEM_PRIVATE.pattern.decode())
#: File names read as JSON (besides any file starting with ``{`` or ``[``).
JSON_SUFFIXES = (".json", ".jwk", ".jwks", ".jsonld", ".webmanifest")
_MAX_DEPTH = 64
#: Bytes one of which any file holding key material has: the word every PEM private
#: key label has, the JWK member, and what could spell them otherwise (a JSON
#: escape, an HTML character reference, a UTF-16 or UTF-32 encoding).
_MARKS = (b"PRIVATE", b"kty", b"\\", b"&", b"\0")


@dataclass(frozen=True)
class KeyMaterial:
    """One piece of private key material.

    Attributes:
        kind: ``"pem"`` (a PEM private key block) or ``"jwk"`` (a JWK with private members).
        pointer: RFC 6901 pointer of the value holding it, in JSON or YAML data.
        line: 1-based line of the PEM header, in text that is not JSON.
    """

    kind: str
    pointer: str | None = None
    line: int | None = None

    @property
    def what(self) -> str:
        """``"a PEM private key"`` or ``"a private JWK"``, for messages."""
        return "a PEM private key" if self.kind == "pem" else "a private JWK"


def in_value(value: Any, pointer: str = "") -> list[KeyMaterial]:
    """Key material in parsed JSON or YAML data.

    Args:
        value: the data (dicts, lists, strings, numbers ...).
        pointer: the pointer of ``value`` itself.

    Returns:
        One :class:`KeyMaterial` per value holding some, with its pointer:
        strings with a PEM private key block (and object keys that are such
        strings), objects that are private JWKs, and strings whose text is the
        JSON of a private JWK.
    """

    return _in_value(value, pointer, None)


def _in_value(value: Any, pointer: str, work: _Work | None) -> list[KeyMaterial]:
    """:func:`in_value`, within ``work`` when it is a value found inside a text (``None``:
    each string with a JWK's marks gets a work bound of its own, :class:`_Work`)."""
    if not _may_hold(value):  # the common case, without making a pointer per value
        return []
    out: list[KeyMaterial] = []
    stack: list[tuple[Any, str, int]] = [(value, pointer, 0)]
    while stack:
        v, ptr, depth = stack.pop()
        if depth > _MAX_DEPTH:
            continue
        if isinstance(v, str):
            if _PEM_TEXT.search(v):
                out.append(KeyMaterial("pem", ptr))
            elif ("kty" in v and depth < _MAX_DEPTH
                  and _jwk_in_any_form(v, depth, work) is not None):
                out.append(KeyMaterial("jwk", ptr))
        elif isinstance(v, dict):
            if "kty" in v and PRIVATE_MEMBERS & set(v):
                out.append(KeyMaterial("jwk", ptr))
            for k, item in v.items():
                p = pointer_join(ptr, k)
                if isinstance(k, str) and _PEM_TEXT.search(k):
                    out.append(KeyMaterial("pem", p))
                stack.append((item, p, depth + 1))
        elif isinstance(v, list):
            stack.extend((item, pointer_join(ptr, i), depth + 1) for i, item in enumerate(v))
    return sorted(out, key=lambda m: (m.pointer or "", m.kind))


#: How far before a ``"kty"`` member a JWK embedded in text may start (characters).
_JWK_REACH = 8192
#: How many ``{`` before each ``"kty"`` are tried as the JWK's start (nested objects).
_JWK_TRIES = 32
#: How many starts one text may try in all; past it, the text is reported as holding one.
_JWK_BUDGET = 2000
#: A JSON member name of a private JWK (:data:`acap.keys._key.PRIVATE_MEMBERS`).
_PRIVATE_MEMBER = re.compile(r'"(?:d|p|q|dp|dq|qi|oth|k)"')
#: What parsing may cost for one text, in characters parsed per character of the text, and
#: at least (see :class:`_Work`).
_WORK_PER_CHAR = 8
_WORK_MIN = 4096


class _Work:
    """What looking for a JWK in one text may still cost, in characters parsed.

    Each ``"kty"`` tries up to :data:`_JWK_TRIES` starts and a parse from one may run to the
    end of the text (and into the strings of what it parsed, each looked through again): on
    text made for it ("``{"kty":"x","d":"y","p":[0,0,...``" repeated) that grew with the
    square of the text, 47 s for 800 KB. The bound is a multiple of the text's length, shared
    by every form of it and everything found inside it; past it, the text is reported as
    holding a key (a guard fails closed), which no text short of one made for it reaches.
    """

    __slots__ = ("left",)

    def __init__(self, length: int) -> None:
        self.left = _WORK_PER_CHAR * length + _WORK_MIN


def _jwk_in_text(text: str, depth: int, work: _Work) -> int | None:
    """Where (the offset of its ``{``) the first private JWK written as JSON inside
    ``text`` starts, wherever it sits: the whole text, or text around it (a JWK
    pasted into a description, an HTML comment, a sentence), or ``None``.

    Each ``"kty"`` member is tried with every ``{`` before it, nearest first
    (within :data:`_JWK_REACH`, at most :data:`_JWK_TRIES`), as the start of a JSON value
    (:meth:`json.JSONDecoder.raw_decode`); a value that holds a private JWK
    (:func:`in_value`) is a hit. What the parses cost is taken from ``work``; when it or
    :data:`_JWK_BUDGET` runs out, the place reached is reported (to be safe)."""

    decoder = json.JSONDecoder()
    members = [m.start() for m in _PRIVATE_MEMBER.finditer(text)]  # a private JWK has one
    braces = [m.start() for m in _BRACE.finditer(text)] if members else []
    budget = _JWK_BUDGET
    pos = text.find('"kty"') if members else -1
    while pos >= 0:
        floor = max(0, pos - _JWK_REACH)
        i = bisect_left(members, floor)
        near = i < len(members) and members[i] <= pos + _JWK_REACH
        first = max(bisect_left(braces, floor), bisect_left(braces, pos) - _JWK_TRIES)
        for start in reversed(braces[first:bisect_left(braces, pos)] if near else []):
            budget -= 1
            if budget < 0 or work.left < 0:  # text made of little else than JWK pieces
                return start
            found = _jwk_at(decoder, text, start, depth, work)
            if found:
                return start
        pos = text.find('"kty"', pos + 1)
    return None


_BRACE = re.compile(r"\{")


def _jwk_at(decoder: json.JSONDecoder, text: str, start: int, depth: int, work: _Work) -> bool:
    """Whether the JSON value that starts at ``start`` holds a private JWK; what its parse
    reached is taken from ``work`` (all the rest of the text when the parse gave up on
    nesting, which says not where)."""
    try:
        value, end = decoder.raw_decode(text, start)
    except json.JSONDecodeError as exc:
        work.left -= exc.pos - start + 1
        return False
    except (ValueError, RecursionError):
        work.left -= len(text) - start
        return False
    work.left -= end - start
    return depth < _MAX_DEPTH and any(m.kind == "jwk" for m in _in_value(value, "", work))


def _jwk_in_any_form(text: str, depth: int = 0, work: _Work | None = None) -> int | None:
    """:func:`_jwk_in_text` of ``text`` as it is, and as it reads once its quotes are
    unescaped: ``\\"`` (a JWK inside a JSON string, or escaped once more), HTML
    character references (``&quot;``, ``&#34;``) and single quotes (a Python dict).
    The offset is that of the form it was found in (the same line: none of these
    forms adds or removes a line break). ``work``: the bound of the text this one was found
    in, or ``None`` for a text of its own (:class:`_Work`)."""
    import html  # start-up: only for text that may hide a JWK in HTML escapes

    work = work or _Work(len(text))

    forms = [text]
    unescaped = text
    for _ in range(3):  # once per level of JSON strings it went through
        if '\\"' not in unescaped:
            break
        unescaped = unescaped.replace('\\\\', "\\").replace('\\"', '"')
        forms.append(unescaped)
    if "&" in text:
        forms.append(html.unescape(text))
    if "'kty'" in text:
        forms.append(text.replace("'", '"'))
    for form in forms:
        if '"kty"' in form:
            at = _jwk_in_text(form, depth, work)
            if at is not None:
                return at
    return None


def _may_hold(value: Any) -> bool:
    """False when :func:`in_value` surely finds nothing in ``value``: no string with
    ``PRIVATE`` in it (every PEM private key label has it) or with ``"kty"`` (a JWK
    as JSON text), and no object with a ``kty`` member. A quick pass first, because
    a built card has hundreds of values and almost never any key material."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            if "PRIVATE" in v or "kty" in v:
                return True
        elif isinstance(v, dict):
            if "kty" in v:
                return True
            stack.extend(v)
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return False


def in_bytes(data: bytes, name: str = "") -> list[KeyMaterial]:
    """Key material in a file's bytes.

    A JSON file (by its name, see :data:`JSON_SUFFIXES`, or by its first
    character) is parsed and searched with :func:`in_value`; any other file is
    searched for PEM private key blocks as text (HTML character references
    decoded first), each with its line.

    Args:
        data: the file's bytes.
        name: its name or path (only its ending is used).

    Returns:
        The :class:`KeyMaterial` found, in file order; ``[]`` for none.
    """
    if not any(mark in data for mark in _MARKS):
        return []  # no label, no JWK member, and nothing escaped that could spell one
    if name.endswith(JSON_SUFFIXES) or data.lstrip()[:1] in (b"{", b"["):
        try:
            doc = json.loads(data)
        except (ValueError, RecursionError):
            pass
        else:
            found = in_value(doc)
            if found or not PEM_PRIVATE.search(data):
                return found
    text = data.decode("utf-8", "replace")
    hits = list(_PEM_TEXT.finditer(text))
    if not hits and "&" in text:
        import html  # start-up: only for text that may hide a JWK in HTML escapes

        text = html.unescape(text)
        hits = list(_PEM_TEXT.finditer(text))
    found = [KeyMaterial("pem", line=text.count("\n", 0, m.start()) + 1) for m in hits]
    jwk_at = _jwk_in_any_form(text) if "kty" in text else None
    if jwk_at is not None:
        found.append(KeyMaterial("jwk", line=text.count("\n", 0, jwk_at) + 1))
    return sorted(found, key=lambda m: m.line or 0)


def holds_private_key(data: bytes, name: str = "") -> bool:
    """True when :func:`in_bytes` finds any key material in ``data``."""
    return bool(in_bytes(data, name))


def text_place(text: str, from_line: int) -> tuple[int, int] | None:
    """``(line, column)``, 1-based, of the first PEM private key header at or after line
    ``from_line`` of ``text``, or ``None``: the exact place of a key pasted into a YAML
    value that starts on ``from_line``."""
    for i, line in enumerate(text.splitlines()[max(from_line - 1, 0):], start=max(from_line, 1)):
        m = _PEM_TEXT.search(line)
        if m:
            return i, m.start() + 1
    return None


#: Where private key text in a built file can come from, for the hint of every finding.
