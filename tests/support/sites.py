"""A built site/ as data, for comparing builds."""

from __future__ import annotations

import hashlib
from pathlib import Path

from acap.site import FILE_STATS


def site_tree(site: Path) -> dict[str, str]:
    """``{path under site: sha256 hex}`` of every file a build wrote. The batch's file
    signatures (:data:`acap.site.FILE_STATS`) are left out: they are a cache of inode
    numbers and times for the next batch, not output, and differ between two builds of
    the same bytes."""
    return {p.relative_to(site).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(site.rglob("*"))
            if p.is_file() and not p.relative_to(site).as_posix().startswith(FILE_STATS)}
