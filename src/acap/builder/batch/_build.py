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
import os
import shutil
import signal
import sys
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from acap.builder import BuildOptions
from acap.builder._build import assemble, input_digest
from acap.builder.batch._assemble import assemble_site
from acap.builder.batch._model import STAGING, BatchOptions, BatchResult, OperatorOutcome
from acap.findings import Finding, Location, Report
from acap.keys import thumbprint
from acap.load import OperatorConfig
from acap.site import (
    SiteBusy,
    batch_site_findings,
    new_site_folder,
    real_site_dir,
    site_lock,
    write_failure,
    write_files,
)


def find_configs(paths: Iterable[Path]) -> list[Path]:
    """Operator files named by ``paths``: files as given; for a folder, its ``*.yaml``
    and ``*.yml`` files and the ``operator.yaml`` of each subfolder, sorted.

    A link to an operator file is followed, so that the operator's folder (its key,
    its ``.private.yaml``) is the real file's; a link that leads nowhere is kept,
    so that the build reports it. The same file named twice (another spelling,
    a linked folder) is built once.
    """
    out: dict[str, Path] = {}
    for p in paths:
        for f in _candidates(p):
            if f.is_symlink() and f.exists():
                f = f.resolve()
            out.setdefault(os.path.realpath(f), f)
    return list(out.values())


def _candidates(p: Path) -> list[Path]:
    if not p.is_dir():
        return [p]
    found = []
    for f in p.iterdir():
        if f.name.endswith(".private.yaml") or f.name.startswith("."):
            continue
        if f.suffix in (".yaml", ".yml") and (f.is_file() or not f.exists()):
            found.append(f)  # a file, or a link to one that is missing
        elif f.is_dir() and (f / "operator.yaml").is_file():
            found.append(f / "operator.yaml")
        elif f.is_symlink() and not f.exists():
            found.append(f / "operator.yaml")  # a link to a missing folder
    return sorted(found)


def build_one(config: Path, site_dir: Path, pages: bool, spec_site: bool | None,
              strict: bool, stage: Path | None = None, new_keys: bool = True
              ) -> OperatorOutcome:
    """Build one operator (the unit of work of a batch; runs in a worker).

    Args:
        config: its operator file.
        site_dir: the batch's output folder (its JWKS say which kids were published).
        pages, spec_site, strict: as :class:`BatchOptions`.
        stage: a new, empty folder to write its files into (the worker writes them,
            so that a batch over several processes writes in parallel); ``None``
            builds in memory only.
        new_keys: make a signing key when the operator has none.

    Returns:
        Its :class:`OperatorOutcome`; ``digests`` is empty when it failed (a file
        that cannot be written is a ``SITE-WRITE`` error of this operator).
    """

    opts = BuildOptions(config=config, site_dir=site_dir, spec_site=spec_site, strict=strict,
                        pages=pages, create_key=new_keys)
    try:
        ctx = assemble(opts)
    except Exception as exc:  # one operator's crash must not take the batch down
        report = Report()
        report.add(Finding("ACAP-BUG", "error", f"{type(exc).__name__}: {exc}",
                           Location(str(config)), "this is a bug in acap: please report it "
                           "with this operator file"))
        return OperatorOutcome(config, report)
    cfg = ctx.cfg
    out = OperatorOutcome(config, ctx.report, hosts=ctx.files.hosts(), notices=ctx.notices,
                          card_url=cfg.card_url if cfg.card_host else None,
                          host_places=_host_places(cfg),
                          key_file=None if cfg.key_from_env else os.path.realpath(cfg.key_file),
                          key_place=cfg.at("/signing/keyFile") if "keyFile" in cfg.signing
                          else cfg.at("/signing", key=True))
    if ctx.jwks is not None:
        out.key_thumbprints = [thumbprint(k) for k in ctx.jwks.get("keys", [])]
    if not ctx.report.ok(strict):
        return out
    if stage is not None:
        try:
            write_files(stage, ((rel, ctx.files[rel]) for rel in ctx.files))
        except OSError as exc:
            out.report.add(Finding("SITE-WRITE", "error", f"cannot write this operator's "
                                   f"files: {exc.strerror or exc}", Location(str(config)),
                                   "check the free space and permissions beside the site "
                                   "folder; its previous folders were kept"))
            return out
        out.staged = stage
    out.digests = ctx.files.digest()
    out.inputs = input_digest(cfg)
    return out


