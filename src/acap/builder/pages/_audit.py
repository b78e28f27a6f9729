"""Check a rendered page is the same for everyone and asks nothing of anyone (OR-3.8).

The personEntry page says nothing about who reads it and tells nobody that
someone did: no script, no cookie, no form, no request to another origin (web
fonts, CDNs, analytics, maps), a Content-Security-Policy, ``no-referrer`` and
a ``lang``. acap's own templates do all of this; an override might not, so
every page is parsed after rendering (with the standard library's
``html.parser``) and anything that breaks it fails the build with a
``PAGE-SAME-FOR-EVERYONE`` finding naming the template's output line.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from html.parser import HTMLParser
from typing import NamedTuple
from urllib.parse import urlsplit

from acap.builder.pages import _csp

RULE = "PAGE-SAME-FOR-EVERYONE"

# The policy itself lives in acap.builder.pages._csp (rendering needs it, auditing does not).
CSP_TEMPLATE, style_hash, content_security_policy = _csp.CSP_TEMPLATE, _csp.style_hash, \
    _csp.content_security_policy

#: Attributes through which an element makes the browser fetch something (``<script>``
#: is refused outright, whatever it loads).
_FETCHING = {
    "img": ("src", "srcset"), "source": ("src", "srcset"), "video": ("src", "poster"),
    "audio": ("src",), "track": ("src",), "iframe": ("src",), "frame": ("src",),
    "embed": ("src",), "object": ("data",), "input": ("src",),
    "image": ("href",), "use": ("href",),
}
#: ``<link rel=...>`` values that fetch (or connect) at load time.
_FETCHING_RELS = {"stylesheet", "icon", "shortcut", "apple-touch-icon", "preload",
                  "prefetch", "modulepreload", "manifest", "dns-prefetch", "preconnect",
                  "prerender", "mask-icon"}


class Problem(NamedTuple):
    """One thing on the page that breaks OR-3.8's intent: ``line`` of the HTML, what."""

    line: int
    message: str


