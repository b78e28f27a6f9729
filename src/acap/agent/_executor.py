"""The runtime: an a2a-sdk ``AgentExecutor`` that keeps the card's On Request promises, and
fails closed where it cannot tell.

:class:`OnRequestExecutor` wraps the developer's own executor. For each request it finds
out who is asking (``for_named_person``: by default acap's provisional assertion,
:mod:`acap.agent._assertion`), what is asked (``skill_of``: A2A requests carry no skill id),
and in which language to answer (``Accept-Language``, else the operator's own language),
then:

==========================  =====================================================
the request is for          what is sent (marked with the §6.1 object when activated)
==========================  =====================================================
an on-request skill that    the operator's referral in the request's language (a
§5 refers (OR-5.3, OR-5.4,  Message; an action: a Task ending ``TASK_STATE_REJECTED``);
OR-5.7)                     the developer's executor is not called
information given on        the developer's answer as the Artifact of a Task ending
opt-in (OR-5.4)             ``TASK_STATE_COMPLETED``
an action carried out       the developer's events; for ``completion: deferred`` the
(OR-5.6)                    operator's "passed to staff, not done yet" in a Task that
                            stays ``TASK_STATE_WORKING`` (OR-5.8), the developer's own
                            words never relayed, and the action left to staff
                            (:mod:`acap.agent._deferred`)
a public or sign-in skill,  the developer's events, through the egress guard
or a question no classifier (:mod:`acap.agent._guard`): no value of operator.private.yaml
recognises                  the caller is not entitled to, and for an unrecognised
                            question no amount of money, is ever sent: the referral is
==========================  =====================================================

The words are the same with and without activation (OR-5.1, OR-6.2); activation only adds
the §6.1 object and the ``A2A-Extensions`` echo. A classifier or reader that raises is
logged and counts as "not entitled"; an exception in the developer's executor is logged
and never sent (the SDK would put its text in the JSON-RPC error).
"""

from __future__ import annotations

import logging
import traceback
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.types import (
    Message,
    Part,
    Role,
    Task,
    TaskArtifactUpdateEvent,
    TaskState,
    TaskStatus,
    TaskStatusUpdateEvent,
)
from google.protobuf.json_format import MessageToDict, ParseDict

from acap.agent._assertion import asserts_named_person
from acap.agent._built import BuiltCard
from acap.agent._deferred import STAFF, DeferredActions, PendingAction, StaffOrder, now
from acap.agent._guard import Entitlement, GuardedQueue, Rule
from acap.agent._http import activate
from acap.replies import (
    Decision,
    OnRequestSkill,
    Outcome,
    ReplyWords,
    Safeguards,
    choose_language,
    decide,
    defer_action,
    give_on_opt_in,
    refer_action,
    refer_information,
)
from acap.uris import EXTENSION_URI

__all__ = ["NamedPerson", "OnRequestExecutor", "SkillOf", "to_sdk"]

log = logging.getLogger("acap.agent")


def _where(exc: BaseException) -> str:
    """An exception as the operator's log names it: its type and the line that raised it,
    never its text or a traceback's values (``ValueError("It costs £1,395")`` would put a
    value given on request in the log, which the docs promise never holds one)."""
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return type(exc).__name__
    last = frames[-1]
    return f"{type(exc).__name__} at {last.filename} line {last.lineno}, in {last.name}"

#: Maps a request to the id of the skill it asks for, or ``None`` (no skill of the card).
SkillOf = Callable[[RequestContext], "str | None"]
#: Whether the caller acts for a named person (OR-5.4); see :mod:`acap.agent._assertion`.
NamedPerson = Callable[[RequestContext], bool]

Event = Message | Task | TaskStatusUpdateEvent | TaskArtifactUpdateEvent
_FAILED = "the agent could not answer this request"


def to_sdk(reply: Mapping[str, Any]) -> Message | Task:
    """An A2A 1.0 JSON Message or Task (as :mod:`acap.replies` builds them) as the SDK's
    object (``google.protobuf.json_format.ParseDict``, strict: an unknown field raises).

    Raises:
        google.protobuf.json_format.ParseError: not an A2A 1.0 Message or Task.
    """
    target: Message | Task = Message() if "messageId" in reply else Task()
    return ParseDict(dict(reply), target)


