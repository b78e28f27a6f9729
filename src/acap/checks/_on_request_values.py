"""OR-3.9: no value given on request appears in skill text or in any published file.

acap cannot know a price it was never told. The operator lists the values it
gives on request in the **private part of its configuration**,
``operator.private.yaml`` beside operator.yaml, which acap reads and never
publishes (keep it out of version control; ``.gitignore`` lists it)::
    # operator.private.yaml: never published.
    service-pricing:
      - "£2,450"
      - direct cremation from £1,395

Then:
* a value found in the text of any skill (name, description, forPeople, tags, examples) is
  an error at that line (:func:`skill_text`); an amount of money in a value is
  found however it is written (``£2,450``, ``£2450``, ``£ 2 450``, ``GBP 2450``,
  ``2,450 pounds``, ``£2,450.00``: same currency, same value; see
  :mod:`acap.checks._money`);
* a value found in any file of the built site (card, pages, anything a later
  build step adds) is an error (:func:`published_files`, run by ``acap build``
  after every other step), located at the operator.yaml line it came from
  when it came from there;
* the number inside a value (``2,450`` or ``2450``), found on its own or with
  another currency, is a warning: it may be a year or a street number;
* a key of the private file that is not the id of an on-request skill of
  operator.yaml is an error (with a did-you-mean): a typo would silently drop
  the protection of the values listed under it;
* amounts of money in the text of an on-request skill are a warning
  (:func:`money_in_text`), with or without the private file, and in cards too:
  the finding says the amount will be published and how to keep it private.

Findings never repeat a private value: they name its line in the private file.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Protocol

from acap import schemas
from acap.checks._facts import KINDS, Subject
from acap.checks._money import Amount, amounts, same_amount
from acap.errors import FileRefused
from acap.findings import Finding, Level, Location
from acap.load import (
    MAX_BYTES,
    OperatorConfig,
    Root,
    given_root,
    load_bytes,
    pointer_join,
    private_path_for,
    read_file,
    schema_findings,
)

PRIVATE_FILE = "operator.private.yaml"
PRIVATE_SCHEMA = "operator-private.schema.json"
#: Values shorter than this would match everywhere; they are refused.
MIN_VALUE_LENGTH = 3

_SKILL_TEXT = re.compile(r"/skills/[0-9]+/(name|description|forPeople|tags|examples)(/|$)")
_SPACES = re.compile(r"[\s\u00a0\u202f\u2009]+")
_NUMBER = re.compile(r"\d(?:[\d.,'\u00a0\u202f ]*\d)?")
_BARE_NUMBER = re.compile(r"\d[\d.,'\u00a0\u202f ]*")


def normalise(text: str) -> str:
    """Case-folded, with every run of spaces (no-break and narrow ones too) as one space."""
    return _SPACES.sub(" ", text.casefold()).strip()


def _pattern(needle: str) -> re.Pattern[str]:
    head = r"(?<!\w)" if needle[:1].isalnum() else ""
    tail = r"(?!\w)" if needle[-1:].isalnum() else ""
    return re.compile(head + re.escape(needle) + tail)


@dataclass(frozen=True)
class PrivateValue:
    """One value the operator gives on request.

    Attributes:
        skill: the on-request skill id it belongs to.
        text: the value as written (never printed).
        file: the private file's name, for messages.
        line: its line there.
    """

    skill: str
    text: str
    file: str
    line: int | None

    @property
    def ref(self) -> str:
        """How findings name it: ``operator.private.yaml line 3 (service-pricing)``."""
        return f"{self.file} line {self.line} ({self.skill})"

    def patterns(self) -> tuple[tuple[Level, re.Pattern[str]], ...]:
        """What to look for: the whole value (``error``); its number alone, with other
        thousands separators or none (``warning``)."""
        return _patterns(self.text)

    @property
    def amounts(self) -> tuple[Amount, ...]:
        """The amounts of money in the value: found in any writing, they are errors."""
        return amounts(self.text)


@cache
def _patterns(text: str) -> tuple[tuple[Level, re.Pattern[str]], ...]:
    whole = normalise(text)
    out: list[tuple[Level, re.Pattern[str]]] = [("error", _pattern(whole))]
    seen = {whole}
    # A value that is only a number (2450) is that number however it is grouped: the
    # other groupings are errors too. Inside a longer value they may be a year.
    level: Level = "error" if _BARE_NUMBER.fullmatch(text.strip()) else "warning"
    for m in _NUMBER.finditer(text):
        integer = re.sub(r"[.,]\d{1,2}$", "", m.group(0))
        digits = re.sub(r"\D", "", integer)
        if len(digits) < 3:
            continue
        forms = {normalise(m.group(0)), digits}
        if len(digits) >= 4:
            groups = _groups(digits)
            forms |= {sep.join(groups) for sep in (",", ".", " ", "'")}
        for f in sorted(forms - seen):
            seen.add(f)
            out.append((level, _pattern(f)))
    return tuple(out)


def _groups(digits: str) -> list[str]:
    head = len(digits) % 3 or 3
    return [digits[:head]] + [digits[i:i + 3] for i in range(head, len(digits), 3)]


@dataclass
class PrivateValues:
    """What ``operator.private.yaml`` holds.

    Attributes:
        file: its name as shown in findings.
        present: whether the file exists.
        values: the values, in file order.
        findings: faults in the file itself (``YAML-*``, ``SCHEMA-*``, ``PRIVATE-VALUES``).
    """

    file: str
    present: bool = False
    values: list[PrivateValue] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)


def load_private_values(cfg: OperatorConfig) -> PrivateValues:
    """Read ``operator.private.yaml`` (strictly, like operator.yaml); never raises.

    The file must lie in operator.yaml's folder once links are followed (a link out
    of it is refused: a tenant of a batch would read another's file, or the build
    machine's), and have no other name (a hard link may be another's file, which no
    path check sees: another tenant's in a batch, another project's on one's own
    machine).

    Returns:
        :class:`PrivateValues`; a missing file is no fault (``present`` False). A
        key that is not an on-request skill id is a ``PRIVATE-VALUES`` error, a
        value shorter than :data:`MIN_VALUE_LENGTH` an error.
    """
    kinds = {str(s.get("id")): str(s.get("kind", "public")) for _, s in cfg.skills()}
    return read_private_values(cfg.private_values_file,
                               str(private_path_for(Path(cfg.loaded.file))), kinds,
                               root=cfg.root)


def read_private_values(path: Path, display: str, kinds: dict[str, str] | None = None, *,
                        root: Root | None = None) -> PrivateValues:
    """Read a private values file (the format of ``operator.private.yaml``); never raises.

    Args:
        path: the file.
        display: its name in findings.
        kinds: ``{skill id: kind}`` of the operator's skills (``on-request``, ``public``
            ...): a key that names no on-request skill is a ``PRIVATE-VALUES`` error.
            ``None`` (``acap probe``, which has no operator.yaml) takes every key as an
            on-request skill id.
        root: the folder it must lie in, links followed only inside it (the project
            folder); default: the folder acap runs in, or the folder the path names
            (:func:`acap.load.given_root`).

    Returns:
        As :func:`load_private_values`. A file that is there but refused (a link out
        of ``root``, to nothing, a FIFO, a device, a folder, too large, a file with other
        names: a hard link may be another's file) is a ``PRIVATE-VALUES`` error, never
        taken as no file: OR-3.9's protection would be off unsaid. No finding repeats a
        value of the file (:func:`_untold`).
    """
    out = PrivateValues(display)
    try:  # the common case, no file and no link: one look, not a confined read's walk
        os.lstat(path)
    except FileNotFoundError:
        return out
    except OSError:
        pass  # judged by the read below
    try:
        raw = read_file(path, root or given_root(path), MAX_BYTES, one_name=True)
    except FileNotFoundError:
        if os.path.lexists(path):  # a link to nothing: no values, but not unsaid
            out.present = True
            out.findings.append(_refused(display, "it is a link to nothing", path))
        return out
    except (FileRefused, OSError) as exc:
        out.present = True
        reason = exc.reason if isinstance(exc, FileRefused) else (exc.strerror or str(exc))
        out.findings.append(_refused(display, reason, path))
        return out
    out.present = True
    loaded = load_bytes(raw, schemas.schema(PRIVATE_SCHEMA), display)
    out.findings = [_untold(f, display) for f in loaded.findings if f.rule != "YAML-EMPTY"]
    if not isinstance(loaded.data, dict):
        if loaded.data is not None:
            out.findings.append(Finding("SCHEMA-TYPE", "error", f"{display} must map skill ids "
                                        "to lists of values", loaded.location(""),
                                        "write: service-pricing: [\"£2,450\"]"))
        return out
    out.findings += [_untold(f, display) for f in schema_findings(
        loaded, PRIVATE_SCHEMA, skip={f.location.pointer for f in loaded.findings})]
    if kinds is None:
        kinds = {str(k): "on-request" for k in loaded.data}
    on_request = [sid for sid, kind in kinds.items() if kind == "on-request"]
    for skill, values in loaded.data.items():
        key_ptr = pointer_join("", skill)
        if skill not in on_request and kinds.get(str(skill), "public") in KINDS:
            # (a kind that is none of KINDS is operator.yaml's error, reported at its line:
            # whether this skill is on request is not known until it is corrected)
            out.findings.append(_not_on_request(str(skill), kinds, on_request,
                                                loaded.location(key_ptr, key=True)))
        if isinstance(values, list):
            _values_of(out, loaded, str(skill), key_ptr, values)
    return out


def _values_of(out: PrivateValues, loaded: Any, skill: str, key_ptr: str,
               values: list[Any]) -> None:
    """The values listed under one skill id: each text long enough to search for is kept,
    a shorter one is a ``PRIVATE-VALUES`` error (named by its line, never repeated)."""
    for i, v in enumerate(values):
        if not isinstance(v, str):
            continue  # the schema says so
        loc = loaded.location(pointer_join(key_ptr, i))
        if len(normalise(v)) < MIN_VALUE_LENGTH:
            out.findings.append(Finding(
                "PRIVATE-VALUES", "error", f"a value of '{skill}' is shorter than "
                f"{MIN_VALUE_LENGTH} characters and would be found everywhere", loc,
                "write the value as it would appear, e.g. with its currency: £95"))
            continue
        out.values.append(PrivateValue(skill, v, out.file, loc.line))


def _refused(display: str, reason: str, path: Path) -> Finding:
    """PRIVATE-VALUES: the private file is there but not read (see
    :func:`read_private_values`)."""
    return Finding("PRIVATE-VALUES", "error", f"{display} was not read: {reason}",
                   Location(display), "make it a regular file in operator.yaml's own folder "
                   "(not a link out of it, a pipe or a device), or delete it if no value is "
                   "given on request")


def _untold(f: Finding, display: str) -> Finding:
    """``f`` (a loading or schema finding of the private file) with a message that names
    the key and the line only: the loader's and the schema's messages quote the value
    found (``found the text '...'``), and a value of this file is never printed."""
    ptr = f.location.pointer or ""
    key = ptr.split("/")[1].replace("~1", "/").replace("~0", "~") if ptr.count("/") else ""
    where = f"the value of '{key}'" if key else f"this line of {display}"
    if f.rule.startswith("YAML-") or f.rule == "FILE":
        message = f"{where} cannot be read as YAML ({f.rule}); its text is private, so it " \
                  "is not repeated here"
        hint = "fix the YAML at this line: each key an on-request skill id, each value a " \
               "list of texts"
    else:
        message = f"{where} is not a list of texts ({f.rule}); its text is private, so it is " \
                  "not repeated here"
        hint = "write one value a line under the skill id: service-pricing: [\"£2,450\"]"
    return Finding(f.rule, f.level, message, f.location, hint)


def _not_on_request(skill: str, kinds: dict[str, str], on_request: list[str],
                    at: Location) -> Finding:
    """PRIVATE-VALUES: a key of the private file that names no on-request skill. An error:
    a typo here would make acap stop looking for the values listed under it."""
    import difflib  # start-up: only for a did-you-mean

    if skill in kinds:
        message = (f"'{skill}' is a {kinds[skill]} skill, not an on-request one: nothing it "
                   "says is given on request")
    else:
        message = f"'{skill}' is not the id of a skill in operator.yaml"
    near = difflib.get_close_matches(skill, on_request, n=1, cutoff=0.6)
    if near:
        hint = f"did you mean '{near[0]}'?"
    elif on_request:
        hint = ("list the values under the id of the on-request skill that gives them: "
                + ", ".join(on_request))
    else:
        hint = "operator.yaml has no on-request skill: make the skill kind: on-request first"
    return Finding("PRIVATE-VALUES", "error", message, at, hint)


def find_private_values(text: str, values: Iterable[PrivateValue]
                        ) -> Iterator[tuple[PrivateValue, Level]]:
    """Each value found in ``text``, with the level of its strongest match: the value
    itself, or an amount of money in it however written (``error``); its number
    alone (``warning``)."""
    hay = normalise(text)
    found: tuple[Amount, ...] | None = None
    for v in values:
        patterns = v.patterns()
        if patterns[0][1].search(hay):
            yield v, "error"
            continue
        if v.amounts:
            if found is None:
                found = amounts(text)
            if any(same_amount(a, b) for a in v.amounts for b in found):
                yield v, "error"
                continue
        for level, pat in patterns[1:]:
            if pat.search(hay):
                yield v, level
                break


class TextReading(Protocol):
    """How OR-3.9 reads a text: the one reading ``acap check-reply`` makes of a reply
    (:class:`acap.replies.ReplyReading`: folded spellings, numbers spelled out in words,
    ``1.395e3 GBP``), passed down by the stages above (``acap build``, ``acap check``),
    which may import :mod:`acap.replies`; :data:`DIGITS` (digits only) where none is."""

    def values(self, text: str,
               values: Sequence[PrivateValue]) -> list[tuple[PrivateValue, Level]]:
        """The private values ``text`` gives: ``(value, "error")`` for the value,
        ``(value, "warning")`` for its number alone."""

    def amounts(self, text: str) -> list[str]:
        """Each amount of money ``text`` holds, as written there."""


class _Digits:
    """:class:`TextReading` of amounts written with digits (:func:`find_private_values`,
    :func:`acap.checks.amounts`)."""

    def values(self, text: str,
               values: Sequence[PrivateValue]) -> list[tuple[PrivateValue, Level]]:
        return list(find_private_values(text, list(values)))

    def amounts(self, text: str) -> list[str]:
        return [a.text.strip() for a in amounts(text)]


#: The reading of digits only, where no stage above passes the reply reading.
DIGITS: TextReading = _Digits()


def skill_text(sub: Subject, values: list[PrivateValue],
               reading: TextReading = DIGITS) -> Iterator[Finding]:
    """OR-3.9: no private value in the text of any skill, read by ``reading``."""
    for s in sub.skills:
        for ptr, name, text in s.texts():
            for v, level in reading.values(text, values):
                what = "a value" if level == "error" else "the number of a value"
                yield sub.finding("OR-3.9", level, f"the {name} of {s.label} contains {what} you "
                                  f"give on request ({v.ref})", ptr,
                                  "skill text may ask for it (\"What does it cost?\") but never "
                                  "give it: remove it")


def money_in_text(sub: Subject, skip: Iterable[str] = (),
                  reading: TextReading = DIGITS) -> Iterator[Finding]:
    """OR-3.9 (heuristic, warning): an amount of money in an on-request skill's text.

    Args:
        sub: operator.yaml or a card.
        skip: pointers already reported as a private value (an error says more).
        reading: how the text is read (:class:`TextReading`).
    """
    done = set(skip)
    for s in sub.on_request:
        for ptr, name, text in s.texts():
            if ptr in done:
                continue
            found = reading.amounts(text)
            if not found:
                continue
            amount = found[0]
            if sub.is_card:
                yield sub.finding("OR-3.9", "warning", f"the {name} of on-request {s.label} "
                                  f"contains an amount of money ('{amount}'), published in "
                                  "this card", ptr, "the card never gives what is given on "
                                  "request: remove it, unless the amount is public")
                continue
            yield sub.finding("OR-3.9", "warning", f"the {name} of on-request {s.label} "
                              f"contains an amount of money ('{amount}'): it will be published "
                              "in the card and on the pages", ptr,
                              "if it is given on request, remove it here and list it in "
                              f"{PRIVATE_FILE} (never published), which makes acap refuse "
                              f"it anywhere it is published: {s.id or 'skill-id'}: "
                              f"[\"{amount}\"]; if the amount is public, make the skill "
                              "public")


def _operator_strings(data: Any, ptr: str = "") -> Iterator[tuple[str, str]]:
    if isinstance(data, str):
        yield ptr, data
    elif isinstance(data, dict):
        for k, v in data.items():
            yield from _operator_strings(v, pointer_join(ptr, k))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            yield from _operator_strings(v, pointer_join(ptr, i))


def _readable(rel: str, raw: bytes) -> str | None:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None  # images and other binary files: a value written as text is not in them
    if rel.endswith((".html", ".htm", ".xml", ".svg")):
        if "<" in text:  # £<b>2,450</b> reads as £2,450: search the text without tags too
            text += "\n" + _TAG.sub("", text)
        if "&" in text:
            import html  # only when an HTML file is searched

            text = html.unescape(text)
    if rel.endswith(".json") and "\\" in text:
        text = _JSON_ESCAPE.sub(_unescape_json, text)
    return text


_TAG = re.compile(r"<[^<>]*>")
_JSON_ESCAPE = re.compile(r'\\(u[0-9a-fA-F]{4}|["\\/bfnrt])')
_JSON_SIMPLE = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r",
                "t": "\t"}


def _unescape_json(m: re.Match[str]) -> str:
    """One JSON string escape as its character (``\\u00a3`` -> ``£``); surrogate halves stay
    escaped, as they cannot spell a currency or a digit."""
    e = m.group(1)
    if e[0] == "u":
        code = int(e[1:], 16)
        return m.group(0) if 0xD800 <= code <= 0xDFFF else chr(code)
    return _JSON_SIMPLE[e]


def published_files(cfg: OperatorConfig, files: Iterable[tuple[str, bytes]],
                    values: list[PrivateValue]) -> list[Finding]:
    """OR-3.9 over every file of the built site.

    Args:
        cfg: operator.yaml, to point at the line a value came from.
        files: ``(path under site/, bytes)`` of every built file.
        values: the private values.

    Returns:
        One finding per value and source: at the operator.yaml line holding the
        value when there is one, else at the file and line of the site.
    """
    if not values:
        return []
    strings = list(_operator_strings(cfg.data))
    found: dict[tuple[PrivateValue, str], tuple[Level, Location, list[str]]] = {}
    for rel, raw in files:
        text = _readable(rel, raw)
        if text is None:
            continue
        for v, level in find_private_values(text, values):
            source = _source(cfg, v, strings)
            if source and _SKILL_TEXT.match(source.pointer or ""):
                continue  # skill text: already reported by skill_text() at its line
            loc = source or _line_in(rel, text, v, raw.count(b"\n") + 1)
            key = (v, f"{loc.file}:{loc.line}")
            if key in found:
                found[key][2].append(rel)
            else:
                found[key] = (level, loc, [rel])
    out = []
    for (v, _), (level, loc, rels) in found.items():
        what = "a value" if level == "error" else "the number of a value"
        out.append(Finding("OR-3.9", level, f"{what} you give on request ({v.ref}) would be "
                           f"published in {', '.join(rels)}", loc,
                           "remove it from operator.yaml (or templates/): it is given to the "
                           "person who asks, never published"))
    return out


def _source(cfg: OperatorConfig, v: PrivateValue,
            strings: list[tuple[str, str]]) -> Location | None:
    for ptr, text in strings:
        if any(True for _ in find_private_values(text, [v])):
            return cfg.at(ptr)
    return None


def _line_in(rel: str, text: str, v: PrivateValue, lines: int) -> Location:
    """The first line of a built file holding ``v`` (``lines``: the file's own line count;
    past it, ``text`` holds another reading of the file, with no line of its own)."""
    for n, line in enumerate(text.splitlines()[:lines], 1):
        if any(True for _ in find_private_values(line, [v])):
            return Location(rel, n)
    return Location(rel)
