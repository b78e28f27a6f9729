"""The probe's network: polite, bounded, and only where the card says.

Every request of ``acap probe`` (the card, its JWKS, the messages the SDK's client sends)
goes through one :class:`GuardedTransport`, an httpx transport that, before anything is
sent:

* admits only the URLs the probe was given or the verified card names (the card URL, a
  ``jku`` on the card's origin, the agent's own interface URL), and never follows a
  redirect (the client is made with ``follow_redirects=False``);
* counts the request against the budget, waits the delay since the previous request,
  and bounds it by what is left of the one deadline;
* resolves the host once and refuses a private, loopback, link-local or otherwise
  non-global address, also inside an IPv6 address that carries one (``::127.0.0.1``,
  6to4, NAT64, Teredo: :func:`acap.load.address_refusal`, the fetches' own judgement),
  unless ``allow_private``; then connects to that very address (with
  the host name kept for ``Host`` and TLS), so that a second DNS answer cannot send the
  request elsewhere (DNS rebinding);
* sends ``HOST`` to the URL ``--connect-to HOST=URL`` gives (a local copy of the agent),
  keeping ``Host: HOST``: the user chose that address, so it is not refused;
* reads at most :data:`MAX_RESPONSE` bytes of any answer (a stream included) *as
  decoded*: it asks for ``gzip`` or ``deflate`` only, decodes them itself a bounded piece
  at a time (``zlib``'s ``max_length``) and hands httpx the decoded bytes, so that a
  995 KiB gzip bomb costs at most the cap, not the gigabyte it inflates to; an encoding
  it did not ask for is refused;
* bounds each answer in time as a whole, the response headers and every byte of a
  stream included (``--timeout``): a server that trickles a byte at a time, each well
  within a read timeout, is cut when the answer's time is up.

Why our own transport: httpx (the SDK's client library) has neither a request budget nor
an address policy, and decodes a body without bound before any cap could count it;
wrapping its transport is its documented extension point.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import time
import zlib
from collections.abc import AsyncIterator, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import httpx

from acap.load import address_refusal

__all__ = ["MAX_RESPONSE", "Guard", "GuardedTransport", "ProbeRefused"]

#: The most bytes the probe reads of one answer (a card, a JWKS, a reply, a stream),
#: counted after decoding.
MAX_RESPONSE = 1024 * 1024
#: The encodings the probe asks for (and decodes itself, bounded).
ACCEPT_ENCODING = "gzip, deflate"
#: zlib ``wbits`` of each encoding: gzip; deflate as RFC 9110 means it (zlib, RFC 1950).
#: A raw deflate stream (no zlib header, as some servers send) is tried when the zlib
#: header is not there.
_WBITS = {"gzip": 16 + zlib.MAX_WBITS, "x-gzip": 16 + zlib.MAX_WBITS,
          "deflate": zlib.MAX_WBITS}
#: Bytes decoded at a time: a small piece, so that a bomb never inflates beyond the cap.
_PIECE = 64 * 1024


class ProbeRefused(httpx.TransportError):
    """A request the probe will not send; ``str()`` says why in plain words."""


@dataclass
class Guard:
    """The probe's limits and what it has used of them.

    Attributes:
        budget: the most requests it sends.
        delay: seconds between two requests.
        deadline: seconds for the whole probe, from :meth:`start`.
        timeout: seconds for one request at most.
        allow_private: private and loopback addresses may be reached.
        connect_to: ``{host: "http://127.0.0.1:8000"}``: where to send that host's requests.
        allowed: URL prefixes that may be requested (a path prefix ends with ``/`` or is
            the whole path).
        sent: requests sent so far.
    """

    budget: int = 40
    delay: float = 1.0
    deadline: float = 120.0
    timeout: float = 15.0
    allow_private: bool = False
    connect_to: Mapping[str, str] = field(default_factory=dict)
    allowed: list[str] = field(default_factory=list)
    sent: int = 0
    _started: float | None = None
    _last: float | None = None
    _pinned: dict[tuple[str, int], str] = field(default_factory=dict)

    def start(self) -> None:
        """Start the deadline's clock."""
        self._started = time.monotonic()

    def remaining(self) -> float:
        """Seconds left before the deadline."""
        if self._started is None:
            self.start()
        assert self._started is not None
        return self.deadline - (time.monotonic() - self._started)

    def allow(self, urls: Iterable[str]) -> None:
        """Admit more URLs (the card's JWKS, its interface)."""
        self.allowed.extend(u for u in urls if u not in self.allowed)

    def admits(self, url: str) -> bool:
        """True when ``url`` is one the probe may request (see :attr:`allowed`)."""
        for a in self.allowed:
            if url == a or (url.startswith(a.rstrip("/") + "/") and "?" not in a):
                return True
        return False

    def refusal(self, url: str) -> str | None:
        """Why ``url`` may not be requested now, or ``None``."""
        u = urlsplit(url)
        host = (u.hostname or "").lower()
        if u.scheme != "https" and host not in self.connect_to and not self.allow_private:
            return f"{url} is not https"
        if not self.admits(url):
            return f"{url} is neither the card, its JWKS, nor the agent's interface"
        if self.sent >= self.budget:
            return f"the request budget ({self.budget}) is used up"
        if self.remaining() <= 0:
            return f"the deadline ({self.deadline:g} s) has passed"
        return None

    async def pace(self) -> None:
        """Wait until :attr:`delay` has passed since the previous request."""
        if self._last is not None:
            wait = self.delay - (time.monotonic() - self._last)
            if wait > 0:
                await asyncio.sleep(min(wait, max(self.remaining(), 0)))
        self._last = time.monotonic()

    async def address(self, host: str, port: int) -> str:
        """The address to connect to for ``host``: resolved once, then the same.

        Raises:
            ProbeRefused: the name does not resolve, or resolves to an address that is
                not global (private, loopback, link-local, reserved ...) and
                ``allow_private`` is off.
        """
        key = (host, port)
        if key in self._pinned:
            return self._pinned[key]
        try:
            ipaddress.ip_address(host)
            addrs = [host]
        except ValueError:
            wait = max(min(self.timeout, self.remaining()), 0.1)
            try:  # the lookup counts against the request's time and the deadline
                infos = await asyncio.wait_for(asyncio.get_running_loop().getaddrinfo(
                    host, port, type=socket.SOCK_STREAM), wait)
            except asyncio.TimeoutError:
                raise ProbeRefused(f"{host} did not resolve within {wait:g} s") from None
            except OSError as exc:
                raise ProbeRefused(f"{host} does not resolve ({exc.strerror or exc})") from exc
            addrs = [str(i[4][0]) for i in infos]
        if not addrs:
            raise ProbeRefused(f"{host} does not resolve")
        refused = [(a, r) for a in addrs
                   if (r := address_refusal(ipaddress.ip_address(a.split("%")[0])))]
        if refused and not self.allow_private:
            raise ProbeRefused(f"{host} resolves to {refused[0][0]}, {refused[0][1]} (give "
                               "--allow-private to probe an agent on your own network)")
        self._pinned[key] = addrs[0]
        return addrs[0]


