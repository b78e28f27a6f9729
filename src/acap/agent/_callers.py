"""Who a caller is, as far as the agent's task store is concerned: each caller sees only its
own tasks (DESIGN "Trust boundaries": an agent's callers are strangers to each other).

a2a-sdk 1.3 scopes every task store and push-notification config store by an *owner*, the
``ServerCallContext.user.user_name`` of the request (``a2a.server.owner_resolver.
resolve_user_scope``). A request that carries no authenticated user gets the SDK's
``UnauthenticatedUser``, whose name is ``""``: every anonymous caller is the same owner,
so any of them reads the others' tasks (``ListTasks``, ``GetTask``, ``SubscribeToTask``,
``CancelTask``, the push-notification config methods, and ``SendMessage`` naming another's
``taskId``).

A2A 1.0 gives an anonymous caller no identity to scope by (§7.3 authenticates clients; an
anonymous client is nobody in particular), so acap scopes what it cannot attribute as
narrowly as it can: **each anonymous request is an owner of its own**
(:class:`AnonymousCaller`, a random name made per request). What an anonymous request
makes (its task, the push-notification config it sends with it) can be read back by no
later request, its own sender's included: ``GetTask`` and the other methods answer
``TaskNotFoundError`` and ``ListTasks`` lists nothing. Within the request, the SDK reads
and writes the task under that owner as usual (streaming included).

A caller authenticated by the app (a Starlette ``AuthenticationMiddleware`` whose user is
authenticated and has a ``display_name``, as the SDK reads it) keeps its own name: its
tasks are its own across requests, as the SDK scopes them. Two users with one display name
are one owner: give each a unique name.
"""

from __future__ import annotations

import secrets

from a2a.auth.user import User

__all__ = ["AnonymousCaller", "caller_of"]

#: The prefix of an anonymous request's owner name (the rest is 192 random bits).
ANONYMOUS = "acap-anonymous:"


class AnonymousCaller(User):
    """A request with no authenticated user: an owner of its own, named at random.

    ``is_authenticated`` is ``False``; ``user_name`` is ``acap-anonymous:`` and 32 random
    URL-safe characters (``secrets.token_urlsafe``), different for every request.
    """

    def __init__(self) -> None:
        self._name = ANONYMOUS + secrets.token_urlsafe(24)

    @property
    def is_authenticated(self) -> bool:
        """Always ``False``."""
        return False

    @property
    def user_name(self) -> str:
        """This request's owner name (see the class docstring)."""
        return self._name


def caller_of(user: User) -> User:
    """The owner a request's tasks are stored under (see the module docstring).

    Args:
        user: the user the SDK's context builder read from the request.

    Returns:
        ``user`` itself when it is authenticated and has a name; otherwise a new
        :class:`AnonymousCaller`.
    """
    try:
        named = bool(user.is_authenticated) and bool(user.user_name)
    except Exception:  # a user object of the app's own that fails: nobody in particular
        named = False
    return user if named else AnonymousCaller()
