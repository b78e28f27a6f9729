"""The reply checker: does an agent's reply follow On Request §5 and §6?

:func:`check_reply` reads one reply (any shape :mod:`acap.replies._view` knows)
against the agent's card and returns findings with rule ids, JSON pointers and
lines. :func:`compare_replies` checks OR-5.1: two replies to the same request,
one from a client that activated the extension and one from a client that did
not, must both withhold or both give.

What each rule id checks here, and where a reply cannot show everything:
* **OR-6.1** (activated): the §6.1 object is valid (``#/$defs/reply`` of
  on-request-extension.schema.json); its ``skillId`` is an on-request skill of the
  card and its ``personEntry`` the card's; it sits where §6.2 puts it (a referral
  on a Message: a direct Message reply or the final ``TaskStatus.message``; given
  on opt-in on the Artifact), and that Message or Artifact lists the URI in
  ``extensions`` (Annex C item 3); every §6.2 reply carries it.
* **OR-6.2**: a marked referral's text gives the personEntry. *Partial*: whether
  the words say "the operator gives this to the person who asks" is not judged.
* **OR-5.3**: for an informational on-request skill not opened to assistants, no
  result (Artifact) is given and the text gives the personEntry, and a referral
  states none of the values the operator gives on request (with the operator's
  private values: an error; without them, an amount of money is a warning).
  *Partial*: "never answer as though it did not exist" is an English phrase
  heuristic (a warning).
* **OR-5.4**: ``given-on-opt-in`` only where ``assistantAccess`` is true, and never
  to a client acting for nobody. *Partial*: who the caller acts for is not in the
  reply; pass ``for_named_person=False`` for a crawler's request.
* **OR-5.7**: an action that may not be carried out (not opened to assistants, a
  caller acting for nobody, or ``safeguards_hold=False``) is referred, not done.
  *Partial*: OR-5.6's conditions are facts about the operator (build-time checks);
  with ``safeguards_hold`` unknown, an opted-in action that was carried out passes.
* **OR-5.8**: a carried-out action with ``completion: deferred`` never ends
  ``TASK_STATE_COMPLETED``; words that say it is done are a heuristic warning.
* **OR-5.1**: only in :func:`compare_replies` (it needs both replies).
* **OR-3.8**: the §6.1 object's personEntry carries no query string or fragment
  (then it also differs from the card's: OR-6.1).
* ``REPLY-TASK-STATE``: the §6.2 task state (COMPLETED for information referred or
  given, REJECTED for an action referred), with or without activation.
* ``A2A-REPLY``: the reply is A2A 1.0 JSON (``ROLE_AGENT``, ``TASK_STATE_*``, Parts
  without 0.3's ``kind``); ``A2A-EXT-ECHO``: the response header echoes activation.
* ``REPLY-READ``, ``REPLY-JSON``, ``REPLY-SHAPE``, ``REPLY-SKILL``: the reply could not
  be read, or does not say (and was not told) which skill it answers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from acap.findings import Finding, Report
from acap.load import JsonDocument, pointer_join, read_card, read_reply
from acap.replies._behaviour import check_behaviour, mentions_entry
from acap.replies._checking import CheckContext, Marker, Options, as_document
from acap.replies._decide import (
    ACTION_REFERRED,
    GIVEN_ON_OPT_IN,
    ON_REQUEST,
    REJECTED,
    OnRequestSkill,
    activated_extensions,
    extension_entry,
    on_request_skills,
)
from acap.replies._placement import check_a2a_form, check_echo, concerned_skill, find_markers
from acap.replies._view import ReplyView, message_text, read_view
from acap.uris import EXTENSION_URI

#: acap's own rule ids that the reply checker emits (the OR ids are in the registry).
OWN_RULES = ("REPLY-READ", "REPLY-JSON", "REPLY-SHAPE", "REPLY-SKILL", "REPLY-TASK-STATE",
             "A2A-REPLY", "A2A-EXT-ECHO")

#: Requirement ids the reply checker enforces (``where`` contains ``reply`` in the registry).
REPLY_REQUIREMENTS = ("OR-3.8", "OR-5.1", "OR-5.3", "OR-5.4", "OR-5.7", "OR-5.8", "OR-6.1",
                      "OR-6.2")


# -- A2A 1.0 form -------------------------------------------------------------------------


# -- the §6.1 object and where it is ----------------------------------------------------


# -- behaviour (§5) ------------------------------------------------------------------------


# -- entry points ---------------------------------------------------------------------------

@dataclass
class _Run:
    findings: list[Finding]
    view: ReplyView | None
    skill: OnRequestSkill | None
    markers: list[Marker]
    rf: JsonDocument


def _run(rf: JsonDocument, card: Mapping[str, Any], opts: Options) -> _Run:
    if rf.data is None:
        return _Run(list(rf.findings), None, None, [], rf)
    ctx = CheckContext(rf)
    ctx.findings.extend(rf.findings)
    view = read_view(rf.data)
    for ptr in view.unknown:
        ctx.add("REPLY-SHAPE", "error", "not an A2A reply: expected a Message, a Task, a "
                "SendMessageResponse or StreamResponse, a JSON-RPC response, or a list of "
                "them", ptr, "give the reply as the agent sent it (A2A 1.0 JSON)")
    if not (view.messages or view.tasks or view.artifacts or view.errors
            or view.final_status):
        return _Run(ctx.findings, view, None, [], rf)
    check_a2a_form(ctx, view)
    markers = find_markers(ctx, view)
    skill = None
    if extension_entry(card) is None:
        ctx.add("REPLY-SKILL", "error", "the card does not declare the On Request extension, "
                "so no skill of it is on request", "", "check the reply against the agent's "
                "own card")
    else:
        skill = concerned_skill(ctx, card, on_request_skills(card), markers, opts.skill_id)
    if skill is not None:
        for m in markers:
            pe = m.obj.get("personEntry") if isinstance(m.obj, Mapping) else None
            ptr = pointer_join(m.pointer, "personEntry")
            if (m.skill_id == skill.id and isinstance(pe, str) and pe != skill.person_entry
                    and ptr not in ctx.bad):
                ctx.add("OR-6.1", "error", f"personEntry {pe} is not the card's "
                        f"({skill.person_entry})", ptr,
                        "§6.1: personEntry is the address from the card, the same for every "
                        "caller")
        check_behaviour(ctx, view, markers, skill, opts)
    check_echo(ctx, opts)
    return _Run(ctx.findings, view, skill, markers, rf)


def check_reply(reply: JsonDocument | str | bytes | Any, card: Mapping[str, Any], *,
                activated: bool, skill_id: str | None = None,
                for_named_person: bool | None = None, action: bool | None = None,
                safeguards_hold: bool | None = None,
                response_extensions: str | Sequence[str] | None = None,
                source: str = "reply", private_values: Sequence[Any] = ()) -> list[Finding]:
    """Check one reply of an agent against On Request §5 and §6.

    Args:
        reply: a :class:`JsonDocument` (from :func:`read_reply`), JSON text, parsed JSON, or
            a2a-sdk objects: a ``Message``, ``Task``, ``SendMessageResponse`` or
            ``StreamResponse``, or a list of them (a stream). a2a-sdk is not needed for
            the others.
        card: the agent's AgentCard (parsed JSON).
        activated: whether the request activated the extension (its ``A2A-Extensions``
            listed the URI and the card declares it).
        skill_id: the skill the request was for; default: the ``skillId`` of the reply's
            §6.1 object (a reply without one needs it).
        for_named_person: whether the caller acted for a named person; ``None`` = unknown
            (OR-5.4's "acting for nobody" is then not checked).
        action: whether the skill changes something; default: the card's entry carries
            ``completion``, or the reply says ``action-referred``.
        safeguards_hold: whether OR-5.6's four conditions hold; ``None`` = unknown.
        response_extensions: the response's ``A2A-Extensions`` header value, if known.
        source: the file name findings give, when ``reply`` is not a :class:`JsonDocument`.
        private_values: the values the operator gives on request
            (:class:`acap.checks.PrivateValue`, from operator.private.yaml): a referral
            that states one of them is an OR-5.3 error. Without them, an amount of money
            in a referral is an OR-5.3 warning (a heuristic).

    Returns:
        Findings (rule id, level, message, location with JSON pointer and line, hint),
        in the order found. The rule ids are listed in the module docstring.
    """
    opts = Options(activated, skill_id, for_named_person, action, safeguards_hold,
                   response_extensions, tuple(private_values))
    return _run(as_document(reply, source), card, opts).findings


def carries_object(reply: JsonDocument | str | bytes | Any) -> bool:
    """True when any Message or Artifact of the reply carries the §6.1 object (is marked)."""
    rf = as_document(reply, "reply")
    if rf.data is None:
        return False
    view = read_view(rf.data)
    for n in [*view.messages, *view.artifacts]:
        meta = n.data.get("metadata")
        if isinstance(meta, Mapping) and EXTENSION_URI in meta:
            return True
    return False


def reply_text(reply: JsonDocument | str | bytes | Any) -> str:
    """Every word a reply says: the text Parts of its Messages (a direct Message, the final
    ``TaskStatus.message``) and of its Artifacts, joined by newlines (``""`` for none).

    Args:
        reply: any shape :func:`check_reply` reads, SDK objects included.
    """
    rf = as_document(reply, "reply")
    if rf.data is None:
        return ""
    view = read_view(rf.data)
    return "\n".join(t for t in (message_text(n.data) for n in [*view.messages,
                                                                *view.artifacts]) if t)


def _behaviour_class(run: _Run) -> str | None:
    """``gives`` / ``refers`` / ``answers without referring``; ``None`` when unknown."""
    view, skill = run.view, run.skill
    if view is None or skill is None:
        return None
    if view.artifacts or any(m.status == GIVEN_ON_OPT_IN for m in run.markers):
        return "gives a result"
    if (mentions_entry(view, skill) or view.state == REJECTED
            or any(m.status in (ON_REQUEST, ACTION_REFERRED) for m in run.markers)):
        return "refers the person to personEntry"
    return "neither gives a result nor refers"


def compare_replies(activated_reply: JsonDocument | str | bytes | Any,
                    plain_reply: JsonDocument | str | bytes | Any, card: Mapping[str, Any], *,
                    skill_id: str | None = None, for_named_person: bool | None = None,
                    action: bool | None = None, safeguards_hold: bool | None = None,
                    sources: tuple[str, str] = ("activated", "not-activated"),
                    response_extensions: tuple[str | Sequence[str] | None,
                                               str | Sequence[str] | None] = (None, None)
                    ) -> list[Finding]:
    """Check OR-5.1: the same request, with and without activation, gets the same behaviour.

    Each reply is checked as :func:`check_reply` does (the first as activated, the
    second as not), then the two are compared: both must give a result, or both
    refer; when both are tasks they must end in the same state.

    *Partial*: the comparison is of the behaviour's class (gives / refers), not of
    the information's content.

    Args:
        activated_reply: the reply to a request whose A2A-Extensions listed the URI.
        plain_reply: the reply to the same request without it.
        card, skill_id, for_named_person, action, safeguards_hold: as :func:`check_reply`;
            ``skill_id`` defaults to the activated reply's §6.1 ``skillId``.
        sources: file names for the two replies' findings.
        response_extensions: the two responses' ``A2A-Extensions`` header values, when
            known (``""`` for a response without the header): checks the echo.

    Returns:
        The findings of both replies, then any ``OR-5.1`` finding (located in the
        activated reply).
    """
    a = as_document(activated_reply, sources[0])
    p = as_document(plain_reply, sources[1])
    ra = _run(a, card, Options(True, skill_id, for_named_person, action, safeguards_hold,
                                response_extensions[0]))
    sid = skill_id or (ra.skill.id if ra.skill else None)
    rp = _run(p, card, Options(False, sid, for_named_person, action, safeguards_hold,
                               response_extensions[1]))
    out = ra.findings + rp.findings
    ba, bp = _behaviour_class(ra), _behaviour_class(rp)
    if ba is None or bp is None:
        return out
    if ba != bp:
        out.append(Finding("OR-5.1", "error", f"with the extension activated the reply {ba}; "
                           f"without it, it {bp}", a.at(""),
                           "apply §5.2 to §5.4 to every client; activation only adds the "
                           "§6.1 object"))
    elif ra.view and rp.view and ra.view.is_task and rp.view.is_task \
            and ra.view.state != rp.view.state:
        out.append(Finding("OR-5.1", "error", f"the task ends {ra.view.state} when the "
                           f"extension is activated and {rp.view.state} when it is not",
                           a.at(ra.view.state_pointer),
                           "the same request ends in the same task state for every client"))
    return out


@dataclass
class ReplyCheck:
    """What ``acap check-reply`` found about one reply (or a pair, with ``compare``).

    Attributes:
        report: every finding, reading the card and the replies included.
        activated: whether the reply was checked as activated (``None`` for a pair).
        assumed: the activation was not given, so it was read from the reply itself (a
            marked reply counts as activated): OR-6.1 is then checked in part only.
    """

    report: Report
    activated: bool | None = None
    assumed: bool = False


def check_reply_files(reply: str, card: str, *, activated: bool | None = None,
                      request_extensions: str | None = None,
                      response_extensions: str | None = None, skill_id: str | None = None,
                      for_named_person: bool | None = None, action: bool | None = None,
                      safeguards_hold: bool | None = None,
                      compare: str | None = None, operator: str | None = None) -> ReplyCheck:
    """``acap check-reply``: read a reply file and a card (a path or https URL), then
    :func:`check_reply` (or, with ``compare``, :func:`compare_replies` of the two files).

    Args:
        reply: the reply's file (the activated one, with ``compare``).
        card: the agent's card, a path or https URL.
        activated: whether the request activated the extension; ``None`` with
            ``request_extensions`` given: read from that header value against the card;
            ``None`` without it: read from the reply (``assumed``).
        compare: the file of the same request's reply without activation (OR-5.1).
        operator: the operator's operator.yaml: a referral that states a value its
            operator.private.yaml lists is an error (OR-5.3).
        request_extensions, response_extensions, skill_id, for_named_person, action,
            safeguards_hold: as :func:`check_reply`.

    Returns:
        A :class:`ReplyCheck`; a file that cannot be read is a finding in its report.
    """


    report = Report()
    values: list[Any] = []
    if operator is not None:
        # start-up: operator.yaml's loader and checks only when --operator is given
        from acap.checks import load_private_values
        from acap.load import load_operator  # start-up: as above

        cfg = load_operator(Path(operator))
        # an operator file not read (missing, a link out of its folder, a FIFO) is said:
        # its private values would go unchecked
        report.extend(f for f in cfg.findings if f.rule == "FILE")
        private = load_private_values(cfg)
        report.extend(private.findings)
        values = list(private.values)
    cf = read_card(card)
    report.extend(cf.findings)
    rf = read_reply(reply)
    if cf.data is None or rf.data is None:
        report.extend(rf.findings)
        return ReplyCheck(report, activated)
    if compare is not None:
        report.extend(compare_replies(rf, read_reply(compare), cf.data, skill_id=skill_id,
                                      for_named_person=for_named_person, action=action,
                                      safeguards_hold=safeguards_hold))
        return ReplyCheck(report)
    assumed = False
    if request_extensions is not None:
        activated = EXTENSION_URI in activated_extensions(cf.data, request_extensions)
    if activated is None:
        activated, assumed = carries_object(rf), True
    report.extend(check_reply(rf, cf.data, activated=activated, skill_id=skill_id,
                              for_named_person=for_named_person, action=action,
                              safeguards_hold=safeguards_hold,
                              response_extensions=response_extensions, private_values=values))
    return ReplyCheck(report, activated, assumed)
