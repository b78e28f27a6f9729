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
from urllib.parse import urlsplit

from acap.builder.pages import APACHE_NO_HEADERS_TYPE
from acap.card import JkuKeys, SignatureCheck, Verifier, jwks_from_bytes
from acap.errors import FetchError, FileRefused, KeysUnavailable, SitePathError
from acap.findings import Finding, Location, Report, Result
from acap.load import (
    DEFAULT_MAX_BYTES,
    DEFAULT_TIMEOUT,
    JsonDocument,
    Response,
    Root,
    fetch,
    parse_document,
    read_file,
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
        server: ``Server`` header (which web server answered: it names the likely cause
            of a missing header, :func:`cors_cause`).
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
    server: str | None = None

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
        person_entries: facts about each https personEntry page of a verified card,
            by URL (:func:`person_entry_findings`).
    """

    card: HttpFacts
    jwks: dict[str, HttpFacts] = field(default_factory=dict)
    signatures: list[SignatureCheck] = field(default_factory=list)
    report: Report = field(default_factory=Report)
    file: JsonDocument | None = None
    person_entries: dict[str, HttpFacts] = field(default_factory=dict)

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
                     cc, int(m.group(1)) if m else None, h.get("ETag"), len(resp.body),
                     server=h.get("Server"))


def _local_bytes(site_dir: Path | None, url: str) -> bytes | None:
    """The file of the local build at ``url`` (:func:`acap.load.read_file`, in site/);
    ``None`` when there is none."""
    if site_dir is None:
        return None
    try:
        return read_file(site_dir / url_to_path(url), Root(site_dir, "site/"), DEFAULT_MAX_BYTES)
    except (SitePathError, OSError, FileRefused):
        return None


#: ``(what the Server header says, in lower case, the likely cause and fix)`` of a card
#: served without acap's headers by a server other than Apache.
_SERVERS = (
    ("nginx", "nginx serves it without acap's settings: include "
              "site/.servers/<host>/nginx.conf in the host's server { } block, then "
              "nginx -s reload"),
    ("caddy", "Caddy serves it without acap's settings: import "
              "site/.servers/<host>/Caddyfile in the host's site block, before file_server"),
    ("netlify", "Netlify serves it without the _headers file acap writes: publish the host "
                "folder with it (hosts.<host>.hosting: netlify)"),
    ("cloudflare", "Cloudflare serves it without the _headers file acap writes: publish the "
                   "host folder with it (hosts.<host>.hosting: cloudflare-pages)"),
)


def cors_cause(f: HttpFacts) -> str:
    """The likely cause of a card (or JWKS) served without acap's headers, and its fix,
    from which server answered (``Server``) and how: a guess, said as one. For Apache (and
    LiteSpeed, which reads the same files), the type tells two causes apart: acap's
    ``.well-known/.htaccess`` gives the card ``application/json; charset=utf-8`` only where
    mod_headers is off (:data:`acap.builder.pages._servers.APACHE_NO_HEADERS_TYPE`)."""
    server = (f.server or "").lower()
    if "apache" in server or "litespeed" in server:
        if (f.content_type or "").replace(" ", "").lower() == \
                APACHE_NO_HEADERS_TYPE.replace(" ", ""):
            return ("likely cause: the server is Apache, and it read acap's "
                    ".well-known/.htaccess, but mod_headers is off there, so none of the "
                    "card's headers can be set: turn it on (a2enmod headers, then reload "
                    "Apache; on shared hosting, ask your provider), or put "
                    "site/.servers/<host>/apache.conf in the site's <VirtualHost>")
        return ("likely cause: the server is Apache, and it does not read acap's "
                ".well-known/.htaccess: it was not published there (set hosts.<host>.hosting: "
                "apache and publish again), or the site does not allow .htaccess files "
                "(AllowOverride FileInfo); else put site/.servers/<host>/apache.conf in the "
                "site's <VirtualHost>")
    for name, cause in _SERVERS:
        if name in server:
            return f"likely cause: {cause}"
    return ("send Access-Control-Allow-Origin: * (GitHub Pages does; Netlify and Cloudflare "
            "Pages read the _headers file acap writes; for Apache, nginx or Caddy, use the "
            "settings acap writes in site/.servers/<host>/)")


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
                           "cannot read it", loc, cors_cause(f)))
    elif not f.cors_open:
        out.append(Finding("LIVE-CORS", "warning", f"the {what} is served with "
                           f"Access-Control-Allow-Origin: {f.cors!r}, not *: only that origin's "
                           "pages, if any, can read it in a browser", loc,
                           "send exactly Access-Control-Allow-Origin: * (the _headers file "
                           "and the server settings in site/.servers/<host>/ that acap "
                           "writes do)"))
    if f.max_age is None:
        out.append(Finding("LIVE-CACHE", "warning", f"the {what} has no Cache-Control max-age "
                           "(A2A §8.6.1 SHOULD)", loc, "send Cache-Control: max-age=600 or so"
                           + ("" if f.cors is not None else f"; {cors_cause(f)}")))
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
    local = _local_bytes(site_dir, url)
    if local is not None:
        result.card.same_as_local = local == resp.body
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
        loc = _local_bytes(site_dir, jku)
        if loc is not None:
            got.same_as_local = loc == r.body
        result.report.extend(_header_findings(got, "JWKS"))
        return jwks_from_bytes(r.body)

    res = Verifier(JkuKeys(url, load, allow_private), "publish the JWKS at its jku URL"
                   ).verify(cf.data, card_url=url, cf=cf)
    result.signatures = res.signatures
    # The card's own findings (CARD-*, the member judgements) are acap check's to say,
    # which --live runs on the same bytes: here only what is about the signatures.
    result.report.extend(f for f in res.report if f.rule.startswith(("SIG-", "KEY-")))
    check_person_entries(result, person_entry_urls(cf.data), route, lambda u: fetch(
        u, timeout=timeout, max_bytes=max_bytes, connect_to=route, allow_private=allow_private,
        same_origin=True, accept="text/html"))
    return result


#: The most personEntry pages one live check fetches (a card may list many skills;
#: most share one page). Those past it are listed, with why they were not fetched.
MAX_PERSON_ENTRIES = 8


def check_person_entries(result: LiveCheck, pages: list[str], route: Mapping[str, str],
                         get: Any) -> None:
    """Fetch the first :data:`MAX_PERSON_ENTRIES` of ``pages`` (the card's personEntry
    URLs) with ``get`` into ``result`` (:func:`person_entry_findings`), only when one of
    ``result.signatures`` is valid (a card that does not verify steers acap nowhere);
    with ``route`` (``--connect-to``), a host it gives no address for is not fetched from
    the live web, and each page not fetched is listed with why."""
    if not any(s.valid for s in result.signatures):
        return
    for page in pages[:MAX_PERSON_ENTRIES]:
        host = (_https_host(page) or "").lower()
        if route and host not in route:  # a preview checked: no fetch of the live web
            result.person_entries[page] = HttpFacts(page, error=f"not fetched: --connect-to "
                                                    f"gives no address for {host}")
            continue
        facts, found = person_entry_findings(page, get)
        result.person_entries[page] = facts
        result.report.extend(found)
    for page in pages[MAX_PERSON_ENTRIES:]:
        result.person_entries[page] = HttpFacts(page, error=f"not fetched: acap fetches at "
                                                f"most {MAX_PERSON_ENTRIES} personEntry pages")


def person_entry_urls(card: Any) -> list[str]:
    """The distinct https personEntry addresses (with a host) of a card's On Request
    declaration, in the card's order (a ``tel:`` number is not fetched); ``[]`` for any
    other shape."""
    from acap.card import is_extension_uri  # start-up: only for a live check

    out: list[str] = []
    caps = card.get("capabilities") if isinstance(card, dict) else None
    exts = caps.get("extensions") if isinstance(caps, dict) else None
    for ext in exts if isinstance(exts, list) else ():
        if not isinstance(ext, dict) or not is_extension_uri(ext.get("uri")):
            continue
        params = ext.get("params")
        skills = params.get("skills") if isinstance(params, dict) else None
        for entry in skills if isinstance(skills, list) else ():
            pe = entry.get("personEntry") if isinstance(entry, dict) else None
            if isinstance(pe, str) and _https_host(pe) and pe not in out:
                out.append(pe)
    return out


def _https_host(url: str) -> str | None:
    """The host of an https URL, or ``None`` (another scheme, no host, not a URL)."""
    try:
        u = urlsplit(url)
        return u.hostname if u.scheme.lower() == "https" and u.hostname else None
    except ValueError:
        return None


def person_entry_findings(url: str, get: Any) -> tuple[HttpFacts, list[Finding]]:
    """Whether the personEntry page at ``url`` is there (OR-3.4: the address where a
    person asks): ``LIVE-PERSON-ENTRY``, an error when it answers 404 or 410 (the card
    sends people to a page that does not exist), a warning for any other answer than
    200 or a failed fetch (the server may answer acap otherwise than a browser: a
    guess). Fetched by ``get`` (:func:`acap.load._fetch.fetch`, redirects kept on the
    page's origin), only for a card whose signature verified with its live keys.

    Returns:
        ``(facts, findings)``.
    """
    loc = Location(url)
    try:
        resp = get(url)
    except FetchError as exc:
        return HttpFacts(url, error=exc.reason), [Finding(
            "LIVE-PERSON-ENTRY", "warning", f"cannot fetch the personEntry page: {exc.reason}",
            loc, "make sure the page where a person asks is published at this address")]
    facts = _facts(url, resp)
    if resp.status == 200:
        return facts, []
    gone = resp.status in (404, 410)
    return facts, [Finding(
        "LIVE-PERSON-ENTRY", "error" if gone else "warning",
        f"the personEntry page answers HTTP {resp.status}" + (
            ": the signed card sends people to a page that does not exist" if gone else
            " (a guess that it is missing: the server may answer a browser otherwise)"),
        loc, "publish the page where a person asks at this address (acap build writes it "
        "for a host acap builds; on an origin in ownOrigins it is yours to provide)")]
