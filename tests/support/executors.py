"""A developer's executor for the egress guard's tests: it sends what a function makes of
each request (tests/unit/agent/test_guard*.py), and the referral the example's runtime
sends in its place."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue

REFERRAL = ("Example Memorial Chapel gives this information to the person who asks. "
            "You can ask here: https://ask.example.com/talk")

Make = Callable[[RequestContext], list[Any]]


class Says(AgentExecutor):
    """A developer's executor that sends what ``make`` makes of each request."""

    def __init__(self, make: Make) -> None:
        self.make = make

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        for event in self.make(context):
            await event_queue.enqueue_event(event)

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        raise NotImplementedError
