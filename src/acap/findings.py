"""Findings: what acap tells a user about their input. Data only.

A user error is never an exception that escapes to a traceback. Every check
returns :class:`Finding` objects, each with a rule id, a level, a message, the
place it came from and a hint saying how to fix it. A run collects all of them
(see :class:`Report`) so that every fault is reported at once. How they are shown
(text for a person, JSON for CI) is the reporters' job (:mod:`acap.cli`).

Rule ids are the On Request requirement ids (``OR-3.4``) where a finding
enforces one, and acap's own ids (``YAML-DUPLICATE-KEY``, ``A2A-REQUIRED`` ...)
otherwise; both are listed in ``acap/data/requirements.json``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Literal

from acap.uris import RULES_PAGE, SPEC_BASE

Level = Literal["error", "warning"]


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

    @property
    def doc(self) -> str:
        """Where the rule is explained, in full, for the reader who wants more than the
        message's plain words (the spec section, the RFC, the standard's name): for an
        On Request requirement, its anchor on the specification page
        (``SPEC_BASE#OR-3.8``); for acap's own rules, its row in the table of them on
        the conformance page (``SPEC_BASE + "conformance.html#URL-IDN"``)."""
        if self.rule.startswith("OR-"):
            return f"{SPEC_BASE}#{self.rule}"
        return f"{RULES_PAGE}#{self.rule}"



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

