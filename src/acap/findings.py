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



@dataclass(repr=False)
class Report:
    """All findings of one run, in the order they were found.

    ``Report`` is iterable and truthy-agnostic: use :attr:`ok` to decide (or
    :meth:`passes` with ``strict``, where warnings fail too).
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

    def __repr__(self) -> str:
        return f"<Report {_counts(self)}>"

    @property
    def errors(self) -> list[Finding]:
        """The findings at level ``error``."""
        return [f for f in self.findings if f.level == "error"]

    @property
    def warnings(self) -> list[Finding]:
        """The findings at level ``warning``."""
        return [f for f in self.findings if f.level == "warning"]

    @property
    def ok(self) -> bool:
        """True when there is no error (warnings allowed)."""
        return not self.errors

    def passes(self, strict: bool = False) -> bool:
        """True when there is no error and, with ``strict``, no warning either."""
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


def _counts(report: Report) -> str:
    """``2 errors, 1 warning`` (``no findings`` for none): what a short repr says."""
    e, w = len(report.errors), len(report.warnings)
    if not e and not w:
        return "no findings"
    return f"{e} error{'s' * (e != 1)}, {w} warning{'s' * (w != 1)}"


class Result:
    """The one protocol every result of a public entry point follows (``acap.build``,
    ``acap.check_card``, ``acap.verify_card``, ``acap.check_reply``, ``acap.publish`` ...):

    * :attr:`report`: the :class:`Report` of every finding (a field of the subclass);
    * :attr:`findings`: the same findings as a list;
    * :attr:`ok`: a bool property, ``True`` when the run succeeded (no error, and
      whatever else the entry point needs, such as a signature that verifies): so
      ``if acap.check_card(bad).ok:`` is false for a bad card;
    * :meth:`passes`: ``ok``, or with ``strict`` also no warning (``--strict``);
    * a short repr: the class, what was judged and the counts, never the findings.

    Subclasses say what more than "no error" success needs in :meth:`_succeeded`, and
    what was judged in :meth:`_subject` (for the repr).
    """

    report: Report

    @property
    def findings(self) -> list[Finding]:
        """Every finding, in the order found (``report.findings``)."""
        return self.report.findings

    @property
    def ok(self) -> bool:
        """True when the run succeeded: no error, and :meth:`_succeeded`."""
        return self.passes()

    def passes(self, strict: bool = False) -> bool:
        """:attr:`ok`, and with ``strict`` no warning either."""
        return self._succeeded() and self.report.passes(strict)

    def _succeeded(self) -> bool:
        """What success needs beyond "no error" (a valid signature ...); ``True`` here."""
        return True

    def _subject(self) -> str:
        """What was judged, for the repr (a path, a URL); ``""`` when nothing to say."""
        for name in ("source", "url", "config"):
            value = getattr(self, name, None)
            if value:
                return str(value)
        return ""

    def __repr__(self) -> str:
        subject = self._subject()
        shown = subject if len(subject) <= 60 else subject[:57] + "..."
        where = f" {shown!r}" if shown else ""
        return f"<{type(self).__name__}{where} ok={self.ok} {_counts(self.report)}>"
