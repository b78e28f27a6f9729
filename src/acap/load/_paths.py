"""Paths an operator's files name: where they lead, once links are followed (the
strings only; files are opened by :mod:`acap.load._files`).

A path is judged by where it really is (:func:`is_inside`), never by how it is written:
``keys/../../other/.acap/signing-key.pem`` and a link that leads out of a folder are
outside it.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

__all__ = ["forget_real_paths", "is_inside", "real_path", "real_path_lstat", "under"]


def is_inside(path: Path, folder: Path) -> bool:
    """True when ``path`` is ``folder`` or lies under it, both resolved (links followed,
    ``..`` applied). A path that cannot be resolved is not inside.

    Args:
        path: any path.
        folder: the folder it should lie in.
    """
    try:
        return under(real_path(path), real_path(folder))
    except (ValueError, OSError):
        return False


def under(real: str, folder: str) -> bool:
    """True when the resolved path ``real`` is the resolved ``folder`` or lies in it (a
    comparison of the strings, component by component)."""
    return real == folder or real.startswith(folder.rstrip(os.sep) + os.sep)


#: Folders resolved so far (see :func:`real_path`): ``{absolute path: real path}``.
_FOLDERS: dict[str, str] = {}


def real_path(path: str | os.PathLike[str]) -> str:
    """``os.path.realpath(path)``, with the folders resolved so far remembered: a batch
    asks for the real path of thousands of files in one tree, and ``realpath`` would
    look at every component of each (issue 16). A component is looked at once
    (``lstat``); a symbolic link, and a path with ``..``, are resolved by
    ``os.path.realpath`` itself. Forget what was learnt with :func:`forget_real_paths`
    when the tree may have changed (a batch does at its start).
    """
    return real_path_lstat(path)[0]


def real_path_lstat(path: str | os.PathLike[str]) -> tuple[str, os.stat_result | None]:
    """:func:`real_path` of ``path``, and the ``lstat`` it took of ``path``'s last
    component on the way (``None`` when it took none: the path is missing, a folder it
    knew, or has ``..``): a caller that would ``stat`` the file next has it already
    when it is a regular file (not a link)."""
    raw = os.fspath(path)
    full = raw if os.path.isabs(raw) else os.path.join(os.getcwd(), raw)
    if ".." in full.split(os.sep):
        return os.path.realpath(full), None
    return _real(os.path.normpath(full))


def _real(p: str) -> tuple[str, os.stat_result | None]:
    hit = _FOLDERS.get(p)
    if hit is not None:
        return hit, None
    parent, name = os.path.split(p)
    if not name:
        return p, None  # the root
    full = os.path.join(_real(parent)[0], name)
    try:
        st = os.lstat(full)
    except OSError:
        return full, None  # missing: as realpath has it, and not remembered
    if stat.S_ISLNK(st.st_mode):
        return os.path.realpath(full), st
    if stat.S_ISDIR(st.st_mode):
        if len(_FOLDERS) > 200_000:
            _FOLDERS.clear()
        _FOLDERS[p] = full
    return full, st


def forget_real_paths() -> None:
    """Forget the folders :func:`real_path` resolved (the tree may have changed)."""
    _FOLDERS.clear()
