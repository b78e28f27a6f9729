"""The reply checker's first half: the reply's A2A 1.0 form, and the §6.1 object: valid,
about a skill of the card, and where §6.2 puts it (OR-6.1, OR-6.2, OR-3.8; ``A2A-REPLY``,
``A2A-EXT-ECHO``, ``REPLY-SKILL``).

See :mod:`acap.replies._check` for what each rule id checks and what a reply cannot show.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from acap import schemas
from acap.findings import Finding
from acap.load import pointer_join, pointer_of
from acap.replies._checking import TASK_STATES, CheckContext, Marker, Options
from acap.replies._decide import (
    ACTION_REFERRED,
    GIVEN_ON_OPT_IN,
    ON_REQUEST,
    STATUSES,
    OnRequestSkill,
    card_skill_ids,
    parse_extensions_header,
)
from acap.replies._view import Node, ReplyView
from acap.uris import EXTENSION_URI


def _nonempty_str(v: Any) -> bool:
    return isinstance(v, str) and bool(v)


def check_a2a_form(ctx: CheckContext, view: ReplyView) -> None:
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

    def required(node: Node, what: str, key: str, shown: str) -> None:
        if not _nonempty_str(node.data.get(key)):
            ctx.add("A2A-REPLY", "error", f"the {what} has no {key}", node.pointer,
                    f"A2A 1.0: {shown} is REQUIRED")

    def no_kind(node: Node, what: str) -> None:
        if "kind" in node.data:
            ctx.add("A2A-REPLY", "error", f"the {what} carries `kind`, an A2A 0.3 field",
                    pointer_join(node.pointer, "kind"), "remove it; A2A 1.0 has no kind")

    for n in view.messages:
        role = n.data.get("role")
        if role != "ROLE_AGENT":
            hint = ("A2A 1.0 writes ROLE_AGENT (0.3 wrote \"agent\")" if role == "agent"
                    else "an agent's reply has role ROLE_AGENT")
            ctx.add("A2A-REPLY", "error", f"the reply Message has role {role!r}",
                    pointer_join(n.pointer, "role") if "role" in n.data else n.pointer, hint)
        required(n, "Message", "messageId", "messageId")
        no_kind(n, "Message")
        parts(n, "Message")
    for n in view.artifacts:
        required(n, "Artifact", "artifactId", "artifactId")
        parts(n, "Artifact")
    for n in view.tasks:
        required(n, "Task", "id", "Task.id")
        no_kind(n, "Task")
    st = view.final_status
    if st is not None:
        state = st.data.get("state")
        if state not in TASK_STATES:
            hint = (f"A2A 1.0 writes TASK_STATE_{state.upper().replace('-', '_')}"
                    if isinstance(state, str) and state.islower() else
                    "one of " + ", ".join(TASK_STATES))
            ctx.add("A2A-REPLY", "error", f"task state {state!r} is not an A2A 1.0 TaskState",
                    view.state_pointer if "state" in st.data else st.pointer, hint)


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

    parts = urlsplit(value)
    if parts.query or value.endswith("?"):
        return f"a query string (?{parts.query})"
    if parts.fragment or "#" in value:
        return f"a fragment (#{parts.fragment})"
    return None


def find_markers(ctx: CheckContext, view: ReplyView) -> list[Marker]:
    """Every §6.1 object of the reply, each checked against the schema, its status
    against its place (§6.2) and its carrier's ``extensions`` list (OR-6.1, OR-3.8)."""

    found: list[Marker] = []
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
            m = Marker(n, kind, optr, status if status in STATUSES else None,
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
