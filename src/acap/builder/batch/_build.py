"""Batch builds: many operator.yaml files into one site/, for hosting platforms.

``acap build ops/`` (or several files) builds every operator in one process,
or spread over ``--jobs N`` processes. Schemas, validators and templates are
compiled once per process (they are cached at module level), never per card.

Each operator is built on its own, exactly as a single ``acap build`` would
build it, and the process that built it writes its files into a new folder
beside site/ (so that ``--jobs`` also spreads the writing). The new site/ is
then put together by :mod:`acap.builder.batch._assemble`: a host belongs to one operator,
an operator that failed keeps its previous folders, and operators of the last
build that are not in this batch are kept unless ``--prune``. The new folder
replaces site/ in one swap; an interrupted or failed batch leaves site/ as it
was, and a batch holds the site folder's lock while it runs
(:func:`acap.site._files.site_lock`).
"""

from __future__ import annotations

import gc
import hashlib
import os
import shutil
import signal
import stat
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from acap._package import __version__
from acap.builder import BuildOptions
from acap.builder._build import (
    REFUSED,
    assemble,
    file_hash,
    input_digest,
    input_files,
    link_digest,
)
from acap.builder.batch._assemble import assemble_site
from acap.builder.batch._model import (
    STAGING,
    BatchOptions,
    BatchResult,
    OperatorOutcome,
    finding_from,
)
from acap.errors import FileRefused
from acap.findings import Finding, Location, Report
from acap.keys import thumbprint
from acap.load import (
    KEY_ENV,
    KEY_FILE_LIMIT,
    OperatorConfig,
    forget_real_paths,
    load_operator,
    pointer_join,
    read_regular,
    real_path,
    real_path_lstat,
    under,
)
from acap.site import (
    FileStats,
    Manifest,
    SiteBusy,
    batch_site_findings,
    new_site_folder,
    read_file_stats,
    read_manifest,
    real_site_dir,
    record_file_stats,
    settled,
    signature,
    site_lock,
    unchanged_output,
    write_failure,
    write_files,
)


def find_configs(paths: Iterable[Path]) -> list[Path]:
    """Operator files named by ``paths``: files as given; for a folder, its ``*.yaml``
    and ``*.yml`` files and the ``operator.yaml`` of each subfolder, sorted.

    A link to an operator file is followed when it leads to a file in the link's own
    folder (or below it), so that the operator's folder (its key, its
    ``.private.yaml``) is the real file's. A link that leads out of its folder (a
    tenant's ``operator.yaml`` linked to a file of the build machine or of another
    tenant), to nothing, or to itself is kept as it is, unfollowed, so that the build
    reports it (:func:`link_refusal`) without reading its target. The same file named
    twice (another spelling, a linked folder) is built once.
    """
    return list(configs_by_real_path(paths).values())


def configs_by_real_path(paths: Iterable[Path]) -> dict[str, Path]:
    """:func:`find_configs`, by the real path of each (resolved once for the batch).

    Strings and ``os.scandir`` rather than ``Path`` methods: a batch folder holds
    thousands of operators, and each ``Path`` test is a ``stat`` of its own."""
    out: dict[str, Path] = {}
    for p in paths:
        for f in _candidates(p):
            real, st = real_path_lstat(f)  # one lstat tells a link too
            if st is None:
                with suppress(OSError):
                    st = os.lstat(f)
            if st is not None and stat.S_ISLNK(st.st_mode):
                folder = real_path(os.path.dirname(os.path.abspath(f)))
                if os.path.exists(f) and under(real, folder):
                    f = f.resolve()
                    real = real_path(f)
                else:  # refused by the build; keyed by where the link is, so that the
                    # tenant's record of the last build is found (its folders kept)
                    real = os.path.join(folder, os.path.basename(f))
            out.setdefault(real, f)
    return out


