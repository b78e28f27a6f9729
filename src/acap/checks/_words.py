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
from functools import cache, lru_cache
from typing import Any
from urllib.parse import unquote

from acap._package import package_path

_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
_SPLIT = re.compile(r"[^0-9a-z]+")


@lru_cache(maxsize=8192)
def fold(text: str) -> str:
    """Lower-case ``text`` and strip accents: ``Diagnóstico`` -> ``diagnostico``.

    Uses Unicode NFKD and drops combining marks (category ``Mn``); ``ß`` becomes
    ``ss`` through case folding. Cached: the same entries and words recur on
    every card of a batch.
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
    raw = package_path("data", name).read_bytes()
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
        ``(path word, matching entry)``, or ``None``. Where several entries match
        a word, the first in the data file's order.
    """
    entries = circumstance_words()
    exact, prefixes, infixes = _entry_index()
    for w in path_words(path):
        hits = [i for i in (exact.get(w),) if i is not None]
        hits += [prefixes[w[:k]] for k in range(1, len(w) + 1) if w[:k] in prefixes]
        hits += [i for needle, i in infixes if needle in w]
        if hits:
            return w, entries[min(hits)]
    return None


@cache
def text_examples() -> tuple[Word, ...]:
    """The entries of ``textExamples``: the words the text itself gives as revealing
    (OR-3.8's "/bereavement"); a path word matching one breaks OR-3.8 for certain, any
    other match of the list is a guess."""
    entries: list[str] = _data("circumstance-words.json").get("textExamples", [])
    return tuple(Word(e, "en") for e in entries)


def is_text_example(word: str) -> bool:
    """True when the (folded) path word ``word`` is one the text gives as revealing."""
    return any(w.matches(word) for w in text_examples())


@cache
def _entry_index() -> tuple[dict[str, int], dict[str, int], tuple[tuple[str, int], ...]]:
    """The entries by kind, folded, with their position: exact words, ``prefix*`` and
    ``*infix*``. Set lookups instead of one big pattern: nothing to compile at start-up,
    and a path word costs a few dictionary lookups."""
    exact: dict[str, int] = {}
    prefixes: dict[str, int] = {}
    infixes: list[tuple[str, int]] = []
    for i, w in enumerate(circumstance_words()):
        e = fold(w.entry)
        if e.startswith("*") and e.endswith("*"):
            infixes.append((e.strip("*"), i))
        elif e.endswith("*"):
            prefixes.setdefault(e[:-1], i)
        else:
            exact.setdefault(e, i)
    return exact, prefixes, tuple(infixes)


@cache
def _phrases(group: str) -> re.Pattern[str]:
    """Every phrase of ``group`` as one pattern on word boundaries, compiled once."""
    langs: dict[str, list[str]] = _data("heuristic-words.json")[group]
    alternatives = "|".join(re.escape(fold(p)) for entries in langs.values() for p in entries)
    return re.compile(r"(?<![0-9a-z])(?:" + alternatives + r")(?![0-9a-z])")


def mentions(group: str, text: str) -> bool:
    """True when ``text`` uses a phrase of ``group`` in heuristic-words.json.

    Args:
        group: ``reachesStaff``, ``signIn`` or ``onRequest``.
        text: any text; compared folded (lower case, no accents), on word boundaries.
    """
    t = " ".join(_SPLIT_SPACE.split(fold(text)))
    return _phrases(group).search(t) is not None


_SPLIT_SPACE = re.compile(r"\s+")


@cache
def _markers() -> dict[str, frozenset[str]]:
    langs: dict[str, list[str]] = _data("heuristic-words.json")["languageMarkers"]
    return {lang: frozenset(fold(w) for w in words) for lang, words in langs.items()}


def staff_languages() -> frozenset[str]:
    """The languages (ISO 639-1) whose reachesStaff phrases acap has (OR-5.10)."""
    return frozenset(_data("heuristic-words.json")["reachesStaff"])


def text_language(text: str) -> str | None:
    """The language ``text`` is written in, when acap can tell: the one of
    heuristic-words.json's ``languageMarkers`` whose words it uses most, at least twice
    and more often than any other's; ``None`` otherwise (another language, or too few
    words to tell). Words are compared folded (:func:`fold`)."""
    words = [w for w in _SPLIT.split(fold(text)) if w]
    counts = sorted(((sum(w in marks for w in words), lang)
                     for lang, marks in _markers().items()), reverse=True)
    if not counts or counts[0][0] < 2 or (len(counts) > 1 and counts[1][0] == counts[0][0]):
        return None
    return counts[0][1]


def language_name(code: str) -> str:
    """The English name of a language code (CLDR, as acap ships it): ``de`` -> ``German``."""
    names: dict[str, str] = json.loads(package_path("data", "language-names", "en.json")
                                       .read_bytes())["names"]
    return names.get(code, code)
