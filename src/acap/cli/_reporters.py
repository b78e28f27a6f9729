"""Reporters: every result of acap, rendered for a person (text) or for a program (JSON,
SARIF, GitHub workflow commands; the last two in :mod:`acap.cli._ci_formats`).

The library returns data (:class:`~acap.findings.Report`, :class:`~acap.builder.BuildResult`,
:class:`~acap.checks.CardCheck`, :class:`~acap.card.Verification`,
:class:`~acap.publisher.LiveCheck`, :class:`~acap.publisher.PublishResult`, a batch's
:class:`~acap.builder.batch.BatchResult`); a command hands it to the reporter its
``--format`` names (:data:`acap.cli._formats.REPORTERS`), one method per kind of result, as
check-jsonschema's reporters do.

Which stream, for every command alike: text findings (one per line,
``operator.yaml:14:7: error: ... [OR-3.8]`` with ``hint:`` and ``see:`` lines) go to
standard error, with notes and progress; the outcome (``built site/``, ``verified``) to
standard output. Coloured when standard error is a terminal, unless ``NO_COLOR`` is set;
``FORCE_COLOR`` colours it anywhere (:func:`use_color`). Every value that came from a
card, a server or a file is escaped (:func:`terminal_safe`). JSON, SARIF and GitHub
commands are one document (or one line per finding) on standard output, whatever happened.

The JSON document has one shape for every command and any number of inputs
(:func:`output_json`, version :data:`OUTPUT_VERSION`), described by the JSON Schema
shipped in the package, ``acap/schemas/acap-output.schema.json``.
"""

from __future__ import annotations

import json
import os
import re
import sys
import unicodedata
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, TextIO

import click

from acap._package import __version__
from acap.findings import Finding, Report
from acap.load import shorten

if TYPE_CHECKING:
    from acap.agent import ProbeResult
    from acap.builder import BuildResult
    from acap.builder.batch import BatchOptions, BatchResult
    from acap.card import Verification
    from acap.checks import CardCheck, OperatorCheck
    from acap.publisher import LiveCheck, PublishResult
    from acap.replies import ReplyCheck

__all__ = ["OUTPUT_VERSION", "Echo", "JUnitReporter", "JsonReporter", "Reporter", "TextReporter",
           "command_name", "finding_json", "finding_text", "findings_of", "json_escaped",
           "output_json", "report_json", "report_text", "result_json", "shown", "terminal_safe",
           "use_color", "verdict"]

def _split(result: CardCheck | OperatorCheck) -> tuple[CardCheck | None, OperatorCheck | None]:
    """``(card check, None)`` or ``(None, operator check)``."""
    from acap.checks import OperatorCheck  # start-up: the checks only when one is reported

    return (None, result) if isinstance(result, OperatorCheck) else (result, None)


#: Writes one piece of output: ``(text, to standard error)``.
Echo = Callable[[str, bool], None]

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


#: A run of text without a space longer than this is a value (a kid, a URL, a name from a
#: card), not words: it is shortened where it is printed.
_LONG_RUN = 200
#: Longest message printed, in characters; a longer one is cut, its length said.
_LONG_MESSAGE = 2000


def shown(text: str) -> str:
    """``text`` as printed: :func:`terminal_safe`, with every run of more than 200
    characters without a space shortened (:func:`acap.load.shorten`: a hostile kid of
    100,000 characters prints as one short value) and the whole cut at 2,000."""
    safe = terminal_safe(text)
    if len(safe) > _LONG_RUN:
        safe = re.sub(rf"\S{{{_LONG_RUN + 1},}}", lambda m: shorten(m.group(0)), safe)
    return shorten(safe, _LONG_MESSAGE)


#: Rules whose message quotes another program's lines (git's, a server's): shown as lines.
QUOTING_RULES = frozenset({"PUBLISH-FAILED"})


def _json_escape(c: str) -> str:
    n = ord(c)
    if n > 0xFFFF:  # a JSON escape names UTF-16 code units: a surrogate pair
        n -= 0x10000
        return f"\\u{0xD800 + (n >> 10):04x}\\u{0xDC00 + (n & 0x3FF):04x}"
    return f"\\u{n:04x}"