def _candidates(p: Path) -> list[Path]:
    if not p.is_dir():
        return [p]
    found = []
    with os.scandir(p) as entries:
        for e in entries:
            name = e.name
            if name.endswith(".private.yaml") or name.startswith("."):
                continue
            if os.path.splitext(name)[1] in (".yaml", ".yml") and \
                    (e.is_file() or not os.path.exists(e.path)):
                found.append(p / name)  # a file, or a link to one that is missing
            elif e.is_dir() and (os.path.isfile(op := os.path.join(e.path, "operator.yaml"))
                                 or os.path.islink(op)):
                found.append(p / name / "operator.yaml")  # a link to nothing too
            elif e.is_symlink() and not os.path.exists(e.path):
                found.append(p / name / "operator.yaml")  # a link to a missing folder
    return sorted(found)


def link_refusal(config: Path) -> Finding | None:
    """The ``FILE`` error of a batch operator file that is a symbolic link
    :func:`configs_by_real_path` did not follow (it leads out of its folder, to
    nothing, or to itself), or ``None`` when ``config`` is no link. Nothing of the
    link's target is read: a tenant's ``operator.yaml`` linked to a file of the build
    machine would otherwise show its values in findings and make that file's folder
    the tenant's (its keys, its private values, its templates)."""
    try:
        st = os.lstat(config)
    except OSError:
        return None
    if not stat.S_ISLNK(st.st_mode):
        return None
    if os.path.exists(config):
        why = "leads out of this operator's folder, so it is not read"
    else:
        why = "leads nowhere (a missing file, or a loop of links)"
    return Finding("FILE", "error", f"{config} is a link that {why}", Location(str(config)),
                   "make it a regular file in the operator's folder (a link may lead "
                   "only to a file in the same folder or below it); this operator's "
                   "previous folders were kept")


@dataclass(frozen=True)
class Job:
    """What every operator of a batch is built with (sent to each worker with its share).

    Attributes:
        site_dir: the batch's output folder (as given).
        pages, spec_site, strict, new_keys: as :class:`BatchOptions`.
        key_dirs: the platform's ``--key-dir`` folders, resolved.
        full: rebuild every operator (``--full``).
        salt: what else the output depends on (see :func:`job_salt`).
        template_seconds: as :class:`BatchOptions`.
    """

    site_dir: Path
    pages: bool = True
    spec_site: bool | None = None
    strict: bool = False
    new_keys: bool = False
    key_dirs: tuple[Path, ...] = ()
    full: bool = False
    salt: str = ""
    template_seconds: float = 5.0


def job_salt(options: BatchOptions, key_dirs: tuple[Path, ...]) -> str:
    """The options and surroundings a batch operator's output depends on besides its own
    files (acap's version, pages, spec site, strict, key folders, the signing key in
    ``ACAP_SIGNING_KEY``, the folder names are shown from), as a digest: an operator
    is kept only when they are the same as when it was built."""
    env = os.environ.get(KEY_ENV) or ""
    text = "\0".join([__version__, repr(options.pages), repr(options.spec_site),
                      repr(options.strict), repr(options.new_keys),
                      *(str(d) for d in key_dirs), os.getcwd(),
                      hashlib.sha256(env.encode("utf-8", "surrogateescape")).hexdigest()
                      if env else "-"])
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()


def state_digest(job: Job, config: Path, reads: list[str],
                 hashes: dict[str, bytes | None], templates: list[str]) -> str:
    """SHA-256 over everything one operator's output depends on: the batch's
    :func:`job_salt`, its operator file as named, and each file it reads (``reads``:
    operator file, private values, previous keys, signing key; ``templates``: every
    file of its templates/) with the SHA-256 of its bytes, ``-`` when missing. The
    manifest keeps it (with ``reads``), so that the next batch can tell, without
    loading operator.yaml, that nothing changed."""
    h = hashlib.sha256(f"{job.salt}\0{config}\0".encode("utf-8", "surrogateescape"))
    for p in (*reads, *templates):
        d = hashes.get(p)
        h.update(p.encode("utf-8", "surrogateescape") + b"\0" + (d if d is not None else b"-"))
    return h.hexdigest()


