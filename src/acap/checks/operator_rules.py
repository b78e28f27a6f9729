"""Checks on operator.yaml that need more than its JSON Schema.

Every function takes the :class:`~acap.operator_config.OperatorConfig` and
yields findings; :func:`run` runs them all.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from ..findings import Finding
from ..operator_config import OperatorConfig

Check = Callable[[OperatorConfig], Iterator[Finding]]


def skill_ids_unique(cfg: OperatorConfig) -> Iterator[Finding]:
    """A2A: skill ids are unique in a card; OR-3.3 needs it to name one skill."""
    first: dict[str, int] = {}
    for ptr, s in cfg.skills():
        sid = s.get("id")
        if not isinstance(sid, str):
            continue
        loc = cfg.at(ptr + "/id")
        if sid in first:
            yield Finding("A2A-SKILL-ID", "error",
                          f"skill id '{sid}' is used twice (first at line {first[sid]})", loc,
                          "give each skill its own id")
        else:
            first[sid] = loc.line or 0


def on_request_fields(cfg: OperatorConfig) -> Iterator[Finding]:
    """OR-3.4 (personEntry present), OR-3.7 (no sign-in on an on-request skill)."""
    for ptr, s in cfg.skills():
        kind = s.get("kind")
        if kind == "on-request" and not s.get("personEntry"):
            yield Finding("OR-3.4", "error",
                          f"on-request skill '{s.get('id')}' has no personEntry",
                          cfg.at(ptr + "/kind"),
                          "add personEntry: the https address or phone number where a "
                          "person asks")
        if kind == "on-request" and "signIn" in s:
            yield Finding("OR-3.7", "error",
                          f"on-request skill '{s.get('id')}' also has signIn",
                          cfg.at(ptr + "/signIn", key=True),
                          "a skill is on request or sign-in, not both: remove signIn, or "
                          "make it kind: sign-in")
        if kind != "on-request":
            for field in ("personEntry", "assistantAccess", "completion"):
                if field in s:
                    yield Finding("OR-3.2", "error",
                                  f"{field} belongs to on-request skills, and '{s.get('id')}' "
                                  f"is {kind}", cfg.at(f"{ptr}/{field}", key=True),
                                  f"remove {field}, or make the skill kind: on-request")


def sign_in_schemes(cfg: OperatorConfig) -> Iterator[Finding]:
    """A2A: a sign-in skill names schemes that signIn declares (securitySchemes)."""
    declared = set(cfg.data.get("signIn") or {})
    for ptr, s in cfg.skills():
        if s.get("kind") != "sign-in":
            if s.get("kind") == "public" and "signIn" in s:
                yield Finding("A2A-SECURITY", "error",
                              f"public skill '{s.get('id')}' has signIn",
                              cfg.at(ptr + "/signIn", key=True),
                              "make it kind: sign-in, or remove signIn")
            continue
        if not s.get("signIn"):
            yield Finding("A2A-SECURITY", "error",
                          f"sign-in skill '{s.get('id')}' does not say how to sign in",
                          cfg.at(ptr + "/kind"),
                          "add signIn: {<scheme name>: [<scope>]} naming a scheme under signIn")
            continue
        alts = s["signIn"] if isinstance(s["signIn"], list) else [s["signIn"]]
        for i, alt in enumerate(alts):
            base = f"{ptr}/signIn/{i}" if isinstance(s["signIn"], list) else f"{ptr}/signIn"
            for name, scopes in alt.items():
                if name not in declared:
                    yield Finding("A2A-SECURITY", "error",
                                  f"sign-in scheme '{name}' is not declared under signIn",
                                  cfg.at(f"{base}/{name}", key=True),
                                  "declare it under the top-level signIn:, or fix the name")
                if not scopes:
                    yield Finding("A2A-SECURITY", "error",
                                  f"sign-in scheme '{name}' lists no scope",
                                  cfg.at(f"{base}/{name}"),
                                  "name at least one scope: A2A's signed form drops an empty "
                                  "list, and the requirement with it")


CHECKS: tuple[Check, ...] = (skill_ids_unique, on_request_fields, sign_in_schemes)


def run(cfg: OperatorConfig) -> list[Finding]:
    """All operator.yaml checks; findings in the order the checks produce them."""
    return [f for check in CHECKS for f in check(cfg)]
