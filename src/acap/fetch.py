"""Fetching cards and key sets over HTTPS: always with a timeout and a size limit.

Standard library only (``urllib``), so nothing more is imported than a fetch
needs. Plain ``http`` is accepted for ``localhost`` and loopback addresses
only (previews with ``acap serve`` and tests).
"""

from __future__ import annotations

import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field
from email.message import Message
from urllib.parse import urlsplit

from . import __version__

DEFAULT_TIMEOUT = 10.0
#: Agent Cards and JWKS are a few kilobytes; larger answers are refused.
DEFAULT_MAX_BYTES = 1024 * 1024
LOOPBACK = {"localhost", "127.0.0.1", "::1"}


class FetchError(Exception):
    """A fetch failed. ``str()`` is a sentence naming the URL and the reason."""


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


def allowed_url(url: str) -> bool:
    """True for https URLs, and http URLs on localhost/loopback."""
    u = urlsplit(url)
    return u.scheme == "https" or (u.scheme == "http" and (u.hostname or "") in LOOPBACK)


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
        FetchError: a refused scheme, a network failure, a timeout, or a body
            over ``max_bytes``.
    """
    if not allowed_url(url):
        raise FetchError(f"{url}: only https URLs are fetched (http only on localhost)")
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
    except (urllib.error.URLError, TimeoutError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        raise FetchError(f"{url}: {reason}") from exc
    if len(body) > max_bytes:
        raise FetchError(f"{url}: the answer is larger than {max_bytes // 1024} KiB")
    if not allowed_url(final):
        raise FetchError(f"{url}: redirected to {final}, which is not https")
    return Response(final, status, headers, body)
