"""``acap build``: operator.yaml -> a signed Agent Card and everything site/ needs.

The pipeline (each step adds files to one in-memory :class:`~acap.site.SiteFiles`
and findings to one :class:`~acap.findings.Report`)::
    load + schema  ->  requirement checks  ->  AgentCard  ->  self-check against
    the A2A and extension schemas  ->  sign (JWS)  ->  JWKS  ->  pages and
    hosting files  ->  final checks over every built file  ->  write site/ atomically

Nothing is written when any step reports an error: the previous site/ stays.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from pathlib import Path

from acap._package import __version__
from acap.builder._context import BuildContext, BuildOptions, BuildResult
from acap.builder._policy import agent_policy, policy_bytes, policy_path_for
from acap.builder._steps import FINAL_CHECKS, STEPS, Step, bug_finding
from acap.builder.pages import SERVERS_DIR, cache_policy, server_files
from acap.checks import OperatorCheck, check_operator
from acap.errors import FileRefused, SitePathError
from acap.findings import Finding, Location, Report
from acap.keys import key_history
from acap.load import (
    KEY_FILE_LIMIT,
    OperatorConfig,
    Root,
    load_operator,
    read_file,
    read_regular,
    real_path,
    under,
    write_check,
    write_file,
)
from acap.site import (
    Manifest,
    SiteFiles,
    real_site_dir,
    site_dir_findings,
    site_lock,
    url_to_path,
    write_failure,
    write_site,
)
from acap.uris import CARD_PATH, JWKS_PATH

__all__ = ["assemble", "build", "check_operator_file", "file_hash", "input_digest",
           "input_files", "link_digest", "write_or_report"]


def input_files(cfg: OperatorConfig, templates: list[str] | None = None) -> list[Path]:
    """What a build reads besides the signing key, in the order :func:`input_digest`
    hashes it: operator.yaml, operator.private.yaml, the previous keys, and every entry
    of templates/ but its folders (sorted): links to folders too (:func:`file_hash`
    hashes where they lead), since a template is read through them. ``templates``:
    those entries, when the caller has listed them already."""
    paths = [cfg.path, cfg.private_values_file, cfg.previous_keys_file]
    if templates is not None:
        return paths + [Path(t) for t in templates]
    tpl = cfg.base_dir / "templates"
    if tpl.is_dir():  # every entry but folders: a FIFO or link added is a change too
        paths += sorted(p for p in tpl.rglob("*") if p.is_symlink() or not p.is_dir())
    return paths


def file_hash(path: Path, root: Root | None = None) -> bytes | None:
    """SHA-256 of a file a build reads, judged first (a regular file of bounded size:
    a FIFO or ``/dev/zero`` named there is never waited on; with ``root``, within it,
    a link out of it refused unread: :func:`acap.load.read_file`); ``None`` when it is
    missing, :data:`REFUSED` when it is there but refused (a FIFO where there was no
    file is a change: the build that reads it reports it). A symbolic link is hashed
    with where it leads (:func:`link_digest`): a link put where a file was, or to
    nothing where there was nothing, is a change too."""

    try:
        raw = read_regular(path, 16 * KEY_FILE_LIMIT) if root is None else \
            read_file(path, root, 16 * KEY_FILE_LIMIT)
        digest: bytes | None = hashlib.sha256(raw).digest()
    except FileNotFoundError:
        digest = REFUSED if os.path.lexists(path) else None
    except (OSError, FileRefused):
        digest = REFUSED
    return link_digest(path, digest)


def link_digest(path: str | os.PathLike[str], digest: bytes | None) -> bytes | None:
    """``digest`` (of what ``path`` leads to) when ``path`` is no symbolic link, else
    the SHA-256 of the link's own text and ``digest``: a build judges a link (a
    tenant's link out of its folder is refused), so the link is an input of its own
    and not only the file it leads to."""
    try:
        target = os.readlink(path)
    except OSError:  # no link (EINVAL), or missing
        return digest
    return hashlib.sha256(b"link\0" + os.fsencode(target) + b"\0" +
                          (digest if digest is not None else b"-")).digest()


#: :func:`file_hash` of a file that is there but not read (not a SHA-256: no file has it).
REFUSED = b"refused"


def input_digest(cfg: OperatorConfig, hashes: Mapping[Path, bytes | None] | None = None,
                 paths: list[Path] | None = None) -> str:
    """SHA-256 over everything a build reads: operator.yaml, operator.private.yaml
    (a value declared private after a build must stop that build's files going out),
    templates/, previous keys and acap's version. ``acap publish`` compares it to
    refuse a stale site/. Kept in the build manifest, which is never published.

    Args:
        cfg: the loaded operator.yaml.
        hashes: :func:`file_hash` of the files of :func:`input_files`, when already
            computed (a batch hashes each file once); otherwise each is read here.
        paths: :func:`input_files` of ``cfg``, when already listed.
    """
    h = hashlib.sha256(f"acap {__version__}\n".encode())
    for p in paths if paths is not None else input_files(cfg):
        h.update(str(p.relative_to(cfg.base_dir) if p.is_relative_to(cfg.base_dir) else p)
                 .encode("utf-8", "surrogateescape") + b"\0")
        digest = hashes[p] if hashes is not None and p in hashes else \
            file_hash(p, cfg.root_of(p))
        h.update(digest if digest is not None else b"-")
    return h.hexdigest()


def assemble(options: BuildOptions, cfg: OperatorConfig | None = None) -> BuildContext:
    """Load, check and build everything in memory; write nothing.

    Args:
        options: what to build.
        cfg: operator.yaml already loaded (batch builds), else loaded from
            ``options.config``.

    Returns:
        The :class:`BuildContext`: its ``files`` are complete when
        ``report.ok``. Never raises for bad input.
    """
    cfg = cfg or load_operator(options.config)
    ctx = BuildContext(cfg, options)
    ctx.report.extend(cfg.findings)
    ctx.report.extend(name_findings(cfg))
    ctx.report.extend(templates_outside(cfg))
    if isinstance(cfg.loaded.data, dict):
        # Every finding of a run is reported: the requirement checks run on a file
        # with load or schema errors too (they read any shape, and leave out what
        # those errors already said); the card is built only when there is none.
        _guarded(ctx, "the requirement checks", _requirement_checks)
        if options.pages:
            _guarded(ctx, "the page checks", _page_checks)
    if ctx.report.ok:
        for step in STEPS:
            _guarded(ctx, f"the build step {step.__name__}", step)
            if not ctx.report.ok:
                break
    if ctx.report.ok:
        for final in FINAL_CHECKS:
            _guarded(ctx, f"the final check {final.__name__}", final)
    return ctx


def _page_checks(ctx: BuildContext) -> None:
    """What the page steps judge from operator.yaml alone (a telephone number, a
    personEntry acap writes no page for: :func:`acap.builder.pages.page_findings`), said
    with the requirement checks so that one run reports them beside the other mistakes;
    a value loading or the schema already reported is not judged again. When the build
    is stopped already, the page step's language and words-file errors too
    (:func:`acap.builder.pages.language_errors`): every file's mistakes in one run."""
    from acap.builder.pages import language_errors, page_findings  # start-up: Jinja2

    cfg = ctx.cfg
    reported = {f.location.pointer for f in cfg.findings if f.level == "error"}
    ctx.report.extend(f for f in page_findings(cfg) if f.location.pointer not in reported
                      or f.location.pointer is None)
    # Stopped already (the page step will not run): its language and words-file errors
    # too, unless page: itself has an error (then its shape is not what they read) or
    # templates/ was refused (a link out of it: reading it again says so again).
    if not ctx.report.ok and not any((f.location.pointer or "").startswith("/page")
                                     or f.rule == "PAGE-TEMPLATE" for f in ctx.report.errors):
        ctx.report.extend(language_errors(cfg, tenant=ctx.options.key_dirs is not None))


def name_findings(cfg: OperatorConfig) -> list[Finding]:
    """A file name that is not UTF-8 text (bytes such as ``\\xff``, which Python holds as
    lone surrogates): the operator file, where its link leads, or an entry of its
    templates/. Such a name cannot be written in the manifest or a message as it is:
    ``FILE`` (operator file) or ``PAGE-TEMPLATE`` (templates/) errors, never a crash."""
    out = []
    for what, path in (("the operator file", str(cfg.path)),
                       ("the file the operator file links to", real_path(cfg.path))):
        if not _utf8(path):
            out.append(Finding("FILE", "error", f"the name of {what} is not UTF-8 text: "
                               f"{path!r}", Location(cfg.loaded.file),
                               "rename it with letters, digits and hyphens, e.g. operator.yaml"))
            return out
    tpl = cfg.base_dir / "templates"
    if tpl.is_dir():
        for p in tpl.rglob("*"):
            if not _utf8(str(p)):
                out.append(Finding("PAGE-TEMPLATE", "error", f"a file name in templates/ is "
                                   f"not UTF-8 text: {str(p)!r}", Location(cfg.loaded.file),
                                   "rename it (a template's name is letters, digits, hyphens "
                                   "and a dot) or remove it"))
                break
    return out


def templates_outside(cfg: OperatorConfig) -> list[Finding]:
    """An operator's ``templates/`` that is a link out of its own folder (to another
    tenant's folder in a batch, whose files would be rendered into this tenant's public
    pages; to a folder outside a cloned project), or a link in it that leads out of
    templates/ (``templates/words -> ../../other/templates/words``): a
    ``PAGE-TEMPLATE`` error, and no template of it is used (the operator is not built;
    issue 22: no command reads through a link out of its folder). The templates'
    loader confines each file to the real templates/ folder; this confines that folder
    to the operator's, and
    refuses a link out of it whether or not a template is looked up through it, so
    that what the build says does not depend on what lies in another's folder (an
    incremental batch, which hashes templates/ without following such links, says
    what a full one says)."""
    tpl = cfg.base_dir / "templates"
    if not os.path.lexists(tpl):
        return []
    root = real_path(tpl)
    if not under(root, real_path(cfg.base_dir)):
        return [Finding("PAGE-TEMPLATE", "error", "templates/ leads out of this operator's "
                        "folder (a link to another folder), so its templates are not used",
                        Location(cfg.loaded.file),
                        "make templates/ a real folder beside operator.yaml, holding your "
                        "own templates")]
    if not os.path.isdir(tpl):
        return []
    for p in sorted(tpl.rglob("*")):
        if p.is_symlink() and not under(os.path.realpath(p), root):
            shown = p.relative_to(cfg.base_dir)
            return [Finding("PAGE-TEMPLATE", "error", f"{shown} is a link that leads "
                            "outside the templates folder, so its templates are not used",
                            Location(str(p)),
                            f"remove {shown}, or put the file itself in templates/ "
                            "(a link there may lead only to a file or folder in templates/)")]
    return []


def _utf8(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _guarded(ctx: BuildContext, what: str, run: Step) -> None:
    """Run one part of the build; what it raises becomes a finding, never a traceback:
    ``SITE-PATH`` for a URL that cannot be a file of site/, ``ACAP-BUG`` for anything
    else (a fault of acap's, not of operator.yaml: every check reads any shape)."""
    try:
        run(ctx)
    except SitePathError as exc:
        ctx.report.add(Finding("SITE-PATH", "error", str(exc), Location(ctx.cfg.loaded.file),
                               "use https URLs with a host and no '..' in the path"))
    except Exception as exc:  # see the docstring: a finding, never a traceback
        ctx.report.add(bug_finding(f"{what} failed: {type(exc).__name__}: {exc}",
                                   ctx.cfg.loaded.file))


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
    servers = _add_server_files(ctx) if ctx.report.ok else []
    written = False
    if ctx.report.passes(options.strict) and options.write and not options.check_only:
        written = _guard_and_write(ctx, site_dir)
    card_url = cfg.card_url if cfg.card_host else None
    configured = cfg.hosts
    overlay = {h: h in configured and cfg.overlay(h) for h in ctx.files.hosts()}
    return BuildResult(ctx.report, ctx.files, site_dir, ctx.card, ctx.notices, written,
                       card_url, options.strict, overlay, servers)


def _requirement_checks(ctx: BuildContext) -> None:
    """Every requirement check of operator.yaml, skill text read for OR-3.9 as
    ``acap check-reply`` reads a reply (one verdict on one text)."""
    from acap.replies import ReplyReading  # start-up: the spelled-number readers load here

    ctx.report.extend(check_operator(ctx.cfg, ReplyReading()))


def check_operator_file(path: str | Path, *, raw: bytes | None = None,
                        display: str | None = None) -> OperatorCheck:
    """``acap check operator.yaml`` (and the pre-commit hook): every check ``acap build``
    makes, because it is that build (:func:`build` with ``check_only``): loading, the
    schema, the requirement checks, the built card against the schemas, its signing,
    the pages, and the final checks over every built file (a value given on request in
    the agent's description is found here as at build). Nothing is written, and no key is
    needed: a missing signing key is made in memory for this run only.

    Args:
        path: the operator file (``operator.private.yaml`` beside it is read too).
        raw: the file's bytes, when they came from standard input (``acap check -``);
            ``path`` then only says where the file stands (its folder's
            operator.private.yaml and templates/ are read).
        display: how findings name the file (default: ``path`` as given).

    Returns:
        An :class:`~acap.checks.OperatorCheck` whose report is the build's. Never raises
        for bad content or a missing file.
    """
    options = BuildOptions(config=Path(path), write=False, check_only=True)
    if raw is None:
        report = build(options).report
    else:  # the same checks, on the bytes given (a check writes nothing: no build step)
        report = assemble(options, load_operator(Path(path), display, raw=raw)).report
    return OperatorCheck(display or str(path), report)


def _add_server_files(ctx: BuildContext) -> list[str]:
    """Web server settings (Apache, nginx, Caddy) for each host with a card or JWKS, beside
    the site under ``.servers/<host>/`` (:mod:`acap.builder.pages._servers`). A one-operator
    build only: they are never published, and a batch site is a hosting platform's, which
    configures its servers itself. Returns the folders written."""

    seconds = cache_policy(ctx.cfg).card
    out = []
    for host in ctx.files.hosts():
        if any(f"{host}{p}" in ctx.files for p in (CARD_PATH, JWKS_PATH)):
            try:
                made = server_files(host, seconds)
            except SitePathError as exc:  # a host no check refused: a finding, not a file
                ctx.report.add(Finding("SITE-PATH", "error", str(exc),
                                       Location(ctx.cfg.loaded.file),
                                       "use host names of letters, digits, hyphens and dots"))
                continue
            for rel, data in made:
                ctx.files.add_path(rel, data)
            out.append(f"{SERVERS_DIR}/{host}")
    return out


def _guard_and_write(ctx: BuildContext, site_dir: Path) -> bool:
    """Holding the site folder's lock (:func:`acap.site._files.site_lock`): check that the
    folder may be replaced (:mod:`acap.site._guard`), then write it. Returns whether
    site/ was replaced."""

    cfg, options = ctx.cfg, ctx.options
    where = f"--site-dir {site_dir}" if options.site_dir is not None else str(site_dir)
    with site_lock(real_site_dir(site_dir)) as busy:
        if busy is not None:
            ctx.report.add(busy.finding(site_dir))
            return False
        ctx.report.extend(site_dir_findings(site_dir, cfg, where, force=options.force))
        ctx.report.extend(policy_refused(ctx))
        if not ctx.report.passes(options.strict):
            return False
        manifest = Manifest.of_build(
            cfg.card_url, input_digest(cfg), ctx.files.digest(),
            # what every build into site_dir published (a kid names one key for good)
            key_history(cfg, site_dir, ctx.jwks) if ctx.jwks is not None else None)
        written = write_or_report(ctx.files, site_dir, manifest, ctx.report)
    if written:
        write_policy(ctx)
    return written


def policy_refused(ctx: BuildContext) -> list[Finding]:
    """A ``FILE-WRITE`` error when the agent policy would be written through a symbolic
    link (``.acap`` linked elsewhere) or over a FIFO: found before site/ is replaced, so
    that the build changes nothing."""
    cfg = ctx.cfg
    if url_to_path(cfg.card_url) not in ctx.files:
        return []
    path = policy_path_for(cfg.path)
    try:
        write_check(path, cfg.root_of(path))
    except FileRefused as exc:
        return [Finding("FILE-WRITE", "error", f"the agent policy {cfg.display_path(path)} "
                        f"would not be written: {exc.reason}", Location(cfg.loaded.file),
                        f"{exc.link} is a symbolic link: acap writes nothing through one; "
                        "make it a folder or file of the project" if exc.link else
                        f"remove {cfg.display_path(path)}; acap writes it")]
    except OSError:
        pass  # said when it is written
    return []


def write_policy(ctx: BuildContext) -> None:
    """Write the agent's runtime policy (:mod:`acap.builder._policy`) beside the signing
    key, once site/ holds the card it names, within the project folder through no link
    (checked before site/ was replaced: :func:`policy_refused`). A policy that cannot be
    written is a ``SITE-WRITE`` error: site/ is already replaced, and an agent reading
    the old policy refuses it (it names the SHA-256 of another card)."""

    cfg = ctx.cfg
    card = url_to_path(cfg.card_url)
    if card not in ctx.files:
        return
    path = policy_path_for(cfg.path)
    # start-up: the words are read through Jinja2's loader, only when a policy is written
    from acap.builder.pages import reply_words

    languages, words, found = reply_words(cfg, tenant=ctx.options.key_dirs is not None)
    ctx.report.extend(found)
    try:
        write_file(path, cfg.root_of(path), policy_bytes(agent_policy(
            cfg, ctx.files[card], tuple(languages), words)))
    except (OSError, FileRefused) as exc:
        why = exc.reason if isinstance(exc, FileRefused) else exc.strerror or str(exc)
        ctx.report.add(Finding("SITE-WRITE", "error", f"the agent policy "
                               f"{cfg.display_path(path)} could not be written: "
                               f"{why}", Location(cfg.loaded.file),
                               "make its folder writable and build again; site/ was written"))


def write_or_report(files: SiteFiles, site_dir: Path, manifest: Manifest,
                    report: Report) -> bool:
    """:func:`acap.site._files.write_site`, with a failure as a ``SITE-WRITE`` finding in
    ``report``.

    Returns:
        Whether site/ was replaced (on ``False`` it is as it was).
    """
    try:
        write_site(files, site_dir, manifest)
    except OSError as exc:
        report.add(write_failure(site_dir, exc))
        return False
    return True
