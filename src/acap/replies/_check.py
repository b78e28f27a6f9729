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
  result (Artifact) is given and the text gives the personEntry. *Partial*:
  "never answer as though it did not exist" is an English phrase heuristic
  (a warning).
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
from typing import Any

from acap.findings import Finding, Level
from acap.load import pointer_join, pointer_of
from acap.load._document import REPLY, JsonDocument, parse_reply
from acap.replies._decide import (
    ACTION_REFERRED,
    COMPLETED,
    GIVEN_ON_OPT_IN,
    ON_REQUEST,
    REJECTED,
    STATUSES,
    OnRequestSkill,
    card_skill_ids,
    extension_entry,
    on_request_skills,
    parse_extensions_header,
)
from acap.replies._text import claims_done, denies_existence, mentions_person_entry
from acap.replies._view import Node, ReplyView, message_text, read_view
from acap.uris import EXTENSION_URI

#: acap's own rule ids that the reply checker emits (the OR ids are in the registry).
OWN_RULES = ("REPLY-READ", "REPLY-JSON", "REPLY-SHAPE", "REPLY-SKILL", "REPLY-TASK-STATE",
             "A2A-REPLY", "A2A-EXT-ECHO")

#: Requirement ids the reply checker enforces (``where`` contains ``reply`` in the registry).
REPLY_REQUIREMENTS = ("OR-3.8", "OR-5.1", "OR-5.3", "OR-5.4", "OR-5.7", "OR-5.8", "OR-6.1",
                      "OR-6.2")

TASK_STATES = ("TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_COMPLETED",
               "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_INPUT_REQUIRED",
               "TASK_STATE_REJECTED", "TASK_STATE_AUTH_REQUIRED")


@dataclass(frozen=True)
class _Marker:
    """A §6.1 object found on a Message or an Artifact."""

    node: Node
    kind: str  # "message" or "artifact"
    pointer: str
    status: str | None
    skill_id: str | None
    obj: Any


@dataclass
class _Options:
    activated: bool
    skill_id: str | None
    for_named_person: bool | None
    action: bool | None
    safeguards_hold: bool | None
    response_extensions: str | Sequence[str] | None


class _Ctx:
    def __init__(self, rf: JsonDocument) -> None:
        self.rf = rf
        self.findings: list[Finding] = []
        self.bad: set[str] = set()

    def add(self, rule: str, level: Level, message: str, pointer: str | None,
            hint: str | None = None) -> None:
        self.findings.append(Finding(rule, level, message, self.rf.at(pointer), hint))
        if pointer is not None:
            self.bad.add(pointer)


def _as_file(reply: Any, source: str) -> JsonDocument:
    if isinstance(reply, JsonDocument):
        return reply
    if isinstance(reply, (str, bytes)):
        return parse_reply(reply, source)
    return JsonDocument(source, REPLY, data=reply)


def _parts_pointer(node: Node | None) -> str:
    return "" if node is None else pointer_join(node.pointer, "parts")


# -- A2A 1.0 form -------------------------------------------------------------------------

def _nonempty_str(v: Any) -> bool:
    return isinstance(v, str) and bool(v)


