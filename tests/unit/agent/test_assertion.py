"""acap's provisional form of an assistant's assertion that it acts for a named person
(acap.agent._assertion, OR-5.5, §9 item 1): exactly one form counts."""

from __future__ import annotations

from typing import Any

import pytest
from a2a.helpers import new_text_message
from a2a.server.agent_execution import RequestContext
from a2a.server.context import ServerCallContext
from a2a.types import Role, SendMessageRequest

from acap.agent import ACTS_FOR_NAMED_PERSON, assert_named_person, asserts_named_person

EXT = "https://agent-capability.org/ext/on-request/v1"


def _context(metadata: dict[str, Any] | None, activated: bool = True) -> RequestContext:
    msg = new_text_message("What does it cost?", role=Role.ROLE_USER)
    if metadata is not None:
        msg.metadata.update(metadata)
    call = ServerCallContext(requested_extensions={EXT} if activated else set())
    return RequestContext(call, SendMessageRequest(message=msg))


@pytest.mark.parametrize("metadata, activated, want", [
    ({EXT: {ACTS_FOR_NAMED_PERSON: True}}, True, True),
    ({EXT: {ACTS_FOR_NAMED_PERSON: True}}, False, False),  # not activated: no assertion
    ({EXT: {ACTS_FOR_NAMED_PERSON: "true"}}, True, False),  # text is not true
    ({EXT: {ACTS_FOR_NAMED_PERSON: 1}}, True, False),
    ({EXT: {ACTS_FOR_NAMED_PERSON: False}}, True, False),
    ({EXT: True}, True, False),
    ({ACTS_FOR_NAMED_PERSON: True}, True, False),  # not under the extension's URI
    ({"https://other.example/ext": {ACTS_FOR_NAMED_PERSON: True}}, True, False),
    (None, True, False),
])
def test_only_the_documented_form_asserts(metadata: dict[str, Any] | None, activated: bool,
                                          want: bool) -> None:
    assert asserts_named_person(_context(metadata, activated)) is want


def test_the_clients_helper_writes_the_documented_form() -> None:
    msg = assert_named_person(new_text_message("What does it cost?", role=Role.ROLE_USER))
    assert list(msg.extensions) == [EXT]
    call = ServerCallContext(requested_extensions={EXT})
    assert asserts_named_person(RequestContext(call, SendMessageRequest(message=msg)))
    assert_named_person(msg)  # twice: still one URI
    assert list(msg.extensions) == [EXT]
