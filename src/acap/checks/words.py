"""Word lists the checks read: ``acap/data/circumstance-words.json`` (OR-3.8) and
``acap/data/heuristic-words.json`` (OR-3.1, OR-5.9, OR-5.10 heuristics).

Both files are data that maintainers extend without touching code; their
``$comment`` explains the matching rules implemented here. They are read once
per process.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any
from urllib.parse import unquote

_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
_SPLIT = re.compile(r"[^0-9a-z]+")


def fold(text: str) -> str:
    """Lower-case ``text`` and strip accents: ``Diagnóstico`` -> ``diagnostico``.

    Uses Unicode NFKD and drops combining marks (category ``Mn``); ``ß`` becomes
    ``ss`` through case folding.
    """
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(ch for ch in decomposed if unicodedata.category(ch) != "Mn")


def path_words(path: str) -> list[str]:
    """The words of a URL path, as OR-3.8 reads them.

    ``/Trauer/BereavementSupport%20page`` -> ``["trauer", "bereavement", "support", "page"]``.
    Percent-decoded, split on camelCase and on anything not a letter or digit,
    folded with :func:`fold`.
    """
    text = _CAMEL.sub(" ", unquote(path))
    return [w for w in _SPLIT.split(fold(text)) if w]


@dataclass(frozen=True)
class Word:
    """One entry of the OR-3.8 list.

    Attributes:
        entry: as written in the data file (``bereave*``).
        language: ISO 639-1 code of its list.
    """

    entry: str
    language: str

    def matches(self, word: str) -> bool:
        """True when the path word ``word`` (already folded) matches this entry."""
        e = fold(self.entry)
        if e.startswith("*") and e.endswith("*"):
            return e.strip("*") in word
        if e.endswith("*"):
            return word.startswith(e[:-1])
        return word == e


@cache
def _data(name: str) -> dict[str, Any]:
    raw = resources.files("acap").joinpath(f"data/{name}").read_bytes()
    data: dict[str, Any] = json.loads(raw)
    return data


@cache
def circumstance_words() -> tuple[Word, ...]:
    """Every OR-3.8 entry, all languages."""
    langs: dict[str, list[str]] = _data("circumstance-words.json")["languages"]
    return tuple(Word(e, lang) for lang, entries in langs.items() for e in entries)


def revealing_word(path: str) -> tuple[str, Word] | None:
    """The first word of ``path`` that reveals a person's circumstances (OR-3.8).

    Returns:
        ``(path word, matching entry)``, or ``None``.
    """
    for w in path_words(path):
        for entry in circumstance_words():
            if entry.matches(w):
                return w, entry
    return None


@cache
def _phrases(group: str) -> tuple[re.Pattern[str], ...]:
    langs: dict[str, list[str]] = _data("heuristic-words.json")[group]
    return tuple(re.compile(r"(?<![0-9a-z])" + re.escape(fold(p)) + r"(?![0-9a-z])")
                 for entries in langs.values() for p in entries)


def mentions(group: str, text: str) -> bool:
    """True when ``text`` uses a phrase of ``group`` in heuristic-words.json.

    Args:
        group: ``reachesStaff``, ``signIn`` or ``onRequest``.
        text: any text; compared folded (lower case, no accents), on word boundaries.
    """
    t = " ".join(_SPLIT_SPACE.split(fold(text)))
    return any(p.search(t) for p in _phrases(group))


_SPLIT_SPACE = re.compile(r"\s+")
