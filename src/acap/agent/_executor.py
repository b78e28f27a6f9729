"""The adapter: an a2a-sdk ``AgentExecutor`` that keeps the card's On Request promises.

:class:`OnRequestExecutor` wraps the developer's own executor. For each request it asks
``skill_of`` which skill the request is for (A2A requests carry no skill id). A request
for no skill, a public or a sign-in skill goes to the developer's executor as before
(OR-5.2, OR-5.9). For an on-request skill it makes the §5 decision
(:func:`acap.replies.decide`, with the OR-5.6 safeguards from the build's policy) and
sends the §6 reply as SDK objects:

==========================  =====================================================
decision                    reply (marked with the §6.1 object when activated)
==========================  =====================================================
refer information (OR-5.3)  a Message with the operator's words and personEntry;
                            the developer's executor is not called
refer an action (OR-5.7)    a Task ending ``TASK_STATE_REJECTED``, the same words
give on opt-in (OR-5.4)     the developer's answer as the Artifact of a Task ending
                            ``TASK_STATE_COMPLETED``
carry out (OR-5.6)          the developer's events as they are; for ``completion:
                            deferred`` a Task that stays ``TASK_STATE_WORKING`` and
                            never says it is done (OR-5.8)
==========================  =====================================================

The words are the same with and without activation (OR-5.1, OR-6.2); activation only
adds the §6.1 object and the ``A2A-Extensions`` echo. Streaming needs nothing more: each
reply is one event, which the SDK streams as it is.

An exception in the developer's executor is logged, never sent: the SDK would put its
text in the JSON-RPC error. For an on-request skill the request is then referred.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Mapping
from typing import Any

from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.types import Message, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent
from google.protobuf.json_format import MessageToDict, ParseDict

from acap.agent._built import BuiltCard
from acap.agent._http import activate
from acap.replies import (
    Decision,
    OnRequestSkill,
    Outcome,
    Safeguards,
    decide,
    defer_action,
    give_on_opt_in,
    information_text,
    refer_action,
    refer_information,
)
from acap.uris import EXTENSION_URI

__all__ = ["NamedPerson", "OnRequestExecutor", "SkillOf", "to_sdk"]

log = logging.getLogger("acap.agent")

#: Maps a request to the id of the skill it asks for, or ``None`` (no skill of the card).
SkillOf = Callable[[RequestContext], "str | None"]
#: Whether the caller acts for a named person (OR-5.4). How an assistant shows it is not
#: defined yet (OR-5.5, §9 item 1): this is the caller's own assertion, read as you decide.
NamedPerson = Callable[[RequestContext], bool]

Event = Message | Task | TaskStatusUpdateEvent | TaskArtifactUpdateEvent


def to_sdk(reply: Mapping[str, Any]) -> Message | Task:
    """An A2A 1.0 JSON Message or Task (as :mod:`acap.replies` builds them) as the SDK's
    object (``google.protobuf.json_format.ParseDict``, strict: an unknown field raises).

    Raises:
        google.protobuf.json_format.ParseError: not an A2A 1.0 Message or Task.
    """
    target: Message | Task = Message() if "messageId" in reply else Task()
    return ParseDict(dict(reply), target)


class _Collect(EventQueue):
    """An event queue that keeps what the developer's executor enqueues, for the adapter
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

    def text(self) -> str:
        """The text Parts of :meth:`parts`, joined by newlines."""
        return "\n".join(p["text"] for p in self.parts() if isinstance(p.get("text"), str))


def _nobody(context: RequestContext) -> bool:
    return False


