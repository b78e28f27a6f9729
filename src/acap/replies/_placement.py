"""The reply checker's first half: the reply's A2A 1.0 form, and the §6.1 object: valid,
about a skill of the card, and where §6.2 puts it (OR-6.1, OR-6.2, OR-3.8; ``A2A-REPLY``,
``A2A-EXT-ECHO``, ``REPLY-SKILL``).

See :mod:`acap.replies._check` for what each rule id checks and what a reply cannot show.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from acap import schemas
from acap.card import same_address
from acap.checks import person_entry_problems
from acap.findings import Finding
from acap.load import pointer_join, pointer_of, shorten
from acap.replies._checking import TASK_STATES, CheckContext, Marker, Options
from acap.replies._decide import (
    ACTION_REFERRED,
    GIVEN_ON_OPT_IN,
    ON_REQUEST,
    STATUSES,
    OnRequestSkill,
    card_skill_ids,
    on_request_skills,
    parse_extensions_header,
)
from acap.replies._view import Node, ReplyView
from acap.uris import EXTENSION_URI


def _nonempty_str(v: Any) -> bool:
    return isinstance(v, str) and bool(v)


def _parts(ctx: CheckContext, node: Node, what: str) -> None:
    """A2A 1.0: ``parts`` is REQUIRED and each Part holds one of text, raw, url, data."""
    ps = node.data.get("parts")
    ptr = pointer_join(node.pointer, "parts")
    if not isinstance(ps, list) or not ps:
        ctx.add("A2A-REPLY", "error", f"the {what} has no parts", ptr if "parts" in node.data
                else node.pointer, "A2A 1.0: parts is REQUIRED, e.g. [{\"text\": \"...\"}]")
        return
    for i, p in enumerate(ps):
        pp = pointer_join(ptr, i)
        if not isinstance(p, Mapping):
            ctx.add("A2A-REPLY", "error", "a Part is not an object", pp, None)
            continue
        if "kind" in p:
            ctx.add("A2A-REPLY", "error", "a Part carries `kind`, an A2A 0.3 field",
                    pointer_join(pp, "kind"),
                    "A2A 1.0 names the content directly: {\"text\": \"...\"}")
        if len([k for k in ("text", "raw", "url", "data") if k in p]) != 1:
            ctx.add("A2A-REPLY", "error", "a Part needs exactly one of text, raw, url, data",
                    pp, None)


def _required(ctx: CheckContext, node: Node, what: str, key: str, shown: str) -> None:
    if not _nonempty_str(node.data.get(key)):
        ctx.add("A2A-REPLY", "error", f"the {what} has no {key}", node.pointer,
                f"A2A 1.0: {shown} is REQUIRED")


def _no_kind(ctx: CheckContext, node: Node, what: str) -> None:
    if "kind" in node.data:
        ctx.add("A2A-REPLY", "error", f"the {what} carries `kind`, an A2A 0.3 field",
                pointer_join(node.pointer, "kind"), "remove it; A2A 1.0 has no kind")


def _message_form(ctx: CheckContext, n: Node) -> None:
    """A reply Message: ROLE_AGENT, a messageId, no 0.3 kind, its parts."""
    role = n.data.get("role")
    if role != "ROLE_AGENT":
        hint = ("A2A 1.0 writes ROLE_AGENT (0.3 wrote \"agent\")" if role == "agent"
                else "an agent's reply has role ROLE_AGENT")
        ctx.add("A2A-REPLY", "error", f"the reply Message has role {role!r}",
                pointer_join(n.pointer, "role") if "role" in n.data else n.pointer, hint)
    _required(ctx, n, "Message", "messageId", "messageId")
    _no_kind(ctx, n, "Message")
    _parts(ctx, n, "Message")


def _state_form(ctx: CheckContext, view: ReplyView) -> None:
    """The final task state is an A2A 1.0 TaskState name."""
    st = view.final_status
    if st is None:
        return
    state = st.data.get("state")
    if state in TASK_STATES:
        return
    hint = (f"A2A 1.0 writes TASK_STATE_{state.upper().replace('-', '_')}"
            if isinstance(state, str) and state.islower() else
            "one of " + ", ".join(TASK_STATES))
    ctx.add("A2A-REPLY", "error", f"task state {state!r} is not an A2A 1.0 TaskState",
            view.state_pointer if "state" in st.data else st.pointer, hint)


def check_a2a_form(ctx: CheckContext, view: ReplyView) -> None:
    """A2A 1.0 JSON: the fields a2a.proto marks REQUIRED, enum names, no 0.3 ``kind``."""
    for n in view.messages:
        _message_form(ctx, n)
    for n in view.artifacts:
        _required(ctx, n, "Artifact", "artifactId", "artifactId")
        _parts(ctx, n, "Artifact")
    for n in view.tasks:
        _required(ctx, n, "Task", "id", "Task.id")
        _no_kind(ctx, n, "Task")
    _state_form(ctx, view)


_PLACE_HINT = ("§6.2: on-request and action-referred go on the Message (Message.metadata, or "
               "the final TaskStatus.message); given-on-opt-in on the Artifact that carries "
               "the information")


def _schema_message(err: Any, siblings: list[Any]) -> str:
    """One schema error of a §6.1 object in words, read from jsonschema's structured error
    (its validator, instance and schema), never from its English message."""
    if err.validator == "required":
        return f"the §6.1 object has no {schemas.required_member(err, siblings)}"
    if err.validator == "enum":
        return f"status {shorten(repr(err.instance), 60)} is not one of {', '.join(STATUSES)}"
    if err.validator == "type":
        what = "an object" if err.validator_value == "object" else "text"
        where = pointer_of(err.relative_path) or "the §6.1 object"
        return f"{where.lstrip('/')} must be {what}"
    if err.validator == "minLength":
        return f"{pointer_of(err.relative_path).lstrip('/')} is empty"
    return f"the §6.1 object breaks #/$defs/reply ({err.validator} at " \
           f"{pointer_of(err.relative_path) or '/'})"


def person_entry_findings(ctx: CheckContext, value: Any, ptr: str, card_value: str | None
                          ) -> None:
    """A §6.1 object's personEntry, judged by the judgement the card's gets
    (:func:`acap.checks.person_entry_problems`: OR-3.4, OR-3.8, URL-FORM), and
    compared with the card's by RFC 3986 and RFC 3966 equivalence
    (:func:`acap.card.same_address`: OR-6.1). One fault, one finding: a value at fault
    on its own is said once, naming the card's address where it differs too."""
    if not isinstance(value, str):
        return  # a type error of the object: said by the schema
    differs = card_value is not None and not same_address(value, card_value)
    found = person_entry_problems(value, in_card=True)
    for p in found:  # the guesses, as the card's personEntry gets them
        if p.level == "warning":
            ctx.findings.append(Finding(p.rule, "warning", f"personEntry {shorten(value, 80)}: "
                                        f"{p.message}", ctx.rf.at(ptr), p.hint))
    problems = [p for p in found if p.level == "error"]
    if problems:
        p = problems[0]
        also = f"; and it is not the card's personEntry ({card_value})" if differs else ""
        shown = shorten(repr(value), 80)
        said = p.message if p.message.startswith(repr(value)) else f"{shown}: {p.message}"
        ctx.add(p.rule, "error", f"personEntry {said}{also}",
                ptr, "give the card's personEntry as it is" if differs else p.hint)
    elif differs:
        ctx.add("OR-6.1", "error", f"personEntry {shorten(value, 80)} is not the card's "
                f"({card_value})", ptr, "§6.1: personEntry is the address from the card, the "
                "same for every caller")