class _Collect(EventQueue):
    """An event queue that keeps what the developer's executor enqueues, for the runtime
    to shape (OR-5.4, OR-5.8) before anything is sent."""

    def __init__(self) -> None:
        self.events: list[Event] = []

    async def enqueue_event(self, event: Event) -> None:
        self.events.append(event)

    def parts(self) -> list[dict[str, Any]]:
        """The Parts the executor produced, as JSON: its Artifacts' if any, else its
        Messages' (a direct Message, the final status message)."""
        arts: list[Any] = []
        msgs: list[Any] = []
        for ev in self.events:
            if isinstance(ev, Message):
                msgs.append(ev)
            elif isinstance(ev, Task):
                arts += list(ev.artifacts)
                if ev.status.HasField("message"):
                    msgs.append(ev.status.message)
            elif isinstance(ev, TaskArtifactUpdateEvent):
                arts.append(ev.artifact)
            elif isinstance(ev, TaskStatusUpdateEvent) and ev.status.HasField("message"):
                msgs.append(ev.status.message)
        source = arts or msgs[-1:]
        return [MessageToDict(p) for item in source for p in item.parts]


@dataclass(frozen=True)
class _Request:
    """What the runtime knows of one request."""

    context: RequestContext
    activated: bool
    words: ReplyWords
    named: bool
    skill_id: str | None  # a skill of the card, or None: not recognised
    entitled: frozenset[str]

    @property
    def label(self) -> str:
        """How the operator's log names the request."""
        return f"task {self.context.task_id} ({self.skill_id or 'unrecognised question'})"