class _Scan(HTMLParser):
    """Collects what :func:`audit` needs in one pass over the page."""

    def __init__(self, host: str) -> None:
        super().__init__(convert_charrefs=True)
        self.host = host
        self.problems: list[Problem] = []
        self.styles: list[str] = []
        self.csp: str | None = None
        self.referrer: str | None = None
        self.lang: str | None = None
        self._in: str | None = None
        self._buf: list[str] = []
        self._script_line = 0
        self._data_block = False  # the open <script> is JSON-LD data (checked as JSON)

    def _problem(self, msg: str) -> None:
        self.problems.append(Problem(self.getpos()[0], msg))

    def _offsite(self, url: str) -> bool:
        u = urlsplit(url.strip())
        if u.scheme in ("", ) and not u.netloc:
            return False  # a path on this origin
        if u.scheme == "data":
            return False
        return u.scheme not in ("https", "") or (u.hostname or "").lower() != self.host

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k.lower(): (v or "") for k, v in attrs}
        if tag == "html":
            self.lang = a.get("lang")
        for k in a:
            if k.startswith("on"):
                self._problem(f"<{tag}> has an event handler ({k}=): pages run no script")
        if "style" in a:
            self._problem(f"<{tag}> has a style= attribute, which the page's "
                          "Content-Security-Policy blocks: put the rule in page.css")
        element = _ELEMENTS.get(tag)
        if element is not None:
            element(self, a)
        self._fetched_urls(tag, a)

    def _script(self, a: dict[str, str]) -> None:
        # One finding per script element: a script is refused whatever it loads, so
        # its src is named here rather than again as a file from another origin, and
        # only a data block's text is checked as JSON.
        self._data_block = a.get("type", "").strip().lower() == "application/ld+json" \
            and "src" not in a
        if not self._data_block:
            what = f"<script src=\"{a['src']}\">" if "src" in a else "a <script> element"
            self._problem(f"{what}: the page runs no script (only "
                          "type=\"application/ld+json\" data is allowed)")
        self._in, self._buf, self._script_line = "script", [], self.getpos()[0]

    def _style(self, a: dict[str, str]) -> None:
        self._in, self._buf = "style", []

    def _form(self, a: dict[str, str]) -> None:
        self._problem("a <form>: the page takes nothing from the person (no query, "
                      "no input); give the phone, email or address instead")

    def _base(self, a: dict[str, str]) -> None:
        self._problem("a <base> element changes where links go; remove it")

    def _meta(self, a: dict[str, str]) -> None:
        equiv = a.get("http-equiv", "").lower()
        if equiv == "content-security-policy":
            self.csp = a.get("content", "")
        elif equiv in ("refresh", "set-cookie"):
            self._problem(f"<meta http-equiv=\"{equiv}\">: remove it")
        if a.get("name", "").lower() == "referrer":
            self.referrer = a.get("content", "")

    def _link(self, a: dict[str, str]) -> None:
        rels = set(a.get("rel", "").lower().split())
        if rels & _FETCHING_RELS and self._offsite(a.get("href", "")):
            self._problem(f"<link rel=\"{a.get('rel')}\"> loads {a.get('href')} from "
                          "another origin: serve it from this site, or remove it")

    def _fetched_urls(self, tag: str, a: dict[str, str]) -> None:
        """A problem for each URL the element loads (``_FETCHING``) from another origin."""
        for attr in _FETCHING.get(tag, ()):
            value = a.get(attr)
            if not value:
                continue
            urls = [p.strip().split()[0] for p in value.split(",") if p.strip()] \
                if attr == "srcset" else [value]
            for url in urls:
                if self._offsite(url):
                    self._problem(f"<{tag} {attr}=\"{url}\"> loads from another origin: "
                                  "put the file on this site, or remove it")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag in ("script", "style"):
            self.handle_endtag(tag)

    def handle_data(self, data: str) -> None:
        if self._in:
            self._buf.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "style" and self._in == "style":
            self.styles.append("".join(self._buf))
            self._in = None
        elif tag == "script" and self._in == "script":
            text = "".join(self._buf)
            self._in = None
            if not self._data_block:
                return  # already refused in handle_starttag; its text is not JSON-LD
            try:
                json.loads(text)
            except ValueError:
                self.problems.append(Problem(self._script_line,
                                             "the JSON-LD is not valid JSON"))


#: What each element with a rule of its own is checked for (its attributes, lower-cased).
_ELEMENTS: dict[str, Callable[[_Scan, dict[str, str]], None]] = {
    "script": _Scan._script, "style": _Scan._style, "form": _Scan._form,
    "base": _Scan._base, "meta": _Scan._meta, "link": _Scan._link,
}


def audit(html: str, host: str) -> list[Problem]:
    """Everything in ``html`` that would make the page differ per reader, run
    code, or reach another origin.

    Args:
        html: the rendered page.
        host: the host it is published on (same-origin references are allowed).

    Returns:
        Problems with the line of ``html`` they are on; empty when the page is fine.
    """
    scan = _Scan(host=host.lower())
    scan.feed(html)
    scan.close()
    out = list(scan.problems)
    if not scan.lang:
        out.append(Problem(1, "<html> has no lang attribute"))
    if scan.referrer != "no-referrer":
        out.append(Problem(1, "no <meta name=\"referrer\" content=\"no-referrer\">"))
    if scan.csp is None:
        out.append(Problem(1, "no Content-Security-Policy <meta http-equiv> element"))
    else:
        allowed = scan.csp
        for css in scan.styles:
            if style_hash(css) not in allowed:
                out.append(Problem(1, "a <style> element the Content-Security-Policy does not "
                                      "allow (its hash differs): write the style as "
                                      "<style>{{ style }}</style> and put the CSS in page.css"))
        if "script-src" in allowed or "'unsafe-inline'" in allowed or "*" in allowed:
            out.append(Problem(1, "the Content-Security-Policy allows scripts or inline code: "
                                  "use {{ csp }}, as acap's base.html does"))
    return out
