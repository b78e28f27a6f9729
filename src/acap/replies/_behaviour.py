"""The reply checker's second half: what the agent did, as §5 says it must (OR-5.3, OR-5.4,
OR-5.7, OR-5.8; ``REPLY-TASK-STATE``): referred or gave, with the personEntry in its words,
in the task state §6.2 gives. Each requirement is judged by one function here, which
``acap check-reply`` and ``acap probe`` both reach (through :func:`check_behaviour`).

Levels follow the text: an error where a MUST is certainly broken (a result given where
OR-5.3 forbids it, a referral that never names the personEntry); a warning that says it
is a guess where acap reads words (a phrase that denies the information exists, a phrase
that says a deferred action is done, an amount of money without the operator's private
values); and where the reply cannot show the fact (whom the caller acts for), the check
says it could not judge.

See :mod:`acap.replies._check` for what each rule id checks and what a reply cannot show.
"""

from __future__ import annotations

from dataclasses import dataclass

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
from acap.replies._leaks import find_leaks
from acap.replies._reading import reading_of, sdk_ids
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


@dataclass
class _Reply:
    """One reply as §5 reads it, for one on-request skill.

    Attributes:
        view: the reply.
        skill: the skill it answers.
        opts: what the caller of the check knows.
        markers: every §6.1 object of the reply (any skill, any place).
        mine: those about this skill (or naming none).
        refs: ``mine`` that refer (on-request, action-referred).
        gives: ``mine`` that give (given-on-opt-in).
        results: the Artifacts that are results (not a referral misplaced on an Artifact).
        mentions: the words give the personEntry.
        said: ``(text, pointer)`` of every Message and JSON-RPC error of the reply.
    """

    view: ReplyView
    skill: OnRequestSkill
    opts: Options
    markers: list[Marker]
    mine: list[Marker]
    refs: list[Marker]
    gives: list[Marker]
    results: list[object]
    mentions: bool
    said: list[tuple[str, str]]

    @property
    def is_action(self) -> bool:
        """The skill changes something: as told, else as the card or the reply says."""
        if self.opts.action is not None:
            return self.opts.action
        return self.skill.declared_action or any(m.status == ACTION_REFERRED
                                                 for m in self.mine)


def _read(view: ReplyView, markers: list[Marker], skill: OnRequestSkill,
          opts: Options) -> _Reply:
    mine = [m for m in markers if m.skill_id in (None, skill.id)]
    refs = [m for m in mine if m.status in (ON_REQUEST, ACTION_REFERRED)]
    referring = {id(m.node.data) for m in refs}
    said = [(message_text(n.data), parts_pointer(n)) for n in view.messages]
    said += [(str(e.data.get("message", "")), e.pointer) for e in view.errors]
    # a referral misplaced on an Artifact still says where to ask in its own words
    carriers = [m.node for m in refs if m.kind != "message"]
    mentions = mentions_entry(view, skill) or any(
        mentions_person_entry(message_text(n.data), skill.person_entry) for n in carriers)
    return _Reply(view, skill, opts, markers, mine, refs,
                  [m for m in mine if m.status == GIVEN_ON_OPT_IN],
                  [a for a in view.artifacts if id(a.data) not in referring], mentions, said)


def check_behaviour(ctx: CheckContext, view: ReplyView, markers: list[Marker],
                    skill: OnRequestSkill, opts: Options) -> None:
    """§5 for one on-request skill: referred or given as OR-5.3 and OR-5.4 allow, actions as
    OR-5.7 and OR-5.8, in the task state §6.2 gives."""
    r = _read(view, markers, skill, opts)
    if not r.is_action:
        denies_existence_judge(ctx, r)
    if r.is_action:
        _action(ctx, r)
    elif r.results or r.gives:
        gives_information(ctx, r)
    elif skill.assistant_access and opts.for_named_person is not False and not r.mine \
            and not r.mentions:
        opted_in_without_referral(ctx, r)
    else:
        _information_referred(ctx, r)


