"""What a reply's text says: where to ask (OR-5.3, OR-6.2) and two wording heuristics.

* :func:`mentions_person_entry` decides whether a text gives the personEntry
  address: an https URL written with or without ``https://``, equal in RFC 3986
  normal form (host case, default port, escapes; a final ``/`` ignored), or a
  telephone number, with its extension, written in any form the ``phonenumbers``
  library recognises for the number's own country (``+44 20 7946 0000``,
  ``tel:+44-20-7946-0000``, ``020 7946 0000``).
* :func:`denies_existence` and :func:`claims_done` are English phrase lists.
  They cannot understand a reply; the checker reports what they find as
  warnings and says that it is a heuristic.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

# A token that may be a URL or a host/path written without its scheme.
_URLISH = re.compile(r"(?:[Hh][Tt][Tt][Pp][Ss]?://)?[A-Za-z0-9.-]+\.[A-Za-z]{2,}(?::\d+)?"
                     r"(?:/[^\s<>\"'()]*)?")
# The same where a token may start after the last one: with a scheme, or where no host
# character stands before it (a token starting after one would start one character earlier
# too). Searched with :data:`_URLISH` alone, the engine walked a run of host characters back
# to its last ".xx" once per character of it: a reply of "a.a.a. ... 1" took time growing
# with the square of its length.
_URLISH_START = re.compile(r"(?:[Hh][Tt][Tt][Pp][Ss]?://|(?<![A-Za-z0-9.-]))"
                           + _URLISH.pattern.removeprefix("(?:[Hh][Tt][Tt][Pp][Ss]?://)?"))


def url_tokens(text: str) -> Iterator[re.Match[str]]:
    """Each token of ``text`` that may be a URL, as ``_URLISH.finditer(text)`` finds them,
    in work linear in ``text``: the one place a token may start right after a host
    character (the end of the token before it) is tried on its own."""
    at = 0
    while True:
        m = _URLISH.match(text, at) or _URLISH_START.search(text, at + 1)
        if m is None:
            return
        yield m
        at = m.end()


_TRAILING = ".,;:!?"


def _as_url(token: str) -> str:
    """A token of text as an https URL: ``ask.example.com/talk`` -> ``https://ask.example.com/talk``."""
    return token if "://" in token else f"https://{token}"


def _same_for_a_reader(token: str, person_entry: str) -> bool:
    """True when the URL a person reads in the text is the personEntry: equal in RFC 3986
    normal form (:func:`acap.card.normal_url`: host case, default port, escapes), with or
    without ``https://``, and with or without a final ``/`` (a reader follows either to
    the same page; the §6.1 object itself is compared strictly, OR-6.1)."""
    # start-up: the card stage's address rules only when a reply is read
    from acap.card import normal_url

    a, b = normal_url(_as_url(token)), normal_url(person_entry)
    return a.lower().startswith("https://") and a.rstrip("/") == b.rstrip("/")


def display_person_entry(person_entry: str) -> str:
    """How a person reads personEntry: a URL as is, a ``tel:`` number as ``+44 20 7946 0000``."""
    if person_entry.lower().startswith("tel:"):
        # start-up: phone numbers (phonenumbers) only for a tel: personEntry
        from acap.card import parse_phone

        phone = parse_phone(person_entry)
        if phone is not None:
            return phone.display
        return person_entry[4:]
    return person_entry


def mentions_person_entry(text: str, person_entry: str) -> bool:
    """True when ``text`` gives the personEntry address so that a person can use it.

    Args:
        text: the reply text (the text parts of a Message, joined).
        person_entry: the card's personEntry (https URL or ``tel:`` URI).
    """
    if not text:
        return False
    if person_entry.lower().startswith("tel:"):
        return person_entry in text or _mentions_phone(text, person_entry)
    if not person_entry.lower().startswith("https://"):
        return False
    return any(_same_for_a_reader(m.group(0).rstrip(_TRAILING), person_entry)
               for m in url_tokens(text))


def _mentions_phone(text: str, tel: str) -> bool:
    import phonenumbers  # imported on first use: its metadata is large

    # start-up: phone numbers (phonenumbers) only for a tel: personEntry
    from acap.card import parse_phone

    phone = parse_phone(tel)
    if phone is None:
        return False
    try:  # the card's number with its extension (RFC 3966 ;ext=), as phonenumbers reads it
        want = phonenumbers.parse(tel, None)
    except phonenumbers.NumberParseException:
        return False
    region = phonenumbers.region_code_for_number(want)
    for match in phonenumbers.PhoneNumberMatcher(text, region):
        if phonenumbers.format_number(match.number,
                                      phonenumbers.PhoneNumberFormat.E164) == phone.e164 \
                and (match.number.extension or "") == (want.extension or ""):
            return True
    return False


# OR-5.3: "MUST NOT answer as though the information did not exist". "not available" is
# a denial, but "not available to assistants", "not available here" or "online" is how a
# correct referral says where it is available: those are not matched.
_DENIES = re.compile(
    r"\b(?:"
    r"no (?:such )?(?:information|details|data|record|price list|prices?)"
    r"|(?:do not|don't|does not|doesn't) (?:have|hold|keep) (?:that|this|any|such|an?|the)\b"
    r"|(?:do not|don't) know"
    r"|(?:does not|doesn't|do not|don't) exist"
    r"|(?:is|are) (?:not known|unknown)"
    r"|(?:not|isn't|aren't) available(?! (?:to|here|online|over|by|through|via|from|in|on|"
    r"for|at)\b)"
    r")\b",
    re.IGNORECASE,
)

# OR-5.8: "MUST NOT tell the assistant it is done". The verbs must follow the
# auxiliary directly, so "has not been booked" and "will be confirmed" do not match.
_DONE = re.compile(
    r"\b(?:"
    r"(?:is|are|was|were|has been|have been)\s+(?:now\s+)?"
    r"(?:booked|done|completed?|confirmed|arranged|scheduled|processed|carried out|sorted)"
    r"|(?:I|we)(?:'ve| have)\s+(?:booked|arranged|scheduled|confirmed|completed|done)"
    r"|all set|successfully"
    r")\b",
    re.IGNORECASE,
)


def denies_existence(text: str) -> str | None:
    """The first phrase in ``text`` that reads as if the information did not exist, or ``None``.

    A heuristic (English only) for OR-5.3's last sentence.
    """
    m = _DENIES.search(text)
    return m.group(0) if m else None


def claims_done(text: str) -> str | None:
    """The first phrase in ``text`` that says an action is done, or ``None``.

    A heuristic (English only) for OR-5.8.
    """
    m = _DONE.search(text)
    return m.group(0) if m else None