class OnRequestExecutor(AgentExecutor):
    """An ``AgentExecutor`` that answers on-request skills as the card promises (§5, §6).

    Args:
        inner: the developer's executor. It answers every request that is not for an
            on-request skill, gives the information when OR-5.4 allows it, and carries out
            an action when OR-5.6 allows it; it is never called for a request that is
            referred.
        built: the card and policy (:class:`~acap.agent.BuiltCard`).
        skill_of: which skill a request is for; default: none, so ``inner`` answers
            everything, as without the adapter.
        for_named_person: whether the caller acts for a named person; default: no, the
            safe answer (OR-5.4: a client acting for nobody is referred).
        words: what each on-request skill gives, for the reply text (``{"service-pricing":
            "its prices"}`` -> "Example Memorial Chapel gives its prices to the person who
            asks. You can ask here: ..."); for an action, what it does ("book this meeting"
            -> "I can't book this meeting for you. ..."). Default: "this", "do this".
    """

    def __init__(self, inner: AgentExecutor, built: BuiltCard, *,
                 skill_of: SkillOf | None = None, for_named_person: NamedPerson | None = None,
                 words: Mapping[str, str] | None = None) -> None:
        self.inner = inner
        self.built = built
        self.skill_of = skill_of
        self.for_named_person = for_named_person or _nobody
        self.words = dict(words or {})
        self._skills = built.skills

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        """Answer one request (see the module docstring for what is sent)."""
        requested = sorted(context.requested_extensions)
        if EXTENSION_URI in requested:
            activate(context, EXTENSION_URI)  # before the first event: streams start with it
        skill_id = self.skill_of(context) if self.skill_of else None
        skill = self._skills.get(skill_id) if skill_id else None
        if skill is None:
            await self._inner(context, event_queue)
            return
        named = bool(self.for_named_person(context))
        pol = self.built.policy.skills.get(skill.id)
        hold = pol.safeguards_hold if pol else {}
        guards = Safeguards(*(hold.get(k) is True for k in "abcd"))
        d = decide(self.built.card, skill.id, request_extensions=requested,
                   for_named_person=named, action=pol.action if pol else None,
                   safeguards=guards)
        for event in await self._reply(d, skill, context):
            await event_queue.enqueue_event(event)

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        """Passed to the developer's executor."""
        await self.inner.cancel(context, event_queue)

    async def _inner(self, context: RequestContext, queue: EventQueue) -> None:
        try:
            await self.inner.execute(context, queue)
        except Exception:
            log.exception("the agent's executor failed")
            raise RuntimeError("the agent could not answer this request") from None

    def _ids(self, context: RequestContext) -> tuple[str, str]:
        """The task and context ids of a Task reply (the SDK makes them per request)."""
        return context.task_id or uuid.uuid4().hex, context.context_id or uuid.uuid4().hex

    def _refer(self, skill: OnRequestSkill, d: Decision, context: RequestContext,
               action: bool) -> Event:
        what = self.words.get(skill.id)
        task_id: str | None = None
        context_id: str | None = context.context_id
        if action or context.current_task is not None:  # a Message may not follow a task
            task_id, context_id = self._ids(context)
        mid = uuid.uuid4().hex
        if action:
            return to_sdk(refer_action(skill, activated=d.activated, message_id=mid,
                                       action=what or "do this", task_id=task_id,
                                       context_id=context_id))
        text = information_text(skill, self.built.operator, what or "this")
        return to_sdk(refer_information(skill, activated=d.activated, message_id=mid,
                                        text=text, task_id=task_id, context_id=context_id))

    async def _run_inner(self, context: RequestContext) -> _Collect | None:
        collected = _Collect()
        try:
            await self.inner.execute(context, collected)
        except Exception:
            log.exception("the agent's executor failed; the request is referred")
            return None
        return collected

    async def _reply(self, d: Decision, skill: OnRequestSkill,
                     context: RequestContext) -> list[Event]:
        if d.outcome is Outcome.REFER_INFORMATION:
            return [self._refer(skill, d, context, action=False)]
        if d.outcome is Outcome.REFER_ACTION:
            return [self._refer(skill, d, context, action=True)]
        collected = await self._run_inner(context)
        if d.outcome is Outcome.GIVE_ON_OPT_IN:
            parts = collected.parts() if collected else []
            if not parts:
                return [self._refer(skill, d, context, action=False)]
            task_id, context_id = self._ids(context)
            return [to_sdk(give_on_opt_in(skill, activated=d.activated, task_id=task_id,
                                          context_id=context_id, artifact_id=uuid.uuid4().hex,
                                          parts=parts))]
        # CARRY_OUT (OR-5.6 holds)
        if collected is None or not collected.events:
            return [self._refer(skill, d, context, action=True)]
        if not skill.deferred:
            return list(collected.events)
        text = collected.text()
        task_id, context_id = self._ids(context)
        try:
            reply = defer_action(skill, message_id=uuid.uuid4().hex, text=text or None,
                                 operator=self.built.operator, task_id=task_id,
                                 context_id=context_id)
        except ValueError:  # the developer's words say it is done: it is not (OR-5.8)
            reply = defer_action(skill, message_id=uuid.uuid4().hex,
                                 operator=self.built.operator, task_id=task_id,
                                 context_id=context_id)
        return [to_sdk(reply)]
