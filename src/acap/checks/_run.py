"""Requirement checks: operator.yaml at build time, and any card with ``acap check``.

Every finding cites a rule id from the requirement registry
(``acap/data/requirements.json``); ``grep -rn '"OR-3.4"' src/acap/checks`` finds the
code that raises it. One module per concern:
============================  ==================================================
module                        rule ids
============================  ==================================================
``declaration``               OR-3.1, OR-3.2, OR-3.3, OR-3.5, OR-3.6, OR-3.7,
                              A2A-SKILL-ID, SKILL-ID
``person_entry_rules``        OR-3.4, OR-3.8
``on_request_values``         OR-3.9, PRIVATE-VALUES
``agent_behaviour``           OR-5.5, OR-5.6, OR-5.7, OR-5.9, OR-5.10
``a2a_structure``             A2A-REQUIRED, A2A-TYPE, A2A-LEGACY, A2A-UNKNOWN-FIELD,
                              A2A-EMPTY, A2A-BINDING, A2A-PROTOCOL-VERSION,
                              A2A-SECURITY, A2A-OAUTH-FLOWS
``urls``, ``url_fields``      URL-FORM, URL-IDN, URL-SCRIPT, URL-HTTPS, CARD-URL
``private_keys``              KEY-PRIVATE (operator.yaml and cards)
``acap.load._text``          TEXT-INVISIBLE, TEXT-LENGTH, blank text (SCHEMA-EMPTY,
                              A2A-REQUIRED, A2A-EMPTY); KEY-ID
============================  ==================================================

Most rules are written once over a :class:`~acap.checks._facts.Subject`, the
shared view of operator.yaml or a card; the checks that need what only
operator.yaml says are skipped for cards and listed in :data:`CARD_SKIPS`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from acap.checks import (
    _a2a_structure as a2a_structure,
)
from acap.checks import (
    _agent_behaviour as agent_behaviour,
)
from acap.checks import (
    _declaration as declaration,
)
from acap.checks import (
    _on_request_values as on_request_values,
)
from acap.checks import (
    _person_entry_rules as person_entry_rules,
)
from acap.checks import (
    _private_keys as private_keys,
)
from acap.checks import (
    _url_fields as url_fields,
)
from acap.checks._facts import Locate, Subject, from_card, from_operator, reported_pointers
from acap.checks._text import card_size_finding, card_text
from acap.checks._urls import one_finding_per_host
from acap.findings import Finding, Location, Report, Result
from acap.load import OperatorConfig
from acap.uris import CARD_PATH

#: What ``acap check`` of a card cannot check fully without operator.yaml:
#: ``(rule id, "part" or "none", why)``.
CARD_SKIPS: tuple[tuple[str, str, str], ...] = (
    ("OR-3.4", "part", "whether personEntry's origin is the operator's own is guessed from "
                       "provider.url and the card's host; whether the person acts themselves is "
                       "only in operator.yaml (personActs)"),
    ("OR-3.6", "part", "whether a skill changes something or waits on a person is only in "
                       "operator.yaml (action, waitsOnPerson)"),
    ("OR-3.9", "part", "the values given on request are only in operator.private.yaml; the card "
                       "is searched for amounts of money only"),
    ("OR-5.10", "part", "read from the skills' words in the languages acap has words for (a "
                        "card has no reachesStaff); not judged for a card in another language"),
    ("OR-5.5", "none", "concerns the operator's own control for assistantAccess"),
    ("OR-5.6", "none", "the safeguards of an action opened to assistants are declared in "
                       "operator.yaml"),
    ("OR-5.7", "none", "follows from OR-5.6"),
)


@dataclass(repr=False)
class OperatorCheck(Result):
    """The result of ``acap check operator.yaml``: every check of ``acap build``, with
    nothing written (:func:`acap.builder.check_operator_file`).

    Attributes:
        source: the file as given.
        report: every finding of loading, the schema and the requirement checks.
    """

    source: str
    report: Report = field(default_factory=Report)


def check_operator(cfg: OperatorConfig,
                   reading: on_request_values.TextReading = on_request_values.DIGITS,
                   ) -> list[Finding]:
    """Every requirement check that operator.yaml allows, on any file whose top level
    is a mapping, with or without loading and schema errors.

    Also reads ``operator.private.yaml`` beside it (OR-3.9), if there is one. The
    checks read data of any shape (a value of the wrong type is passed over here:
    the schema reports it). A finding at a place of operator.yaml where loading or
    the schema already reported an error (``cfg.findings``, same JSON pointer; see
    :func:`~acap.checks._facts.reported_pointers`) is left out, and so is a URL
    finding on a value whose invisible character is reported (``TEXT-INVISIBLE``),
    so that one fault is said once; a host written with letters beyond a to z is one
    error wherever it appears (:func:`~acap.checks._urls.one_finding_per_host`).

    Args:
        cfg: a loaded operator.yaml (``cfg.findings`` may hold errors).
        reading: how skill text is read for OR-3.9
            (:class:`~acap.checks._on_request_values.TextReading`).

    Returns:
        Findings (errors and warnings), grouped by check; none for a file whose
        top level is not a mapping.
    """
    if not isinstance(cfg.loaded.data, dict):
        return []
    reported = reported_pointers(cfg)
    hidden = {f.location.pointer for f in cfg.findings if f.rule == "TEXT-INVISIBLE"}
    return one_finding_per_host([
        f for f in _operator_checks(cfg, reading)
        if not (f.location.file == cfg.loaded.file and (
            f.location.pointer in reported
            or (f.rule.startswith("URL-") and f.location.pointer in hidden)))])


def _operator_checks(cfg: OperatorConfig,
                     reading: on_request_values.TextReading) -> list[Finding]:
    sub = from_operator(cfg)
    private = on_request_values.load_private_values(cfg)
    out = _declaration(sub, declaration.operator_fields(sub))
    out += private.findings
    leaks = list(on_request_values.skill_text(sub, private.values, reading))
    out += leaks
    out += on_request_values.money_in_text(
        sub, skip=[f.location.pointer or "" for f in leaks if f.level == "error"],
        reading=reading)
    out += agent_behaviour.assistant_access_accepts_assertion(sub)
    out += agent_behaviour.action_safeguards(sub)
    out += agent_behaviour.sign_in_is_a2a(sub)
    out += agent_behaviour.staff_reachable(sub)
    out += a2a_structure.operator_structure(sub, cfg)
    out += url_fields.operator_urls(sub, cfg)
    out += private_keys.in_operator(cfg)
    return out


def _declaration(sub: Subject, own: Iterable[Finding]) -> list[Finding]:
    """Spec §3 in the order both sources report it: skill ids, then the source's own
    declaration findings (``own``: operator.yaml's fields, or the card's extension entry),
    then sign-in, what is said on request, and personEntry (OR-3.4, OR-3.8). The checks
    are pure: each reads ``sub`` only."""
    return [*declaration.skill_ids_unique(sub), *declaration.skill_id_form(sub), *own,
            *declaration.no_sign_in_on_request(sub), *declaration.said_on_request(sub),
            *person_entry_rules.check(sub)]


def check_site(cfg: OperatorConfig, files: Iterable[tuple[str, bytes]]) -> list[Finding]:
    """OR-3.9 over the finished site: no value of operator.private.yaml in any file; and
    TEXT-LENGTH: the card is not over :data:`acap.load._text.CARD_LIMIT` bytes.

    Args:
        cfg: the operator.yaml the site was built from.
        files: ``(path under site/, bytes)`` of every file the build made.

    Returns:
        Findings: OR-3.9 errors and warnings (none without a private file), and a
        TEXT-LENGTH warning for a card over the limit.
    """
    files = list(files)
    private = on_request_values.load_private_values(cfg)
    out = on_request_values.published_files(cfg, files, private.values)
    for rel, raw in files:
        if rel.endswith(CARD_PATH):
            big = card_size_finding(len(raw), Location(cfg.loaded.file))
            out += [big] if big else []
    return out


def card_findings(card: dict[str, Any], file: str, locate: Locate,
                  card_url: str | None = None,
                  not_judged: list[tuple[str, str]] | None = None,
                  reading: on_request_values.TextReading = on_request_values.DIGITS,
                  ) -> list[Finding]:
    """Every check a card allows without operator.yaml (see :data:`CARD_SKIPS`).

    Args:
        card: the parsed card (a JSON object of any shape).
        file: the card's path or URL, for findings.
        locate: ``(JSON pointer, key) -> Location`` in the card file.
        card_url: where the card is served, when known (CARD-URL, OR-3.4's origin guess).
        not_judged: a list to which ``(rule id, what)`` is added for each thing the
            checks could not judge (``not_judged`` of :class:`~acap.checks._facts.Subject`).
        reading: how skill text is read for OR-3.9 (as :func:`check_operator`).

    Returns:
        Findings, grouped by check.
    """
    sub = from_card(card, file, locate, card_url)
    out = list(a2a_structure.card_structure(sub, card))
    out += _declaration(sub, declaration.card_declaration(sub, card))
    out += on_request_values.money_in_text(sub, reading=reading)
    out += agent_behaviour.sign_in_is_a2a(sub)
    out += agent_behaviour.staff_reachable(sub)
    out += url_fields.card_urls(sub, card)
    out += private_keys.in_card(card, locate)
    if card_url:
        out += url_fields.card_location(sub, card_url)
    urls = {f.location.pointer for f in out if f.rule == "URL-FORM"}
    out += [f for f in card_text(card, locate)
            if not (f.rule == "TEXT-INVISIBLE" and f.location.pointer in urls)]
    if not_judged is not None:
        not_judged.extend(sub.not_judged)
    return out