class OnRequestExecutor(AgentExecutor):
    """An ``AgentExecutor`` that answers as the card promises (§5, §6) and fails closed
    (see the module docstring).

    Args:
        inner: the developer's executor. It answers public and sign-in skills and the
            questions ``skill_of`` does not recognise (through the egress guard), gives
            the information when OR-5.4 allows it, and carries out an action when OR-5.6
            allows it; it is never called for a request that is referred.
        built: the card, policy and private values (:class:`~acap.agent.BuiltCard`).
        skill_of: which skill a request is for; default: none recognised, so every
            request goes to ``inner`` through the guard.
        for_named_person: whether the caller acts for a named person; default
            :func:`~acap.agent.asserts_named_person`, acap's provisional reading of the
            assistant's own assertion (OR-5.5; §9 item 1 is open).
        deferred: where actions left to staff are kept; default a new
            :class:`~acap.agent.DeferredActions` (:attr:`deferred`).
    """

    def __init__(self, inner: AgentExecutor, built: BuiltCard, *,
                 skill_of: SkillOf | None = None, for_named_person: NamedPerson | None = None,
                 deferred: DeferredActions | None = None) -> None:
        self.inner = inner
        self.built = built
        self.skill_of = skill_of
        self.for_named_person = for_named_person or asserts_named_person
        self._skills = built.skills
        self.deferred = deferred or DeferredActions(self._skills, built.private_values,
                                                    built.languages)

    # -- what is asked, by whom ---------------------------------------------------------
    def _classify(self, context: RequestContext) -> str | None:
        if self.skill_of is None:
            return None
        try:
            sid = self.skill_of(context)
        except Exception as exc:
            log.error("acap.agent: skill_of failed (%s); the question counts as unrecognised",
                      _where(exc))
            return None
        ids = {s.get("id") for s in self.built.card.get("skills") or ()
               if isinstance(s, Mapping)}
        if sid is not None and sid not in ids:
            log.warning("acap.agent: skill_of named %r, which is no skill of the card; the "
                        "question counts as unrecognised", sid)
            return None
        return sid

    def _named(self, context: RequestContext) -> bool:
        try:
            return self.for_named_person(context) is True
        except Exception as exc:
            log.error("acap.agent: for_named_person failed (%s); the caller counts as acting "
                      "for nobody (OR-5.4)", _where(exc))
            return False

    def _decide(self, skill_id: str, named: bool, requested: Any) -> Decision:
        pol = self.built.policy.skills.get(skill_id)
        hold = pol.safeguards_hold if pol else {}
        return decide(self.built.card, skill_id, request_extensions=requested,
                      for_named_person=named, action=pol.action if pol else None,
                      safeguards=Safeguards(*(hold.get(k) is True for k in "abcd")))

    def _entitled(self, skill_id: str, named: bool, requested: Any) -> bool:
        """Whether §5 gives this caller ``skill_id`` (given on opt-in, or carried out)."""
        try:
            outcome = self._decide(skill_id, named, requested).outcome
        except LookupError:  # an entry naming no skill of the card (OR-3.3): nobody's
            return False
        return outcome in (Outcome.GIVE_ON_OPT_IN, Outcome.CARRY_OUT)

    def _request(self, context: RequestContext) -> _Request:
        requested = sorted(context.requested_extensions)
        headers = context.call_context.state.get("headers") if context.call_context else None
        accept = headers.get("accept-language") if isinstance(headers, Mapping) else None
        language = choose_language(accept if isinstance(accept, str) else None,
                                   self.built.languages)
        named = self._named(context)
        entitled = frozenset(sid for sid in self._skills if self._entitled(sid, named, requested))
        return _Request(context, EXTENSION_URI in requested, self.built.words(language),
                        named, self._classify(context), entitled)

    # -- the request ------------------------------------------------------------------------
    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        """Answer one request (see the module docstring for what is sent)."""
        if EXTENSION_URI in context.requested_extensions:
            activate(context, EXTENSION_URI)  # before the first event: streams start with it
        order = context.call_context.state.get(STAFF) if context.call_context else None
        if isinstance(order, StaffOrder):
            await event_queue.enqueue_event(_finished(order, context))
            return
        req = self._request(context)
        skill = self._skills.get(req.skill_id) if req.skill_id else None
        if skill is None:
            await self._guarded(req, event_queue, recognised=req.skill_id is not None)
            return
        d = self._decide(skill.id, req.named, sorted(context.requested_extensions))
        if d.outcome in (Outcome.REFER_INFORMATION, Outcome.REFER_ACTION):
            await event_queue.enqueue_event(self._refer(req, skill, d.activated,
                                                        d.outcome is Outcome.REFER_ACTION))
        elif d.outcome is Outcome.GIVE_ON_OPT_IN:
            await event_queue.enqueue_event(await self._give(req, skill, d))
        elif skill.deferred:
            await event_queue.enqueue_event(await self._defer(req, skill, d))
        else:
            await self._guarded(req, event_queue, recognised=True)

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        """Passed to the developer's executor, through the guard (a cancellation's words
        that give what the caller may not have are dropped)."""
        guard = GuardedQueue(event_queue, Entitlement(), self._skills,
                             self.built.private_values, None, label=f"cancel {context.task_id}",
                             exempt=_sdk_ids(context), own=_own(context),
                             languages=self.built.languages)
        await self.inner.cancel(context, guard)
        await guard.flush()

    # -- replies ------------------------------------------------------------------------
    def _entitlement(self, req: _Request, recognised: bool) -> Entitlement:
        """What the developer's answer may say. For a question no classifier recognised,
        nothing given on request, not even to a caller entitled to it: the runtime cannot
        tell which skill it answers, so it could not give it as §6.2 says (an Artifact
        marked given-on-opt-in); the caller is referred to the first information skill."""
        if recognised:
            return Entitlement(req.entitled, amounts=True, unreadable=True)
        refer = next((s for s in self._skills.values() if not self._is_action(s)), None)
        return Entitlement(frozenset(), amounts=False, unreadable=False, refer=refer)

    def _is_action(self, skill: OnRequestSkill) -> bool:
        pol = self.built.policy.skills.get(skill.id)
        return pol.action if pol else skill.declared_action

    async def _guarded(self, req: _Request, queue: EventQueue, *, recognised: bool) -> None:
        async def refer(skill: OnRequestSkill, task_mode: bool) -> Event:
            return self._refer(req, skill, req.activated, self._is_action(skill),
                               status_update=task_mode)

        guard = GuardedQueue(queue, self._entitlement(req, recognised), self._skills,
                             self.built.private_values, refer,
                             task_mode=req.context.current_task is not None, label=req.label,
                             exempt=_sdk_ids(req.context), own=_own(req.context),
                             languages=self.built.languages)
        try:
            await self.inner.execute(req.context, guard)
            await guard.flush()
        except Exception as exc:
            log.error("acap.agent: %s: the agent's executor failed (%s)", req.label,
                      _where(exc))
            raise RuntimeError(_FAILED) from None

    def _ids(self, context: RequestContext) -> tuple[str, str]:
        """The task and context ids of a Task reply (the SDK makes them per request)."""
        return context.task_id or uuid.uuid4().hex, context.context_id or uuid.uuid4().hex

    def _refer(self, req: _Request, skill: OnRequestSkill, activated: bool, action: bool,
               status_update: bool = False) -> Event:
        context = req.context
        task_id: str | None = None
        context_id: str | None = context.context_id
        if action or status_update or context.current_task is not None:
            task_id, context_id = self._ids(context)  # a Message may not follow a task
        mid = uuid.uuid4().hex
        op = self.built.operator
        if action:
            reply = refer_action(skill, activated=activated, message_id=mid,
                                 text=req.words.action(skill, op), task_id=task_id,
                                 context_id=context_id)
        else:
            reply = refer_information(skill, activated=activated, message_id=mid,
                                      text=req.words.information(skill, op), task_id=task_id,
                                      context_id=context_id)
        event = to_sdk(reply)
        if status_update and isinstance(event, Task):
            return TaskStatusUpdateEvent(task_id=event.id, context_id=event.context_id,
                                         status=event.status)
        return event

    async def _run_inner(self, req: _Request) -> _Collect | None:
        collected = _Collect()
        try:
            await self.inner.execute(req.context, collected)
        except Exception as exc:
            log.error("acap.agent: %s: the agent's executor failed (%s); the request is "
                      "referred", req.label, _where(exc))
            return None
        return collected

    async def _give(self, req: _Request, skill: OnRequestSkill, d: Decision) -> Event:
        """Information given on opt-in (OR-5.4): the developer's answer as an Artifact."""
        collected = await self._run_inner(req)
        parts = collected.parts() if collected else []
        if collected is not None:
            rule = Rule(Entitlement(req.entitled, amounts=True, unreadable=True), self._skills,
                        self.built.private_values, self.built.languages)
            leak = rule.judge_events(collected.events, exempt=_sdk_ids(req.context),
                                     own=_own(req.context))
            if leak is not None:
                log.warning("acap.agent: %s: withheld an answer that gave %s; sent the "
                            "referral to %s instead (OR-5.3)", req.label, leak.why,
                            leak.skill.person_entry)
                return self._refer(req, leak.skill, d.activated, self._is_action(leak.skill))
        if not parts:
            return self._refer(req, skill, d.activated, action=False)
        task_id, context_id = self._ids(req.context)
        return to_sdk(give_on_opt_in(skill, activated=d.activated, task_id=task_id,
                                     context_id=context_id, artifact_id=uuid.uuid4().hex,
                                     parts=parts))

    async def _defer(self, req: _Request, skill: OnRequestSkill, d: Decision) -> Event:
        """An action carried out for staff to finish (OR-5.8): the runtime's words, a task
        that stays WORKING, and the action recorded for staff."""
        collected = await self._run_inner(req)
        if collected is None:
            return self._refer(req, skill, d.activated, action=True)
        if collected.events:
            log.info("acap.agent: %s: the executor's own words are not relayed: completion "
                     "is deferred, and the runtime says it is not done (OR-5.8)", req.label)
        task_id, context_id = self._ids(req.context)
        reply = defer_action(skill, message_id=uuid.uuid4().hex, task_id=task_id,
                             context_id=context_id,
                             text=req.words.deferred(skill, self.built.operator))
        call = req.context.call_context
        self.deferred.record(PendingAction(
            task_id, context_id, skill.id, req.context.get_user_input(), req.words.language,
            now(), Entitlement(req.entitled, amounts=True, unreadable=True),
            call.user if call is not None else None))
        log.info("acap.agent: %s: passed to staff; finish it with "
                 "executor.deferred.complete(%r, ...) or .decline(...)", req.label, task_id)
        return to_sdk(reply)


