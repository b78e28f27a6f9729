"""personEntry: OR-3.4 (an https address on the operator's own origin, or a ``tel:`` number)
and OR-3.8 (nothing about the person: no query, fragment, user info or revealing path; the
same for every caller).

Telephone numbers are validated by the ``phonenumbers`` library through
:mod:`acap.card._person_entry`. Path words come from the maintained word list
``acap/data/circumstance-words.json`` (:mod:`acap.checks._words`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from urllib.parse import unquote

from acap.card import looks_like_phone, parse_phone
from acap.checks._country import letters_hint, phone_example, phone_hint
from acap.checks._facts import SkillFacts, Subject
from acap.checks._urls import Problem, split, url_problems
from acap.checks._words import revealing_word
from acap.findings import Finding
from acap.site import path_fault

_LOCAL_NUMBER = re.compile(r"[0-9][0-9 ()./-]{5,}")
_TEMPLATE = re.compile(r"[{}<>$]|%7[bd]|%3[ce]|%24", re.IGNORECASE)
_IDENTIFIER = re.compile(
    r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"  # a UUID
    r"|(?=[0-9a-z]*[0-9])(?=[0-9a-z]*[a-z])[0-9a-z]{16,}"  # a long token of letters and digits
    r"|[0-9]{6,}",  # a long number
    re.IGNORECASE)
#: The final dot of an origin's host (``https://ask.example.com.:8443``): URL-FORM's fault.
_FINAL_DOT = re.compile(r"\.+(?=(:[0-9]*)?$)")


def check(sub: Subject) -> Iterator[Finding]:
    """OR-3.4 and OR-3.8 for every on-request skill of ``sub``."""
    for s in sub.on_request:
        assert s.entry is not None
        ptr = s.field_ptr("personEntry")
        if ptr in sub.reported:
            continue  # its value (or a near-miss key meant as personEntry) is reported
        if "personEntry" not in s.entry or s.entry["personEntry"] in (None, ""):
            where = ptr if "personEntry" in s.entry else (s.entry_ptr or s.ptr)
            if not sub.is_card:
                where = f"{s.ptr}/kind"
            yield sub.finding("OR-3.4", "error", f"on-request {s.label} has no personEntry", where,
                              "add personEntry: the https address or phone number where a "
                              "person asks")
            continue
        value = s.entry["personEntry"]
        if not isinstance(value, str):
            yield sub.finding("OR-3.4", "error", f"personEntry of {s.label} must be text, found "
                              f"{value!r}", ptr, "write the https address or tel: number")
            continue
        for p in problems(value, sub, s):
            yield sub.finding(p.rule, p.level, f"personEntry of {s.label}: {p.message}", ptr,
                              p.hint)


def problems(value: str, sub: Subject, skill: SkillFacts) -> list[Problem]:
    """Every OR-3.4 / OR-3.8 / URL problem of one personEntry value.

    Args:
        value: the personEntry as written.
        sub: where it is (operator.yaml accepts ``+44 ...``; a card needs ``tel:``).
        skill: its skill (``person_acts`` needs an https address).
    """
    if sub.is_card and value.lower().startswith("tel:"):
        return _tel_in_card(value)
    if looks_like_phone(value) or (not sub.is_card and _LOCAL_NUMBER.fullmatch(value.strip())):
        return _phone(value, sub, skill)
    return _address(value, sub)


def _phone(value: str, sub: Subject, skill: SkillFacts) -> list[Problem]:
    phone = parse_phone(value)
    if sub.is_card:
        hint = letters_hint(value) or (f"write {phone.tel}" if phone
                                       else "write tel:+<country code>-<number>")
        return [Problem("OR-3.4", "error", f"'{value}' is a telephone number without tel:",
                        hint)]
    if phone is None:
        if not value.strip().startswith(("+", "tel:+", "TEL:+")):
            return [Problem("OR-3.4", "error", f"'{value}' is not in international form",
                            phone_hint(value, sub.country()))]
        return [Problem("OR-3.4", "error", f"'{value}' is not a valid telephone number",
                        letters_hint(value) or "check the digits and the country code, e.g. "
                        f"{phone_example(sub.country())}")]
    if skill.person_acts:
        return [Problem("OR-3.4", "error", "the person carries this action out themselves "
                        "(personActs: true), so personEntry must be an https address, not a "
                        "telephone number", "give the https address of the page where they do it")]
    return []


def _tel_in_card(value: str) -> list[Problem]:
    phone = parse_phone(value)
    fix = letters_hint(value) or (f"write {phone.tel}" if phone
                                  else "write tel:+<country code>-<number>")
    if any(ch.isspace() for ch in value):
        return [Problem("OR-3.4", "error", f"'{value}' has spaces; a tel: address has "
                        "none", fix)]
    if not value[4:].startswith("+"):
        return [Problem("OR-3.4", "error", f"'{value}' is not a global number (tel:+...)",
                        fix)]
    if phone is None:
        return [Problem("OR-3.4", "error", f"'{value}' is not a valid telephone number", fix)]
    return []


def _address(value: str, sub: Subject) -> list[Problem]:
    parts = split(value)
    if parts is None:
        return url_problems(value, what="the address")
    scheme = parts.scheme.lower()
    if not scheme:
        return [Problem("OR-3.4", "error", f"'{value}' is not an absolute address",
                        "write the full https:// address, or a phone number in "
                        "international form")]
    if scheme == "http":
        return [Problem("OR-3.4", "error", f"'{value}' is http, not https",
                        "use https://")]
    if scheme != "https":
        hint = "personEntry is an https address or a telephone number"
        if scheme == "mailto":
            hint += "; put the email address on the page personEntry points to (contact.email)"
        return [Problem("OR-3.4", "error", f"{scheme}: addresses are not allowed", hint)]
    out = [p for p in url_problems(value, what="the address")
           if "user name or password" not in p.message]
    if not any(p.rule == "URL-FORM" for p in out):
        out.extend(site_path_problems(parts.path, sub.is_card))
    if parts.username is not None or "@" in parts.netloc:
        out.append(Problem("OR-3.8", "error", "it carries user information before the host",
                           "remove the part before @"))
    if parts.query or value.endswith("?"):
        out.append(Problem("OR-3.8", "error", f"it carries a query string (?{parts.query}); "
                           "personEntry is the same address for every caller and says nothing "
                           "about them", "remove everything from ? on"))
    if parts.fragment or "#" in value:
        out.append(Problem("OR-3.8", "error", f"it carries a fragment (#{parts.fragment})",
                           "remove everything from # on"))
    if _TEMPLATE.search(parts.path):
        out.append(Problem("OR-3.8", "error", "its path looks like a template filled in for "
                           "each caller", "use one fixed address for everyone"))
    found = revealing_word(parts.path)
    if found:
        word, _entry = found
        out.append(Problem("OR-3.8", "error", f"its path has '{word}', which reveals the "
                           "person's circumstances to anyone who sees the address",
                           "use a neutral path such as /talk or /ask"))
    for segment in unquote(parts.path).split("/"):
        if _IDENTIFIER.fullmatch(segment):
            out.append(Problem("OR-3.8", "warning", f"its path segment '{segment}' looks like an "
                               "identifier of a person or a case", "use one fixed address for "
                               "everyone, such as /talk"))
            break
    out.extend(_own_origin(parts.hostname or "", parts.port, sub))
    return out


#: The one folder starting with a dot a personEntry may be in: acap writes it (RFC 8615).
WELL_KNOWN = ".well-known"


def site_path_problems(path: str, is_card: bool = False) -> list[Problem]:
    """The path of a personEntry address as the name of a file of site/: ``URL-FORM``
    when a percent-escape decodes to a control character (``%00``, ``%0A``: a NUL
    breaks the write, a line break adds rules to ``_headers``), a backslash, bytes that
    are not UTF-8, or when it holds ``%2F`` (see :func:`acap.site.path_fault`);
    ``SITE-PATH`` (operator.yaml only) for a folder or page whose name starts with a
    dot other than ``.well-known``: ``/.git/x`` would be written inside the web
    root's git repository, and a git-branch target drops it silently.

    Args:
        path: the URL's path as written.
        is_card: the address is a card's (no site is built from it).
    """
    fault = path_fault(path)
    if fault:
        return [Problem("URL-FORM", "error", f"its path {fault}",
                        "use a plain path of letters, digits and hyphens, such as /ask")]
    if is_card:
        return []
    for segment in unquote(path).split("/"):
        if segment.startswith(".") and segment != WELL_KNOWN:
            return [Problem("SITE-PATH", "error", f"its path has '{segment}', a name starting "
                            "with a dot: such folders are hidden or special to web servers "
                            "and git (a page in .git/ is lost or lands in the repository)",
                            "use a plain path of letters, digits and hyphens, such as /ask")]
    return []


def _own_origin(host: str, port: int | None, sub: Subject) -> list[Problem]:
    host = host.rstrip(".")  # a final dot is URL-FORM's, said once
    origin = f"https://{host}" + (f":{port}" if port is not None else "")
    if not sub.is_card and sub.own_origins is None:
        return []  # a value the origins come from has a fault, reported where it is
    if sub.own_origins is not None:
        if origin in {_FINAL_DOT.sub("", o) for o in sub.own_origins}:
            return []
        return [Problem("OR-3.4", "error", f"{origin} is not one of the websites you declare as "
                        "your own", "give the address of a page on your own website (it may "
                        "link to this one); only if you control this address, that is, you "
                        "decide what it shows (a page of yours on a booking platform is the "
                        "platform's, not yours), declare it at the top level of operator.yaml: "
                        f"ownOrigins: [{origin}] (beside any origin already listed there)")]
    # A card: the operator's origins are not known. Accept the provider's host, the card's
    # host and their subdomains; anything else is worth a look, not an error.
    bases = set()
    for url in (sub.provider_url, sub.card_url):
        parts = split(url) if url else None
        if parts and parts.hostname:
            bases.add(parts.hostname.removeprefix("www."))
    if not bases or any(host == b or host.endswith("." + b) for b in bases):
        return []
    return [Problem("OR-3.4", "warning", f"{host} is neither the provider's host nor the card's "
                    f"({', '.join(sorted(bases))}); personEntry must be on an origin the "
                    "operator controls", "check that the operator controls this origin")]
