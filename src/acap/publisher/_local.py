"""A folder on this machine as a publish target: the :class:`~acap.publisher._fs.Fs` of
the local file system, and :func:`DirectoryStore`.

Nothing here follows a symbolic link: modes are ``lstat``'s, files are opened with
``O_NOFOLLOW`` (:func:`acap.load.read_regular`), new files with ``O_EXCL``.
"""

from __future__ import annotations

import os
from pathlib import Path

from acap.errors import FileRefused
from acap.load import read_regular
from acap.publisher._fs import FileStore, refused
from acap.publisher._plan import TargetRefused

_NEW = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


class LocalFs:
    """The local file system, for :class:`~acap.publisher._fs.FileStore`."""

    def shown(self, path: str) -> str:
        """``path`` itself."""
        return path

    def mode(self, path: str) -> int | None:
        """``lstat`` mode, ``None`` when nothing is there."""
        try:
            return os.lstat(path).st_mode
        except (FileNotFoundError, NotADirectoryError):
            return None

    def names(self, folder: str) -> list[tuple[str, int]]:
        """``(name, lstat mode)`` of each entry of ``folder``."""
        with os.scandir(folder) as it:
            return [(e.name, e.stat(follow_symlinks=False).st_mode) for e in it]

    def read(self, path: str, limit: int) -> bytes:
        """The regular file at ``path`` (:func:`acap.load.read_regular`, no link followed)."""
        try:
            return read_regular(path, limit, follow_links=False)
        except FileRefused as exc:
            if exc.kind:
                raise refused(self, path, os.lstat(path).st_mode, exc.kind) from exc
            raise TargetRefused(f"{path} is larger than any file acap writes: it is not acap's",
                                "move it, or publish into another folder") from exc

    def write(self, path: str, data: bytes) -> None:
        """A new file (``O_EXCL``), mode 0644 whatever the umask (a web server reads it)."""
        fd = os.open(path, _NEW, 0o644)
        try:
            os.fchmod(fd, 0o644)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)

    def chmod(self, path: str, mode: int) -> None:
        """``os.chmod`` (of acap's own staged file)."""
        os.chmod(path, mode)

    def rename(self, src: str, dst: str) -> None:
        """``os.replace``: one step, over a file there."""
        os.replace(src, dst)

    def unlink(self, path: str) -> None:
        """``os.unlink``."""
        os.unlink(path)

    def mkdir(self, path: str) -> None:
        """A folder, mode 0755 whatever the umask."""
        os.mkdir(path, 0o755)
        os.chmod(path, 0o755)

    def rmdir(self, path: str) -> None:
        """``os.rmdir``."""
        os.rmdir(path)


def directory_store(target: Path) -> FileStore:
    """The :class:`~acap.publisher._store.Store` of the folder ``target`` (made absolute;
    staged inside it only when it lies on another file system than its parent)."""
    root = os.path.abspath(target)
    try:
        inside = os.lstat(root).st_dev != os.lstat(os.path.dirname(root)).st_dev
    except OSError:
        inside = False
    return FileStore(LocalFs(), root, f"directory {root}", stage_inside=inside)
