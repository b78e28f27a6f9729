"""The specification's examples, Annex A.1 to A.5, checked at every spec-site build.

Each example is a data file in ``acap/spec/docs/examples/``, published beside
the pages. The specification page
includes the file's bytes as they are (see :mod:`acap.builder.specsite._site`), so the page
shows exactly what is checked here. An example that stops matching the
schemas or the placement rules of §6.2 fails the build with a ``SPEC-EXAMPLE``
finding that names the example file and line.

What is checked:
* A.1 (Agent Card): the A2A 1.0 AgentCard schema (``a2a-agent-card.schema.json``),
  the extension's ``params`` against ``on-request-extension.schema.json``,
  OR-3.1 (uri, ``required: false``), OR-3.3 (ids name skills of the card, no
  id twice) and OR-3.7 (no on-request skill carries securityRequirements).
* A.2 to A.4 (replies): the object under the extension URI against
  ``on-request-extension.schema.json#/$defs/reply``; its place per §6.2 and
  OR-6.1 (``on-request`` and ``action-referred`` in ``Message.metadata``,
  ``given-on-opt-in`` in ``Artifact.metadata``); the marked object lists the
  URI in its ``extensions`` (Annex C, change 3); the task state
  (``TASK_STATE_COMPLETED`` for ``on-request`` and ``given-on-opt-in``,
  ``TASK_STATE_REJECTED`` for ``action-referred``); the reply text gives the
  personEntry address (OR-6.2); and, for the chapel's own replies, the
  personEntry equals the one in the A.1 card (§6.1: "the address from the card").
* A.5 (activation over JSON-RPC): the request line, the headers
  (``A2A-Extensions`` lists the extension URI, A2A §3.2.6), and a JSON-RPC 2.0
  ``SendMessage`` body carrying a user Message, sent to an interface the A.1
  card declares.

The A2A message types have no JSON Schema in this package (only the AgentCard
has one), so the reply and request shapes are checked here field by field.
"""

from __future__ import annotations

import email.parser
import email.policy
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

from acap import schemas
from acap.findings import Finding, Location
from acap.load import json_lines, pointer_join, pointer_of
from acap.uris import EXTENSION_URI

#: Rule id of a finding about one of the specification's own examples.
RULE = "SPEC-EXAMPLE"

#: §6.2: the task state that goes with each reply status, when the agent made a task.
TASK_STATE = {
    "on-request": "TASK_STATE_COMPLETED",
    "action-referred": "TASK_STATE_REJECTED",
    "given-on-opt-in": "TASK_STATE_COMPLETED",
}
#: §6.2: which object carries the metadata for each status.
CARRIER = {"on-request": "message", "action-referred": "message", "given-on-opt-in": "artifact"}


@dataclass(frozen=True)
class Example:
    """One example of Annex A.

    Attributes:
        id: ``A.1`` to ``A.5``.
        file: its file name in ``acap/spec/docs/examples/``.
        title: its heading on the page.
        kind: ``card``, ``reply`` or ``http``.
        status: for a reply, the §6.1 status it shows.
        chapel: for a reply, whether it is the A.1 chapel's own (A.4 is another operator's).
    """

    id: str
    file: str
    title: str
    kind: Literal["card", "reply", "http"]
    status: str | None = None
    chapel: bool = True


EXAMPLES: tuple[Example, ...] = (
    Example("A.1", "a1-agent-card.json", "Agent Card", "card"),
    Example("A.2", "a2-information-referred.json", "Information referred: a Message reply",
            "reply", "on-request"),
    Example("A.3", "a3-action-referred.json", "Action referred: a Task ending REJECTED",
            "reply", "action-referred"),
    Example("A.4", "a4-given-on-opt-in.json", "Information given on opt-in: an Artifact",
            "reply", "given-on-opt-in", chapel=False),
    Example("A.5", "a5-activation.http", "Activation over JSON-RPC", "http"),
)


def example(file: str) -> Example:
    """The :class:`Example` whose file name is ``file``.

    Raises:
        KeyError: no example has that file name.
    """
    for e in EXAMPLES:
        if e.file == file:
            return e
    raise KeyError(file)


