"""Located JSON documents: an Agent Card or an agent's reply, from a file or an https
URL, with the line of every member. One reader for both; what differs is the words and
rule ids of their findings (:class:`DocumentKind`).

A document is parsed with :func:`json.loads` (the authority on what it holds), strictly:
``NaN`` and ``Infinity`` are refused (:mod:`acap.load._json`).
Lines for JSON pointers come from a second, best-effort pass with the YAML
composer (JSON is a subset of YAML 1.2 and libyaml reads it with positions);
where that pass fails, findings carry the pointer without a line.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from acap.errors import FetchError, FileRefused, JsonTextError
from acap.findings import Finding, Location
from acap.load._fetch import DEFAULT_MAX_BYTES, DEFAULT_TIMEOUT, Response, fetch
from acap.load._files import given_root, read_file
from acap.load._json import JsonFault, read_json
from acap.load._pointer import dotted, pointer_join
from acap.load._shown import shorten
from acap.load._yaml import YamlLoader

_PAIR = re.compile(r"\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}")
_LONE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


@dataclass(frozen=True)
class DocumentKind:
    """What kind of JSON document is read: the words and rule ids of its findings.

    Attributes:
        noun: how messages name it (``card``, ``reply``).
        read_rule, json_rule: the rule ids of a document that cannot be read, and of
            one that is not JSON (``CARD-READ``, ``CARD-JSON``).
        utf8_hint: the hint for a document that is not UTF-8.
        not_json_hint: the hint for a document that is not JSON.
        deep_hint: the hint for a document that nests too deeply.
        one_object: the document must be one JSON object (an Agent Card).
        read_error: how a file that cannot be read is told: ``"{what}"`` is
            ``the card``/``the reply``, ``"{source}"`` the path, ``"{why}"`` the reason.
        number_rule: the rule id of a number that readers do not all read alike
            (:class:`~acap.load._json.JsonFault` ``integer`` and ``range``).
    """

    noun: str
    read_rule: str
    json_rule: str
    utf8_hint: str
    not_json_hint: str | None
    deep_hint: str | None
    one_object: bool
    read_error: str
    number_rule: str


#: An Agent Card (A2A 1.0 §8.2).
CARD = DocumentKind("card", "CARD-READ", "CARD-JSON", "a card is JSON in UTF-8 (RFC 8259 §8.1)",
                    "an Agent Card is one JSON object", "an Agent Card is a shallow JSON object",
                    True, "cannot read {what}: {why}", "CARD-NUMBER")
#: An agent's reply: a Message, a Task or a JSON-RPC response (On Request §6).
REPLY = DocumentKind("reply", "REPLY-READ", "REPLY-JSON", "A2A replies are JSON in UTF-8",
                     "give the Message, Task or JSON-RPC response as the agent sent it", None,
                     False, "cannot read {source}: {why}", "REPLY-JSON")


@dataclass
class JsonDocument:
    """A JSON document as read (a card, a reply), with the line of every JSON pointer.

    Attributes:
        source: the path or URL as given (or a label such as ``"reply"``).
        kind: what it is (:data:`CARD`, :data:`REPLY`).
        data: the parsed JSON, or ``None`` when it could not be read.
        raw: the bytes read.
        lines: JSON pointer -> (line, column), best effort.
        response: the HTTP response when fetched from a URL.
        findings: problems reading it (the kind's ``read_rule``, ``json_rule`` and
            ``number_rule``; see :func:`fault_findings`).
        faults: what in it readers do not all read alike (a name twice, a lone
            surrogate, an integer beyond ±(2^53−1)); ``data`` holds it as the SDKs read
            it (see :class:`~acap.load._json.StrictJson`).
    """

    source: str
    kind: DocumentKind = CARD
    data: Any = None
    raw: bytes = b""
    lines: dict[str, tuple[int, int]] = field(default_factory=dict)
    response: Response | None = None
    findings: list[Finding] = field(default_factory=list)
    faults: list[JsonFault] = field(default_factory=list)

    @property
    def is_url(self) -> bool:
        """True when the document came from a URL."""
        return self.source.startswith(("https://", "http://"))

    def at(self, pointer: str | None) -> Location:
        """The location of ``pointer`` (nearest parent with a known line); no line for
        ``None``."""
        if pointer is None:
            return Location(self.source)
        return locate(self.source, self.lines, pointer)


def locate(source: str, lines: dict[str, tuple[int, int]], pointer: str) -> Location:
    """The location of a JSON pointer: the line and column of it, or of its nearest
    parent in ``lines`` (from :func:`json_lines`); no line when none is known."""
    p = pointer
    while True:
        if p in lines:
            line, col = lines[p]
            return Location(source, line, col, pointer)
        if not p:
            return Location(source, None, None, pointer)
        p = p.rsplit("/", 1)[0]


def _fetch_hint(url: str, exc: FetchError) -> str:
    """How to fix a card URL that could not be fetched: a plain http URL is refused
    before any request (cards are published over https, A2A §8.2; one on this machine
    has :func:`acap.load._fetch.local_http_hint`, naming --allow-private); every other cause
    has its own hint from :func:`acap.load._fetch.fetch` (a redirect loop, the size
    limit, the deadline, a private address, TLS, DNS)."""
    if url.startswith("http://") and exc.reason.startswith("only https") and not exc.hint:
        https = "https://" + url[len("http://"):]
        return (f"cards are fetched over https only (A2A §8.2 publishes them at "
                f"https://HOST/.well-known/agent-card.json): check {https}")
    return exc.hint or "check the URL and that the site is up"


def status_hint(status: int, what: str) -> str:
    """How to fix an HTTP status other than 200 for ``what`` (``the card``): 404, the
    file is not at that address; 401/403, it is not public; 5xx, the server failed."""
    if status in (404, 410):
        return (f"{what} is not at that address: an Agent Card is published at "
                "https://HOST/.well-known/agent-card.json (A2A §8.2); check the URL and that "
                "the file was uploaded")
    if status in (401, 403):
        return (f"the server refuses to give {what} (HTTP {status}): a card is public, "
                "served to anyone without signing in")
    if 500 <= status < 600:
        return (f"the server had an error (HTTP {status}): try again later, or tell whoever "
                "runs the site")
    return f"{what} must answer 200 at its URL"


def read_document(source: str, kind: DocumentKind = CARD, *,
                  max_bytes: int = DEFAULT_MAX_BYTES, timeout: float = DEFAULT_TIMEOUT,
                  allow_private: bool = False,
                  connect_to: Mapping[str, str] | None = None) -> JsonDocument:
    """Read a JSON document from a path or an https URL; never raises for bad input.

    Args:
        source: a file path, or an https URL (see :func:`acap.load._fetch.fetch`).
        kind: what it is, for the words and rule ids of its findings.
        max_bytes: size limit, in bytes.
        timeout: seconds for the whole fetch of a URL.
        allow_private: a URL may lead to a private or loopback address (tests, previews).
        connect_to: ``{host: "http://127.0.0.1:8000"}``: fetch that host's URLs from there
            (:func:`acap.load._fetch.fetch`).

    Returns:
        A :class:`JsonDocument`; a document that cannot be read, is not JSON, or (for a
        card) is not a JSON object is one clear finding.
    """
    doc = JsonDocument(source, kind)
    what = f"the {kind.noun}"
    if doc.is_url:
        try:
            doc.response = fetch(source, timeout=timeout, max_bytes=max_bytes,
                                 allow_private=allow_private, connect_to=connect_to)
        except FetchError as exc:  # the location names the URL; the message says why
            doc.findings.append(Finding(kind.read_rule, "error",
                                        f"cannot read {what}: {exc.reason}", Location(source),
                                        _fetch_hint(source, exc)))
            return doc
        doc.raw = doc.response.body
        if doc.response.status != 200:
            doc.findings.append(Finding(kind.read_rule, "error",
                                        f"HTTP {doc.response.status} for {what}",
                                        Location(source),
                                        status_hint(doc.response.status, what)))
            return doc
    else:
        try:
            # within the folder acap runs in (or the one the path names): a link in a
            # checked-out repository does not lead acap check to a file elsewhere
            doc.raw = read_file(source, given_root(source), max_bytes)
        except FileRefused as exc:
            if exc.too_large:
                doc.findings.append(Finding(kind.read_rule, "error",
                                            f"{what} is larger than {max_bytes // 1024} KiB",
                                            Location(source), "is this the right file?"))
                return doc
            doc.findings.append(Finding(kind.read_rule, "error",
                                        kind.read_error.format(what=what, source=source,
                                                               why=exc.reason),
                                        Location(source), "give the file itself, inside the "
                                        "folder you run acap in" if exc.outside else
                                        "give a regular file"))
            return doc
        except (OSError, ValueError) as exc:  # ValueError: a NUL character in the path
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else "not a file name"
            doc.findings.append(Finding(kind.read_rule, "error",
                                        kind.read_error.format(what=what, source=source, why=why),
                                        Location(source), "check the path"))
            return doc
    parse_document(doc)
    return doc


def parse_document(doc: JsonDocument) -> None:
    """Parse ``doc.raw`` into ``doc.data`` and ``doc.lines``; faults become findings."""
    kind, what = doc.kind, f"the {doc.kind.noun}"
    try:
        text = doc.raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        doc.findings.append(Finding(kind.json_rule, "error", f"{what} is not UTF-8 text",
                                    Location(doc.source), kind.utf8_hint))
        return
    try:
        read = read_json(text)
    except JsonTextError as exc:
        empty = "the response is empty" if doc.is_url else "the file is empty"
        message = empty if exc.line is None else f"{what} is not JSON: {exc.message}"
        doc.findings.append(Finding(kind.json_rule, "error", message,
                                    Location(doc.source, exc.line, exc.column),
                                    kind.not_json_hint))
        return
    except RecursionError:
        doc.findings.append(Finding(kind.json_rule, "error", f"{what} nests too deeply",
                                    Location(doc.source), kind.deep_hint))
        return
    data = read.data
    if kind.one_object and not isinstance(data, dict):
        doc.findings.append(Finding(kind.json_rule, "error",
                                    f"{what} is a JSON {type(data).__name__}, not an object",
                                    Location(doc.source, 1, 1, ""), kind.not_json_hint))
        return
    doc.data = data
    doc.lines = json_lines(text)
    doc.faults = read.faults
    doc.findings.extend(fault_findings(doc, text))


def fault_findings(doc: JsonDocument, text: str) -> list[Finding]:
    """One finding per :class:`~acap.load._json.JsonFault` of ``doc`` (errors): what
    readers do not all read alike is refused, by ``acap check`` and ``acap verify``
    alike, because what a verifier checks and what a client shows could differ.

    * a name twice in one object: ``json_rule`` at the second one (RFC 8259 §4, RFC 7493
      §2.3);
    * a lone surrogate: ``json_rule`` (RFC 8259 §8.2, RFC 7493 §2.1);
    * a member named ``__proto__``: ``json_rule`` (JavaScript readers lose it);
    * an integer beyond ±(2^53−1), or a number beyond the doubles: ``number_rule``
      (RFC 7493 §2.2, RFC 8785 §3.2.2.3).
    """

    kind = doc.kind
    out: list[Finding] = []
    seconds = _second_names(text) if any(f.kind == "duplicate" for f in doc.faults) else {}
    for f in doc.faults:
        where = dotted(f.pointer)
        if f.kind == "duplicate":
            line, col, first = seconds.get(f.pointer, (None, None, None))
            at = f" (first at line {first})" if first else ""
            out.append(Finding(kind.json_rule, "error", f"the member '{shorten(f.text, 40)}' is "
                               f"written twice in one object{at}: readers keep one of the two, "
                               "not all the same one, so what is signed and what is shown can "
                               "differ", Location(doc.source, line, col, f.pointer),
                               "keep one (RFC 8259 §4; I-JSON, RFC 7493 §2.3, forbids a name "
                               "twice)"))
        elif f.kind == "surrogate":
            out.append(Finding(kind.json_rule, "error", f"{where} holds a lone surrogate "
                               f"('{shorten(f.text, 40)}'): half of a UTF-16 pair, which is no "
                               "character, so readers refuse or replace it",
                               doc.at(f.pointer), "write the whole character, or remove the "
                               "escape (RFC 8259 §8.2; I-JSON, RFC 7493 §2.1)"))
        elif f.kind == "prototype":
            out.append(Finding(kind.json_rule, "error", f"the member {where} is named __proto__: "
                               "JavaScript code that copies the object (the JavaScript A2A "
                               "SDK's among it) loses it, so what is signed and what is shown "
                               "differ, and a signature that verifies here fails there",
                               doc.at(f.pointer), "give it another name"))
        elif f.kind == "integer":
            out.append(Finding(kind.number_rule, "error", f"{where} is {shorten(f.text, 40)}, "
                               "an integer beyond ±(2^53−1): readers that keep doubles "
                               f"(JavaScript, RFC 8785's signed form) read {f.double:.0f}, "
                               "others keep every digit, so what is signed and what is shown "
                               "differ", doc.at(f.pointer),
                               "write it as a string, or keep integers within "
                               "±9007199254740991 (I-JSON, RFC 7493 §2.2; RFC 8785 §3.2.2.3 "
                               "signs numbers as IEEE 754 doubles)"))
        else:
            out.append(Finding(kind.number_rule, "error", f"{where} is {shorten(f.text, 40)}, "
                               "beyond the range of IEEE 754 doubles: no reader of doubles can "
                               "read it, and RFC 8785 cannot sign it", doc.at(f.pointer),
                               "write it as a string (I-JSON, RFC 7493 §2.2)"))
    return out


def _second_names(text: str) -> dict[str, tuple[int, int, int]]:
    """JSON pointer of each name written twice -> (line, column of its second writing,
    line of its first); ``{}`` where the positions cannot be had."""


    try:
        root = yaml.compose(for_positions(text), Loader=YamlLoader)
    except (yaml.YAMLError, RecursionError):
        return {}
    out: dict[str, tuple[int, int, int]] = {}
    stack: list[tuple[Any, str, int]] = [(root, "", 0)]
    while stack:
        node, ptr, depth = stack.pop()
        if depth > 64:
            continue
        if isinstance(node, yaml.MappingNode):
            seen: dict[str, int] = {}
            for k, v in node.value:
                key = k.value if isinstance(k, yaml.ScalarNode) else ""
                p = pointer_join(ptr, key)
                if key in seen:
                    out.setdefault(p, (k.start_mark.line + 1, k.start_mark.column + 1,
                                       seen[key]))
                else:
                    seen[key] = k.start_mark.line + 1
                stack.append((v, p, depth + 1))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((v, pointer_join(ptr, i), depth + 1) for i, v in enumerate(node.value))
    return out


def document_from(source: Any, kind: DocumentKind = CARD, *, label: str | None = None,
                  max_bytes: int = DEFAULT_MAX_BYTES, timeout: float = DEFAULT_TIMEOUT,
                  allow_private: bool = False,
                  connect_to: Mapping[str, str] | None = None) -> JsonDocument:
    """A document from whatever a public entry point was given, read alike: a
    :class:`JsonDocument` as is; a path (``str`` or :class:`os.PathLike`) or an https URL
    read by :func:`read_document`; ``bytes`` parsed as JSON text; anything else taken as
    parsed JSON (a ``dict``, a ``list``), written out and read back by the same reader,
    so that what only a text shows (an integer beyond ±(2^53−1), ``NaN``) is judged too.
    Never raises for bad input.

    Args:
        source: as above. A ``str`` is always a path or a URL, never JSON text.
        kind: what it is (:data:`CARD`, :data:`REPLY`).
        label: the name findings give to bytes or parsed data (default: the kind's noun).
        max_bytes, timeout, allow_private, connect_to: as :func:`read_document`.

    Returns:
        A :class:`JsonDocument`; parsed data has no lines (findings carry pointers).
    """
    if isinstance(source, JsonDocument):
        return source
    if isinstance(source, (str, os.PathLike)):
        return read_document(os.fspath(source), kind, max_bytes=max_bytes, timeout=timeout,
                             allow_private=allow_private, connect_to=connect_to)
    name = label or kind.noun
    if isinstance(source, (bytes, bytearray, memoryview)):
        doc = JsonDocument(name, kind, raw=bytes(source))
        parse_document(doc)
        return doc
    try:  # parsed JSON: one reader judges it, as it would a file
        raw = json.dumps(source, ensure_ascii=False, allow_nan=False).encode("utf-8",
                                                                          "surrogatepass")
    except (TypeError, ValueError) as exc:
        return JsonDocument(name, kind, findings=[Finding(
            kind.json_rule, "error", f"the {kind.noun} is not JSON data: {shorten(str(exc))}",
            Location(name), kind.not_json_hint)])
    doc = JsonDocument(name, kind, raw=raw)
    parse_document(doc)
    doc.lines = {}  # the text was written here: its lines are no place of the user's
    doc.findings = [replace(f, location=Location(name, pointer=f.location.pointer))
                    for f in doc.findings]
    return doc


def read_card(source: str, *, max_bytes: int = DEFAULT_MAX_BYTES,
              timeout: float = DEFAULT_TIMEOUT, allow_private: bool = False,
              connect_to: Mapping[str, str] | None = None) -> JsonDocument:
    """Read an Agent Card from a path or an https URL (:func:`read_document` of
    :data:`CARD`; ``connect_to`` as there); never raises for bad input."""
    return read_document(source, CARD, max_bytes=max_bytes, timeout=timeout,
                         allow_private=allow_private, connect_to=connect_to)


def read_reply(path: str | Path) -> JsonDocument:
    """Read a reply file (at most 1 MiB; :func:`read_document` of :data:`REPLY`); faults
    are findings (``REPLY-READ``, ``REPLY-JSON``)."""
    return read_document(str(path), REPLY)


def parse_reply(text: str | bytes, source: str = "reply") -> JsonDocument:
    """Parse reply JSON text; a fault is a finding, never an exception.

    Args:
        text: the JSON text (bytes are read as UTF-8).
        source: the name findings give as the file.
    """
    raw = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    doc = JsonDocument(source, REPLY, raw=raw)
    parse_document(doc)
    return doc


def for_positions(text: str) -> str:
    """JSON text that libyaml composes with the same line and column for every value.

    YAML has no UTF-16 surrogate escapes (JSON writes an emoji as ``"\\ud83d\\ude00"``):
    each half of a pair becomes a same-length escape of a space, and a lone surrogate
    the escape of U+FFFD, as :func:`acap.load._json.read_json` reads it (so that a name
    holding one has the same pointer in both). Values change; positions do not.
    """
    return _LONE.sub(r"\\ufffd", _PAIR.sub(r"\\u0020\\u0020", text))


def json_lines(text: str) -> dict[str, tuple[int, int]]:
    """JSON pointer -> 1-based (line, column) of each value in a JSON text; ``{}`` on failure."""


    out: dict[str, tuple[int, int]] = {}
    try:
        root = yaml.compose(for_positions(text), Loader=YamlLoader)
    except (yaml.YAMLError, RecursionError):
        return out

    def walk(node: Any, ptr: str, depth: int) -> None:
        if depth > 64:
            return
        out[ptr] = (node.start_mark.line + 1, node.start_mark.column + 1)
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                if isinstance(k, yaml.ScalarNode):
                    walk(v, pointer_join(ptr, k.value), depth + 1)
        elif isinstance(node, yaml.SequenceNode):
            for i, v in enumerate(node.value):
                walk(v, pointer_join(ptr, i), depth + 1)

    if root is not None:
        walk(root, "", 0)
    return out
