"""The addresses acap writes and reads, each spelled once.

* :data:`EXTENSION_URI`: the On Request extension's URI (spec, front matter; OR-3.1).
* :data:`SPEC_BASE`: where the extension's own files are published (its URI with a
  trailing slash); a finding's ``see:`` link is ``SPEC_BASE#<requirement id>``;
  :data:`SPEC_HOST` its host, whose folder the specification site fills.
* :data:`RULES_PAGE`: the page of the spec site that lists acap's own rule ids, each
  row anchored by its id: the ``see:`` link of a finding of acap's own rules.
* :data:`OPERATORS_PAGE`: the spec site's page for operators (operator.yaml step by
  step), which hints point to: an operator who installed acap has no docs/ folder.
* :data:`CARD_PATH`, :data:`JWKS_PATH`: the Agent Card's well-known location (A2A 1.0
  §8.2) and the JWKS acap publishes beside it (named by the signatures' ``jku``).
* :data:`EXTENSIONS_HEADER`: the HTTP header that activates extensions (A2A 1.0 §3.2.6).
"""

from __future__ import annotations

import re
from pathlib import Path

__all__ = ["CARD_PATH", "EXAMPLE_DOMAINS", "EXAMPLE_TLDS", "EXTENSIONS_HEADER", "EXTENSION_URI",
           "JWKS_PATH", "OPERATORS_PAGE", "RULES_PAGE", "SPEC_BASE", "SPEC_HOST", "card_url",
           "is_example_host", "jwks_url", "url_for_site_file"]

EXTENSION_URI = "https://agent-capability.org/ext/on-request/v1"
SPEC_BASE = EXTENSION_URI + "/"
RULES_PAGE = SPEC_BASE + "conformance.html"
OPERATORS_PAGE = SPEC_BASE + "operators.html"
#: The host of the extension's specification site (``specSite: true``).
SPEC_HOST = EXTENSION_URI.split("/")[2]
CARD_PATH = "/.well-known/agent-card.json"
JWKS_PATH = "/.well-known/jwks.json"
EXTENSIONS_HEADER = "A2A-Extensions"


def card_url(host: str) -> str:
    """The URL of the Agent Card served by ``host`` (A2A 1.0 §8.2)."""
    return f"https://{host}{CARD_PATH}"


def jwks_url(host: str) -> str:
    """The URL of the JWKS acap publishes on ``host``, beside its card."""
    return f"https://{host}{JWKS_PATH}"


def url_for_site_file(path: str | Path) -> str | None:
    """The https URL a file of a built site/ is served at, when its path says so:
    ``.../site/example.com/.well-known/agent-card.json`` ->
    ``https://example.com/.well-known/agent-card.json``.

    Args:
        path: a file path (resolved here; a link is followed).

    Returns:
        The URL for a file in a ``.well-known`` folder under a folder named as a host is
        (``example.com``, ``xn--mnchen-3ya.de``: labels of letters, digits and hyphens,
        at least one dot); ``None`` for any other path (``_site/.well-known/...``, a
        folder a workflow published into), or one that cannot be resolved (a NUL
        character).
    """
    try:
        parts = Path(path).resolve().parts
    except (OSError, ValueError):  # ValueError: a NUL character in the path
        return None
    if len(parts) >= 3 and parts[-2] == ".well-known" and _HOST_FOLDER.fullmatch(parts[-3]):
        return f"https://{parts[-3]}/.well-known/{parts[-1]}"
    return None


#: A folder of site/ named after a host: LDH labels, at least two (RFC 1123 section 2.1).
_HOST_FOLDER = re.compile(r"(?=.{1,253}\Z)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+"
                          r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?", re.ASCII)


#: Second-level names reserved for examples (RFC 2606 §3), with every name under them.
EXAMPLE_DOMAINS = ("example.com", "example.net", "example.org")
#: Top-level names reserved for examples, tests and names that never resolve (RFC 2606 §2,
#: RFC 6761 §6): ``*.example``, ``*.test``, ``*.invalid``, ``*.localhost``.
EXAMPLE_TLDS = ("example", "test", "invalid", "localhost")


def is_example_host(host: str) -> bool:
    """Whether ``host`` is a name reserved for examples and tests, never anyone's website
    (RFC 2606, RFC 6761): ``example.org`` and the names under it (the same for ``.com``
    and ``.net``), and every name in ``.example``, ``.test``, ``.invalid``, ``.localhost``.
    ``acap publish`` refuses to publish one (``PUBLISH-PLACEHOLDER``)."""
    name = host.lower().rstrip(".")
    return (any(name == d or name.endswith("." + d) for d in EXAMPLE_DOMAINS)
            or name.rsplit(".", 1)[-1] in EXAMPLE_TLDS)
