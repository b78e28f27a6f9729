"""personEntry: OR-3.4 (an https address on the operator's own origin, or a ``tel:`` number)
and OR-3.8 (nothing about the person: no query, fragment, user info or revealing path; the
same for every caller).

Telephone numbers are validated by the ``phonenumbers`` library through
:mod:`acap.card._person_entry`. Path words come from the maintained word list
``acap/data/circumstance-words.json`` (:mod:`acap.checks._words`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from urllib.parse import unquote

from acap.card import looks_like_phone, origin_of, parse_phone
from acap.checks._country import letters_hint, phone_example, phone_hint
from acap.checks._facts import Subject
from acap.checks._urls import Problem, split, url_problems
from acap.checks._words import is_text_example, revealing_word
from acap.findings import Finding
from acap.site import path_fault

_LOCAL_NUMBER = re.compile(r"[0-9][0-9 ()./-]{5,}")
#: A template written escaped (``%7Bid%7D``), or with ``$``: a guess (raw braces are
#: URL-FORM's, see :data:`_NOT_IN_URI`).
_TEMPLATE = re.compile(r"\$|%7[bd]|%3[ce]|%24", re.IGNORECASE)
_IDENTIFIER = re.compile(
    r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"  # a UUID
    r"|(?=[0-9a-z]*[0-9])(?=[0-9a-z]*[a-z])[0-9a-z]{16,}"  # a long token of letters and digits
    r"|[0-9]{6,}",  # a long number
    re.IGNORECASE)
#: The final dot of an origin's host (``https://ask.example.com.:8443``): URL-FORM's fault.
#: It starts at the first dot of a run (not at each dot of "....x": work linear in the text).
_FINAL_DOT = re.compile(r"(?<!\.)\.+(?=(:[0-9]*)?$)")


def check(sub: Subject) -> Iterator[Finding]:
    """OR-3.4 and OR-3.8 for every on-request skill of ``sub``: the value itself
    (:func:`person_entry_problems`, the judgement a reply's §6.1 personEntry gets too) and, for
    an https address, its origin (:func:`origin_problems`)."""
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
        found = person_entry_problems(value, in_card=sub.is_card, person_acts=s.person_acts,
                               country=sub.country)
        if is_https(value) and not any(p.rule == "OR-3.4" and p.level == "error"
                                       for p in found):
            found += origin_problems(value, sub)
        if not sub.is_card and not found and not is_https(value):
            found += acts_undeclared(s.action, "personActs" in s.entry)
        for p in found:
            yield sub.finding(p.rule, p.level, f"personEntry of {s.label}: {p.message}", ptr,
                              p.hint)


def acts_undeclared(action: bool | None, said: bool) -> list[Problem]:
    """OR-3.4 (a guess, warning): a telephone personEntry on an action skill of
    operator.yaml that does not say whether the person carries the action out themselves
    (``personActs`` absent). The text asks an https address only of such an action
    (OR-3.4, §6.1 action-referred); a referred action may as well be one a call to the
    operator completes, so acap does not assume either and asks the operator to say.

    Args:
        action: the skill's ``action`` (``True``: it changes something).
        said: the skill has a ``personActs`` key (true or false).

    Returns:
        One warning, or nothing.
    """
    if action is not True or said:
        return []
    return [Problem("OR-3.4", "warning", "a telephone number for an action, and personActs is "
                    "not said: if the person must carry the action out themselves, personEntry "
                    "must be an https address (a guess: acap cannot tell which it is)",
                    "say personActs: false if a call to you completes it; else say personActs: "
                    "true and give the https address of the page where the person does it")]


def is_https(value: str) -> bool:
    """True for an address whose scheme is https (in any case, RFC 3986 §3.1)."""
    return value.strip()[:8].lower() == "https://"


def person_entry_problems(value: str, *, in_card: bool, person_acts: bool | None = False,
                   country: Callable[[], str | None] = lambda: None) -> list[Problem]:
    """Every OR-3.4, OR-3.8 and URL problem of one personEntry value, whatever shows it:
    operator.yaml, a card, or the §6.1 object of a reply (one judgement per fact). The
    origin is judged apart (:func:`origin_problems`): only operator.yaml and a card say
    whose it is.

    Args:
        value: the personEntry as written.
        in_card: it is written in a card or a reply (``tel:`` needed), not operator.yaml
            (which takes ``+44 ...`` and local forms, with a hint).
        person_acts: the person carries the action out themselves (an https address is
            needed); ``None``/``False`` when not known or not so.
        country: the operator's country, for a hint that writes a local number in
            international form.
    """
    if in_card and value.lower().startswith("tel:"):
        return _tel_in_card(value)
    if looks_like_phone(value) or (not in_card and _LOCAL_NUMBER.fullmatch(value.strip())):
        return _phone(value, in_card, person_acts, country)
    return _address(value, in_card)


def _phone(value: str, in_card: bool, person_acts: bool | None,
           country: Callable[[], str | None]) -> list[Problem]:
    phone = parse_phone(value)
    if in_card:
        hint = letters_hint(value) or (f"write {phone.tel}" if phone
                                       else "write tel:+<country code>-<number>")
        return [Problem("OR-3.4", "error", f"'{value}' is a telephone number without tel:",
                        hint)]
    if phone is None:
        if not value.strip().startswith(("+", "tel:+", "TEL:+")):
            return [Problem("OR-3.4", "error", f"'{value}' is not in international form",
                            phone_hint(value, country()))]
        return [Problem("OR-3.4", "error", f"'{value}' is not a valid telephone number",
                        letters_hint(value) or "check the digits and the country code, e.g. "
                        f"{phone_example(country())}")]
    if person_acts:
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


#: Characters RFC 3986 §2 never lets an address hold unescaped, which a template uses.
_NOT_IN_URI = re.compile(r"[{}<>\"^`|]")


def _address(value: str, in_card: bool) -> list[Problem]:
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
    out = url_problems(value, what="the address")
    odd = _NOT_IN_URI.search(value)
    if odd and not out:
        out.append(Problem("URL-FORM", "error", f"it holds '{odd.group(0)}', a character web "
                           "addresses never hold as it is; in a personEntry it reads as a "
                           "template filled in for each caller", "use one fixed address "
                           "for everyone, such as /talk"))
    if not any(p.rule == "URL-FORM" for p in out):
        out.extend(site_path_problems(parts.path, in_card))
    return out + said_about_the_person(parts.path, parts.query, parts.fragment)


def said_about_the_person(path: str, query: str, fragment: str) -> list[Problem]:
    """OR-3.8: what an https personEntry's path, query and fragment say about the person
    who follows it. The text forbids query-string context (a query string: an error; an
    empty ``?`` says nothing) and a path such as /bereavement (that word and its family:
    an error); every other word of acap's list, a template written escaped, and a segment
    that looks like a person's or a case's identifier are guesses (warnings that say so),
    in the path or in the fragment alike. A neutral fragment (``#ask``) says nothing."""
    out: list[Problem] = []
    if query:
        out.append(Problem("OR-3.8", "error", f"it carries a query string (?{query}); "
                           "personEntry is the same address for every caller and says nothing "
                           "about them", "remove everything from ? on"))
    for where, text in (("path", path), ("fragment", fragment)):
        out.extend(_revealing(where, text))
    return out


#: OR-3.8's fix: a path that says nothing about the person, in any language (the
#: operator's page may well not be English: a Valencian clinic's /consulta is as neutral).
NEUTRAL_PATH = ("use a neutral path such as /talk or /ask, or a word of your page's language "
                "that says nothing about the person (/consulta, /contacte)")


def _revealing(where: str, text: str) -> list[Problem]:
    """OR-3.8 in one part (``path`` or ``fragment``) of an https personEntry."""
    out: list[Problem] = []
    found = revealing_word(text)
    if found and is_text_example(found[0]):
        out.append(Problem("OR-3.8", "error", f"its {where} has '{found[0]}', the text's own "
                           "example of a word that reveals the person's circumstances to "
                           "anyone who sees the address", NEUTRAL_PATH))
    elif found:
        out.append(Problem("OR-3.8", "warning", f"its {where} has '{found[0]}', which may "
                           "reveal the person's circumstances to anyone who sees the address "
                           f"(a guess from acap's word list, entry '{found[1].entry}')",
                           f"if it says something about the person, {NEUTRAL_PATH}; if it "
                           "names only your business, this can stay"))
    if _TEMPLATE.search(text):
        out.append(Problem("OR-3.8", "warning", f"its {where} looks like a template filled in "
                           "for each caller (a guess)", "use one fixed address for everyone"))
    for segment in unquote(text).split("/"):
        if _IDENTIFIER.fullmatch(segment):
            out.append(Problem("OR-3.8", "warning", f"its {where} has '{segment}', which looks "
                               "like an identifier of a person or a case (a guess)",
                               "use one fixed address for everyone, such as /talk"))
            break
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


def _own_origin_hint(origin: str, port: int | None, sub: Subject) -> str:
    """The fix of an operator.yaml personEntry on an origin not declared as the
    operator's: a page of the operator's own website; else, only where the operator
    controls that origin, one of two declarations that mean different things: ``hosts:``
    (acap builds the page there, and publishes that host) or ``ownOrigins:`` (the page is
    the operator's already, and acap builds nothing there: the build then says the
    operator must make sure it exists). A host with a port of its own cannot be a host
    acap builds (a host folder has no port): only ``ownOrigins`` is offered."""
    host = origin.split("://", 1)[-1]
    own = (f"if that page is already yours and acap should not build it, declare the "
           f"origin at the top level: ownOrigins: [{origin}] (beside any origin already "
           "listed there)")
    start = ("give the address of a page on your own website (it may link to this one); "
             f"only if you control {origin}, that is, you decide what it shows (a page of "
             "yours on a booking platform is the platform's, not yours), declare it in "
             "operator.yaml")
    if port is not None and port != 443:
        return f"{start}: {own}"
    build_it = (f"add it under hosts: as a line {host}: {{}} (indented like the other hosts)"
                if sub.hosts_written else f"add at the top level: hosts: {{{host}: {{}}}}")
    return (f"{start}, in one of two ways: if acap should build the page there, {build_it} "
            f"and publish {host} too; {own}")


def origin_problems(value: str, sub: Subject) -> list[Problem]:
    """OR-3.4: an https personEntry is on an origin the operator controls. operator.yaml
    declares the operator's origins (its website, hosts and ``ownOrigins``): another
    origin is an error. A card says nothing of them: acap guesses from provider.url and
    the card's own host (their subdomains too), and another origin is a warning that says
    it is a guess; where neither is known, nothing can be guessed, and the card check
    says so (``sub.not_judged``) instead of passing it. Origins are compared in RFC 3986
    normal form (:func:`acap.card.origin_of`: case, default port)."""
    origin = origin_of(value)
    parts = split(value)
    if origin is None or parts is None or not parts.hostname:
        return []
    origin = _FINAL_DOT.sub("", origin)  # a final dot is URL-FORM's, said once
    if not sub.is_card and sub.own_origins is None:
        return []  # a value the origins come from has a fault, reported where it is
    if sub.own_origins is not None:
        if origin in {_FINAL_DOT.sub("", origin_of(o) or o) for o in sub.own_origins}:
            return []
        return [Problem("OR-3.4", "error", f"{origin} is not one of the websites you declare as "
                        "your own", _own_origin_hint(origin, parts.port, sub))]
    host = parts.hostname.rstrip(".")
    bases = set()
    for url in (sub.provider_url, sub.card_url):
        known = split(url) if url else None
        if known and known.hostname:
            bases.add(known.hostname.removeprefix("www."))
    if not bases:
        sub.not_judged.append(("OR-3.4", f"whether {origin} is an origin the operator controls: "
                               "the card names no provider.url and its URL is not known (give "
                               "--url, or check it at its https URL)"))
        return []
    if any(host == b or host.endswith("." + b) for b in bases):
        return []
    return [Problem("OR-3.4", "warning", f"{host} is neither the provider's host nor the card's "
                    f"({', '.join(sorted(bases))}); personEntry must be on an origin the "
                    "operator controls (a guess: a card does not say which origins are the "
                    "operator's)", "check that the operator controls this origin")]