def _templates(folder: str) -> list[str]:
    """Every entry of ``folder``/templates but its folders (sorted), as
    :func:`acap.builder._build.input_files` lists them."""
    tpl = os.path.join(folder, "templates")
    if not os.path.isdir(tpl):  # the common case: one stat, no Path
        return []
    return [str(p) for p in sorted(p for p in Path(tpl).rglob("*")
                                   if p.is_symlink() or not p.is_dir())]


def _hash_reads(reads: list[str], templates: list[str], roots: tuple[str, ...],
                known: dict[str, Any], seen: dict[str, list[Any]]
                ) -> dict[str, bytes | None] | None:
    """The SHA-256 of each file (``None``: missing or refused, as
    :func:`acap.builder._build.file_hash` has it); the key files (the last two of
    ``reads``: previous keys, signing key) judged as the build judges them: inside
    ``roots`` (real paths), else ``None`` for all (then the operator is rebuilt, and
    the build reports it).

    A regular file (not a link: its ``lstat``) whose signature is the one ``known``
    recorded for it (see :mod:`acap.site._file_stats`) has the digest recorded with
    it, unread; any other file is read and hashed, and its signature put in ``seen``
    (with its digest) when :func:`acap.site.settled`. A file that is not a regular
    file is judged by that read, as before, and a symbolic link is hashed with where
    it leads (:func:`acap.builder._build.link_digest`), as the build hashes it.
    ``seen`` gets the recorded entries of the files found unchanged.
    """
    out: dict[str, bytes | None] = {}
    since = time.time_ns()
    for i, p in enumerate((*reads, *templates)):
        if not p:
            continue
        key = 2 <= i < 4
        seen_st = None
        if key:  # confined first, as read_regular(inside=...) does: issue 12
            real, seen_st = real_path_lstat(p)
            if not any(under(real, r) for r in roots):
                return None
        try:  # lstat: a link is never taken for the file it leads to
            st = seen_st if seen_st is not None else os.lstat(p)
        except FileNotFoundError:
            out[p] = None  # missing (no link either): as the read below has it
            continue
        except OSError:
            st = None
        entry = known.get(p)
        if st is not None and isinstance(entry, list) and len(entry) == 7 and \
                stat.S_ISREG(st.st_mode) and entry[:6] == signature(st) and \
                isinstance(entry[6], str):
            with suppress(ValueError):
                out[p] = bytes.fromhex(entry[6])
                seen[p] = entry
                continue
        if key:
            try:
                digest: bytes | None = link_digest(p, hashlib.sha256(read_regular(
                    p, KEY_FILE_LIMIT, inside=[Path(r) for r in roots])).digest())
            except FileNotFoundError:
                digest = link_digest(p, REFUSED if os.path.lexists(p) else None)
            except (OSError, FileRefused):
                return None
        else:
            digest = file_hash(Path(p))
        out[p] = digest
        _seen(seen, p, digest, since)
    return out


def _seen(seen: dict[str, list[Any]], path: str, digest: bytes | None, since: int) -> None:
    """Put ``path``'s signature and ``digest`` in ``seen`` when it may be recorded: read
    whole (a digest), and :func:`acap.site.settled` since ``since`` (taken before it was
    read), its ``stat`` taken after the read."""
    if digest is None:
        return
    with suppress(OSError):
        st = os.lstat(path)  # a link is never recorded (settled: regular files only)
        if settled(st, since):
            seen[path] = [*signature(st), digest.hex()]


