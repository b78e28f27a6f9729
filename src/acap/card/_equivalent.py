"""When two addresses are the same address: URLs by RFC 3986 §6.2.2 and §6.2.3, ``tel:``
URIs by RFC 3966 §4. Every comparison of one address with another goes through here
(a reply's personEntry with the card's, OR-6.1; a personEntry's origin with the
operator's own, OR-3.4; a ``jku`` with the card's origin), so that
``HTTPS://ASK.EXAMPLE.COM:443/talk`` is the card's ``https://ask.example.com/talk`` and
``tel:+1.201.555.0123;EXT=42`` its ``tel:+1-201-555-0123;ext=42`` everywhere.

Own code, on purpose: ``url-normalize`` (3.x) needs Python 3.11 (acap runs on 3.10) and
goes beyond the RFC's equivalence (it strips white space and a host's final dot, drops an
empty query, maps Unicode hosts by UTS 46), calling equal what RFC 3986 does not;
``rfc3986`` normalises case and dot segments but neither unreserved percent-encodings
nor default ports; ``phonenumbers`` drops a ``tel:`` URI's parameters other than
``ext``. The RFCs' rules fit in the few lines below.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: RFC 3986 Appendix B: the regular expression that splits any URI reference.
_URI = re.compile(r"^(?:([^:/?#]+):)?(?://([^/?#]*))?([^?#]*)(?:(\?)([^#]*))?(?:(#)(.*))?$",
                  re.DOTALL)
#: RFC 3986 §2.3: unreserved characters (decoded where they are percent-encoded).
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")
#: RFC 3986 §6.2.3: the default port of each scheme acap compares.
DEFAULT_PORTS = {"http": "80", "https": "443", "ws": "80", "wss": "443"}
#: RFC 3966 §3: visual separators, ignored when numbers are compared.
_VISUAL = re.compile(r"[-.()]")


def _escapes(text: str) -> str:
    """RFC 3986 §6.2.2.1 and §6.2.2.2: an escape of an unreserved character decoded, every
    other escape in upper case."""
    def one(m: re.Match[str]) -> str:
        ch = chr(int(m.group(1), 16))
        return ch if ch in _UNRESERVED else f"%{m.group(1).upper()}"

    return _ESCAPE.sub(one, text)


def _dot_segments(path: str) -> str:
    """RFC 3986 §5.2.4 remove_dot_segments (§6.2.2.3)."""
    out: list[str] = []
    rest = path
    while rest:
        if rest.startswith(("../", "./")):
            rest = rest[rest.index("/") + 1:]
        elif rest.startswith("/./") or rest == "/.":
            rest = "/" + rest[3:]
        elif rest.startswith("/../") or rest == "/..":
            rest = "/" + rest[4:]
            if out:
                out.pop()
        elif rest in (".", ".."):
            rest = ""
        else:
            cut = rest.find("/", 1)
            cut = len(rest) if cut < 0 else cut
            out.append(rest[:cut])
            rest = rest[cut:]
    return "".join(out)


def _authority(authority: str, scheme: str) -> str:
    """User information as written (escapes normalised), the host in lower case
    (§6.2.2.1), the port without its default and without an empty ``:`` (§6.2.3)."""
    userinfo, at, hostport = authority.rpartition("@")
    if hostport.startswith("["):
        host, _, port = hostport.partition("]")
        host += "]"
        port = port.removeprefix(":")
    else:
        host, _, port = hostport.partition(":")
    if port == DEFAULT_PORTS.get(scheme):
        port = ""
    return _escapes(userinfo) + at + _escapes(host).lower() + (f":{port}" if port else "")


def normal_url(url: str) -> str:
    """``url`` in RFC 3986 normal form: scheme and host in lower case, escapes of
    unreserved characters decoded and the others in upper case, dot segments removed,
    no default port, ``/`` for an empty path with an authority. An empty query or
    fragment stays (``https://a.example/x?`` is not ``https://a.example/x``, §6.2.3).

    Args:
        url: any URI reference (a ``tel:`` URI is better compared by :func:`same_tel`).
    """
    m = _URI.match(url)
    if m is None:  # pragma: no cover - the expression matches every string
        return url
    scheme, authority, path, q, query, h, fragment = m.groups()
    scheme = (scheme or "").lower()
    out = f"{scheme}:" if scheme else ""
    if authority is not None:
        out += "//" + _authority(authority, scheme)
    path = _dot_segments(_escapes(path)) if scheme else _escapes(path)
    if authority is not None and not path and scheme in DEFAULT_PORTS:
        path = "/"
    out += path
    out += f"?{_escapes(query)}" if q else ""
    out += f"#{_escapes(fragment)}" if h else ""
    return out


@dataclass(frozen=True)
class Tel:
    """A ``tel:`` URI as RFC 3966 §4 compares it.

    Attributes:
        number: the digits (with a leading ``+`` for a global number), visual separators
            removed, in lower case (a local number may hold letters ``*#`` and digits).
        params: ``(name, value)`` of each parameter, names and values in lower case, an
            ``ext`` or ``phone-context`` number without visual separators, sorted (their
            order does not matter).
    """

    number: str
    params: tuple[tuple[str, str], ...]


def parse_tel(uri: str) -> Tel | None:
    """``uri`` as RFC 3966 §4 compares it, or ``None`` when it is no ``tel:`` URI."""
    if uri[:4].lower() != "tel:" or not uri[4:]:
        return None
    number, *params = uri[4:].split(";")
    pairs = []
    for p in params:
        name, _, value = p.partition("=")
        name, value = name.lower(), _escapes(value).lower()
        if name == "ext" or (name == "phone-context" and value.startswith("+")):
            value = _VISUAL.sub("", value)  # a number: its separators are only visual
        pairs.append((name, value))
    return Tel(_VISUAL.sub("", _escapes(number)).lower(), tuple(sorted(pairs)))


def same_tel(a: str, b: str) -> bool:
    """True when two ``tel:`` URIs are equal by RFC 3966 §4: the same number once visual
    separators are removed, the same parameters in any order, case ignored."""
    ta, tb = parse_tel(a), parse_tel(b)
    return ta is not None and ta == tb


def same_address(a: str, b: str) -> bool:
    """True when ``a`` and ``b`` are the same address: equal ``tel:`` URIs (RFC 3966 §4),
    or URLs equal in RFC 3986 normal form (:func:`normal_url`)."""
    if a == b:
        return True
    if a[:4].lower() == "tel:" or b[:4].lower() == "tel:":
        return same_tel(a, b)
    return normal_url(a) == normal_url(b)


def origin_of(url: str) -> str | None:
    """The origin of an absolute URL in normal form (``https://ask.example.com`` for
    ``HTTPS://Ask.Example.com:443/talk``), or ``None`` when it has no scheme or host."""
    m = _URI.match(url)
    if m is None or not m.group(1) or not m.group(2):
        return None
    scheme = m.group(1).lower()
    hostport = _authority(m.group(2), scheme).rpartition("@")[2]
    return f"{scheme}://{hostport}" if hostport else None