def _a2a_form(ctx: _Ctx, view: ReplyView) -> None:
    """A2A 1.0 JSON: the fields a2a.proto marks REQUIRED, enum names, no 0.3 ``kind``."""
    def parts(node: Node, what: str) -> None:
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
            content = [k for k in ("text", "raw", "url", "data") if k in p]
            if len(content) != 1:
                ctx.add("A2A-REPLY", "error",
                        "a Part needs exactly one of text, raw, url, data", pp, None)

    for n in view.messages:
        role = n.data.get("role")
        if role != "ROLE_AGENT":
            hint = ("A2A 1.0 writes ROLE_AGENT (0.3 wrote \"agent\")" if role == "agent"
                    else "an agent's reply has role ROLE_AGENT")
            ctx.add("A2A-REPLY", "error", f"the reply Message has role {role!r}",
                    pointer_join(n.pointer, "role") if "role" in n.data else n.pointer, hint)
        if not _nonempty_str(n.data.get("messageId")):
            ctx.add("A2A-REPLY", "error", "the Message has no messageId", n.pointer,
                    "A2A 1.0: messageId is REQUIRED")
        if "kind" in n.data:
            ctx.add("A2A-REPLY", "error", "the Message carries `kind`, an A2A 0.3 field",
                    pointer_join(n.pointer, "kind"), "remove it; A2A 1.0 has no kind")
        parts(n, "Message")
    for n in view.artifacts:
        if not _nonempty_str(n.data.get("artifactId")):
            ctx.add("A2A-REPLY", "error", "the Artifact has no artifactId", n.pointer,
                    "A2A 1.0: artifactId is REQUIRED")
        parts(n, "Artifact")
    for n in view.tasks:
        if not _nonempty_str(n.data.get("id")):
            ctx.add("A2A-REPLY", "error", "the Task has no id", n.pointer,
                    "A2A 1.0: Task.id is REQUIRED")
        if "kind" in n.data:
            ctx.add("A2A-REPLY", "error", "the Task carries `kind`, an A2A 0.3 field",
                    pointer_join(n.pointer, "kind"), "remove it; A2A 1.0 has no kind")
    st = view.final_status
    if st is not None:
        state = st.data.get("state")
        if state not in TASK_STATES:
            hint = (f"A2A 1.0 writes TASK_STATE_{state.upper().replace('-', '_')}"
                    if isinstance(state, str) and state.islower() else
                    "one of " + ", ".join(TASK_STATES))
            ctx.add("A2A-REPLY", "error", f"task state {state!r} is not an A2A 1.0 TaskState",
                    view.state_pointer if "state" in st.data else st.pointer, hint)


# -- the §6.1 object and where it is ----------------------------------------------------

_PLACE_HINT = ("§6.2: on-request and action-referred go on the Message (Message.metadata, or "
               "the final TaskStatus.message); given-on-opt-in on the Artifact that carries "
               "the information")


def _schema_message(err: Any) -> str:
    if err.validator == "required":
        missing = err.message.split("'")[1] if "'" in err.message else err.message
        return f"the §6.1 object has no {missing}"
    if err.validator == "enum":
        return f"status {err.instance!r} is not one of {', '.join(STATUSES)}"
    if err.validator == "pattern":
        return f"personEntry {err.instance!r} {_person_entry_fault(err.instance)}"
    return f"the §6.1 object is not valid: {err.message}"


def _person_entry_fault(value: Any) -> str:
    """What makes a personEntry in a §6.1 object break its pattern (an https URL without
    query or fragment, or a global tel: number), in words."""
    from urllib.parse import urlsplit

    text = str(value)
    low = text.lower()
    if any(ch.isspace() for ch in text):
        return "contains a space"
    if low.startswith("http://"):
        return "is http, not https"
    if low.startswith("tel:"):
        return "is not a tel: number in global form (tel:+ and digits, no spaces)"
    if not low.startswith("https://"):
        return "is neither an https URL nor a tel: number"
    parts = urlsplit(text)
    if not parts.netloc:
        return "has no host"
    return "is not an https URL the §6.1 object accepts"


def _query_or_fragment(value: Any) -> str | None:
    """OR-3.8: what an https personEntry carries about the caller (a query string or a
    fragment), in words, or ``None``."""
    if not isinstance(value, str) or not value.lower().startswith("https://"):
        return None
    from urllib.parse import urlsplit

    parts = urlsplit(value)
    if parts.query or value.endswith("?"):
        return f"a query string (?{parts.query})"
    if parts.fragment or "#" in value:
        return f"a fragment (#{parts.fragment})"
    return None


