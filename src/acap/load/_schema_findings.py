"""Schema faults and text faults of a loaded YAML file, as findings an operator can act on.

:func:`schema_findings` turns each JSON Schema error (jsonschema, Draft 2020-12) into
one finding: the place named as people read it (:func:`place`: ``skill
'opening-hours'``, not ``/skills/0``), a rule id (the field's ``x-rule`` in the schema,
such as ``OR-3.5``, else ``SCHEMA-*`` by keyword), a did-you-mean for unknown keys and
enum values, and a hint that never says "delete the line" where the key is required.
:func:`text_findings` applies the text rules of :mod:`acap.load._text` (blank, hidden
and overlong text) to every string. Both report every fault at once.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from acap import schemas
from acap.findings import Finding
from acap.load._pointer import pointer_join, pointer_of, pointer_tokens
from acap.load._shown import shorten
from acap.load._text import (
    NAME_LIMIT,
    blank,
    describe,
    hidden_characters,
    kid_problem,
    length_limit,
    strings,
)
from acap.load._yaml import Loaded, schema_requires
from acap.uris import OPERATORS_PAGE


def text_findings(loaded: Loaded, schema_name: str, skip: set[str | None]) -> list[Finding]:
    """Every text of a loaded file, by the rules of :mod:`acap.load._text`.

    Args:
        loaded: the loaded file.
        schema_name: its schema (to tell required text from optional).
        skip: pointers already reported.

    Returns:
        ``SCHEMA-EMPTY`` errors for text of only spaces or invisible characters
        (``"   "`` has no value, as ``""`` has none), ``TEXT-INVISIBLE`` errors for
        bidirectional controls and other hidden characters, ``TEXT-LENGTH``
        warnings for overlong text.
    """

    if _all_plain(loaded.data):
        return []  # no text any rule below could find anything in (the common case)
    out: list[Finding] = []
    for ptr, text, is_key in strings(loaded.data, keys=True):
        if ptr in skip:
            continue
        if text.isascii() and text.isprintable() and text.strip() and \
                len(text) <= NAME_LIMIT and ptr != "/signing/kid":
            continue  # nothing any rule below could find (the common case, kept cheap)
        loc = loaded.location(ptr, key=is_key)
        what = f"the key of {place(ptr, loaded.data)}" if is_key else place(ptr, loaded.data)
        if blank(text):
            required = is_key or required_at(loaded, schema_name, ptr)
            out.append(Finding("SCHEMA-EMPTY", "error", f"{what} has only spaces or invisible "
                               "characters", loc, "write the text" if required else
                               "write the text, or delete the line"))
            continue
        if ptr == "/signing/kid" and not is_key:
            bad = kid_problem(text)
            if bad:
                out.append(Finding("KEY-ID", "error", f"the kid holds {bad}", loc,
                                   "write the kid as one word, e.g. chapel-1: it is printed in "
                                   "the JWS protected header and matched as is"))
                continue
        hidden = hidden_characters(text)
        if hidden:
            more = f" and {len(hidden) - 1} more" if len(hidden) > 1 else ""
            out.append(Finding("TEXT-INVISIBLE", "error", f"{what} holds the invisible "
                               f"character {describe(hidden[0])}{more}, which can make the "
                               "text read differently from what it says", loc,
                               "delete it (most editors do not show it; retype the text "
                               "around it)"))
        limit = length_limit(ptr)
        if not is_key and len(text) > limit:
            out.append(Finding("TEXT-LENGTH", "warning", f"{what} is {len(text):,} characters "
                               f"long; keep it under {limit:,}", loc,
                               "a name is a few words and a description a few sentences: "
                               "shorten it"))
    return out


def _plain(text: str) -> bool:
    """True for a text no rule of :func:`text_findings` finds anything in (as that
    function's own quick test: printable ASCII, not blank, no longer than a name)."""
    return text.isascii() and text.isprintable() and bool(text.strip()) and \
        len(text) <= NAME_LIMIT


def _all_plain(data: Any) -> bool:
    """True when every text of ``data`` (keys too) is :func:`_plain` and the kid, if any,
    is fit: then :func:`text_findings` finds nothing, and is spared making the JSON
    pointer of each text (most of its time, on every operator file of a batch)."""
    signing = data.get("signing") if isinstance(data, dict) else None
    kid = signing.get("kid") if isinstance(signing, dict) else None
    if isinstance(kid, str) and (not _plain(kid) or kid_problem(kid)):
        return False
    stack = [data]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            if not _plain(v):
                return False
        elif isinstance(v, dict):
            for k, x in v.items():
                if isinstance(k, str) and not _plain(k):
                    return False
                stack.append(x)
        elif isinstance(v, list):
            stack.extend(v)
    return True


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


#: How the items of a list are named in messages, by the list's pointer pattern.
_ITEM_WORDS = {"tags": "tag", "examples": "example", "inputModes": "input mode",
               "outputModes": "output mode", "languages": "language", "ownOrigins": "origin"}


def place(ptr: str, data: Any) -> str:
    """How a message names the value at ``ptr``: ``'website'`` for a key, and list items
    by what they are, never by index alone: ``skill 'opening-hours'``, ``the 2nd skill
    (no id yet)``, ``interface 1``, ``tag 2 of skill 'opening-hours'``."""
    if not ptr:
        return "the file"
    tokens = pointer_tokens(ptr)
    last = tokens[-1]
    if not last.isdigit():
        return f"'{last}'"
    n = int(last) + 1
    parent = tokens[:-1]
    if parent == ["skills"]:
        return _skill(data, int(last))
    if parent == ["agent", "interfaces"]:
        return f"interface {n}"
    word = _ITEM_WORDS.get(parent[-1], "item") if parent else "item"
    owner = ""
    if len(parent) >= 3 and parent[0] == "skills" and parent[1].isdigit():
        owner = " of " + _skill(data, int(parent[1]))
    elif parent and word == "item":
        owner = f" of '{parent[-1]}'"
    return f"{word} {n}{owner}"


def _skill(data: Any, index: int) -> str:
    skills = data.get("skills") if isinstance(data, dict) else None
    skill = skills[index] if isinstance(skills, list) and index < len(skills) else None
    sid = skill.get("id") if isinstance(skill, dict) else None
    if isinstance(sid, str) and sid.strip():
        return f"skill '{sid}'"
    return f"the {_ordinal(index + 1)} skill (no id yet)"


def required_at(loaded: Loaded, schema_name: str, ptr: str) -> bool:
    """True when the schema requires the key that holds ``ptr`` (a list item of a
    required list counts as required), so that a hint never says "delete the line"
    where deleting it is an error too."""

    return schema_requires(schemas.schema(schema_name), pointer_tokens(ptr, indexes=True))


#: JSON Schema types in words, for operator.yaml (YAML: an object is "keys and values").
_TYPE_WORDS = {
    "string": "text", "boolean": "true or false", "integer": "a whole number",
    "number": "a number", "array": "a list", "object": "keys and values", "null": "nothing",
}
#: The same for a card (JSON: an object is "an object").
_JSON_TYPE_WORDS = {**_TYPE_WORDS, "object": "an object", "null": "null"}


def type_words(t: Any, *, json: bool = False) -> str:
    """A JSON Schema ``type`` (a name or a list of names) in words: ``"a whole number"``,
    ``"text or nothing"``; objects are "keys and values" in operator.yaml, "an object"
    in a card (``json``)."""
    words = _JSON_TYPE_WORDS if json else _TYPE_WORDS
    return " or ".join(words.get(str(x), str(x)) for x in (t if isinstance(t, list) else [t]))


def value_words(v: Any, *, json: bool = False) -> str:
    """What a value is, in words: in operator.yaml with the value (``the number 3``, ``the
    text 'no'``, ``nothing``), in a card by its kind only (``a number``, ``text``, ``null``:
    a card's values may be long or hostile)."""
    if v is None:
        return "null" if json else "nothing"
    if isinstance(v, bool):
        return "true or false"
    if isinstance(v, (int, float)):
        return "a number" if json else f"the number {v}"
    if isinstance(v, str):
        return "text" if json else f"the text '{v}'"
    return "a list" if isinstance(v, list) else ("an object" if json else "keys and values")


#: Item formats whose values are addresses: a bare host written for one gets https://.
_URL_FORMATS = ("uri", "iri")


def _as_item(text: str, items: Any) -> str:
    """``text`` as the list item the schema's ``items`` accepts, for a "write a list" hint.

    The suggested fix must itself pass: where the items are URLs (``format: uri``) a
    bare host becomes ``https://host``, and where they have a ``pattern`` the
    suggestion is checked against it. When no form of ``text`` fits, a placeholder
    (``first``) is suggested instead of a list that would fail at once.

    Args:
        text: the single value the operator wrote instead of a list.
        items: the list's ``items`` subschema (any JSON value; ``$ref`` is not followed).

    Returns:
        The item to put between ``[`` and ``]``.
    """
    if not isinstance(items, dict):
        return text
    item = text.strip()
    if items.get("format") in _URL_FORMATS and "://" not in item:
        item = "https://" + item.lstrip("/")
    pattern = items.get("pattern")
    if isinstance(pattern, str):
        import re  # start-up: only for a hint

        if not re.search(pattern, item):
            return "first, second"
    return item


def schema_findings(loaded: Loaded, schema_name: str, skip: set[str | None]) -> list[Finding]:
    """Validate ``loaded.data`` against a shipped schema; every error as a finding.

    Args:
        loaded: the loaded file (data and locations).
        schema_name: one of :data:`acap.schemas.ALL`.
        skip: JSON pointers already reported while loading (not reported twice).

    Returns:
        Findings, one per schema error (``anyOf`` errors are reduced to their
        most specific branch). Unknown keys come with a did-you-mean.
    """
    out: list[Finding] = []
    missing: list[tuple[str, str]] = []
    errors = schemas.errors(schema_name, loaded.data)
    for err in errors:
        out.extend(_translate(err, _Place(loaded, skip, schema_name, errors)))
        if err.validator == "required":
            missing.append((pointer_of(err.absolute_path),
                            schemas.required_member(err, errors)))
    return _misplaced(out, missing, loaded) if missing else out


def _misplaced(out: list[Finding], missing: list[tuple[str, str]],
               loaded: Loaded) -> list[Finding]:
    """Link a required key that is missing from one mapping with the same key found as
    unknown in another: an outdented (or over-indented) line. Both findings get one
    hint saying which line to indent and by how much; otherwise they would read as two
    unrelated faults ("'operator' needs 'website'", "unknown key 'website'").

    Args:
        out: the findings of :func:`schema_findings`.
        missing: ``(pointer of the mapping, missing key)`` of each ``required`` error.
        loaded: the file (for the mappings' columns).

    Returns:
        ``out`` with the linked findings' hints replaced.
    """
    import dataclasses  # start-up: only when a required key is missing

    hints: dict[int, str] = {}
    for i, f in enumerate(out):
        if f.rule != "SCHEMA-UNKNOWN-KEY" or f.location.pointer is None:
            continue
        parent, _, key = f.location.pointer.rpartition("/")
        owners = [(ptr, k) for ptr, k in missing if k == key and ptr != parent]
        if not owners:
            continue
        # the mapping just above the stray line is the one it was meant for
        line = f.location.line or 0

        def line_of(owner: tuple[str, str]) -> int:
            return loaded.location(owner[0]).line or 0

        above = [o for o in owners if line_of(o) < line]
        ptr, _ = max(above, key=line_of) if above else min(owners, key=line_of)
        hint = _indent_hint(ptr, key, line, loaded)
        hints[i] = hint
        for j, g in enumerate(out):
            if (g.rule == "SCHEMA-REQUIRED" and g.location.pointer == ptr
                    and g.message.endswith(f"needs '{key}'")):
                hints[j] = hint
    return [dataclasses.replace(f, hint=hints[i]) if i in hints else f
            for i, f in enumerate(out)]


def _indent_hint(ptr: str, key: str, line: int, loaded: Loaded) -> str:
    """``line 4 'website' is not indented under 'operator:'; indent it like the other
    lines of 'operator' (2 spaces)``; for a top-level key, to the start of the line."""
    if not ptr:
        return (f"line {line} '{key}' is indented, but it belongs at the top level; write "
                "it at the start of the line, like the other top-level keys")
    last = pointer_tokens(ptr)[-1]
    owner = place(ptr, loaded.data) if last.isdigit() else f"'{last}'"
    under = owner if last.isdigit() else f"'{last}:'"
    spaces = (loaded.location(ptr).column or 1) - 1
    return (f"line {line} '{key}' is not indented under {under}; indent it like the other "
            f"lines of {owner} ({spaces} space{'s' if spaces != 1 else ''})")


def _close(word: str, options: list[str], cutoff: float) -> list[str]:
    """The nearest of ``options`` to ``word`` (difflib, imported only when there is an error)."""
    import difflib  # start-up: only for a did-you-mean

    return difflib.get_close_matches(word, options, n=1, cutoff=cutoff)


#: The rule id of each JSON Schema keyword's findings (all listed in requirements.json).
_KEYWORD_RULES = {
    "type": "SCHEMA-TYPE", "required": "SCHEMA-REQUIRED", "enum": "SCHEMA-ENUM",
    "const": "SCHEMA-ENUM", "minItems": "SCHEMA-EMPTY", "minProperties": "SCHEMA-EMPTY",
    "minLength": "SCHEMA-EMPTY", "additionalProperties": "SCHEMA-UNKNOWN-KEY",
}


@dataclass(frozen=True)
class _Place:
    """What translating one schema error needs besides the error: the file, the pointers
    already reported, the schema's name, and the errors it came with (``siblings``)."""

    loaded: Loaded
    skip: set[str | None]
    schema_name: str
    siblings: list[Any]


@dataclass(frozen=True)
class _Err:
    """One jsonschema error as a translator reads it: its structure, never its English
    message (keyword, pointer, instance, subschema, the rule id its field names)."""

    err: Any
    place: _Place
    ptr: str
    label: str
    rule: str
    schema: dict[str, Any]

    @property
    def loc(self) -> Any:
        """Where the value is in the file."""
        return self.place.loaded.location(self.ptr)

    def required_here(self) -> bool:
        """The schema requires the key holding the value (see :func:`required_at`)."""
        return required_at(self.place.loaded, self.place.schema_name, self.ptr)


def _translate(err: Any, where: _Place) -> list[Finding]:
    """One jsonschema error as findings, by its keyword (:data:`_TRANSLATORS`)."""
    ptr = pointer_of(err.absolute_path)
    if ptr in where.skip:
        return []
    kw = err.validator
    if kw in ("anyOf", "oneOf") and err.context:
        best = max(err.context, key=lambda e: len(list(e.absolute_path)))
        return _translate(best, _Place(where.loaded, where.skip, where.schema_name,
                                       list(err.context)))
    sch = err.schema if isinstance(err.schema, dict) else {}
    e = _Err(err, where, ptr, place(ptr, where.loaded.data),
             sch.get("x-rule") or _KEYWORD_RULES.get(kw, "SCHEMA-VALUE"), sch)
    handler = _TRANSLATORS.get(kw)
    if handler is not None:
        return handler(e)
    return [Finding(e.rule, "error", f"{e.label} does not meet the schema's {kw} "
                    f"({shorten(json.dumps(err.validator_value, default=str), 60)})", e.loc,
                    None)]


def _unknown_keys(e: _Err) -> list[Finding]:
    allowed = list(e.schema.get("properties", {}))
    out = []
    for key in e.err.instance:
        if key in allowed:
            continue
        near = _close(key, allowed, 0.6)
        if near:
            hint = f"did you mean '{near[0]}'?"
        else:
            hint = "remove it; allowed here: " + ", ".join(allowed) if allowed else "remove it"
        out.append(Finding("SCHEMA-UNKNOWN-KEY", "error", f"unknown key '{key}'",
                           e.place.loaded.location(pointer_join(e.ptr, key), key=True), hint))
    return out


def _required(e: _Err) -> list[Finding]:
    missing = schemas.required_member(e.err, e.place.siblings)
    return [Finding("SCHEMA-REQUIRED", "error", f"{e.label} needs '{missing}'", e.loc,
                    f"add {missing}: ... (see {OPERATORS_PAGE}, or the commented "
                    "operator.yaml that `acap init` writes)")]


def _type_hint(e: _Err) -> str:
    """How to write a value of the type the schema wants, where ``e`` found another."""
    want, instance = e.err.validator_value, e.err.instance
    quoted = e.ptr in e.place.loaded.quoted and isinstance(instance, str)
    if want == "array":
        item = (f"[{_as_item(instance, e.schema.get('items'))}]"
                if isinstance(instance, str) else "[first, second]")
        key = e.ptr.rsplit("/", 1)[-1]
        return f"write a list: {key}: {item}, or one '- ' line per item under {key}:"
    if want == "boolean":
        return "remove the quotes: write true or false" if quoted else "write true or false"
    if want in ("integer", "number"):
        example = "2" if want == "integer" else "2.5"
        return (f"remove the quotes: write {type_words(want)} such as {example}" if quoted
                else f"write {type_words(want)} such as {example}")
    if want == "object":
        return _object_hint(e)
    return f"write {type_words(want)}"


def _object_hint(e: _Err) -> str:
    """How to write keys and values where ``e`` found another type: the schema's
    ``x-example`` (the exact form, e.g. ``sftp: {host: ..., user: ..., path: ...}``),
    else the keys it requires, written as a mapping on one line."""
    key = pointer_tokens(e.ptr)[-1] if e.ptr else ""
    example = e.schema.get("x-example")
    required = [str(r) for r in e.schema.get("required") or ()]
    if isinstance(example, str):
        form = example
    elif required:
        form = "{" + ", ".join(f"{r}: ..." for r in required) + "}"
    else:
        return "write keys and values"
    return f"write keys and values: {key}: {form}" if key else f"write keys and values: {form}"


def _type(e: _Err) -> list[Finding]:
    if e.err.instance is None:
        return [Finding(e.rule if e.rule.startswith("OR-") else "SCHEMA-EMPTY", "error",
                        f"{e.label} has no value", e.loc,
                        "write a value after the colon" if e.required_here()
                        else "write a value after the colon, or delete the line")]
    return [Finding(e.rule, "error", f"{e.label} must be {type_words(e.err.validator_value)}, "
                    f"found {value_words(e.err.instance)}", e.loc, _type_hint(e))]


def _choice(e: _Err) -> list[Finding]:
    options = [str(o) for o in (e.schema.get("enum") or [e.schema.get("const")])]
    near = _close(str(e.err.instance), options, 0.5)
    hint = f"did you mean '{near[0]}'?" if near else "write one of: " + ", ".join(options)
    return [Finding(e.rule, "error", f"{e.label} cannot be {value_words(e.err.instance)}; "
                    f"it is one of: {', '.join(options)}", e.loc, hint)]


def _no_items(e: _Err) -> list[Finding]:
    return [Finding(e.rule, "error", f"{e.label} is empty", e.loc, "give at least one entry")]


def _no_text(e: _Err) -> list[Finding]:
    return [Finding(e.rule if e.rule.startswith("OR-") else "SCHEMA-EMPTY", "error",
                    f"{e.label} is empty", e.loc,
                    "write the text" if e.required_here() else
                    "write the text, or delete the line")]


def _bound(e: _Err) -> list[Finding]:
    bound = "at least" if e.err.validator == "minimum" else "at most"
    return [Finding(e.rule, "error", f"{e.label} is {e.err.instance}; it must be {bound} "
                    f"{e.err.validator_value}", e.loc,
                    f"write a number {bound} {e.err.validator_value}")]


#: How each JSON Schema keyword's error becomes findings.
_TRANSLATORS: dict[str, Callable[[_Err], list[Finding]]] = {
    "additionalProperties": _unknown_keys, "required": _required, "type": _type,
    "enum": _choice, "const": _choice, "minItems": _no_items, "minProperties": _no_items,
    "minLength": _no_text, "minimum": _bound, "maximum": _bound,
}