def outputs_unchanged(folder: Path, files: dict[str, str], known: dict[str, Any], mark: int,
                      seen: dict[str, list[int]]) -> bool:
    """True when every file of ``files`` (``{path under folder: sha256 hex}``, from the
    manifest) is a regular file under ``folder`` with that digest: an output deleted
    or edited since the last build makes its operator build again.

    A file whose ``lstat`` has the signature ``known`` recorded for it, changed before
    the last batch's ``mark``, is unchanged unread (:func:`acap.site.unchanged_output`);
    any other is read and hashed. ``seen`` gets the signature of each file as it was
    judged (taken before it was read), for the next batch."""
    top = os.fspath(folder)
    for rel, digest in files.items():
        path = os.path.join(top, rel)
        try:
            sig = signature(os.lstat(path))
        except OSError:
            return False
        if unchanged_output(sig, known.get(rel), mark):
            seen[rel] = sig
            continue
        try:
            data = read_regular(path, OUTPUT_LIMIT)
        except (OSError, FileRefused):
            return False
        if hashlib.sha256(data).hexdigest() != digest:
            return False
        seen[rel] = sig
    return True


#: The largest output file :func:`outputs_unchanged` reads (bytes); a larger one is rebuilt.
OUTPUT_LIMIT = 64 * 1024 * 1024


#: The signatures the last batch recorded for one operator (see :func:`reuse`): of its
#: inputs, of its output files, and the mark of those.
Known = tuple[dict[str, Any], dict[str, Any], int]


def reuse(config: Path, record: dict[str, Any], files: dict[str, str], job: Job,
          known: Known = ({}, {}, -1), real: str | None = None) -> OperatorOutcome | None:
    """The operator of ``config`` as the last batch left it, when nothing it reads and
    none of its output files changed since: its state (:func:`state_digest`, from the
    files the record lists and its templates/ as they are now) and its output files'
    digests (:func:`outputs_unchanged`) are those the manifest keeps. Its
    warnings are those it had, so that the batch reports what a rebuild would.

    A file whose ``stat`` has the signature the last batch recorded is not read again
    (``known``; see :mod:`acap.site._file_stats` for why that is safe); any other is
    read and hashed. The key files are judged as a rebuild judges them (inside the
    operator's folder or ``--key-dir``, a regular file) whatever their signature; one
    that is not is no reuse: the rebuild reports it.

    Args:
        config: the operator file.
        record: its record in the last build's manifest (matched by its real path).
        files: ``{path under site/: sha256}`` of the files of its hosts.
        job: the batch's settings.
        known: the signatures the last batch recorded: of what it read
            (:meth:`acap.site.FileStats.inputs`), of ``files``
            (:meth:`acap.site.FileStats.outputs`) and its mark.
        real: the real path of ``config``, when the batch has it already.

    Returns:
        Its outcome (``reused``), or ``None`` when it must be rebuilt.
    """
    reads = record.get("reads")
    if job.full or not isinstance(reads, list) or len(reads) != 4 or \
            not all(isinstance(r, str) for r in reads) or reads[0] != str(config) or \
            not isinstance(record.get("state"), str) or not files or \
            os.path.islink(config):  # a link not followed: the build reports it
        return None
    output_stats: dict[str, list[int]] = {}
    if not outputs_unchanged(job.site_dir, files, known[1], known[2], output_stats):
        return None
    folder = os.path.dirname(real if real is not None else real_path(config))
    templates = _templates(os.path.dirname(str(config)))
    roots = (folder, *(str(d) for d in job.key_dirs))
    input_stats: dict[str, list[Any]] = {}
    hashes = _hash_reads(reads, templates, roots, known[0], input_stats)
    if hashes is None or state_digest(job, config, reads, hashes, templates) != record["state"]:
        return None
    report = Report()
    report.extend(finding_from(f) for f in record.get("warnings") or ()
                  if isinstance(f, dict))
    if not report.passes(job.strict):
        return None  # rebuilt, so that --strict fails it as a build does
    places = record.get("places") or {}
    out = OperatorOutcome(config, report, digests=dict(files),
                          hosts=[str(h) for h in record.get("hosts") or []],
                          card_url=str(record["card"]), inputs=str(record.get("inputs", "")),
                          host_places={h: _loc(config, v) for h, v in places.items()},
                          key_file=record.get("keyFile") if isinstance(record.get("keyFile"),
                                                                       str) else None,
                          key_place=_loc(config, record.get("keyPlace")),
                          key_thumbprints=[str(k) for k in record.get("keys") or []],
                          signer=record.get("signer") if isinstance(record.get("signer"), str)
                          else None,
                          previous_place=_loc(config, record.get("previousPlace")),
                          reused=True, state=str(record["state"]), reads=list(reads),
                          input_stats=input_stats, output_stats=output_stats)
    return out