def denies_existence_judge(ctx: CheckContext, r: _Reply) -> None:
    """OR-5.3 (a guess, a warning): words that read as if the information did not exist."""
    for text, ptr in r.said:
        phrase = denies_existence(text)
        if phrase:
            ctx.add("OR-5.3", "warning", f"the reply says {phrase!r}, which reads as if the "
                    "information did not exist (a guess from English phrases: check the "
                    "words)", ptr, "say that the operator gives this to the person who asks, "
                    "and where")


def gives_information(ctx: CheckContext, r: _Reply) -> None:
    """OR-5.3 and OR-5.4: a result (an Artifact, or given-on-opt-in) only where the skill
    is opened to assistants and the caller is not known to act for nobody; given, it is
    marked (OR-6.1) and ends COMPLETED (§6.2)."""
    skill, opts = r.skill, r.opts
    at = pointer_join(r.gives[0].pointer, "status") if r.gives else \
        r.view.artifacts[0].pointer
    refer = (f"refer instead: say that the operator gives this to the person who asks, "
             f"with {skill.person_entry}, and mark it on-request")
    if not skill.assistant_access:
        if r.gives:
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
    if opts.for_named_person is None:
        ctx.not_judged.append(("OR-5.4", f"whether the caller acts for a named person, to "
                               f"whom alone {skill.id} may be given (give --for-named-person "
                               "or --for-nobody)"))
    if opts.activated:
        for a in r.view.artifacts:
            if not any(m.node is a and m.status == GIVEN_ON_OPT_IN for m in r.gives):
                ctx.add("OR-6.1", "error", "the Artifact gives on-request information "
                        "without the §6.1 object (status given-on-opt-in)", a.pointer,
                        f"add \"extensions\": [\"{EXTENSION_URI}\"] and metadata "
                        f"{{\"{EXTENSION_URI}\": {{\"status\": \"given-on-opt-in\", "
                        f"\"skillId\": \"{skill.id}\"}}}}")
    check_state(ctx, r.view, COMPLETED, "information given on opt-in")


def opted_in_without_referral(ctx: CheckContext, r: _Reply) -> None:
    """A skill opened to assistants, a reply that neither gives a result nor refers. OR-5.4
    is a MAY: to an assistant acting for a named person the agent may give or decline,
    and nothing is broken; to a caller acting for nobody OR-5.3's referral is owed
    (``for_named_person=False`` is judged as a referral). When whom the caller acts
    for is not known, that is said, not guessed."""
    if r.opts.for_named_person is None:
        ctx.not_judged.append(("OR-5.3", f"whether this reply owed a referral: {r.skill.id} is "
                               "opened to assistants, and OR-5.3's referral is owed only to a "
                               "caller acting for nobody (give --for-named-person or "
                               "--for-nobody)"))


def _information_referred(ctx: CheckContext, r: _Reply) -> None:
    """§6.2 row 1: information referred (OR-5.3, OR-6.1, OR-6.2), ending COMPLETED."""
    if r.opts.activated and not r.markers:
        _no_object(ctx, r, "question", ON_REQUEST)
    referral_names_entry(ctx, r, "OR-5.3")
    referral_gives_nothing(ctx, r, "OR-5.3")
    check_state(ctx, r.view, COMPLETED, "a referred question (the agent did answer: here is "
                "where to ask)")


def referral_names_entry(ctx: CheckContext, r: _Reply, rule: str) -> None:
    """OR-6.2 (a marked referral) or ``rule`` (OR-5.3, OR-5.7: an unmarked one): the words
    of a referral give the personEntry."""
    if r.mentions:
        return
    pe = r.skill.person_entry
    if r.refs:
        ctx.add("OR-6.2", "error", f"the §6.1 object says {r.refs[0].status}, but the text "
                f"does not give the personEntry {pe}", _text_pointer(r.view),
                f"say it in words too, with the address: {pe}")
    elif rule == "OR-5.3":
        ctx.add("OR-5.3", "error", f"{r.skill.id} is on request, but the reply text does not "
                f"give the personEntry {pe}", _text_pointer(r.view),
                f"say that the operator gives this to the person who asks, here: {pe}")
    else:
        ctx.add(rule, "error", f"the action was not carried out, but the text does not "
                f"refer the person to the personEntry {pe}", _text_pointer(r.view),
                f"say where the person can do it: {pe}")


