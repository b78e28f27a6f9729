"""HTTP around an a2a-sdk server: the ``A2A-Extensions`` echo, the card's exact bytes, the app.

* **The echo** (A2A extensions topic, "Extension Activation": the response's
  ``A2A-Extensions`` header lists the extensions the agent activated). a2a-sdk 1.3 reads
  the request header into ``RequestContext.requested_extensions`` but has no notion of an
  activated extension and never writes the response header, so acap adds both halves:
  :class:`ExtensionsEcho`, a pure ASGI middleware (Starlette, FastAPI, any ASGI app),
  gives each request a set and writes its URIs into the response header when the response
  starts; :class:`ActivatingContextBuilder` puts that set into the SDK's
  ``ServerCallContext.state``, where :func:`activate` adds to it from an executor. A
  streamed response starts when the first event is sent, so an executor activates
  before its first event (:class:`~acap.agent.OnRequestExecutor` does it first).
* **The card route** (:func:`card_routes`): the card file's bytes as ``acap build`` wrote
  them, and the JWKS beside it. The SDK's own card route re-serialises the card (key order,
  ``10`` as ``10.0``, fields it does not know dropped), which the signature does not cover.
* **The app** (:func:`create_app`): both, with the SDK's JSON-RPC (and HTTP+JSON) routes at
  the paths of the card's own interfaces.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from typing import Any

import httpx
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.context import ServerCallContext
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import (
    DefaultServerCallContextBuilder,
    create_jsonrpc_routes,
    create_rest_routes,
)
from a2a.server.tasks import InMemoryTaskStore, PushNotificationConfigStore, TaskStore
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from acap.agent._built import BuiltCard
from acap.agent._callers import caller_of
from acap.agent._deferred import DeferredActions
from acap.site import MAX_AGE, not_modified, strong_etag
from acap.uris import EXTENSIONS_HEADER

__all__ = ["ACTIVATED", "ActivatingContextBuilder", "ExtensionsEcho", "activate",
           "card_routes", "create_app", "proto_card"]

#: The key of the per-request set of activated extension URIs, in the ASGI scope and in
#: ``ServerCallContext.state``.
ACTIVATED = "acap.activated_extensions"

log = logging.getLogger("acap.agent")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class ExtensionsEcho:
    """ASGI middleware: the response's ``A2A-Extensions`` header lists the extensions the
    request activated (A2A §3.2.6, extensions topic "Extension Activation").

    Add it to any ASGI app: ``Starlette(middleware=[Middleware(ExtensionsEcho)])``,
    ``fastapi_app.add_middleware(ExtensionsEcho)``. Routes must be built with
    :class:`ActivatingContextBuilder` so that :func:`activate` reaches the set.

    Args:
        app: the ASGI app it wraps.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("type") != "http":
            await self.app(scope, receive, send)
            return
        activated: set[str] = set()
        scope[ACTIVATED] = activated

        async def send_with_echo(message: Message) -> None:
            if message.get("type") == "http.response.start" and activated:
                headers = [(k, v) for k, v in message.get("headers", [])
                           if k.lower() != EXTENSIONS_HEADER.lower().encode()]
                headers.append((EXTENSIONS_HEADER.lower().encode(),
                                ",".join(sorted(activated)).encode()))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_echo)


class ActivatingContextBuilder(DefaultServerCallContextBuilder):
    """The SDK's call-context builder, plus the request's set of activated extensions
    (from :class:`ExtensionsEcho`) in ``ServerCallContext.state[ACTIVATED]``, and each
    anonymous request its own task owner (:mod:`acap.agent._callers`). Pass it to
    ``create_jsonrpc_routes`` and ``create_rest_routes`` as ``context_builder``."""

    def build(self, request: Request) -> ServerCallContext:
        """The SDK's context (headers, user, requested extensions) and the set; a request
        without an authenticated user is an owner of its own (:func:`caller_of`), so that
        no caller reads another's tasks."""
        ctx = super().build(request)
        ctx.state[ACTIVATED] = request.scope.setdefault(ACTIVATED, set())
        ctx.user = caller_of(ctx.user)
        return ctx


_warned: list[bool] = []


def activate(context: RequestContext, uri: str) -> None:
    """Mark extension ``uri`` activated for this request, so that the response's
    ``A2A-Extensions`` header lists it. Call it before the first event of the reply.

    Args:
        context: the executor's request context.
        uri: the extension URI (activate only what the client requested and the card
            declares).
    """
    call = context.call_context
    if call is None:
        return
    if ACTIVATED not in call.state and not _warned:
        _warned.append(True)
        log.warning("the A2A-Extensions echo is not wired: build the routes with "
                    "acap.agent.ActivatingContextBuilder and add acap.agent.ExtensionsEcho")
    call.state.setdefault(ACTIVATED, set()).add(uri)


