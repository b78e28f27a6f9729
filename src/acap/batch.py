"""Batch builds: many operator.yaml files into one site/, for hosting platforms.

``acap build ops/`` (or several files) builds every operator in one process,
or spread over ``--jobs N`` processes. Schemas, validators and templates are
compiled once per process (they are cached at module level), never per card.

Each operator is built on its own, exactly as a single ``acap build`` would
build it, and the process that built it writes its files into a new folder
beside site/ (so that ``--jobs`` also spreads the writing). Only operators
without errors are moved into the new site/; a failure is reported with its
file and does not stop the others. The new folder replaces site/ in one swap,
and for an operator that failed, the host folders it had in the previous
site/ are carried over unchanged, so a failed build loses nothing of what was
published before. An interrupted batch leaves site/ as it was.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import __version__
from .findings import Finding, Location, Report
from .site import MANIFEST, read_manifest


@dataclass
class BatchOptions:
    """What a batch build builds.

    Attributes:
        configs: operator files, or folders of them (see :func:`find_configs`).
        site_dir: the one output folder for all operators.
        jobs: worker processes (1: build in this process).
        pages: build HTML pages too (``False``: cards, JWKS and hosting files).
        spec_site: as :class:`~acap.build.BuildOptions` (``None``: as each file says).
        strict: warnings fail an operator too.
        force: replace a site/ holding files the last build did not write
            (:func:`acap.site_guard.batch_site_findings`).
    """

    configs: Sequence[Path]
    site_dir: Path = Path("site")
    jobs: int = 1
    pages: bool = True
    spec_site: bool | None = None
    strict: bool = False
    force: bool = False


@dataclass
class OperatorOutcome:
    """One operator's part of a batch.

    Attributes:
        config: its operator file.
        report: its findings.
        digests: ``{relative path: sha256 hex}`` of the files it built (empty when it
            failed); the files themselves are written by the worker that built them.
        hosts: the host folders it builds.
        card_url: its card's URL, when known.
        inputs: :func:`acap.build.input_digest` of its inputs.
        notices: messages for the user (a key was created).
        staged: the folder its files were written to, or ``None`` (see :func:`build_one`).
    """

    config: Path
    report: Report
    digests: dict[str, str] = field(default_factory=dict)
    hosts: list[str] = field(default_factory=list)
    card_url: str | None = None
    inputs: str = ""
    notices: list[str] = field(default_factory=list)
    staged: Path | None = None

    @property
    def built(self) -> bool:
        """True when this operator's files are part of the batch."""
        return bool(self.digests)

    def ok(self, strict: bool = False) -> bool:
        """True when this operator built without error (and warning, with ``strict``)."""
        return self.report.ok(strict)


@dataclass
class BatchResult:
    """What a batch build did.

    Attributes:
        outcomes: one per operator file, in the order given.
        site_dir: the output folder.
        written: whether site/ was replaced.
        report: batch-level findings (site folder refused, write failures).
    """

    outcomes: list[OperatorOutcome]
    site_dir: Path
    written: bool = False
    report: Report = field(default_factory=Report)

    @property
    def failed(self) -> list[OperatorOutcome]:
        """The operators that did not build."""
        return [o for o in self.outcomes if not o.built]

    @property
    def built(self) -> list[OperatorOutcome]:
        """The operators whose files are in the new site/."""
        return [o for o in self.outcomes if o.built]


def find_configs(paths: Iterable[Path]) -> list[Path]:
    """Operator files named by ``paths``: files as given; for a folder, its ``*.yaml``
    and ``*.yml`` files and the ``operator.yaml`` of each subfolder, sorted."""
    out: list[Path] = []
    for p in paths:
        if p.is_dir():
            found = [f for f in p.iterdir() if f.is_file() and f.suffix in (".yaml", ".yml")
                     and not f.name.endswith(".private.yaml")]
            found += [f / "operator.yaml" for f in p.iterdir() if (f / "operator.yaml").is_file()]
            out.extend(sorted(found))
        else:
            out.append(p)
    return list(dict.fromkeys(out))


