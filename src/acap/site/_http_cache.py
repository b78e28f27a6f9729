"""HTTP caching of the files acap serves itself (``acap serve``'s preview, an agent's card
and JWKS routes): a strong entity tag of the bytes, and whether a conditional GET's
``If-None-Match`` matches it (RFC 9110 §8.8.3, §13.1.2), so that an A2A client revalidates a
cached card (A2A §8.6.1) with a ``304 Not Modified`` instead of the whole card.

Written here rather than taken from a web framework: the preview is ``http.server`` and
the agent is Starlette, and neither has a conditional-request helper for bytes it holds.
"""

from __future__ import annotations

import hashlib
import re

#: A ``Cache-Control`` max-age in seconds: what GitHub Pages sends (10 minutes), the
#: default of operator.yaml's ``cache.card``; A2A §8.6.1 asks for a max-age.
MAX_AGE = 600
#: One entity-tag of an If-None-Match list, after any separators (RFC 9110 §8.8.3:
#: ``[W/]"etagc*"``; etagc may hold a comma, so the list is read tag by tag, never split on
#: commas; §5.6.1: empty list elements are accepted).
_TAG = re.compile(r'[ \t,]*(W/)?("[\x21\x23-\x7e\x80-\xff]*")[ \t]*(?=,|$)')


def strong_etag(data: bytes) -> str:
    """A strong entity tag of ``data``: ``"`` + the first 32 hex digits of its SHA-256 +
    ``"`` (the same bytes always get the same tag, on every server and restart)."""
    return '"' + hashlib.sha256(data).hexdigest()[:32] + '"'


def not_modified(if_none_match: str | None, etag: str) -> bool:
    """True when a GET with this ``If-None-Match`` header value is answered ``304``: the
    header is ``*`` or lists ``etag``, compared weakly (``W/"x"`` matches ``"x"``, RFC 9110
    §13.1.2). ``None``, an empty value or one that is not a list of entity tags: False (the
    whole answer is sent, as if the header were absent)."""
    value = (if_none_match or "").strip(" \t,")
    if value == "*":
        return True
    tags, at = [], 0
    while at < len(value):
        m = _TAG.match(value, at)
        if m is None:
            return False
        tags.append(m.group(2))
        at = m.end()
    return etag.removeprefix("W/") in tags