def _markers(ctx: _Ctx, view: ReplyView) -> list[_Marker]:
    from acap import schemas

    found: list[_Marker] = []
    for kind, nodes in (("message", view.messages), ("artifact", view.artifacts)):
        for n in nodes:
            meta, exts = n.data.get("metadata"), n.data.get("extensions")
            has_obj = isinstance(meta, Mapping) and EXTENSION_URI in meta
            listed = isinstance(exts, list) and EXTENSION_URI in exts
            ext_ptr = pointer_join(n.pointer, "extensions")
            if not has_obj:
                if listed:
                    ctx.add("OR-6.1", "error", f"the {kind} lists the extension URI in "
                            "extensions but carries no §6.1 object in metadata", ext_ptr,
                            f"put {{status, skillId, personEntry}} in metadata under "
                            f"{EXTENSION_URI}, or drop the URI from extensions")
                continue
            assert isinstance(meta, Mapping)
            obj = meta[EXTENSION_URI]
            optr = pointer_join(pointer_join(n.pointer, "metadata"), EXTENSION_URI)
            for err in sorted(schemas.errors(schemas.EXTENSION, obj, "reply"),
                              key=lambda e: list(e.absolute_path)):
                ptr = pointer_of(err.absolute_path, optr)
                carries = _query_or_fragment(err.instance) if err.validator == "pattern" \
                    else None
                if carries:
                    # OR-3.8, not a malformed address: ptr is not marked bad, so that the
                    # comparison with the card's personEntry below says that it differs too
                    ctx.findings.append(Finding(
                        "OR-3.8", "error", f"personEntry {err.instance!r} carries {carries}; "
                        "personEntry is the same address for every caller and says nothing "
                        "about them", ctx.rf.at(ptr), "give the card's personEntry as it is"))
                    continue
                ctx.add("OR-6.1", "error", _schema_message(err), ptr,
                        "§6.1: {\"status\": \"on-request\" | \"action-referred\" | "
                        "\"given-on-opt-in\", \"skillId\": ..., \"personEntry\": ...}")
            status = obj.get("status") if isinstance(obj, Mapping) else None
            sid = obj.get("skillId") if isinstance(obj, Mapping) else None
            m = _Marker(n, kind, optr, status if status in STATUSES else None,
                        sid if _nonempty_str(sid) else None, obj)
            found.append(m)
            if not listed:
                ctx.add("OR-6.1", "error", f"the {kind} carries the §6.1 object but does not "
                        "list the extension URI in its extensions array",
                        ext_ptr if "extensions" in n.data else n.pointer,
                        f"add \"extensions\": [\"{EXTENSION_URI}\"] (Annex C item 3)")
            sptr = pointer_join(optr, "status")
            if m.status in (ON_REQUEST, ACTION_REFERRED) and kind == "artifact":
                ctx.add("OR-6.1", "error", f"{m.status} is on an Artifact; a referral is "
                        "communication and goes on a Message (A2A §3.7)", sptr, _PLACE_HINT)
            elif m.status == GIVEN_ON_OPT_IN and kind == "message":
                ctx.add("OR-6.1", "error", "given-on-opt-in is on a Message; information "
                        "given is a result and goes on its Artifact (Annex C item 1)", sptr,
                        _PLACE_HINT)
    for n in view.other_metadata:
        meta = n.data.get("metadata")
        if isinstance(meta, Mapping) and EXTENSION_URI in meta:
            ctx.add("OR-6.1", "error", "the §6.1 object is in the wrong place",
                    pointer_join(pointer_join(n.pointer, "metadata"), EXTENSION_URI),
                    _PLACE_HINT)
    return found


def _concerned_skill(ctx: _Ctx, card: Mapping[str, Any], skills: Mapping[str, OnRequestSkill],
                     markers: list[_Marker], skill_id: str | None) -> OnRequestSkill | None:
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


# -- behaviour (§5) ------------------------------------------------------------------------

def _mentions(view: ReplyView, skill: OnRequestSkill) -> bool:
    texts = [message_text(n.data) for n in view.messages]
    texts += [str(e.data.get("message", "")) for e in view.errors]
    return any(mentions_person_entry(t, skill.person_entry) for t in texts)


def _text_pointer(view: ReplyView) -> str:
    if view.messages:
        return _parts_pointer(view.messages[0])
    if view.errors:
        return view.errors[0].pointer
    if view.final_status is not None:
        return view.final_status.pointer
    return ""


