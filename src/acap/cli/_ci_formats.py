"""The reporters CI tools read: SARIF 2.1.0 (``--format sarif``, GitHub code scanning and
any SARIF viewer) and GitHub workflow commands (``--format github``: an annotation on the
line of each finding in a pull request and the run's summary).

Both render findings only, of any result: each method gathers a result's findings with
:func:`acap.cli._reporters.findings_of` and writes them once, so a new kind of result is
rendered too. What a text run says besides findings (a note that a key was made) goes to
standard error as text; the document, or the annotations, go to standard output.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from acap._package import __version__
from acap.cli._reporters import Reporter, findings_of, json_escaped, terminal_safe
from acap.findings import Finding, Report
from acap.uris import SPEC_BASE

if TYPE_CHECKING:
    from acap.agent import ProbeResult
    from acap.builder import BuildResult
    from acap.builder.batch import BatchOptions, BatchResult
    from acap.card import Verification
    from acap.checks import CardCheck, OperatorCheck
    from acap.publisher import LiveCheck, PublishResult

__all__ = ["GithubReporter", "SarifReporter", "annotation", "sarif_log"]


class _FindingsReporter(Reporter):
    """A format that shows findings only: every result is reduced to its findings."""

    def _emit(self, found: list[Finding]) -> None:
        raise NotImplementedError

    def findings(self, report: Report) -> None:
        self._emit(findings_of(report))

    def build(self, result: BuildResult) -> None:
        for note in result.notices:  # what was done (a key made) is said whatever the format
            self.err(f"note: {note}")
        self._emit(findings_of(result))

    def batch(self, result: BatchResult, options: BatchOptions) -> None:
        self._emit(findings_of(result))

    def card_check(self, result: CardCheck, live: LiveCheck | None = None) -> None:
        self._emit(findings_of(result, live))

    def checks(self, results: list[CardCheck | OperatorCheck]) -> None:
        self._emit(findings_of(*results))

    def live(self, result: LiveCheck, ok: bool) -> None:
        self._emit(findings_of(result))

    def verification(self, result: Verification) -> None:
        self._emit(findings_of(result))

    def publish(self, result: PublishResult, dry_run: bool) -> None:
        self._emit(findings_of(result))

    def probe(self, result: ProbeResult, strict: bool) -> None:
        self._emit(findings_of(result))


def _base() -> Path:
    """The folder relative paths are given from: the repository of a GitHub Actions run
    (``GITHUB_WORKSPACE``, which code scanning and annotations resolve paths against),
    else the current folder."""
    return Path(os.environ.get("GITHUB_WORKSPACE") or os.getcwd()).resolve()


def _is_url(file: str) -> bool:
    return file.startswith(("https://", "http://"))


def _relative(file: str) -> str | None:
    """``file`` (as a finding names it) relative to :func:`_base`, with ``/``; ``None``
    when it lies outside it or is no file (``<stdin>``, ``command line``: a place that
    names no file, which GitHub would show as a file of that name)."""
    if file.startswith("<"):
        return None
    try:
        path = Path(file).resolve()
        return path.relative_to(_base()).as_posix() if path.is_file() else None
    except (OSError, ValueError):  # outside, or a name no path can have (NUL)
        return None


# -- SARIF ------------------------------------------------------------------------------------

#: The SARIF 2.1.0 schema (OASIS, errata 01), named by every log's ``$schema``.
SARIF_SCHEMA = ("https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/"
                "sarif-schema-2.1.0.json")
#: A requirement's RFC 2119 keyword -> the SARIF level a rule is reported at by default.
_SARIF_LEVELS = {"MUST": "error", "MUST NOT": "error", "SHOULD": "warning",
                 "SHOULD NOT": "warning", "MAY": "note"}


def _rule(rule_id: str, first: Finding) -> dict[str, Any]:
    """The ``reportingDescriptor`` of a rule id: the registry's statement, the page that
    explains it (``helpUri``) and its default level."""
    from acap import requirements  # start-up: the registry only for a SARIF log

    statement, level = rule_id, str(first.level)
    try:
        req = requirements.requirement(rule_id)
        statement, level = req.statement, _SARIF_LEVELS.get(req.level, level)
    except KeyError:
        statement = dict(requirements.own_rules()).get(rule_id, rule_id)
    return {"id": rule_id, "shortDescription": {"text": statement},
            "helpUri": first.doc, "help": {"text": f"{statement} See {first.doc}"},
            "defaultConfiguration": {"level": level}}


def _sarif_location(finding: Finding) -> dict[str, Any] | None:
    """The ``location`` of a finding: its file (relative to the repository, else an
    absolute ``file:`` URI) or URL, its region, and its JSON pointer as a property."""
    loc = finding.location
    if _is_url(loc.file):
        artifact: dict[str, Any] = {"uri": loc.file}
    elif (rel := _relative(loc.file)) is not None:
        artifact = {"uri": quote(rel), "uriBaseId": "SRCROOT"}
    elif not loc.file.startswith("<"):
        try:
            artifact = {"uri": Path(loc.file).resolve().as_uri()}
        except (OSError, ValueError):
            return None
    else:
        return None  # standard input: no artifact to point to
    physical: dict[str, Any] = {"artifactLocation": artifact}
    if loc.line is not None and loc.line >= 1:
        region: dict[str, Any] = {"startLine": loc.line}
        if loc.column is not None and loc.column >= 1:
            region["startColumn"] = loc.column
        physical["region"] = region
    out: dict[str, Any] = {"physicalLocation": physical}
    if loc.pointer is not None:
        out["properties"] = {"jsonPointer": loc.pointer}
    return out


def sarif_log(found: list[Finding]) -> dict[str, Any]:
    """A SARIF 2.1.0 log of ``found``: one run of acap, one result per finding (rule id,
    level, message with the hint, file, line and column), each rule described once with
    its help URI (the rule's anchor on the specification site).

    Args:
        found: the findings, in the order to report them.

    Returns:
        The log as JSON data (valid against the OASIS SARIF 2.1.0 schema).
    """
    order: dict[str, int] = {}
    rules: list[dict[str, Any]] = []
    results: list[dict[str, Any]] = []
    for f in Report(list(found)).sorted():
        if f.rule not in order:
            order[f.rule] = len(rules)
            rules.append(_rule(f.rule, f))
        text = f.message + (f"\nhint: {f.hint}" if f.hint else "")
        result: dict[str, Any] = {"ruleId": f.rule, "ruleIndex": order[f.rule],
                                  "level": f.level, "message": {"text": text}}
        where = _sarif_location(f)
        if where is not None:
            result["locations"] = [where]
        results.append(result)
    return {
        "$schema": SARIF_SCHEMA, "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "acap", "version": __version__,
                                "semanticVersion": __version__, "informationUri": SPEC_BASE,
                                "rules": rules}},
            "originalUriBaseIds": {"SRCROOT": {"uri": _base().as_uri() + "/"}},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    }


class SarifReporter(_FindingsReporter):
    """``--format sarif``: one SARIF 2.1.0 log on standard output (:func:`sarif_log`)."""

    name = "sarif"

    def _emit(self, found: list[Finding]) -> None:
        self.out(json_escaped(sarif_log(found)))  # no raw control character from a card


# -- GitHub workflow commands -----------------------------------------------------------------

def _escape_data(text: str) -> str:
    """A workflow command's message, escaped as GitHub's runner reads it: ``%``, CR, LF."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    """A workflow command's property value: as :func:`_escape_data`, and ``:`` and ``,``."""
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


#: Longest message of one annotation, in characters: GitHub shows the start of a long one.
_LONGEST = 4000


def annotation(finding: Finding) -> str:
    """One finding as a GitHub workflow command: ``::error file=operator.yaml,line=14,
    col=7,title=acap OR-3.8::message%0Ahint: ...%0Asee: ...`` (``::warning`` for a
    warning). Each line of the text is :func:`~acap.cli._reporters.terminal_safe` (no
    escape sequence from a card reaches the log), then every ``%``, CR and LF is escaped,
    and in properties ``:`` and ``,`` too, as GitHub's toolkit escapes them, so that no
    value can end the command or start another. ``file`` is relative to the repository
    (``GITHUB_WORKSPACE``); a URL or standard input has none."""
    loc = finding.location
    props: list[str] = []
    rel = None if _is_url(loc.file) else _relative(loc.file)
    if rel is not None:
        props.append(f"file={_escape_property(rel)}")
        if loc.line is not None:
            props.append(f"line={loc.line}")
            if loc.column is not None:
                props.append(f"col={loc.column}")
    props.append(f"title={_escape_property(terminal_safe(f'acap {finding.rule}'))}")
    lines = finding.message.split("\n")
    if rel is None:
        lines[0] = f"{loc}: {lines[0]}"  # a URL, standard input, a file outside the repository
    if finding.hint:
        lines.append(f"hint: {finding.hint}")
    lines.append(f"see: {finding.doc}")
    text = "\n".join(terminal_safe(line) for line in lines)
    if len(text) > _LONGEST:
        text = text[:_LONGEST] + " [...]"
    return f"::{finding.level} {','.join(props)}::{_escape_data(text)}"


class GithubReporter(_FindingsReporter):
    """``--format github``: one workflow command per finding on standard output
    (:func:`annotation`), then a line counting them."""

    name = "github"

    def _emit(self, found: list[Finding]) -> None:
        ordered = Report(list(found)).sorted()
        for f in ordered:
            self.out(annotation(f))
        e = sum(f.level == "error" for f in ordered)
        self.out(f"acap: {e} error{'s' * (e != 1)}, {len(ordered) - e} "
                 f"warning{'s' * (len(ordered) - e != 1)}")
