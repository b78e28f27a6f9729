"""The requirement registry: every On Request requirement id, and acap's own rule ids.

One data file, ``acap/data/requirements.json``, feeds the validator (which
cites the ids), the specification pages (which render them with anchors equal
to the id, ``#OR-3.4``), the conformance page, the SARIF reporter's rule
descriptions and the user guide's table of rules (:func:`rules_table`). Nothing else
lists them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache

from acap._package import package_path


@dataclass(frozen=True)
class Requirement:
    """One requirement of the On Request extension.

    Attributes:
        id: as the spec writes it, ``OR-3.4``.
        section: spec section, ``3`` or ``5.4``.
        level: ``MUST``, ``MUST NOT``, ``SHOULD`` or ``MAY`` (RFC 2119): the
            keyword governing what acap checks.
        levels: every RFC 2119 keyword the spec's text of it uses, in order
            (empty when the spec states it without one; see ``level_note``).
        statement: one line, in acap's words.
        where: where acap checks it: any of ``build``, ``card``, ``reply``.
        not_checkable: why acap cannot check it (when ``where`` is empty).
        check_note: what acap's check covers and, where it can only be partial,
            what it cannot see (``checkNote`` in the data file).
        reported: the levels of acap's findings of it (``error``, ``warning``;
            empty when acap does not check it).
        fix: how to put right what a finding of it says, in one line.
    """

    id: str
    section: str
    level: str
    statement: str
    where: tuple[str, ...]
    not_checkable: str | None = None
    levels: tuple[str, ...] = ()
    level_note: str | None = None
    check_note: str | None = None
    reported: tuple[str, ...] = ()
    fix: str = ""

    @property
    def checkable(self) -> bool:
        """True when acap checks it somewhere."""
        return bool(self.where)


@cache
def _doc() -> dict[str, object]:
    raw = package_path("data", "requirements.json").read_bytes()
    data: dict[str, object] = json.loads(raw)
    return data


@cache
def requirements() -> tuple[Requirement, ...]:
    """All 23 On Request requirements, in spec order."""
    out = []
    for e in _doc()["requirements"]:  # type: ignore[attr-defined]
        out.append(Requirement(e["id"], e["section"], e["level"], e["statement"],
                               tuple(e["where"]), e.get("notCheckable"),
                               tuple(e.get("levels", ())), e.get("levelNote"),
                               e.get("checkNote"), tuple(e.get("reported", ())),
                               e.get("fix", "")))
    return tuple(out)


@dataclass(frozen=True)
class Rule:
    """One of acap's own rule ids (not a requirement of the extension).

    Attributes:
        id: ``URL-IDN``, ``A2A-LEGACY`` ...
        statement: what it checks, one line.
        where: where acap's validator raises it: ``build`` and/or ``card``
            (empty for rules of other parts of acap, such as signing).
        reported: the levels of acap's findings of it (``error``, ``warning``).
        fix: how to put right what a finding of it says, in one line.
    """

    id: str
    statement: str
    where: tuple[str, ...] = ()
    reported: tuple[str, ...] = ()
    fix: str = ""


@cache
def rules() -> tuple[Rule, ...]:
    """acap's own rule ids, in registry order."""
    return tuple(Rule(e["id"], e["statement"], tuple(e.get("where", ())),
                      tuple(e.get("reported", ())), e.get("fix", ""))
                 for e in _doc()["rules"])  # type: ignore[attr-defined]


def _cell(text: str) -> str:
    """Text for a Markdown table cell: no line break, ``|`` escaped."""
    return " ".join(text.split()).replace("|", "\\|")


def rules_table() -> str:
    """Every rule id as Markdown tables for the user guide's rule page: the On Request
    requirements, then acap's own rules, one row each: the id (anchored by itself, so
    ``rules.md#OR-3.8`` lands on it), its level (the requirement's RFC 2119 keyword and
    the level of acap's findings), what it means and how to fix what it finds.

    Returns:
        Markdown text (two ``##`` sections with a table each).
    """
    def level(keyword: str, reported: tuple[str, ...]) -> str:
        said = " or ".join(reported) if reported else "not checked"
        return f"{keyword}: {said}" if keyword else said

    head = ["| id | level | what it means | how to fix |", "|---|---|---|---|"]
    out = ["## The On Request requirements", "",
           "The extension's own ids, as its specification numbers them (each links to it).",
           "", *head]
    for r in requirements():
        why = r.statement + (f" Not checkable: {r.not_checkable}" if r.not_checkable else "")
        out.append(f'| <a id="{r.id}"></a>[{r.id}](https://agent-capability.org/ext/'
                   f"on-request/v1/#{r.id}) | {level(r.level, r.reported)} | {_cell(why)} | "
                   f"{_cell(r.fix)} |")
    out += ["", "## acap's own rules", "",
            "What acap checks beyond the extension's requirements: how files are read, "
            "A2A 1.0, URLs, signatures, the site, publishing, the live card, the probe.", "",
            *head]
    for rule in rules():
        out.append(f'| <a id="{rule.id}"></a>`{rule.id}` | {level("", rule.reported)} | '
                   f"{_cell(rule.statement)} | {_cell(rule.fix)} |")
    return "\n".join(out) + "\n"


def checked_at(where: str) -> frozenset[str]:
    """Every id (requirement or own rule) the registry says acap checks at ``where``.

    Args:
        where: ``build``, ``card`` or ``reply``.
    """
    ids = {r.id for r in requirements() if where in r.where}
    ids |= {r.id for r in rules() if where in r.where}
    return frozenset(ids)


@cache
def rule_ids() -> frozenset[str]:
    """Every rule id a finding may carry: the requirement ids and acap's own."""
    own = {e["id"] for e in _doc()["rules"]}  # type: ignore[attr-defined]
    return frozenset({r.id for r in requirements()} | own)


def own_rules() -> tuple[tuple[str, str], ...]:
    """acap's own rule ids, not requirements of the spec: ``(id, statement)``, in file order."""
    return tuple((e["id"], e["statement"]) for e in _doc()["rules"])  # type: ignore[attr-defined]


def requirement(rid: str) -> Requirement:
    """The requirement with id ``rid``.

    Raises:
        KeyError: no such id.
    """
    for r in requirements():
        if r.id == rid:
            return r
    raise KeyError(rid)
