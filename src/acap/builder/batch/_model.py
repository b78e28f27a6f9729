"""What a batch build is asked to do, and what it did, per operator and as a whole.

A batch builds many operator files into one site/ (:func:`acap.builder.batch.build_many`):
each operator is built alone (:func:`acap.builder.batch._build.build_one`, in a worker),
then the new site is put together from what each built
(:mod:`acap.builder.batch._assemble`). These types carry the results between the two.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acap.findings import Finding, Level, Location, Report, Result


@dataclass
class BatchOptions:
    """What a batch build builds.

    Attributes:
        configs: operator files, or folders of them (see :func:`find_configs`).
        site_dir: the one output folder for all operators.
        jobs: worker processes (1: build in this process).
        pages: build HTML pages too (``False``: cards, JWKS and hosting files).
        spec_site: as :class:`~acap.builder.BuildOptions` (``None``: as each file says).
        strict: warnings fail an operator too.
        force: replace a site/ holding files the last build did not write
            (:func:`acap.site._guard.batch_site_findings`).
        prune: remove the folders of operators of the last build that are not in
            this batch (kept otherwise).
        new_keys: make a signing key for an operator that has none (otherwise
            that operator fails with ``KEY``: a batch does not make keys unasked).
        key_dirs: folders, besides each operator's own, that its key files may lie in
            (``--key-dir``: named by the platform, never by a tenant).
        full: rebuild every operator (``--full``); otherwise an operator whose inputs
            and output files are as the last build recorded is kept as it is
            (:func:`acap.builder.batch._build.reuse`), with the same bytes a rebuild
            would give.
        template_seconds: how long one operator's page templates may take to render
            (seconds, all its pages together; past it: ``PAGE-TEMPLATE``).
        memory_limit: the address space each worker process may use (bytes,
            ``RLIMIT_AS``; ``None``: no limit); used with ``jobs`` of 2 or more (with
            1 the batch runs in the caller's process, whose limits are its own).
    """

    configs: Sequence[Path]
    site_dir: Path = Path("site")
    jobs: int = 1
    pages: bool = True
    spec_site: bool | None = None
    strict: bool = False
    force: bool = False
    prune: bool = False
    new_keys: bool = False
    key_dirs: Sequence[Path] = ()
    full: bool = False
    template_seconds: float = 5.0
    memory_limit: int | None = 2 * 1024**3


@dataclass(repr=False)
class OperatorOutcome(Result):
    """One operator's part of a batch.

    Attributes:
        config: its operator file.
        report: its findings.
        digests: ``{relative path: sha256 hex}`` of the files it built (empty when it
            failed); the files themselves are written by the worker that built them.
        hosts: the host folders it builds.
        card_url: its card's URL, when operator.yaml could be read far enough.
        inputs: :func:`acap.builder._build.input_digest` of its inputs.
        notices: messages for the user (a key was created).
        staged: the folder its files were written to, or ``None`` (see :func:`build_one`).
        host_places: where operator.yaml names each host (for findings about it).
        key_file: the signing key file it used (resolved), ``None`` for ACAP_SIGNING_KEY.
        key_place: where operator.yaml says which key file (for findings about it).
        key_thumbprints: RFC 7638 thumbprints of the keys of its JWKS, when built that far.
        signer: the RFC 7638 thumbprint of the key it signs with (its identity in the
            batch, with its operator file), ``None`` when not built that far.
        previous_place: where operator.yaml names its previous keys.
        reused: kept as the last build left it (nothing changed), not rebuilt.
        state: :func:`acap.builder.batch._build.state_digest` of what it was built from.
        reads: the files (besides templates/) that state covers.
        input_stats: ``{path: [*signature, sha256 hex]}`` of the files that state covers,
            for the next batch (:mod:`acap.site._file_stats`: only those it may trust).
        output_stats: ``{path under site/: signature}`` of its output files as this
            batch checked (kept) or wrote (built) them.
        history: its kid history findings (the ``history`` of the build's context),
            also in ``report``; dropped when it is refused its card's host (``SITE-HOST``).
    """

    config: Path
    report: Report
    digests: dict[str, str] = field(default_factory=dict)
    hosts: list[str] = field(default_factory=list)
    card_url: str | None = None
    inputs: str = ""
    notices: list[str] = field(default_factory=list)
    staged: Path | None = None
    host_places: dict[str, Location] = field(default_factory=dict)
    key_file: str | None = None
    key_place: Location | None = None
    key_thumbprints: list[str] = field(default_factory=list)
    signer: str | None = None
    previous_place: Location | None = None
    reused: bool = False
    state: str = ""
    reads: list[str] = field(default_factory=list)
    input_stats: dict[str, list[Any]] = field(default_factory=dict)
    output_stats: dict[str, list[int]] = field(default_factory=dict)
    history: list[Finding] = field(default_factory=list)

    @property
    def built(self) -> bool:
        """True when this operator's files are part of the batch."""
        return bool(self.digests)


    def fail(self, finding: Finding) -> None:
        """Take this operator out of the batch with ``finding`` (its error)."""
        self.report.add(finding)
        self.digests = {}
        self.reused = False


@dataclass(repr=False)
class BatchResult(Result):
    """What a batch build did.

    Attributes:
        outcomes: one per operator file, in the order given.
        site_dir: the output folder.
        written: whether site/ was replaced.
        report: batch-level findings (site folder refused, write failures, no
            operator files).
        kept: card URLs of operators of the last build, not in this batch, whose
            folders were kept.
        pruned: card URLs of operators of the last build removed by ``prune``.
    """

    outcomes: list[OperatorOutcome]
    site_dir: Path
    written: bool = False
    report: Report = field(default_factory=Report)
    kept: list[str] = field(default_factory=list)
    pruned: list[str] = field(default_factory=list)

    def _succeeded(self) -> bool:
        """Some operator was given and none failed."""
        return bool(self.outcomes) and not self.failed

    def _subject(self) -> str:
        return str(self.site_dir)

    @property
    def reused(self) -> list[OperatorOutcome]:
        """The operators kept as the last build left them (nothing they read changed)."""
        return [o for o in self.outcomes if o.built and o.reused]

    @property
    def failed(self) -> list[OperatorOutcome]:
        """The operators that did not build."""
        return [o for o in self.outcomes if not o.built]

    @property
    def built(self) -> list[OperatorOutcome]:
        """The operators whose files are in the new site/ (or would be, had it been written)."""
        return [o for o in self.outcomes if o.built]

    def totals(self) -> tuple[int, int]:
        """``(errors, warnings)`` over every operator and the batch itself."""
        reports = [self.report, *(o.report for o in self.outcomes)]
        return (sum(len(r.errors) for r in reports), sum(len(r.warnings) for r in reports))


def finding_data(f: Finding) -> dict[str, Any]:
    """A finding as the manifest keeps it (see :func:`acap.builder.batch._build.reuse`)."""
    return {"rule": f.rule, "level": f.level, "message": f.message, "hint": f.hint,
            "file": f.location.file, "line": f.location.line, "column": f.location.column,
            "pointer": f.location.pointer}


def finding_from(d: dict[str, Any]) -> Finding:
    """A finding from what :func:`finding_data` kept."""
    loc = Location(str(d.get("file")), d.get("line"), d.get("column"), d.get("pointer"))
    level: Level = "error" if d.get("level") == "error" else "warning"
    return Finding(str(d.get("rule")), level, str(d.get("message")), loc,
                   d.get("hint") if isinstance(d.get("hint"), str) else None)


#: The folder of the new site/ where each operator's files wait to be moved in.
STAGING = ".acap-operators"
