"""The operator's country, for hints that suggest a telephone number.

A telephone number in operator.yaml is written in international form (``+49 89
1234567``): callers are anywhere. When one is not, the hint shows the form in the
operator's own country, not a British example to a practice in München. The
country is taken, first found, from:

1. a telephone number of operator.yaml that is in international form
   (``contact.phone``, a personEntry): libphonenumber knows its region;
2. the country named at the end of ``contact.address`` ("..., Deutschland",
   "..., Royaume-Uni"): CLDR's country names, generated into
   ``acap/data/country-names.json`` by ``scripts/country_names.py``;
3. the country domain of the operator's website, card host or hosts (``.de``,
   ``.co.uk``), except domains sold for other uses (``.io``, ``.co``, ``.tv``...).

Nothing here runs unless a hint needs it: a valid operator.yaml costs nothing.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from functools import cache
from typing import Any
from urllib.parse import urlsplit

from acap._package import package_path
from acap.card import parse_local_phone, parse_phone, phone_letters
from acap.checks._words import fold

#: The example when the country is not known: a UK number reserved for drama (Ofcom).
FALLBACK_EXAMPLE = "+44 20 7946 0000"
#: Country domains mostly bought for their letters, not by people in the country.
_VANITY_DOMAINS = frozenset({"ac", "ai", "cc", "co", "fm", "gg", "im", "io", "la", "ly",
                             "me", "nu", "sh", "so", "tk", "to", "tv", "vc", "ws"})
#: Domains that differ from the ISO 3166 code of their country.
_DOMAIN_REGION = {"uk": "GB"}
_PARTS = re.compile(r"[,\n;]+")
_DIGITS = re.compile(r"\b[0-9][0-9 -]*\b")


@cache
def _country_names() -> dict[str, str]:
    names: dict[str, str] = json.loads(
        package_path("data", "country-names.json").read_bytes())["names"]
    return names


def _key(name: str) -> str:
    """A country name as the data file keeps it: folded (:func:`acap.checks._words.fold`),
    spaces collapsed."""
    return " ".join(fold(name).replace(".", ". ").split()).replace(". ", ".").strip()


def country_of_address(address: str) -> str | None:
    """The ISO 3166 region of the country an address ends with, or ``None``.

    The last part of the address (after the last comma or line break), without
    postcodes, is looked up among CLDR's country names in acap's page languages and
    in each country's own languages: ``"1 Example Street, Exampleton, United Kingdom"``
    and ``"Marienplatz 1\\n80331 München\\nDeutschland"`` give ``GB`` and ``DE``; an
    address that names no country (``"80331 München"``) gives ``None``.
    """
    parts = [p.strip() for p in _PARTS.split(address) if p.strip()]
    if not parts:
        return None
    last = _DIGITS.sub(" ", parts[-1])
    return _country_names().get(_key(last))


def country_of_host(host: str) -> str | None:
    """The region of a host's country domain (``praxis-muenchen.de`` -> ``DE``,
    ``example.co.uk`` -> ``GB``), or ``None`` for a generic or vanity domain."""
    tld = host.lower().rstrip(".").rsplit(".", 1)[-1]
    if len(tld) != 2 or not tld.isascii() or not tld.isalpha() or tld in _VANITY_DOMAINS:
        return None
    return _DOMAIN_REGION.get(tld, tld.upper())


def _region_of_number(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    phone = parse_phone(value)
    if phone is None:
        return None
    import phonenumbers  # parse_phone imported it already

    region: str | None = phonenumbers.region_code_for_number(phonenumbers.parse(phone.e164))
    return region if region and region != "001" else None


def operator_country(data: Mapping[str, Any]) -> str | None:
    """The operator's country (ISO 3166 region) from operator.yaml's data, or ``None``;
    see the module docstring for the order.

    Args:
        data: operator.yaml as loaded (any shape: what is not text is skipped).
    """
    contact = _mapping(data.get("contact"))
    skills = data.get("skills")
    skills = skills if isinstance(skills, list) else []
    numbers = [contact.get("phone")] + [s.get("personEntry") for s in skills
                                        if isinstance(s, dict)]
    for n in numbers:
        region = _region_of_number(n)
        if region:
            return region
    address = contact.get("address")
    if isinstance(address, str):
        region = country_of_address(address)
        if region:
            return region
    return country_of_hosts(_operator_hosts(data))


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def country_of_hosts(hosts: Iterable[str]) -> str | None:
    """The first country domain among ``hosts`` (see :func:`country_of_host`)."""
    for host in hosts:
        region = country_of_host(host)
        if region:
            return region
    return None


def _operator_hosts(data: Mapping[str, Any]) -> list[str]:
    op = _mapping(data.get("operator"))
    out = []
    website = op.get("website")
    if isinstance(website, str):
        out.append(urlsplit(website.strip()).hostname or "")
    if isinstance(data.get("cardHost"), str):
        out.append(data["cardHost"])
    if isinstance(data.get("hosts"), dict):
        out += [str(h) for h in data["hosts"]]
    return [h for h in out if h]


def phone_example(country: str | None) -> str:
    """A telephone number of ``country`` in international form (libphonenumber's example
    of a fixed line there, ``+49 30 123456`` for ``DE``), or :data:`FALLBACK_EXAMPLE`."""
    if not country:
        return FALLBACK_EXAMPLE
    import phonenumbers  # start-up: its metadata is large; only for a phone hint

    num = phonenumbers.example_number_for_type(country, phonenumbers.PhoneNumberType.FIXED_LINE)
    if num is None:
        return FALLBACK_EXAMPLE
    return str(phonenumbers.format_number(num, phonenumbers.PhoneNumberFormat.INTERNATIONAL))


def international_form(value: str, country: str | None) -> str | None:
    """``value``, a number as dialled in ``country`` (``089 1234567``), in international
    form (``+49 89 1234567``); ``None`` when it is not a valid number there."""
    phone = parse_local_phone(value, country) if country else None
    return phone.display if phone else None


def letters_hint(value: str) -> str | None:
    """The hint for a telephone number with letters in it (see
    :func:`acap.card.phone_letters`), which no converted number may answer:
    ``"0049-30-12345678-tel"`` -> ``"a telephone number has only digits, spaces, +, -
    and ( ): remove 'tel'"``; ``None`` when it has no letters."""
    words = phone_letters(value)
    if not words:
        return None
    shown = ", ".join(f"'{w}'" for w in dict.fromkeys(words))
    return f"a telephone number has only digits, spaces, +, - and ( ): remove {shown}"


def phone_hint(value: str, country: str | None) -> str:
    """The hint for a telephone number that is not in international form: the number
    itself in that form when it is a valid number in the operator's ``country``, else
    an example number of that country.

    ``("089 1234567", "DE")`` -> ``"write it with + and the country code: +49 89
    1234567"``; ``("1234", "DE")`` -> ``"write it with + and the country code, e.g.
    +49 30 123456"``; a number with letters gets :func:`letters_hint`, never a number
    phonenumbers made of them.
    """
    letters = letters_hint(value)
    if letters:
        return letters
    exact = international_form(value, country)
    if exact:
        return f"write it with + and the country code: {exact}"
    return f"write it with + and the country code, e.g. {phone_example(country)}"
