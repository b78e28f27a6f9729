"""personEntry values: an https address, or a telephone number (OR-3.4).

Telephone numbers are validated and written in RFC 3966 global form by the
``phonenumbers`` library (libphonenumber's data), so ``+44 20 7946 0000`` in
operator.yaml becomes ``tel:+44-20-7946-0000`` in the card: no spaces, and the
same string for every caller.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Phone:
    """A parsed telephone number.

    Attributes:
        tel: RFC 3966 global form, ``tel:+44-20-7946-0000``.
        display: international display form, ``+44 20 7946 0000``.
        e164: E.164, ``+442079460000``.
    """

    tel: str
    display: str
    e164: str


def looks_like_phone(value: str) -> bool:
    """True when ``value`` is meant as a telephone number (``tel:`` or a leading ``+``)."""
    v = value.strip()
    return v.lower().startswith("tel:") or v.startswith("+")


#: An extension at the end of a number, in the forms libphonenumber reads as one
#: (``ext 12``, ``ext. 12``, ``extension 12``, ``x12``, ``#12``, ``;ext=12``). Own code:
#: phonenumbers has no public "where does the extension start", and what is left
#: must be searched for letters, which it would read as keypad digits.
_EXTENSION = re.compile(r"(?:;\s*ext=|(?:ext(?:ension|n)?\.?|x|#)\s*)\d+#?\s*$", re.I)
#: A run of letters (any script).
_LETTERS = re.compile(r"[^\W\d_]+")


def phone_letters(value: str) -> list[str]:
    """The words of letters in a telephone number: ``"0049-30-12345678-tel"`` ->
    ``["tel"]``; ``[]`` for ``"+49 30 12345678 ext 12"`` and ``"tel:+49-30-123"`` (a
    leading ``tel:`` and an extension marker followed by digits are not letters of the
    number).

    libphonenumber reads letters as the letters on a telephone keypad
    (``+1 800 FLOWERS`` -> ``+1 800 3569377``), which turns a typo into another
    person's number; acap takes numbers in digits only (OR-3.4, PAGE-PHONE).
    """
    text = value.strip()
    if text[:4].lower() == "tel:":
        text = text[4:]
    return _LETTERS.findall(_EXTENSION.sub("", text))


def parse_phone(value: str) -> Phone | None:
    """Parse a number in international form (``+...`` or ``tel:+...``).

    Returns:
        A :class:`Phone`, or ``None`` when it is not a valid number in global
        form (a local number without ``+country`` is not: callers are anywhere).
    """
    text = value.strip()
    if text.lower().startswith("tel:"):
        text = text[4:].split(";", 1)[0]
    if not text.startswith("+"):
        return None
    return _parse(text, None)


def parse_local_phone(value: str, region: str) -> Phone | None:
    """Parse a number as it is dialled in ``region`` (ISO 3166, ``DE``): ``089 1234567``
    -> the :class:`Phone` whose ``display`` is ``+49 89 1234567``; ``None`` when it is not
    a valid number there. For hints only: operator.yaml takes numbers in international
    form (:func:`parse_phone`), since callers are anywhere."""
    return _parse(value.strip(), region)


def _parse(text: str, region: str | None) -> Phone | None:
    if phone_letters(text):
        return None  # letters: phonenumbers would dial them as keypad digits
    import phonenumbers  # imported on first use: its metadata is large

    try:
        num = phonenumbers.parse(text, region)
    except phonenumbers.NumberParseException:
        return None
    if not phonenumbers.is_valid_number(num):
        return None
    fmt = phonenumbers.PhoneNumberFormat
    return Phone(phonenumbers.format_number(num, fmt.RFC3966),
                 phonenumbers.format_number(num, fmt.INTERNATIONAL),
                 phonenumbers.format_number(num, fmt.E164))


def normalise_person_entry(value: str) -> str:
    """The personEntry as written in the card.

    A telephone number becomes its RFC 3966 ``tel:`` URI; anything else is
    returned stripped of surrounding space (checks report what is wrong with it).
    """
    if looks_like_phone(value):
        phone = parse_phone(value)
        if phone:
            return phone.tel
    return value.strip()
