"""Findings: what acap tells a user about their input.

A user error is never an exception that escapes to a traceback. Every check
returns :class:`Finding` objects, each with a rule id, a level, a message, the
place it came from and a hint saying how to fix it. A run collects all of them
(see :class:`Report`) so that every fault is reported at once.

Rule ids are the On Request requirement ids (``OR-3.4``) where a finding
enforces one, and acap's own ids (``YAML-DUPLICATE-KEY``, ``A2A-REQUIRED`` ...)
otherwise; both are listed in ``acap/data/requirements.json``.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from typing import Literal

from acap.uris import SPEC_BASE

Level = Literal["error", "warning"]



_NAMED_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
#: Format characters that belong in text: zero width non-joiner and joiner
#: (Persian, Indic scripts, emoji sequences). Every other ``Cf``, the bidi
#: overrides and isolates among them, is escaped.
_KEPT_FORMAT = frozenset("\u200c\u200d")


def terminal_safe(text: str) -> str:
    """``text`` with every character that could change how a terminal shows it escaped.

    Untrusted text (a card's kid, alg, jku, URLs, card values quoted in messages)
    must not start a new line, move the cursor, clear the screen (ESC sequences),
    or reorder what follows (Unicode bidi overrides, Trojan Source, CVE-2021-42574).
    Escaped: control characters (``Cc``: ``\\n``, ``\\r``, ``\\t``, ``\\x1b`` ...),
    format characters (``Cf``, bidi controls included, except ZWNJ and ZWJ), line and
    paragraph separators (``Zl``, ``Zp``), surrogates, private-use and unassigned
    code points, in Python's escape notation (``\\u202e``). Letters of every
    script, spaces, emoji and punctuation stay as they are.

    Args:
        text: any text.

    Returns:
        The text, one line, safe to print.
    """
    if text.isprintable():  # fast path: nothing to escape (and no line break)
        return text
    out = []
    for c in text:
        cat = unicodedata.category(c)
        if (cat[0] == "C" and c not in _KEPT_FORMAT) or cat in ("Zl", "Zp"):
            n = ord(c)
            out.append(_NAMED_ESCAPES.get(c) or (f"\\x{n:02x}" if n < 0x100 else
                                                 f"\\u{n:04x}" if n < 0x10000 else
                                                 f"\\U{n:08x}"))
        else:
            out.append(c)
    return "".join(out)


@dataclass(frozen=True)
class Location:
    """Where a finding points.

    Attributes:
        file: path of the file as the user named it (``operator.yaml``), or a URL.
        line: 1-based line, or ``None`` when the place has no line (a whole file).
        column: 1-based column in characters, or ``None``.
        pointer: RFC 6901 JSON pointer into the data (``/skills/1/personEntry``),
            or ``None``.
    """

    file: str
    line: int | None = None
    column: int | None = None
    pointer: str | None = None

    def __str__(self) -> str:
        out = self.file
        if self.line is not None:
            out += f":{self.line}"
            if self.column is not None:
                out += f":{self.column}"
        return out


@dataclass(frozen=True)
class Finding:
    """One thing wrong (``error``) or worth a look (``warning``).

    Attributes:
        rule: rule id, e.g. ``OR-3.8`` or ``YAML-DUPLICATE-KEY``.
        level: ``"error"`` fails the run; ``"warning"`` does not (unless ``--strict``).
        message: what is wrong, in words an operator understands.
        location: where it is.
        hint: how to fix it, or ``None``.
    """

    rule: str
    level: Level
    message: str
    location: Location
    hint: str | None = None

    def format_text(self) -> str:
        """Return the one-or-two-line text form.

        ``operator.yaml:14:7: error: personEntry carries a query string [OR-3.8]``
        followed by an indented ``hint:`` line when there is a hint, and a ``see:``
        line with the rule's anchor on the specification site for requirement ids.
        Location, message and hint pass through :func:`terminal_safe`: they may
        quote a card's or a server's text.
        """
        text = (f"{terminal_safe(str(self.location))}: {self.level}: "
                f"{terminal_safe(self.message)} [{terminal_safe(self.rule)}]")
        if self.hint:
            text += f"\n    hint: {terminal_safe(self.hint)}"
        if self.doc:
            text += f"\n    see: {self.doc}"
        return text

    @property
    def doc(self) -> str | None:
        """The rule's anchor on the specification site, ``SPEC_BASE#OR-3.8``, for
        On Request requirement ids; ``None`` for acap's own rules."""
        return f"{SPEC_BASE}#{self.rule}" if self.rule.startswith("OR-") else None

    def to_json(self) -> dict[str, object]:
        """Return a JSON-ready dict (the ``--format json`` shape, one entry)."""
        data = asdict(self)
        data["location"] = {k: v for k, v in data["location"].items() if v is not None}
        if data["hint"] is None:
            del data["hint"]
        if self.doc:
            data["doc"] = self.doc
        return data


@dataclass
class Report:
    """All findings of one run, in the order they were found.

    ``Report`` is iterable and truthy-agnostic: use :attr:`ok` to decide.
    """

    findings: list[Finding] = field(default_factory=list)

    def add(self, finding: Finding) -> None:
        """Append one finding."""
        self.findings.append(finding)

    def extend(self, findings: Iterable[Finding]) -> None:
        """Append several findings."""
        self.findings.extend(findings)

    def __iter__(self) -> Iterator[Finding]:
        return iter(self.findings)

    def __len__(self) -> int:
        return len(self.findings)

    @property
    def errors(self) -> list[Finding]:
        """The findings at level ``error``."""
        return [f for f in self.findings if f.level == "error"]

    @property
    def warnings(self) -> list[Finding]:
        """The findings at level ``warning``."""
        return [f for f in self.findings if f.level == "warning"]

    def ok(self, strict: bool = False) -> bool:
        """True when there is no error (and, with ``strict``, no warning)."""
        return not (self.errors or (strict and self.warnings))

    def sorted(self) -> list[Finding]:
        """Findings ordered by file, line and column, errors before warnings on a tie."""
        return sorted(
            self.findings,
            key=lambda f: (
                f.location.file,
                f.location.line or 0,
                f.location.column or 0,
                f.level != "error",
            ),
        )

    def format_text(self, summary: bool = True) -> str:
        """All findings as text, one per line (plus hint lines), and (with ``summary``)
        a line counting errors and warnings."""
        lines = [f.format_text() for f in self.sorted()]
        e, w = len(self.errors), len(self.warnings)
        if summary and (e or w):
            lines.append(f"{e} error{'s' if e != 1 else ''}, {w} warning{'s' if w != 1 else ''}")
        return "\n".join(lines)

    def format_json(self) -> str:
        """All findings as JSON: ``{"findings": [...], "errors": N, "warnings": N}``."""
        return json.dumps(
            {
                "findings": [f.to_json() for f in self.sorted()],
                "errors": len(self.errors),
                "warnings": len(self.warnings),
            },
            indent=2,
            ensure_ascii=False,
        )
