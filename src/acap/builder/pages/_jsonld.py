"""JSON-LD (schema.org) for the operator and its contact point on the personEntry page.

What it says: the business (``Organization``: name, website, address, email)
and one ``ContactPoint`` whose ``url`` is the personEntry, with the telephone,
``contactType``, ``availableLanguage`` (BCP 47 tags) and the opening hours as
an ``OpeningHoursSpecification`` whose ``description`` is the operator's
text (operator.yaml gives hours in words, not in schema.org's machine form).
Never a price, an offer or a price range: the page is where a person asks
for what is given on request (OR-3.9), so nothing of it is published here.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from markupsafe import Markup

if TYPE_CHECKING:
    from markupsafe import Markup

#: schema.org's contactType for the point where a person asks the business.
CONTACT_TYPE = "customer service"
#: Keys that must never appear: what a price or an offer would be published under.
FORBIDDEN_KEYS = frozenset({"price", "priceRange", "priceSpecification", "offers",
                            "makesOffer", "hasOfferCatalog", "priceCurrency", "Offer"})


def organization(*, name: str, website: str | None, url: str, phone: str | None,
                 email: str | None, address: str | None, hours: str | None,
                 languages: list[str]) -> dict[str, Any]:
    """The JSON-LD object; what is ``None`` or empty is left out.

    Args:
        name: operator.name.
        website: operator.website (an https URL), or ``None``.
        url: the personEntry (the contact point's ``url``).
        phone: telephone in international form (``+44 20 7946 0000``), or ``None``.
        email: email address, or ``None``.
        address: postal address, one line of text, or ``None``.
        hours: opening hours in words, or ``None``.
        languages: BCP 47 tags of the languages spoken.

    Returns:
        A schema.org ``Organization`` with one ``contactPoint``.
    """
    point: dict[str, Any] = {"@type": "ContactPoint", "contactType": CONTACT_TYPE, "url": url}
    if phone:
        point["telephone"] = phone
    if email:
        point["email"] = email
    if languages:
        point["availableLanguage"] = list(languages)
    if hours:
        point["hoursAvailable"] = {"@type": "OpeningHoursSpecification", "description": hours}
    org: dict[str, Any] = {"@context": "https://schema.org", "@type": "Organization",
                           "name": name}
    if website:
        org["url"] = website
    if address:
        org["address"] = address
    if email:
        org["email"] = email
    if phone:
        org["telephone"] = phone
    org["contactPoint"] = point
    return org


def script_text(data: Any) -> Markup:
    """``data`` as JSON safe to put between ``<script type="application/ld+json">``
    and ``</script>``.

    ``json.dumps`` does not stop ``</script>`` or ``<!--`` from ending or
    changing the script element, so ``<``, ``>`` and ``&`` are written as the
    JSON escapes ``\\u003c``, ``\\u003e``, ``\\u0026`` (still the same JSON
    value); U+2028 and U+2029 too, for old JavaScript parsers.
    """

    text = json.dumps(data, ensure_ascii=False, indent=2)
    for ch, esc in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
                    ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(ch, esc)
    return Markup(text)
