"""Deciding how an agent replies to a request for a skill (On Request §5, OR-5.1 to OR-5.8).

The agent developer calls :func:`decide` once per request, with the card, the
skill asked for, the request's ``A2A-Extensions`` header value, whether the
caller acts for a named person and, for an action, whether the four conditions
of OR-5.6 hold. The :class:`Decision` says what to do (answer, refer the
information, refer the action, give the information on opt-in, or carry out
the action), whether to mark the reply with the §6.1 object, and which URIs to
echo in the response's ``A2A-Extensions`` header.

Activation never changes the outcome, only the marking (OR-5.1).

This module is imported by agents at run time, so it imports nothing heavy.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from acap.uris import EXTENSION_URI

#: §6.1 ``status`` values.
ON_REQUEST = "on-request"
ACTION_REFERRED = "action-referred"
GIVEN_ON_OPT_IN = "given-on-opt-in"
STATUSES = (ON_REQUEST, ACTION_REFERRED, GIVEN_ON_OPT_IN)

#: A2A 1.0 task states used by §6.2 (a2a.proto ``TaskState``).
COMPLETED = "TASK_STATE_COMPLETED"
REJECTED = "TASK_STATE_REJECTED"
WORKING = "TASK_STATE_WORKING"


@dataclass(frozen=True)
class OnRequestSkill:
    """One entry of the extension's ``params.skills`` (§3), as the reply code needs it.

    Attributes:
        id: the AgentSkill id (OR-3.3).
        person_entry: ``personEntry``, an https URL or a ``tel:`` URI (OR-3.4).
        assistant_access: ``assistantAccess``; absent in the card means ``False`` (OR-3.5).
        completion: ``"in-conversation"``, ``"deferred"`` or ``None`` (OR-3.6). Only a
            skill that changes something in the operator's systems carries it.
    """

    id: str
    person_entry: str
    assistant_access: bool = False
    completion: str | None = None

    @property
    def deferred(self) -> bool:
        """True when a member of staff completes the action later (OR-3.6, OR-5.8)."""
        return self.completion == "deferred"

    @property
    def declared_action(self) -> bool:
        """True when the card marks it as an action (it carries ``completion``)."""
        return self.completion is not None


def extension_entry(card: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The card's AgentExtension with the On Request URI, or ``None``.

    Args:
        card: an A2A 1.0 AgentCard as parsed JSON.
    """
    caps = card.get("capabilities")
    exts = caps.get("extensions") if isinstance(caps, Mapping) else None
    if isinstance(exts, list):
        for ext in exts:
            if isinstance(ext, Mapping) and ext.get("uri") == EXTENSION_URI:
                return ext
    return None


def on_request_skills(card: Mapping[str, Any]) -> dict[str, OnRequestSkill]:
    """Every on-request skill of a card, by id (§3, ``params.skills``).

    Reading is lenient: an entry without a string ``id`` and ``personEntry`` is
    skipped (the card checks report it, OR-3.3 and OR-3.4), and an
    ``assistantAccess`` that is not exactly ``true`` counts as false (OR-3.5).
    The first entry wins when an id appears twice (OR-3.3 forbids it).

    Returns:
        ``{skill id: OnRequestSkill}``, empty when the card does not declare the extension.
    """
    ext = extension_entry(card)
    params = ext.get("params") if ext else None
    entries = params.get("skills") if isinstance(params, Mapping) else None
    out: dict[str, OnRequestSkill] = {}
    if not isinstance(entries, list):
        return out
    for e in entries:
        if not isinstance(e, Mapping):
            continue
        sid, pe = e.get("id"), e.get("personEntry")
        if isinstance(sid, str) and isinstance(pe, str) and sid not in out:
            comp = e.get("completion")
            out[sid] = OnRequestSkill(sid, pe, e.get("assistantAccess") is True,
                                      comp if isinstance(comp, str) else None)
    return out


def skill_from_card(card: Mapping[str, Any], skill_id: str) -> OnRequestSkill | None:
    """The on-request skill ``skill_id`` of ``card``, or ``None`` when it is not on request."""
    return on_request_skills(card).get(skill_id)


def card_skill_ids(card: Mapping[str, Any]) -> list[str]:
    """The ids of every AgentSkill of the card, in card order."""
    skills = card.get("skills")
    if not isinstance(skills, list):
        return []
    return [s["id"] for s in skills if isinstance(s, Mapping) and isinstance(s.get("id"), str)]


def operator_name(card: Mapping[str, Any]) -> str | None:
    """``AgentCard.provider.organization`` (the operator, §2), or ``None``."""
    prov = card.get("provider")
    org = prov.get("organization") if isinstance(prov, Mapping) else None
    return org if isinstance(org, str) and org else None