#: Text of a reply ``acap check-reply`` judges for what it gives (as the egress guard's
#: spelled-number readers read it): past it, said to be unread (a warning).
CHECKED_CHARS = 256 * 1024


def referral_gives_nothing(ctx: CheckContext, r: _Reply, rule: str) -> None:
    """OR-5.3 (information) or OR-5.7 (an action, ``rule``): a referral does not give what
    it refers. The whole reply is read as the egress guard and ``acap probe`` read it
    (:func:`acap.replies.reading_of`, :func:`acap.replies.find_leaks`: its words, data,
    metadata, ids, history, raw and file parts, folded and joined across events). With the
    operator's private values (operator.private.yaml), a value of this skill is an error
    (its number alone a warning); any other amount of money, with them or without, is a
    warning that says it is a guess (the words may name another sum). A part acap cannot
    read is a warning: it cannot tell what the part gives."""
    values = r.opts.private_values
    mine = [v for v in values if v.skill == r.skill.id]
    pe = r.skill.person_entry
    data = ctx.rf.data
    # every amount, with or without the private values: the probe judges so (one reply,
    # one verdict); a value found is an error, another amount still a warning
    reading = reading_of(data, exempt=sdk_ids(data)).first(CHECKED_CHARS)
    for lk in find_leaks(reading, mine, any_amount=True, locate=True):
        if lk.value is not None:
            what = "a value" if lk.level == "error" else "the number of a value"
            ctx.add(rule, lk.level, f"the reply refers the person to {pe}, yet states {what} "
                    f"the operator gives on request ({lk.value.ref})", lk.pointer,
                    "a referral gives nothing of the information: say only where to ask")
        elif lk.kind == "amount":
            ctx.add(rule, "warning", f"the reply refers the person to {pe}, yet states an "
                    f"amount of money ({shorten(lk.shown, 40)}): a referral gives nothing of "
                    "the information (a guess: check the words)", lk.pointer,
                    "say only where to ask; give acap check-reply --operator to check against "
                    "the values you give on request")
        else:
            ctx.add(rule, "warning", f"the reply refers the person to {pe}, yet carries "
                    f"{lk.why}: a referral gives nothing of the information, and acap cannot "
                    "read this to tell (a guess)", lk.pointer, "say only where to ask, in words")


def says_not_done(ctx: CheckContext, r: _Reply) -> None:
    """OR-5.8 (a guess from English phrases, a warning): the words of a reply about a
    deferred action never say it is done, whether it was passed on or referred."""
    if not r.skill.deferred:
        return
    for n in [*r.view.messages, *r.view.artifacts]:
        phrase = claims_done(message_text(n.data))
        if phrase:
            ctx.add("OR-5.8", "warning", f"the text says {phrase!r}, but {r.skill.id} is "
                    "deferred: staff complete it later (a guess from English phrases: check "
                    "the words)", parts_pointer(n), "say the request was passed on and is not "
                    "done yet")


def _may_not(r: _Reply) -> list[str]:
    """Why an action may not be carried out for this caller (OR-5.7), as far as known."""
    why = []
    if not r.skill.assistant_access:
        why.append("it is not opened to assistants")
    if r.opts.for_named_person is False:
        why.append("the caller acts for no named person")
    if r.opts.safeguards_hold is False:
        why.append("OR-5.6's conditions do not hold")
    return why


