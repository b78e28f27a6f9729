"""What the requirement checks look at, read either from operator.yaml or from a card.

Most On Request rules are about a skill and its entry in the extension's
``params.skills``. In operator.yaml both live in one skill mapping; in a card
they are an ``AgentSkill`` and an entry found by id. :class:`Subject` gives the
checks one view of either, with a way to point at the line, so that each rule
is written once (``checks/declaration.py``, ``checks/person_entry_rules.py`` ...).

Facts only operator.yaml knows (whether a skill changes something, waits on a
person, reaches staff; which origins are the operator's) are ``None`` in a card:
the checks that need them are skipped there (see :data:`acap.checks.CARD_SKIPS`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import urlsplit

from ..findings import Finding, Level, Location
from ..loader import pointer_join
from ..operator_config import EXTENSION_URI, OperatorConfig

Source = Literal["operator", "card"]
Locate = Callable[[str, bool], Location]


def dotted(pointer: str) -> str:
    """A JSON pointer as people read a field path: ``/skills/1/tags/0`` -> ``skills[1].tags[0]``.

    The root pointer ``""`` reads ``the card``.
    """
    out = ""
    for token in pointer.split("/")[1:]:
        token = token.replace("~1", "/").replace("~0", "~")
        out += f"[{token}]" if token.isdigit() else (f".{token}" if out else token)
    return out or "the card"


def as_dict(v: Any) -> dict[str, Any]:
    """``v`` when it is a JSON object, else ``{}`` (cards may hold anything)."""
    return v if isinstance(v, dict) else {}


def as_list(v: Any) -> list[Any]:
    """``v`` when it is a JSON array, else ``[]``."""
    return v if isinstance(v, list) else []


@dataclass
class SkillFacts:
    """One skill, with its On Request entry when it has one.

    Attributes:
        index: position in the skill list (0-based).
        ptr: JSON pointer of the skill (``/skills/1`` in both sources).
        data: the skill mapping as read.
        kind: ``public``, ``on-request`` or ``sign-in`` (in a card: listed in the
            extension, else with securityRequirements, else public).
        entry: the mapping holding personEntry, assistantAccess and completion (the
            skill itself in operator.yaml; the params entry in a card), or ``None``.
        entry_ptr: JSON pointer of ``entry``.
        sign_in_ptr: pointer of the skill's sign-in declaration (``signIn`` in
            operator.yaml, ``securityRequirements`` in a card), or ``None``.
        action, waits_on_person, person_acts, reaches_staff: operator.yaml's
            ``action``, ``waitsOnPerson``, ``personActs``, ``reachesStaff``; ``None``
            when unknown (a card).
    """

    index: int
    ptr: str
    data: dict[str, Any]
    kind: str
    entry: dict[str, Any] | None = None
    entry_ptr: str | None = None
    sign_in_ptr: str | None = None
    action: bool | None = None
    waits_on_person: bool | None = None
    person_acts: bool | None = None
    reaches_staff: bool | None = None

    @property
    def id(self) -> str | None:
        """The skill's id, when it is text."""
        sid = self.data.get("id")
        return sid if isinstance(sid, str) else None

    @property
    def label(self) -> str:
        """How messages name the skill: ``skill 'service-pricing'``."""
        return f"skill '{self.id}'" if self.id else f"skill {self.index + 1}"

    def field_ptr(self, name: str) -> str:
        """Pointer of an entry field (``personEntry``, ``assistantAccess``, ``completion``)."""
        return pointer_join(self.entry_ptr or self.ptr, name)

    def texts(self) -> Iterator[tuple[str, str, str]]:
        """The skill's text as the card shows it (OR-3.9): ``(pointer, field, text)``.

        Fields: name, description, each tag, each example; and forPeople, which the
        personEntry page shows (operator.yaml only).
        """
        for name in ("name", "description", "forPeople"):
            v = self.data.get(name)
            if isinstance(v, str):
                yield pointer_join(self.ptr, name), name, v
        for name in ("tags", "examples"):
            for i, v in enumerate(as_list(self.data.get(name))):
                if isinstance(v, str):
                    yield pointer_join(pointer_join(self.ptr, name), i), name[:-1], v


