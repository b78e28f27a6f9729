"""Which operator files a batch builds: files as named, the operator files of a folder,
each once by its real path, and a tenant's operator file that is a link out of its folder
refused unread (:func:`link_refusal`)."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from contextlib import suppress
from pathlib import Path
from typing import NamedTuple

from acap.findings import Finding, Location
from acap.load import real_path, real_path_lstat, under

__all__ = ["Found", "configs_by_real_path", "find_configs", "link_refusal"]


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
    return [c.path for c in configs_by_real_path(paths).values()]


class Found(NamedTuple):
    """One operator file a batch builds.

    Attributes:
        path: the file, as :func:`find_configs` names it.
        stat: its ``lstat``, taken when it was found, when it is a regular file in a
            folder that is no link (the kept path judges it by this stat:
            :func:`acap.builder.batch._keep.reuse`); ``None`` otherwise.
    """

    path: Path
    stat: os.stat_result | None


def configs_by_real_path(paths: Iterable[Path]) -> dict[str, Found]:
    """:func:`find_configs`, by the real path of each (resolved once for the batch).

    Strings and ``os.scandir`` rather than ``Path`` methods: a batch folder holds
    thousands of operators, and each ``Path`` test is a ``stat`` of its own. An
    operator file found as a regular file (its ``lstat``) in a folder that is no link
    (the folder entry's type) has the real path of its folder and its own name: one
    ``lstat`` each; a link is resolved as :func:`find_configs` says."""
    out: dict[str, Found] = {}
    for p in paths:
        for f, real, st in _candidates(p):
            if real is None:
                f, real, st = _resolved(f)
            if real not in out:
                out[real] = Found(Path(f), st)
    return out


def _resolved(f: str) -> tuple[str, str, os.stat_result | None]:
    """The operator file ``f`` as the batch builds it (a link followed only into its own
    folder, see :func:`find_configs`), its real path, and its ``lstat`` when it is a
    regular file."""
    real, st = real_path_lstat(f)  # one lstat tells a link too
    if st is None:
        with suppress(OSError):
            st = os.lstat(f)
    if st is None or not stat.S_ISLNK(st.st_mode):
        return f, real, st if st is not None and stat.S_ISREG(st.st_mode) else None
    folder = real_path(os.path.dirname(os.path.abspath(f)))
    if os.path.exists(f) and under(real, folder):
        target = Path(f).resolve()
        return str(target), real_path(target), None
    # refused by the build; keyed by where the link is, so that the tenant's record of
    # the last build is found (its folders kept)
    return f, os.path.join(folder, os.path.basename(f)), None


def _candidates(p: Path) -> list[tuple[str, str | None, os.stat_result | None]]:
    """The operator files of ``p`` (see :func:`find_configs`), sorted: ``(path, its real
    path, its lstat)``, the last two ``None`` where :func:`_resolved` must say."""
    if not p.is_dir():
        return [(str(p), None, None)]
    top, real_top = os.fspath(p), real_path(p)
    found: list[tuple[str, str, os.stat_result | None]] = []
    with os.scandir(p) as entries:
        for e in entries:
            name = e.name
            if name.endswith(".private.yaml") or name.startswith("."):
                continue
            if os.path.splitext(name)[1] in (".yaml", ".yml") and \
                    (e.is_file() or not os.path.exists(e.path)):
                found.append((name, "", None))  # a file, or a link to one that is missing
            elif e.is_dir(follow_symlinks=False):
                op = os.path.join(e.path, "operator.yaml")
                with suppress(OSError):
                    seen = os.lstat(op)
                    if stat.S_ISREG(seen.st_mode):
                        found.append((name, "operator.yaml", seen))
                    elif stat.S_ISLNK(seen.st_mode):
                        found.append((name, "operator.yaml", None))  # a link to nothing too
            elif e.is_dir() and (os.path.isfile(op := os.path.join(e.path, "operator.yaml"))
                                 or os.path.islink(op)):
                found.append((name, "operator.yaml", None))  # a linked folder
            elif e.is_symlink() and not os.path.exists(e.path):
                found.append((name, "operator.yaml", None))  # a link to a missing folder
    found.sort(key=lambda t: t[0])
    out: list[tuple[str, str | None, os.stat_result | None]] = []
    for name, file, st in found:
        rel = f"{name}{os.sep}{file}" if file else name
        out.append((os.path.join(top, rel), os.path.join(real_top, rel) if st else None, st))
    return out


def link_refusal(config: Path, st: os.stat_result | None = None) -> Finding | None:
    """The ``FILE`` error of a batch operator file that is a symbolic link
    :func:`configs_by_real_path` did not follow (it leads out of its folder, to
    nothing, or to itself), or ``None``. Given as an error of its own before the
    link's target is read: a tenant's ``operator.yaml`` linked to a file of the build
    machine would otherwise show its values in findings and make that file's folder
    the tenant's (its keys, its private values, its templates). ``st`` is its
    ``lstat`` when the batch took one already."""
    if st is None:
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

