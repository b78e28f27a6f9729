"""operator.yaml: load it strictly, check it against its schema, and read it.

:func:`load_operator` is the one entry point. It returns an
:class:`OperatorConfig` that keeps both the data (defaults not applied; use
the accessors) and the location of every value, so that any later check can
point at the line to fix. Schema faults are findings with a did-you-mean for
unknown keys and a rule id where the field belongs to a requirement
(``x-rule`` in the schema, e.g. ``OR-3.5`` for ``assistantAccess``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import SplitResult, urlsplit

from acap import schemas
from acap.findings import Finding, Location
from acap.load._yaml import Loaded, load_file, pointer_join

#: The On Request extension URI (spec, front matter; OR-3.1).
EXTENSION_URI = "https://agent-capability.org/ext/on-request/v1"
DEFAULT_KEY_FILE = ".acap/signing-key.pem"
DEFAULT_PREVIOUS_KEYS = "keys/previous-keys.json"
#: Environment variable holding the private key itself (PEM or JWK text), for CI secrets.
KEY_ENV = "ACAP_SIGNING_KEY"


@dataclass
class OperatorConfig:
    """A loaded operator.yaml.

    Attributes:
        path: the file.
        loaded: data and value locations from :mod:`acap.load._yaml`.
        findings: loading and schema findings (empty when the file is valid).
    """

    path: Path
    loaded: Loaded
    findings: list[Finding] = field(default_factory=list)

    # -- data access ---------------------------------------------------------------
    @property
    def data(self) -> dict[str, Any]:
        """The raw data; ``{}`` when the file could not be read as a mapping."""
        d = self.loaded.data
        return d if isinstance(d, dict) else {}

    @property
    def base_dir(self) -> Path:
        """The folder of operator.yaml; relative paths in it are relative to this."""
        return self.path.parent

    def at(self, pointer: str, *, key: bool = False) -> Location:
        """The location of a JSON pointer into the file (of its key with ``key=True``)."""
        return self.loaded.location(pointer, key=key)

    def skills(self) -> Iterator[tuple[str, dict[str, Any]]]:
        """Each skill with its JSON pointer: ``("/skills/0", {...})``."""
        for i, s in enumerate(self.data.get("skills") or []):
            if isinstance(s, dict):
                yield f"/skills/{i}", s

    def on_request_skills(self) -> Iterator[tuple[str, dict[str, Any]]]:
        """The skills with ``kind: on-request``, with their pointers."""
        return ((p, s) for p, s in self.skills() if s.get("kind") == "on-request")

    @property
    def website(self) -> str:
        """operator.website (AgentCard.provider.url); ``""`` when it is not text."""
        op = self.data.get("operator")
        site = op.get("website") if isinstance(op, dict) else None
        return site if isinstance(site, str) else ""

    @property
    def card_host(self) -> str:
        """Host the card is published on: ``cardHost``, else operator.website's host."""
        host = self.data.get("cardHost")
        return _card_host(host if isinstance(host, str) else None, self.website)

    @property
    def card_url(self) -> str:
        """The card's URL (A2A §8.2 well-known location on the card host)."""
        return f"https://{self.card_host}/.well-known/agent-card.json"

    @property
    def jwks_url(self) -> str:
        """The JWKS URL put in ``jku``: on the card's own origin."""
        return f"https://{self.card_host}/.well-known/jwks.json"

    @property
    def hosts(self) -> dict[str, dict[str, Any]]:
        """Every host acap builds, card host first: ``{host: settings}`` (no empty host)."""
        out: dict[str, dict[str, Any]] = {self.card_host: {}} if self.card_host else {}
        hosts = self.data.get("hosts")
        for host, settings in hosts.items() if isinstance(hosts, dict) else ():
            out[str(host).lower()] = settings if isinstance(settings, dict) else {}
        return out

    @property
    def own_origins(self) -> list[str]:
        """Origins the operator declares as its own (OR-3.4): website, hosts, ownOrigins."""
        origins = []
        site = _split(self.website)
        if site and site.scheme and site.hostname:
            origins.append(f"{site.scheme}://{site.netloc.lower()}")
        origins += [f"https://{h}" for h in self.hosts]
        own = self.data.get("ownOrigins")
        for o in own if isinstance(own, list) else ():
            u = _split(str(o))
            if u:
                origins.append(f"{u.scheme}://{u.netloc.lower()}")
        return list(dict.fromkeys(origins))

    @property
    def signing(self) -> dict[str, Any]:
        """The ``signing`` section, ``{}`` when absent."""
        s = self.data.get("signing")
        return s if isinstance(s, dict) else {}

    @property
    def key_file(self) -> Path:
        """Where the private key lives (absolute), default ``.acap/signing-key.pem``."""
        return self.base_dir / str(self.signing.get("keyFile", DEFAULT_KEY_FILE))

    @property
    def previous_keys_file(self) -> Path:
        """Public JWKS of previous keys kept for rotation (absolute)."""
        return self.base_dir / str(self.signing.get("previousKeys", DEFAULT_PREVIOUS_KEYS))

    @property
    def key_from_env(self) -> str | None:
        """The private key text from ``ACAP_SIGNING_KEY``, if set and non-empty."""
        return os.environ.get(KEY_ENV) or None


