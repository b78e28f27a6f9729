"""Paths an operator's files name: where they lead, once links are followed.

A path is judged by where it really is (:func:`is_inside`), never by how it is written:
``keys/../../other/.acap/signing-key.pem`` and a link that leads out of a folder are
outside it.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Sequence
from pathlib import Path

from acap.errors import FileRefused

__all__ = ["KEY_FILE_LIMIT", "file_kind", "forget_real_paths", "is_inside", "read_regular",
           "real_path", "real_path_lstat", "under"]


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


#: Largest file of each kind an operator names that acap reads (bytes): far above any
#: real one, so that ``/dev/zero`` or a log file named by mistake is refused, not read.
KEY_FILE_LIMIT = 1024 * 1024


def read_regular(path: str | os.PathLike[str], limit: int, *, inside: Sequence[Path] | None = None,
                 follow_links: bool = True, one_name: bool = False) -> bytes:
    """The bytes of ``path``, once it is judged: a regular file of at most ``limit``
    bytes, and, when ``inside`` is given, whose real path lies in one of those folders.
    Opened without blocking (``O_NONBLOCK``), so a FIFO is refused rather than waited
    on, and read no further than ``limit + 1`` bytes.

    Args:
        path: the file.
        limit: the most bytes it may have.
        inside: folders (resolved here) the file must lie in, or ``None``.
        follow_links: ``False``: a symbolic link is refused, not followed
            (``O_NOFOLLOW``: a publish target never reads through a link).
        one_name: refuse a file with other names (hard links): in a tenant's folder
            such a file may be another tenant's (a key), which no path check can see.

    Returns:
        The file's bytes. The file is looked at (``stat``, or ``lstat`` when links are
        not followed) before it is opened: a device is never opened.

    Raises:
        FileNotFoundError: there is no file at ``path`` (a missing optional file is
            the caller's to judge).
        FileRefused: outside ``inside``, not a regular file (``kind`` says what it is),
            larger than ``limit``, or (``one_name``) with other names.
        OSError: it could not be read (permissions ...).
    """
    if inside is not None:
        real = real_path(path)
        if not any(under(real, real_path(folder)) for folder in inside):
            raise FileRefused(str(path), "it lies outside the folder it must be in",
                              outside=True)
    # stat first: a device is never opened (opening some has effects of its own), and
    # fstat after opening, for a file swapped in between.
    _judge(path, os.stat(path) if follow_links else os.lstat(path), limit, one_name)
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags if follow_links else flags | os.O_NOFOLLOW)
    except IsADirectoryError as exc:
        raise FileRefused(str(path), "it is a folder, not a file", kind="a folder") from exc
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENXIO, errno.EMLINK):  # swapped for a link
            kind = file_kind(os.lstat(path).st_mode) or "a symbolic link"
            raise FileRefused(str(path), f"it is {kind}, not a regular file",
                              kind=kind) from exc
        raise
    try:
        _judge(path, os.fstat(fd), limit, one_name)
        chunks, left = [], limit + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > limit:  # grew while read
        raise FileRefused(str(path), f"it has more than {limit:,} bytes")
    return data


def _judge(path: str | os.PathLike[str], st: os.stat_result, limit: int, one_name: bool) -> None:
    """Raise :class:`FileRefused` unless ``st`` is a regular file of at most ``limit``
    bytes (and, with ``one_name``, a single link)."""
    kind = file_kind(st.st_mode)
    if kind:
        raise FileRefused(str(path), f"it is {kind}, not a regular file", kind=kind)
    if st.st_size > limit:
        raise FileRefused(str(path), f"it has {st.st_size:,} bytes; a file of its kind "
                          f"has at most {limit:,}")
    if one_name and st.st_nlink > 1:
        raise FileRefused(str(path), "it has other names (hard links), so it may be "
                          "another's file")


def file_kind(mode: int) -> str | None:
    """What a file that is not a regular file is, in words (``"a named pipe (FIFO)"``);
    ``None`` for a regular file.

    Args:
        mode: ``st_mode`` of an ``os.stat`` or ``os.lstat`` result.
    """
    for test, words in ((stat.S_ISREG, None), (stat.S_ISLNK, "a symbolic link"),
                        (stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a named pipe (FIFO)"),
                        (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device"),
                        (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return words
    return "a special file"