def json_escaped(data: Any) -> str:
    """``data`` as indented JSON text (letters of every script as they are) in which no
    character that :func:`terminal_safe` would escape appears raw: C0 and C1 controls,
    DEL, format characters (bidi overrides), line and paragraph separators, surrogates,
    private-use and unassigned code points are written as ``\\uXXXX`` escapes. JSON means
    the same (they occur only inside strings), so a parser reads the text unchanged, and a
    terminal or a log that shows the document is not steered by it."""
    text = json.dumps(data, indent=2, ensure_ascii=False)
    out = []
    for c in text:
        if c.isprintable() or c == "\n":
            out.append(c)
            continue
        cat = unicodedata.category(c)
        unsafe = (cat[0] == "C" and c not in _KEPT_FORMAT) or cat in ("Zl", "Zp")
        out.append(_json_escape(c) if unsafe else c)
    return "".join(out)


def use_color(stream: TextIO | None = None) -> bool:
    """Whether text for ``stream`` (default: standard error, where findings go) is coloured:
    never when ``NO_COLOR`` is set to anything but the empty string (no-color.org); always
    when ``FORCE_COLOR`` is (force-color.org), even into a pipe or a file (CI logs show
    colour); otherwise when the stream is a terminal and ``TERM`` is not ``dumb``."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    stream = stream if stream is not None else sys.stderr
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False
    return tty and os.environ.get("TERM") != "dumb"


#: How each part of a finding is coloured (click.style's arguments). Colour is added
#: after :func:`shown` escaped the text: untrusted text never carries an escape sequence.
_STYLES: dict[str, dict[str, Any]] = {
    "error": {"fg": "red", "bold": True}, "warning": {"fg": "yellow", "bold": True},
    "location": {"bold": True}, "rule": {"dim": True}, "label": {"fg": "cyan"},
}


def _paint(text: str, part: str, color: bool) -> str:
    return click.style(text, **_STYLES[part]) if color else text


def finding_text(finding: Finding, color: bool = False) -> str:
    """One finding as text: ``operator.yaml:14:7: error: ... [OR-3.8]``, then an indented
    ``hint:`` line when there is a hint, and a ``see:`` line with the rule's anchor on
    the specification site for requirement ids. Location, message and hint pass through
    :func:`terminal_safe`: they may quote a card's or a server's text. The message of a
    rule of :data:`QUOTING_RULES` is its first line; each further line (git's own words)
    is quoted under it (``    > remote: ...``), each through :func:`shown`."""
    message, *quoted = (finding.message.split("\n") if finding.rule in QUOTING_RULES
                        else [finding.message])
    text = (f"{_paint(shown(str(finding.location)), 'location', color)}: "
            f"{_paint(finding.level, finding.level, color)}: "
            f"{shown(message)} {_paint(f'[{shown(finding.rule)}]', 'rule', color)}")
    for line in quoted:
        text += f"\n    > {shown(line)}"
    if finding.hint:
        text += f"\n    {_paint('hint:', 'label', color)} {shown(finding.hint)}"
    if finding.doc:
        text += f"\n    {_paint('see:', 'label', color)} {finding.doc}"
    return text


def report_text(report: Report, summary: bool = True, color: bool = False) -> str:
    """All findings as text, in :meth:`~acap.findings.Report.sorted` order, one per line
    (plus hint lines), and (with ``summary``) a line counting errors and warnings;
    ``color``: with the terminal colours of :func:`use_color`."""
    lines = [finding_text(f, color) for f in report.sorted()]
    e, w = len(report.errors), len(report.warnings)
    if summary and (e or w):
        lines.append(_paint(f"{e} error{'s' if e != 1 else ''}", "error", color and e > 0)
                     + f", {w} warning{'s' if w != 1 else ''}")
    return "\n".join(lines)


def finding_json(finding: Finding) -> dict[str, Any]:
    """One finding as a JSON object: ``rule``, ``level``, ``message``, ``location`` (only
    the parts it has), ``hint`` and ``doc`` when there are."""
    loc = finding.location
    data: dict[str, Any] = {"rule": finding.rule, "level": finding.level,
                            "message": finding.message,
                            "location": {k: v for k, v in (("file", loc.file), ("line", loc.line),
                                                           ("column", loc.column),
                                                           ("pointer", loc.pointer))
                                         if v is not None}}
    if finding.hint is not None:
        data["hint"] = finding.hint
    if finding.doc:
        data["doc"] = finding.doc
    return data


def report_json(report: Report) -> dict[str, Any]:
    """All findings as ``{"findings": [...], "errors": N, "warnings": N}``."""
    return {"findings": [finding_json(f) for f in report.sorted()],
            "errors": len(report.errors), "warnings": len(report.warnings)}


def findings_of(*results: object) -> list[Finding]:
    """Every finding the results carry, whatever kind of result each is: a
    :class:`~acap.findings.Report` or a list of findings itself; or an object whose
    ``report`` (a Report or a list) or else ``findings`` holds them, plus those of its
    ``outcomes`` (a batch's operators). A finding met twice (the same object) is given
    once. ``None`` gives none. This is how the reporters that show findings only (SARIF,
    GitHub) render any result, a new kind included."""
    out: list[Finding] = []
    seen: set[int] = set()

    def add(items: Iterable[object]) -> None:
        for f in items:
            if isinstance(f, Finding) and id(f) not in seen:
                seen.add(id(f))
                out.append(f)

    for result in results:
        if result is None:
            continue
        if isinstance(result, (Report, list)):
            add(result)
            continue
        held = getattr(result, "report", None)
        held = held if isinstance(held, (Report, list)) else getattr(result, "findings", None)
        if isinstance(held, (Report, list)):
            add(held)
        for outcome in getattr(result, "outcomes", None) or ():
            add(findings_of(outcome))
    return out


def verdict(result: object, strict: bool = False) -> bool:
    """Whether ``result`` passes, as the command's exit status says: its own verdict
    (:meth:`acap.findings.Result.passes`, else its ``ok``), and no error among
    :func:`findings_of` (no warning either with ``strict``); a result without a verdict
    of its own passes by its findings alone."""
    passes = getattr(result, "passes", None)
    ok = getattr(result, "ok", None)
    if callable(passes):
        passed = bool(passes(strict))
    elif callable(ok):
        passed = bool(ok(strict))
    else:
        passed = True if ok is None else bool(ok)
    failing = ("error", "warning") if strict else ("error",)
    return passed and not any(f.level in failing for f in findings_of(result))


#: What ``acap verify`` says of a card whose signatures verify: what it judged, and only
#: that (the extension's requirements, OR-3.x, are judged by ``acap check``).
SIGNATURES_VERIFIED = "signatures verified (the card's content is judged by acap check)"

#: The version of the JSON document's shape (``formatVersion``): raised when a member is
#: removed or changes meaning; members may be added within a version. Described by
#: ``acap/schemas/acap-output.schema.json``.
OUTPUT_VERSION = 1


def result_json(kind: str, source: str | None, found: Iterable[Finding], ok: bool,
                **fields: Any) -> dict[str, Any]:
    """One result of a run as JSON (one input: a card, an operator file, a build ...).

    Args:
        kind: what was done (``card``, ``operator``, ``build``, ``batch``, ``live``,
            ``verification``, ``publish``, ``reply``, ``probe``, ``findings``).
        source: the input as given (a path or URL), or ``None``.
        found: its findings (sorted here).
        ok: whether it passed (see :func:`verdict`).
        fields: what this kind says besides (camelCase names, JSON values).

    Returns:
        ``{"kind", "source", "ok", "errors", "warnings", "findings", **fields}``.
    """
    report = Report(list(found))
    return {"kind": kind, "source": source, "ok": ok, **report_json(report), **fields}


def output_json(command: str, results: list[dict[str, Any]]) -> dict[str, Any]:
    """The JSON document of a run, the same shape for every command and for one input or
    many: ``formatVersion`` (:data:`OUTPUT_VERSION`), ``acap`` (the version), ``command``,
    ``ok`` (every result passed: exit status 0), ``errors`` and ``warnings`` (totals),
    ``findings`` (every result's, in result order) and ``results`` (:func:`result_json`)."""
    return {"formatVersion": OUTPUT_VERSION, "acap": __version__, "command": command,
            "ok": all(r["ok"] for r in results),
            "errors": sum(r["errors"] for r in results),
            "warnings": sum(r["warnings"] for r in results),
            "findings": [f for r in results for f in r["findings"]],
            "results": results}


def _not_judged(result: object) -> list[dict[str, str]]:
    """What a result could not judge (``not_judged``: ``(rule, why)`` pairs), as JSON:
    ``[{"rule", "why"}]``; ``[]`` for a result that says nothing of it."""
    return [{"rule": str(rule), "why": str(why)}
            for rule, why in getattr(result, "not_judged", None) or ()]


def command_name() -> str:
    """The running ``acap`` subcommand (``"check"``, ``"keys rotate"``), from click's
    context; ``""`` outside a command."""
    ctx = click.get_current_context(silent=True)
    names: list[str] = []
    while ctx is not None and ctx.parent is not None:
        names.append(ctx.info_name or "")
        ctx = ctx.parent
    return " ".join(reversed(names))


def _echo(text: str, err: bool, color: bool | None = None) -> None:
    click.echo(text, err=err, color=color)


def _not_built(result: BuildResult) -> str:
    """Why a build wrote nothing, and that site/ stayed as it was."""
    why = "warnings fail the build with --strict" if result.report.ok else \
        "errors in " + ", ".join(dict.fromkeys(shown(f.location.file)
                                               for f in result.report.errors))
    kept = f"; {shown(str(result.site_dir))} was left as it was" \
        if result.site_dir.exists() else ""
    return f"not built: {why}{kept}"


def _ownership(host: str, overlay: bool) -> str:
    """Whether acap owns ``host`` whole or adds its files to a website there, in words."""
    if overlay:
        return ("acap adds its files beside your website there (no index.html or 404.html; "
                "acap publish changes no other file)")
    return f"acap's own site: acap publish makes it hold exactly site/{host}/"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' * (n != 1)}"


class Reporter:
    """Renders acap's results; one subclass per ``--format``."""

    #: The ``--format`` value this reporter answers to.
    name = ""

    def __init__(self, echo: Echo | None = None, *, strict: bool = False,
                 color: bool | None = None) -> None:
        """Args:
            echo: writes one piece of output (default: click's, to stdout or stderr).
            strict: warnings fail too (``--strict``): the verdicts reported say so.
            color: colour the text (default: :func:`use_color` for click's standard
                error; never for another ``echo``).
        """
        self.color = (use_color() if echo is None else False) if color is None else color
        self.echo: Echo = echo or (lambda text, err: _echo(text, err, self.color))
        self.strict = strict

    def out(self, text: str) -> None:
        """Write ``text`` on standard output."""
        self.echo(text, False)

    def err(self, text: str) -> None:
        """Write ``text`` on standard error."""
        self.echo(text, True)

    def findings(self, report: Report) -> None:
        """Findings of a run (``acap check-reply``, the keys commands)."""
        raise NotImplementedError

    def build(self, result: BuildResult) -> None:
        """``acap build`` of one operator."""
        raise NotImplementedError

    def batch(self, result: BatchResult, options: BatchOptions) -> None:
        """``acap build`` of many operator files."""
        raise NotImplementedError

    def card_check(self, result: CardCheck, live: LiveCheck | None = None) -> None:
        """``acap check`` (with ``--live``: the live check beside it)."""
        raise NotImplementedError

    def checks(self, results: list[CardCheck | OperatorCheck]) -> None:
        """``acap check`` of one or more cards and operator files."""
        raise NotImplementedError

    def live(self, result: LiveCheck, ok: bool) -> None:
        """``acap live-check``; ``ok`` is the verdict with ``--strict`` applied."""
        raise NotImplementedError

    def verification(self, result: Verification) -> None:
        """``acap verify``."""
        raise NotImplementedError

    def publish(self, result: PublishResult, dry_run: bool) -> None:
        """``acap publish``."""
        raise NotImplementedError

    def reply_check(self, result: ReplyCheck, strict: bool) -> None:
        """``acap check-reply``; ``strict``: warnings fail too."""
        self._reply_notes(result)
        self.findings(result.report)

    def _reply_notes(self, result: ReplyCheck) -> None:
        """Said on standard error whatever the format: the check of a reply whose activation
        was read from the reply itself is partial, and what could not be judged is never
        "fine"."""
        if result.assumed:
            marked = "" if result.activated else "not "
            self.err(f"note: checked as {marked}activated, since the reply is {marked}marked; "
                     "say --activated or --not-activated to check OR-6.1 fully")
        for rule, why in result.not_judged:
            self.err(f"not judged [{rule}]: {terminal_safe(why)}")

    def probe(self, result: ProbeResult, strict: bool) -> None:
        """``acap probe``; ``strict``: warnings fail too."""
        raise NotImplementedError


class TextReporter(Reporter):
    """Text for a person (see the module docstring)."""

    name = "text"

    def findings(self, report: Report) -> None:
        if len(report):
            self.err(report_text(report, color=self.color))

    def _listed(self, report: Report) -> None:
        """The findings on standard error, without the count (the outcome line says it)."""
        if len(report):
            self.err(report_text(report, summary=False, color=self.color))

    def build(self, result: BuildResult) -> None:
        for note in result.notices:
            self.err(f"note: {note}")
        self.findings(result.report)
        if not result.ok:
            self.err(_not_built(result))
            return
        self.out(f"built {result.site_dir}/ ({_plural(len(result.files), 'file')}: "
                 f"{', '.join(result.files.hosts())})")
        for host, overlay in result.overlay.items():
            self.out(f"  {host}: " + _ownership(host, overlay))
        if result.card_url:
            self.out(f"card: {result.card_url}")
        if result.servers:
            self.out("web server settings (Apache, nginx, Caddy) for the card: "
                     + ", ".join(f"{result.site_dir}/{s}/" for s in result.servers))

    def batch(self, result: BatchResult, options: BatchOptions) -> None:
        errors, warnings = result.totals()
        for o in result.outcomes:
            for note in o.notices:
                self.err(f"note: {shown(str(o.config))}: {shown(note)}")
            if len(o.report):
                self.err(report_text(o.report, summary=False, color=self.color))
        if len(result.report):
            self.err(report_text(result.report, summary=False, color=self.color))
        self.err(f"{_plural(errors, 'error')}, {_plural(warnings, 'warning')} in "
                 f"{_plural(len(result.outcomes), 'operator file')}")
        n, total = len(result.built), len(result.outcomes)
        if result.written:
            unchanged = len(result.reused)
            same = f" ({unchanged} unchanged since the last build, kept as they were)" \
                if unchanged else ""
            self.out(f"built {n} of {total} operators into {shown(str(result.site_dir))}/{same}")
        else:
            self.out(f"nothing written to {shown(str(result.site_dir))}/ ({n} of {total} operators "
                     "built without error)")
        for o in result.failed:
            self.err(f"not built: {shown(str(o.config))} (its previous folders, if any, were "
                     "kept)")
        if result.kept and result.written:
            n_kept = len(result.kept)
            why = "not pruned: see the warning above" if options.prune else \
                "--prune removes them"
            self.err(f"kept: {_plural(n_kept, 'operator')} of the last build that "
                     f"{'are' if n_kept != 1 else 'is'} not in this one ({why})")
        if result.pruned:
            self.err(f"pruned: {', '.join(shown(p) for p in result.pruned)}")

    def card_check(self, result: CardCheck, live: LiveCheck | None = None) -> None:
        self._listed(result.report)
        unjudged = result.not_judged
        e, w = len(result.report.errors), len(result.report.warnings)
        self.out(f"{terminal_safe(result.source)}: " + (
            "no problems found" + (" in what acap could judge" if unjudged else "")
            if not (e or w) else f"{_plural(e, 'error')}, {_plural(w, 'warning')}"))
        for rule, why in unjudged:  # said whatever the result: never "fine"
            self.err(f"not judged [{rule}]: {terminal_safe(why)}")
        part = [r for r, how, _ in result.skipped if how == "part"]
        none = [r for r, how, w in result.skipped if how == "none" and (r, w) not in unjudged]
        if part or none:
            note = "note: without operator.yaml"
            if part:
                note += f", checked in part only: {', '.join(part)}"
            if none:
                note += f"; not checked: {', '.join(none)}"
            self.err(note + " (--format json says why)")
        if live is not None:
            self.out("")
            self._live_table(live)
            self.findings(live.report)
            self.out("live card verified" if live.ok else "live card NOT verified")

    def checks(self, results: list[CardCheck | OperatorCheck]) -> None:
        for result in results:
            card, operator = _split(result)
            if card is not None:
                self.card_check(card)
            elif operator is not None:
                self._listed(operator.report)
                e, w = len(operator.report.errors), len(operator.report.warnings)
                self.out(f"{terminal_safe(operator.source)}: " + (
                    f"{_plural(e, 'error')}, {_plural(w, 'warning')}" if e or w else
                    "no problems found (every check of acap build; nothing was written)"))

    def live(self, result: LiveCheck, ok: bool) -> None:
        self._live_table(result)
        self.findings(result.report)
        self.out("live card verified" if ok else "live card NOT verified")

    def _live_table(self, result: LiveCheck) -> None:
        """The live check as a short table. Every value came from the network or a card:
        each is escaped for the terminal."""
        def row(label: str, value: object, good: bool | None = None) -> None:
            mark = "" if good is None else ("  ok" if good else "  <- see below")
            self.out(f"  {label:<16} "
                     f"{shown(str(value)) if value is not None else '-'}{mark}")

        for what, f in [("card", result.card), *(("jwks", j) for j in result.jwks.values())]:
            self.out(f"{what} {shown(f.url)}")
            if f.error and f.status is None:
                row("error", f.error, False)
                continue
            row("HTTP status", f.status, f.status == 200)
            ctype = (f.content_type or "").split(";")[0].strip().lower()
            row("Content-Type", f.content_type, ctype == "application/json"
                or ctype.endswith("+json"))
            row("CORS", f.cors and f"Access-Control-Allow-Origin: {f.cors}", f.cors_open)
            row("Cache-Control", f.cache_control, f.max_age is not None)
            row("ETag", f.etag, f.etag is not None)
            row("same as site/", {True: "yes", False: "no", None: "no local build"}
                [f.same_as_local], f.same_as_local)
        for s in result.signatures:
            self.out(f"signature {s.index}: kid {shown(s.kid or '-')}, "
                     f"alg {shown(s.alg or '-')}: "
                     + ("valid" if s.valid else f"{s.state} ({shown(s.reason)})"))
        for f in result.person_entries.values():
            self.out(f"personEntry {shown(f.url)}")
            if f.status is None:
                row("error", f.error, False)
            else:
                row("HTTP status", f.status, f.status == 200)

    def verification(self, result: Verification) -> None:
        safe = shown  # kid, alg, reason quote the card
        for s in result.signatures:
            self.out(f"signature {s.index}: kid {safe(s.kid or '-')}, alg {safe(s.alg or '-')}: "
                     f"{s.state}" + ("" if s.reason == "valid" else f" ({safe(s.reason)})"))
        if result.jwks_source and any(s.checked for s in result.signatures):
            self.out(f"keys from {safe(result.jwks_source)}")
        self.findings(result.report)
        unchecked = bool(result.signatures) and all(not s.checked for s in result.signatures)
        wrong = [str(s.index) for s in result.signatures if s.checked and not s.valid]
        if result.ok:  # the signatures only: the card's content is acap check's (trial 3 F8)
            self.out(SIGNATURES_VERIFIED)
        elif unchecked:
            self.out("NOT verified: the signatures could not be checked (keys unavailable)")
        elif wrong and any(s.valid for s in result.signatures):
            self.out(f"NOT verified: signature {', '.join(wrong)} does not match the card, "
                     "though another does")
        elif any(s.valid for s in result.signatures):
            self.out("NOT verified: a signature matches, but the card has errors (above): "
                     "what is verified must be what clients are shown")
        else:
            self.out("NOT verified")

    def reply_check(self, result: ReplyCheck, strict: bool) -> None:
        super().reply_check(result, strict)
        self.out("the reply follows §5 and §6 as far as acap can check" if
                 result.report.passes(strict) else "the reply does NOT follow §5 and §6")

    def publish(self, result: PublishResult, dry_run: bool) -> None:
        self.findings(result.report)
        for h in result.hosts:
            line = f"{shown(h.target.host)}: {h.outcome} ({shown(h.target.describe())})"
            if h.commit and h.outcome == "published":
                line += f", commit {h.commit[:12]}"
            self.out(line)
            if h.plan and (dry_run or h.outcome == "failed"):
                for sign, paths in (("+", h.plan.added), ("~", h.plan.changed),
                                    ("-", h.plan.removed)):
                    for p in paths:
                        self.out(f"  {sign} {shown(p)}")
            for where, why in h.swept if dry_run else []:
                self.out(f"  - {shown(where)} ({why})")
        if not result.ok and not result.hosts:
            self.err("nothing was published")


    def probe(self, result: ProbeResult, strict: bool) -> None:
        safe = terminal_safe  # URLs and texts came from a card or a server
        if result.card_url:
            self.out(f"card {safe(result.card_url)}: " + ("verified" if result.verified else
                                                          "NOT verified" if result.read
                                                          else "not read"))
        if result.interface:
            self.out(f"agent {safe(result.interface)}: {_plural(result.requests, 'request')}, "
                     f"{_plural(len(result.cases), 'case')} judged")
        for label, _, found in result.cases:
            errors = sum(f.level == "error" for f in found)
            warnings = len(found) - errors
            verdict = "ok" if not found else \
                f"{_plural(errors, 'error')}, {_plural(warnings, 'warning')}"
            self.out(f"  {safe(label)}: {verdict}")
        self.findings(result.report)
        if result.not_judged:
            self.out("not judged:")
            for what, why in result.not_judged:
                self.out(f"  {safe(what)}: {safe(why)}")
        from acap.agent import PROBE_RULES  # start-up: the agent stage only for a probe's report

        if result.passes(strict):
            self.out("the agent keeps its card's promises as far as the probe can judge "
                     f"({', '.join(PROBE_RULES)})")
        elif result.verified and not result.cases:
            self.out("nothing could be judged")
        else:
            self.out("the agent does NOT keep its card's promises" if result.cases
                     else "not probed")


class JsonReporter(Reporter):
    """One JSON document per run on standard output, the same shape for every command and
    any number of inputs (:func:`output_json`; see the module docstring)."""

    name = "json"

    def _doc(self, *results: dict[str, Any]) -> None:
        # cards', servers' and agents' words are in it: every control, format or separator
        # character written as a JSON escape (json_escaped), the text unchanged once parsed
        self.out(json_escaped(output_json(command_name(), list(results))))

    def findings(self, report: Report) -> None:
        self._doc(result_json("findings", None, report, report.passes(self.strict)))

    def build(self, result: BuildResult) -> None:
        for note in result.notices:  # what was done (a key made) is said whatever the format
            self.err(f"note: {note}")
        self._doc(result_json(
            "build", None, result.report, verdict(result, self.strict),
            siteDir=str(result.site_dir), written=result.written, cardUrl=result.card_url,
            hosts=[{"host": h, "acap": "adds" if o else "whole"}
                   for h, o in result.overlay.items()],
            servers=[f"{result.site_dir}/{s}" for s in result.servers],
            notices=list(result.notices)))
        if not result.ok:
            self.err(_not_built(result))

    def batch(self, result: BatchResult, options: BatchOptions) -> None:
        operators = [result_json("build", str(o.config), o.report, o.built and o.report.passes(
            self.strict), built=o.built, cardUrl=o.card_url, notices=list(o.notices))
                     for o in result.outcomes]
        whole = result_json("batch", str(result.site_dir), result.report,
                            bool(result.outcomes) and not result.failed
                            and result.report.passes(self.strict),
                            written=result.written, kept=result.kept, pruned=result.pruned)
        self._doc(*operators, whole)

    def _card_check(self, result: CardCheck) -> dict[str, Any]:
        return result_json("card", result.source, result.report, verdict(result, self.strict),
                           url=result.url,
                           skipped=[{"rule": r, "checked": how, "reason": why}
                                    for r, how, why in result.skipped],
                           notJudged=_not_judged(result))

    def _live(self, result: LiveCheck) -> dict[str, Any]:
        return result_json("live", result.card.url, result.report,
                           result.ok and result.report.passes(self.strict),
                           card=vars(result.card),
                           jwks=[vars(f) for f in result.jwks.values()],
                           signatures=[vars(s) for s in result.signatures],
                           personEntries=[vars(f) for f in result.person_entries.values()])

    def card_check(self, result: CardCheck, live: LiveCheck | None = None) -> None:
        self._doc(self._card_check(result), *([self._live(live)] if live is not None else []))

    def checks(self, results: list[CardCheck | OperatorCheck]) -> None:
        docs = []
        for result in results:
            card, _ = _split(result)
            docs.append(self._card_check(card) if card is not None else
                        result_json("operator", result.source, result.report,
                                    verdict(result, self.strict)))
        self._doc(*docs)

    def live(self, result: LiveCheck, ok: bool) -> None:
        self._doc({**self._live(result), "ok": ok})

    def verification(self, result: Verification) -> None:
        self._doc(result_json("verification", result.source, result.report, verdict(result),
                              jwks=result.jwks_source,
                              signatures=[vars(s) for s in result.signatures]))

    def publish(self, result: PublishResult, dry_run: bool) -> None:
        self._doc(result_json("publish", None, result.report, verdict(result), dryRun=dry_run,
                              hosts=[{
            "host": h.target.host, "target": h.target.describe(), "outcome": h.outcome,
            "acap": "adds" if h.target.overlay else "whole", "commit": h.commit,
            "added": h.plan.added if h.plan else [],
            "changed": h.plan.changed if h.plan else [],
            "removed": h.plan.removed if h.plan else [],
            "leftovers": [{"path": where, "why": why} for where, why in h.swept],
        } for h in result.hosts]))

    def reply_check(self, result: ReplyCheck, strict: bool) -> None:
        self._reply_notes(result)
        self._doc(result_json("reply", None, result.report, verdict(result, strict),
                              activated=result.activated, assumed=result.assumed,
                              notJudged=_not_judged(result)))

    def probe(self, result: ProbeResult, strict: bool) -> None:
        self._doc(result_json(
            "probe", result.url, result.report, verdict(result, strict),
            card=result.card_url, read=result.read, verified=result.verified,
            interface=result.interface, requests=result.requests,
            cases=[{"case": label, "skill": sid,
                    "ok": not any(f.level == "error" for f in found),
                    "findings": [finding_json(f) for f in found]}
                   for label, sid, found in result.cases],
            notJudged=[{"what": w, "why": y} for w, y in result.not_judged],
            exchanges=[vars(e) for e in result.exchanges]))


class JUnitReporter(Reporter):
    """JUnit XML for CI (``acap probe --format junit``): one test suite, one test case per
    judged pair of replies (a failure per error finding), one for the card, and a skipped
    case for each thing the probe could not judge. Only ``acap probe`` offers it."""

    name = "junit"

    def findings(self, report: Report) -> None:
        self._suite("acap", [("findings", "acap", list(report))], [])

    def probe(self, result: ProbeResult, strict: bool) -> None:
        judged = {id(f) for _, _, found in result.cases for f in found}
        card = [f for f in result.report if id(f) not in judged]
        self._suite(f"acap probe {result.url}",
                    [("card", "card", card), *result.cases], result.not_judged, strict)

    def _suite(self, name: str, cases: list[tuple[str, str, list[Finding]]],
               skipped: list[tuple[str, str]], strict: bool = False) -> None:
        import xml.etree.ElementTree as ET  # start-up: only for --format junit

        # every name and message through shown(): an agent's or a card's text may hold
        # escape bytes, which a terminal obeys and XML 1.0 does not allow at all
        failing = {"error", "warning"} if strict else {"error"}
        suite = ET.Element("testsuite", name=shown(name), tests=str(len(cases) + len(skipped)))
        failures = 0
        for label, group, found in cases:
            case = ET.SubElement(suite, "testcase", name=shown(label), classname=shown(group))
            bad = [f for f in found if f.level in failing]
            for f in bad:
                failures += 1
                fail = ET.SubElement(case, "failure", message=shown(f"[{f.rule}] {f.message}"),
                                     type=shown(f.rule))
                fail.text = finding_text(f)
            rest = [f for f in found if f not in bad]
            if rest:
                ET.SubElement(case, "system-out").text = "\n".join(finding_text(f)
                                                                   for f in rest)
        for what, why in skipped:
            case = ET.SubElement(suite, "testcase", name=shown(what), classname="not judged")
            ET.SubElement(case, "skipped", message=shown(why))
        suite.set("failures", str(failures))
        suite.set("skipped", str(len(skipped)))
        self.out(ET.tostring(suite, encoding="unicode", xml_declaration=True))