#: The folder of the new site/ where each operator's files wait to be moved in.
_STAGING = ".acap-operators"


def build_one(config: Path, site_dir: Path, pages: bool, spec_site: bool | None,
              strict: bool, stage: Path | None = None) -> OperatorOutcome:
    """Build one operator (the unit of work of a batch; runs in a worker).

    Args:
        config: its operator file.
        site_dir: the batch's output folder (its JWKS say which kids were published).
        pages, spec_site, strict: as :class:`BatchOptions`.
        stage: a new, empty folder to write its files into (the worker writes them,
            so that a batch over several processes writes in parallel); ``None``
            builds in memory only.

    Returns:
        Its :class:`OperatorOutcome`; ``digests`` is empty when it failed (a file
        that cannot be written is a ``SITE-WRITE`` error of this operator).
    """
    from .build import BuildOptions, assemble, input_digest
    from .site import write_files

    opts = BuildOptions(config=config, site_dir=site_dir, spec_site=spec_site, strict=strict,
                        pages=pages)
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
                          card_url=cfg.card_url if cfg.card_host else None)
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


def _build_chunk(args: tuple[list[tuple[int, Path]], Path, bool, bool | None, bool,
                              Path | None]) -> list[OperatorOutcome]:
    configs, site_dir, pages, spec_site, strict, staging = args
    return [build_one(c, site_dir, pages, spec_site, strict,
                      staging / str(i) if staging is not None else None) for i, c in configs]


def build_many(options: BatchOptions) -> BatchResult:
    """Build every operator of ``options`` into one site/.

    The site folder is checked first (:func:`acap.site_guard.batch_site_findings`).
    Each operator is built, and its files written, by the process that builds it,
    into a new folder beside site/; the operators that built are moved into place,
    the previous folders of those that failed are carried over, and the new
    folder replaces site/ in one swap (:func:`acap.site.swap_in`). An interrupted
    or failed batch leaves site/ as it was.

    Args:
        options: the operators, the output folder and how many processes.

    Returns:
        A :class:`BatchResult`. Each operator's findings are in its outcome;
        site/ is replaced when at least one operator built, and left alone
        otherwise (operators are still built in memory and reported when the
        site folder is refused).

    Raises:
        Nothing for bad input; a site/ that cannot be written is a finding.
    """
    import gc
    import shutil

    from .site import new_site_folder
    from .site_guard import batch_site_findings

    gc.enable()  # many operators: let the collector run (the CLI turns it off)
    configs = find_configs(options.configs)
    result = BatchResult([], options.site_dir)
    site_dir = options.site_dir.absolute()
    result.report.extend(batch_site_findings(options.site_dir, configs,
                                             f"--site-dir {options.site_dir}",
                                             force=options.force))
    tmp: Path | None = None
    try:
        if result.report.ok() and configs:
            try:
                tmp = new_site_folder(site_dir)
            except OSError as exc:
                result.report.add(_write_failure(options.site_dir, exc))
        _build_all(result, options, configs, tmp / _STAGING if tmp is not None else None)
        if tmp is not None and result.built:
            result.written = _assemble_and_swap(result, options, tmp)
            tmp = None  # swapped in, or removed by the swap
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
    return result