def _split(url: str) -> SplitResult | None:
    """``urlsplit(url)``, or ``None`` for text it cannot read (``https://[``); the
    properties above stay total so that checks can report what is wrong."""
    try:
        u = urlsplit(url)
        u.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError:
        return None
    return u


@lru_cache(maxsize=256)
def _card_host(card_host: str | None, website: str) -> str:
    """:attr:`OperatorConfig.card_host` from its two inputs (kept: a build asks often)."""
    host = card_host
    if not host:
        site = _split(website)
        host = (site.hostname if site else None) or ""
    return _a_label(host.lower().rstrip("."))


def _a_label(host: str) -> str:
    """An internationalised host name in its ASCII (A-label) form, IDNA 2008 (RFC 5891):
    the form DNS, TLS certificates and static hosts use. Other hosts are returned as is."""
    if host.isascii():
        return host
    import idna  # only for non-ASCII hosts

    try:
        return str(idna.encode(host, uts46=True).decode("ascii"))
    except idna.IDNAError:
        return host


def load_operator(path: str | Path, display: str | None = None) -> OperatorConfig:
    """Load operator.yaml and check it against ``operator.schema.json``.

    Args:
        path: the file.
        display: how to name the file in findings (default: as given).

    Returns:
        An :class:`OperatorConfig`; ``findings`` holds every loading and schema
        fault (rules ``YAML-*``, ``SCHEMA-*`` or the field's ``OR-*`` rule).
        Never raises for bad content or a missing file.
    """
    p = Path(path)
    loaded = load_file(p, schemas.schema(schemas.OPERATOR), display or str(path))
    cfg = OperatorConfig(p, loaded, list(loaded.findings))
    if loaded.data is None and loaded.findings:
        return cfg
    if not isinstance(loaded.data, dict):
        what = "a list" if isinstance(loaded.data, list) else "a single value"
        cfg.findings.append(Finding(
            "SCHEMA-TYPE", "error", f"the top level of {loaded.file} must be keys "
            f"(operator:, agent:, skills: ...), found {what}", loaded.location(""),
            "start from the example in README.md, or run `acap init`"))
        return cfg
    already = {f.location.pointer for f in loaded.findings}
    found = schema_findings(loaded, schemas.OPERATOR, skip=already)
    cfg.findings.extend(found)
    cfg.findings.extend(text_findings(loaded, schemas.OPERATOR,
                                      skip=already | {f.location.pointer for f in found}))
    return cfg


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
    from acap.load._text import (
        NAME_LIMIT,
        blank,
        describe,
        hidden_characters,
        kid_problem,
        length_limit,
        strings,
    )

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
    tokens = [t.replace("~1", "/").replace("~0", "~") for t in ptr.split("/")[1:]]
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
    from acap.load._yaml import schema_requires

    tokens: list[str | int] = []
    for t in ptr.split("/")[1:]:
        t = t.replace("~1", "/").replace("~0", "~")
        tokens.append(int(t) if t.isdigit() else t)
    return schema_requires(schemas.schema(schema_name), tokens)


_TYPE_WORDS = {
    "string": "text", "boolean": "true or false", "integer": "a whole number",
    "number": "a number", "array": "a list", "object": "keys and values", "null": "nothing",
}


def _type_word(t: Any) -> str:
    if isinstance(t, list):
        return " or ".join(_TYPE_WORDS.get(str(x), str(x)) for x in t)
    return _TYPE_WORDS.get(t, str(t))


def _found(v: Any) -> str:
    if v is None:
        return "nothing"
    if isinstance(v, bool):
        return "true or false"
    if isinstance(v, (int, float)):
        return f"the number {v}"
    if isinstance(v, str):
        return f"the text '{v}'"
    return "a list" if isinstance(v, list) else "keys and values"


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
    for err in schemas.errors(schema_name, loaded.data):
        out.extend(_translate(err, loaded, skip, schema_name))
    return out


def _close(word: str, options: list[str], cutoff: float) -> list[str]:
    """The nearest of ``options`` to ``word`` (difflib, imported only when there is an error)."""
    import difflib

    return difflib.get_close_matches(word, options, n=1, cutoff=cutoff)