def _behaviour(ctx: _Ctx, view: ReplyView, markers: list[_Marker], skill: OnRequestSkill,
               opts: _Options) -> None:
    mine = [m for m in markers if m.skill_id in (None, skill.id)]
    refs = [m for m in mine if m.status in (ON_REQUEST, ACTION_REFERRED)]
    gives = [m for m in mine if m.status == GIVEN_ON_OPT_IN]
    is_action = opts.action if opts.action is not None else (
        skill.declared_action or any(m.status == ACTION_REFERRED for m in mine))
    mentions = _mentions(view, skill)
    pe = skill.person_entry
    said = [(message_text(n.data), _parts_pointer(n)) for n in view.messages]
    said += [(str(e.data.get("message", "")), e.pointer) for e in view.errors]
    for text, ptr in said:
        phrase = denies_existence(text)
        if phrase and not is_action:
            ctx.add("OR-5.3", "warning", f"the reply says {phrase!r}, which reads as if the "
                    "information did not exist (an English phrase heuristic: check the words)",
                    ptr, "say that the operator gives this to the person who asks, and where")
    if is_action:
        _action(ctx, view, mine, refs, skill, opts, mentions)
        return
    if view.artifacts or gives:
        at = pointer_join(gives[0].pointer, "status") if gives else view.artifacts[0].pointer
        refer = (f"refer instead: say that the operator gives this to the person who asks, "
                 f"with {pe}, and mark it on-request")
        if not skill.assistant_access:
            if gives:
                ctx.add("OR-5.4", "error", f"given-on-opt-in, but {skill.id} is not opened to "
                        "assistants (assistantAccess is not true in the card)", at, refer)
            else:
                ctx.add("OR-5.3", "error", f"the reply gives a result for {skill.id}, which "
                        "is on request and not opened to assistants", at, refer)
            return
        if opts.for_named_person is False:
            ctx.add("OR-5.4", "error", f"the reply gives {skill.id} to a client that acts for "
                    "no named person (a crawler or an aggregator is treated as in OR-5.3)",
                    at, refer)
            return
        if opts.activated:
            for a in view.artifacts:
                if not any(m.node is a and m.status == GIVEN_ON_OPT_IN for m in gives):
                    ctx.add("OR-6.1", "error", "the Artifact gives on-request information "
                            "without the §6.1 object (status given-on-opt-in)", a.pointer,
                            f"add \"extensions\": [\"{EXTENSION_URI}\"] and metadata "
                            f"{{\"{EXTENSION_URI}\": {{\"status\": \"given-on-opt-in\", "
                            f"\"skillId\": \"{skill.id}\"}}}}")
        _state(ctx, view, COMPLETED, "information given on opt-in")
        return
    if (skill.assistant_access and opts.for_named_person is not False and not mine
            and not mentions):
        # Opened to this caller, and the reply neither refers nor gives an Artifact:
        # information in a Message, or a refusal that sends the person nowhere.
        ctx.add("OR-5.4", "error", f"{skill.id} is opened to assistants, but the reply neither "
                "gives the information as an Artifact nor refers the person to "
                f"personEntry {pe}", _text_pointer(view),
                "§6.2: information given on opt-in is an Artifact (marked given-on-opt-in "
                "when activated); otherwise refer as OR-5.3 says")
        return
    # Information referred (§6.2 row 1). A marker that is there but invalid was
    # reported already; "no object" is only for a reply with none.
    if opts.activated and not mine:
        ctx.add("OR-6.1", "error", "the reply refers the question but carries no §6.1 object "
                "(status on-request)", view.messages[0].pointer if view.messages else "",
                f"add \"extensions\": [\"{EXTENSION_URI}\"] and metadata {{\"{EXTENSION_URI}\": "
                f"{{\"status\": \"on-request\", \"skillId\": \"{skill.id}\", "
                f"\"personEntry\": \"{pe}\"}}}} to the Message")
    if not mentions:
        if refs:
            ctx.add("OR-6.2", "error", f"the §6.1 object says {refs[0].status}, but the text "
                    f"does not give the personEntry {pe}", _text_pointer(view),
                    "say it in words too: the operator gives this to the person who asks, "
                    f"here: {pe}")
        else:
            ctx.add("OR-5.3", "error", f"{skill.id} is on request, but the reply text does not "
                    f"give the personEntry {pe}", _text_pointer(view),
                    f"say that the operator gives this to the person who asks, here: {pe}")
    _state(ctx, view, COMPLETED, "a referred question (the agent did answer: here is where "
           "to ask)")