def parse_extensions_header(values: str | Iterable[str] | None) -> list[str]:
    """The extension URIs in ``A2A-Extensions`` header value(s), in order, without repeats.

    A2A §3.2.6 and §9.2: the value is a comma-separated list of URIs; a
    request may also carry the header more than once (RFC 9110 §5.3 lets the
    field lines be joined with commas). Spaces around items and empty items
    are dropped. URIs are compared exactly (no case folding), as A2A compares
    them to ``AgentExtension.uri``.

    Args:
        values: one header value, several (one per field line), a set of URIs (a2a-sdk's
            ``RequestContext.requested_extensions``; read in sorted order), or ``None``.

    Returns:
        The URIs, e.g. ``["https://agent-capability.org/ext/on-request/v1"]``.
    """
    if values is None:
        return []
    # a set (the SDK's RequestContext.requested_extensions) has no order: sorted
    items = [values] if isinstance(values, str) else \
        sorted(values) if isinstance(values, (set, frozenset)) else list(values)
    out: list[str] = []
    for v in items:
        for part in v.split(","):
            uri = part.strip(" \t")
            if uri and uri not in out:
                out.append(uri)
    return out


def supported_extensions(card: Mapping[str, Any]) -> list[str]:
    """URIs of every AgentExtension the card declares (``capabilities.extensions[].uri``)."""
    caps = card.get("capabilities")
    exts = caps.get("extensions") if isinstance(caps, Mapping) else None
    if not isinstance(exts, list):
        return []
    return [e["uri"] for e in exts if isinstance(e, Mapping) and isinstance(e.get("uri"), str)]


def activated_extensions(card: Mapping[str, Any],
                         request_extensions: str | Iterable[str] | None) -> list[str]:
    """The extensions activated for one request: requested and declared by the card.

    A2A extensions topic, "Extension Activation": the agent activates the
    requested extensions it supports and ignores the others; the response
    SHOULD list the activated ones in its own ``A2A-Extensions`` header.

    Returns:
        The URIs to echo, in request order.
    """
    supported = set(supported_extensions(card))
    return [u for u in parse_extensions_header(request_extensions) if u in supported]


@dataclass(frozen=True)
class Safeguards:
    """The four conditions of OR-5.6 under which an agent MAY carry out an action for an assistant.

    Attributes:
        level2_attestation: (a) the operator holds a current level-2 (legal entity)
            attestation under the Agent Capability trust framework (Annex B).
        reversible_and_staff_told: (b) staff can reverse the change, and a named member
            of staff is told of it.
        limited: (c) repeated or duplicate requests are limited per calling assistant
            as well as in total.
        person_confirms_irreversible: (d) anything that cannot be undone is confirmed by
            the person themselves, in a form they see, before it is done (confirmation
            passed on by the assistant is not enough).
    """

    level2_attestation: bool = False
    reversible_and_staff_told: bool = False
    limited: bool = False
    person_confirms_irreversible: bool = False

    def missing(self) -> tuple[str, ...]:
        """The letters of the conditions that do not hold, e.g. ``("a", "d")``."""
        flags = (self.level2_attestation, self.reversible_and_staff_told, self.limited,
                 self.person_confirms_irreversible)
        return tuple(letter for letter, ok in zip("abcd", flags, strict=True) if not ok)

    @property
    def all_hold(self) -> bool:
        """True when (a) to (d) all hold."""
        return not self.missing()


class Outcome(str, Enum):
    """What the agent does with one request (§5).

    ``ANSWER``: a public or sign-in skill, outside this extension (OR-5.2, OR-5.9).
    ``REFER_INFORMATION``: withhold and say where to ask (OR-5.3, OR-5.4); §6.1 ``on-request``.
    ``REFER_ACTION``: do not carry out, say where to ask (OR-5.7); ``action-referred``.
    ``GIVE_ON_OPT_IN``: give the information as an Artifact (OR-5.4); ``given-on-opt-in``.
    ``CARRY_OUT``: carry out the action under OR-5.6. §6.1 has no status for it yet
    (§9, item 2), so the reply is not marked; a deferred action is never reported
    done (OR-5.8).
    """

    ANSWER = "answer"
    REFER_INFORMATION = "refer-information"
    REFER_ACTION = "refer-action"
    GIVE_ON_OPT_IN = "give-on-opt-in"
    CARRY_OUT = "carry-out"


_STATUS = {Outcome.REFER_INFORMATION: ON_REQUEST, Outcome.REFER_ACTION: ACTION_REFERRED,
           Outcome.GIVE_ON_OPT_IN: GIVEN_ON_OPT_IN}


