"""What the two halves of the reply checker share: the options of one check, the state
it fills, and a §6.1 object as found on a reply (:class:`Marker`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from acap.findings import Finding, Level
from acap.load import REPLY, JsonDocument, document_from, pointer_join
from acap.replies._view import Node

TASK_STATES = ("TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_COMPLETED",
               "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_INPUT_REQUIRED",
               "TASK_STATE_REJECTED", "TASK_STATE_AUTH_REQUIRED")


@dataclass(frozen=True)
class Marker:
    """A §6.1 object found on a Message or an Artifact."""

    node: Node
    kind: str  # "message" or "artifact"
    pointer: str
    status: str | None
    skill_id: str | None
    obj: Any


@dataclass
class Options:
    """What the caller of the check knows about the request (see
    :func:`acap.replies.check_reply` for each)."""

    activated: bool
    skill_id: str | None
    for_named_person: bool | None
    action: bool | None
    safeguards_hold: bool | None
    response_extensions: str | Sequence[str] | None
    private_values: Sequence[Any] = ()


class CheckContext:
    """The findings of one check, the pointers already found at fault (a later rule
    does not report the same place again), and what could not be judged
    (``not_judged``: ``(rule id, what)``, said instead of passed as fine)."""

    def __init__(self, rf: JsonDocument) -> None:
        self.rf = rf
        self.findings: list[Finding] = []
        self.bad: set[str] = set()
        self.not_judged: list[tuple[str, str]] = []

    def add(self, rule: str, level: Level, message: str, pointer: str | None,
            hint: str | None = None) -> None:
        self.findings.append(Finding(rule, level, message, self.rf.at(pointer), hint))
        if pointer is not None:
            self.bad.add(pointer)


def _is_proto(value: Any) -> bool:
    """True for a protobuf message (a2a-sdk's Message, Task, StreamResponse ...), told by
    its shape so that this module never imports protobuf or a2a-sdk."""
    return hasattr(value, "DESCRIPTOR") and callable(getattr(value, "ListFields", None))


def sdk_to_json(value: Any) -> Any:
    """An a2a-sdk object (any protobuf message), or a list of them (a recorded stream), as
    A2A 1.0 JSON (``MessageToDict``: camelCase names, enum names); anything else as is.

    protobuf is imported only when an SDK object is given (then it is installed)."""
    if isinstance(value, (list, tuple)) and value and all(_is_proto(v) for v in value):
        return [sdk_to_json(v) for v in value]
    if not _is_proto(value):
        return value
    # start-up: protobuf only for an SDK object (a2a-sdk is optional)
    from google.protobuf.json_format import MessageToDict

    return MessageToDict(value)


def as_document(reply: Any, source: str | None = None) -> JsonDocument:
    """``reply`` as a located document, read as every entry point reads its input
    (:func:`acap.load.document_from`): a :class:`JsonDocument` as is, a path or an https
    URL, JSON bytes, parsed JSON, or an a2a-sdk object (or a list of them) turned into A2A
    1.0 JSON first.

    Args:
        reply: as above.
        source: the name findings give to bytes or parsed data (default ``reply``).
    """
    return document_from(sdk_to_json(reply), REPLY, label=source)


def parts_pointer(node: Node | None) -> str:
    """The pointer of the ``parts`` of a Message or Artifact (``""`` for none)."""
    return "" if node is None else pointer_join(node.pointer, "parts")
