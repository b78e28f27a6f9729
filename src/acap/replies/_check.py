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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acap.findings import Finding, Report, Result
from acap.load import CARD, REPLY, JsonDocument, document_from
from acap.replies._behaviour import check_behaviour, mentions_entry
from acap.replies._checking import CheckContext, Marker, Options, as_document, sdk_to_json
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
    not_judged: list[tuple[str, str]] = field(default_factory=list)


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
    markers = find_markers(ctx, view, card)
    skill = None
    if extension_entry(card) is None:
        ctx.add("REPLY-SKILL", "error", "the card does not declare the On Request extension, "
                "so no skill of it is on request", "", "check the reply against the agent's "
                "own card")
    else:
        skill = concerned_skill(ctx, card, on_request_skills(card), markers, opts.skill_id)
    if skill is not None:
        check_behaviour(ctx, view, markers, skill, opts)
    check_echo(ctx, opts)
    return _Run(ctx.findings, view, skill, markers, rf, ctx.not_judged)


@dataclass(repr=False)
class ReplyCheck(Result):
    """What the reply checker found about one reply (or a pair, from
    :func:`compare_replies`); follows :class:`acap.findings.Result` (``ok``, ``report``,
    ``findings``, ``passes``).

    Attributes:
        source: the reply as named in findings (its path, URL or label).
        report: every finding, reading the card and the reply included.
        activated: whether the reply was checked as activated (``None`` for a pair).
        assumed: the activation was not given, so it was read from the reply itself (a
            marked reply counts as activated): OR-6.1 is then checked in part only.
        skill: the on-request skill the reply was judged for, or ``None`` when none
            could be told (``REPLY-SKILL``).
        not_judged: ``(rule id, what)`` for each thing the reply could not show (whom the
            caller acts for ...): said, never passed as fine.
    """

    source: str
    report: Report = field(default_factory=Report)
    activated: bool | None = None
    assumed: bool = False
    skill: OnRequestSkill | None = None
    not_judged: list[tuple[str, str]] = field(default_factory=list)


def _private_values(operator: str | Path | None,
                    given: Sequence[Any]) -> tuple[list[Any], list[Finding]]:
    """The operator's values given on request: ``given``, and those of the
    operator.private.yaml beside ``operator`` (with the findings of reading it)."""
    values = list(given)
    if operator is None:
        return values, []
    # start-up: operator.yaml's loader and checks only when an operator file is given
    from acap.checks import load_private_values
    from acap.load import load_operator  # start-up: as above

    cfg = load_operator(Path(operator))
    # an operator file not read (missing, a link out of its folder, a FIFO) is said: its
    # private values would otherwise go unchecked
    unread = [f for f in cfg.findings if f.rule == "FILE"]
    private = load_private_values(cfg)
    return values + list(private.values), unread + list(private.findings)


def check_reply(reply: Any, card: Any, *, activated: bool | None = None,
                request_extensions: str | Sequence[str] | None = None,
                response_extensions: str | Sequence[str] | None = None,
                skill_id: str | None = None, for_named_person: bool | None = None,
                action: bool | None = None, safeguards_hold: bool | None = None,
                private_values: Sequence[Any] = (), operator: str | Path | None = None,
                source: str | None = None, allow_private: bool = False) -> ReplyCheck:
    """Check one reply of an agent against On Request §5 and §6 (``acap check-reply``).

    Args:
        reply: the reply, read as every entry point reads its input: a path or an https
            URL (a ``str`` is never JSON text), JSON ``bytes``, parsed JSON, a
            :class:`JsonDocument`, or a2a-sdk objects: a ``Message``, ``Task``,
            ``SendMessageResponse`` or ``StreamResponse``, or a list of them (a stream).
        card: the agent's AgentCard: a path or an https URL, JSON bytes, parsed JSON or a
            :class:`JsonDocument`.
        activated: whether the request activated the extension (its ``A2A-Extensions``
            listed the URI and the card declares it); ``None``: read from
            ``request_extensions`` against the card, else from the reply itself (a marked
            reply counts as activated: ``assumed`` in the result).
        request_extensions: the request's ``A2A-Extensions`` header value, if known.
        response_extensions: the response's ``A2A-Extensions`` header value, if known
            (checks the echo, ``A2A-EXT-ECHO``).
        skill_id: the skill the request was for; default: the ``skillId`` of the reply's
            §6.1 object (a reply without one needs it).
        for_named_person: whether the caller acted for a named person; ``None`` = unknown
            (OR-5.4's "acting for nobody" is then not judged, and said so).
        action: whether the skill changes something; default: the card's entry carries
            ``completion``, or the reply says ``action-referred``.
        safeguards_hold: whether OR-5.6's four conditions hold; ``None`` = unknown.
        private_values: the values the operator gives on request
            (:class:`acap.checks.PrivateValue`): a referral that states one is an OR-5.3
            error. Without any, an amount of money in a referral is an OR-5.3 warning (a
            guess).
        operator: an operator.yaml whose operator.private.yaml adds to ``private_values``.
        source: the name findings give to a reply that is bytes or parsed data.
        allow_private: a URL may lead to a private or loopback address (tests, previews).

    Returns:
        A :class:`ReplyCheck`; nothing that reply or card hold raises. The rule ids are
        listed in the module docstring.
    """
    values, found = _private_values(operator, private_values)
    cf = document_from(card, CARD, allow_private=allow_private)
    rf = document_from(sdk_to_json(reply), REPLY, label=source, allow_private=allow_private)
    result = ReplyCheck(rf.source)
    result.report.extend(found)
    result.report.extend(cf.findings)
    if cf.data is None:
        result.report.extend(rf.findings)
        return result
    assumed = False
    if activated is None and request_extensions is not None:
        activated = EXTENSION_URI in activated_extensions(cf.data, request_extensions)
    if activated is None:
        activated, assumed = carries_object(rf), True
    run = _run(rf, cf.data, Options(activated, skill_id, for_named_person, action,
                                    safeguards_hold, response_extensions, tuple(values)))
    result.report.extend(run.findings)
    result.activated, result.assumed, result.skill = activated, assumed, run.skill
    result.not_judged = run.not_judged
    return result


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


