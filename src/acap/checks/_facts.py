"""What the requirement checks look at, read either from operator.yaml or from a card.

Most On Request rules are about a skill and its entry in the extension's
``params.skills``. In operator.yaml both live in one skill mapping; in a card
they are an ``AgentSkill`` and an entry found by id. :class:`Subject` gives the
checks one view of either, with a way to point at the line, so that each rule
is written once (``checks/declaration.py``, ``checks/person_entry_rules.py`` ...).

Facts only operator.yaml knows (whether a skill changes something, waits on a
person, reaches staff; which origins are the operator's) are ``None`` in a card:
the checks that need them are skipped there (see :data:`acap.checks._run.CARD_SKIPS`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Literal
from urllib.parse import urlsplit

from acap import schemas
from acap.card import is_extension_uri as is_extension_uri
from acap.card import is_near_extension_uri as is_near_extension_uri
from acap.checks._country import country_of_hosts, operator_country
from acap.findings import Finding, Level, Location
from acap.load import OperatorConfig, pointer_join, pointer_tokens, schema_properties

Source = Literal["operator", "card"]
Locate = Callable[[str, bool], Location]


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
        entry_ptr: JSON pointer of ``entry``.
        sign_in_ptr: pointer of the skill's sign-in declaration (``signIn`` in
            operator.yaml, ``securityRequirements`` in a card), or ``None``.
        entry: the mapping holding personEntry, assistantAccess and completion (the
            skill itself in operator.yaml; the params entry in a card), or ``None``.
        action, waits_on_person, person_acts, reaches_staff: operator.yaml's
            ``action``, ``waitsOnPerson``, ``personActs``, ``reachesStaff`` (``False``
            when not given); ``None`` when unknown (a card, or a value operator.yaml
            holds that loading or the schema already reported).
    """

    index: int
    ptr: str
    data: dict[str, Any]
    kind: str
    entry_ptr: str | None = None
    sign_in_ptr: str | None = None
    entry: dict[str, Any] | None = None
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
            ``None`` in a card, and in an operator.yaml where a value they are read
            from (website, cardHost, hosts, ownOrigins) has a reported fault.
        provider_url: AgentCard.provider.url / operator.website, when text.
        card_url: where the card is (or will be) served, when known.
        reported: in operator.yaml, the pointers :func:`reported_pointers` gives: a
            check passes over what they hold (it is not known); empty for a card.
        not_judged: ``(rule id, what)`` for each thing a check could not judge from what
            it was given (a card's personEntry origin without provider.url or the card's
            URL): said, never passed as fine.
        country: returns the operator's country (ISO 3166 region, for a hint that
            suggests a telephone number), or ``None``; worked out on the first call
            (:mod:`acap.checks._country`).
        hosts_written: operator.yaml has a ``hosts:`` mapping (a hint that adds a host
            says to add it there, not to write a second ``hosts:``); ``False`` in a card.
    """

    source: Source
    file: str
    locate: Locate
    skills: list[SkillFacts] = field(default_factory=list)
    declarations: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    own_origins: list[str] | None = None
    provider_url: str | None = None
    card_url: str | None = None
    reported: set[str] = field(default_factory=set)
    not_judged: list[tuple[str, str]] = field(default_factory=list)
    country: Callable[[], str | None] = field(default=lambda: None)
    hosts_written: bool = False

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


#: The kinds of skill operator.yaml names (``kind``).
KINDS = ("public", "on-request", "sign-in")
#: Where the operator's own origins are read from (OR-3.4).
_ORIGIN_SOURCES = ("/operator/website", "/cardHost", "/hosts", "/ownOrigins")
#: Loading errors after which the value at their pointer is still the text written (an
#: invisible character in it; the first of two duplicate keys): checks still read it.
_VALUE_KEPT = ("TEXT-INVISIBLE", "YAML-DUPLICATE-KEY")


def reported_pointers(cfg: OperatorConfig) -> set[str]:
    """JSON pointers of operator.yaml whose value loading or the schema found unusable
    (an error there, other than :data:`_VALUE_KEPT`), and for an unknown key that is a
    near miss of a known one (``personEntery``), the pointer of the key meant
    (``.../personEntry``): a check must not say that key is missing when the schema's
    did-you-mean already says where it is."""
    out: set[str] = set()
    for f in cfg.findings:
        ptr = f.location.pointer
        if ptr is None or f.location.file != cfg.loaded.file or f.level != "error" \
                or f.rule in _VALUE_KEPT:
            continue
        out.add(ptr)
        if f.rule == "SCHEMA-UNKNOWN-KEY":
            meant = _meant(ptr)
            if meant:
                out.add(meant)
    return out


def _meant(ptr: str) -> str | None:
    """The pointer of the known key nearest to the unknown key at ``ptr``, or ``None``."""
    import difflib  # start-up: only for a did-you-mean


    parent = ptr.rpartition("/")[0]
    key = pointer_tokens(ptr)[-1]
    path: list[str | int] = pointer_tokens(parent, indexes=True)
    allowed = schema_properties(schemas.schema(schemas.OPERATOR), path)
    near = difflib.get_close_matches(key, allowed, n=1, cutoff=0.6)
    return pointer_join(parent, near[0]) if near else None


def _flag(s: dict[str, Any], name: str, ptr: str, reported: set[str]) -> bool | None:
    """A true/false key of a skill: ``False`` when not given, ``None`` when its value is
    not true or false (already reported: a check must not guess from it)."""
    v = s.get(name)
    if pointer_join(ptr, name) in reported or not isinstance(v, (bool, type(None))):
        return None
    return v is True


def _kind(s: dict[str, Any], ptr: str, reported: set[str]) -> str:
    """The skill's kind; when it is missing or not one of :data:`KINDS` (the schema says
    so), the kind its other keys show, so that one mistyped word does not make every
    on-request key of the skill a second fault."""
    kind = s.get("kind")
    if isinstance(kind, str) and kind in KINDS and pointer_join(ptr, "kind") not in reported:
        return kind
    if any(k in s for k in ("personEntry", "assistantAccess", "completion")):
        return "on-request"
    return "sign-in" if "signIn" in s else "public"


def _origins_known(cfg: OperatorConfig, reported: set[str]) -> bool:
    """Whether every value the operator's own origins come from was read without fault
    (a website that is not an absolute https URL is URL-FORM's, said at its line: no
    OR-3.4 error whose fix would be wrong besides)."""
    if not cfg.website:
        return False
    try:
        site = urlsplit(cfg.website)
    except ValueError:
        return False
    if site.scheme != "https" or not site.hostname:
        return False
    return not any(p == src or p.startswith(src + "/")
                   for p in reported for src in _ORIGIN_SOURCES)


def from_operator(cfg: OperatorConfig) -> Subject:
    """The :class:`Subject` of an operator.yaml (of any shape; values with a reported
    fault, see :func:`reported_pointers`, are taken as unknown)."""
    reported = reported_pointers(cfg)
    subject = Subject("operator", cfg.loaded.file,
                      lambda ptr, key: cfg.at(ptr, key=key),
                      own_origins=cfg.own_origins if _origins_known(cfg, reported) else None,
                      provider_url=cfg.website or None,
                      card_url=cfg.card_url if cfg.card_host else None, reported=reported,
                      country=cache(lambda: operator_country(cfg.data)),
                      hosts_written=isinstance(cfg.data.get("hosts"), dict))
    for i, (ptr, s) in enumerate(cfg.skills()):
        kind = _kind(s, ptr, reported)
        subject.skills.append(SkillFacts(
            i, ptr, s, kind,
            entry=s if kind == "on-request" else None,
            entry_ptr=ptr if kind == "on-request" else None,
            sign_in_ptr=pointer_join(ptr, "signIn") if "signIn" in s else None,
            action=_flag(s, "action", ptr, reported),
            waits_on_person=_flag(s, "waitsOnPerson", ptr, reported),
            person_acts=_flag(s, "personActs", ptr, reported),
            reaches_staff=_flag(s, "reachesStaff", ptr, reported)))
    return subject


def from_card(card: dict[str, Any], file: str, locate: Locate,
              card_url: str | None = None) -> Subject:
    """The :class:`Subject` of a parsed card (any shape: wrong types are skipped here
    and reported by the A2A structure checks)."""
    provider = as_dict(card.get("provider")).get("url")
    hosts = [urlsplit(u).hostname or "" for u in (provider, card_url) if isinstance(u, str)]
    subject = Subject("card", file, locate,
                      provider_url=provider if isinstance(provider, str) else None,
                      card_url=card_url, country=cache(lambda: country_of_hosts(hosts)))
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