def _sdk_ids(context: RequestContext) -> frozenset[str]:
    """The ids the SDK made for this request (the task's and the context's): the egress
    guard does not read them, as the executor did not choose them."""
    return frozenset(i for i in (context.task_id, context.context_id) if i)


def _own(context: RequestContext) -> list[dict[str, Any]]:
    """What the caller already has, as A2A JSON: the request's message, and its task's
    stored history and artifacts (its own, :mod:`acap.agent._callers`): an event that
    repeats one tells the caller nothing new, and is not read again."""
    out = [MessageToDict(context.message)] if context.message is not None else []
    task = context.current_task
    if task is not None:
        out += [MessageToDict(m) for m in task.history]
        out += [MessageToDict(a) for a in task.artifacts]
    return out


def _finished(order: StaffOrder, context: RequestContext) -> TaskStatusUpdateEvent:
    """The status update that ends a deferred action as staff decided."""
    state = TaskState.TASK_STATE_COMPLETED if order.done else TaskState.TASK_STATE_REJECTED
    msg = Message(message_id=uuid.uuid4().hex, role=Role.ROLE_AGENT,
                  task_id=order.action.task_id, context_id=order.action.context_id,
                  parts=[Part(text=order.text)])
    return TaskStatusUpdateEvent(task_id=order.action.task_id,
                                 context_id=order.action.context_id,
                                 status=TaskStatus(state=state, message=msg))
