"""``acap probe URL``: does a live A2A 1.0 agent keep its card's On Request promises?

1. **The card.** Fetched from URL (an origin means its ``/.well-known/agent-card.json``),
   read strictly, and its signatures verified with the JWKS its ``jku`` names on the
   card's own origin. A card that does not verify is not probed: its interface URL is
   not trusted.
2. **The requests.** For each on-request skill, its own example prompts (the AgentSkill's
   ``examples``) or those of a probe file, sent to the card's own interface (JSON-RPC or
   HTTP+JSON, A2A 1.0) with the official SDK's client, as a caller that acts for nobody:
   each prompt twice, without and with ``A2A-Extensions`` naming the extension; once as
   ``SendMessage`` and, when the card says it streams, once as ``SendStreamingMessage``.
   With ``--as-named-person``, each prompt is also sent as an assistant asserting it
   acts for a named person (acap's provisional form, :mod:`acap.agent._assertion`), to
   exercise OR-5.4 and OR-5.6. Where the card has no skill saying how to reach staff,
   the probe also asks to speak to a member of staff (OR-5.10).
3. **The verdicts** (:mod:`acap.agent._probe_judge`): a caller acting for nobody must be
   referred for every on-request skill (OR-5.3, OR-5.4, OR-5.7). Each reply is judged by
   the reply checker (:func:`acap.replies.compare_replies`, :func:`acap.replies.check_reply`),
   the one judgement of each fact that ``acap check-reply`` makes too (OR-5.1, OR-5.3,
   OR-5.7 with the operator's private values, OR-5.8, OR-6.1, OR-6.2, the §6.2 task state,
   the ``A2A-Extensions`` echo); beyond it, what only the probe knows (it asked the skill's
   own question, as a caller not entitled to it): an amount of money, or a value of another
   skill, in the answer is an error under OR-5.3, OR-5.4 or OR-5.7; and OR-5.10's answer.
   Phrase heuristics are warnings that say so.
4. **What it could not judge** is said: skills without a prompt, the opted-in paths
   without ``--as-named-person``, streaming when the card does not stream, and, as "not
   run", every request the budget or the deadline cut off (never "ok").

The network is bounded and polite (:mod:`acap.agent._probe_net`): a request budget, a
delay between requests, one deadline, only the card's own URLs, no private address
unless allowed.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import threading
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

import httpx

from acap._package import __version__
from acap.agent._probe_judge import (
    STAFF_PROMPTS,
    Exchange,
    judge_named,
    judge_pair,
    judge_staff,
)
from acap.agent._probe_net import Guard, GuardedTransport, ProbeRefused
from acap.card import Verifier
from acap.checks import PrivateValue
from acap.findings import Finding, Location, Report, Result
from acap.load import CARD, JsonDocument, json_loads, load_file, origin, parse_document
from acap.replies import OnRequestSkill, on_request_skills
from acap.uris import EXTENSION_URI, EXTENSIONS_HEADER

__all__ = ["PROBE_RULES", "Exchange", "ProbeOptions", "ProbeResult", "interface_refusal", "probe",
           "probe_async", "read_probe_file"]

#: The ids the probe judges (the registry lists ``probe`` in their ``where``).
PROBE_RULES = ("OR-5.1", "OR-5.3", "OR-5.4", "OR-5.7", "OR-5.8", "OR-5.10", "OR-6.1", "OR-6.2",
               "A2A-EXT-ECHO")
_CARD_PATH = "/.well-known/agent-card.json"
_MAX_BYTES = 1024 * 1024
_BINDINGS = ("JSONRPC", "HTTP+JSON")


@dataclass
class ProbeOptions:
    """What to probe, and how politely.

    Attributes:
        url: the card's URL, or the origin it is published on (``https://example.com``).
        prompts: ``{skill id: [prompt, ...]}`` from a probe file; a skill not named uses
            its card examples.
        private_values: the operator's values given on request (``operator.private.yaml``).
        connect_to: ``{host: "http://127.0.0.1:8000"}``: send that host's requests there.
        allow_private: private and loopback addresses may be reached.
        budget: the most HTTP requests (card and JWKS included).
        delay: seconds between two requests.
        deadline: seconds for the whole probe.
        timeout: seconds for one request.
        streaming: ``None``: unary, and streaming too when the card says it streams;
            ``False``: unary only; ``True``: streaming only.
        max_prompts: prompts sent per skill at most.
        named_person: also send each prompt as an assistant acting for a named person
            (acap's provisional assertion, :mod:`acap.agent._assertion`), exercising OR-5.4
            and OR-5.6: an opened action may then really be carried out.
        allow_origins: origins (``https://agent.example.net``) besides the card's host and
            its subdomains that the card's interface URL may aim the probe at
            (:func:`interface_refusal`).
    """

    url: str
    prompts: Mapping[str, Sequence[str]] | None = None
    private_values: Sequence[PrivateValue] = ()
    connect_to: Mapping[str, str] = field(default_factory=dict)
    allow_private: bool = False
    budget: int = 40
    delay: float = 1.0
    deadline: float = 120.0
    timeout: float = 15.0
    streaming: bool | None = None
    max_prompts: int = 2
    named_person: bool = False
    allow_origins: Sequence[str] = ()


@dataclass(repr=False)
class ProbeResult(Result):
    """What ``acap probe`` found.

    Attributes:
        url: as given.
        card_url: the card fetched.
        interface: the agent's interface URL probed, and its binding.
        read: the card was fetched and read as JSON.
        verified: a signature of the card verified.
        report: every finding (rule id, level, place, message, hint).
        exchanges: every request sent to the agent, in order.
        cases: each judged pair: ``(label, skill id, [its findings])``.
        not_judged: ``(what, why)`` for each thing the probe could not judge.
        requests: HTTP requests sent.
    """

    url: str
    card_url: str | None = None
    interface: str | None = None
    read: bool = False
    verified: bool = False
    report: Report = field(default_factory=Report)
    exchanges: list[Exchange] = field(default_factory=list)
    cases: list[tuple[str, str, list[Finding]]] = field(default_factory=list)
    not_judged: list[tuple[str, str]] = field(default_factory=list)
    requests: int = 0

    def _succeeded(self) -> bool:
        """The card verified and some pair of replies was judged."""
        return self.verified and bool(self.cases)


def read_probe_file(path: str | Path) -> tuple[dict[str, list[str]], list[Finding]]:
    """Read a probe file: YAML (or JSON) mapping on-request skill ids to prompts::

        service-pricing:
          - What does a cremation cost?

    Returns:
        ``({skill id: [prompt, ...]}, findings)``; the findings (``YAML-*``, ``PROBE-FILE``)
        say what could not be read, with its line.
    """
    schema = {"type": "object", "additionalProperties": {"type": "array",
                                                          "items": {"type": "string"}}}
    loaded = load_file(path, schema)
    findings = list(loaded.findings)
    out: dict[str, list[str]] = {}
    if loaded.data is None:
        return out, findings
    if not isinstance(loaded.data, dict):
        findings.append(Finding("PROBE-FILE", "error", "a probe file maps skill ids to lists "
                                "of prompts", loaded.location(""),
                                "write: service-pricing: [\"What does a cremation cost?\"]"))
        return out, findings
    for sid, prompts in loaded.data.items():
        ptr = "/" + str(sid).replace("~", "~0").replace("/", "~1")
        if not isinstance(prompts, list) or not all(isinstance(p, str) and p.strip()
                                                    for p in prompts):
            findings.append(Finding("PROBE-FILE", "error", f"the prompts of '{sid}' must be a "
                                    "list of texts", loaded.location(ptr),
                                    f"write: {sid}: [\"a question a person would ask\"]"))
            continue
        out[str(sid)] = [str(p) for p in prompts]
    return out, findings


def probe(options: ProbeOptions) -> ProbeResult:
    """Probe a live agent (see the module docstring); never raises for what a server does.

    Args:
        options: what to probe and the limits.

    Returns:
        A :class:`ProbeResult`. Rule ids: those of :data:`PROBE_RULES` (and the other reply
        ids of :func:`acap.replies.check_reply`), the card's ``CARD-*`` and ``SIG-*``, and
        the probe's own ``PROBE-CARD``, ``PROBE-INTERFACE``, ``PROBE-REQUEST``,
        ``PROBE-LIMIT``.
    """
    return asyncio.run(probe_async(options))


async def probe_async(options: ProbeOptions) -> ProbeResult:
    """:func:`probe`, in a running event loop."""
    result = ProbeResult(options.url)
    guard = Guard(budget=options.budget, delay=options.delay, deadline=options.deadline,
                  timeout=options.timeout, allow_private=options.allow_private,
                  connect_to={h.lower(): u for h, u in options.connect_to.items()})
    guard.start()
    run = _Run(options, result, guard)
    try:
        await asyncio.wait_for(run.run(), timeout=max(options.deadline, 0.1) + 1)
    except asyncio.TimeoutError:
        run.limit(f"the deadline ({options.deadline:g} s) passed")
    finally:
        run.unsent(run.stopped or "the probe stopped")
        result.requests = guard.sent
        await run.close()
    return result


def interface_refusal(card_url: str, interface_url: str,
                      allow_origins: Sequence[str] = ()) -> str | None:
    """Why the probe sends nothing to the interface a card names, or ``None``: the
    interface must be on the card's own host or a subdomain of it (``agent.example.com``
    for a card on ``example.com``), or on one of ``allow_origins`` (``--allow-origin``,
    compared as RFC 6454 origins). A signed card proves only that its signer wrote the
    address: without this, anyone's card could aim the probe's requests at a server that
    is not theirs (acap's own policy, under ``PROBE-INTERFACE``).

    Args:
        card_url: the URL the card was read from.
        interface_url: the ``supportedInterfaces[].url`` the probe would call.
        allow_origins: origins the user allows besides.

    Returns:
        A sentence naming both hosts and ``--allow-origin``, or ``None``.
    """
    card_host = (urlsplit(card_url).hostname or "").rstrip(".")
    try:
        host = (urlsplit(interface_url).hostname or "").rstrip(".")
    except ValueError:
        host = ""
    if host and (host == card_host or host.endswith("." + card_host)):
        return None
    wanted = origin(interface_url)
    if wanted is not None and wanted in {origin(o) for o in allow_origins}:
        return None
    return (f"the card's interface {interface_url} is on {host or 'no host'}, neither the "
            f"card's host {card_host} nor a subdomain of it: the probe sends nothing there "
            "unless that origin is given with --allow-origin")


_T = TypeVar("_T")


class _Overrun(Exception):
    """A judgement did not finish within what was left of the deadline."""


async def _within(seconds: float, work: Callable[[], _T]) -> _T:
    """``work()`` (a judgement: CPU, no I/O) in a thread of its own, awaited for at most
    ``seconds``: the event loop, and with it the deadline, keeps running while it judges.

    The thread is a daemon: a judgement that overruns is left to finish alone (its result
    dropped) and never holds the process at exit. Python cannot stop a thread; every
    scanner of a stranger's text is linear, so what it costs after the deadline is bounded
    by the size of what it reads.

    Raises:
        _Overrun: ``seconds`` passed first.
    """
    loop = asyncio.get_running_loop()
    done: asyncio.Future[_T] = loop.create_future()

    def settle(value: Any, exc: BaseException | None) -> None:
        if not done.done():
            done.set_exception(exc) if exc is not None else done.set_result(value)

    def run() -> None:
        value, exc = None, None
        try:
            value = work()
        except BaseException as e:  # handed to the awaiting task as it is
            exc = e
        with contextlib.suppress(RuntimeError):  # a closed loop: the probe ended without it
            loop.call_soon_threadsafe(settle, value, exc)

    threading.Thread(target=run, name="acap-probe-judgement", daemon=True).start()
    try:
        return await asyncio.wait_for(done, max(seconds, 0.0))
    except asyncio.TimeoutError:
        raise _Overrun from None


def _card_url(url: str) -> str:
    u = urlsplit(url)
    if u.path in ("", "/") and not u.query:
        return f"{u.scheme}://{u.netloc}{_CARD_PATH}"
    return url


def _origin(url: str) -> str:
    u = urlsplit(url)
    return f"{u.scheme}://{u.netloc}".lower()


def _refused(exc: BaseException) -> ProbeRefused | None:
    """The :class:`ProbeRefused` behind an exception (the SDK wraps transport errors)."""
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        if isinstance(cur, ProbeRefused):
            return cur
        seen.add(id(cur))
        cur = cur.__cause__ or cur.__context__
    return None


def _jku(sig: Any) -> str | None:
    """The ``jku`` of one signature's protected header, or ``None``."""

    protected = sig.get("protected") if isinstance(sig, dict) else None
    if not isinstance(protected, str):
        return None
    try:
        header = json.loads(base64.urlsafe_b64decode(protected + "=" * (-len(protected) % 4)))
    except (ValueError, TypeError):
        return None
    jku = header.get("jku") if isinstance(header, dict) else None
    return jku if isinstance(jku, str) else None


class _Run:
    """One probe: the shared client, the card, and the verdicts as they come."""

    def __init__(self, options: ProbeOptions, result: ProbeResult, guard: Guard) -> None:
        self.o, self.result, self.guard = options, result, guard
        self.echo: str | None = None
        self.stopped: str | None = None
        self.plan: list[_Step] = []
        self.done: set[str] = set()
        self.http = httpx.AsyncClient(
            transport=GuardedTransport(guard), follow_redirects=False,
            headers={"A2A-Version": "1.0", "User-Agent": f"acap-probe/{__version__}"},
            event_hooks={"response": [self._on_response]})
        self.card: dict[str, Any] = {}

    async def close(self) -> None:
        await self.http.aclose()

    async def _on_response(self, response: httpx.Response) -> None:
        self.echo = ", ".join(response.headers.get_list(EXTENSIONS_HEADER))

    def add(self, rule: str, level: str, message: str, where: str, hint: str) -> None:
        self.result.report.add(Finding(rule, "error" if level == "error" else "warning",
                                       message, Location(where), hint))

    async def judged(self, what: str, work: Callable[[], _T]) -> _T | None:
        """``work()`` judged within what is left of the deadline (:func:`_within`); ``None``
        when the deadline passed first, which stops the probe (:meth:`limit`)."""
        try:
            return await _within(self.guard.remaining(), work)
        except _Overrun:
            self.limit(f"the deadline ({self.o.deadline:g} s) passed while judging {what}")
            return None

    def limit(self, why: str) -> None:
        """Stop sending, once: the budget or the deadline is reached."""
        if self.stopped is None:
            self.stopped = why
            self.add("PROBE-LIMIT", "error", f"the probe stopped early: {why}; what it did "
                     "not send is listed as not judged",
                     self.result.url, "give a larger --budget or --deadline, or fewer prompts")

    # -- the card ------------------------------------------------------------------------
    async def _get(self, url: str) -> tuple[int, bytes] | str:
        """GET ``url`` within the size limit: ``(status, body)``, or why there is none."""
        try:
            async with self.http.stream("GET", url, headers={"Accept": "application/json"}) \
                    as resp:
                body = b""
                async for chunk in resp.aiter_bytes():
                    body += chunk
                    if len(body) > _MAX_BYTES:
                        return f"the answer is larger than {_MAX_BYTES // 1024} KiB"
                return resp.status_code, body
        except httpx.HTTPError as exc:
            refused = _refused(exc)
            if refused and "budget" in str(refused):
                self.limit(str(refused))
            return str(refused) if refused else f"it could not be fetched ({type(exc).__name__})"

    async def read_card(self) -> JsonDocument | None:
        card_url = _card_url(self.o.url)
        self.result.card_url = card_url
        self.guard.allow([card_url])
        got = await self._get(card_url)
        if isinstance(got, str) or got[0] != 200:
            why = got if isinstance(got, str) else f"HTTP status {got[0]}"
            self.add("PROBE-CARD", "error", f"the card {card_url} could not be read: {why}",
                     card_url, "give the card's URL, or the https origin it is published on")
            return None
        doc = JsonDocument(card_url, CARD, raw=got[1])
        def parse() -> bool:
            parse_document(doc)
            return True

        if not await self.judged("the card", parse):
            return None
        self.result.report.extend(doc.findings)
        if not isinstance(doc.data, dict):
            return None
        self.card = doc.data
        self.result.read = True
        return doc

    async def verify(self, doc: JsonDocument) -> bool:
        """Verify the card with the JWKS its ``jku`` names on its own origin."""
        card_url = doc.source
        docs: dict[str, Any] = {}
        for sig in doc.data.get("signatures") or () if isinstance(doc.data, dict) else ():
            jku = _jku(sig)
            if jku and _origin(jku) == _origin(card_url) and jku not in docs:
                self.guard.allow([jku])
                got = await self._get(jku)
                try:
                    docs[jku] = json_loads(got[1].decode("utf-8")) \
                        if not isinstance(got, str) and got[0] == 200 else None
                except (ValueError, RecursionError):
                    docs[jku] = None

        def lookup(kid: str | None, jku: str | None) -> tuple[dict[str, Any] | None, str]:
            if not jku or jku not in docs:
                return None, "its jku is not a JWKS on the card's origin"
            keys = docs[jku].get("keys") if isinstance(docs[jku], dict) else None
            found = [k for k in keys or () if isinstance(k, dict) and k.get("kid") == kid]
            return (found[0], jku) if found else (None, f"no key with kid '{kid}' at {jku}")

        verifier = Verifier(lookup, "publish the JWKS the jku names, on the card's origin")
        res = await self.judged("the card's signatures", lambda: verifier.verify(
            doc.data, card_url=card_url, cf=doc))
        if res is None:
            return False
        self.result.report.extend(res.report)
        self.result.verified = any(s.valid for s in res.signatures)
        if not self.result.verified:
            self.add("PROBE-CARD", "error", "the card's signature does not verify, so the "
                     "probe does not trust the interface URL it names; nothing was sent to "
                     "the agent", card_url, "fix the signature (acap verify) and probe again")
        return self.result.verified

    def interface(self) -> tuple[str, str] | None:
        for i in self.card.get("supportedInterfaces") or ():
            if isinstance(i, dict) and i.get("protocolBinding") in _BINDINGS \
                    and str(i.get("protocolVersion", "")).startswith("1.") \
                    and isinstance(i.get("url"), str):
                return i["url"], i["protocolBinding"]
        return None

    # -- the requests ------------------------------------------------------------------
    async def run(self) -> None:
        doc = await self.read_card()
        if doc is None or not await self.verify(doc):
            return
        skills = on_request_skills(self.card)
        if not skills:
            self.add("PROBE-CARD", "error", "the card declares no on-request skill (the On "
                     f"Request extension {EXTENSION_URI}): there is nothing to probe",
                     doc.source, "probe an agent whose card declares the extension")
            return
        iface = self.interface()
        if iface is None:
            self.add("PROBE-INTERFACE", "error", "the card has no A2A 1.0 JSONRPC or HTTP+JSON "
                     "interface the probe can call", doc.source,
                     "give supportedInterfaces an entry with protocolVersion 1.0")
            return
        self.result.interface = f"{iface[0]} ({iface[1]})"
        refusal = interface_refusal(doc.source, iface[0], self.o.allow_origins)
        if refusal is not None:
            self.add("PROBE-INTERFACE", "error", refusal, doc.source,
                     f"give --allow-origin {origin(iface[0]) or iface[0]} if that origin is "
                     "the operator's agent: a card may name any address, and the probe must "
                     "not be aimed at someone else's server")
            return
        self.guard.allow([iface[0]])
        modes = self._modes(doc.source)
        clients = {m: self._client(iface, m == "streaming") for m in modes}
        self._probe_file(skills, doc.source)
        self.plan = [step for skill in skills.values() for step in self._steps(skill, modes)]
        staff = await self.judged("how the card says staff are reached",
                                  lambda: self._staff_step(doc, modes[0] if modes else "unary"))
        self.plan += staff or []
        for step in self.plan:
            await self._do(step, clients)

    def _modes(self, source: str) -> list[str]:
        streams = (self.card.get("capabilities") or {}).get("streaming") is True
        modes = ["unary", "streaming"] if self.o.streaming is None else \
            ["streaming" if self.o.streaming else "unary"]
        if "streaming" in modes and not streams:
            modes.remove("streaming")
            if self.o.streaming is None:
                self.result.not_judged.append(("streaming", "the card says the agent does not "
                                               "stream (capabilities.streaming)"))
            else:
                self.add("PROBE-INTERFACE", "error", "--streaming was asked, but the card says "
                         "the agent does not stream", source, "probe without --streaming")
        return modes

    def _probe_file(self, skills: Mapping[str, OnRequestSkill], source: str) -> None:
        ids = [s.get("id") for s in self.card.get("skills") or () if isinstance(s, dict)]
        for sid in (self.o.prompts or {}):
            if sid not in skills:
                self.add("PROBE-FILE", "error", f"the probe file names '{sid}', which is not an "
                         "on-request skill of the card" + (" (it is public or sign-in)"
                                                           if sid in ids else ""),
                         source, "name the card's on-request skills: " + ", ".join(skills))

    def _client(self, iface: tuple[str, str], streaming: bool) -> Any:
        from a2a.client import (  # start-up: a2a-sdk only when the probe sends
            ClientConfig,
            ClientFactory,
        )
        from a2a.client.card_resolver import parse_agent_card  # start-up: as above

        only = {**self.card, "supportedInterfaces": [
            {"url": iface[0], "protocolBinding": iface[1], "protocolVersion": "1.0"}]}
        card = parse_agent_card(only)
        return ClientFactory(ClientConfig(streaming=streaming, httpx_client=self.http,
                                          supported_protocol_bindings=[iface[1]])).create(card)

    def _prompts(self, skill: OnRequestSkill) -> list[str]:
        if self.o.prompts and skill.id in self.o.prompts:
            return list(self.o.prompts[skill.id])
        for s in self.card.get("skills") or ():
            if isinstance(s, dict) and s.get("id") == skill.id:
                return [e for e in s.get("examples") or () if isinstance(e, str) and e.strip()]
        return []

    def _steps(self, skill: OnRequestSkill, modes: Sequence[str]) -> list[_Step]:
        """What the probe will send for ``skill``: a pair per prompt and mode, and a named
        person's request with ``--as-named-person``; what it cannot judge is said."""
        prompts = self._prompts(skill)[: max(self.o.max_prompts, 1)]
        if not prompts:
            self.result.not_judged.append((skill.id, "no example prompt in the card and none "
                                           "in the probe file (--prompts)"))
        if skill.assistant_access and not self.o.named_person:
            path = "carried out under OR-5.6" if skill.declared_action else \
                "given on opt-in (OR-5.4)"
            self.result.not_judged.append((skill.id, f"opened to assistants: {path} only for "
                                           "an assistant acting for a named person; the probe "
                                           "acts for nobody (--as-named-person asserts one)"))
        steps = []
        for n, prompt in enumerate(prompts, 1):
            for mode in modes:
                label = f"{skill.id} #{n} {mode}"
                steps.append(_Step(label, "pair", skill, prompt, mode))
                if self.o.named_person:
                    steps.append(_Step(f"{label}, named person", "named", skill, prompt, mode))
        return steps

    def _staff_step(self, doc: JsonDocument, mode: str) -> list[_Step]:
        """OR-5.10: where the card names no way to reach staff, ask for one."""
        from acap.checks import card_staff_judged, from_card  # start-up: the probe's alone

        def at(pointer: str, key: bool = False) -> Location:
            return Location(doc.source)

        sub = from_card(self.card, doc.source, at)
        language = card_staff_judged(sub)
        if language is None:
            return []
        return [_Step(f"reaching a person #1 {mode}", "staff", None,
                      STAFF_PROMPTS.get(language, STAFF_PROMPTS["en"]), mode)]

    async def _do(self, step: _Step, clients: Mapping[str, Any]) -> None:
        """Send one step's requests and judge what came back."""
        client = clients[step.mode]
        iface = self.result.interface or ""
        if self.stopped:
            self.not_run(step.label, self.stopped)
            return
        found: list[Finding] | None
        skill, stopped = step.skill, self.stopped
        if skill is None:
            ex = await self._send(client, "", step.prompt, step.mode, False)
            stopped = self.stopped
            found = await self.judged(step.label, lambda: judge_staff(step.label, iface, ex,
                                                                      stopped))
        elif step.kind == "named":
            ex = await self._send(client, skill.id, step.prompt, step.mode, True, named=True)
            stopped = self.stopped
            found = await self.judged(step.label, lambda: judge_named(
                self.card, skill, step.label, iface, ex, self.o.private_values, stopped))
        else:
            plain = await self._send(client, skill.id, step.prompt, step.mode, False)
            active = await self._send(client, skill.id, step.prompt, step.mode, True)
            stopped = self.stopped
            found = await self.judged(step.label, lambda: judge_pair(
                self.card, skill, step.label, iface, plain, active, self.o.private_values,
                stopped))
        if found is None:
            self.not_run(step.label, self.stopped or "no reply")
            return
        self.done.add(step.label)
        self.result.cases.append((step.label, step.skill.id if step.skill else "", found))
        self.result.report.extend(found)

    def not_run(self, label: str, why: str) -> None:
        """Say that ``label`` was not run (never that it is ok)."""
        self.done.add(label)
        self.result.not_judged.append((label, f"not run: {why}"))

    def unsent(self, why: str) -> None:
        """Every planned step that was neither judged nor said to be not run: not run."""
        for step in self.plan:
            if step.label not in self.done:
                self.not_run(step.label, why)

    async def _send(self, client: Any, skill_id: str, prompt: str, mode: str,
                    activated: bool, named: bool = False) -> Exchange:
        from a2a.client import ClientCallContext  # start-up: a2a-sdk only when the probe sends
        from a2a.client.service_parameters import (  # start-up: as above
            ServiceParametersFactory,
            with_a2a_extensions,
        )
        from a2a.helpers import new_text_message  # start-up: as above
        from a2a.types import Role, SendMessageRequest  # start-up: as above
        from google.protobuf.json_format import MessageToDict  # start-up: as above

        from acap.agent._assertion import assert_named_person  # start-up: as above

        ex = Exchange(skill_id, prompt, mode, activated, named=named)
        self.result.exchanges.append(ex)
        if self.stopped:
            ex.error = self.stopped
            return ex
        ctx = ClientCallContext(service_parameters=ServiceParametersFactory.create(
            [with_a2a_extensions([EXTENSION_URI])])) if activated else None
        msg = new_text_message(prompt, role=Role.ROLE_USER)
        msg.message_id = uuid.uuid4().hex
        if named:
            assert_named_person(msg)
        ex.sent = MessageToDict(msg)
        self.echo = None
        events: list[dict[str, Any]] = []
        try:
            async for sr in client.send_message(SendMessageRequest(message=msg), context=ctx):
                events.append(MessageToDict(sr))
        except Exception as exc:  # the SDK raises its own errors and wraps transport ones
            refused = _refused(exc)
            if refused is not None and ("budget" in str(refused) or "deadline" in str(refused)):
                self.limit(str(refused))
                ex.error = str(refused)
                return ex
            ex.error = str(refused) if refused else _plain(exc)
            return ex
        ex.reply, ex.echo = events, self.echo if self.echo is not None else ""
        return ex


@dataclass(frozen=True)
class _Step:
    """One thing the probe sends: a pair, a named person's request, or the question to
    reach a person (``skill`` ``None``)."""

    label: str
    kind: str
    skill: OnRequestSkill | None
    prompt: str
    mode: str


def _plain(exc: BaseException) -> str:
    """An SDK or network error in a few plain words (no traceback, no long server text)."""
    text = " ".join(str(exc).split())[:300] or type(exc).__name__
    if "-32009" in text or "VersionNotSupported" in type(exc).__name__:
        return f"the agent does not speak A2A 1.0 ({text})"
    return text
