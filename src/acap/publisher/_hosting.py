"""Which hosting serves a target, and so which of acap's hosting files go there.

acap build writes, for every host, the small files static hosts read (see
:mod:`acap.builder.pages._hosting`): ``.nojekyll`` and ``CNAME`` (GitHub Pages),
``_headers`` (Netlify, Cloudflare Pages) and ``.well-known/.htaccess`` (Apache). A
hosting reads only its own and serves the others as files (Apache serves ``_headers``),
so ``acap publish`` sends each target only the files its kind reads
(:data:`acap.builder.pages.READS`). The kind is declared (``hosts.<host>.hosting`` in operator.yaml,
``acap publish --hosting``), else detected from what the target holds
(:func:`detect`): a ``.htaccess`` at the root is Apache's, ``netlify.toml`` or
``_redirects`` Netlify's, ``wrangler.toml`` Cloudflare's, ``_config.yml`` GitHub Pages'
(Jekyll); a git branch is GitHub Pages', and a folder whose server acap cannot tell is
``plain`` (no hosting file at all; the publish says how to declare it).

GitHub Pages runs Jekyll on a branch unless it holds ``.nojekyll``, and Jekyll leaves out
``.well-known``. Beside a website that is built with Jekyll (``_config.yml``, folders
starting with ``_``, Markdown pages), ``.nojekyll`` would break the site, so it is left
out and the site's ``_config.yml`` must ``include: [.well-known]`` (:func:`jekyll_ready`).
"""

from __future__ import annotations

from collections.abc import Mapping

import yaml

from acap.builder.pages import reads
from acap.publisher._plan import TargetRefused
from acap.publisher._store import Store

#: Files at a target's root that say which hosting serves it.
_MARKERS = ((".htaccess", "apache"), ("netlify.toml", "netlify"), ("_redirects", "netlify"),
            ("wrangler.toml", "cloudflare-pages"), ("wrangler.json", "cloudflare-pages"),
            ("wrangler.jsonc", "cloudflare-pages"), ("_config.yml", "github-pages"))
NOJEKYLL = ".nojekyll"
_JEKYLL_CONFIGS = ("_config.yml", "_config.yaml")


def detect(top: list[str], default: str) -> tuple[str, str]:
    """``(kind, why)`` of a target whose root holds the names ``top``; ``default`` is the
    store's (a git branch is served by a static host, never by an Apache of its own, so
    an ``.htaccess`` there says nothing)."""
    for name, kind in _MARKERS:
        if name in top and not (kind == "apache" and default == "github-pages"):
            return kind, f"it holds {name}"
    return default, "nothing there says otherwise"


def for_kind(files: Mapping[str, bytes], kind: str) -> dict[str, bytes]:
    """``files`` without the hosting files ``kind`` does not read
    (:func:`acap.builder.pages.reads`)."""
    return {p: b for p, b in files.items() if reads(kind, p)}


def jekyll_ready(store: Store, top: list[str], files: Mapping[str, bytes],
                 overlay: bool) -> dict[str, bytes]:
    """``files`` for GitHub Pages: with ``.nojekyll`` (a plain site), or, beside a
    website that Jekyll builds, without it, once its ``_config.yml`` includes
    ``.well-known``.

    Raises:
        TargetRefused: the website uses Jekyll and does not include ``.well-known``.
    """
    out = dict(files)
    if NOJEKYLL in top or not overlay:
        out.setdefault(NOJEKYLL, b"")
        return out
    uses = [n for n in top if n in _JEKYLL_CONFIGS or n.startswith("_")
            or n.endswith((".md", ".markdown"))]
    if not uses:
        out.setdefault(NOJEKYLL, b"")
        return out
    out.pop(NOJEKYLL, None)
    config = next((n for n in _JEKYLL_CONFIGS if n in top), None)
    if config is not None and _includes_well_known(store.read(config)):
        return out
    raise TargetRefused(
        f"the site at {store.describe()} is built by Jekyll (it holds {uses[0]}), which "
        "leaves out .well-known/, where the card lies",
        f"add `include: [.well-known]` to {config or '_config.yml'} there, or an empty "
        ".nojekyll file if the site does not need Jekyll; then publish again")


def _includes_well_known(raw: bytes | None) -> bool:
    if raw is None or len(raw) > 1024 * 1024:  # a Jekyll configuration is a few lines
        return False
    try:
        data = yaml.safe_load(raw)
    except yaml.YAMLError:
        return False
    include = data.get("include") if isinstance(data, dict) else None
    return isinstance(include, list) and any(str(i).strip("/") == ".well-known"
                                             for i in include)


def hosting_note(host: str, where: str) -> tuple[str, str, str]:
    """The ``PUBLISH-HOSTING`` warning for a folder whose web server acap cannot tell."""
    return ("PUBLISH-HOSTING",
            f"acap cannot tell which web server serves {where}, so it published none of "
            "its server settings there (.well-known/.htaccess is read by Apache only): the "
            "card may go out without the headers clients need (CORS, cache time)",
            f"say which it is: hosts: {host}: hosting: apache (or nginx, caddy, plain) in "
            f"operator.yaml; for nginx and Caddy, use the settings in site/.servers/{host}/")
