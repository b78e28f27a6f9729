"""Example files with their expected findings, as check-jsonschema keeps its test cases.

* ``tests/cases/operator/<name>.yaml``: an operator.yaml whose first lines say what it
  must give, ``# expect: OR-3.8 error 14`` (rule, level, line; optionally a file name
  when the finding is in another file, e.g. ``operator.private.yaml``). A sidecar
  ``<name>.private.yaml`` is used as its operator.private.yaml.
* ``tests/cases/card/<name>.json`` with ``<name>.expect``: one ``RULE LEVEL LINE`` per line
  (``-`` for a finding without a line), and options: ``@url URL`` checks the card as
  served at URL; ``@serve CONTENT-TYPE [STATUS]`` serves it over local HTTP.
* ``valid/`` under each: files that must give no error (their expect lines list the
  warnings they must give, if any).

Every finding of a case must be expected and every expectation found: a case proves
both that a fault is caught, with its rule, level and line, and that nothing else is said.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from support.paths import CASES

OPERATOR_CASES = CASES / "operator"
CARD_CASES = CASES / "card"

Expectation = tuple[str, str, "int | None", str]  # rule, level, line, file name ("" = the case)

_EXPECT = re.compile(r"#\s*expect:\s*(\S+)\s+(error|warning)\s+(\d+|-)(?:\s+(\S+))?\s*$")


@dataclass
class Case:
    """One example file and what it must give.

    Attributes:
        path: the case file.
        expected: sorted expectations ``(rule, level, line, file)``.
        url: ``@url`` option (cards).
        serve: ``@serve`` option, ``(content type, status)`` (cards).
    """

    path: Path
    expected: list[Expectation] = field(default_factory=list)
    url: str | None = None
    serve: tuple[str, int] | None = None

    @property
    def id(self) -> str:
        """pytest id: ``valid/example`` or ``or-3.8-query``."""
        return str(self.path.relative_to(self.path.parents[1] if self.valid else self.path.parent)
                   .with_suffix(""))

    @property
    def valid(self) -> bool:
        """True for a case under ``valid/``."""
        return self.path.parent.name == "valid"

    def rules(self) -> set[str]:
        """Rule ids the case expects."""
        return {e[0] for e in self.expected}


def _line(text: str) -> int | None:
    return None if text == "-" else int(text)


def operator_case(path: Path) -> Case:
    """Read the ``# expect:`` lines at the top of an operator case (any bytes)."""
    case = Case(path)
    for raw in path.read_bytes().split(b"\n"):
        line = raw.decode("utf-8", "replace").strip()
        if not line.startswith("#"):
            break
        m = _EXPECT.match(line)
        if m:
            case.expected.append((m[1], m[2], _line(m[3]), m[4] or ""))
    case.expected.sort(key=str)
    return case


def card_case(path: Path) -> Case:
    """Read a card case's ``.expect`` sidecar (no sidecar: nothing expected)."""
    case = Case(path)
    sidecar = path.with_suffix(".expect")
    if sidecar.exists():
        for line in sidecar.read_text(encoding="utf-8").splitlines():
            parts = line.split("#", 1)[0].split()
            if not parts:
                continue
            if parts[0] == "@url":
                case.url = parts[1]
            elif parts[0] == "@serve":
                case.serve = (parts[1], int(parts[2]) if len(parts) > 2 else 200)
            else:
                case.expected.append((parts[0], parts[1], _line(parts[2]), ""))
    case.expected.sort(key=str)
    return case


def operator_cases(valid: bool = False) -> list[Case]:
    """Every operator case (failing ones, or ``valid/`` ones)."""
    folder = OPERATOR_CASES / "valid" if valid else OPERATOR_CASES
    return [operator_case(p) for p in sorted(folder.glob("*.yaml"))
            if not p.name.endswith(".private.yaml")]


def card_cases(valid: bool = False) -> list[Case]:
    """Every card case (failing ones, or ``valid/`` ones)."""
    folder = CARD_CASES / "valid" if valid else CARD_CASES
    return [card_case(p) for p in sorted(folder.glob("*.json"))]


#: Case files never hold a PEM private key header, not even a fake one (nothing that
#: looks like a key is committed): they write these tokens, put back when a case runs.
PEM_TOKENS = {
    "@PEM-BEGIN@": "-----BEGIN " + "PRIVATE KEY-----",
    "@PEM-END@": "-----END " + "PRIVATE KEY-----",
    "@EC-PEM-BEGIN@": "-----BEGIN EC " + "PRIVATE KEY-----",
    "@EC-PEM-END@": "-----END EC " + "PRIVATE KEY-----",
}


def materialise(path: Path, target: Path) -> Path:
    """Copy a case file to ``target`` with the PEM tokens put back; returns ``target``."""
    data = path.read_bytes()
    for token, text in PEM_TOKENS.items():
        data = data.replace(token.encode(), text.encode())
    target.write_bytes(data)
    return target
