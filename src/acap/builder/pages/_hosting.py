"""The files static hosts need, in every host folder of site/.

* ``.nojekyll`` (empty): GitHub Pages then serves folders that start with a
  dot or underscore, such as ``.well-known``, as they are.
* ``CNAME``: the custom domain GitHub Pages serves the folder on, when
  operator.yaml names one (``hosts.<host>.cname``).
* ``_headers``: response headers in the format Netlify and Cloudflare Pages
  read (GitHub Pages ignores it, and itself sends
  ``Access-Control-Allow-Origin: *`` and ``max-age=600``): every JSON file
  (the Agent Card, the JWKS, schemas) gets ``Access-Control-Allow-Origin: *``,
  since clients fetch them cross-origin, and ``Cache-Control`` with
  ``cache.card`` seconds (A2A §8.6); the pages get ``cache.pages`` seconds;
  every path gets ``X-Content-Type-Options: nosniff`` and
  ``Referrer-Policy: no-referrer``. No header name is given twice for one
  path, because the two hosts combine repeated headers differently (Netlify
  keeps the last, Cloudflare joins them with commas).
* ``404.html`` and, unless operator.yaml says the operator has pages of its
  own at the root (``hosts.<host>.ownPages``), ``index.html``: on the
  operator's hosts only, not on hosts other steps build (the specification
  site's), and never on a host where the operator's own website lives
  (``hosts.<host>.overlay``, :meth:`acap.load.OperatorConfig.overlay`).
* ``.well-known/.htaccess`` beside the card and the JWKS, for Apache
  (:mod:`acap.builder.pages._servers`).

On an overlay host ``.nojekyll`` is not written: acap adds only its own files
beside the website there, and a GitHub Pages branch gets ``.nojekyll`` from
``acap publish`` when the branch's site does not use Jekyll
(:mod:`acap.publisher._hosting`).

A hosting reads only its own of these files and serves the others as files (Apache
serves ``_headers``): where operator.yaml says what serves a host
(``hosts.<host>.hosting``, :data:`HOSTING_KINDS`), the build writes only the files that
kind reads (:data:`READS`); where it does not, it writes them all, and ``acap publish``
sends each target only those of the kind it detects there.
"""

from __future__ import annotations

from typing import NamedTuple

from acap.builder.pages._servers import htaccess
from acap.load import OperatorConfig
from acap.site import SiteFiles, refuse_line_breaks
from acap.uris import CARD_PATH, JWKS_PATH, SPEC_HOST

#: Default ``Cache-Control: max-age`` in seconds, as GitHub Pages sends.
DEFAULT_MAX_AGE = 600
#: Every hosting kind acap knows (``hosts.<host>.hosting``; ``plain``: a web server that
#: reads none of these files).
HOSTING_KINDS = ("github-pages", "netlify", "cloudflare-pages", "apache", "nginx", "caddy",
                 "plain")
#: The hosting files acap build writes in a host folder, and the kinds that read each.
READS: dict[str, frozenset[str]] = {
    ".nojekyll": frozenset({"github-pages"}),
    "CNAME": frozenset({"github-pages"}),
    "_headers": frozenset({"netlify", "cloudflare-pages"}),
    ".well-known/.htaccess": frozenset({"apache"}),
}


def reads(kind: str | None, rel: str) -> bool:
    """Whether a host served by ``kind`` reads (or needs) the file ``rel`` of its folder:
    every file but the hosting files of other kinds (:data:`READS`); every file when
    ``kind`` is not known (``None``)."""
    return kind is None or rel not in READS or kind in READS[rel]


class CachePolicy(NamedTuple):
    """``cache`` in operator.yaml: max-age in seconds for JSON files (``card``: the
    Agent Card, the JWKS, schemas) and for pages (``pages``)."""

    card: int = DEFAULT_MAX_AGE
    pages: int = DEFAULT_MAX_AGE


def cache_policy(cfg: OperatorConfig) -> CachePolicy:
    """The ``cache`` settings of operator.yaml, defaults where left out."""
    c = cfg.data.get("cache")
    c = c if isinstance(c, dict) else {}
    card, pages = c.get("card", DEFAULT_MAX_AGE), c.get("pages", DEFAULT_MAX_AGE)
    return CachePolicy(card if isinstance(card, int) else DEFAULT_MAX_AGE,
                       pages if isinstance(pages, int) else DEFAULT_MAX_AGE)


