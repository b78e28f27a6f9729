"""How an assistant says it acts for a named person (OR-5.4, OR-5.5): **acap's provisional
convention**, until the extension settles it (§9 item 1).

The extension does not yet define how an assistant shows on whose behalf it acts. Until it
does, OR-5.5 makes the operator's opt-in (``assistantAccess: true``) its acceptance of the
assistant's own assertion. acap reads that assertion in one documented form:

* the request activates the extension (``A2A-Extensions`` lists its URI), and
* its Message's ``metadata``, under the extension URI, holds ``"actsForNamedPerson": true``
  (the Message should list the URI in ``extensions`` too, as A2A asks of a Message an
  extension contributes to)::

    {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": "What does it cost?"}],
     "extensions": ["https://agent-capability.org/ext/on-request/v1"],
     "metadata": {"https://agent-capability.org/ext/on-request/v1":
                  {"actsForNamedPerson": true}}}

Anything else (no activation, no metadata, ``"true"`` as text, metadata that cannot be
read) is no assertion: the caller acts for nobody, the safe answer. The form is acap's,
not the extension's: it may change when §9 item 1 is settled (then this module follows the
specification). A developer with a stronger proof (a delegated credential checked through
A2A's in-task authorisation, §7.6) gives its own reader to
:class:`~acap.agent.OnRequestExecutor` as ``for_named_person``.
"""

from __future__ import annotations

from typing import Any

from a2a.server.agent_execution import RequestContext
from google.protobuf.json_format import MessageToDict

from acap.uris import EXTENSION_URI

__all__ = ["ACTS_FOR_NAMED_PERSON", "assert_named_person", "asserts_named_person"]

#: The member of the Message's metadata object (under the extension URI) that asserts it.
ACTS_FOR_NAMED_PERSON = "actsForNamedPerson"


def asserts_named_person(context: RequestContext) -> bool:
    """Whether the request asserts, in acap's provisional form (module docstring), that the
    caller acts for a named person. The default ``for_named_person`` of
    :class:`~acap.agent.OnRequestExecutor`.

    Args:
        context: the executor's request context.

    Returns:
        ``True`` only when the request activated the extension and its Message's metadata
        under the extension URI has ``actsForNamedPerson`` exactly ``true``.
    """
    if EXTENSION_URI not in context.requested_extensions:
        return False
    msg = context.message
    if msg is None or not msg.HasField("metadata"):
        return False
    entry = MessageToDict(msg.metadata).get(EXTENSION_URI)
    return isinstance(entry, dict) and entry.get(ACTS_FOR_NAMED_PERSON) is True


def assert_named_person(message: Any) -> Any:
    """Make an SDK ``Message`` assert that its sender acts for a named person (the client's
    side of :func:`asserts_named_person`); send it with ``A2A-Extensions`` naming the
    extension.

    Args:
        message: an ``a2a.types.Message``; changed in place.

    Returns:
        ``message``.
    """
    if EXTENSION_URI not in message.extensions:
        message.extensions.append(EXTENSION_URI)
    message.metadata.update({EXTENSION_URI: {ACTS_FOR_NAMED_PERSON: True}})
    return message
