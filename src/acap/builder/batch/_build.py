"""Batch builds: many operator.yaml files into one site/, for hosting platforms.

``acap build ops/`` (or several files) builds every operator in one process,
or spread over ``--jobs N`` processes. Schemas, validators and templates are
compiled once per process (they are cached at module level), never per card.

Each operator is built on its own, exactly as a single ``acap build`` would
build it, and the process that built it writes its files into a folder of
site/'s own (so that ``--jobs`` also spreads the writing); an operator whose
inputs and outputs did not change is kept as it is (:mod:`acap.builder.batch._keep`).
What the new site/ holds is then decided by :mod:`acap.builder.batch._assemble`: a host
belongs to one operator, an operator that failed keeps its previous folders, and
operators of the last build that are not in this batch are kept unless
``--prune``. :mod:`acap.builder.batch._write` puts it in place: tenant by tenant over a
site/ a batch wrote (a tenant is wholly old or wholly new, whenever the batch is
stopped), else in one swap. A batch holds the site folder's lock while it runs
(:func:`acap.site._files.site_lock`), and first finishes what a batch killed before it
began (:func:`acap.site.repair`).
"""

from __future__ import annotations

import dataclasses
import gc
import hashlib
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple

from acap.builder import BuildOptions
from acap.builder._build import assemble, file_hash, input_digest, input_files
from acap.builder.batch._assemble import plan_site
from acap.builder.batch._configs import Found, configs_by_real_path, link_refusal
from acap.builder.batch._keep import (
    UNKNOWN,
    Folder,
    Known,
    batch_salt,
    reuse,
    state_digest,
    templates_of,
)
from acap.builder.batch._model import BatchOptions, BatchResult, OperatorOutcome
from acap.builder.batch._write import SiteTarget
from acap.errors import FileRefused
from acap.findings import Finding, Location, Report
from acap.keys import thumbprint
from acap.load import (
    KEY_FILE_LIMIT,
    OperatorConfig,
    forget_real_paths,
    load_operator,
    pointer_join,
    read_regular,
    real_path,
    under,
)
from acap.site import (
    FileStats,
    Manifest,
    OperatorRecord,
    SiteBusy,
    batch_site_findings,
    read_file_stats,
    read_manifest,
    real_site_dir,
    record_file_stats,
    repair,
    settled,
    site_lock,
    stamp,
    tenant_site_findings,
    write_failure,
    write_files,
)

__all__ = ["build_many", "build_one", "default_jobs"]


def build_one(config: Path, options: BatchOptions, salt: str,
              stage: Path | None = None, st: os.stat_result | None = None
              ) -> OperatorOutcome:
    """Build one operator of a batch (the unit of work; runs in a worker): as a tenant of
    a hosting platform, whose operator file is read only inside its own folder and whose
    key files lie in that folder or the batch's ``key_dirs``.

    Args:
        config: its operator file.
        options: the batch's options (``key_dirs`` resolved).
        salt: :func:`acap.builder.batch._keep.batch_salt` of ``options``.
        stage: a new, empty folder to write its files into (the worker writes them,
            so that a batch over several processes writes in parallel); ``None``
            builds in memory only.
        st: the ``lstat`` of ``config`` taken when the batch found it, if any.

    Returns:
        Its :class:`OperatorOutcome`; ``digests`` is empty when it failed (a file
        that cannot be written is a ``SITE-WRITE`` error of this operator). Its state
        is recorded for the next batch (:func:`acap.builder.batch._keep.reuse`).
    """
    since = time.time_ns()  # before anything is read: see acap.site._file_stats
    refused = link_refusal(config, st)
    if refused is not None:
        return _failed(config, refused)
    opts = BuildOptions(config=config, site_dir=options.site_dir, spec_site=options.spec_site,
                        strict=options.strict, pages=options.pages,
                        create_key=options.new_keys, key_dirs=tuple(options.key_dirs),
                        template_seconds=options.template_seconds)
    try:
        # a tenant's operator file is read only inside its folder: one swapped for a link
        # out of it since the batch looked is refused, not read
        ctx = assemble(opts, load_operator(config, inside=[config.parent], quick=True))
    except MemoryError:  # the worker's memory bound (see _worker_start): this one only
        return _failed(config, Finding(
            "BATCH-MEMORY", "error", "building this operator used more memory than a batch "
            "worker may use", Location(str(config)), "look for what makes this operator's "
            "build big (its templates, words files or operator.yaml); the other operators "
            "were built"))
    except Exception as exc:  # one operator's crash must not take the batch down
        return bug_outcome(config, exc)
    if ctx.report.ok and under(_real_site(options.site_dir), real_path(ctx.cfg.base_dir)):
        # the site folder in the tenant's folder: a link of the tenant's may lead there
        # and stay in its folder; any other link there leads out of it, refused already
        ctx.report.extend(tenant_site_findings(options.site_dir, ctx.cfg))
    out = _outcome(config, ctx.cfg, ctx.report, ctx.files.hosts(), ctx.jwks)
    out.notices, out.history = ctx.notices, ctx.history
    if not ctx.report.passes(options.strict):
        return out
    if stage is not None:
        try:
            write_files(stage, ((rel, ctx.files[rel]) for rel in ctx.files), out.output_stats)
        except OSError as exc:
            out.report.add(Finding("SITE-WRITE", "error", f"cannot write this operator's "
                                   f"files: {exc.strerror or exc}", Location(str(config)),
                                   "check the free space and permissions beside the site "
                                   "folder; its previous folders were kept"))
            return out
        out.staged = stage
    out.digests = ctx.files.digest()
    _record_state(out, ctx.cfg, salt, since)
    return out