class _Doc:
    """One JSON text with a line for every JSON pointer (best effort)."""

    def __init__(self, source: str, text: str, first_line: int = 1) -> None:
        self.source = source
        self.text = text
        self.data: Any = json.loads(text)
        self._lines: dict[str, tuple[int, int]] | None = None
        self.offset = first_line - 1

    @property
    def lines(self) -> dict[str, tuple[int, int]]:
        # Computed only when a finding needs a line: examples that hold cost no YAML pass.
        if self._lines is None:
            self._lines = json_lines(self.text)
        return self._lines

    def at(self, pointer: str) -> Location:
        p = pointer
        while p not in self.lines and p:
            p = p.rsplit("/", 1)[0]
        if p in self.lines:
            line, col = self.lines[p]
            return Location(self.source, line + self.offset, col, pointer)
        return Location(self.source, None, None, pointer)


def _finding(ex: Example, message: str, where: Location, hint: str) -> Finding:
    return Finding(RULE, "error", f"example {ex.id} ({ex.file}): {message}", where, hint)


def _schema_errors(name: str, ref: str | None, value: Any, base: str) -> Iterator[tuple[str, str]]:
    for err in schemas.errors(name, value, ref):
        ptr = pointer_of(err.absolute_path, base)
        if err.validator == "additionalProperties" and isinstance(err.instance, dict):
            # Point at the unexpected key itself, not at the object holding it.
            known = err.schema.get("properties", {}) if isinstance(err.schema, dict) else {}
            extra = [k for k in err.instance if k not in known]
            if extra:
                ptr = pointer_join(ptr, extra[0])
        yield ptr, err.message


def _card_problems(ex: Example, doc: _Doc) -> Iterator[Finding]:
    card = doc.data
    fix = "the example must stay a valid card: compare it with the specification's Annex A.1"
    for ptr, msg in _schema_errors(schemas.AGENT_CARD, None, card, ""):
        yield _finding(ex, f"breaks the A2A 1.0 AgentCard schema at {ptr or '/'}: {msg}",
                       doc.at(ptr), fix)
    if not isinstance(card, dict):
        return
    exts = card.get("capabilities", {}).get("extensions", [])
    mine = [(i, e) for i, e in enumerate(exts) if isinstance(e, dict)
            and e.get("uri") == EXTENSION_URI]
    if not mine:
        yield _finding(ex, f"declares no extension with uri {EXTENSION_URI} (OR-3.1)",
                       doc.at("/capabilities"), fix)
        return
    skills = {s.get("id"): (i, s) for i, s in enumerate(card.get("skills", []))
              if isinstance(s, dict)}
    for i, ext in mine:
        base = f"/capabilities/extensions/{i}"
        if ext.get("required") is not False:
            yield _finding(ex, "the extension must be declared with required: false (OR-3.1)",
                           doc.at(base + "/required"), fix)
        params = ext.get("params")
        for ptr, msg in _schema_errors(schemas.EXTENSION, None, params, base + "/params"):
            yield _finding(ex, f"breaks on-request-extension.schema.json at {ptr}: {msg}",
                           doc.at(ptr), fix)
        entries = params.get("skills", []) if isinstance(params, dict) else []
        seen: set[Any] = set()
        for j, entry in enumerate(entries):
            if not isinstance(entry, dict):
                continue
            ptr = f"{base}/params/skills/{j}/id"
            sid = entry.get("id")
            if sid in seen:
                yield _finding(ex, f"lists skill {sid!r} twice (OR-3.3)", doc.at(ptr), fix)
            seen.add(sid)
            if sid not in skills:
                yield _finding(ex, f"lists skill {sid!r}, which the card does not have (OR-3.3)",
                               doc.at(ptr), fix)
            elif "securityRequirements" in skills[sid][1]:
                yield _finding(ex, f"skill {sid!r} is on request and also carries "
                                   "securityRequirements (OR-3.7)",
                               doc.at(f"/skills/{skills[sid][0]}/securityRequirements"), fix)


def _text_of(obj: dict[str, Any]) -> str:
    parts = obj.get("parts")
    if not isinstance(parts, list):
        return ""
    return "\n".join(p["text"] for p in parts if isinstance(p, dict)
                     and isinstance(p.get("text"), str))


