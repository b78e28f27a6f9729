"""Example Memorial Chapel's A2A agent: a real a2a-sdk 1.3 server that keeps its card's
On Request promises through acap.agent.

    pip install '.[agent]'                    # in acap's repository (acap is not on PyPI)
    python examples/agent/agent.py            # builds the card if needed, serves on :8000

The chapel's own executor below answers every skill naively, prices included; the
OnRequestExecutor around it decides, per request, what may be said (§5) and how it is
marked (§6). The only glue is `skill_of`: which skill a request is for.
"""

from __future__ import annotations

import sys
from pathlib import Path

from a2a.helpers import new_text_message
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from starlette.applications import Starlette

from acap.agent import BuiltCard, OnRequestExecutor, create_app

HERE = Path(__file__).resolve().parent

#: The chapel's answers, and the words that pick each skill from a request.
ANSWERS = {
    "opening-hours": ("open", "Example Memorial Chapel is open Monday to Friday, 09:00 to 17:00, "
                      "at 1 Example Street, Exampleton."),
    "service-pricing": ("cost", "A direct cremation costs £1,395, including the transfer and "
                        "the certificate fee."),
    "arrangement-booking": ("book", "Your arrangement meeting is booked for Tuesday at 10:00."),
    "memorial-notice": ("notice", "The memorial notice has been passed to our staff."),
    "speak-to-staff": ("speak", "A funeral director will call you back within the hour."),
}


def skill_of(context: RequestContext) -> str | None:
    """The skill a request is for: the first skill whose word it contains."""
    text = context.get_user_input().lower()
    return next((sid for sid, (word, _) in ANSWERS.items() if word in text), None)


class ChapelExecutor(AgentExecutor):
    """Answers as if everything were public: acap.agent keeps the on-request promises."""

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        sid = skill_of(context)
        text = ANSWERS[sid][1] if sid else "I can tell you about the chapel's hours and services."
        await event_queue.enqueue_event(new_text_message(text, context_id=context.context_id))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        raise NotImplementedError("nothing to cancel: every answer is immediate")


def app(config: Path = HERE / "operator.yaml", site_dir: Path | None = None,
        executor: AgentExecutor | None = None) -> Starlette:
    """The ASGI app; `acap build -c config` must have run (``main`` runs it)."""
    built = BuiltCard.from_project(config, site_dir)
    return create_app(OnRequestExecutor(executor or ChapelExecutor(), built,
                                        skill_of=skill_of,
                                        words={"service-pricing": "its prices",
                                               "arrangement-booking": "book this meeting",
                                               "memorial-notice": "publish this notice"}),
                      built)


def main(port: int = 8000) -> None:
    """Build the card if it is not built, then serve on 127.0.0.1:``port``."""
    import uvicorn

    from acap import BuildOptions, build

    config = HERE / "operator.yaml"
    if not (HERE / ".acap" / "operator.agent-policy.json").is_file():
        result = build(BuildOptions(config=config))
        if not result.ok:
            sys.exit("acap build failed: run `acap build -c examples/agent/operator.yaml`")
    uvicorn.run(app(config), host="127.0.0.1", port=port)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 8000)