def _action(ctx: CheckContext, r: _Reply) -> None:
    """An action: referred (§6.2 row 2) or carried out, as OR-5.7 and OR-5.8 allow. A
    referral shows itself by its §6.1 object or a REJECTED task; without either, an
    action that may not be carried out is still referred if the words give the
    personEntry (for one that may be, a personEntry in the words is only where to follow
    up)."""
    why = _may_not(r)
    says_not_done(ctx, r)
    referred = bool(r.refs) or r.view.state == REJECTED or (bool(why) and r.mentions)
    if referred:
        _action_referred(ctx, r)
    elif why:
        ctx.add("OR-5.7", "error", f"{r.skill.id} may not be carried out ({'; '.join(why)}), "
                "but the reply does not refer the person to personEntry",
                r.view.state_pointer or _text_pointer(r.view),
                f"say the action was not done and where the person can do it: "
                f"{r.skill.person_entry}; a task ends TASK_STATE_REJECTED")
    elif r.skill.deferred and r.view.state == COMPLETED:
        ctx.add("OR-5.8", "error", f"the task is {COMPLETED}, but {r.skill.id} has "
                "completion deferred: staff finish it later, so it is not done",
                r.view.state_pointer, "keep the task TASK_STATE_WORKING until staff have "
                "finished, and say that it is not done yet")


def _action_referred(ctx: CheckContext, r: _Reply) -> None:
    """§6.2 row 2: an action referred (OR-5.7, OR-6.1, OR-6.2), ending REJECTED."""
    skill = r.skill
    if r.opts.activated and not r.markers:
        _no_object(ctx, r, "action", ACTION_REFERRED)
    for m in r.refs:
        if m.status == ON_REQUEST:
            ctx.add("OR-6.1", "error", f"status on-request, but {skill.id} is an action; an "
                    "action not carried out is action-referred",
                    pointer_join(m.pointer, "status"),
                    "§6.1: action-referred: action not carried out, person referred")
    referral_names_entry(ctx, r, "OR-5.7")
    referral_gives_nothing(ctx, r, "OR-5.7")
    if r.results:
        ctx.add("OR-5.7", "error", "an action referral carries an Artifact, a result, as "
                "though the action had been carried out", r.view.artifacts[0].pointer,
                "a referred action has no result; say it was not done")
    if not r.view.is_task or r.view.state == REJECTED:
        return
    if r.view.state == COMPLETED and skill.deferred:
        ctx.add("OR-5.8", "error", f"the task is {COMPLETED}, which tells the assistant it "
                f"is done; {skill.id} was not carried out and is deferred besides",
                r.view.state_pointer, f"a referred action ends {REJECTED} (§6.2)")
    else:
        check_state(ctx, r.view, REJECTED, "a referred action (the agent decided not to "
                    "perform it)")


def check_state(ctx: CheckContext, view: ReplyView, want: str, case: str) -> None:
    """``REPLY-TASK-STATE``: a task reply ends in ``want``, the state §6.2 gives for ``case``."""
    if not view.is_task or view.state == want or view.state not in TASK_STATES:
        return
    ctx.add("REPLY-TASK-STATE", "error", f"the task ends {view.state}; §6.2 gives {want} for "
            f"{case}", view.state_pointer, f"set status.state to {want}")


def _no_object(ctx: CheckContext, r: _Reply, what: str, status: str) -> None:
    """OR-6.1: an activated referral (of a ``question`` or an ``action``) that carries no
    §6.1 object at all (one naming another skill is said where it is); the hint gives
    the object to add."""
    view, skill = r.view, r.skill
    ctx.add("OR-6.1", "error", f"the reply refers the {what} but carries no §6.1 object "
            f"(status {status})", view.messages[0].pointer if view.messages else "",
            f"add \"extensions\": [\"{EXTENSION_URI}\"] and metadata {{\"{EXTENSION_URI}\": "
            f"{{\"status\": \"{status}\", \"skillId\": \"{skill.id}\", "
            f"\"personEntry\": \"{skill.person_entry}\"}}}} to the Message")
