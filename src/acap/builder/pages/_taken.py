"""A personEntry page where the website already has a page: an error at build
(``SITE-PAGE-TAKEN``), not a surprise at publish.

The trial's case: personEntry on the clinic's own ``/contacto`` page built, and then
``acap publish`` suggested renaming that page or ``--force``, both of which would have
destroyed it. Where operator.yaml publishes a host beside its website into a folder of
this machine (``hosts.<host>.publish.dir``, overlay), the build looks there: a page file
acap would write (``contacto/index.html``, ``contacto.html``, a language's page below
it) that is there already, is not acap's by its record of the last publish there (read,
not trusted: this check only stops a build; ``acap publish`` judges the record and makes
the same refusal for every kind of target) and differs from what acap builds, is the
website's page. The finding points at the personEntry and says to choose another address.

Not in a batch: a tenant's ``publish.dir`` may name any folder of the build machine,
whose files the build must not probe.
"""

from __future__ import annotations

from pathlib import Path

from acap.builder._context import BuildContext
from acap.errors import FileRefused, SitePathError
from acap.findings import Finding
from acap.load import OperatorConfig, Root, file_status, read_file
from acap.site import RECORD_LIMIT, PublishRecord, RecordProblem, record_beside, url_to_path

__all__ = ["final_check_pages_taken"]

#: The largest page file read to compare it with acap's.
_PAGE_LIMIT = 8 * 1024 * 1024


def final_check_pages_taken(ctx: BuildContext) -> None:
    """``SITE-PAGE-TAKEN`` errors for acap's pages that a folder target's website holds
    already (see the module docstring)."""
    if ctx.options.key_dirs is not None:  # a batch: never probe a tenant's folders
        return
    cfg = ctx.cfg
    for host, settings in cfg.hosts.items():
        pub = settings.get("publish")
        folder = pub.get("dir") if isinstance(pub, dict) else None
        if isinstance(folder, str) and cfg.overlay(host):
            target = (cfg.base_dir / folder).absolute()
            ctx.report.extend(_taken(cfg, ctx, host, target))


def _taken(cfg: OperatorConfig, ctx: BuildContext, host: str, target: Path) -> list[Finding]:
    root = Root(target, f"the folder {target}", links="refuse")
    ours = _recorded(target)
    out = []
    for ptr, url in _entries(cfg, host):
        prefix = _page_prefix(url, host)
        for rel in sorted(r[len(host) + 1:] for r in ctx.files if r.startswith(host + "/")):
            if not (rel.endswith(".html") and _belongs(rel, prefix)) or rel in ours:
                continue
            theirs = _read(target / rel, root)
            if theirs is not None and theirs != ctx.files[f"{host}/{rel}"]:
                out.append(Finding(
                    "SITE-PAGE-TAKEN", "error", f"personEntry {url} is a page of your website "
                    f"already ({rel} in {target}): publishing acap's page there would "
                    "replace it", cfg.at(ptr),
                    "give the personEntry another address, one your website does not use "
                    f"(such as {url.rstrip('/')}-ask); acap never replaces a page of your "
                    "website"))
                break
    return out


def _entries(cfg: OperatorConfig, host: str) -> list[tuple[str, str]]:
    """``(pointer, URL)`` of each https personEntry on ``host``."""
    out = []
    for ptr, skill in cfg.on_request_skills():
        url = skill.get("personEntry")
        if isinstance(url, str) and url.lower().startswith(f"https://{host}/"):
            out.append((f"{ptr}/personEntry", url))
    return out


def _page_prefix(url: str, host: str) -> str:
    """The folder of the page at ``url`` (``talk/index.html`` -> ``talk``)."""
    try:
        rel = url_to_path(url)[len(host) + 1:]
    except SitePathError:
        return "\0"  # no page of acap's
    return rel.removesuffix("index.html").rstrip("/")


def _belongs(rel: str, prefix: str) -> bool:
    """Whether the page file ``rel`` is the page at ``prefix`` (or one of its languages):
    ``talk/index.html``, ``talk.html``, ``talk/fr/index.html``."""
    return rel in (f"{prefix}.html", f"{prefix}/index.html") or \
        (rel.startswith(f"{prefix}/") and rel.endswith("/index.html"))


def _recorded(target: Path) -> set[str]:
    """The paths acap's record beside ``target`` lists (read, not trusted)."""
    beside = record_beside(target)
    raw = _read(beside, Root(beside.parent, "the folder of the target", links="refuse"),
                RECORD_LIMIT)
    try:
        return set(PublishRecord.from_bytes(raw).files) if raw is not None else set()
    except RecordProblem:
        return set()


def _read(path: Path, root: Root, limit: int = _PAGE_LIMIT) -> bytes | None:
    """The regular file at ``path`` in ``root``; ``None`` when there is none such (a
    missing target, a link: the publish judges those)."""
    try:
        if file_status(path, root) is None:
            return None
        return read_file(path, root, limit)
    except (OSError, FileRefused):
        return None