@lru_cache(maxsize=4)
def _real_site(site_dir: Path) -> str:
    """The real path of a batch's site folder (looked up once per process)."""
    return str(real_site_dir(site_dir))


def _failed(config: Path, finding: Finding) -> OperatorOutcome:
    report = Report()
    report.add(finding)
    return OperatorOutcome(config, report)


def _outcome(config: Path, cfg: OperatorConfig, report: Report, hosts: list[str],
             jwks: dict[str, Any] | None) -> OperatorOutcome:
    """An operator's outcome as its build left it: who it is and where its file says so."""
    out = OperatorOutcome(config, report, hosts=hosts,
                          card_url=cfg.card_url if cfg.card_host else None,
                          host_places=_host_places(cfg),
                          key_file=None if cfg.key_from_env else real_path(cfg.key_file),
                          key_place=cfg.at("/signing/keyFile") if "keyFile" in cfg.signing
                          else cfg.at("/signing", key=True),
                          previous_place=cfg.at("/signing/previousKeys")
                          if "previousKeys" in cfg.signing else cfg.at("/signing", key=True))
    if jwks is not None:
        out.key_thumbprints = [thumbprint(k) for k in jwks.get("keys", [])]
        out.signer = out.key_thumbprints[0] if out.key_thumbprints else None
    return out


def _record_state(out: OperatorOutcome, cfg: OperatorConfig, salt: str, since: int) -> None:
    """Record what ``out``'s build read, for :func:`acap.builder.batch._keep.reuse`: the
    digest of its inputs (``acap publish`` compares it), its state and the signatures
    of what it read (see :mod:`acap.site._file_stats`)."""
    named = str(cfg.path)
    folder = Folder(os.path.dirname(named), "", {})
    templates = templates_of(folder.named)
    key = "" if cfg.key_from_env else str(cfg.key_file)
    out.reads = [named, str(cfg.private_values_file), str(cfg.previous_keys_file), key]
    by_name: dict[str, bytes | None] = {}
    for p in (*out.reads, *templates):
        if not p:
            continue
        digest, st = _input_hash(p)
        by_name[p] = digest
        if st is not None and digest is not None and settled(st, since):
            out.input_stats[p] = f"{stamp(st)}:{digest.hex()}"
        elif digest is None and st is None:
            folder.record(out.input_stats, p, since, gone=True)
    if not templates:
        folder.record(out.input_stats, folder.prefix + "templates", since)
    paths = input_files(cfg, templates)
    out.inputs = input_digest(cfg, {p: by_name[str(p)] for p in paths}, paths)
    out.state = state_digest(salt, cfg.path, out.reads, by_name, templates)


def _input_hash(path: str) -> tuple[bytes | None, os.stat_result | None]:
    """:func:`acap.builder._build.file_hash` of a file the build has read, and the
    ``lstat`` of a regular file as it was hashed (taken after the read); ``(None, None)``
    when nothing is there at all. A regular file is read once, never through a link
    (:func:`acap.load.read_regular` without following links, which looks first and
    never opens a device); anything else (a link, a FIFO, a file past the bound) is
    hashed as ``file_hash`` does, without a ``stat`` (never recorded)."""
    try:
        data = read_regular(path, INPUT_LIMIT, follow_links=False)
    except FileNotFoundError:
        return None, None
    except (OSError, FileRefused):
        return file_hash(Path(path)), None
    try:
        st: os.stat_result | None = os.lstat(path)
    except OSError:
        st = None
    return hashlib.sha256(data).digest(), st