def _carriers(data: Any) -> Iterator[tuple[str, dict[str, Any], str, str | None]]:
    """(kind, object, pointer, task state) for every Message and Artifact of a reply."""
    if not isinstance(data, dict):
        return
    if "messageId" in data:
        yield "message", data, "", None
        return
    status = data.get("status")
    state = status.get("state") if isinstance(status, dict) else None
    if isinstance(status, dict) and isinstance(status.get("message"), dict):
        yield "message", status["message"], "/status/message", state
    for i, art in enumerate(data.get("artifacts", []) or []):
        if isinstance(art, dict):
            yield "artifact", art, f"/artifacts/{i}", state


def _reply_problems(ex: Example, doc: _Doc, card: Any) -> Iterator[Finding]:
    fix = "replies follow §6.2: compare the example with the table there"
    marked = [c for c in _carriers(doc.data)
              if isinstance(c[1].get("metadata"), dict) and EXTENSION_URI in c[1]["metadata"]]
    if len(marked) != 1:
        yield _finding(ex, f"has {len(marked)} objects marked with the extension's metadata; "
                           "the example shows exactly one", doc.at(""), fix)
        return
    kind, obj, base, state = marked[0]
    mptr = pointer_join(base + "/metadata", EXTENSION_URI)
    meta = obj["metadata"][EXTENSION_URI]
    for ptr, msg in _schema_errors(schemas.EXTENSION, "reply", meta, mptr):
        yield _finding(ex, f"breaks on-request-extension.schema.json#/$defs/reply at {ptr}: "
                           f"{msg}", doc.at(ptr), fix)
    status = meta.get("status") if isinstance(meta, dict) else None
    if status != ex.status:
        yield _finding(ex, f"shows status {status!r}; this example is about {ex.status!r}",
                       doc.at(mptr + "/status"), fix)
    if status not in CARRIER:
        return
    if CARRIER[status] != kind:
        yield _finding(ex, f"puts the {status} object in {kind.capitalize()}.metadata; §6.2 puts "
                           f"it in {CARRIER[status].capitalize()}.metadata (OR-6.1)",
                       doc.at(mptr + "/status"), fix)
    exts = obj.get("extensions")
    if not (isinstance(exts, list) and EXTENSION_URI in exts):
        yield _finding(ex, f"the marked {kind} does not list {EXTENSION_URI} in its extensions",
                       doc.at(base + "/extensions"), fix)
    if base and state != TASK_STATE[status]:
        yield _finding(ex, f"a task whose reply is {status} ends in {TASK_STATE[status]}, "
                           f"not {state}", doc.at("/status/state"), fix)
    entry = meta.get("personEntry")
    text = _text_of(obj)
    if not text:
        yield _finding(ex, f"the marked {kind} has no text part (OR-6.2)",
                       doc.at(base + "/parts"), fix)
    elif status in ("on-request", "action-referred") and entry and entry not in text:
        yield _finding(ex, "the reply text does not give the personEntry address (OR-6.2)",
                       doc.at(base + "/parts/0/text"), fix)
    if ex.chapel and isinstance(card, dict) and entry:
        card_entries = {s.get("id"): s.get("personEntry")
                        for e in card.get("capabilities", {}).get("extensions", [])
                        if isinstance(e, dict) and e.get("uri") == EXTENSION_URI
                        for s in (e.get("params") or {}).get("skills", [])
                        if isinstance(s, dict)}
        if card_entries.get(meta.get("skillId")) != entry:
            yield _finding(ex, f"personEntry {entry!r} is not the one the A.1 card gives for "
                               f"{meta.get('skillId')!r} (§6.1)", doc.at(mptr + "/personEntry"),
                           fix)


