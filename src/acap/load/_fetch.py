"""Fetching cards and key sets over HTTPS: every fetch judged before it is made.

``acap check URL`` and ``acap verify URL`` run on addresses anyone submits, so a
fetch is a hostile server's chance to reach what it should not. :func:`fetch`
therefore:

* judges every URL before it is requested, the first and each redirect hop
  (:func:`url_problem`): https only (plain http only to loopback, and only with
  ``allow_private``: ``acap serve`` previews and tests); never from https down to
  http; optionally on one origin (``same_origin``: a ``jku`` stays on the card's
  origin, A2A §8.4.3, also after redirects); at most :data:`MAX_REDIRECTS` hops;
* resolves the host name itself and refuses private, loopback, link-local and
  other non-global addresses (RFC 6890), also inside an IPv6 address that carries
  one (:func:`address_refusal`), unless ``allow_private`` is given, then
  connects to the very address it judged (no second lookup a DNS answer could
  change in between);
* keeps one deadline for the whole fetch, every hop and every byte included (a
  server that sends a byte every few seconds is cut off at the deadline: a
  watchdog closes the socket), and a size limit;
* reads nothing of a response it refuses (a redirect's body is never read).

``urllib`` follows redirects before anyone can judge them, hence ``http.client``
here with the redirects handled by hand (RFC 9110 §15.4).
"""

from __future__ import annotations

import contextlib
import http.client
import ipaddress
import socket
import ssl
import threading
import time
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from email.message import Message
from urllib.parse import urljoin, urlsplit

from acap._package import __version__
from acap.errors import FetchError
from acap.load._shown import shorten

DEFAULT_TIMEOUT = 10.0
#: Agent Cards and JWKS are a few kilobytes; larger answers are refused.
DEFAULT_MAX_BYTES = 1024 * 1024
#: Redirects followed at most, per fetch.
MAX_REDIRECTS = 5
LOOPBACK = {"localhost", "127.0.0.1", "::1"}
_REDIRECTS = (301, 302, 303, 307, 308)
_PRIVATE_HINT = ("acap does not fetch private, loopback or link-local addresses: they are "
                 "the machine's and its network's, not the Web's (give --allow-private to "
                 "check a local test server)")
#: The hint of a refused address: a card on the Web is on a public address.
PRIVATE_FETCH_HINT = ("a card on the Web is on a public address; --allow-private exists only "
                      "for checking your own test server on this machine or its network")
#: What the server should do about each refusal, by cause (the hints of FetchError).
_SIZE_HINT = ("an Agent Card or a JWKS is a few kilobytes: check that the URL names the card "
              "itself, not a page or a download")
_LOOP_HINT = ("the server's redirects go round in a circle: fix them on the server, or give "
              "the address the card is served at")
_CHAIN_HINT = ("give the address the redirects end at, or make the server redirect there "
               "at once")


#: IPv6 prefixes whose addresses carry an IPv4 address in their last 32 bits: IPv4-compatible
#: (``::a.b.c.d``, RFC 4291 §2.5.5.1), IPv4-translated (``::ffff:0:a.b.c.d``, RFC 2765 §2.1)
#: and the NAT64 well-known prefix (``64:ff9b::a.b.c.d``, RFC 6052 §2.1).
_LAST_32 = tuple(ipaddress.IPv6Network(n) for n in ("::/96", "::ffff:0:0:0/96", "64:ff9b::/96"))
#: The NAT64 local-use prefix (RFC 8215): not globally reachable (IANA's special-purpose
#: registry), whichever RFC 6052 §2.2 layout a network gives the IPv4 address inside it.
_NAT64_LOCAL = ipaddress.IPv6Network("64:ff9b:1::/48")


