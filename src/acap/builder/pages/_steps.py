"""The personEntry page, and the files static hosts need (issue 4).

Two build steps, listed in :data:`acap.builder._steps.STEPS`:
* :func:`step_person_entry_pages`: the page at every https personEntry on a
  host acap builds, in each page language (:mod:`acap.builder.pages._pages`),
  rendered with Jinja2 (:mod:`acap.builder.pages._templating`), audited to be the
  same for everyone (:mod:`acap.builder.pages._audit`, OR-3.8), with JSON-LD for the
  operator (:mod:`acap.builder.pages._jsonld`).
* :func:`step_hosting_files`: ``index.html`` and ``404.html`` on the
  operator's hosts that acap owns whole (none on an overlay host, where the
  operator's own website lives: :func:`overlay_findings`), then
  ``.nojekyll``, ``CNAME`` and ``_headers`` in every host folder
  (:mod:`acap.builder.pages._hosting`). It must run after every step that adds files.

Nothing here imports jinja2 at module level.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from acap.builder.pages import _hosting as hosting
from acap.findings import Finding

if TYPE_CHECKING:
    from acap.builder._context import BuildContext

__all__ = ["overlay_findings", "step_hosting_files", "step_person_entry_pages"]


def step_person_entry_pages(ctx: BuildContext) -> None:
    """Render the personEntry pages into ``ctx.files``; findings into ``ctx.report``."""
    if not ctx.options.pages:
        return
    from acap.builder.pages import _pages as pages  # start-up: Jinja2 only with pages
    from acap.builder.pages import _templating as templating  # start-up: as above

    t = templating.templates(templating.override_dir_for(ctx.cfg.base_dir),
                             tenant=ctx.options.key_dirs is not None)
    with templating.operator_limits(_meter(ctx)):
        rendered = pages.person_entry_pages(ctx.cfg, t)
    ctx.report.extend(rendered.findings)
    if ctx.report.ok:
        pages.add_files(ctx.files, rendered)


def _meter(ctx: BuildContext) -> Any:
    """The operator's one render deadline and total, started on its first page."""
    if ctx.render_meter is None:
        from acap.builder.pages._bounded import Meter  # start-up: as jinja2

        ctx.render_meter = Meter.start(ctx.options.template_seconds)
    return ctx.render_meter


def step_hosting_files(ctx: BuildContext) -> None:
    """Root and 404 pages for the operator's hosts, then ``.nojekyll``, ``CNAME`` and
    ``_headers`` for every host folder. Keep it last in ``STEPS``."""
    cfg = ctx.cfg
    for host, settings in cfg.hosts.items() if ctx.options.pages else ():
        if cfg.overlay(host):
            ctx.report.extend(overlay_findings(ctx, host))
            continue  # the operator's own website: its home and 404 pages are its own
        from acap.builder.pages import _pages as pages  # start-up: Jinja2 only with pages
        from acap.builder.pages import _templating as templating  # start-up: as above

        t = templating.templates(templating.override_dir_for(cfg.base_dir),
                                 tenant=ctx.options.key_dirs is not None)
        index = not settings.get("ownPages", False) and f"{host}/index.html" not in ctx.files
        with templating.operator_limits(_meter(ctx)):
            rendered = pages.host_pages(cfg, t, host, index=index)
        ctx.report.extend(rendered.findings)
        rendered.files = [f for f in rendered.files if f[0] not in ctx.files]
        pages.add_files(ctx.files, rendered)
    if not ctx.report.ok:
        return
    for rel, data in hosting.hosting_files(cfg, ctx.files):
        ctx.files.add_path(rel, data)


#: The pages of a host's root that belong to the website on an overlay host.
_WEBSITE_PAGES = ("index.html", "404.html")


def overlay_findings(ctx: BuildContext, host: str) -> list[Finding]:
    """``SITE-OVERLAY`` errors: a page acap would write at the root of ``host``, where the
    operator's own website lives (``hosts.<host>.overlay``), as its home page or its
    404 page: a personEntry at ``https://<host>/`` (or ``/index.html``, ``/404.html``)."""


    out: list[Finding] = []
    cfg = ctx.cfg
    for name in _WEBSITE_PAGES:
        if f"{host}/{name}" not in ctx.files:
            continue
        where = cfg.at(f"/hosts/{host}", key=True) if host in (cfg.data.get("hosts") or {}) \
            else cfg.at("/operator/website")
        for ptr, skill in cfg.on_request_skills():
            url = skill.get("personEntry")
            try:
                u = urlsplit(url) if isinstance(url, str) else None
            except ValueError:
                continue
            if u and (u.hostname or "").lower() == host and u.path.lstrip("/") in ("", name):
                where = cfg.at(f"{ptr}/personEntry")
                break
        what = "home page" if name == "index.html" else "page for addresses it does not have"
        out.append(Finding(
            "SITE-OVERLAY", "error", f"acap would write {name} on {host}, where your own "
            f"website lives: it would replace your website's {what}", where,
            f"give the page an address of its own (https://{host}/ask), or, if acap's "
            f"pages are all of {host}, set hosts: {host}: overlay: false"))
    return out
