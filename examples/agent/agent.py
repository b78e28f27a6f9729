"""Example Memorial Chapel's A2A agent: a real a2a-sdk 1.3 server that keeps its card's
On Request promises through acap.agent.

    pip install '.[agent]'                    # in acap's repository (acap is not on PyPI)
    python examples/agent/agent.py            # builds the card if needed, serves on :8000

The chapel's own executor below answers every skill naively, prices included, and says a
memorial notice is "done" at once; the OnRequestExecutor around it decides, per request,
what may be said (§5), in the caller's language, and how it is marked (§6): the price
goes only to an assistant acting for a named person (never here: service-pricing is not
opened to assistants), the notice stays "passed to staff, not done yet" until a member of
staff finishes it. The only glue is `skill_of`: which skill a request is for.

Staff finish a notice through two routes, added when CHAPEL_STAFF_TOKEN is set (send it
as ``Authorization: Bearer <token>``)::

    GET  /staff/pending                       the actions waiting on staff
    POST /staff/pending/<task id>             {"done": true, "text": "The notice is up: ..."}
                                              -> {"task": ..., "state": "TASK_STATE_COMPLETED"}
                                              ("done": false declines: TASK_STATE_REJECTED)
"""

from __future__ import annotations

import hmac
import os
import sys
from pathlib import Path

from a2a.helpers import new_text_message
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.types import TaskState
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from acap.agent import BuiltCard, DeferredActions, OnRequestExecutor, create_app

HERE = Path(__file__).resolve().parent

#: The chapel's answers, and the words that pick each skill from a request.
ANSWERS = {
    "opening-hours": ("open", "Example Memorial Chapel is open Monday to Friday, 09:00 to 17:00, "
                      "at 1 Example Street, Exampleton."),
    "service-pricing": ("cost", "A direct cremation costs £1,395, including the transfer and "
                        "the certificate fee."),
    "arrangement-booking": ("book", "Your arrangement meeting is booked for Tuesday at 10:00."),
    "memorial-notice": ("notice", "Done! Your memorial notice is on our website."),
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


def staff_routes(deferred: DeferredActions, token: str) -> list[Route]:
    """The staff's two routes (module docstring), for callers holding ``token``."""

    def allowed(request: Request) -> bool:
        given = request.headers.get("authorization", "")
        return hmac.compare_digest(given.encode(), f"Bearer {token}".encode())

    async def pending(request: Request) -> JSONResponse:
        if not allowed(request):
            return JSONResponse({"error": "staff only"}, status_code=401)
        return JSONResponse([{"task": a.task_id, "skill": a.skill_id, "request": a.request,
                              "accepted": a.accepted.isoformat()} for a in deferred.pending()])

    async def finish(request: Request) -> JSONResponse:
        if not allowed(request):
            return JSONResponse({"error": "staff only"}, status_code=401)
        body = await request.json()
        done, text = body.get("done") is True, str(body.get("text", ""))
        try:
            task = await (deferred.complete if done else deferred.decline)(
                request.path_params["task_id"], text)
        except (LookupError, ValueError) as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        # the state's name as A2A's JSON writes it (TASK_STATE_COMPLETED), not the proto's number
        return JSONResponse({"task": task.id, "state": TaskState.Name(task.status.state)})

    return [Route("/staff/pending", pending, methods=["GET"]),
            Route("/staff/pending/{task_id}", finish, methods=["POST"])]


def app(config: Path = HERE / "operator.yaml", site_dir: Path | None = None,
        executor: AgentExecutor | None = None, staff_token: str | None = None) -> Starlette:
    """The ASGI app; `acap build -c config` must have run (``main`` runs it)."""
    built = BuiltCard.from_project(config, site_dir)
    runtime = OnRequestExecutor(executor or ChapelExecutor(), built, skill_of=skill_of)
    served = create_app(runtime, built)
    token = staff_token or os.environ.get("CHAPEL_STAFF_TOKEN")
    if token:  # first: the SDK's HTTP+JSON routes end with a catch-all /{tenant} mount
        served.router.routes[:0] = staff_routes(runtime.deferred, token)
    return served


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