#: The largest input :func:`_input_hash` reads itself (the bound
#: :func:`acap.builder._build.file_hash` reads to).
INPUT_LIMIT = 16 * KEY_FILE_LIMIT


def _host_places(cfg: OperatorConfig) -> dict[str, Location]:
    """Where operator.yaml names each host it builds: ``cardHost`` (else
    ``operator.website``) for the card host, the key under ``hosts:`` for the others."""
    out: dict[str, Location] = {}
    raw = cfg.data.get("hosts")
    for name in raw if isinstance(raw, dict) else ():
        out[str(name).lower()] = cfg.at(pointer_join("/hosts", str(name)), key=True)
    if cfg.card_host:
        out[cfg.card_host] = cfg.at("/cardHost") if isinstance(cfg.data.get("cardHost"), str) \
            else cfg.at("/operator/website")
    return out


class Item(NamedTuple):
    """One operator's share of work (see :func:`_build_chunk`).

    Attributes:
        number: its number in the batch (its folder in the stage).
        config: its operator file.
        real: that file's real path.
        record: its record in the last build's manifest (matched by real path).
        files: the digests of its hosts' files, when it has a record.
        known: the signatures the last batch recorded of its inputs and of those files.
        stat: the ``lstat`` of ``config`` taken when it was found, if any.
    """

    number: int
    config: Path
    real: str
    record: OperatorRecord | None
    files: dict[str, str]
    known: Known
    stat: os.stat_result | None = None


def _build_chunk(args: tuple[list[Item], BatchOptions, Path | None]) -> list[OperatorOutcome]:
    """Keep or build each operator of one share of the batch (in a worker, or in the
    batch's own process with one job)."""
    items, options, stage = args
    salt = batch_salt(options)
    out = []
    for n, item in enumerate(items, 1):
        if not n % 256:  # the outcomes so far live on: out of the collector's full walks,
            gc.collect(1)  # which grew with them (a twentieth of a batch of 10,000), once
            gc.freeze()  # the garbage of the last builds is gone
        try:
            kept = reuse(item.config, item.record, item.files, options, salt, item.known,
                         item.real, item.stat) if item.record is not None else None
            out.append(kept if kept is not None else
                       build_one(item.config, options, salt,
                                 stage / str(item.number) if stage is not None else None,
                                 item.stat))
        except Exception as exc:  # one tenant's crash must not take the batch down
            out.append(bug_outcome(item.config, exc))
    return out


def bug_outcome(config: Path, exc: BaseException) -> OperatorOutcome:
    """The outcome of an operator whose build raised what no check foresaw: one
    ``ACAP-BUG`` error naming the operator, which is not built; the others are."""
    return _failed(config, Finding(
        "ACAP-BUG", "error", f"building the operator of {str(config)!r} failed: "
        f"{type(exc).__name__}: {exc}; this is a bug in acap, not in your file",
        Location(str(config)), "please report it to acap's maintainers with this message; "
        "the other operators of the batch were built"))


def build_many(options: BatchOptions) -> BatchResult:
    """Build every operator of ``options`` into one site/.

    The site folder is checked first (:func:`acap.site._guard.batch_site_findings`)
    and locked for the whole batch, and what a killed batch left half done is finished
    (:func:`acap.site.repair`). Each operator is kept as it was or built, and its
    files written, by the process that builds it, into a folder of site/'s own;
    :func:`acap.builder.batch._assemble.plan_site` decides what the new site/ holds and
    :class:`acap.builder.batch._write.SiteTarget` puts it in place: tenant by tenant
    over a site/ a batch wrote, else in one swap.

    Args:
        options: the operators, the output folder and how many processes.

    Returns:
        A :class:`BatchResult`. Each operator's findings are in its outcome; site/
        changes when at least one operator built, and is left alone otherwise
        (operators are still built and reported when the site folder is refused or
        busy).

    Raises:
        Nothing for bad input; a site/ that cannot be written is a finding.
    """
    gc.enable()  # many operators: let the collector run (the CLI turns it off)
    forget_real_paths()  # the folders may have changed since this process last looked
    _real_site.cache_clear()
    found = configs_by_real_path(options.configs)
    result = BatchResult([], options.site_dir)
    if not found:
        named = ", ".join(str(p) for p in options.configs) or "(nothing)"
        result.report.add(Finding("FILE", "error", f"no operator files in {named}",
                                  Location(named), "give operator files, or folders holding "
                                  "*.yaml files or */operator.yaml"))
        return result
    site_dir = real_site_dir(options.site_dir)
    options = dataclasses.replace(options, key_dirs=tuple(Path(real_path(d))
                                                          for d in options.key_dirs))
    folders = {os.path.dirname(real) for real in found}
    result.report.extend(batch_site_findings(options.site_dir, folders,
                                             f"--site-dir {options.site_dir}",
                                             force=options.force,
                                             key_dirs=[str(d) for d in options.key_dirs]))
    with site_lock(site_dir) as lock:
        if isinstance(lock, SiteBusy):
            result.report.add(lock.finding(options.site_dir))
        target = _target(result, site_dir) if result.report.ok else None
        try:
            old = read_manifest(site_dir)
            with _terminate_on_sigterm():
                _build_all(result, options, found, target.stage if target else None, old)
            if target is not None:
                _write(result, options, site_dir, target, old,
                       {str(c.path): r for r, c in found.items()})
        finally:
            if target is not None:
                target.close()
    return result