def _http_problems(ex: Example, text: str, source: str, card: Any) -> Iterator[Finding]:
    fix = "the request follows A2A §3.2.6 and §9 (JSON-RPC): compare it with Annex A.5"
    lines = text.split("\n")
    try:
        blank = lines.index("")
    except ValueError:
        yield _finding(ex, "has no blank line between the headers and the body",
                       Location(source, 1, 1), fix)
        return
    request = lines[0].split(" ")
    if len(request) != 3 or request[0] != "POST" or request[2] != "HTTP/1.1":
        yield _finding(ex, f"the request line {lines[0]!r} is not 'POST <path> HTTP/1.1'",
                       Location(source, 1, 1), fix)
        return
    # The standard library's header parser (RFC 5322 syntax, which HTTP/1.1 headers share).
    headers = email.parser.HeaderParser(policy=email.policy.HTTP).parsestr(
        "\n".join(lines[1:blank]) + "\n")

    def header_line(name: str) -> Location:
        for n, line in enumerate(lines[1:blank], start=2):
            if line.lower().startswith(name.lower() + ":"):
                return Location(source, n, 1)
        return Location(source, blank + 1, 1)

    ext = [u.strip() for u in str(headers.get("A2A-Extensions", "")).split(",")]
    if EXTENSION_URI not in ext:
        yield _finding(ex, f"the A2A-Extensions header does not list {EXTENSION_URI}",
                       header_line("A2A-Extensions"), fix)
    for name, want in (("Content-Type", "application/json"), ("A2A-Version", "1.0")):
        if str(headers.get(name, "")).split(";")[0].strip() != want:
            yield _finding(ex, f"the {name} header is not {want}", header_line(name), fix)
    target = f"https://{headers.get('Host', '')}{request[1]}"
    if isinstance(card, dict):
        urls = [i.get("url") for i in card.get("supportedInterfaces", [])
                if isinstance(i, dict) and i.get("protocolBinding") == "JSONRPC"]
        if target not in urls:
            yield _finding(ex, f"is sent to {target}, not to a JSON-RPC interface of the A.1 card",
                           Location(source, 1, 1), fix)
    try:
        doc = _Doc(source, "\n".join(lines[blank + 1:]), first_line=blank + 2)
    except json.JSONDecodeError as exc:
        yield _finding(ex, f"the body is not JSON: {exc.msg}",
                       Location(source, blank + 1 + exc.lineno, exc.colno), fix)
        return
    yield from _jsonrpc_problems(ex, doc, fix)


def _jsonrpc_problems(ex: Example, doc: _Doc, fix: str) -> Iterator[Finding]:
    """What makes the body ``doc`` of a request example not an A2A ``SendMessage``
    JSON-RPC 2.0 request with a user's text message (A2A §9)."""
    body = doc.data
    if not isinstance(body, dict):
        yield _finding(ex, "the body is not a JSON-RPC request object", doc.at(""), fix)
        return
    checks: list[tuple[str, bool, str]] = [
        ("/jsonrpc", body.get("jsonrpc") == "2.0", "jsonrpc is not \"2.0\""),
        ("/id", isinstance(body.get("id"), (str, int)), "the request has no id"),
        ("/method", body.get("method") == "SendMessage", "the method is not SendMessage"),
    ]
    msg = (body.get("params") or {}).get("message") if isinstance(body.get("params"),
                                                                     dict) else None
    if not isinstance(msg, dict):
        checks.append(("/params", False, "params carry no message"))
    else:
        checks += [
            ("/params/message/messageId", isinstance(msg.get("messageId"), str)
             and bool(msg.get("messageId")), "the message has no messageId"),
            ("/params/message/role", msg.get("role") == "ROLE_USER",
             "the message's role is not ROLE_USER"),
            ("/params/message/parts", bool(_text_of(msg)), "the message has no text part"),
        ]
    for ptr, ok, problem in checks:
        if not ok:
            yield _finding(ex, problem, doc.at(ptr), fix)


def check_examples(read: Callable[[str], bytes], source: Callable[[str], str]) -> list[Finding]:
    """Check every example of Annex A.

    Args:
        read: returns the bytes of an example file, given its file name.
        source: returns the name to show in findings for an example file (its path).

    Returns:
        Every problem found, as ``SPEC-EXAMPLE`` error findings (empty when all
        examples hold). Never raises for a broken example.
    """
    findings: list[Finding] = []
    card: Any = None
    for ex in EXAMPLES:
        src = source(ex.file)
        try:
            text = read(ex.file).decode("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            findings.append(_finding(ex, f"cannot be read as UTF-8 text: {exc}", Location(src),
                                     "restore the file from the repository"))
            continue
        if ex.kind == "http":
            findings.extend(_http_problems(ex, text, src, card))
            continue
        try:
            doc = _Doc(src, text)
        except json.JSONDecodeError as exc:
            findings.append(_finding(ex, f"is not JSON: {exc.msg}",
                                     Location(src, exc.lineno, exc.colno),
                                     "fix the JSON syntax"))
            continue
        if ex.kind == "card":
            card = doc.data
            findings.extend(_card_problems(ex, doc))
        else:
            findings.extend(_reply_problems(ex, doc, card))
    return findings