@dataclass(frozen=True)
class Decision:
    """The result of :func:`decide`.

    Attributes:
        outcome: what to do.
        skill_id: the skill asked for.
        skill: its params entry, or ``None`` for a skill that is not on request.
        activated: whether this request activated the extension (A2A-Extensions).
        echo: the URIs for the response's ``A2A-Extensions`` header (all activated
            extensions of the card, not only this one).
        reasons: why, each naming the requirement id.
    """

    outcome: Outcome
    skill_id: str
    skill: OnRequestSkill | None
    activated: bool
    echo: tuple[str, ...]
    reasons: tuple[str, ...]

    @property
    def status(self) -> str | None:
        """The §6.1 ``status`` for this outcome, or ``None`` when it has none."""
        return _STATUS.get(self.outcome)

    @property
    def mark(self) -> bool:
        """True when the reply carries the §6.1 object (OR-6.1: activated and a §6.2 case)."""
        return self.activated and self.status is not None

    @property
    def echo_header(self) -> str | None:
        """The response's ``A2A-Extensions`` value, or ``None`` when nothing was activated."""
        return ",".join(self.echo) if self.echo else None

    @property
    def task_state(self) -> str | None:
        """The final task state if the agent made a task (§6.2), or ``None`` (not this extension's).

        ``TASK_STATE_COMPLETED`` for information referred or given on opt-in,
        ``TASK_STATE_REJECTED`` for an action referred. For an action carried out
        with ``completion: deferred``, ``TASK_STATE_WORKING``: staff finish it later,
        and COMPLETED would tell the assistant it is done (OR-5.8).
        """
        if self.outcome in (Outcome.REFER_INFORMATION, Outcome.GIVE_ON_OPT_IN):
            return COMPLETED
        if self.outcome is Outcome.REFER_ACTION:
            return REJECTED
        if self.outcome is Outcome.CARRY_OUT and self.skill is not None and self.skill.deferred:
            return WORKING
        return None


def decide(card: Mapping[str, Any], skill_id: str, *,
           request_extensions: str | Iterable[str] | None,
           for_named_person: bool,
           action: bool | None = None,
           safeguards: Safeguards | None = None) -> Decision:
    """Decide how to reply to one request (OR-5.1 to OR-5.8).

    Args:
        card: the agent's own AgentCard (parsed JSON).
        skill_id: the AgentSkill the request is for.
        request_extensions: the request's ``A2A-Extensions`` value(s), or ``None``; in an
            a2a-sdk executor, ``context.requested_extensions`` (a set).
        for_named_person: whether the caller acts for a particular, named person (an
            assistant). ``False`` for a crawler, an aggregator, or any client acting
            for nobody (OR-5.4). How an assistant proves it is not defined yet (OR-5.5,
            §9 item 1): until it is, this is the assistant's own assertion.
        action: whether the skill changes something in the operator's systems; default:
            the card says so by carrying ``completion`` on the entry.
        safeguards: for an action, which conditions of OR-5.6 hold; ``None`` means none
            is known to hold, so the action is referred (OR-5.7).

    Returns:
        A :class:`Decision`. The outcome does not depend on activation (OR-5.1).

    Raises:
        LookupError: ``skill_id`` is not a skill of the card.
    """
    echo = tuple(activated_extensions(card, request_extensions))
    activated = EXTENSION_URI in echo
    skill = skill_from_card(card, skill_id)
    if skill is None:
        if skill_id not in card_skill_ids(card):
            raise LookupError(f"{skill_id!r} is not a skill of this card")
        return Decision(Outcome.ANSWER, skill_id, None, activated, echo,
                        ("OR-5.2/OR-5.9: not an on-request skill; public skills are answered "
                         "to any client, sign-in skills as A2A's securityRequirements say",))
    is_action = skill.declared_action if action is None else action
    reasons: list[str] = []
    if is_action:
        guards = safeguards or Safeguards()
        if not skill.assistant_access:
            reasons.append(f"OR-5.7: {skill_id} is not opened to assistants (assistantAccess "
                           "is not true)")
        if not for_named_person:
            reasons.append("OR-5.4/OR-5.6: the caller does not act for a named person")
        if guards.missing():
            reasons.append("OR-5.7: OR-5.6 condition(s) " + ", ".join(
                f"({m})" for m in guards.missing()) + " do not hold")
        if reasons:
            return Decision(Outcome.REFER_ACTION, skill_id, skill, activated, echo,
                            tuple(reasons))
        note = ("OR-5.6: all four conditions hold; OR-5.8: completion is deferred, so never "
                "say it is done" if skill.deferred else "OR-5.6: all four conditions hold")
        return Decision(Outcome.CARRY_OUT, skill_id, skill, activated, echo, (note,))
    if not skill.assistant_access:
        return Decision(Outcome.REFER_INFORMATION, skill_id, skill, activated, echo,
                        (f"OR-5.3: {skill_id} is on request and not opened to assistants",))
    if not for_named_person:
        return Decision(Outcome.REFER_INFORMATION, skill_id, skill, activated, echo,
                        ("OR-5.4: opened to assistants, but the caller does not act for a "
                         "named person; treated as in OR-5.3",))
    return Decision(Outcome.GIVE_ON_OPT_IN, skill_id, skill, activated, echo,
                    (f"OR-5.4: {skill_id} is opened to assistants and the caller acts for a "
                     "named person",))