def _target(result: BatchResult, site_dir: Path) -> SiteTarget | None:
    """Where the batch writes (see :class:`acap.builder.batch._write.SiteTarget`), once what
    a killed batch began is finished; ``None`` (and a ``SITE-WRITE`` error) when it
    cannot."""
    try:
        repair(site_dir)
        return SiteTarget(site_dir, read_manifest(site_dir))
    except OSError as exc:
        result.report.add(write_failure(result.site_dir, exc))
        return None


def _write(result: BatchResult, options: BatchOptions, site_dir: Path, target: SiteTarget,
           old: Manifest | None, reals: dict[str, str]) -> None:
    """Decide what the new site/ holds and put it in place (``result.written``), then
    record the signatures of what the batch read and wrote."""
    plan = plan_site(result, options, site_dir, old, reals)
    if plan is None:
        return
    try:
        written = target.write(plan)
    except OSError as exc:
        result.report.add(write_failure(options.site_dir, exc))
        return
    result.written = True
    _record_stats(result, site_dir, written)


def _record_stats(result: BatchResult, site_dir: Path, written: Manifest) -> None:
    """Record, once the new site/ is in place, the signatures of what this batch read and
    of the files of the new site/ (:func:`acap.site.record_file_stats`): of the
    operators it kept or built, as it checked or wrote them. Operators it did not build
    now (not in this batch, or failed) have none, and are read and hashed when they
    come back."""
    expected: dict[str, str] = {}
    inputs: dict[str, dict[str, str]] = {}
    for o in result.built:
        expected.update(o.output_stats)
        if o.state and o.input_stats:
            inputs[o.state] = o.input_stats
    files = written.files
    record_file_stats(site_dir, {rel: sig for rel, sig in expected.items() if rel in files},
                      inputs)


def _items(configs: dict[str, Found], old: Manifest | None, stats: FileStats) -> list[Item]:
    """Each operator's share of work, with its record of the last build (by real path)."""
    by_config = {r.config: r for r in old.records()} if old is not None else {}
    by_host = old.files_by_host() if old is not None else {}
    files = old.files if old is not None else {}
    outputs = stats.all_outputs  # looked up by path: the same for every operator
    items = []
    for i, (real, c) in enumerate(configs.items()):
        rec = by_config.get(real)
        if rec is None:
            items.append(Item(i, c.path, real, None, {}, UNKNOWN, c.stat))
            continue
        mine = {rel: files[rel] for h in rec.hosts for rel in by_host.get(h, ())}
        items.append(Item(i, c.path, real, rec, mine,
                          Known(stats.inputs(rec.state), outputs, stats.mark), c.stat))
    return items


def _build_all(result: BatchResult, options: BatchOptions, configs: dict[str, Found],
               stage: Path | None, old: Manifest | None) -> None:
    full = options.full or old is None
    items = _items(configs, None if full else old, FileStats({}) if full
                   else read_file_stats(options.site_dir))
    # What was read of the last build lives as long as the batch: out of the collector's
    # way (each full collection would walk it again: a fifth of a kept batch's time).
    gc.freeze()
    jobs = max(1, min(options.jobs, len(configs)))
    if jobs == 1:
        result.outcomes = _build_chunk((items, options, stage))
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
            for part in pool.imap(_build_chunk, [(c, options, stage) for c in chunks]):
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