def _placement(ctx: CheckContext, m: Marker, listed: bool, n: Node) -> None:
    """OR-6.1: where a §6.1 object sits (§6.2) and that its carrier lists the URI."""
    sptr = pointer_join(m.pointer, "status")
    if m.kind == "misplaced":
        ctx.add("OR-6.1", "error", "the §6.1 object is in the wrong place: "
                f"{'a Task' if 'status' in n.data else 'this object'}'s metadata is not where "
                "§6.2 puts it", m.pointer, _PLACE_HINT)
        return
    if not listed:
        ctx.add("OR-6.1", "error", f"the {m.kind} carries the §6.1 object but does not "
                "list the extension URI in its extensions array",
                pointer_join(n.pointer, "extensions") if "extensions" in n.data else n.pointer,
                f"add \"extensions\": [\"{EXTENSION_URI}\"] (Annex C item 3)")
    if m.status in (ON_REQUEST, ACTION_REFERRED) and m.kind == "artifact":
        ctx.add("OR-6.1", "error", f"{m.status} is on an Artifact; a referral is "
                "communication and goes on a Message (A2A §3.7)", sptr, _PLACE_HINT)
    elif m.status == GIVEN_ON_OPT_IN and m.kind == "message":
        ctx.add("OR-6.1", "error", "given-on-opt-in is on a Message; information "
                "given is a result and goes on its Artifact (Annex C item 1)", sptr,
                _PLACE_HINT)


