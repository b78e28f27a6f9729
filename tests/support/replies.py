"""Reply case files, in the card cases' style (tests/casefiles.py).

* ``tests/cases/reply/<name>.json``: a reply as an agent sent it, with ``<name>.expect``:
  one ``RULE LEVEL LINE`` per line (``-`` for a finding without a line), ``#`` comments,
  and options for what the reply alone does not show:

  - ``@card NAME``: check against tests/cases/reply/cards/NAME.json (default
    ``annex-a1``, the spec's Annex A.1 card);
  - ``@activated true|false`` (default true), ``@skill ID``, ``@for-named-person
    true|false``, ``@action true|false``, ``@safeguards-hold true|false``,
    ``@response-extensions VALUE``: the arguments of
    :func:`acap.replies._check.check_reply`;
  - ``@compare PATH``: OR-5.1; this reply is the activated one, PATH (relative to
    tests/cases/reply/) the reply to the same request without activation
    (:func:`acap.replies._check.compare_replies`).

* ``valid/``: replies that must give no error; a sidecar, when there is one, gives
  options and the warnings they must give. The Annex A.2 to A.4 replies are here as
  the spec prints them.

Every finding in the case's own file must be expected and every expectation found.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acap.findings import Finding
from acap.load import read_reply
from acap.replies import check_reply, compare_replies
from support import paths

CASES = paths.CASES / "reply"
CARDS = CASES / "cards"
DEFAULT_CARD = "annex-a1"

Expectation = tuple[str, str, "int | None"]  # rule, level, line


@dataclass
class Case:
    """One reply case.

    Attributes:
        path: the reply file.
        expected: sorted ``(rule, level, line)``.
        card: name of the card under cards/.
        options: keyword arguments for ``check_reply``.
        compare: the not-activated partner reply for OR-5.1, or ``None``.
    """

    path: Path
    expected: list[Expectation] = field(default_factory=list)
    card: str = DEFAULT_CARD
    options: dict[str, Any] = field(default_factory=lambda: {"activated": True})
    compare: Path | None = None

    @property
    def id(self) -> str:
        """pytest id: ``or-6.1-no-object`` or ``valid/a2-information-referred``."""
        return str(self.path.relative_to(CASES).with_suffix(""))

    def rules(self) -> set[str]:
        """Rule ids the case expects."""
        return {e[0] for e in self.expected}


_BOOL = {"true": True, "false": False}
_FLAGS = {"@activated": "activated", "@for-named-person": "for_named_person",
          "@action": "action", "@safeguards-hold": "safeguards_hold"}


def reply_case(path: Path) -> Case:
    """Read a reply case and its ``.expect`` sidecar (no sidecar: defaults, nothing expected).

    Raises:
        ValueError: a line the format does not know, so a mistyped case cannot pass.
    """
    case = Case(path)
    sidecar = path.with_suffix(".expect")
    if not sidecar.exists():
        return case
    for n, raw in enumerate(sidecar.read_text(encoding="utf-8").splitlines(), 1):
        parts = raw.split("#", 1)[0].split(None, 1)
        if not parts:
            continue
        key, value = parts[0], parts[1].strip() if len(parts) > 1 else ""
        if key == "@card":
            case.card = value
        elif key == "@compare":
            case.compare = CASES / value
        elif key == "@skill":
            case.options["skill_id"] = value
        elif key == "@response-extensions":
            case.options["response_extensions"] = value
        elif key in _FLAGS and value in _BOOL:
            case.options[_FLAGS[key]] = _BOOL[value]
        elif not key.startswith("@") and len(value.split()) == 2:
            level, line = value.split()
            if level not in ("error", "warning"):
                raise ValueError(f"{sidecar}:{n}: level is error or warning")
            case.expected.append((key, level, None if line == "-" else int(line)))
        else:
            raise ValueError(f"{sidecar}:{n}: not an expectation or a known option: {raw!r}")
    case.expected.sort(key=str)
    return case


def reply_cases(valid: bool = False) -> list[Case]:
    """Every reply case (failing ones, or ``valid/`` ones)."""
    folder = CASES / "valid" if valid else CASES
    return [reply_case(p) for p in sorted(folder.glob("*.json"))]


def card_data(name: str) -> Any:
    """A card of tests/cases/reply/cards/ as parsed JSON."""
    return json.loads((CARDS / f"{name}.json").read_text(encoding="utf-8"))


def run_case(case: Case) -> list[Finding]:
    """The findings the checker reports in the case's own reply file."""
    card = card_data(case.card)
    rf = read_reply(case.path)
    if case.compare is not None:
        opts = {k: v for k, v in case.options.items() if k != "activated"}
        opts.pop("response_extensions", None)
        found = compare_replies(rf, read_reply(case.compare), card, **opts).findings
    else:
        found = check_reply(rf, card, **case.options).findings
    return [f for f in found if f.location.file == str(case.path)]


def found(findings: list[Finding]) -> list[Expectation]:
    """Findings as sorted ``(rule, level, line)``."""
    return sorted(((f.rule, f.level, f.location.line) for f in findings), key=str)


def missing_failing_cases(rule_ids: set[str] | frozenset[str], cases: list[Case]) -> list[str]:
    """The ids in ``rule_ids`` that no case expects a finding for, sorted."""
    covered = {rule for c in cases for rule in c.rules()}
    return sorted(set(rule_ids) - covered)
