"""The egress guard: nothing a caller is not entitled to leaves the agent (§5, OR-5.3, OR-5.4,
OR-5.7), whatever the developer's executor does.

Every event the developer's executor emits (a Message, a Task, a status update and its
message, an Artifact, streamed artifact chunks) goes into a :class:`GuardedQueue`, never
into the SDK's queue directly. The guard reads each event (its Parts' text, JSON data, raw
bytes that are UTF-8 text, file names and URLs, and every metadata string; not its ids)
and, for the caller at hand (an :class:`Entitlement`), stops it when it gives:

* a value of ``operator.private.yaml`` (or its number) of an on-request skill the caller
  is not entitled to, in any of the forms the build itself finds it
  (:func:`acap.checks.find_private_values`: ``£1,395``, ``1395 pounds``, ``GBP 1 395``);
* for a question no classifier recognised: any amount of money
  (:func:`acap.checks.amounts`), any private value (even of a skill the caller is
  entitled to: the runtime cannot tell which skill it answers, so it could not give it
  as §6.2 says), and any Part the guard cannot read (binary bytes, a file by URL).

What is read, and what is not (ids, the caller's own words in a Task's ``history``), is
:mod:`acap.agent._reading`'s, shared with ``acap probe``.

A stopped event is not sent, nor is anything the executor emits after it: the caller gets
the §5.3 referral of the skill concerned instead (with the §6.1 object when it activated
the extension), and the operator's log says what was withheld and why (never the value).
Doubt is a referral: the guard fails closed.

Streamed artifact chunks are held until their artifact is complete (``lastChunk``), the
executor emits another kind of event, or it returns, and are checked together: a value
split across two chunks is found. Chunks of one artifact sent at different times (around a
status update) are checked with all the text of that artifact sent before them.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from a2a.server.events import EventQueue
from a2a.types import Message, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent
from google.protobuf.json_format import MessageToDict

from acap.agent._reading import what_it_says
from acap.checks import PrivateValue, amounts, find_private_values
from acap.replies import OnRequestSkill

__all__ = ["Entitlement", "GuardedQueue", "Leak", "find_leak", "readable"]

log = logging.getLogger("acap.agent")

Event = Message | Task | TaskStatusUpdateEvent | TaskArtifactUpdateEvent
#: Makes the referral that replaces a stopped event: ``(skill, task mode) -> event``.
Refer = Callable[[OnRequestSkill, bool], Awaitable[Event]]

@dataclass(frozen=True)
class Entitlement:
    """What one caller may be sent, by §5.

    Attributes:
        skills: the on-request skills this caller is entitled to (information given on
            opt-in, OR-5.4; an action carried out, OR-5.6): their values may be sent.
        amounts: an amount of money may be sent (the question was recognised as a public,
            sign-in or entitled skill's).
        unreadable: a Part the guard cannot read may be sent (as ``amounts``).
        refer: the skill referred to when an amount or an unreadable Part is stopped (for
            an unrecognised question: the card's first information skill), or ``None``.
    """

    skills: frozenset[str] = frozenset()
    amounts: bool = False
    unreadable: bool = False
    refer: OnRequestSkill | None = None


@dataclass(frozen=True)
class Leak:
    """What the guard stopped.

    Attributes:
        skill: the on-request skill whose referral is sent instead.
        why: for the operator's log: what was found (a value's line in the private file,
            never the value).
    """

    skill: OnRequestSkill
    why: str


def readable(event: Event) -> tuple[list[str], list[str], bool]:
    """What the guard reads of one event.

    Returns:
        ``(part texts, other strings, unreadable)``: the text of its Parts (text, JSON
        data as text, raw bytes that are UTF-8), every other string (metadata, names,
        file names, URLs) but ids, and whether some Part could not be read.
    """
    return what_it_says(MessageToDict(event))


def find_leak(texts: Iterable[str], unreadable: bool, entitlement: Entitlement,
              skills: Mapping[str, OnRequestSkill],
              values: Iterable[PrivateValue]) -> Leak | None:
    """The first thing in ``texts`` the caller may not be sent (module docstring), or ``None``.

    Args:
        texts: what an event says.
        unreadable: the event has a Part the guard cannot read.
        entitlement: what the caller may be sent.
        skills: the card's on-request skills, by id.
        values: the operator's private values.
    """
    guarded = [v for v in values if v.skill not in entitlement.skills and v.skill in skills]
    for text in texts:
        for v, level in find_private_values(text, guarded):
            what = "a value" if level == "error" else "the number of a value"
            return Leak(skills[v.skill], f"{what} given on request ({v.ref})")
        if entitlement.refer is not None and not entitlement.amounts:
            found = amounts(text)
            if found:
                return Leak(entitlement.refer, "an amount of money in answer to a question "
                            "no classifier recognised")
    if unreadable and entitlement.refer is not None and not entitlement.unreadable:
        return Leak(entitlement.refer, "a Part acap cannot read (binary bytes or a file by "
                    "URL) in answer to a question no classifier recognised")
    return None


class GuardedQueue(EventQueue):
    """The event queue the developer's executor writes to: each event is judged before it
    goes on to the SDK's queue (module docstring).

    Args:
        queue: the SDK's queue.
        entitlement: what this caller may be sent.
        skills: the card's on-request skills, by id.
        values: the operator's private values.
        refer: makes the referral sent in place of a stopped event; ``None``: a stopped
            event is dropped, and nothing is sent in its place (a cancellation).
        task_mode: the request continues a task (a referral is then a status update).
        label: how the operator's log names the request.
    """

    def __init__(self, queue: EventQueue, entitlement: Entitlement,
                 skills: Mapping[str, OnRequestSkill], values: Iterable[PrivateValue],
                 refer: Refer | None, *, task_mode: bool = False, label: str = "") -> None:
        self.queue, self.entitlement, self.skills = queue, entitlement, skills
        self.values = tuple(values)
        self.refer, self.label = refer, label
        self.task_mode = task_mode
        self.sent = 0
        self.stopped: Leak | None = None
        self._held: list[TaskArtifactUpdateEvent] = []
        self._said: dict[str, str] = {}  # artifact id -> its Parts' text sent so far

    async def enqueue_event(self, event: Event) -> None:
        """Judge ``event`` (chunks of a streamed artifact are held; see the module)."""
        if self.stopped is not None:
            log.info("acap.agent: %s: an event after a withheld reply was dropped", self.label)
            return
        if isinstance(event, TaskArtifactUpdateEvent) and (event.append or
                                                            not event.last_chunk):
            self._held.append(event)
            if event.last_chunk:
                await self.flush()
            return
        await self.flush()
        await self._judge([event])

    async def flush(self) -> None:
        """Judge and pass on the artifact chunks held (call it when the executor returns)."""
        held, self._held = self._held, []
        if held:
            await self._judge(held)

    async def _judge(self, events: Sequence[Event]) -> None:
        texts: list[str] = []
        unreadable = False
        said = dict(self._said)
        for ev in events:
            parts, strings, bad = readable(ev)
            unreadable |= bad
            texts += strings
            if isinstance(ev, TaskArtifactUpdateEvent):
                aid = ev.artifact.artifact_id
                said[aid] = said.get(aid, "") + "".join(parts)
            else:
                texts += parts
        texts += [said[a] for a in said if said[a] != self._said.get(a)]
        leak = find_leak(texts, unreadable, self.entitlement, self.skills, self.values)
        if leak is not None:
            await self._stop(leak)
            return
        self._said = said
        for ev in events:
            if not isinstance(ev, Message):
                self.task_mode = True
            self.sent += 1
            await self.queue.enqueue_event(ev)

    async def _stop(self, leak: Leak) -> None:
        self.stopped = leak
        if self.refer is None:
            log.warning("acap.agent: %s: withheld an event that gave %s; nothing sent in its "
                        "place", self.label, leak.why)
            return
        log.warning("acap.agent: %s: withheld a reply that gave %s to a caller not entitled "
                    "to it; sent the referral to %s instead (OR-5.3)", self.label, leak.why,
                    leak.skill.person_entry)
        await self.queue.enqueue_event(await self.refer(leak.skill, self.task_mode))
        self.sent += 1