def _action(ctx: _Ctx, view: ReplyView, mine: list[_Marker], refs: list[_Marker],
            skill: OnRequestSkill, opts: _Options, mentions: bool) -> None:
    pe = skill.person_entry
    why = []
    if not skill.assistant_access:
        why.append("it is not opened to assistants")
    if opts.for_named_person is False:
        why.append("the caller acts for no named person")
    if opts.safeguards_hold is False:
        why.append("OR-5.6's conditions do not hold")
    # A referral shows itself by its §6.1 object or a REJECTED task. Without either,
    # an action that may not be carried out is still a referral if the words give
    # the personEntry; for one that may be carried out, a personEntry in the words
    # is only where to follow up.
    referred = bool(refs) or view.state == REJECTED or (bool(why) and mentions)
    if not referred:
        if why:
            ctx.add("OR-5.7", "error", f"{skill.id} may not be carried out ({'; '.join(why)}), "
                    "but the reply does not refer the person to personEntry",
                    view.state_pointer or _text_pointer(view),
                    f"say the action was not done and where the person can do it: {pe}; "
                    "a task ends TASK_STATE_REJECTED")
            return
        if skill.deferred:
            if view.state == COMPLETED:
                ctx.add("OR-5.8", "error", f"the task is {COMPLETED}, but {skill.id} has "
                        "completion deferred: staff finish it later, so it is not done",
                        view.state_pointer, "keep the task TASK_STATE_WORKING until staff have "
                        "finished, and say that it is not done yet")
            for n in [*view.messages, *view.artifacts]:
                phrase = claims_done(message_text(n.data))
                if phrase:
                    ctx.add("OR-5.8", "warning", f"the text says {phrase!r}, but completion "
                            "is deferred (an English phrase heuristic: check the words)",
                            _parts_pointer(n), "say the request was passed on and is not "
                            "done yet")
        return
    # Action referred (§6.2 row 2).
    if opts.activated and not mine:
        ctx.add("OR-6.1", "error", "the reply refers the action but carries no §6.1 object "
                "(status action-referred)", view.messages[0].pointer if view.messages else "",
                f"add \"extensions\": [\"{EXTENSION_URI}\"] and metadata {{\"{EXTENSION_URI}\": "
                f"{{\"status\": \"action-referred\", \"skillId\": \"{skill.id}\", "
                f"\"personEntry\": \"{pe}\"}}}} to the Message")
    for m in refs:
        if m.status == ON_REQUEST:
            ctx.add("OR-6.1", "error", f"status on-request, but {skill.id} is an action; an "
                    "action not carried out is action-referred", pointer_join(m.pointer,
                                                                               "status"),
                    "§6.1: action-referred: action not carried out, person referred")
    if not mentions:
        if refs:
            ctx.add("OR-6.2", "error", f"the §6.1 object says {refs[0].status}, but the text "
                    f"does not give the personEntry {pe}", _text_pointer(view),
                    f"say in words that it was not done and where the person can do it: {pe}")
        else:
            ctx.add("OR-5.7", "error", f"the action was not carried out, but the text does not "
                    f"refer the person to the personEntry {pe}", _text_pointer(view),
                    f"say where the person can do it: {pe}")
    if view.artifacts:
        ctx.add("OR-5.7", "error", "an action referral carries an Artifact, a result, as "
                "though the action had been carried out", view.artifacts[0].pointer,
                "a referred action has no result; say it was not done")
    if view.is_task and view.state != REJECTED:
        if view.state == COMPLETED and skill.deferred:
            ctx.add("OR-5.8", "error", f"the task is {COMPLETED}, which tells the assistant "
                    f"it is done; {skill.id} was not carried out and is deferred besides",
                    view.state_pointer, f"a referred action ends {REJECTED} (§6.2)")
        else:
            _state(ctx, view, REJECTED, "a referred action (the agent decided not to "
                   "perform it)")


def _state(ctx: _Ctx, view: ReplyView, want: str, case: str) -> None:
    if not view.is_task or view.state == want or view.state not in TASK_STATES:
        return
    ctx.add("REPLY-TASK-STATE", "error", f"the task ends {view.state}; §6.2 gives {want} for "
            f"{case}", view.state_pointer, f"set status.state to {want}")


def _echo(ctx: _Ctx, opts: _Options) -> None:
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


# -- entry points ---------------------------------------------------------------------------

