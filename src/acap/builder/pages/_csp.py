"""The Content-Security-Policy of acap's pages (OR-3.8: the same for everyone, nothing
from elsewhere). Separate from :mod:`acap.builder.pages._audit`, which parses HTML and is
only needed when an operator's own templates are rendered."""

from __future__ import annotations

import base64
import hashlib

#: The policy of every page: nothing but its own inline style (by hash) and
#: same-origin images; no script, no frame, no form target, no base change.
CSP_TEMPLATE = ("default-src 'none'; style-src {styles}; img-src 'self'; "
                "base-uri 'none'; form-action 'none'")


def style_hash(css: str) -> str:
    """The CSP source for an inline style: ``'sha256-<base64>'`` of its UTF-8 bytes."""
    digest = hashlib.sha256(css.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"


def content_security_policy(styles: list[str]) -> str:
    """The page's policy, allowing exactly the given inline styles (by hash)."""
    return CSP_TEMPLATE.format(styles=" ".join(style_hash(s) for s in styles) or "'none'")
