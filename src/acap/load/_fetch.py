"""Fetching cards and key sets over HTTPS: always with a timeout and a size limit.

Standard library only (``urllib``), so nothing more is imported than a fetch
needs. Plain ``http`` is accepted for ``localhost`` and loopback addresses
only (previews with ``acap serve`` and tests).
"""

from __future__ import annotations

import http.client
import socket
import ssl
import unicodedata
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field
from email.message import Message
from urllib.parse import urlsplit

from acap._package import __version__
from acap.errors import FetchError

DEFAULT_TIMEOUT = 10.0
#: Agent Cards and JWKS are a few kilobytes; larger answers are refused.
DEFAULT_MAX_BYTES = 1024 * 1024
LOOPBACK = {"localhost", "127.0.0.1", "::1"}


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


def url_problem(url: str) -> str | None:
    """Why acap will not fetch ``url``, in plain words; ``None`` when it may.

    Refused: text with spaces or control characters (``http.client`` raises
    ``InvalidURL`` for them, and they are never part of a URL, RFC 3986 §2),
    text ``urlsplit`` cannot read (``https://[::1/x``, a port that is not a
    number), schemes other than https (http only on localhost and loopback,
    for previews), and URLs without a host.
    """
    if any(c.isspace() or unicodedata.category(c)[0] == "C" for c in url):
        return "it is not a URL: it holds a space or a control character"
    try:
        u = urlsplit(url)
        host = u.hostname or ""
        u.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError:
        return "it is not a valid URL (check the host name, brackets and port)"
    if u.scheme == "https" or (u.scheme == "http" and host in LOOPBACK):
        return None if host else "it is not a valid URL: it names no host"
    return "only https URLs are fetched (http only on localhost)"


def allowed_url(url: str) -> bool:
    """True for https URLs, and http URLs on localhost/loopback; never raises."""
    return url_problem(url) is None


def _plain_reason(exc: BaseException, timeout: float) -> str:
    """A network failure in plain words (no ``[Errno -2]``), without the URL."""
    reason: object = getattr(exc, "reason", None) if isinstance(exc, urllib.error.URLError) \
        else exc
    if isinstance(reason, str):  # URLError("unknown url type: ...") and the like
        return reason
    if isinstance(reason, socket.gaierror):
        return "the host name was not found (DNS)"
    if isinstance(reason, (TimeoutError, socket.timeout)):
        return f"no answer within {timeout:g} seconds (timed out)"
    if isinstance(reason, ConnectionRefusedError):
        return "the server refused the connection"
    if isinstance(reason, ConnectionResetError):
        return "the server closed the connection"
    if isinstance(reason, ssl.SSLCertVerificationError):
        return f"its TLS certificate is not valid ({reason.verify_message or 'not trusted'})"
    if isinstance(reason, ssl.SSLError):
        return "the TLS (https) connection failed"
    if isinstance(reason, http.client.InvalidURL):
        return "it is not a valid URL"
    if isinstance(reason, http.client.HTTPException):
        return "the server's answer is not valid HTTP"
    if isinstance(reason, OSError) and reason.strerror:
        return reason.strerror[:1].lower() + reason.strerror[1:]
    if isinstance(reason, UnicodeError):  # IDNA: a label longer than 63 characters ...
        return "it is not a valid host name"
    return "it could not be fetched"


def fetch(url: str, *, timeout: float = DEFAULT_TIMEOUT, max_bytes: int = DEFAULT_MAX_BYTES,
          accept: str = "application/json",
          request_headers: Mapping[str, str] | None = None) -> Response:
    """GET ``url``.

    Args:
        url: https (or http on loopback).
        timeout: seconds for connecting and for each read.
        max_bytes: the body may not be longer.
        request_headers: more request headers (e.g. ``Host``, to ask a local preview
            for another host's files).

    Returns:
        The :class:`Response`, whatever its status (4xx/5xx included).

    Raises:
        FetchError: a refused or malformed URL (:func:`url_problem`), a network
            failure, a timeout, an answer that is not HTTP, or a body over
            ``max_bytes``. Nothing else escapes for any ``url``.
    """
    problem = url_problem(url)
    if problem:
        raise FetchError(url, problem)
    req = urllib.request.Request(url, headers={"Accept": accept,
                                               "User-Agent": f"acap/{__version__}",
                                               **(request_headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            body = resp.read(max_bytes + 1)
            status, headers, final = resp.status, resp.headers, resp.geturl()
    except urllib.error.HTTPError as exc:
        body = exc.read(max_bytes + 1) if exc.fp else b""
        status, headers, final = exc.code, exc.headers, exc.geturl() or url
    # http.client raises InvalidURL (not a ValueError) for what url_problem let
    # through, and HTTPException for answers that are not HTTP: both are the
    # input's fault, never a traceback.
    except (urllib.error.URLError, OSError, ValueError, http.client.HTTPException) as exc:
        raise FetchError(url, _plain_reason(exc, timeout)) from exc
    if len(body) > max_bytes:
        raise FetchError(url, f"the answer is larger than {max_bytes // 1024} KiB")
    if not allowed_url(final):
        raise FetchError(url, f"it redirects to {final}, which is not https")
    return Response(final, status, headers, body)