class GuardedTransport(httpx.AsyncBaseTransport):
    """An httpx transport that applies a :class:`Guard` to every request (module docstring).

    Args:
        guard: the limits.
        inner: the transport that sends (default: httpx's own).
    """

    def __init__(self, guard: Guard, inner: httpx.AsyncBaseTransport | None = None) -> None:
        self.guard = guard
        self.inner = inner or httpx.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Admit, pace, pin and send one request (see the module docstring)."""
        g = self.guard
        url = str(request.url)
        why = g.refusal(url)
        if why:
            raise ProbeRefused(why, request=request)
        host = request.url.host.lower()
        extensions = dict(request.extensions)
        target = g.connect_to.get(host)
        if target is not None:
            t = httpx.URL(target)
            new_url = request.url.copy_with(scheme=t.scheme, host=t.host, port=t.port)
        else:
            port = request.url.port or (443 if request.url.scheme == "https" else 80)
            addr = await g.address(host, port)
            new_url = request.url.copy_with(host=addr)
            if request.url.scheme == "https":
                extensions["sni_hostname"] = host
        await g.pace()
        g.sent += 1
        budget = max(min(g.timeout, g.remaining()), 0.1)
        until = time.monotonic() + budget
        late = f"the deadline ({g.deadline:g} s) has passed" if g.remaining() < g.timeout \
            else f"the answer took longer than {budget:g} s (--timeout)"
        extensions["timeout"] = {"connect": budget, "read": budget, "write": budget,
                                 "pool": budget}
        headers = httpx.Headers(request.headers)
        headers["Accept-Encoding"] = ACCEPT_ENCODING
        sent = httpx.Request(request.method, new_url, headers=headers,
                             stream=request.stream, extensions=extensions)
        try:
            response = await asyncio.wait_for(self.inner.handle_async_request(sent), budget)
        except asyncio.TimeoutError:
            raise ProbeRefused(late, request=request) from None
        codings = _codings(response.headers.get_list("content-encoding", split_commas=True))
        if isinstance(codings, str):
            await response.aclose()
            raise ProbeRefused(codings, request=request)
        kept = [(k, v) for k, v in response.headers.multi_items()
                if k.lower() not in ("content-encoding", "content-length")]
        return httpx.Response(response.status_code, headers=kept,
                              stream=_Capped(response.stream, codings, until, late),
                              extensions=response.extensions, request=request)

    async def aclose(self) -> None:
        """Close the inner transport."""
        await self.inner.aclose()


def _codings(values: list[str]) -> list[str] | str:
    """The content codings of a response, in the order they were applied, or why the
    probe will not read it (one it did not ask for)."""
    out = [v.strip().lower() for v in values if v.strip() and v.strip().lower() != "identity"]
    for c in out:
        if c not in _WBITS:
            return f"the agent answered in the content coding '{c[:40]}', which the probe " \
                   f"did not ask for (it asks for {ACCEPT_ENCODING})"
    if len(out) > 2:
        return "the agent answered with more than two content codings"
    return out


def _too_large() -> ProbeRefused:
    return ProbeRefused(f"the answer is larger than {MAX_RESPONSE // 1024} KiB")


class _Decoder:
    """One content coding, decoded a bounded piece at a time (see the module docstring)."""

    def __init__(self, coding: str) -> None:
        self.coding = coding
        self.z = zlib.decompressobj(_WBITS[coding])
        self.first = True
        self.seen = 0

    def feed(self, data: bytes) -> Iterator[bytes]:
        """Decode ``data``, a piece of at most :data:`_PIECE` bytes at a time.

        Raises:
            ProbeRefused: more than :data:`MAX_RESPONSE` bytes decoded in all; a broken
                coding.
        """
        while data:
            try:
                piece = self.z.decompress(data, _PIECE)
            except zlib.error as exc:
                if self.first and self.coding == "deflate":  # a raw deflate stream
                    self.z, self.first = zlib.decompressobj(-zlib.MAX_WBITS), False
                    continue
                raise ProbeRefused(f"the answer's {self.coding} coding is broken "
                                   f"({exc})") from None
            self.first = False
            self.seen += len(piece)
            if self.seen > MAX_RESPONSE:
                raise _too_large()
            if piece:
                yield piece
            data = self.z.unconsumed_tail
            if self.z.eof:
                return


def _through(decoder: _Decoder, pieces: Iterable[bytes]) -> Iterator[bytes]:
    for data in pieces:
        yield from decoder.feed(data)


class _Capped(httpx.AsyncByteStream):
    """A response body, decoded and bounded: at most :data:`MAX_RESPONSE` bytes once
    decoded (and at each decoding step), and no later than ``until`` (a hostile agent's
    endless, inflating or trickling answer is refused, not read; ``late`` says why)."""

    def __init__(self, stream: httpx.SyncByteStream | httpx.AsyncByteStream,
                 codings: list[str] | None = None, until: float | None = None,
                 late: str = "the answer took too long") -> None:
        self.stream = stream
        # content codings are undone in the reverse of the order they were applied
        self.decoders = [_Decoder(c) for c in reversed(codings or [])]
        self.until, self.late = until, late
        self.seen = 0

    def _decode(self, chunk: bytes) -> Iterator[bytes]:
        pieces: Iterable[bytes] = [chunk]
        for d in self.decoders:
            pieces = _through(d, pieces)
        for p in pieces:
            self.seen += len(p)
            if self.seen > MAX_RESPONSE:
                raise _too_large()
            yield p

    async def _next(self, it: AsyncIterator[bytes]) -> bytes | None:
        if self.until is None:
            return await anext(it, None)
        left = self.until - time.monotonic()
        if left <= 0:
            raise ProbeRefused(self.late)
        try:
            return await asyncio.wait_for(anext(it, None), left)
        except asyncio.TimeoutError:
            raise ProbeRefused(self.late) from None

    async def __aiter__(self) -> AsyncIterator[bytes]:
        assert isinstance(self.stream, httpx.AsyncByteStream)
        it = aiter(self.stream)
        while (chunk := await self._next(it)) is not None:
            for piece in self._decode(chunk):
                yield piece

    async def aclose(self) -> None:
        if isinstance(self.stream, httpx.AsyncByteStream):
            await self.stream.aclose()
