"""Checking what is live: the published card and JWKS, as a client fetches them.

:func:`live_check` fetches the card at its URL and the JWKS its signatures
name in ``jku`` (every fetch with a timeout and a size limit, through
:func:`acap.load._fetch.fetch`), and reports for each: the HTTP status, the
``Content-Type``, CORS (``Access-Control-Allow-Origin``; A2A clients in a
browser fetch cards cross-origin), ``Cache-Control`` max-age and ``ETag``
(A2A §8.6.1 SHOULDs), then whether the signatures verify with the live keys
(A2A §8.4.3) and whether the bytes equal the local build in site/.

``connect_to`` sends the requests for a host to another address with the
original ``Host`` header (like curl's ``--connect-to``), so a preview from
``acap serve`` can be checked as if it were live.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acap.card import JkuKeys, SignatureCheck, Verifier, jwks_from_bytes
from acap.errors import FetchError, KeysUnavailable, SitePathError
from acap.findings import Finding, Location, Report, Result
from acap.load import (
    DEFAULT_MAX_BYTES,
    DEFAULT_TIMEOUT,
    JsonDocument,
    Response,
    fetch,
    parse_document,
    status_hint,
)
from acap.site import url_to_path

_MAX_AGE = re.compile(r"(?:^|[,\s])(?:s-)?max-age\s*=\s*\"?(\d+)", re.IGNORECASE)


@dataclass
class HttpFacts:
    """What one fetch returned.

    Attributes:
        url: the URL asked for.
        status: HTTP status, or ``None`` when the fetch failed (see ``error``).
        content_type: ``Content-Type`` header.
        cors: ``Access-Control-Allow-Origin`` header.
        cache_control: ``Cache-Control`` header.
        max_age: its ``max-age`` in seconds, if any.
        etag: ``ETag`` header.
        size: body length in bytes.
        same_as_local: the body equals the file in the local site/ (``None``
            when there is no local file to compare with).
        error: why the fetch failed.
    """

    url: str
    status: int | None = None
    content_type: str | None = None
    cors: str | None = None
    cache_control: str | None = None
    max_age: int | None = None
    etag: str | None = None
    size: int = 0
    same_as_local: bool | None = None
    error: str | None = None

    @property
    def cors_open(self) -> bool:
        """``Access-Control-Allow-Origin`` is exactly ``*`` once the optional white space
        HTTP allows around a field value (RFC 9110 §5.5: spaces and tabs) is stripped:
        any other value (an origin, ``*`` with an escape sequence) does not let every
        browser client read the card."""
        return self.cors is not None and self.cors.strip(" \t") == "*"


@dataclass(repr=False)
class LiveCheck(Result):
    """The outcome of :func:`live_check`.

    Attributes:
        card: facts about the card's URL.
        jwks: facts about each JWKS fetched (by URL).
        signatures: one result per signature of the card.
        report: findings (``LIVE-*``, ``SIG-*``, ``CARD-*``).
        file: the card as fetched (for ``acap check --live`` to check its content).
    """

    card: HttpFacts
    jwks: dict[str, HttpFacts] = field(default_factory=dict)
    signatures: list[SignatureCheck] = field(default_factory=list)
    report: Report = field(default_factory=Report)
    file: JsonDocument | None = None

    def _succeeded(self) -> bool:
        """A signature of the card verified."""
        return any(s.valid for s in self.signatures)

    def _subject(self) -> str:
        return self.card.url



def _facts(url: str, resp: Response) -> HttpFacts:
    h = resp.headers
    cc = h.get("Cache-Control")
    m = _MAX_AGE.search(cc or "")
    return HttpFacts(url, resp.status, h.get("Content-Type"), h.get("Access-Control-Allow-Origin"),
                     cc, int(m.group(1)) if m else None, h.get("ETag"), len(resp.body))


def _local_file(site_dir: Path | None, url: str) -> Path | None:
    if site_dir is None:
        return None
    try:
        p = site_dir / url_to_path(url)
    except SitePathError:
        return None
    return p if p.is_file() else None


def _header_findings(f: HttpFacts, what: str) -> list[Finding]:
    loc = Location(f.url)
    out: list[Finding] = []
    ctype = (f.content_type or "").split(";")[0].strip().lower()
    if ctype != "application/json" and not ctype.endswith("+json"):
        out.append(Finding("LIVE-CONTENT-TYPE", "warning",
                           f"the {what} is served as {f.content_type or 'no Content-Type'}, "
                           "not application/json", loc,
                           "serve .json files as application/json"))
    if f.cors is None:
        out.append(Finding("LIVE-CORS", "warning", f"the {what} has no "
                           "Access-Control-Allow-Origin header: clients running in a browser "
                           "cannot read it", loc,
                           "send Access-Control-Allow-Origin: * (GitHub Pages does; Netlify "
                           "and Cloudflare Pages read the _headers file acap writes; for "
                           "Apache, nginx or Caddy, use the settings acap writes in "
                           "site/.servers/<host>/)"))
    elif not f.cors_open:
        out.append(Finding("LIVE-CORS", "warning", f"the {what} is served with "
                           f"Access-Control-Allow-Origin: {f.cors!r}, not *: only that origin's "
                           "pages, if any, can read it in a browser", loc,
                           "send exactly Access-Control-Allow-Origin: * (the _headers file "
                           "and the server settings in site/.servers/<host>/ that acap "
                           "writes do)"))
    if f.max_age is None:
        out.append(Finding("LIVE-CACHE", "warning", f"the {what} has no Cache-Control max-age "
                           "(A2A §8.6.1 SHOULD)", loc, "send Cache-Control: max-age=600 or so"))
    if f.etag is None:
        out.append(Finding("LIVE-ETAG", "warning", f"the {what} has no ETag (A2A §8.6.1 SHOULD)",
                           loc, "let the server send an ETag (most static hosts do)"))
    if f.same_as_local is False:
        out.append(Finding("LIVE-DIFFERS", "warning", f"the live {what} differs from the local "
                           "build in site/", loc,
                           "run acap build and acap publish (or the live site is newer)"))
    return out


def live_check(url: str, *, site_dir: Path | None = Path("site"),
               connect_to: Mapping[str, str] | None = None, timeout: float = DEFAULT_TIMEOUT,
               max_bytes: int = DEFAULT_MAX_BYTES, allow_private: bool = False) -> LiveCheck:
    """Fetch the card at ``url`` and the JWKS its ``jku`` names; report what a client sees.

    Every fetch is :func:`acap.load._fetch.fetch`'s: judged before it is made, each
    redirect too. The JWKS is fetched by :class:`acap.card.JkuKeys`'s rules: only a
    ``jku`` on the card's origin (and it stays there through redirects), one JWKS per
    card.

    Args:
        url: the card's URL, ``https://{host}/.well-known/agent-card.json``.
        site_dir: the local build to compare the bytes with (``None``: no comparison).
        connect_to: ``{host: "http://127.0.0.1:8000"}``: fetch that host's URLs
            from that address, with the original ``Host`` header.
        timeout: seconds for each whole fetch (every redirect and byte of it).
        max_bytes: size limit per fetch.
        allow_private: URLs may lead to private or loopback addresses (tests, previews).

    Returns:
        A :class:`LiveCheck`. Never raises for network or content problems:
        they are findings (``LIVE-HTTP`` for a failed fetch or a status other
        than 200).
    """

    route = {k.lower(): v for k, v in (connect_to or {}).items()}
    result = LiveCheck(HttpFacts(url))

    def get(where: str, same_origin: bool = False) -> Response:
        return fetch(where, timeout=timeout, max_bytes=max_bytes, connect_to=route,
                     allow_private=allow_private, same_origin=same_origin)

    try:
        resp = get(url)
    except FetchError as exc:
        result.card.error = exc.reason  # the URL is named by the row and the location
        result.report.add(Finding("LIVE-HTTP", "error", f"cannot fetch the card: {exc.reason}",
                                  Location(url), exc.hint or "check the URL and that the site "
                                  "is up"))
        return result
    result.card = _facts(url, resp)
    if resp.status != 200:
        result.report.add(Finding("LIVE-HTTP", "error", f"the card answers HTTP {resp.status}",
                                  Location(url), status_hint(resp.status, "the card")))
        return result
    local = _local_file(site_dir, url)
    if local is not None:
        result.card.same_as_local = local.read_bytes() == resp.body
    result.report.extend(_header_findings(result.card, "card"))
    cf = JsonDocument(url, raw=resp.body, response=resp)
    parse_document(cf)
    result.file = cf
    result.report.extend(cf.findings)
    if cf.data is None:
        return result

    def load(jku: str) -> dict[str, Any]:
        facts = HttpFacts(jku)
        result.jwks[jku] = facts
        try:
            r = get(jku, same_origin=True)
        except FetchError as exc:
            facts.error = exc.reason
            result.report.add(Finding("LIVE-HTTP", "error", f"cannot fetch the JWKS: "
                                      f"{exc.reason}", Location(jku),
                                      "publish the JWKS at its jku URL"))
            raise KeysUnavailable(exc.reason) from exc
        got = _facts(jku, r)
        result.jwks[jku] = got
        if r.status != 200:
            got.error = f"HTTP {r.status}"
            result.report.add(Finding("LIVE-HTTP", "error", f"the JWKS answers HTTP "
                                      f"{r.status}", Location(jku),
                                      "publish the JWKS at its jku URL"))
            raise KeysUnavailable(got.error)
        loc = _local_file(site_dir, jku)
        if loc is not None:
            got.same_as_local = loc.read_bytes() == r.body
        result.report.extend(_header_findings(got, "JWKS"))
        return jwks_from_bytes(r.body)

    res = Verifier(JkuKeys(url, load, allow_private), "publish the JWKS at its jku URL"
                   ).verify(cf.data, card_url=url, cf=cf)
    result.signatures = res.signatures
    # The card's own findings (CARD-*, the member judgements) are acap check's to say,
    # which --live runs on the same bytes: here only what is about the signatures.
    result.report.extend(f for f in res.report if f.rule.startswith(("SIG-", "KEY-")))
    return result
