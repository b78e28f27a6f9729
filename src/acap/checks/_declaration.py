"""Spec §3, declaration in the Agent Card: OR-3.1, OR-3.2, OR-3.3, OR-3.5, OR-3.6, OR-3.7,
A2A's unique skill ids (``A2A-SKILL-ID``) and the form of a skill id (``SKILL-ID``).

OR-3.4 and OR-3.8 (personEntry) are in :mod:`acap.checks._person_entry_rules`,
OR-3.9 (values given on request) in :mod:`acap.checks._on_request_values`.

In operator.yaml, acap writes the declaration itself, so OR-3.1 to OR-3.3 can
only go wrong where the file says one thing and the skill's ``kind`` another;
in a card every part of the declaration is checked.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator
from typing import Any

from acap.checks._facts import Subject, as_dict, as_list, is_near_extension_uri
from acap.checks._words import mentions
from acap.findings import Finding, Level
from acap.load import describe, hidden_characters
from acap.uris import EXTENSION_URI

COMPLETIONS = ("in-conversation", "deferred")
_ENTRY_FIELDS = ("id", "personEntry", "assistantAccess", "completion")


# -- both sources -------------------------------------------------------------------------


def skill_ids_unique(sub: Subject) -> Iterator[Finding]:
    """A2A: skill ids are unique in a card. Two on-request skills with one id would put it
    twice in params.skills (OR-3.3)."""
    first: dict[str, tuple[str, str]] = {}  # its place asked for only when it is needed
    for s in sub.skills:
        sid = s.id
        if sid is None:
            continue
        where = f"{s.ptr}/id"
        if sid in first:
            first_at, kind = first[sid]
            line = sub.at(first_at).line
            both_on_request = kind == "on-request" and s.kind == "on-request"
            if both_on_request and not sub.is_card:
                yield sub.finding("OR-3.3", "error", f"two on-request skills share the id '{sid}' "
                                  f"(first at line {line}): the card would list it twice",
                                  where, "give each skill its own id")
            else:
                yield sub.finding("A2A-SKILL-ID", "error", f"skill id '{sid}' is used twice "
                                  f"(first at line {line})", where, "give each skill its own id")
        else:
            first[sid] = (where, s.kind)


#: Characters a skill id may hold besides letters and digits.
ID_PUNCTUATION = "-._"
_NOT_ID = re.compile(r"[^\w.-]+|\.{2,}")


def skill_id_problem(sid: str) -> str | None:
    """What makes ``sid`` unfit as a skill id, in words, or ``None``.

    A skill id is written into the card's JSON, into params.skills, into
    operator.private.yaml and page translations, and comes back from agents as
    ``skillId`` in §6.1 replies, where it is compared character for character. So
    it holds letters, digits and ``- . _`` only: no space, slash or control
    character, no ``..`` (a step up in a path, wherever an id ends up in one), and
    nothing that Unicode compatibility normalisation (NFKC) changes, such as a
    full-width ``ｓ`` (U+FF53), which looks like ``s`` and is not. Invisible format
    characters are left to ``TEXT-INVISIBLE``.
    """

    hidden = set(hidden_characters(sid))
    for ch in sid:
        if ch in hidden:
            continue
        if ch == " ":
            return "a space"
        if ch in "/\\":
            return "a slash" if ch == "/" else "a backslash"
        if ch in "\n\r\t":
            return "a line break" if ch != "\t" else "a tab"
        if ch.isspace():
            return f"the space character {describe(ch)}"
        if unicodedata.category(ch).startswith("C"):  # private use, unassigned
            return f"the character {describe(ch)}"
        if unicodedata.normalize("NFKC", ch) != ch:
            return (f"the character '{ch}' ({unicodedata.name(ch, 'unnamed')}), a look-alike "
                    f"that other programs may read as '{unicodedata.normalize('NFKC', ch)}'")
        if not (ch.isalnum() or ch in ID_PUNCTUATION):
            return f"the character '{ch}'"
    if sid == "." or ".." in sid:
        return "'..', a step up in a path" if ".." in sid else "only a dot"
    return None


def suggested_id(sid: str) -> str:
    """``sid`` rewritten with letters, digits and ``- . _`` only (``service pricing`` ->
    ``service-pricing``, ``ｓervice`` -> ``service``); ``skill-id`` when nothing is left."""
    text = unicodedata.normalize("NFKC", sid)
    text = _NOT_ID.sub("-", text)
    text = re.sub(r"-{2,}", "-", text).strip("-.")
    return text or "skill-id"


def skill_id_form(sub: Subject) -> Iterator[Finding]:
    """SKILL-ID: each skill id has the form of :func:`skill_id_problem` (an error in
    operator.yaml; a warning in a card, since A2A itself sets no form)."""
    for s in sub.skills:
        sid = s.id
        problem = skill_id_problem(sid) if sid else None
        if problem is None or sid is None:
            continue
        level: Level = "warning" if sub.is_card else "error"
        yield sub.finding("SKILL-ID", level, f"skill id {sid!r} holds {problem}: an id is "
                          "written into the card's JSON and comes back as skillId in replies, "
                          "where it must match exactly", f"{s.ptr}/id",
                          f"write it with letters, digits and - . _ only, e.g. "
                          f"{suggested_id(sid)}")


def said_on_request(sub: Subject) -> Iterator[Finding]:
    """OR-3.1 (heuristic, warning): a public skill whose description says it is given on
    request; only the extension can say so to a client."""
    if any(not isinstance(as_dict(ext.get("params")).get("skills"), list)
           for _, ext in sub.declarations):
        return  # which skills the card lists is not known: OR-3.2's error says why
    for s in sub.skills:
        desc = s.data.get("description")
        if s.kind != "public" or not isinstance(desc, str) or not mentions("onRequest", desc):
            continue
        if sub.is_card:
            yield sub.finding("OR-3.1", "warning", f"{s.label} says it is given on request, but "
                              "the card does not list it in the On Request extension",
                              f"{s.ptr}/description",
                              f"declare {EXTENSION_URI} with an entry for this skill")
        else:
            yield sub.finding("OR-3.1", "warning", f"{s.label} says it is given on request, but "
                              f"it is kind: {s.kind}, so the card will not declare it",
                              f"{s.ptr}/kind", "make it kind: on-request, with a personEntry")


def no_sign_in_on_request(sub: Subject) -> Iterator[Finding]:
    """OR-3.7: a skill on request never carries securityRequirements (signIn)."""
    for s in sub.on_request:
        if s.sign_in_ptr is None:
            continue
        if sub.is_card:
            yield sub.finding("OR-3.7", "error", f"{s.label} is listed on request and also "
                              "carries securityRequirements", s.sign_in_ptr,
                              "a skill is on request or sign-in, not both: remove one")
        else:
            yield sub.finding("OR-3.7", "error", f"on-request {s.label} also has signIn",
                              s.sign_in_ptr, "a skill is on request or sign-in, not both: "
                              "remove signIn, or make it kind: sign-in", key=True)


# -- operator.yaml ------------------------------------------------------------------------


def operator_fields(sub: Subject) -> Iterator[Finding]:
    """OR-3.2 (on-request fields on another kind of skill), OR-3.6 (never in-conversation
    where a step waits on a person) and ``SKILL-ACTION`` (completion on a skill not said to
    be an action: the text is silent there, so acap's own rule, a warning)."""
    for s in sub.skills:
        d = s.data
        if s.kind != "on-request":
            for name in ("personEntry", "assistantAccess", "completion"):
                if name in d:
                    yield sub.finding("OR-3.2", "error", f"{name} belongs to on-request skills, "
                                      f"and {s.label} is {s.kind}: the card would not list it",
                                      f"{s.ptr}/{name}",
                                      f"remove {name}, or make the skill kind: on-request",
                                      key=True)
            continue
        if "completion" in d and s.action is False:
            # OR-3.6 is silent on completion elsewhere: acap's own rule, a warning
            yield sub.finding("SKILL-ACTION", "warning", f"{s.label} has completion but does "
                              "not say action: true; clients read completion as saying the "
                              "skill changes something in your systems, and refer it as an "
                              "action", f"{s.ptr}/completion",
                              "add action: true if it books, requests or records something; "
                              "otherwise remove completion", key=True)
        if d.get("completion") == "in-conversation" and s.waits_on_person:
            yield sub.finding("OR-3.6", "error", f"{s.label} is completion: in-conversation but a "
                              "step waits on a person (waitsOnPerson: true)",
                              f"{s.ptr}/completion", "write completion: deferred")


# -- a card -------------------------------------------------------------------------------


def card_declaration(sub: Subject, card: dict[str, Any]) -> Iterator[Finding]:
    """OR-3.1 to OR-3.3, OR-3.5, OR-3.6 and OR-3.7 on the extension as a card declares it."""
    exact = [p for p, e in sub.declarations if e.get("uri") == EXTENSION_URI]
    for ptr in exact[1:]:
        yield sub.finding("OR-3.1", "error", "the On Request extension is declared twice",
                          f"{ptr}/uri", "declare it once, with every on-request skill in its "
                          "params.skills")
    for ptr, ext in sub.declarations:
        uri = ext.get("uri")
        if is_near_extension_uri(uri):
            yield sub.finding("OR-3.1", "error", f"extension uri '{uri}' is not exactly the On "
                              "Request URI: clients compare it character for character",
                              f"{ptr}/uri", f"write {EXTENSION_URI}")
        if ext.get("required") is True:
            yield sub.finding("OR-3.1", "error", "the On Request extension is marked required: "
                              "true; a client that does not know it must still get a usable reply",
                              f"{ptr}/required", "write required: false (or leave it out)")
        yield from _params(sub, ptr, ext)
    yield from _security_for_all(sub, card)


def _params(sub: Subject, ptr: str, ext: dict[str, Any]) -> Iterator[Finding]:
    params = ext.get("params")
    if not isinstance(params, dict):
        yield sub.finding("OR-3.2", "error", "the On Request extension has no params object",
                          ptr, 'add "params": {"skills": [...]}, one entry per on-request skill')
        return
    for key in params:
        if key != "skills":
            yield sub.finding("OR-3.2", "warning", f"params.{key} is not part of the On Request "
                              "extension (v1)", f"{ptr}/params/{key}", _unknown_key_hint(
                                  key, ("skills",)))
    entries = params.get("skills")
    if entries == []:
        return  # no skill on request: OR-3.2's "one entry per on-request skill" is zero
    if not isinstance(entries, list):
        what = "missing" if entries is None else "not a list"
        yield sub.finding("OR-3.2", "error", f"params.skills is {what}: it lists one entry per "
                          "on-request skill", f"{ptr}/params", "list each on-request skill, or "
                          "remove the extension if no skill is on request")
        return
    skill_ids = {s.id for s in sub.skills if s.id}
    seen: dict[str, int | None] = {}
    for j, e in enumerate(entries):
        yield from _entry(sub, f"{ptr}/params/skills/{j}", j, e, skill_ids, seen)


def _unknown_key_hint(key: str, known: Iterable[str]) -> str:
    """The fix of a member the extension does not define: the nearest one it does (a
    typo, ``personEntri`` -> ``personEntry``: as written, it is ignored), else remove it."""
    import difflib  # start-up: only for a did-you-mean

    near = difflib.get_close_matches(key, sorted(known), n=1, cutoff=0.75)
    return f"did you mean {near[0]}? (as written, it is ignored)" if near else "remove it"


def _entry(sub: Subject, eptr: str, j: int, e: Any, skill_ids: set[str],
           seen: dict[str, int | None]) -> Iterator[Finding]:
    """OR-3.2, OR-3.3, OR-3.5, OR-3.6 for one entry of params.skills (``seen``: the ids
    of the entries before it, with their lines)."""
    if not isinstance(e, dict):
        yield sub.finding("OR-3.2", "error", f"params.skills[{j}] is not an object", eptr,
                          'write {"id": ..., "personEntry": ...}')
        return
    for key in e:
        if key not in _ENTRY_FIELDS:
            yield sub.finding("OR-3.2", "warning", f"params.skills[{j}].{key} is not part of "
                              "the On Request extension (v1)", f"{eptr}/{key}",
                              _unknown_key_hint(key, _ENTRY_FIELDS))
    sid = e.get("id")
    if not isinstance(sid, str) or not sid:
        yield sub.finding("OR-3.3", "error", f"params.skills[{j}] has no id", eptr,
                          "add the id of the AgentSkill it is about")
    elif sid not in skill_ids:
        yield sub.finding("OR-3.3", "error", f"params.skills[{j}] names '{sid}', which is not "
                          "the id of a skill in this card", f"{eptr}/id",
                          "use the id of one of the card's skills")
    elif sid in seen:
        yield sub.finding("OR-3.3", "error", f"'{sid}' appears twice in params.skills (first "
                          f"at line {seen[sid]})", f"{eptr}/id", "keep one entry per skill")
    else:
        seen[sid] = sub.at(f"{eptr}/id").line
    if "assistantAccess" in e and not isinstance(e["assistantAccess"], bool):
        yield sub.finding("OR-3.5", "error", f"assistantAccess of params.skills[{j}] must be "
                          f"true or false, found {e['assistantAccess']!r}",
                          f"{eptr}/assistantAccess", "write true or false, without quotes")
    if "completion" in e and e["completion"] not in COMPLETIONS:
        yield sub.finding("OR-3.6", "error", f"completion of params.skills[{j}] is "
                          f"{e['completion']!r}; it is in-conversation or deferred",
                          f"{eptr}/completion", "write in-conversation or deferred")


def _security_for_all(sub: Subject, card: dict[str, Any]) -> Iterator[Finding]:
    """OR-3.7: card-wide securityRequirements apply to on-request skills too."""
    if as_list(card.get("securityRequirements")) and sub.on_request:
        names = ", ".join(f"'{s.id}'" for s in sub.on_request)
        yield sub.finding("OR-3.7", "warning", "the card's own securityRequirements ask every "
                          f"client to sign in, on-request skills ({names}) included",
                          "/securityRequirements", "put securityRequirements on the sign-in "
                          "skills instead")