def compare_replies(activated_reply: Any, plain_reply: Any, card: Any, *,
                    skill_id: str | None = None, for_named_person: bool | None = None,
                    action: bool | None = None, safeguards_hold: bool | None = None,
                    private_values: Sequence[Any] = (), operator: str | Path | None = None,
                    sources: tuple[str, str] = ("activated", "not-activated"),
                    response_extensions: tuple[str | Sequence[str] | None,
                                               str | Sequence[str] | None] = (None, None),
                    allow_private: bool = False) -> ReplyCheck:
    """Check OR-5.1: the same request, with and without activation, gets the same behaviour
    (``acap check-reply --compare``, and each pair of replies ``acap probe`` gets).

    Each reply is checked as :func:`check_reply` does (the first as activated, the
    second as not), then the two are compared (:func:`same_behaviour`): both must give
    a result, or both refer; when both are tasks they must end in the same state; and
    their words should be the same (a warning: words may vary).

    Args:
        activated_reply: the reply to a request whose A2A-Extensions listed the URI.
        plain_reply: the reply to the same request without it.
        card, skill_id, for_named_person, action, safeguards_hold, private_values,
            operator, allow_private: as :func:`check_reply`; ``skill_id`` defaults to the
            activated reply's §6.1 ``skillId``.
        sources: names for the two replies' findings, where they are not files.
        response_extensions: the two responses' ``A2A-Extensions`` header values, when
            known (``""`` for a response without the header): checks the echo.

    Returns:
        A :class:`ReplyCheck` (``activated`` ``None``): the findings of both replies,
        then any ``OR-5.1`` finding (located in the activated reply).
    """
    values, found = _private_values(operator, private_values)
    cf = document_from(card, CARD, allow_private=allow_private)
    a = document_from(sdk_to_json(activated_reply), REPLY, label=sources[0],
                      allow_private=allow_private)
    p = document_from(sdk_to_json(plain_reply), REPLY, label=sources[1],
                      allow_private=allow_private)
    result = ReplyCheck(a.source)
    result.report.extend(found + cf.findings)
    if cf.data is None:
        result.report.extend(a.findings + p.findings)
        return result
    ra = _run(a, cf.data, Options(True, skill_id, for_named_person, action, safeguards_hold,
                                  response_extensions[0], tuple(values)))
    sid = skill_id or (ra.skill.id if ra.skill else None)
    rp = _run(p, cf.data, Options(False, sid, for_named_person, action, safeguards_hold,
                                  response_extensions[1], tuple(values)))
    result.skill = ra.skill or rp.skill
    result.not_judged = ra.not_judged + [n for n in rp.not_judged if n not in ra.not_judged]
    result.report.extend(ra.findings + rp.findings)
    result.report.extend(same_behaviour(ra, rp))
    return result


def same_behaviour(ra: _Run, rp: _Run) -> list[Finding]:
    """OR-5.1, judged on two checked replies to one request (activated, not activated):
    one finding at most, for the first difference: the class of behaviour (gives or
    refers, an error), the final task state (an error), the words (a warning: wording
    may vary, though activation should only add the §6.1 object). Words that differ
    because the marked reply leaves out the personEntry are OR-6.2's, said there."""
    ba, bp = _behaviour_class(ra), _behaviour_class(rp)
    if ba is None or bp is None:
        return []
    a = ra.rf
    if ba != bp:
        return [Finding("OR-5.1", "error", f"with the extension activated the reply {ba}; "
                        f"without it, it {bp}", a.at(""),
                        "apply §5.2 to §5.4 to every client; activation only adds the "
                        "§6.1 object")]
    if ra.view and rp.view and ra.view.is_task and rp.view.is_task \
            and ra.view.state != rp.view.state:
        return [Finding("OR-5.1", "error", f"the task ends {ra.view.state} when the "
                        f"extension is activated and {rp.view.state} when it is not",
                        a.at(ra.view.state_pointer),
                        "the same request ends in the same task state for every client")]
    said_a, said_p = (" ".join(reply_text(r.rf).split()) for r in (ra, rp))
    if said_a and said_p and said_a != said_p \
            and not any(f.rule == "OR-6.2" for f in ra.findings + rp.findings):
        return [Finding("OR-5.1", "warning", "the reply's words differ with and without the "
                        "extension activated", a.at(""), "say the same words to every "
                        "client; activation only adds the §6.1 object")]
    return []