def _cache_control(seconds: int) -> str:
    return f"public, max-age={seconds}" if seconds > 0 else "no-cache"


def headers_file(files: SiteFiles, host: str, policy: CachePolicy) -> bytes:
    """The ``_headers`` file for ``host``, from the files built for it.

    Args:
        files: every file of the build so far.
        host: the host folder.
        policy: the max-ages.

    Returns:
        The file's bytes (UTF-8, LF line ends).

    Raises:
        SitePathError: a line would hold a line break or control character (a path
            that :func:`acap.site.path_fault` should have refused): nothing is written.
    """
    prefix = host + "/"
    paths = sorted(rel[len(prefix):] for rel in files if rel.startswith(prefix))
    lines = [
        "# Response headers for Netlify and Cloudflare Pages, written by acap build.",
        "# GitHub Pages ignores this file. No header is given twice for one path.",
        "/*",
        "  X-Content-Type-Options: nosniff",
        "  Referrer-Policy: no-referrer",
    ]
    for p in paths:
        if p.endswith(".json"):
            lines += ["", f"/{p}", "  Access-Control-Allow-Origin: *",
                      f"  Cache-Control: {_cache_control(policy.card)}"]
    # Each page under every path it is served at; a path once (talk.html and
    # talk/index.html are both served at /talk), so no header is given twice.
    page_rules: dict[str, None] = {}
    for p in paths:
        if not p.endswith(".html") or p == "404.html":
            continue
        folder = p[: -len("index.html")] if p.endswith("index.html") else None
        if folder is None:
            # /talk.html is served at /talk.html and, by these hosts, at /talk.
            page_rules.update(dict.fromkeys((f"/{p}", f"/{p[: -len('.html')]}")))
        elif folder == "":
            page_rules.update(dict.fromkeys(("/", "/index.html")))
        else:
            # /talk/index.html is served at /talk, /talk/ and /talk/index.html;
            # a folder inside it (/talk/fr/) has its own rules, so no /talk/*.
            base = "/" + folder.rstrip("/")
            page_rules.update(dict.fromkeys((base, base + "/", base + "/index.html")))
    for rule in page_rules:
        lines += ["", rule, f"  Cache-Control: {_cache_control(policy.pages)}"]
    refuse_line_breaks(f"{host}/_headers", lines)
    return ("\n".join(lines) + "\n").encode("utf-8")


def hosting_files(cfg: OperatorConfig, files: SiteFiles) -> list[tuple[str, bytes]]:
    """``.nojekyll`` (not on overlay hosts), ``CNAME``, ``_headers`` and, beside a card
    or JWKS, ``.well-known/.htaccess`` for every host folder (relative path, bytes).
    Call it after every other file is built: ``_headers`` lists them."""

    out: list[tuple[str, bytes]] = []
    settings = cfg.hosts
    policy = cache_policy(cfg)
    for host in sorted(set(files.hosts()) | set(settings)):
        kind = (settings.get(host) or {}).get("hosting")
        out += [(f"{host}/{rel}", data) for rel, data in _host_files(cfg, files, host, policy)
                if reads(kind if isinstance(kind, str) else None, rel)]
    return out


def _host_files(cfg: OperatorConfig, files: SiteFiles, host: str,
                policy: CachePolicy) -> list[tuple[str, bytes]]:
    """Every hosting file of ``host``, whatever serves it: ``(path in the host folder,
    bytes)``."""
    settings = cfg.hosts
    out: list[tuple[str, bytes]] = []
    if not (host in settings and cfg.overlay(host)):
        out.append((".nojekyll", b""))
    cname = (settings.get(host) or {}).get("cname")
    if isinstance(cname, str) and cname.strip():
        out.append(("CNAME", cname.strip().encode("utf-8") + b"\n"))
    # The specification site is acap's, the same for every operator that builds it
    # (a batch shares its host): acap's own cache times, not the operator's.
    out.append(("_headers", headers_file(files, host,
                                         CachePolicy() if host == SPEC_HOST else policy)))
    if any(f"{host}{p}" in files for p in (CARD_PATH, JWKS_PATH)):
        out.append((".well-known/.htaccess", htaccess(host, policy.card)))
    return out