def _loc(config: Path, place: Any) -> Location:
    """A location in ``config`` from a record's ``[line, column]``."""
    if isinstance(place, list) and len(place) == 2 and all(isinstance(v, int) for v in place):
        return Location(str(config), place[0], place[1])
    return Location(str(config))


def build_one(config: Path, site_dir: Path, pages: bool, spec_site: bool | None,
              strict: bool, stage: Path | None = None, new_keys: bool = True,
              job: Job | None = None) -> OperatorOutcome:
    """Build one operator (the unit of work of a batch; runs in a worker).

    Args:
        config: its operator file.
        site_dir: the batch's output folder (its JWKS say which kids were published).
        pages, spec_site, strict: as :class:`BatchOptions`.
        stage: a new, empty folder to write its files into (the worker writes them,
            so that a batch over several processes writes in parallel); ``None``
            builds in memory only.
        new_keys: make a signing key when the operator has none.
        job: the batch's settings; with it, the operator's key files must lie in its
            own folder or the job's ``key_dirs`` (a tenant of a hosting platform), and
            its state is recorded for the next batch (:func:`reuse`).

    Returns:
        Its :class:`OperatorOutcome`; ``digests`` is empty when it failed (a file
        that cannot be written is a ``SITE-WRITE`` error of this operator).
    """


    since = time.time_ns()  # before anything is read: see acap.site._file_stats
    refused = link_refusal(config) if job is not None else None
    if refused is not None:
        report = Report()
        report.add(refused)
        return OperatorOutcome(config, report)
    opts = BuildOptions(config=config, site_dir=site_dir, spec_site=spec_site, strict=strict,
                        pages=pages, create_key=new_keys,
                        key_dirs=job.key_dirs if job is not None else None,
                        template_seconds=job.template_seconds if job is not None else 5.0)
    try:
        # a tenant's operator file is read only inside its folder: one swapped for a link
        # out of it since the batch looked is refused, not read
        ctx = assemble(opts, load_operator(config, inside=[config.parent])
                       if job is not None else None)
    except MemoryError:  # the worker's memory bound (see _worker_start): this one only
        report = Report()
        report.add(Finding("BATCH-MEMORY", "error", "building this operator used more memory "
                           "than a batch worker may use", Location(str(config)),
                           "look for what makes this operator's build big (its templates, "
                           "words files or operator.yaml); the other operators were built"))
        return OperatorOutcome(config, report)
    except Exception as exc:  # one operator's crash must not take the batch down
        return bug_outcome(config, exc)
    cfg = ctx.cfg
    out = OperatorOutcome(config, ctx.report, hosts=ctx.files.hosts(), notices=ctx.notices,
                          history=ctx.history,
                          card_url=cfg.card_url if cfg.card_host else None,
                          host_places=_host_places(cfg),
                          key_file=None if cfg.key_from_env else real_path(cfg.key_file),
                          key_place=cfg.at("/signing/keyFile") if "keyFile" in cfg.signing
                          else cfg.at("/signing", key=True),
                          previous_place=cfg.at("/signing/previousKeys")
                          if "previousKeys" in cfg.signing else cfg.at("/signing", key=True))
    if ctx.jwks is not None:
        out.key_thumbprints = [thumbprint(k) for k in ctx.jwks.get("keys", [])]
        out.signer = out.key_thumbprints[0] if out.key_thumbprints else None
    if not ctx.report.passes(strict):
        return out
    if stage is not None:
        try:
            write_files(stage, ((rel, ctx.files[rel]) for rel in ctx.files),
                        out.output_stats if job is not None else None)
        except OSError as exc:
            out.report.add(Finding("SITE-WRITE", "error", f"cannot write this operator's "
                                   f"files: {exc.strerror or exc}", Location(str(config)),
                                   "check the free space and permissions beside the site "
                                   "folder; its previous folders were kept"))
            return out
        out.staged = stage
    out.digests = ctx.files.digest()
    paths = input_files(cfg)
    hashes = {p: file_hash(p) for p in paths}
    out.inputs = input_digest(cfg, hashes)
    if job is not None:
        key = "" if cfg.key_from_env else str(cfg.key_file)
        out.reads = [str(config), str(cfg.private_values_file), str(cfg.previous_keys_file),
                     key]
        by_name = {str(p): h for p, h in hashes.items()}
        if key:
            by_name[key] = file_hash(cfg.key_file)
        templates = [str(p) for p in paths[3:]]
        out.state = state_digest(job, config, out.reads, by_name, templates)
        for p in (*out.reads, *templates):  # after every read: see acap.site._file_stats
            if p:
                _seen(out.input_stats, p, by_name.get(p), since)
    return out