def _host_places(cfg: object) -> dict[str, Location]:
    """Where operator.yaml names each host it builds: ``cardHost`` (else
    ``operator.website``) for the card host, the key under ``hosts:`` for the others."""

    assert isinstance(cfg, OperatorConfig)
    out: dict[str, Location] = {}
    raw = cfg.data.get("hosts")
    for name in raw if isinstance(raw, dict) else ():
        out[str(name).lower()] = cfg.at(f"/hosts/{name}", key=True)
    if cfg.card_host:
        out[cfg.card_host] = cfg.at("/cardHost") if isinstance(cfg.data.get("cardHost"), str) \
            else cfg.at("/operator/website")
    return out


def _build_chunk(args: tuple[list[tuple[int, Path]], Path, bool, bool | None, bool,
                              Path | None, bool]) -> list[OperatorOutcome]:
    configs, site_dir, pages, spec_site, strict, staging, new_keys = args
    return [build_one(c, site_dir, pages, spec_site, strict,
                      staging / str(i) if staging is not None else None, new_keys)
            for i, c in configs]


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
    configs = find_configs(options.configs)
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
            if result.report.ok():
                try:
                    tmp = new_site_folder(site_dir)
                except OSError as exc:
                    result.report.add(write_failure(options.site_dir, exc))
            with _terminate_on_sigterm():
                _build_all(result, options, configs, tmp / STAGING if tmp else None)
            if tmp is not None:
                result.written = assemble_site(result, options, tmp, site_dir)
                tmp = None  # swapped in, or removed
        finally:
            if tmp is not None:
                shutil.rmtree(tmp, ignore_errors=True)
    return result


def _build_all(result: BatchResult, options: BatchOptions, configs: list[Path],
               staging: Path | None) -> None:
    jobs = max(1, min(options.jobs, len(configs)))
    numbered = list(enumerate(configs))
    args = (options.site_dir, options.pages, options.spec_site, options.strict, staging,
            options.new_keys)
    if jobs == 1:
        result.outcomes = _build_chunk((numbered, *args))
        return

    # Contiguous chunks, several per worker: each worker compiles schemas and
    # templates once and keeps them for all the operators it builds. A pool whose
    # terminate() is public: when the batch is stopped (Ctrl-C, SIGTERM, an error),
    # leaving the `with` kills the workers instead of leaving them behind.
    size = max(1, -(-len(configs) // (jobs * 4)))
    chunks = [numbered[i:i + size] for i in range(0, len(numbered), size)]
    # Ctrl-C and SIGTERM wait while the pool starts (Pool() itself does not stop the
    # workers it started when interrupted), and are let through inside the `with`.
    import multiprocessing  # start-up: worker processes only with -j 2 or more

    stops = {signal.SIGINT, signal.SIGTERM}
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, stops)
    try:
        with multiprocessing.Pool(jobs, initializer=_worker_start,
                                  initargs=(os.getpid(),)) as pool:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
            for part in pool.imap(_build_chunk, [(c, *args) for c in chunks]):
                result.outcomes.extend(part)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


def _worker_start(parent: int) -> None:
    """In each worker: Ctrl-C is the parent's to handle (it terminates the pool),
    SIGTERM ends the worker at once (what :meth:`multiprocessing.pool.Pool.terminate`
    sends), and the worker ends when the parent does, however it ends (SIGKILL
    too): Linux's ``PR_SET_PDEATHSIG``, through ctypes, since neither the standard
    library nor a maintained package offers it. Elsewhere, the first two only."""
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