@dataclass
class Subject:
    """operator.yaml or a card, as the shared checks see it.

    Attributes:
        source: ``"operator"`` or ``"card"``.
        file: the file name (or URL) findings name.
        locate: ``(pointer, key) -> Location`` in that file.
        skills: every skill that is a mapping.
        declarations: in a card, the On Request ``AgentExtension`` entries
            (pointer, mapping), including ones whose uri is a near miss; empty
            for operator.yaml (acap writes the declaration itself).
        own_origins: origins the operator declares as its own (operator.yaml);
            ``None`` in a card.
        provider_url: AgentCard.provider.url / operator.website, when text.
        card_url: where the card is (or will be) served, when known.
    """

    source: Source
    file: str
    locate: Locate
    skills: list[SkillFacts] = field(default_factory=list)
    declarations: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    own_origins: list[str] | None = None
    provider_url: str | None = None
    card_url: str | None = None

    def at(self, pointer: str, *, key: bool = False) -> Location:
        """The location of ``pointer`` (of its key with ``key=True``, where known)."""
        return self.locate(pointer, key)

    def finding(self, rule: str, level: Level, message: str, pointer: str,
                hint: str | None = None, *, key: bool = False) -> Finding:
        """A :class:`Finding` located at ``pointer``."""
        return Finding(rule, level, message, self.at(pointer, key=key), hint)

    @property
    def on_request(self) -> list[SkillFacts]:
        """The on-request skills (those with an entry)."""
        return [s for s in self.skills if s.entry is not None]

    @property
    def is_card(self) -> bool:
        """True for a card."""
        return self.source == "card"


def _bool(v: Any) -> bool:
    return v is True


def from_operator(cfg: OperatorConfig) -> Subject:
    """The :class:`Subject` of a schema-valid operator.yaml."""
    subject = Subject("operator", cfg.loaded.file,
                      lambda ptr, key: cfg.at(ptr, key=key),
                      own_origins=cfg.own_origins, provider_url=cfg.website or None,
                      card_url=cfg.card_url if cfg.card_host else None)
    for i, (ptr, s) in enumerate(cfg.skills()):
        kind = str(s.get("kind", "public"))
        subject.skills.append(SkillFacts(
            i, ptr, s, kind,
            entry=s if kind == "on-request" else None,
            entry_ptr=ptr if kind == "on-request" else None,
            sign_in_ptr=pointer_join(ptr, "signIn") if "signIn" in s else None,
            action=_bool(s.get("action")), waits_on_person=_bool(s.get("waitsOnPerson")),
            person_acts=_bool(s.get("personActs")), reaches_staff=_bool(s.get("reachesStaff"))))
    return subject


def is_extension_uri(uri: Any) -> bool:
    """True for the On Request URI exactly (OR-3.1)."""
    return isinstance(uri, str) and uri == EXTENSION_URI


def is_near_extension_uri(uri: Any) -> bool:
    """True for a URI that is meant as the On Request URI but is not exactly it.

    ``http://``, a trailing slash, other letter case, ``www.``, another version
    under the same path: each would make a client miss the declaration.
    """
    if not isinstance(uri, str) or uri == EXTENSION_URI:
        return False
    u = urlsplit(uri.strip().lower())
    host = (u.hostname or "").removeprefix("www.")
    return host == "agent-capability.org" and "/ext/on-request" in u.path


def from_card(card: dict[str, Any], file: str, locate: Locate,
              card_url: str | None = None) -> Subject:
    """The :class:`Subject` of a parsed card (any shape: wrong types are skipped here
    and reported by the A2A structure checks)."""
    provider = as_dict(card.get("provider")).get("url")
    subject = Subject("card", file, locate,
                      provider_url=provider if isinstance(provider, str) else None,
                      card_url=card_url)
    exts = as_list(as_dict(card.get("capabilities")).get("extensions"))
    for i, ext in enumerate(exts):
        if isinstance(ext, dict) and (is_extension_uri(ext.get("uri"))
                                      or is_near_extension_uri(ext.get("uri"))):
            subject.declarations.append((f"/capabilities/extensions/{i}", ext))
    entries: dict[str, tuple[str, dict[str, Any]]] = {}
    for ptr, ext in subject.declarations:
        for j, e in enumerate(as_list(as_dict(ext.get("params")).get("skills"))):
            if isinstance(e, dict) and isinstance(e.get("id"), str):
                entries.setdefault(e["id"], (f"{ptr}/params/skills/{j}", e))
    for i, s in enumerate(as_list(card.get("skills"))):
        if not isinstance(s, dict):
            continue
        ptr = f"/skills/{i}"
        sid = s.get("id")
        found = entries.get(sid) if isinstance(sid, str) else None
        has_security = bool(as_list(s.get("securityRequirements")))
        kind = "on-request" if found else ("sign-in" if has_security else "public")
        subject.skills.append(SkillFacts(
            i, ptr, s, kind,
            entry=found[1] if found else None, entry_ptr=found[0] if found else None,
            sign_in_ptr=f"{ptr}/securityRequirements" if has_security else None))
    return subject