def _host_places(cfg: object) -> dict[str, Location]:
    """Where operator.yaml names each host it builds: ``cardHost`` (else
    ``operator.website``) for the card host, the key under ``hosts:`` for the others."""


    assert isinstance(cfg, OperatorConfig)
    out: dict[str, Location] = {}
    raw = cfg.data.get("hosts")
    for name in raw if isinstance(raw, dict) else ():
        out[str(name).lower()] = cfg.at(pointer_join("/hosts", str(name)), key=True)
    if cfg.card_host:
        out[cfg.card_host] = cfg.at("/cardHost") if isinstance(cfg.data.get("cardHost"), str) \
            else cfg.at("/operator/website")
    return out


#: One operator's share of work: its number, its file and that file's real path, its
#: record in the last build's manifest (matched by real path), the digests of its hosts'
#: files, when any, and the signatures the last batch recorded of its inputs and of those
#: files (see :func:`reuse`).
Item = tuple[int, Path, str, "dict[str, Any] | None", "dict[str, str]", "Known"]


def _build_chunk(args: tuple[list[Item], Job, Path | None]) -> list[OperatorOutcome]:
    items, job, staging = args
    out = []
    for i, config, real, record, files, known in items:
        try:
            kept = reuse(config, record, files, job, known, real) if record is not None \
                else None
            out.append(kept if kept is not None else
                       build_one(config, job.site_dir, job.pages, job.spec_site, job.strict,
                                 staging / str(i) if staging is not None else None,
                                 job.new_keys, job))
        except Exception as exc:  # one tenant's crash must not take the batch down
            out.append(bug_outcome(config, exc))
    return out


def bug_outcome(config: Path, exc: BaseException) -> OperatorOutcome:
    """The outcome of an operator whose build raised what no check foresaw: one
    ``ACAP-BUG`` error naming the operator, which is not built; the others are."""
    report = Report()
    report.add(Finding("ACAP-BUG", "error", f"building the operator of {str(config)!r} "
                       f"failed: {type(exc).__name__}: {exc}; this is a bug in acap, not in "
                       "your file", Location(str(config)),
                       "please report it to acap's maintainers with this message; the other "
                       "operators of the batch were built"))
    return OperatorOutcome(config, report)


