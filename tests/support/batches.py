"""A batch of generated tenants (bench/generate.py) built into tmp_path/site, for the
attack-trial tests: each gives one tenant a hostile input and asserts its refusal."""

from __future__ import annotations

import sys
from pathlib import Path

from acap.builder.batch import BatchOptions, BatchResult, build_many
from acap.cli import report_text
from acap.findings import Finding
from support.paths import REPO

sys.path.insert(0, str(REPO / "bench"))
from generate import write_operators


def batch(tmp_path: Path, count: int = 3) -> list[Path]:
    """``count`` tenants (tmp_path/ops/op0000N) built into tmp_path/site; their operator
    files."""
    ops = write_operators(tmp_path / "ops", count)
    res = rebuild(tmp_path)
    assert res.written and not res.failed, [report_text(o.report) for o in res.failed]
    return ops


def rebuild(tmp_path: Path, full: bool = False) -> BatchResult:
    """Build tmp_path/ops into tmp_path/site again (``full``: ``--full``)."""
    return build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=tmp_path / "site",
                                   full=full))


def only_error(res: BatchResult, config: Path) -> Finding:
    """The one error of the tenant ``config``, which did not build; every other built."""
    failed = [o for o in res.outcomes if not o.built]
    assert [o.config for o in failed] == [config], [report_text(o.report) for o in failed]
    [err] = failed[0].report.errors
    return err
