"""``KEY-PRIVATE``: no private key material in operator.yaml, in a card, or in any file
a build made.

Everything in operator.yaml can end up in the published card or pages, and a
card is public by definition (A2A §8.2): a PEM private key or a private JWK
found there is an error at its line (the detector is :mod:`acap.keys._leaks`,
shared with ``acap publish``). After a build, every built file is searched too
(:func:`key_material_in_site`), and for the signing key's own private members as they are
(:func:`signing_key_in_site`); a finding names where the text came from. The key
itself is never quoted.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from acap.checks._facts import Locate
from acap.errors import FileRefused
from acap.findings import Finding, Location
from acap.keys import KeyMaterial, in_bytes, in_value, private_markers, text_place
from acap.load import MAX_BYTES, OperatorConfig, read_file

RULE = "KEY-PRIVATE"
EXPOSED = "treat the key as exposed: make a new one (acap keys rotate) if it signs anything"


def operator_places(cfg: OperatorConfig) -> list[tuple[Location, KeyMaterial]]:
    """Key material in the values of operator.yaml, each at the line of its PEM header
    (else of its value): ``[(location, what was found)]``."""
    found = in_value(cfg.data)
    if not found:
        return []
    text = _operator_text(cfg)
    out = []
    for m in found:
        loc = cfg.at(m.pointer or "")
        place = text_place(text, loc.line or 1) if text is not None and m.kind == "pem" else None
        if place is not None:
            loc = Location(loc.file, place[0], place[1], loc.pointer)
        out.append((loc, m))
    return out


def _operator_text(cfg: OperatorConfig) -> str | None:
    """operator.yaml's text as it is now (to find a line), read as the build read it,
    within the project folder; ``None`` when it cannot be read."""
    try:
        return read_file(cfg.path, cfg.root, MAX_BYTES).decode("utf-8-sig")
    except (OSError, FileRefused, UnicodeDecodeError):
        return None


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


SOURCES_HINT = ("such text comes from operator.yaml (a key pasted into a description or "
                "other text), from templates/ (a copied key file, or a link to one), or "
                "from a file put into site/ by hand")
#: Template files larger than this are not searched for the source of a leak.
_SCAN_LIMIT = 1 << 20


def key_material_in_site(cfg: OperatorConfig, files: Iterable[tuple[str, bytes]], site_dir: Path
                  ) -> list[Finding]:
    """``KEY-PRIVATE`` errors for private key material in files a build made.

    Run by ``acap build`` over every file before anything is written, so that a
    key never reaches site/ (and so never ``acap serve`` or ``acap publish``).

    Args:
        cfg: the :class:`~acap.load._operator.OperatorConfig` built from.
        files: ``(path under site/, bytes)`` of every built file.
        site_dir: the site folder, to name the files as they would be written.

    Returns:
        When the text is found in operator.yaml or in a file of ``templates/``:
        one error at each such place (its line), naming the built files it
        would reach. Otherwise one error per built file, at its line or JSON
        pointer, with :data:`SOURCES_HINT`.
    """
    hits = [(rel, found) for rel, data in files if (found := in_bytes(data, rel))]
    if not hits:
        return []
    built = [str(site_dir / rel) for rel, _ in hits]
    reached = ", ".join(built[:4]) + (f" and {len(built) - 4} more" if len(built) > 4 else "")
    sources = _sources(cfg)
    if sources:
        return [Finding("KEY-PRIVATE", "error", f"{what} in {loc.file} would be written into "
                        f"{reached}", loc,
                        "remove it there; acap never writes a private key into site/. Treat "
                        "the key as exposed: make a new one (acap keys rotate) if it signs "
                        "anything")
                for loc, what in sources]
    out = []
    for (_, found), shown in zip(hits, built, strict=True):
        for m in found:
            out.append(Finding("KEY-PRIVATE", "error", f"{shown} would hold {m.what}; acap "
                               "never writes a private key into site/",
                               Location(shown, m.line, pointer=m.pointer),
                               f"{SOURCES_HINT}: remove it there, then build again"))
    return out


def signing_key_in_site(cfg: OperatorConfig, private: Any, files: Iterable[tuple[str, bytes]],
                         site_dir: Path) -> list[Finding]:
    """``KEY-PRIVATE`` errors for the signing key itself in files a build made, in any
    form the detector above does not read (a YAML mapping, ``d=...``, a JWK split
    over lines): its private JWK members in base64url
    (:func:`acap.keys._key.private_markers`) are searched for as they are.

    Args:
        cfg: the :class:`~acap.load._operator.OperatorConfig` built from.
        private: the signing key (a ``cryptography`` private key).
        files: ``(path under site/, bytes)`` of every built file.
        site_dir: the site folder, to name the files as they would be written.

    Returns:
        One error per built file holding it, at operator.yaml's line when the text is
        there too; the key is never quoted.
    """

    marks = [m.encode() for m in private_markers(private)]
    hits = [rel for rel, data in files if any(m in data for m in marks)]
    if not hits:
        return []
    text = _operator_text(cfg) or ""
    line = next((i for i, t in enumerate(text.splitlines(), 1)
                 if any(m.decode() in t for m in marks)), None)
    where = Location(cfg.loaded.file, line) if line else Location(str(site_dir / hits[0]))
    return [Finding("KEY-PRIVATE", "error", f"{site_dir / rel} would hold the private part of "
                    "the signing key; acap never writes a private key into site/", where,
                    f"remove it from where it came from ({SOURCES_HINT}); treat the key as "
                    "exposed: make a new one (acap keys rotate)") for rel in hits]


def _sources(cfg: OperatorConfig) -> list[tuple[Location, str]]:
    """Places in operator.yaml and templates/ holding key material: ``(where, what)``."""
    out = [(loc, f"{m.what} ({m.pointer})") for loc, m in operator_places(cfg)]
    tpl = cfg.base_dir / "templates"
    if not tpl.is_dir():
        return out
    shown_dir = Path(cfg.loaded.file).parent / "templates"
    root = tpl.resolve()
    for p in sorted(tpl.rglob("*")):
        try:
            if not p.resolve().is_relative_to(root) or not p.is_file():
                continue  # a link out of templates/ is refused by the loader (PAGE-TEMPLATE)
            data = read_file(p, cfg.root, _SCAN_LIMIT)
        except (OSError, FileRefused):
            continue  # a FIFO, a file too large, a link swapped in: refused where it is read
        shown = str(shown_dir / p.relative_to(tpl))
        out += [(Location(shown, m.line, pointer=m.pointer), m.what)
                for m in in_bytes(data, p.name)]
    return out
