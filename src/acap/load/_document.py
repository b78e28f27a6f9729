"""Reading an Agent Card from a file or an https URL, with line numbers.

The card is parsed with :func:`json.loads` (the authority on what it holds), strictly:
``NaN`` and ``Infinity`` are refused (:mod:`acap.load._json`).
Lines for JSON pointers come from a second, best-effort pass with the YAML
composer (JSON is a subset of YAML 1.2 and libyaml reads it with positions);
where that pass fails, findings carry the pointer without a line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acap.findings import Finding, Location
from acap.load._fetch import DEFAULT_MAX_BYTES, FetchError, Response, allowed_url, fetch

_SURROGATE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


@dataclass
class CardFile:
    """A card as read.

    Attributes:
        source: the path or URL as given.
        data: the parsed JSON, or ``None`` when it could not be read.
        raw: the bytes read.
        lines: JSON pointer -> (line, column), best effort.
        response: the HTTP response when fetched from a URL.
        findings: problems reading it (rules ``CARD-READ``, ``CARD-JSON``).
    """

    source: str
    data: Any = None
    raw: bytes = b""
    lines: dict[str, tuple[int, int]] = field(default_factory=dict)
    response: Response | None = None
    findings: list[Finding] = field(default_factory=list)

    @property
    def is_url(self) -> bool:
        """True when the card came from a URL."""
        return self.source.startswith(("https://", "http://"))

    def at(self, pointer: str) -> Location:
        """The location of ``pointer`` in the card (nearest parent with a known line)."""
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


def _fetch_hint(url: str) -> str:
    """How to fix a card URL that could not be fetched: a plain http URL is refused
    before any request (cards are published over https, A2A §8.2)."""
    if url.startswith("http://") and not allowed_url(url):
        https = "https://" + url[len("http://"):]
        return (f"cards are fetched over https only (A2A §8.2 publishes them at "
                f"https://HOST/.well-known/agent-card.json): check {https}")
    return "check the URL and that the site is up"


def read_card(source: str, *, max_bytes: int = DEFAULT_MAX_BYTES,
              timeout: float = 10.0) -> CardFile:
    """Read a card from a path or an https URL; never raises for bad input.

    Args:
        source: a file path, or an https URL.
        max_bytes: size limit.
        timeout: seconds, for URLs.

    Returns:
        A :class:`CardFile`. A card that is not JSON, or not a JSON object, is
        one clear finding.
    """
    cf = CardFile(source)
    if cf.is_url:
        try:
            cf.response = fetch(source, timeout=timeout, max_bytes=max_bytes)
        except FetchError as exc:  # the location names the URL; the message says why
            cf.findings.append(Finding("CARD-READ", "error", f"cannot read the card: {exc.reason}",
                                       Location(source), _fetch_hint(source)))
            return cf
        cf.raw = cf.response.body
        if cf.response.status != 200:
            cf.findings.append(Finding("CARD-READ", "error",
                                       f"HTTP {cf.response.status} for the card", Location(source),
                                       "the card must answer 200 at its URL"))
            return cf
    else:
        try:
            size = Path(source).stat().st_size
            if size > max_bytes:
                cf.findings.append(Finding("CARD-READ", "error",
                                           f"the card is larger than {max_bytes // 1024} KiB",
                                           Location(source), "is this the right file?"))
                return cf
            cf.raw = Path(source).read_bytes()
        except (OSError, ValueError) as exc:  # ValueError: a NUL character in the path
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else "not a file name"
            cf.findings.append(Finding("CARD-READ", "error", f"cannot read the card: {why}",
                                       Location(source), "check the path"))
            return cf
    parse_card_bytes(cf)
    return cf


def parse_card_bytes(cf: CardFile) -> None:
    """Parse ``cf.raw`` into ``cf.data`` and ``cf.lines``; faults become findings."""
    try:
        text = cf.raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        cf.findings.append(Finding("CARD-JSON", "error", "the card is not UTF-8 text",
                                   Location(cf.source), "a card is JSON in UTF-8 (RFC 8259 §8.1)"))
        return
    from acap.load._json import JsonTextError, loads

    try:
        data = loads(text)
    except JsonTextError as exc:
        empty = "the response is empty" if cf.is_url else "the file is empty"
        message = empty if exc.line is None else f"the card is not JSON: {exc.message}"
        cf.findings.append(Finding("CARD-JSON", "error", message,
                                   Location(cf.source, exc.line, exc.column),
                                   "an Agent Card is one JSON object"))
        return
    except RecursionError:
        cf.findings.append(Finding("CARD-JSON", "error", "the card nests too deeply",
                                   Location(cf.source), "an Agent Card is a shallow JSON object"))
        return
    if not isinstance(data, dict):
        cf.findings.append(Finding("CARD-JSON", "error",
                                   f"the card is a JSON {type(data).__name__}, not an object",
                                   Location(cf.source, 1, 1, ""),
                                   "an Agent Card is one JSON object"))
        return
    cf.data = data
    cf.lines = json_lines(text)


def for_positions(text: str) -> str:
    """JSON text that libyaml composes with the same line and column for every value.

    YAML has no UTF-16 surrogate escapes (JSON writes an emoji as ``"\\ud83d\\ude00"``):
    each becomes a same-length escape of a space. Values change; positions do not.
    """
    return _SURROGATE.sub(r"\\u0020", text)


def json_lines(text: str) -> dict[str, tuple[int, int]]:
    """JSON pointer -> 1-based (line, column) of each value in a JSON text; ``{}`` on failure."""
    import yaml

    from acap.load._yaml import YamlLoader, pointer_join

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