def _pointer(path: Any) -> str:
    p = ""
    for part in path:
        p = pointer_join(p, part)
    return p


#: The rule id of each JSON Schema keyword's findings (all listed in requirements.json).
_KEYWORD_RULES = {
    "type": "SCHEMA-TYPE", "required": "SCHEMA-REQUIRED", "enum": "SCHEMA-ENUM",
    "const": "SCHEMA-ENUM", "minItems": "SCHEMA-EMPTY", "minProperties": "SCHEMA-EMPTY",
    "minLength": "SCHEMA-EMPTY", "additionalProperties": "SCHEMA-UNKNOWN-KEY",
}


def _translate(err: Any, loaded: Loaded, skip: set[str | None],
               schema_name: str = schemas.OPERATOR) -> list[Finding]:
    ptr = _pointer(err.absolute_path)
    if ptr in skip:
        return []
    label = place(ptr, loaded.data)
    sch = err.schema if isinstance(err.schema, dict) else {}
    kw = err.validator
    rule = sch.get("x-rule") or _KEYWORD_RULES.get(kw, "SCHEMA-VALUE")
    if kw in ("anyOf", "oneOf") and err.context:
        best = max(err.context, key=lambda e: len(list(e.absolute_path)))
        return _translate(best, loaded, skip, schema_name)
    if kw == "additionalProperties":
        allowed = list(sch.get("properties", {}))
        out = []
        for key in err.instance:
            if key in allowed:
                continue
            near = _close(key, allowed, 0.6)
            if near:
                hint = f"did you mean '{near[0]}'?"
            else:
                hint = "remove it; allowed here: " + ", ".join(allowed) if allowed else "remove it"
            out.append(Finding("SCHEMA-UNKNOWN-KEY", "error", f"unknown key '{key}'",
                               loaded.location(pointer_join(ptr, key), key=True), hint))
        return out
    loc = loaded.location(ptr)
    if kw == "required":
        missing = err.message.split("'")[1] if "'" in err.message else err.message
        return [Finding("SCHEMA-REQUIRED", "error", f"{label} needs '{missing}'", loc,
                        f"add {missing}: ... (see acap's README, \"operator.yaml reference\", "
                        "or the commented operator.yaml that acap init writes)")]
    if kw == "type":
        if err.instance is None:
            return [Finding(rule if rule.startswith("OR-") else "SCHEMA-EMPTY", "error",
                            f"{label} has no value", loc,
                            "write a value after the colon" if required_at(loaded, schema_name, ptr)
                            else "write a value after the colon, or delete the line")]
        want = err.validator_value
        hint = f"write {_type_word(want)}"
        if want == "array":
            item = (f"[{err.instance}]" if isinstance(err.instance, str)
                    else "[first, second]")
            key = ptr.rsplit("/", 1)[-1]
            hint = (f"write a list: {key}: {item}, or one '- ' line per item under "
                    f"{key}:")
        quoted = ptr in loaded.quoted and isinstance(err.instance, str)
        if want == "boolean":
            hint = "remove the quotes: write true or false" if quoted else "write true or false"
        elif want in ("integer", "number"):
            example = "2" if want == "integer" else "2.5"
            hint = (f"remove the quotes: write {_type_word(want)} such as {example}" if quoted
                    else f"write {_type_word(want)} such as {example}")
        return [Finding(rule, "error",
                        f"{label} must be {_type_word(want)}, "
                        f"found {_found(err.instance)}", loc, hint)]
    if kw in ("enum", "const"):
        options = [str(o) for o in (sch.get("enum") or [sch.get("const")])]
        near = _close(str(err.instance), options, 0.5)
        hint = f"did you mean '{near[0]}'?" if near else "write one of: " + ", ".join(options)
        return [Finding(rule, "error", f"{label} cannot be {_found(err.instance)}; "
                        f"it is one of: {', '.join(options)}", loc, hint)]
    if kw in ("minItems", "minProperties"):
        return [Finding(rule, "error", f"{label} is empty", loc, "give at least one entry")]
    if kw == "minLength":
        return [Finding(rule if rule.startswith("OR-") else "SCHEMA-EMPTY", "error",
                        f"{label} is empty", loc,
                        "write the text" if required_at(loaded, schema_name, ptr)
                        else "write the text, or delete the line")]
    if kw in ("minimum", "maximum"):
        bound = "at least" if kw == "minimum" else "at most"
        return [Finding(rule, "error", f"{label} is {err.instance}; it must be {bound} "
                        f"{err.validator_value}", loc,
                        f"write a number {bound} {err.validator_value}")]
    return [Finding(rule, "error", f"{label}: {err.message}", loc, None)]