def _marker(ctx: CheckContext, n: Node, kind: str, card_entries: Mapping[str, str]
            ) -> Marker | None:
    """The §6.1 object of ``n`` (``None`` when it has none), judged: its members against
    the schema, its personEntry as the card's is, its place (OR-6.1, OR-3.4, OR-3.8)."""
    meta, exts = n.data.get("metadata"), n.data.get("extensions")
    listed = isinstance(exts, list) and EXTENSION_URI in exts
    if not (isinstance(meta, Mapping) and EXTENSION_URI in meta):
        if listed and kind != "misplaced":
            ctx.add("OR-6.1", "error", f"the {kind} lists the extension URI in "
                    "extensions but carries no §6.1 object in metadata",
                    pointer_join(n.pointer, "extensions"),
                    f"put {{status, skillId, personEntry}} in metadata under "
                    f"{EXTENSION_URI}, or drop the URI from extensions")
        return None
    obj = meta[EXTENSION_URI]
    optr = pointer_join(pointer_join(n.pointer, "metadata"), EXTENSION_URI)
    errors = schemas.errors(schemas.EXTENSION, obj, "reply")
    for err in sorted(errors, key=lambda e: list(e.absolute_path)):
        if list(err.absolute_path) == ["personEntry"] and err.validator in ("pattern",
                                                                          "format"):
            continue  # the value is judged as the card's is, below
        ctx.add("OR-6.1", "error", _schema_message(err, errors),
                pointer_of(err.absolute_path, optr),
                "§6.1: {\"status\": \"on-request\" | \"action-referred\" | "
                "\"given-on-opt-in\", \"skillId\": ..., \"personEntry\": ...}")
    status = obj.get("status") if isinstance(obj, Mapping) else None
    sid = obj.get("skillId") if isinstance(obj, Mapping) else None
    m = Marker(n, kind, optr, status if status in STATUSES else None,
               sid if _nonempty_str(sid) else None, obj)
    if isinstance(obj, Mapping) and "personEntry" in obj:
        person_entry_findings(ctx, obj["personEntry"], pointer_join(optr, "personEntry"),
                              card_entries.get(m.skill_id or ""))
    _placement(ctx, m, listed, n)
    return m


def find_markers(ctx: CheckContext, view: ReplyView,
                 card: Mapping[str, Any] | None = None) -> list[Marker]:
    """Every §6.1 object of the reply, each judged once (:func:`_marker`): against the
    schema, its personEntry as the card's is and against the card's, its status against
    its place (§6.2) and its carrier's ``extensions`` list (OR-6.1, OR-3.4, OR-3.8). An
    object in a place §6.2 does not name (a Task's metadata, a Part's) is one finding,
    and still says which skill the reply is about (``kind`` ``misplaced``)."""
    entries = {sid: s.person_entry for sid, s in on_request_skills(card or {}).items()}
    found: list[Marker] = []
    for kind, nodes in (("message", view.messages), ("artifact", view.artifacts),
                        ("misplaced", view.other_metadata)):
        for n in nodes:
            m = _marker(ctx, n, kind, entries)
            if m is not None:
                found.append(m)
    return found


def concerned_skill(ctx: CheckContext, card: Mapping[str, Any],
                    skills: Mapping[str, OnRequestSkill], markers: list[Marker],
                    skill_id: str | None) -> OnRequestSkill | None:
    """The on-request skill the reply answers: ``skill_id`` when given, else the one its
    §6.1 objects name (``REPLY-SKILL`` when none or several, or not of the card)."""
    card_ids = card_skill_ids(card)
    named: list[str] = []
    for m in markers:
        if m.skill_id is None:
            continue
        ptr = pointer_join(m.pointer, "skillId")
        if m.skill_id not in skills:
            what = ("is a skill of the card but not an on-request skill (not in the "
                    "extension's params.skills)" if m.skill_id in card_ids
                    else "is not a skill of the card")
            ctx.add("OR-6.1", "error", f"skillId {m.skill_id!r} {what}", ptr,
                    "§6.1: skillId is the id of the on-request skill concerned")
        elif skill_id is not None and m.skill_id != skill_id:
            ctx.add("OR-6.1", "error", f"skillId {m.skill_id!r}, but the request was for "
                    f"{skill_id!r}", ptr, "§6.1: skillId is the id of the skill concerned")
        else:
            named.append(m.skill_id)
    if skill_id is not None:
        if skill_id in skills:
            return skills[skill_id]
        if skill_id in card_ids:
            ctx.add("REPLY-SKILL", "warning", f"{skill_id!r} is not an on-request skill of "
                    "the card; the On Request rules do not apply to its replies", "")
        else:
            ctx.add("REPLY-SKILL", "error", f"{skill_id!r} is not a skill of the card", "",
                    "name a skill of the card")
        return None
    if named:
        return skills[named[0]]
    if not markers:
        ctx.add("REPLY-SKILL", "error", "the reply carries no §6.1 object, so it does not "
                "say which skill it answers", "",
                "name the skill the request was for (--skill ID, or skill_id=...)")
    return None


def check_echo(ctx: CheckContext, opts: Options) -> None:
    """``A2A-EXT-ECHO``: the response's ``A2A-Extensions`` header lists the extension when,
    and only when, the request activated it."""
    if opts.response_extensions is None:
        return
    listed = EXTENSION_URI in parse_extensions_header(opts.response_extensions)
    if opts.activated and not listed:
        ctx.add("A2A-EXT-ECHO", "warning", "the response's A2A-Extensions header does not "
                f"list {EXTENSION_URI}, which the client activated", None,
                "A2A extensions topic: the response SHOULD list every activated extension")
    elif not opts.activated and listed:
        ctx.add("A2A-EXT-ECHO", "warning", "the response's A2A-Extensions header lists "
                f"{EXTENSION_URI}, which the client did not activate", None,
                "echo only the extensions the request activated")