def _build_all(result: BatchResult, options: BatchOptions, configs: list[Path],
               staging: Path | None) -> None:
    jobs = max(1, min(options.jobs, len(configs) or 1))
    numbered = list(enumerate(configs))
    args = (options.site_dir, options.pages, options.spec_site, options.strict, staging)
    if jobs == 1:
        result.outcomes = _build_chunk((numbered, *args))
        return
    # Contiguous chunks, several per worker: each worker compiles schemas and
    # templates once and keeps them for all the operators it builds.
    size = max(1, -(-len(configs) // (jobs * 4)))
    chunks = [numbered[i:i + size] for i in range(0, len(numbered), size)]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for part in pool.map(_build_chunk, [(c, *args) for c in chunks]):
            result.outcomes.extend(part)


def _write_failure(site_dir: Path, exc: OSError) -> Finding:
    return Finding("SITE-WRITE", "error", f"cannot write {site_dir}: {exc.strerror or exc}",
                   Location(str(site_dir)), "check that the folder and its parent are "
                   "writable; the previous site/ was left as it was")


def _assemble_and_swap(result: BatchResult, options: BatchOptions, tmp: Path) -> bool:
    """Move the built operators' host folders into ``tmp``, carry over the failed ones'
    previous folders, write the manifest and swap ``tmp`` in. Returns whether
    site/ was replaced; ``tmp`` is gone either way."""
    import shutil

    from .site import swap_in, write_manifest

    site_dir = options.site_dir.absolute()
    digests: dict[str, str] = {}
    owner: dict[str, OperatorOutcome] = {}
    try:
        for o in result.outcomes:
            if not o.built or o.staged is None:
                continue
            clash = [h for h in o.hosts if h in owner and not _same(owner[h], o, h)]
            if clash:
                o.report.add(Finding("SITE-PATH", "error", f"host {clash[0]} is also built "
                                     f"by {owner[clash[0]].config}, with other content",
                                     Location(str(o.config)),
                                     "each host belongs to one operator"))
                o.digests = {}
                continue
            for h in o.hosts:
                if h not in owner:
                    owner[h] = o
                    os.rename(o.staged / h, tmp / h)
            digests.update(o.digests)
        shutil.rmtree(tmp / _STAGING, ignore_errors=True)
        if not result.built:
            shutil.rmtree(tmp, ignore_errors=True)
            return False
        old = read_manifest(site_dir) or {}
        old_ops = old.get("operators") if isinstance(old.get("operators"), dict) else {}
        assert isinstance(old_ops, dict)
        manifest: dict[str, Any] = {
            "acap": __version__,
            "operators": {_key(o.config): {"inputs": o.inputs, "card": o.card_url,
                                           "hosts": o.hosts} for o in result.built},
        }
        for o in result.failed:  # keep what the previous build published for them
            prev = old_ops.get(_key(o.config))
            if not isinstance(prev, dict):
                continue
            manifest["operators"][_key(o.config)] = prev
            for host in prev.get("hosts", []):
                if host not in owner:
                    digests.update(_carry_over(tmp, site_dir, host, old))
        manifest["files"] = dict(sorted(digests.items()))
        write_manifest(tmp, manifest)
    except BaseException as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        if isinstance(exc, OSError):
            result.report.add(_write_failure(options.site_dir, exc))
            return False
        raise
    try:
        swap_in(tmp, site_dir)
    except OSError as exc:
        result.report.add(_write_failure(options.site_dir, exc))
        return False
    return True


def _same(first: OperatorOutcome, other: OperatorOutcome, host: str) -> bool:
    """True when ``other`` builds ``host`` with the very files ``first`` built there."""
    prefix = host + "/"
    return ({r: d for r, d in other.digests.items() if r.startswith(prefix)}
            == {r: d for r, d in first.digests.items() if r.startswith(prefix)})


def _key(config: Path) -> str:
    return str(config.resolve())


def _carry_over(tmp: Path, site_dir: Path, host: str, old: dict[str, Any]) -> dict[str, str]:
    """Copy ``host``'s files of the previous build (as its manifest lists them) into the
    new site folder ``tmp``; returns their digests."""
    import hashlib

    from .site import write_files

    out: dict[str, str] = {}
    for rel in dict(old.get("files") or {}):
        if rel.startswith(host + "/") and rel != MANIFEST:
            try:
                data = (site_dir / rel).read_bytes()
            except OSError:
                continue
            write_files(tmp, [(rel, data)])
            out[rel] = hashlib.sha256(data).hexdigest()
    return out


def default_jobs() -> int:
    """The number of CPUs this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1