@dataclass
class _Run:
    findings: list[Finding]
    view: ReplyView | None
    skill: OnRequestSkill | None
    markers: list[_Marker]
    rf: JsonDocument


def _run(rf: JsonDocument, card: Mapping[str, Any], opts: _Options) -> _Run:
    if rf.data is None:
        return _Run(list(rf.findings), None, None, [], rf)
    ctx = _Ctx(rf)
    ctx.findings.extend(rf.findings)
    view = read_view(rf.data)
    for ptr in view.unknown:
        ctx.add("REPLY-SHAPE", "error", "not an A2A reply: expected a Message, a Task, a "
                "SendMessageResponse or StreamResponse, a JSON-RPC response, or a list of "
                "them", ptr, "give the reply as the agent sent it (A2A 1.0 JSON)")
    if not (view.messages or view.tasks or view.artifacts or view.errors
            or view.final_status):
        return _Run(ctx.findings, view, None, [], rf)
    _a2a_form(ctx, view)
    markers = _markers(ctx, view)
    skill = None
    if extension_entry(card) is None:
        ctx.add("REPLY-SKILL", "error", "the card does not declare the On Request extension, "
                "so no skill of it is on request", "", "check the reply against the agent's "
                "own card")
    else:
        skill = _concerned_skill(ctx, card, on_request_skills(card), markers, opts.skill_id)
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
        _behaviour(ctx, view, markers, skill, opts)
    _echo(ctx, opts)
    return _Run(ctx.findings, view, skill, markers, rf)


def check_reply(reply: JsonDocument | str | bytes | Any, card: Mapping[str, Any], *,
                activated: bool, skill_id: str | None = None,
                for_named_person: bool | None = None, action: bool | None = None,
                safeguards_hold: bool | None = None,
                response_extensions: str | Sequence[str] | None = None,
                source: str = "reply") -> list[Finding]:
    """Check one reply of an agent against On Request §5 and §6.

    Args:
        reply: a :class:`JsonDocument` (from :func:`read_reply`), JSON text, or parsed JSON.
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

    Returns:
        Findings (rule id, level, message, location with JSON pointer and line, hint),
        in the order found. The rule ids are listed in the module docstring.
    """
    opts = _Options(activated, skill_id, for_named_person, action, safeguards_hold,
                    response_extensions)
    return _run(_as_file(reply, source), card, opts).findings


def carries_object(reply: JsonDocument | str | bytes | Any) -> bool:
    """True when any Message or Artifact of the reply carries the §6.1 object (is marked)."""
    rf = _as_file(reply, "reply")
    if rf.data is None:
        return False
    view = read_view(rf.data)
    for n in [*view.messages, *view.artifacts]:
        meta = n.data.get("metadata")
        if isinstance(meta, Mapping) and EXTENSION_URI in meta:
            return True
    return False


def _behaviour_class(run: _Run) -> str | None:
    """``gives`` / ``refers`` / ``answers without referring``; ``None`` when unknown."""
    view, skill = run.view, run.skill
    if view is None or skill is None:
        return None
    if view.artifacts or any(m.status == GIVEN_ON_OPT_IN for m in run.markers):
        return "gives a result"
    if (_mentions(view, skill) or view.state == REJECTED
            or any(m.status in (ON_REQUEST, ACTION_REFERRED) for m in run.markers)):
        return "refers the person to personEntry"
    return "neither gives a result nor refers"


def compare_replies(activated_reply: JsonDocument | str | bytes | Any,
                    plain_reply: JsonDocument | str | bytes | Any, card: Mapping[str, Any], *,
                    skill_id: str | None = None, for_named_person: bool | None = None,
                    action: bool | None = None, safeguards_hold: bool | None = None,
                    sources: tuple[str, str] = ("activated", "not-activated")
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

    Returns:
        The findings of both replies, then any ``OR-5.1`` finding (located in the
        activated reply).
    """
    a = _as_file(activated_reply, sources[0])
    p = _as_file(plain_reply, sources[1])
    ra = _run(a, card, _Options(True, skill_id, for_named_person, action, safeguards_hold,
                                None))
    sid = skill_id or (ra.skill.id if ra.skill else None)
    rp = _run(p, card, _Options(False, sid, for_named_person, action, safeguards_hold, None))
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