def embedded_ipv4(ip: ipaddress.IPv4Address | ipaddress.IPv6Address,
                  ) -> tuple[ipaddress.IPv4Address, ...]:
    """The IPv4 addresses an IPv6 address carries, by where a packet sent to it goes: the
    last 32 bits of an IPv4-mapped, IPv4-compatible, IPv4-translated or NAT64 address
    (RFC 4291 §2.5.5, RFC 2765, RFC 6052 §2.2 with a /96 prefix), the 6to4 router of a
    ``2002::/16`` address (RFC 3056 §2), and both the server and the client of a Teredo
    ``2001::/32`` address (RFC 4380 §4). ``()`` for an IPv4 address or any other IPv6 one.
    For ``64:ff9b:1::/48`` the last 32 bits and the /48 layout (bits 48-63 and 72-87).
    """
    if isinstance(ip, ipaddress.IPv4Address):
        return ()
    if ip.ipv4_mapped is not None:
        return (ip.ipv4_mapped,)
    value = int(ip)
    found = [ipaddress.IPv4Address(value & 0xFFFFFFFF)
             for net in (*_LAST_32, _NAT64_LOCAL) if ip in net and ip not in _ZERO_OR_ONE]
    if ip in _NAT64_LOCAL:  # RFC 6052 §2.2, prefix length 48: the u octet (bits 64-71) skipped
        found.append(ipaddress.IPv4Address(((value >> 64) & 0xFFFF) << 16
                                           | (value >> 40) & 0xFFFF))
    if ip.sixtofour is not None:
        found.append(ip.sixtofour)
    if ip.teredo is not None:
        found.extend(ip.teredo)
    return tuple(found)


#: ``::`` and ``::1``: inside ``::/96`` but the unspecified and loopback addresses themselves.
_ZERO_OR_ONE = (ipaddress.IPv6Address("::"), ipaddress.IPv6Address("::1"))