def build_many(options: BatchOptions) -> BatchResult:
    """Build every operator of ``options`` into one site/.

    The site folder is checked first (:func:`acap.site._guard.batch_site_findings`)
    and locked for the whole batch. Each operator is built, and its files
    written, by the process that builds it, into a new folder beside site/;
    :func:`acap.builder.batch._assemble.assemble_site` then moves them into place and the new
    folder replaces site/ in one swap. An interrupted or failed batch leaves
    site/ as it was.

    Args:
        options: the operators, the output folder and how many processes.

    Returns:
        A :class:`BatchResult`. Each operator's findings are in its outcome;
        site/ is replaced when at least one operator built, and left alone
        otherwise (operators are still built and reported when the site folder
        is refused or busy).

    Raises:
        Nothing for bad input; a site/ that cannot be written is a finding.
    """


    gc.enable()  # many operators: let the collector run (the CLI turns it off)
    forget_real_paths()  # the folders may have changed since this process last looked
    found = configs_by_real_path(options.configs)
    configs = list(found.values())
    result = BatchResult([], options.site_dir)
    if not configs:
        named = ", ".join(str(p) for p in options.configs) or "(nothing)"
        result.report.add(Finding("FILE", "error", f"no operator files in {named}",
                                  Location(named), "give operator files, or folders holding "
                                  "*.yaml files or */operator.yaml"))
        return result
    site_dir = real_site_dir(options.site_dir)
    result.report.extend(batch_site_findings(options.site_dir, configs,
                                             f"--site-dir {options.site_dir}",
                                             force=options.force))
    with site_lock(site_dir) as lock:
        if isinstance(lock, SiteBusy):
            result.report.add(lock.finding(options.site_dir))
        tmp: Path | None = None
        try:
            if result.report.ok:
                try:
                    tmp = new_site_folder(site_dir)
                except OSError as exc:
                    result.report.add(write_failure(options.site_dir, exc))
            old = read_manifest(site_dir)
            stats = read_file_stats(site_dir) if old is not None and not options.full \
                else FileStats({})
            with _terminate_on_sigterm():
                _build_all(result, options, found, tmp / STAGING if tmp else None, old,
                           stats)
            if tmp is not None:
                written = assemble_site(result, options, tmp, site_dir, old,
                                        {str(c): r for r, c in found.items()})
                tmp = None  # swapped in, or removed
                result.written = written is not None
                if written is not None:
                    _record_stats(result, site_dir, written)
        finally:
            if tmp is not None:
                shutil.rmtree(tmp, ignore_errors=True)
    return result


def _record_stats(result: BatchResult, site_dir: Path, written: Manifest) -> None:
    """Record, once the new site/ is in place, the signatures of what this batch read and
    of the files of the new site/ (:func:`acap.site.record_file_stats`): of the
    operators it kept or built, as it checked or wrote them. Operators it did not build
    now (not in this batch, or failed) have none, and are read and hashed when they
    come back."""
    expected: dict[str, list[int]] = {}
    inputs: dict[str, dict[str, list[Any]]] = {}
    for o in result.built:
        expected.update(o.output_stats)
        if o.state and o.input_stats:
            inputs[o.state] = o.input_stats
    files = written.files
    record_file_stats(site_dir, {rel: sig for rel, sig in expected.items() if rel in files},
                      inputs)


