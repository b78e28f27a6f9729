"""Batch builds: many operator.yaml files into one site/, for hosting platforms.

``acap build ops/`` (or several files) builds every operator in one process,
or spread over ``--jobs N`` processes. Schemas, validators and templates are
compiled once per process (they are cached at module level), never per card.

Each operator is built in memory on its own, exactly as a single
``acap build`` would build it. Only operators without errors are merged into
the new site/; a failure is reported with its file and does not stop the
others. The new site/ is written atomically, and for an operator that failed,
the host folders it had in the previous site/ are carried over unchanged, so
a failed build loses nothing of what was published before.
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
from .site import MANIFEST, SiteFiles, read_manifest


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
        files: ``{relative path: bytes}`` it built (empty when it failed).
        hosts: the host folders it builds.
        card_url: its card's URL, when known.
        inputs: :func:`acap.build.input_digest` of its inputs.
        notices: messages for the user (a key was created).
    """

    config: Path
    report: Report
    files: dict[str, bytes] = field(default_factory=dict)
    hosts: list[str] = field(default_factory=list)
    card_url: str | None = None
    inputs: str = ""
    notices: list[str] = field(default_factory=list)

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
        report: batch-level findings (write failures, host clashes).
    """

    outcomes: list[OperatorOutcome]
    site_dir: Path
    written: bool = False
    report: Report = field(default_factory=Report)

    @property
    def failed(self) -> list[OperatorOutcome]:
        """The operators that did not build."""
        return [o for o in self.outcomes if not o.files]

    @property
    def built(self) -> list[OperatorOutcome]:
        """The operators whose files are in the new site/."""
        return [o for o in self.outcomes if o.files]


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


def build_one(config: Path, site_dir: Path, pages: bool, spec_site: bool | None,
              strict: bool) -> OperatorOutcome:
    """Build one operator in memory (the unit of work of a batch; runs in a worker).

    Returns:
        Its :class:`OperatorOutcome`; ``files`` is empty when it failed.
    """
    from .build import BuildOptions, assemble, input_digest

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
    if ctx.report.ok(strict):
        out.files = {rel: ctx.files[rel] for rel in ctx.files}
        out.inputs = input_digest(cfg)
        out.hosts = ctx.files.hosts()
    return out


def _build_chunk(args: tuple[list[Path], Path, bool, bool | None, bool]) -> list[OperatorOutcome]:
    configs, site_dir, pages, spec_site, strict = args
    return [build_one(c, site_dir, pages, spec_site, strict) for c in configs]


def build_many(options: BatchOptions) -> BatchResult:
    """Build every operator of ``options`` into one site/.

    Args:
        options: the operators, the output folder and how many processes.

    Returns:
        A :class:`BatchResult`. Each operator's findings are in its outcome;
        site/ is replaced when at least one operator built (carrying over the
        previous folders of those that failed), and left alone otherwise.

    Raises:
        Nothing for bad input; a site/ that cannot be written is a finding.
    """
    import gc

    gc.enable()  # many operators: let the collector run (the CLI turns it off)
    configs = find_configs(options.configs)
    result = BatchResult([], options.site_dir)
    jobs = max(1, min(options.jobs, len(configs) or 1))
    args = (options.site_dir, options.pages, options.spec_site, options.strict)
    if jobs == 1:
        result.outcomes = _build_chunk((configs, *args))
    else:
        # Contiguous chunks, several per worker: each worker compiles schemas and
        # templates once and keeps them for all the operators it builds.
        size = max(1, -(-len(configs) // (jobs * 4)))
        chunks = [configs[i:i + size] for i in range(0, len(configs), size)]
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            for part in pool.map(_build_chunk, [(c, *args) for c in chunks]):
                result.outcomes.extend(part)
    _merge_and_write(result, options)
    return result


def _merge_and_write(result: BatchResult, options: BatchOptions) -> None:
    files = SiteFiles()
    owner: dict[str, Path] = {}
    for o in result.outcomes:
        if not o.files:
            continue
        clash = [h for h in o.hosts if h in owner and not _identical(files, o.files, h)]
        if clash:
            o.report.add(Finding("SITE-PATH", "error", f"host {clash[0]} is also built by "
                                 f"{owner[clash[0]]}, with other content", Location(str(o.config)),
                                 "each host belongs to one operator"))
            o.files = {}
            continue
        for h in o.hosts:
            owner.setdefault(h, o.config)
        for rel, data in o.files.items():
            files.add_path(rel, data)
    if not result.built:
        return
    site_dir = options.site_dir
    from .site_guard import batch_site_findings

    result.report.extend(batch_site_findings(site_dir, [o.config for o in result.outcomes],
                                             f"--site-dir {site_dir}", force=options.force))
    if not result.report.ok():
        return
    old = read_manifest(site_dir) or {}
    old_ops = old.get("operators") if isinstance(old.get("operators"), dict) else {}
    carried = 0
    for o in result.failed:
        prev = old_ops.get(_key(o.config)) if isinstance(old_ops, dict) else None
        for host in (prev or {}).get("hosts", []):
            if host not in owner:
                carried += _carry_over(files, site_dir, host, old)
    manifest: dict[str, Any] = {
        "acap": __version__,
        "operators": {_key(o.config): {"inputs": o.inputs, "card": o.card_url, "hosts": o.hosts}
                      for o in result.built},
        "files": files.digest(),
    }
    for o in result.failed:  # keep what the previous build recorded for them
        prev = old_ops.get(_key(o.config)) if isinstance(old_ops, dict) else None
        if prev:
            manifest["operators"][_key(o.config)] = prev
    from .build import write_or_report

    result.written = write_or_report(files, site_dir, manifest, result.report)


def _identical(files: SiteFiles, new: dict[str, bytes], host: str) -> bool:
    mine = {r: d for r, d in new.items() if r.startswith(host + "/")}
    return all(r in files and files[r] == d for r, d in mine.items())


def _key(config: Path) -> str:
    return str(config.resolve())


def _carry_over(files: SiteFiles, site_dir: Path, host: str, old: dict[str, Any]) -> int:
    """Copy ``host``'s files of the previous build into ``files`` (as the manifest lists them)."""
    n = 0
    for rel in dict(old.get("files") or {}):
        if rel.startswith(host + "/") and rel != MANIFEST:
            try:
                files.add_path(rel, (site_dir / rel).read_bytes())
                n += 1
            except OSError:
                continue
    return n


def default_jobs() -> int:
    """The number of CPUs this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1
