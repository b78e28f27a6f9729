"""``acap check CARD``: check any Agent Card, from a file or an https URL.

The card is read by :mod:`acap.load._document` (size limit, timeout, line numbers);
from a URL, the HTTP status, the content type and redirects are findings too
(``CARD-READ``, ``CARD-CONTENT-TYPE``, ``CARD-URL``). Then every check of
:func:`acap.checks._run.card_findings` runs. What needs operator.yaml is listed as
skipped, never silently left out. Signatures are ``acap verify``'s job.

A card that is not JSON, or not a JSON object, gives one finding; so does any
fault of a check itself (``ACAP-BUG``): ``acap check`` never ends in a traceback.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from acap.checks._on_request_values import DIGITS, TextReading
from acap.checks._run import CARD_SKIPS, card_findings
from acap.findings import Finding, Location, Report, Result
from acap.load import (
    CARD,
    DEFAULT_MAX_BYTES,
    DEFAULT_TIMEOUT,
    JsonDocument,
    document_from,
)
from acap.uris import CARD_PATH, EXTENSION_URI, url_for_site_file


@dataclass(repr=False)
class CardCheck(Result):
    """The result of checking one card.

    Attributes:
        source: the path or URL as given.
        url: the URL the card was checked as being served at, or ``None``.
        report: every finding.
        skipped: ``(rule id, "part" or "none", why)`` for what was checked only in part,
            or not at all (see :data:`acap.checks._run.CARD_SKIPS`).
        file: the card as read (bytes, parsed data, HTTP response), for further checks of
            the same fetch (a live check of headers adds its findings to ``report``).
        not_judged: ``(rule id, what)`` for each thing of this card the checks could not
            judge from it (also in ``skipped``): said, never passed as fine.
    """

    source: str
    url: str | None = None
    report: Report = field(default_factory=Report)
    skipped: list[tuple[str, str, str]] = field(default_factory=list)
    file: JsonDocument | None = None
    not_judged: list[tuple[str, str]] = field(default_factory=list)


def _card_url_for_path(path: str) -> str | None:
    """The URL a card file of a built site/ is served at (:func:`acap.uris.url_for_site_file`),
    when the file is an Agent Card at its well-known path."""
    url = url_for_site_file(path)
    return url if url is not None and url.endswith(CARD_PATH) else None


def check_card(source: Any, *, url: str | None = None, timeout: float = DEFAULT_TIMEOUT,
               max_bytes: int = DEFAULT_MAX_BYTES, allow_private: bool = False,
               reading: TextReading = DIGITS) -> CardCheck:
    """Read and check one card.

    Args:
        source: a card file (a path), an https URL (http only on localhost, with
            ``allow_private``), JSON bytes, parsed JSON or a
            :class:`~acap.load.JsonDocument` (:func:`acap.load.document_from`).
        url: the URL the card is (or will be) served at, for a file; default: taken
            from a URL source, or from a file's place in a built site/.
        timeout: seconds for the whole fetch of a URL.
        max_bytes: size limit.
        allow_private: a URL may lead to a private or loopback address (tests, previews;
            ``--allow-private``).
        reading: how skill text is read for OR-3.9
            (:class:`~acap.checks._on_request_values.TextReading`; ``acap check`` passes
            :class:`acap.replies.ReplyReading`, the reading of ``acap check-reply``).

    Returns:
        A :class:`CardCheck`. Never raises for bad input.
    """
    return check_card_file(document_from(source, CARD, max_bytes=max_bytes, timeout=timeout,
                                         allow_private=allow_private), url=url,
                           reading=reading)


def check_card_file(cf: JsonDocument, *, url: str | None = None,
                    signatures_checked: bool = False,
                    reading: TextReading = DIGITS) -> CardCheck:
    """Check a card already read (from :func:`acap.load._document.read_card`, or fetched by
    ``acap check --live``); see :func:`check_card` for ``url`` and the result.
    ``signatures_checked``: the caller judges the signatures itself (``--live``), so
    ``SIG-INVALID`` is not listed in ``skipped`` as left to ``acap verify``."""
    source = cf.source
    result = CardCheck(source, file=cf)
    result.report.extend(cf.findings)
    if cf.response is not None:
        result.report.extend(_http_findings(cf, source))
    result.url = url or (source if cf.is_url else _card_url_for_path(source))
    if cf.data is None:
        return result
    not_judged: list[tuple[str, str]] = []
    try:
        result.report.extend(card_findings(cf.data, cf.source, lambda p, _k: cf.at(p),
                                           result.url, not_judged, reading))
    except Exception as exc:  # a fault of acap, never of the card: report it, don't crash
        result.report.add(Finding("ACAP-BUG", "error", f"a check failed on this card: "
                                  f"{type(exc).__name__}: {exc}", Location(source),
                                  "this is a bug in acap: please report it with the card"))
    result.not_judged = not_judged
    result.skipped = [(rule, "none", why) for rule, why in not_judged]
    result.skipped += _skipped(cf.data, result.url, signatures_checked)
    return result


def _skipped(card: dict[str, Any], url: str | None,
             signatures_checked: bool) -> list[tuple[str, str, str]]:
    out = list(CARD_SKIPS)
    exts = card.get("capabilities", {}).get("extensions") \
        if isinstance(card.get("capabilities"), dict) else None
    declared = isinstance(exts, list) and any(
        isinstance(e, dict) and e.get("uri") == EXTENSION_URI for e in exts)
    if not declared:  # no on-request skill: the extension's rules do not apply
        out = []
    if url is None:
        out.append(("CARD-URL", "none", "the card's URL is not known: give --url, or check it "
                                        "at its https URL"))
    if not signatures_checked:
        out.append(("SIG-INVALID", "none", "signatures are checked by acap verify"))
    return out


def _http_findings(cf: JsonDocument, source: str) -> list[Finding]:
    assert cf.response is not None
    out = []
    ctype = cf.response.headers.get("Content-Type")
    media = (ctype or "").split(";", 1)[0].strip().lower()
    if cf.response.status == 200 and not (media == "application/json" or media.endswith("+json")):
        out.append(Finding("CARD-CONTENT-TYPE", "warning",
                           f"the card is served as {ctype or 'no Content-Type'}, not JSON",
                           Location(source), "serve it as application/json"))
    if cf.response.url != source:
        out.append(Finding("CARD-URL", "warning", f"the card URL redirects to {cf.response.url}; "
                           "clients that do not follow redirects will not find it",
                           Location(source), "serve the card at its URL itself"))
    return out