def _build_all(result: BatchResult, options: BatchOptions, configs: dict[str, Path],
               staging: Path | None, old: Manifest | None, stats: FileStats) -> None:
    key_dirs = tuple(Path(real_path(d)) for d in options.key_dirs)
    job = Job(options.site_dir, options.pages, options.spec_site, options.strict,
              options.new_keys, key_dirs, options.full, job_salt(options, key_dirs),
              options.template_seconds)
    by_config: dict[str, dict[str, Any]] = {}
    by_host: dict[str, list[str]] = {}
    files: dict[str, str] = {}
    if old is not None and not options.full:
        by_config = {str(r.get("config")): r for r in old.records()}
        by_host = old.files_by_host()
        files = old.files
    items: list[Item] = []
    for i, (real, c) in enumerate(configs.items()):
        rec = by_config.get(real)
        mine = {rel: files[rel] for h in rec.get("hosts") or [] for rel in by_host.get(h, ())
                if rel in files} if rec is not None else {}
        known: Known = (stats.inputs(rec.get("state")), stats.outputs(mine), stats.mark) \
            if rec is not None else ({}, {}, -1)
        items.append((i, c, real, rec, mine, known))
    jobs = max(1, min(options.jobs, len(configs)))
    if jobs == 1:
        result.outcomes = _build_chunk((items, job, staging))
        return

    # Contiguous chunks, several per worker: each worker compiles schemas and
    # templates once and keeps them for all the operators it builds. A pool whose
    # terminate() is public: when the batch is stopped (Ctrl-C, SIGTERM, an error),
    # leaving the `with` kills the workers instead of leaving them behind.
    size = max(1, -(-len(configs) // (jobs * 4)))
    chunks = [items[i:i + size] for i in range(0, len(items), size)]
    # Ctrl-C and SIGTERM wait while the pool starts (Pool() itself does not stop the
    # workers it started when interrupted), and are let through inside the `with`.
    import multiprocessing  # start-up: worker processes only with -j 2 or more

    stops = {signal.SIGINT, signal.SIGTERM}
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, stops)
    try:
        with multiprocessing.Pool(jobs, initializer=_worker_start,
                                  initargs=(os.getpid(), options.memory_limit)) as pool:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
            for part in pool.imap(_build_chunk, [(c, job, staging) for c in chunks]):
                result.outcomes.extend(part)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


def _worker_start(parent: int, memory_limit: int | None = None) -> None:
    """In each worker: in a process group of its own (a signal to the batch's group
    reaches the parent alone), Ctrl-C is the parent's to handle (it terminates the pool),
    SIGTERM ends the worker at once (what :meth:`multiprocessing.pool.Pool.terminate`
    sends), and the worker ends when the parent does, however it ends (SIGKILL
    too): Linux's ``PR_SET_PDEATHSIG``, through ctypes, since neither the standard
    library nor a maintained package offers it. Elsewhere, the first two only.

    ``memory_limit`` (bytes, ``None``: none) bounds the worker's address space
    (``RLIMIT_AS``): one tenant cannot use up the machine's memory; past it Python
    raises ``MemoryError``, a finding of that tenant (``BATCH-MEMORY``, or
    ``PAGE-TEMPLATE`` in a template), and the worker goes on with the others."""
    forget_real_paths()
    if memory_limit is not None:
        _limit_memory(memory_limit)
    # A process group of its own, before SIGTERM is let in: `timeout`, CI runners and
    # supervisors signal the whole group, and a worker killed that way while it held
    # the pool's task-queue lock left the parent's Pool.terminate() waiting on that
    # lock for ever (attacker re-trial: a build under `timeout 60` never ended). The
    # parent alone gets the signal and stops the workers itself; PR_SET_PDEATHSIG
    # below still ends them if the parent is killed outright.
    with suppress(OSError):
        os.setpgid(0, 0)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
    if sys.platform.startswith("linux"):
        import ctypes  # start-up: only in a worker process, only on Linux

        pr_set_pdeathsig = 1  # <linux/prctl.h>
        with suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGTERM)
    if os.getppid() != parent:  # the parent ended before the line above
        os._exit(1)


def _limit_memory(limit: int) -> None:
    """Lower this process's ``RLIMIT_AS`` soft limit to ``limit`` bytes (never above the
    hard limit; nothing where the platform has no such limit)."""
    try:
        import resource  # start-up: only in a worker process; POSIX only
    except ImportError:  # pragma: no cover - not POSIX
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    want = limit if hard == resource.RLIM_INFINITY else min(limit, hard)
    if soft == resource.RLIM_INFINITY or want < soft:
        with suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_AS, (want, hard))


@contextmanager
def _terminate_on_sigterm() -> Iterator[None]:
    """While building, SIGTERM (a CI cancel, ``timeout``, a supervisor) stops the batch as
    Ctrl-C does: the workers are terminated and the new folder removed on the way
    out. Outside the main thread signals cannot be handled; nothing is changed."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: object) -> None:
        raise SystemExit(128 + signum)

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def default_jobs() -> int:
    """The number of CPUs this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1
