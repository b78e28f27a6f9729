"""Deferred actions, end to end (OR-3.6 ``completion: deferred``, OR-5.8): what the agent
accepts for staff to finish later, and how staff finish it.

When :class:`~acap.agent.OnRequestExecutor` carries out an action whose completion is
deferred, the runtime (not a word list) answers: the task stays ``TASK_STATE_WORKING``
with the operator's words "passed to staff, not done yet" in the request's language, and
nothing the developer's executor said is relayed (it may say "Done!" in any language). The
action is recorded here as a :class:`PendingAction`.

Staff then finish it with :meth:`DeferredActions.complete` (``TASK_STATE_COMPLETED``) or
:meth:`DeferredActions.decline` (``TASK_STATE_REJECTED``), with a message in their own
words. The update goes through the SDK's request handler, as a message to the task from
the staff (marked in the call context, where no HTTP request can put it): the SDK saves
it under the caller's own owner (:mod:`acap.agent._callers`), streams it to a subscriber,
and sends a push notification where the caller configured one (the only way an anonymous
caller hears of it: it cannot read the task back).

Pending actions are kept in memory: a restarted agent forgets them (the task store may not).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from a2a.auth.user import User
from a2a.server.context import ServerCallContext
from a2a.types import Message, Part, Role, SendMessageRequest, Task

from acap.agent._guard import Entitlement, Rule
from acap.checks import PrivateValue
from acap.replies import OnRequestSkill

__all__ = ["DeferredActions", "PendingAction", "StaffOrder"]

#: The key of a :class:`StaffOrder` in ``ServerCallContext.state``.
STAFF = "acap.staff-order"


@dataclass(frozen=True)
class PendingAction:
    """An action accepted for staff to finish (OR-5.8: it is not done yet).

    Attributes:
        task_id, context_id: the A2A task the caller was given (``TASK_STATE_WORKING``).
        skill_id: the on-request skill (``completion: deferred``).
        request: the text of the caller's request.
        language: the language the caller was answered in.
        accepted: when (UTC).
        entitlement: what the caller may be sent (staff's words are held to it).
        owner: the caller's owner in the task store (never shown).
    """

    task_id: str
    context_id: str
    skill_id: str
    request: str
    language: str
    accepted: datetime
    entitlement: Entitlement = field(repr=False, default_factory=Entitlement)
    owner: User | None = field(repr=False, default=None)


@dataclass(frozen=True)
class StaffOrder:
    """Staff's decision on a pending action, as the executor receives it.

    Attributes:
        action: the pending action.
        done: ``True`` for completed, ``False`` for declined.
        text: staff's message to the caller.
    """

    action: PendingAction
    done: bool
    text: str


class DeferredActions:
    """The actions waiting on staff, and the staff's API (module docstring).

    Args:
        skills: the card's on-request skills, by id (to hold staff's words to §5).
        values: the operator's private values.
        languages: the operator's languages (``page.languages``): staff's words are judged
            as the egress guard judges an executor's (:class:`acap.agent._guard.Rule`).
    """

    def __init__(self, skills: Mapping[str, OnRequestSkill] | None = None,
                 values: Iterable[PrivateValue] = (), languages: Sequence[str] = ("en",)
                 ) -> None:
        self._pending: dict[str, PendingAction] = {}
        self._handler: Any = None
        self._skills = dict(skills or {})
        self._values = tuple(values)
        self._languages = tuple(languages)

    def attach(self, handler: Any) -> None:
        """Send staff's updates through ``handler`` (the app's ``DefaultRequestHandler``;
        :func:`~acap.agent.create_app` attaches it)."""
        self._handler = handler

    def record(self, action: PendingAction) -> None:
        """Remember an action accepted for staff (the executor calls it)."""
        self._pending[action.task_id] = action

    def pending(self) -> list[PendingAction]:
        """The actions waiting on staff, oldest first."""
        return sorted(self._pending.values(), key=lambda a: a.accepted)

    async def complete(self, task_id: str, text: str) -> Task:
        """Staff have done it: the task ends ``TASK_STATE_COMPLETED`` with ``text``.

        Raises:
            LookupError: no pending action has this task id.
            ValueError: ``text`` is empty, or gives a value the caller is not entitled to
                (the egress guard's rule, :mod:`acap.agent._guard`).
            RuntimeError: no request handler is attached (the app was not made with
                :func:`~acap.agent.create_app`; call :meth:`attach`).
        """
        return await self._finish(task_id, True, text)

    async def decline(self, task_id: str, text: str) -> Task:
        """Staff will not do it: the task ends ``TASK_STATE_REJECTED`` with ``text`` (say
        why, and where the person can ask). Raises as :meth:`complete`."""
        return await self._finish(task_id, False, text)

    async def _finish(self, task_id: str, done: bool, text: str) -> Task:
        action = self._pending.get(task_id)
        if action is None:
            raise LookupError(f"no action waits on staff with task id {task_id!r}")
        if not text.strip():
            raise ValueError("say something to the caller: what was done, or why not")
        leak = Rule(action.entitlement, self._skills, self._values,
                    self._languages).judge_text(text)
        if leak is not None:
            raise ValueError(f"the text gives {leak.why}, which the caller is not entitled "
                             f"to: say it to the person at {leak.skill.person_entry}")
        if self._handler is None:
            raise RuntimeError("no request handler: make the app with acap.agent.create_app, "
                               "or call attach(handler)")
        msg = Message(message_id=uuid.uuid4().hex, role=Role.ROLE_AGENT, task_id=task_id,
                      context_id=action.context_id, parts=[Part(text=text)])
        ctx = ServerCallContext(user=action.owner) if action.owner is not None \
            else ServerCallContext()
        ctx.state[STAFF] = StaffOrder(action, done, text)
        result = await self._handler.on_message_send(SendMessageRequest(message=msg), ctx)
        self._pending.pop(task_id, None)
        assert isinstance(result, Task)
        return result


def now() -> datetime:
    """The current time, UTC (when an action was accepted)."""
    return datetime.now(timezone.utc)
