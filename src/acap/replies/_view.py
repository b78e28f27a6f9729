"""Reading an A2A 1.0 reply of any shape into the parts §6.2 talks about.

A reply as an agent sends it can be:
* a Message (``{"messageId", "role", "parts", ...}``), Annex A.2;
* a Task (``{"id", "status", "artifacts"?, ...}``), Annex A.3 and A.4;
* a ``SendMessageResponse`` or ``StreamResponse`` (``{"message": ...}``,
  ``{"task": ...}``, ``{"statusUpdate": ...}``, ``{"artifactUpdate": ...}``, A2A §3.2.3);
* a JSON-RPC 2.0 response whose ``result`` is one of those, or whose ``error`` is
  an error object;
* a JSON array of those: a recorded stream, in order.

:func:`read_view` turns each into a :class:`ReplyView`: the Messages that carry
what the agent says (a direct Message, and the final ``TaskStatus.message``),
the final task state, the Artifacts, and the other places where metadata may
sit. ``Task.history`` is the conversation record, not the reply, and is not read.
Every item keeps its RFC 6901 pointer so findings can give the line.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from acap.load import pointer_join


@dataclass(frozen=True)
class Node:
    """A JSON object of the reply and its pointer."""

    pointer: str
    data: Mapping[str, Any]


@dataclass
class ReplyView:
    """The parts of a reply that §5 and §6 are about.

    Attributes:
        messages: Messages the agent says things in: direct Message replies, and the
            final ``TaskStatus.message`` (at most one) of the task.
        final_status: the last TaskStatus seen (a Task's, or a status update's), or ``None``.
        status_message_pointer: pointer of ``final_status.message`` when there is one.
        artifacts: every Artifact (Task.artifacts, artifact updates).
        tasks: every Task object.
        other_metadata: objects whose ``metadata`` must not carry the §6.1 object (Task,
            Part, events).
        errors: JSON-RPC error objects.
        unknown: pointers of values that are none of the shapes above.
    """

    messages: list[Node] = field(default_factory=list)
    final_status: Node | None = None
    status_message_pointer: str | None = None
    artifacts: list[Node] = field(default_factory=list)
    tasks: list[Node] = field(default_factory=list)
    other_metadata: list[Node] = field(default_factory=list)
    errors: list[Node] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    _status_messages: list[Node] = field(default_factory=list)

    @property
    def state(self) -> str | None:
        """The final task state (``TASK_STATE_...``), or ``None`` when no task was made."""
        if self.final_status is None:
            return None
        st = self.final_status.data.get("state")
        return st if isinstance(st, str) else None

    @property
    def state_pointer(self) -> str | None:
        """Pointer of the final ``state`` field."""
        return None if self.final_status is None else pointer_join(self.final_status.pointer,
                                                                   "state")

    @property
    def is_task(self) -> bool:
        """True when the agent made a task."""
        return self.final_status is not None or bool(self.tasks)


def message_text(msg: Mapping[str, Any]) -> str:
    """The text of a Message or Artifact: its ``text`` Parts joined by newlines."""
    parts = msg.get("parts")
    if not isinstance(parts, list):
        return ""
    return "\n".join(p["text"] for p in parts
                     if isinstance(p, Mapping) and isinstance(p.get("text"), str))


def _parts_metadata(view: ReplyView, obj: Mapping[str, Any], ptr: str) -> None:
    parts = obj.get("parts")
    if isinstance(parts, list):
        for i, p in enumerate(parts):
            if isinstance(p, Mapping):
                view.other_metadata.append(Node(pointer_join(pointer_join(ptr, "parts"), i), p))


def _status(view: ReplyView, status: Any, ptr: str) -> None:
    if not isinstance(status, Mapping):
        return
    view.final_status = Node(ptr, status)
    msg = status.get("message")
    if isinstance(msg, Mapping):
        node = Node(pointer_join(ptr, "message"), msg)
        view._status_messages.append(node)
        view.status_message_pointer = node.pointer
    else:
        view.status_message_pointer = None


def _artifact(view: ReplyView, art: Any, ptr: str) -> None:
    if isinstance(art, Mapping):
        view.artifacts.append(Node(ptr, art))
        _parts_metadata(view, art, ptr)


def _walk(view: ReplyView, data: Any, ptr: str, depth: int = 0) -> None:
    """Read one value of the reply into ``view``, by its shape (see the module docstring);
    a value of no known shape is ``unknown``."""
    if depth > 8 or not isinstance(data, (Mapping, list)):
        view.unknown.append(ptr)
    elif isinstance(data, list):
        _stream(view, data, ptr, depth)
    elif "jsonrpc" in data:
        _jsonrpc(view, data, ptr, depth)
    elif "messageId" in data or "role" in data:
        view.messages.append(Node(ptr, data))
        _parts_metadata(view, data, ptr)
    elif "status" in data and ("id" in data or "contextId" in data):
        _task(view, data, ptr)
    else:
        _wrapper(view, data, ptr, depth)


def _stream(view: ReplyView, data: list[Any], ptr: str, depth: int) -> None:
    """A recorded stream: a list at the top, of replies in order."""
    if depth or not data:
        view.unknown.append(ptr)
        return
    for i, item in enumerate(data):
        _walk(view, item, pointer_join(ptr, i), depth + 1)


def _jsonrpc(view: ReplyView, data: Mapping[str, Any], ptr: str, depth: int) -> None:
    """A JSON-RPC 2.0 response: its error object, or its result read as a reply."""
    if isinstance(data.get("error"), Mapping):
        view.errors.append(Node(pointer_join(ptr, "error"), data["error"]))
    elif "result" in data:
        _walk(view, data["result"], pointer_join(ptr, "result"), depth + 1)
    else:
        view.unknown.append(ptr)


def _task(view: ReplyView, data: Mapping[str, Any], ptr: str) -> None:
    """A Task: its status (the final one so far) and its Artifacts."""
    view.tasks.append(Node(ptr, data))
    view.other_metadata.append(Node(ptr, data))
    _status(view, data.get("status"), pointer_join(ptr, "status"))
    arts = data.get("artifacts")
    if isinstance(arts, list):
        for i, a in enumerate(arts):
            _artifact(view, a, pointer_join(pointer_join(ptr, "artifacts"), i))


def _wrapper(view: ReplyView, data: Mapping[str, Any], ptr: str, depth: int) -> None:
    """A SendMessageResponse or StreamResponse: exactly one of message, task,
    statusUpdate, artifactUpdate."""
    wrappers = [k for k in ("message", "task", "statusUpdate", "artifactUpdate") if k in data]
    if len(wrappers) != 1:
        view.unknown.append(ptr)
        return
    key = wrappers[0]
    inner, iptr = data[key], pointer_join(ptr, key)
    if key in ("message", "task"):
        _walk(view, inner, iptr, depth + 1)
    elif not isinstance(inner, Mapping):
        view.unknown.append(iptr)
    else:
        view.other_metadata.append(Node(iptr, inner))
        if key == "statusUpdate":
            _status(view, inner.get("status"), pointer_join(iptr, "status"))
        else:
            _artifact(view, inner.get("artifact"), pointer_join(iptr, "artifact"))


def read_view(data: Any) -> ReplyView:
    """Read a parsed reply (any shape in the module docstring) into a :class:`ReplyView`."""
    view = ReplyView()
    _walk(view, data, "")
    # Only the final TaskStatus.message is the reply (§6.2); earlier status
    # messages of a stream are progress notes and are not read.
    if view.status_message_pointer is not None:
        for n in view._status_messages:
            if n.pointer == view.status_message_pointer:
                view.messages.append(n)
                _parts_metadata(view, n.data, n.pointer)
    return view