def card_routes(built: BuiltCard, card_path: str = "/.well-known/agent-card.json",
                jwks_path: str = "/.well-known/jwks.json", *,
                max_age: int = MAX_AGE) -> list[BaseRoute]:
    """Routes serving the built card's bytes as they are and its JWKS beside it (A2A §8.2).

    Answers are ``application/json`` with ``Access-Control-Allow-Origin: *`` (a card is
    public), so that any client's verifier checks the bytes the build signed. Each carries
    a strong ``ETag`` of its bytes and ``Cache-Control: public, max-age=N`` (A2A §8.6:
    a client caches the card and revalidates it); a GET whose ``If-None-Match`` matches
    is answered ``304 Not Modified`` with the same headers and no body (RFC 9110 §13.1.2,
    §15.4.5).

    Args:
        built: the card, JWKS and policy (:class:`BuiltCard`).
        card_path, jwks_path: where to serve them.
        max_age: the max-age in seconds (default 600, as the published site's hosting
            files and GitHub Pages send); 0 sends ``no-cache`` (revalidate every time).
    """
    cache = f"public, max-age={max_age}" if max_age > 0 else "no-cache"

    def route(path: str, body: bytes) -> Route:
        headers = {"Access-Control-Allow-Origin": "*", "Cache-Control": cache,
                   "ETag": strong_etag(body)}

        async def answer(request: Request) -> Response:
            if not_modified(request.headers.get("if-none-match"), headers["ETag"]):
                return Response(status_code=304, headers=headers)
            return Response(body, media_type="application/json", headers=headers)

        return Route(path, answer, methods=["GET"])

    return [route(card_path, built.card_bytes), route(jwks_path, built.jwks_bytes)]


def proto_card(built: BuiltCard) -> Any:
    """The card as the SDK's ``AgentCard`` (for ``DefaultRequestHandler``: its streaming
    check, ``GetExtendedAgentCard``), parsed from the same bytes that are served."""
    from a2a.client.card_resolver import parse_agent_card  # start-up: only to give the SDK its card

    return parse_agent_card(dict(built.card))


def create_app(executor: AgentExecutor, built: BuiltCard, *,
               task_store: TaskStore | None = None,
               push_config_store: PushNotificationConfigStore | None = None,
               push_url_validator: Callable[[str], Awaitable[bool]] | None = None) -> Starlette:
    """A Starlette app serving an agent the way its card says.

    * ``GET /.well-known/agent-card.json`` and ``/.well-known/jwks.json``: :func:`card_routes`;
    * JSON-RPC at the path of the card's JSONRPC interface URL, and HTTP+JSON at its
      HTTP+JSON interface's path, when the card has one (A2A 1.0 bindings);
    * :class:`ExtensionsEcho` around it all, the routes built with
      :class:`ActivatingContextBuilder` (each anonymous request its own task owner:
      :mod:`acap.agent._callers`);
    * push notifications when the card says ``capabilities.pushNotifications``: the
      SDK's config store and sender, every URL judged before it is used (by default
      the SDK's ``validate_push_notification_url``: http(s) to a public address only);
    * an :class:`~acap.agent.OnRequestExecutor`'s deferred actions attached to the
      request handler, so that staff can finish them (:mod:`acap.agent._deferred`).

    Args:
        executor: the agent (usually an :class:`~acap.agent.OnRequestExecutor`).
        built: what it serves (:class:`BuiltCard`).
        task_store: the SDK's task store; default in memory.
        push_config_store: the SDK's push-notification config store; default in memory
            (used only when the card says the agent sends push notifications).
        push_url_validator: ``async (url) -> bool``, whether a push-notification URL may
            be used; default the SDK's ``validate_push_notification_url``.

    Returns:
        The app; run it with any ASGI server (``uvicorn.run(app, port=8000)``).
    """
    push = _push(built, push_config_store, push_url_validator)
    handler = DefaultRequestHandler(agent_executor=executor,
                                    task_store=task_store or InMemoryTaskStore(),
                                    agent_card=proto_card(built), **push.handler_args())
    deferred = getattr(executor, "deferred", None)
    if isinstance(deferred, DeferredActions):
        deferred.attach(handler)
    builder = ActivatingContextBuilder()
    routes = card_routes(built)
    rpc = built.interface_path("JSONRPC")
    if rpc is not None:
        routes += create_jsonrpc_routes(handler, rpc_url=rpc, context_builder=builder)
    rest = built.interface_path("HTTP+JSON")
    if rest is not None:
        routes += create_rest_routes(handler, context_builder=builder,
                                     path_prefix=rest.rstrip("/"))

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        await handler.aclose()
        await push.aclose()

    app = Starlette(routes=routes, middleware=[Middleware(ExtensionsEcho)], lifespan=lifespan)
    app.state.a2a_handler = handler
    return app


class _Push:
    """The push-notification parts of the request handler (none when the card says the
    agent sends none)."""

    def __init__(self, store: PushNotificationConfigStore | None = None,
                 validator: Callable[[str], Awaitable[bool]] | None = None) -> None:
        self.store, self.validator = store, validator
        self.client: httpx.AsyncClient | None = None
        if store is not None:
            # no redirect followed: a validated URL must not send the POST elsewhere
            self.client = httpx.AsyncClient(timeout=10.0, follow_redirects=False)

    def handler_args(self) -> dict[str, Any]:
        if self.store is None or self.client is None:
            return {}
        from a2a.server.tasks import BasePushNotificationSender  # start-up: push only

        sender = BasePushNotificationSender(self.client, self.store,
                                            push_url_validator=self.validator)
        return {"push_config_store": self.store, "push_sender": sender,
                "push_url_validator": self.validator}

    async def aclose(self) -> None:
        if self.client is not None:
            await self.client.aclose()


def _push(built: BuiltCard, store: PushNotificationConfigStore | None,
          validator: Callable[[str], Awaitable[bool]] | None) -> _Push:
    caps = built.card.get("capabilities")
    if not (isinstance(caps, dict) and caps.get("pushNotifications") is True):
        return _Push()
    from a2a.server.tasks import InMemoryPushNotificationConfigStore  # start-up: push only
    from a2a.utils.push_url_validator import (  # start-up: push only
        validate_push_notification_url,
    )

    return _Push(store or InMemoryPushNotificationConfigStore(),
                 validator or validate_push_notification_url)