def address_refusal(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str | None:
    """Why acap sends nothing to ``ip``, in plain words (``"a loopback address"``), or
    ``None`` for a global unicast address it may reach.

    Refused: what is not global (private, loopback, link-local, shared, reserved,
    unspecified: the IANA special-purpose registries, RFC 6890) and multicast, judged both
    on the address and on every IPv4 address it carries (:func:`embedded_ipv4`), so that
    ``::ffff:127.0.0.1``, ``::127.0.0.1``, ``64:ff9b::7f00:1`` or ``2002:7f00:1::`` are
    refused as the loopback address they lead to. The one judgement of the fetches
    (:func:`fetch`) and of the probe's guard (:mod:`acap.agent._probe_net`).
    """
    inner = [(kind, each) for each in embedded_ipv4(ip) if (kind := _kind(each))]
    if inner:  # the most telling, where layouts disagree (64:ff9b:1::/48)
        kind, each = min(inner, key=lambda k: _KINDS.index(k[0]))
        return f"{kind} address ({each} inside it)"
    mapped = isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None
    kind = None if mapped else _kind(ip)
    return kind and f"{kind} address"


_KINDS = ("a loopback", "a link-local", "a multicast", "a private", "a reserved (not public)")


def _kind(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str | None:
    """Which refused kind ``ip`` is, as itself (``"a private"``), or ``None``."""
    if ip.is_global and not ip.is_multicast and ip not in _NAT64_LOCAL:
        return None
    if ip.is_loopback:
        return "a loopback"
    if ip.is_link_local:
        return "a link-local"
    if ip.is_multicast:
        return "a multicast"
    return "a private" if ip.is_private else "a reserved (not public)"


@dataclass
class Response:
    """An HTTP answer.

    Attributes:
        url: the URL finally fetched (after redirects).
        status: HTTP status code.
        headers: response headers (case-insensitive lookups via ``get``).
        body: the body bytes (at most the size limit).
    """

    url: str
    status: int
    headers: Message = field(default_factory=Message)
    body: bytes = b""


def url_problem(url: str, *, allow_private: bool = False) -> str | None:
    """Why acap will not fetch ``url``, in plain words; ``None`` when it may (as far as
    the text of the URL tells: its addresses are judged when it is fetched).

    Refused: text with spaces or control characters (never part of a URL, RFC 3986
    §2), text ``urlsplit`` cannot read (``https://[::1/x``, a port that is not a
    number), schemes other than https (http only to loopback, with
    ``allow_private``), URLs without a host, and, without ``allow_private``, a host
    that is a private, loopback or link-local address or ``localhost``.
    """
    if any(c.isspace() or unicodedata.category(c)[0] == "C" for c in url):
        return "it is not a URL: it holds a space or a control character"
    try:
        u = urlsplit(url)
        host = (u.hostname or "").lower()
        u.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError:
        return "it is not a valid URL (check the host name, brackets and port)"
    if u.scheme not in ("https", "http"):
        return "only https URLs are fetched"
    if not host:
        return "it is not a valid URL: it names no host"
    if u.scheme == "http" and not (allow_private and host in LOOPBACK):
        return ("only https URLs are fetched (plain http only to a local preview, "
                "with --allow-private)")
    if not allow_private and (host == "localhost" or host.endswith(".localhost")):
        return f"its host {shorten(host, 80)} is this machine (loopback): {_PRIVATE_HINT}"
    refusal = None if allow_private else _literal_refusal(host)
    if refusal:
        return f"its host {shorten(host, 80)} is {refusal}: {_PRIVATE_HINT}"
    return None


def _literal_refusal(host: str) -> str | None:
    """:func:`address_refusal` of a host that is an IP address literal; ``None`` for a name."""
    try:
        return address_refusal(ipaddress.ip_address(host.split("%", 1)[0]))
    except ValueError:
        return None


def local_http_hint(url: str) -> str:
    """The hint for a plain http ``url`` on this machine (``http://127.0.0.1:8000/...``,
    a preview or an agent being developed) refused without ``--allow-private``: how to
    read it from there, and how to check it as it will be served (``--connect-to``)."""
    u = urlsplit(url)  # the caller judged it: url_problem read it without an error
    here = shorten(f"http://{u.netloc}", 80)
    path = shorten(u.path or "/", 80)
    return (f"a server on this machine (acap serve, an agent you are developing): add "
            f"--allow-private to read it from {here}, or check it as it will be served: "
            f"acap verify https://HOST{path} --connect-to HOST={here}")


def allowed_url(url: str, *, allow_private: bool = False) -> bool:
    """True when :func:`url_problem` has nothing against ``url``; never raises."""
    return url_problem(url, allow_private=allow_private) is None


def origin(url: str) -> str | None:
    """``scheme://host[:port]`` of a URL, lower-cased (RFC 6454 §4, the default port
    left out); ``None`` when it is not a URL."""
    try:
        u = urlsplit(url)
        port = u.port
    except ValueError:
        return None
    if not u.scheme or not u.hostname:
        return None
    default = {"https": 443, "http": 80}.get(u.scheme.lower())
    shown = f":{port}" if port is not None and port != default else ""
    return f"{u.scheme.lower()}://{u.hostname.lower()}{shown}"


def _plain_reason(exc: BaseException, timeout: float) -> str:
    """A network failure in plain words (no ``[Errno -2]``), without the URL."""
    if isinstance(exc, socket.gaierror):
        return "the host name was not found (DNS)"
    if isinstance(exc, (TimeoutError, socket.timeout)):
        return f"no complete answer within {timeout:g} seconds (timed out)"
    if isinstance(exc, ConnectionRefusedError):
        return "the server refused the connection"
    if isinstance(exc, ConnectionResetError):
        return "the server closed the connection"
    if isinstance(exc, ssl.SSLCertVerificationError):
        return f"its TLS certificate is not valid ({exc.verify_message or 'not trusted'})"
    if isinstance(exc, ssl.SSLError):
        return "the TLS (https) connection failed"
    if isinstance(exc, http.client.InvalidURL):
        return "it is not a valid URL"
    if isinstance(exc, http.client.IncompleteRead):
        return "the server closed the connection before the whole answer"
    if isinstance(exc, http.client.HTTPException):
        return "the server's answer is not valid HTTP"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror[:1].lower() + exc.strerror[1:]
    if isinstance(exc, UnicodeError):  # IDNA: a label longer than 63 characters ...
        return "it is not a valid host name"
    return "it could not be fetched"


def _failure_hint(exc: BaseException, url: str, timeout: float) -> str:
    """What to do about a network failure of :func:`_plain_reason`, by its cause."""
    try:
        u = urlsplit(url)
        host, port = u.hostname or "the host", u.port
    except ValueError:
        host, port = "the host", None
    if isinstance(exc, socket.gaierror):
        return (f"check the spelling of {host}; a domain registered in the last hours may "
                "not be found yet")
    if isinstance(exc, (TimeoutError, socket.timeout)):
        unit = "second" if timeout == 1 else "seconds"
        return (f"acap waits {timeout:g} {unit} for the whole answer: check that the site "
                "is up and answers quickly, or try again later")
    if isinstance(exc, ConnectionRefusedError):
        shown = f" on port {port}" if port else ""
        return f"nothing answers at {host}{shown}: check the port in the URL and that the " \
            "server is running"
    if isinstance(exc, ssl.SSLCertVerificationError):
        return (f"the server needs a certificate for {host} from a certificate authority "
                "browsers trust (such as Let's Encrypt), not expired and with the whole "
                "chain; open the URL in a browser to see the fault")
    if isinstance(exc, ssl.SSLError):
        return ("the server must answer https (TLS 1.2 or later) on this port: check that "
                "the URL's port is the https one")
    if isinstance(exc, (http.client.InvalidURL, UnicodeError)):
        return "check the URL"
    return "check the URL and that the site is up"


class _Deadline:
    """One deadline for a whole fetch: seconds left, and a watchdog that shuts the
    current socket at the deadline (a read waiting on a slow server ends then)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.end = time.monotonic() + seconds
        self.sock: socket.socket | None = None
        self.expired = False
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True
        self._timer.start()

    def left(self) -> float:
        left = self.end - time.monotonic()
        if left <= 0:
            self.expired = True
            raise TimeoutError("deadline")
        return left

    def watch(self, sock: socket.socket | None) -> None:
        with self._lock:
            self.sock = sock
            if self.expired and sock is not None:
                self._shut(sock)

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            if self.sock is not None:
                self._shut(self.sock)

    @staticmethod
    def _shut(sock: socket.socket) -> None:
        with contextlib.suppress(OSError):  # already closed
            sock.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        self._timer.cancel()


def _resolve(host: str, port: int, deadline: _Deadline) -> list[str]:
    """Every address of ``host`` (DNS, within the deadline)."""
    out: list[str] = []
    failure: list[BaseException] = []

    def lookup() -> None:
        try:
            infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
            out.extend(dict.fromkeys(str(i[4][0]) for i in infos))
        except (OSError, UnicodeError) as exc:
            failure.append(exc)

    worker = threading.Thread(target=lookup, daemon=True)
    worker.start()
    worker.join(deadline.left())
    if worker.is_alive():
        raise TimeoutError("deadline")
    if failure:
        raise failure[0]
    if not out:
        raise socket.gaierror("no address")
    return out


class _Connection(http.client.HTTPSConnection):
    """An HTTP(S) connection to one judged address, with TLS verified for the host name
    (``http.client`` would look the name up again)."""

    def __init__(self, host: str, port: int, address: str, tls: bool,
                 deadline: _Deadline) -> None:
        self._tls_context = ssl.create_default_context() if tls else None
        super().__init__(host, port, timeout=deadline.left(), context=self._tls_context)
        self._address, self._deadline = address, deadline

    def connect(self) -> None:
        raw = socket.create_connection((self._address, self.port), self._deadline.left())
        self._deadline.watch(raw)
        ctx = self._tls_context
        self.sock = ctx.wrap_socket(raw, server_hostname=self.host) if ctx else raw


def _one_request(url: str, address: str, headers: dict[str, str], deadline: _Deadline,
                 max_bytes: int) -> Response:
    u = urlsplit(url)
    tls = u.scheme == "https"
    port = u.port or (443 if tls else 80)
    conn = _Connection(u.hostname or "", port, address, tls, deadline)
    try:
        path = (u.path or "/") + (f"?{u.query}" if u.query else "")
        conn.request("GET", path, headers=headers)
        resp = conn.getresponse()
        if resp.status in _REDIRECTS:  # judged before anything more is read
            return Response(url, resp.status, resp.headers, b"")
        _refuse_compressed(url, resp.status, resp.getheader("Content-Encoding"))
        length = resp.getheader("Content-Length")
        if length and length.strip().isdigit() and int(length) > max_bytes:
            raise FetchError(url, f"the answer is {int(length):,} bytes (its Content-Length); "
                             f"acap reads at most {_size(max_bytes)}", _SIZE_HINT)
        chunks: list[bytes] = []
        size = 0
        while size <= max_bytes:
            if conn.sock is not None:
                conn.sock.settimeout(deadline.left())
            chunk = resp.read1(min(65536, max_bytes + 1 - size)) if size <= max_bytes else b""
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if deadline.expired:
            raise TimeoutError("deadline")
        body = b"".join(chunks)
        if len(body) > max_bytes:
            raise FetchError(url, f"the answer is larger than {_size(max_bytes)}, the most "
                             "acap reads (it stopped reading there)", _SIZE_HINT)
        return Response(url, resp.status, resp.headers, body)
    finally:
        conn.close()


def _size(n: int) -> str:
    """A size limit in words: ``1 MiB (1,048,576 bytes)``, ``1 KiB (1,024 bytes)``."""
    for unit, factor in (("MiB", 1024 * 1024), ("KiB", 1024)):
        if n >= factor and n % factor == 0:
            return f"{n // factor} {unit} ({n:,} bytes)"
    return f"{n:,} bytes"


def _refuse_compressed(url: str, status: int, encoding: str | None) -> None:
    """A successful answer in a Content-Encoding although the request asked for
    ``identity`` (``http.client`` sends ``Accept-Encoding: identity``; RFC 9110
    §12.5.3): refused before its body is read. acap does not decompress it: a few
    kilobytes of gzip can unpack to gigabytes (a decompression bomb), and a client that
    reads only what it asked for sees the same thing here as there.

    Raises:
        FetchError: naming the encoding, with the fix (serve the file uncompressed).
    """
    coding = (encoding or "").strip()
    if not 200 <= status < 300 or coding.lower() in ("", "identity"):
        return
    name = urlsplit(url).path.rsplit("/", 1)[-1] or "the file"
    raise FetchError(url, f"the server sent it compressed (Content-Encoding: "
                     f"{shorten(coding, 40)}) although acap asked for it uncompressed",
                     f"serve {shorten(name, 60)} without compression (switch off gzip or brotli "
                     "for it in the server's settings)")


def fetch(url: str, *, timeout: float = DEFAULT_TIMEOUT, max_bytes: int = DEFAULT_MAX_BYTES,
          accept: str = "application/json",
          request_headers: Mapping[str, str] | None = None, allow_private: bool = False,
          same_origin: bool = False, connect_to: Mapping[str, str] | None = None) -> Response:
    """GET ``url``, judging every hop before it is requested (see the module docstring).

    Args:
        url: https (http only to loopback, with ``allow_private``).
        timeout: seconds for the whole fetch: every redirect, every byte.
        max_bytes: the body may not be longer.
        request_headers: more request headers.
        allow_private: fetch private, loopback and link-local addresses too (tests,
            previews of ``acap serve``).
        same_origin: every redirect must stay on the origin of ``url`` (a ``jku``).
        connect_to: ``{host: "http://127.0.0.1:8000"}``: requests for that host go to
            that address instead, with the host's name in ``Host`` (like curl's
            ``--connect-to``). The address is the user's own choice: it is not judged
            as private; the URLs (and every redirect) still are.

    Returns:
        The :class:`Response`, whatever its status (4xx/5xx included); its ``url`` is
        the URL of the last hop.

    Raises:
        FetchError: a refused or malformed URL or redirect, a private address, a
            network failure, the deadline, an answer that is not HTTP, or a body over
            ``max_bytes``. Nothing else escapes for any ``url``.
    """
    routes = {k.lower(): v for k, v in (connect_to or {}).items()}
    deadline = _Deadline(timeout)
    first = origin(url)
    current = url
    seen = [url]
    try:
        for hop in range(MAX_REDIRECTS + 1):
            resp = _hop(url, current, hop, first, routes, deadline, max_bytes, accept,
                        request_headers, allow_private, same_origin)
            location = resp.headers.get("Location") if resp.status in _REDIRECTS else None
            if not location:
                return resp
            nxt = urljoin(current, location.strip())
            if urlsplit(current).scheme == "https" and urlsplit(nxt).scheme == "http":
                raise FetchError(url, f"it redirects to {_shown(nxt)}, which is not https",
                                 "a card is fetched over https only, redirects included: make "
                                 "the server redirect to the https address")
            if nxt in seen:
                back = "itself" if nxt == current else _shown(nxt)
                raise FetchError(url, f"it redirects in a loop: {_shown(current)} leads back "
                                 f"to {back}", _LOOP_HINT)
            seen.append(nxt)
            current = nxt
        raise FetchError(url, f"it redirects more than {MAX_REDIRECTS} times", _CHAIN_HINT)
    except FetchError:
        raise
    except (OSError, ValueError, http.client.HTTPException) as exc:
        if deadline.expired or isinstance(exc, TimeoutError):
            raise FetchError(url, _plain_reason(TimeoutError(), timeout),
                             _failure_hint(TimeoutError(), current, timeout)) from exc
        raise FetchError(url, _plain_reason(exc, timeout),
                         _failure_hint(exc, current, timeout)) from exc
    finally:
        deadline.close()


def _shown(url: str) -> str:

    return shorten(url)


def _hop(start: str, url: str, hop: int, first: str | None, routes: Mapping[str, str],
         deadline: _Deadline, max_bytes: int, accept: str,
         request_headers: Mapping[str, str] | None, allow_private: bool,
         same_origin: bool) -> Response:
    """One request of :func:`fetch`, after judging its URL and its addresses."""
    u = urlsplit(url) if url_problem(url, allow_private=True) is None else None
    host = (u.hostname or "").lower() if u else ""
    routed = routes.get(host)
    problem = url_problem(url, allow_private=allow_private or routed is not None)
    if problem is None and same_origin and hop and origin(url) != first:
        problem = "which is on another origin; it must stay on " + str(first)
    if problem:
        hint = PRIVATE_FETCH_HINT if _PRIVATE_HINT in problem else None
        if u is not None and u.scheme == "http" and host in LOOPBACK and not allow_private:
            hint = local_http_hint(url)
        if not hop:
            raise FetchError(start, problem, hint)
        if not problem.startswith("which"):
            problem = "which is refused: " + problem
        elif same_origin:
            hint = ("a jku stays on the card's origin, redirects included (A2A §8.4.3): "
                    "publish the JWKS there")
        raise FetchError(start, f"it redirects to {_shown(url)}, {problem}",
                         hint or "make the server redirect to an https address on the Web")
    assert u is not None
    headers = {"Accept": accept, "User-Agent": f"acap/{__version__}",
               **(request_headers or {})}
    if routed is not None:
        r = urlsplit(routed)
        if r.scheme not in ("http", "https") or not r.hostname:
            raise FetchError(start, f"--connect-to {host}={routed} is not an http(s) address")
        headers["Host"] = u.netloc
        target = f"{r.scheme}://{r.netloc}{u.path or '/'}" + (f"?{u.query}" if u.query else "")
        addresses = _resolve(r.hostname, r.port or 0, deadline)
        resp = _one_request(target, addresses[0], headers, deadline, max_bytes)
        resp.url = url
        return resp
    addresses = _resolve(u.hostname or "", u.port or 0, deadline)
    if not allow_private:
        refused = [(a, why) for a in addresses
                   if (why := address_refusal(ipaddress.ip_address(a.split("%", 1)[0])))]
        if refused:
            why = (f"its host name {shorten(host, 80)} leads to {refused[0][0]}, "
                   f"{refused[0][1]} (private or loopback addresses are the machine's and "
                   "its network's, not the Web's)")
            raise FetchError(start, why if not hop else
                             f"it redirects to {_shown(url)}, which is refused: {why}",
                             PRIVATE_FETCH_HINT)
    return _one_request(url, addresses[0], headers, deadline, max_bytes)
