"""The egress guard: nothing a caller is not entitled to leaves the agent (§5, OR-5.3, OR-5.4,
OR-5.7), whatever the developer's executor does.

Every event the developer's executor emits (a Message, a Task, a status update, an artifact
update) goes into a :class:`GuardedQueue`, never into the SDK's queue directly. For a caller
the guard protects something from (:class:`Rule`: values of on-request skills it is not
entitled to, amounts of money, what the guard cannot read), each event is read whole
(:func:`acap.replies.reading_of`: every string, number, key, id, metadata, extension,
history message, artifact name, file part; only the task and context ids the SDK made, and
what the caller sent itself, are not read) and judged by :func:`acap.replies.find_leaks`,
the judgement ``acap probe`` and ``acap check-reply`` make too, joined with what the same
request sent before it (a value split across status updates, artifacts or Parts is one
text). It is stopped when it gives:

* a value of ``operator.private.yaml`` of an on-request skill the caller is not entitled
  to, in any spelling the reading folds (``£1,395``, ``1395 pounds``, ``£1\\u200b395``,
  ``１３９５``, ``&pound;1&#44;395``, ``one thousand three hundred and ninety-five
  pounds``), as an amount in any unit (``139500 pence``) or in structured data
  (``{"amount": 1395, "currency": "GBP"}``), or its number alone;
* for a question no classifier recognised: any amount of money, and any private value
  (even of a skill the caller is entitled to: the runtime cannot tell which skill it
  answers, so it could not give it as §6.2 says);
* where anything is protected from the caller: a Part the guard cannot read (binary bytes,
  text in an unknown encoding, a file by URL), more text than it reads, and, where the
  operator writes in a language whose spelled-out numbers acap does not read, a currency
  beside words.

A stopped event is not sent, nor is anything the executor emits after it: the caller gets
the §5.3 referral of the skill concerned instead (with the §6.1 object when it activated
the extension), and the operator's log says what was withheld and why (never the value).
Doubt is a referral: the guard fails closed.

Events are held while the end of what they say may be the start of a value or an amount
that the next event completes (:func:`acap.replies.may_continue`: a digit, a currency, an
escape or a number word among the last words), and judged together when it may not, or
when the executor returns: no part of a split value is sent before the whole is judged.
A caller the guard protects nothing from (amounts allowed, no private value kept from it,
nothing unreadable refused) gets every event as it comes.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

from a2a.server.events import EventQueue
from a2a.types import Message, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent
from google.protobuf.json_format import MessageToDict

from acap.checks import PrivateValue
from acap.replies import (
    READERS,
    OnRequestSkill,
    Piece,
    Reading,
    find_leaks,
    may_continue,
    reading_of,
)

__all__ = ["Entitlement", "GuardedQueue", "Rule", "Withheld"]

log = logging.getLogger("acap.agent")

Event = Message | Task | TaskStatusUpdateEvent | TaskArtifactUpdateEvent
#: Makes the referral that replaces a stopped event: ``(skill, task mode) -> event``.
Refer = Callable[[OnRequestSkill, bool], Awaitable[Event]]
#: Characters of what was sent kept to join with what comes next (longer than any value).
_KEEP = 512
#: A judgement of more text than this runs in a worker thread, not in the event loop.
_THREAD_AT = 64 * 1024


@dataclass(frozen=True)
class Entitlement:
    """What one caller may be sent, by §5.

    Attributes:
        skills: the on-request skills this caller is entitled to (information given on
            opt-in, OR-5.4; an action carried out, OR-5.6): their values may be sent.
        amounts: an amount of money may be sent (the question was recognised as a public,
            sign-in or entitled skill's).
        unreadable: a Part the guard cannot read may be sent (as ``amounts``), where no
            private value is kept from this caller.
        refer: the skill referred to when an amount or an unreadable Part is stopped (for
            an unrecognised question: the card's first information skill), or ``None``.
    """

    skills: frozenset[str] = frozenset()
    amounts: bool = False
    unreadable: bool = False
    refer: OnRequestSkill | None = None


@dataclass(frozen=True)
class Withheld:
    """What the guard stopped.

    Attributes:
        skill: the on-request skill whose referral is sent instead.
        why: for the operator's log: what was found and where (a value's line in the
            private file, never the value).
    """

    skill: OnRequestSkill
    why: str


class Rule:
    """What the guard keeps from one caller, and its judgement of what an executor says.

    Args:
        entitlement: what the caller may be sent.
        skills: the card's on-request skills, by id.
        values: the operator's private values.
        languages: the operator's languages (``page.languages``): where one is not among
            :data:`acap.replies.READERS`, a currency beside words is refused too.
    """

    def __init__(self, entitlement: Entitlement, skills: Mapping[str, OnRequestSkill],
                 values: Iterable[PrivateValue], languages: Sequence[str] = ("en",)) -> None:
        self.entitlement, self.skills = entitlement, skills
        self.guarded = [v for v in values if v.skill in skills
                        and v.skill not in entitlement.skills]
        self.any_amount = not entitlement.amounts
        self.refuse_unreadable = not entitlement.unreadable or bool(self.guarded)
        unread = any(t.split("-")[0].lower() not in READERS for t in languages)
        self.unsure = unread and (bool(self.guarded) or self.any_amount)
        first = skills.get(self.guarded[0].skill) if self.guarded else None
        self.refer = entitlement.refer or first or next(iter(skills.values()), None)

    @property
    def idle(self) -> bool:
        """Nothing is kept from this caller: every event may go as it comes."""
        return not (self.guarded or self.any_amount or self.refuse_unreadable)

    def judge(self, reading: Reading, before: tuple[str, str] = ("", "")) -> Withheld | None:
        """The first thing ``reading`` gives that the caller may not have, or ``None``.

        Args:
            reading: what the events say (:func:`acap.replies.reading_of`).
            before: ``(texts, content)`` the same request sent just before.
        """
        for lk in find_leaks(reading, self.guarded, any_amount=self.any_amount,
                             unsure=self.unsure, before=before):
            if lk.kind == "unreadable" and not self.refuse_unreadable:
                continue
            skill = self.skills.get(lk.value.skill) if lk.value else self.refer
            if skill is None:  # a card with no on-request skill: nothing to refer to
                continue
            where = f" at {lk.pointer}" if lk.pointer else ""
            return Withheld(skill, f"{lk.why}{where}")
        return None

    def judge_events(self, events: Sequence[Event], *, exempt: Collection[str] = (),
                     own: Sequence[Mapping[str, object]] = ()) -> Withheld | None:
        """:meth:`judge` of SDK events, read together."""
        reading = Reading()
        for ev in events:
            reading.extend(reading_of(MessageToDict(ev), exempt=exempt, own=own))
        return self.judge(reading)

    def judge_text(self, text: str) -> Withheld | None:
        """:meth:`judge` of words alone (staff's message to a caller)."""
        return self.judge(Reading([Piece(text, "", "text")], chars=len(text)))


def _streams(reading: Reading) -> tuple[str, str]:
    texts = "".join(p.text for p in reading.pieces if p.kind == "text")
    content = "".join(p.text for p in reading.pieces if p.kind != "field")
    return texts, content


def _tail(text: str) -> str:
    """The last :data:`_KEEP` characters of ``text``, from a word's start."""
    if len(text) <= _KEEP:
        return text
    tail = text[-_KEEP:]
    cut = tail.find(" ")
    return tail[cut + 1:] if cut >= 0 else tail


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
        exempt: strings not read (the task and context ids the SDK made for the request).
        own: what the caller sent itself (the request's message, the task's stored
            history and artifacts, as A2A JSON): where an event repeats one, it is not read
            again.
        languages: the operator's languages (see :class:`Rule`).
    """

    def __init__(self, queue: EventQueue, entitlement: Entitlement,
                 skills: Mapping[str, OnRequestSkill], values: Iterable[PrivateValue],
                 refer: Refer | None, *, task_mode: bool = False, label: str = "",
                 exempt: Collection[str] = (), own: Sequence[Mapping[str, object]] = (),
                 languages: Sequence[str] = ("en",)) -> None:
        self.queue, self.refer, self.label = queue, refer, label
        self.rule = Rule(entitlement, skills, values, languages)
        self.task_mode = task_mode
        self.exempt, self.own = frozenset(exempt), list(own)
        self.sent = 0
        self.stopped: Withheld | None = None
        self._held: list[tuple[Event, Reading]] = []
        self._said = ("", "")  # the texts and content sent so far (their tails)

    async def enqueue_event(self, event: Event) -> None:
        """Judge ``event``, or hold it until it can be (see the module)."""
        if self.stopped is not None:
            log.info("acap.agent: %s: an event after a withheld reply was dropped", self.label)
            return
        if self.rule.idle:
            await self._send(event)
            return
        reading = reading_of(MessageToDict(event), exempt=self.exempt, own=self.own)
        self._held.append((event, reading))
        texts, content = self._said
        for _, r in self._held:
            t, c = _streams(r)
            texts, content = texts + t, content + c
        if not may_continue(texts, content, self.rule.guarded):
            await self.flush()

    async def flush(self) -> None:
        """Judge and pass on the events held (call it when the executor returns)."""
        held, self._held = self._held, []
        if not held or self.stopped is not None:
            return
        reading = Reading()
        for _, r in held:
            reading.extend(r)
        if reading.chars > _THREAD_AT:
            leak = await asyncio.to_thread(self.rule.judge, reading, self._said)
        else:
            leak = self.rule.judge(reading, self._said)
        if leak is not None:
            await self._stop(leak)
            return
        t, c = _streams(reading)
        self._said = (_tail(self._said[0] + t), _tail(self._said[1] + c))
        for ev, _ in held:
            await self._send(ev)

    async def _send(self, event: Event) -> None:
        if not isinstance(event, Message):
            self.task_mode = True
        self.sent += 1
        await self.queue.enqueue_event(event)

    async def _stop(self, leak: Withheld) -> None:
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
