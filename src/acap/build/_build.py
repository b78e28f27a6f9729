"""``acap build``: operator.yaml -> a signed Agent Card and everything site/ needs.

The pipeline (each step adds files to one in-memory :class:`~acap.site._files.SiteFiles`
and findings to one :class:`~acap.findings.Report`)::

    load + schema  ->  requirement checks  ->  AgentCard  ->  self-check against
    the A2A and extension schemas  ->  sign (JWS)  ->  JWKS  ->  pages and
    hosting files  ->  final checks over every built file  ->  write site/ atomically

Nothing is written when any step reports an error: the previous site/ stays.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acap import __version__, schemas
from acap.build.pages._steps import step_hosting_files, step_person_entry_pages
from acap.card._agent_card import build_card
from acap.card._canonical import CanonicalizationError
from acap.card._signer import Signer
from acap.checks._run import check_operator, check_site
from acap.findings import Finding, Location, Report
from acap.keys._key import KeyProblem, SigningKey, jwks
from acap.keys._store import dropped_kids, key_history, resolve_signing_key
from acap.load._operator import OperatorConfig, load_operator
from acap.site._files import SiteFiles, SitePathError, write_site

#: Where the extension's own files are published (its URI, with a trailing slash).
SPEC_BASE = "https://agent-capability.org/ext/on-request/v1/"


@dataclass
class BuildOptions:
    """What to build.

    Attributes:
        config: operator.yaml.
        site_dir: output folder; default ``site`` beside operator.yaml.
        spec_site: build the specification site; ``None`` follows operator.yaml
            ``specSite`` (default false).
        create_key: create a signing key when none exists.
        write: write site/ (``False`` checks and builds in memory only).
        strict: warnings fail the build too (nothing is written).
        pages: build the HTML pages (personEntry, root and 404 pages, spec
            site); ``False`` builds the signed card, JWKS and hosting files only
            (batch builds for hosting platforms).
        force: replace a site folder holding another card's build, or files the
            previous build did not write (:mod:`acap.site._guard`).
    """

    config: Path = Path("operator.yaml")
    site_dir: Path | None = None
    spec_site: bool | None = None
    create_key: bool = True
    write: bool = True
    strict: bool = False
    pages: bool = True
    force: bool = False

    def resolved_site_dir(self) -> Path:
        """``site_dir``, or ``site`` next to operator.yaml."""
        return self.site_dir if self.site_dir is not None else self.config.parent / "site"


@dataclass
class BuildContext:
    """State shared by the build steps.

    Attributes:
        cfg: the loaded operator.yaml.
        options: the build options.
        files: the files built so far, by path under site/.
        report: every finding so far.
        card: the signed AgentCard (set by the card step).
        jwks: the JWKS document (set by the card step).
        notices: things the user must be told (a key was created).
        key: the signing key (set by the card step; never written anywhere).
    """

    cfg: OperatorConfig
    options: BuildOptions
    files: SiteFiles = field(default_factory=SiteFiles)
    report: Report = field(default_factory=Report)
    card: dict[str, Any] | None = None
    jwks: dict[str, Any] | None = None
    notices: list[str] = field(default_factory=list)
    key: SigningKey | None = None

    @property
    def spec_site(self) -> bool:
        """Whether the specification site is built this time."""
        if not self.options.pages:
            return False
        if self.options.spec_site is not None:
            return self.options.spec_site
        return bool(self.cfg.data.get("specSite", False))


@dataclass
class BuildResult:
    """What a build did.

    Attributes:
        report: all findings; ``report.ok()`` tells success.
        files: the files built (complete only when the build succeeded).
        site_dir: where they were (or would have been) written.
        card: the signed card, or ``None``.
        notices: messages for the user (never key material).
        written: whether site/ was replaced.
        card_url: where the card is published (A2A §8.2), or ``None`` when
            operator.yaml could not be read far enough to say.
        strict: whether warnings failed the build (``BuildOptions.strict``).
    """

    report: Report
    files: SiteFiles
    site_dir: Path
    card: dict[str, Any] | None
    notices: list[str]
    written: bool
    card_url: str | None = None
    strict: bool = False

    @property
    def ok(self) -> bool:
        """True when the build succeeded (no error; no warning either with ``strict``)."""
        return self.report.ok(self.strict)


def json_bytes(data: Any) -> bytes:
    """Pretty JSON as published: 2-space indent, UTF-8 with non-ASCII as is, final newline."""
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def _bug(message: str, file: str) -> Finding:
    return Finding("ACAP-BUG", "error", message, Location(file),
                   "this is a bug in acap, not in your file: please report it with your "
                   "operator.yaml")


def step_card(ctx: BuildContext) -> None:
    """Build the AgentCard, check it against the shipped schemas, sign it, add the JWKS."""
    cfg = ctx.cfg
    try:
        card = build_card(cfg)
    except (KeyError, TypeError, ValueError) as exc:  # a check that should have caught it
        ctx.report.add(_bug(f"the card could not be built from a checked operator.yaml: "
                            f"{type(exc).__name__}: {exc}", cfg.loaded.file))
        return
    targets = [(schemas.AGENT_CARD, card, "A2A 1.0 AgentCard")]
    targets += [(schemas.EXTENSION, e.get("params"), "On Request params")
                for e in card["capabilities"].get("extensions", ())]
    for name, value, label in targets:
        for err in schemas.errors(name, value):
            ctx.report.add(_bug(f"the built card breaks the {label} schema at "
                                f"/{'/'.join(map(str, err.absolute_path))}: {err.message}",
                                cfg.loaded.file))
    if not ctx.report.ok():
        return
    resolved = resolve_signing_key(cfg, ctx.options.resolved_site_dir(),
                                   create=ctx.options.create_key)
    ctx.report.extend(resolved.findings)
    ctx.notices.extend(resolved.notices)
    if resolved.key is None:
        return
    try:
        ctx.jwks = jwks(resolved.key, resolved.previous)
        ctx.report.extend(dropped_kids(cfg, ctx.options.resolved_site_dir(), ctx.jwks,
                                       resolved.site_keys))
        ctx.card = Signer(resolved.key, jku=cfg.jwks_url).sign(card)
        ctx.key = resolved.key
    except KeyProblem as exc:
        ctx.report.add(Finding("KEY", "error", str(exc), cfg.at("/signing", key=True), exc.hint))
        return
    except CanonicalizationError as exc:
        ctx.report.add(_bug(str(exc), cfg.loaded.file))
        return
    ctx.files.add(cfg.card_url, json_bytes(ctx.card))
    ctx.files.add(cfg.jwks_url, json_bytes(ctx.jwks))


def step_schemas(ctx: BuildContext) -> None:
    """Publish the shipped schemas at the extension URI (spec site builds only)."""
    if not ctx.spec_site:
        return
    for name in schemas.ALL:
        ctx.files.add(SPEC_BASE + name, schemas.schema_bytes(name))


def final_check_site(ctx: BuildContext) -> None:
    """OR-3.9: no value of operator.private.yaml in any built file (card, pages, anything)."""
    ctx.report.extend(check_site(ctx.cfg, ((rel, ctx.files[rel]) for rel in ctx.files)))


def final_check_private_keys(ctx: BuildContext) -> None:
    """KEY-PRIVATE: no PEM private key block and no JWK with private members in any
    built file (:func:`acap.keys._leaks.site_findings`): a private key is never
    written into site/, whatever operator.yaml or templates/ hold."""
    from acap.keys._leaks import signing_key_findings, site_findings

    files = [(rel, ctx.files[rel]) for rel in ctx.files]
    found = site_findings(ctx.cfg, files, ctx.options.resolved_site_dir())
    if not found and ctx.key is not None:
        found = signing_key_findings(ctx.cfg, ctx.key.private, files,
                                     ctx.options.resolved_site_dir())
    ctx.report.extend(found)


def step_spec_site(ctx: BuildContext) -> None:
    """Build the specification site at the extension URI (spec site builds only).

    See :mod:`acap.build.specsite._site`; imported here only when needed, so that MkDocs is
    loaded only by builds that make the site.
    """
    if ctx.spec_site:
        from acap.build.specsite._site import add_spec_site

        add_spec_site(ctx)


Step = Callable[[BuildContext], None]
#: The steps after loading and checking, in order. Each adds files and findings.
STEPS: list[Step] = [step_card, step_schemas, step_spec_site, step_person_entry_pages,
                     step_hosting_files]  # hosting files last: they list every host's files
#: Checks of the finished site, run after every step has added its files.
FINAL_CHECKS: list[Step] = [final_check_site, final_check_private_keys]


def input_digest(cfg: OperatorConfig) -> str:
    """SHA-256 over everything a build reads: operator.yaml, operator.private.yaml
    (a value declared private after a build must stop that build's files going out),
    templates/, previous keys and acap's version. ``acap publish`` compares it to
    refuse a stale site/. Kept in the build manifest, which is never published."""
    from acap.checks._on_request_values import private_path

    h = hashlib.sha256(f"acap {__version__}\n".encode())
    paths = [cfg.path, private_path(cfg), cfg.previous_keys_file]
    tpl = cfg.base_dir / "templates"
    if tpl.is_dir():
        paths += sorted(p for p in tpl.rglob("*") if p.is_file())
    for p in paths:
        h.update(str(p.relative_to(cfg.base_dir) if p.is_relative_to(cfg.base_dir) else p)
                 .encode() + b"\0")
        try:
            h.update(hashlib.sha256(p.read_bytes()).digest())
        except OSError:
            h.update(b"-")
    return h.hexdigest()


def assemble(options: BuildOptions, cfg: OperatorConfig | None = None) -> BuildContext:
    """Load, check and build everything in memory; write nothing.

    Args:
        options: what to build.
        cfg: operator.yaml already loaded (batch builds), else loaded from
            ``options.config``.

    Returns:
        The :class:`BuildContext`: its ``files`` are complete when
        ``report.ok()``. Never raises for bad input.
    """
    cfg = cfg or load_operator(options.config)
    ctx = BuildContext(cfg, options)
    ctx.report.extend(cfg.findings)
    if isinstance(cfg.loaded.data, dict):
        # Every finding of a run is reported: the requirement checks run on a file
        # with load or schema errors too (they read any shape, and leave out what
        # those errors already said); the card is built only when there is none.
        ctx.report.extend(check_operator(cfg))
    if ctx.report.ok():
        for step in STEPS:
            try:
                step(ctx)
            except SitePathError as exc:
                ctx.report.add(Finding("SITE-PATH", "error", str(exc), Location(cfg.loaded.file),
                                       "use https URLs with a host and no '..' in the path"))
            if not ctx.report.ok():
                break
    if ctx.report.ok():
        for final in FINAL_CHECKS:
            final(ctx)
    return ctx


def build(options: BuildOptions) -> BuildResult:
    """Run the whole build.

    Args:
        options: what to build and where.

    Returns:
        A :class:`BuildResult`. User errors are findings in ``report``; site/
        is replaced only when there is no error (no warning either with
        ``options.strict``) and ``options.write``. A site/ that cannot be
        written is a ``SITE-WRITE`` finding, and the previous site/ stays.
    """
    ctx = assemble(options)
    cfg = ctx.cfg
    site_dir = options.resolved_site_dir()
    written = False
    if ctx.report.ok(options.strict) and options.write:
        written = _guard_and_write(ctx, site_dir)
    card_url = cfg.card_url if cfg.card_host else None
    return BuildResult(ctx.report, ctx.files, site_dir, ctx.card, ctx.notices, written,
                       card_url, options.strict)


def _guard_and_write(ctx: BuildContext, site_dir: Path) -> bool:
    """Holding the site folder's lock (:func:`acap.site._files.site_lock`): check that the
    folder may be replaced (:mod:`acap.site._guard`), then write it. Returns whether
    site/ was replaced."""
    from acap.site._files import real_site_dir, site_lock
    from acap.site._guard import site_dir_findings

    cfg, options = ctx.cfg, ctx.options
    where = f"--site-dir {site_dir}" if options.site_dir is not None else str(site_dir)
    with site_lock(real_site_dir(site_dir)) as busy:
        if busy is not None:
            ctx.report.add(busy.finding(site_dir))
            return False
        ctx.report.extend(site_dir_findings(site_dir, cfg, where, force=options.force))
        if not ctx.report.ok(options.strict):
            return False
        manifest: dict[str, Any] = {"acap": __version__, "inputs": input_digest(cfg),
                                    "card": cfg.card_url, "files": ctx.files.digest()}
        if ctx.jwks is not None:  # what every build into site_dir published (kids for good)
            manifest["publishedKeys"] = key_history(cfg, site_dir, ctx.jwks)
        return write_or_report(ctx.files, site_dir, manifest, ctx.report)


def write_or_report(files: SiteFiles, site_dir: Path, manifest: dict[str, Any],
                    report: Report) -> bool:
    """:func:`acap.site._files.write_site`, with a failure as a ``SITE-WRITE`` finding in
    ``report``.

    Returns:
        Whether site/ was replaced (on ``False`` it is as it was).
    """
    try:
        write_site(files, site_dir, manifest)
    except OSError as exc:
        report.add(Finding("SITE-WRITE", "error",
                           f"cannot write {site_dir}: {exc.strerror or exc}",
                           Location(str(site_dir)),
                           "check that the folder and its parent are writable; the "
                           "previous site/ was left as it was"))
        return False
    return True
