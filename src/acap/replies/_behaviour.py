"""The reply checker's second half: what the agent did, as §5 says it must (OR-5.3, OR-5.4,
OR-5.7, OR-5.8; ``REPLY-TASK-STATE``): referred or gave, with the personEntry in its words,
in the task state §6.2 gives.

See :mod:`acap.replies._check` for what each rule id checks and what a reply cannot show.
"""

from __future__ import annotations

from acap.checks import amounts, find_private_values
from acap.load import pointer_join, shorten
from acap.replies._checking import TASK_STATES, CheckContext, Marker, Options, parts_pointer
from acap.replies._decide import (
    ACTION_REFERRED,
    COMPLETED,
    GIVEN_ON_OPT_IN,
    ON_REQUEST,
    REJECTED,
    OnRequestSkill,
)
from acap.replies._text import claims_done, denies_existence, mentions_person_entry
from acap.replies._view import ReplyView, message_text
from acap.uris import EXTENSION_URI


def mentions_entry(view: ReplyView, skill: OnRequestSkill) -> bool:
    """True when the words of a Message of the reply give the skill's personEntry."""
    texts = [message_text(n.data) for n in view.messages]
    texts += [str(e.data.get("message", "")) for e in view.errors]
    return any(mentions_person_entry(t, skill.person_entry) for t in texts)


def _text_pointer(view: ReplyView) -> str:
    if view.messages:
        return parts_pointer(view.messages[0])
    if view.errors:
        return view.errors[0].pointer
    if view.final_status is not None:
        return view.final_status.pointer
    return ""


def check_behaviour(ctx: CheckContext, view: ReplyView, markers: list[Marker],
                    skill: OnRequestSkill, opts: Options) -> None:
    """§5 for one on-request skill: referred or given as OR-5.3 and OR-5.4 allow, actions as
    OR-5.7 and OR-5.8, in the task state §6.2 gives."""
    mine = [m for m in markers if m.skill_id in (None, skill.id)]
    refs = [m for m in mine if m.status in (ON_REQUEST, ACTION_REFERRED)]
    gives = [m for m in mine if m.status == GIVEN_ON_OPT_IN]
    is_action = opts.action if opts.action is not None else (
        skill.declared_action or any(m.status == ACTION_REFERRED for m in mine))
    mentions = mentions_entry(view, skill)
    pe = skill.person_entry
    said = [(message_text(n.data), parts_pointer(n)) for n in view.messages]
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
        check_state(ctx, view, COMPLETED, "information given on opt-in")
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
        _no_object(ctx, view, skill, "question", ON_REQUEST)
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
    referral_gives_nothing(ctx, said, skill, opts)
    check_state(ctx, view, COMPLETED, "a referred question (the agent did answer: here is where "
           "to ask)")


def referral_gives_nothing(ctx: CheckContext, said: list[tuple[str, str]],
                           skill: OnRequestSkill, opts: Options) -> None:
    """OR-5.3: a referral does not give the information it refers. With the operator's
    private values (operator.private.yaml), a value of this skill in the words is an
    error (its number alone a warning); without them, any amount of money is a warning
    (a heuristic: the words may name another sum)."""

    mine = [v for v in opts.private_values if v.skill == skill.id]
    for text, ptr in said:
        found = list(find_private_values(text, mine)) if mine else []
        if found:
            v, level = found[0]
            what = "a value" if level == "error" else "the number of a value"
            ctx.add("OR-5.3", level, f"the reply refers the person to {skill.person_entry}, "
                    f"yet states {what} the operator gives on request ({v.ref})", ptr,
                    "a referral gives nothing of the information: say only where to ask")
            continue
        money = amounts(text)
        if money and not opts.private_values:
            ctx.add("OR-5.3", "warning", f"the reply refers the person to "
                    f"{skill.person_entry}, yet states an amount of money "
                    f"({shorten(money[0].text, 40)}): a referral gives nothing of the "
                    "information (a heuristic: check the words)", ptr,
                    "say only where to ask; give acap check-reply --operator to check against "
                    "the values you give on request")


def _action(ctx: CheckContext, view: ReplyView, mine: list[Marker], refs: list[Marker],
            skill: OnRequestSkill, opts: Options, mentions: bool) -> None:
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
                            parts_pointer(n), "say the request was passed on and is not "
                            "done yet")
        return
    # Action referred (§6.2 row 2).
    if opts.activated and not mine:
        _no_object(ctx, view, skill, "action", ACTION_REFERRED)
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
            check_state(ctx, view, REJECTED, "a referred action (the agent decided not to "
                   "perform it)")


def check_state(ctx: CheckContext, view: ReplyView, want: str, case: str) -> None:
    """``REPLY-TASK-STATE``: a task reply ends in ``want``, the state §6.2 gives for ``case``."""
    if not view.is_task or view.state == want or view.state not in TASK_STATES:
        return
    ctx.add("REPLY-TASK-STATE", "error", f"the task ends {view.state}; §6.2 gives {want} for "
            f"{case}", view.state_pointer, f"set status.state to {want}")


def _no_object(ctx: CheckContext, view: ReplyView, skill: OnRequestSkill, what: str,
               status: str) -> None:
    """OR-6.1: an activated referral (of a ``question`` or an ``action``) that carries no
    §6.1 object; the hint gives the object to add."""
    ctx.add("OR-6.1", "error", f"the reply refers the {what} but carries no §6.1 object "
            f"(status {status})", view.messages[0].pointer if view.messages else "",
            f"add \"extensions\": [\"{EXTENSION_URI}\"] and metadata {{\"{EXTENSION_URI}\": "
            f"{{\"status\": \"{status}\", \"skillId\": \"{skill.id}\", "
            f"\"personEntry\": \"{skill.person_entry}\"}}}} to the Message")
