"""``KEY-PRIVATE``: no private key material in operator.yaml's text or in a card.

Everything in operator.yaml can end up in the published card or pages, and a
card is public by definition (A2A §8.2): a PEM private key or a private JWK
found there is an error at its line (the detector is :mod:`acap.keys._leaks`,
shared with ``acap build``'s final check and ``acap publish``). The key itself
is never quoted.
"""

from __future__ import annotations

from typing import Any

from acap.checks._facts import Locate
from acap.findings import Finding, Location
from acap.keys._leaks import KeyMaterial, in_value, text_place
from acap.load._operator import OperatorConfig

RULE = "KEY-PRIVATE"
EXPOSED = "treat the key as exposed: make a new one (acap keys rotate) if it signs anything"


def operator_places(cfg: OperatorConfig) -> list[tuple[Location, KeyMaterial]]:
    """Key material in the values of operator.yaml, each at the line of its PEM header
    (else of its value): ``[(location, what was found)]``."""
    found = in_value(cfg.data)
    if not found:
        return []
    try:
        text: str | None = cfg.path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError):
        text = None
    out = []
    for m in found:
        loc = cfg.at(m.pointer or "")
        place = text_place(text, loc.line or 1) if text is not None and m.kind == "pem" else None
        if place is not None:
            loc = Location(loc.file, place[0], place[1], loc.pointer)
        out.append((loc, m))
    return out


def in_operator(cfg: OperatorConfig) -> list[Finding]:
    """KEY-PRIVATE errors for key material in any value of operator.yaml.

    Returns:
        One error per value holding a PEM private key block or a private JWK, at
        the line of the PEM header (else of the value).
    """
    return [Finding(RULE, "error", f"{m.pointer or '/'} holds {m.what}: everything in "
                    f"{cfg.path.name} may be published (the card, the pages), and the "
                    "file itself is committed", loc,
                    f"remove it (a signing key belongs in signing.keyFile or "
                    f"ACAP_SIGNING_KEY, never in {cfg.path.name}); {EXPOSED}")
            for loc, m in operator_places(cfg)]


def in_card(card: dict[str, Any], locate: Locate) -> list[Finding]:
    """KEY-PRIVATE errors for key material anywhere in a card (a PEM private key in a
    text, a JWK with private members), at the line of the value holding it."""
    return [Finding(RULE, "error", f"{m.pointer or '/'} holds {m.what}: a card is public",
                    locate(m.pointer or "", False),
                    f"remove it from the card (and from what the card is built from); {EXPOSED}")
            for m in in_value(card)]
