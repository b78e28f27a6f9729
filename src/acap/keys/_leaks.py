"""Private key material where it would be published: one detector for every place.

``acap build`` runs it over operator.yaml and over every file it built
(:func:`acap.build._build.final_check_private_keys`), ``acap check`` over a card,
``acap publish`` over every file it would publish (``PUBLISH-PRIVATE-KEY``) and
over a target folder. What it finds:

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
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from acap.findings import Finding, Location

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
    from acap.keys._key import PRIVATE_MEMBERS
    from acap.load._yaml import pointer_join

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
            elif "kty" in v and depth < _MAX_DEPTH and _jwk_in_any_form(v, depth) is not None:
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


def _jwk_in_text(text: str, depth: int = 0) -> int | None:
    """Where (the offset of its ``{``) the first private JWK written as JSON inside
    ``text`` starts, wherever it sits: the whole text, or text around it (a JWK
    pasted into a description, an HTML comment, a sentence), or ``None``.

    Each ``"kty"`` member is tried with every ``{`` before it, nearest first
    (within :data:`_JWK_REACH`), as the start of a JSON value
    (:meth:`json.JSONDecoder.raw_decode`); a value that holds a private JWK
    (:func:`in_value`) is a hit."""
    from bisect import bisect_left

    decoder = json.JSONDecoder()
    members = [m.start() for m in _PRIVATE_MEMBER.finditer(text)]  # a private JWK has one
    budget = _JWK_BUDGET
    pos = text.find('"kty"') if members else -1
    while pos >= 0:
        floor = max(0, pos - _JWK_REACH)
        i = bisect_left(members, floor)
        near = i < len(members) and members[i] <= pos + _JWK_REACH
        start = pos
        for _ in range(_JWK_TRIES if near else 0):
            start = text.rfind("{", floor, start)
            if start < 0:
                break
            budget -= 1
            if budget < 0:  # text made of little else than JWK pieces: say so, to be safe
                return start
            try:
                value, _end = decoder.raw_decode(text, start)
            except (ValueError, RecursionError):
                continue
            if depth < _MAX_DEPTH and any(m.kind == "jwk" for m in in_value(value)):
                return start
        pos = text.find('"kty"', pos + 1)
    return None


def _jwk_in_any_form(text: str, depth: int = 0) -> int | None:
    """:func:`_jwk_in_text` of ``text`` as it is, and as it reads once its quotes are
    unescaped: ``\\"`` (a JWK inside a JSON string, or escaped once more), HTML
    character references (``&quot;``, ``&#34;``) and single quotes (a Python dict).
    The offset is that of the form it was found in (the same line: none of these
    forms adds or removes a line break)."""
    import html

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
            at = _jwk_in_text(form, depth)
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
        import html

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
SOURCES_HINT = ("such text comes from operator.yaml (a key pasted into a description or "
                "other text), from templates/ (a copied key file, or a link to one), or "
                "from a file put into site/ by hand")
#: Template files larger than this are not searched for the source of a leak.
_SCAN_LIMIT = 1 << 20


def site_findings(cfg: Any, files: Iterable[tuple[str, bytes]], site_dir: Path
                  ) -> list[Finding]:
    """``KEY-PRIVATE`` errors for private key material in files a build made.

    Run by ``acap build`` over every file before anything is written, so that a
    key never reaches site/ (and so never ``acap serve`` or ``acap publish``).

    Args:
        cfg: the :class:`~acap.load._operator.OperatorConfig` built from.
        files: ``(path under site/, bytes)`` of every built file.
        site_dir: the site folder, to name the files as they would be written.

    Returns:
        When the text is found in operator.yaml or in a file of ``templates/``:
        one error at each such place (its line), naming the built files it
        would reach. Otherwise one error per built file, at its line or JSON
        pointer, with :data:`SOURCES_HINT`.
    """
    from acap.findings import Finding, Location

    hits = [(rel, found) for rel, data in files if (found := in_bytes(data, rel))]
    if not hits:
        return []
    built = [str(site_dir / rel) for rel, _ in hits]
    reached = ", ".join(built[:4]) + (f" and {len(built) - 4} more" if len(built) > 4 else "")
    sources = _sources(cfg)
    if sources:
        return [Finding("KEY-PRIVATE", "error", f"{what} in {loc.file} would be written into "
                        f"{reached}", loc,
                        "remove it there; acap never writes a private key into site/. Treat "
                        "the key as exposed: make a new one (acap keys rotate) if it signs "
                        "anything")
                for loc, what in sources]
    out = []
    for (_, found), shown in zip(hits, built, strict=True):
        for m in found:
            out.append(Finding("KEY-PRIVATE", "error", f"{shown} would hold {m.what}; acap "
                               "never writes a private key into site/",
                               Location(shown, m.line, pointer=m.pointer),
                               f"{SOURCES_HINT}: remove it there, then build again"))
    return out


def signing_key_findings(cfg: Any, private: Any, files: Iterable[tuple[str, bytes]],
                         site_dir: Path) -> list[Finding]:
    """``KEY-PRIVATE`` errors for the signing key itself in files a build made, in any
    form the detector above does not read (a YAML mapping, ``d=...``, a JWK split
    over lines): its private JWK members in base64url
    (:func:`acap.keys._key.private_markers`) are searched for as they are.

    Args:
        cfg: the :class:`~acap.load._operator.OperatorConfig` built from.
        private: the signing key (a ``cryptography`` private key).
        files: ``(path under site/, bytes)`` of every built file.
        site_dir: the site folder, to name the files as they would be written.

    Returns:
        One error per built file holding it, at operator.yaml's line when the text is
        there too; the key is never quoted.
    """
    from acap.findings import Finding, Location
    from acap.keys._key import private_markers

    marks = [m.encode() for m in private_markers(private)]
    hits = [rel for rel, data in files if any(m in data for m in marks)]
    if not hits:
        return []
    try:
        text = cfg.path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError):
        text = ""
    line = next((i for i, t in enumerate(text.splitlines(), 1)
                 if any(m.decode() in t for m in marks)), None)
    where = Location(cfg.loaded.file, line) if line else Location(str(site_dir / hits[0]))
    return [Finding("KEY-PRIVATE", "error", f"{site_dir / rel} would hold the private part of "
                    "the signing key; acap never writes a private key into site/", where,
                    f"remove it from where it came from ({SOURCES_HINT}); treat the key as "
                    "exposed: make a new one (acap keys rotate)") for rel in hits]


def _sources(cfg: Any) -> list[tuple[Location, str]]:
    """Places in operator.yaml and templates/ holding key material: ``(where, what)``."""
    from acap.checks._private_keys import operator_places
    from acap.findings import Location

    out = [(loc, f"{m.what} ({m.pointer})") for loc, m in operator_places(cfg)]
    tpl = cfg.base_dir / "templates"
    if not tpl.is_dir():
        return out
    shown_dir = Path(cfg.loaded.file).parent / "templates"
    root = tpl.resolve()
    for p in sorted(tpl.rglob("*")):
        try:
            real = p.resolve()
            if not real.is_relative_to(root) or not real.is_file() \
                    or real.stat().st_size > _SCAN_LIMIT:
                continue  # a link out of templates/ is refused by the loader (PAGE-TEMPLATE)
            data = real.read_bytes()
        except OSError:
            continue
        shown = str(shown_dir / p.relative_to(tpl))
        out += [(Location(shown, m.line, pointer=m.pointer), m.what)
                for m in in_bytes(data, p.name)]
    return out
