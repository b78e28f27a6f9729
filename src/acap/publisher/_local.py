"""A folder on this machine as a publish target: the :class:`~acap.publisher._fs.Fs` of
the local file system, and :func:`directory_store`.

Every read, write, rename and removal goes through acap's one way to touch a file
(:mod:`acap.load._files`), confined to the folder that holds the target (its record
and staging folder lie there too): each path is walked part by part from that folder,
and a symbolic link anywhere on the way is refused, never followed, even one swapped in
after acap looked.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from acap.errors import FileRefused
from acap.load import (
    Root,
    file_status,
    move_file,
    read_file,
    remove_file,
    swap_file,
    write_file,
)
from acap.publisher._fs import READ_LIMIT, Entry, FileStore, refused
from acap.publisher._plan import TargetRefused


class LocalFs:
    """The local file system below ``base`` (the folder holding the target), for
    :class:`~acap.publisher._fs.FileStore`.

    Args:
        base: the folder that holds the target, its record and its staging folder.
    """

    def __init__(self, base: str) -> None:
        self.root = Root(Path(base), f"the folder {base}", links="refuse")

    def shown(self, path: str) -> str:
        """``path`` itself."""
        return path

    def _refused(self, path: str, exc: FileRefused) -> TargetRefused:
        if exc.link:
            return TargetRefused(f"{exc.link if os.path.isabs(exc.link) else path} is a "
                                 "symbolic link: acap reads, replaces and deletes only regular "
                                 "files and folders, and never writes through a link",
                                 "remove it, or publish into another folder")
        if exc.kind:
            return refused(self, path, 0, exc.kind)
        return TargetRefused(f"{path}: {exc.reason}", "publish into another folder")

    def mode(self, path: str) -> int | None:
        """``lstat`` mode, ``None`` when nothing is there (the base folder and the folders
        above it are the user's own choice, links on the way included)."""
        base = os.fspath(self.root.folder)
        if not path.startswith(base.rstrip("/") + "/"):
            try:
                return os.stat(path).st_mode
            except (FileNotFoundError, NotADirectoryError):
                return None
        try:
            st = file_status(path, self.root)
        except FileRefused as exc:
            raise self._refused(path, exc) from exc
        except NotADirectoryError:
            return None
        return st.st_mode if st is not None else None

    def stamp(self, path: str) -> tuple[int, ...] | None:
        """Inode, size and modification time (ns) of ``path`` itself; ``None``: nothing."""
        try:
            st = file_status(path, self.root)
        except FileRefused as exc:
            raise self._refused(path, exc) from exc
        return _stamp(st) if st is not None else None

    def names(self, folder: str) -> list[Entry]:
        """Each entry of ``folder`` (``lstat``)."""
        with os.scandir(folder) as it:
            return [Entry(e.name, st.st_mode, _stamp(st))
                    for e in it for st in (e.stat(follow_symlinks=False),)]

    def read(self, path: str, limit: int) -> bytes:
        """The regular file at ``path`` (:func:`acap.load.read_file`)."""
        try:
            return read_file(path, self.root, limit)
        except FileRefused as exc:
            if exc.kind or exc.link:
                raise self._refused(path, exc) from exc
            raise TargetRefused(f"{path} is larger than any file acap writes: it is not acap's",
                                "move it, or publish into another folder") from exc

    def write(self, path: str, data: bytes) -> None:
        """A new file, mode 0644 whatever the umask (a web server reads it); never over
        anything (:func:`acap.load.write_file`, ``exclusive``)."""
        try:
            write_file(path, self.root, data, mode=0o644, exclusive=True)
        except FileRefused as exc:
            raise self._refused(path, exc) from exc

    def chmod(self, path: str, mode: int) -> None:
        """``os.chmod`` of acap's own staged file."""
        os.chmod(path, mode)

    def move(self, src: str, dst: str) -> None:
        """One rename, over a file there (:func:`acap.load.move_file`)."""
        try:
            move_file(src, dst, self.root)
        except FileRefused as exc:
            raise self._refused(dst, exc) from exc

    def place(self, src: str, dst: str) -> None:
        """One move that never replaces anything (:func:`acap.load.move_file`, not ``replace``)."""
        try:
            move_file(src, dst, self.root, replace=False)
        except FileRefused as exc:
            raise self._refused(dst, exc) from exc

    def swap(self, src: str, dst: str, same: Callable[[bytes], bool]) -> None:
        """One rename over ``dst`` while it holds bytes ``same`` accepts, read again
        through the folder held open and looked at once more just before
        (:func:`acap.load.swap_file`)."""
        try:
            swap_file(src, dst, self.root, same, READ_LIMIT)
        except FileRefused as exc:
            raise self._refused(dst, exc) from exc

    def unlink(self, path: str) -> None:
        """Remove the file (:func:`acap.load.remove_file`)."""
        try:
            remove_file(path, self.root)
        except FileRefused as exc:
            raise self._refused(path, exc) from exc

    def mkdir(self, path: str) -> None:
        """A folder, mode 0755 whatever the umask."""
        os.mkdir(path, 0o755)
        os.chmod(path, 0o755)

    def rmdir(self, path: str) -> None:
        """``os.rmdir``."""
        os.rmdir(path)


def _stamp(st: os.stat_result) -> tuple[int, ...]:
    """What writing a file changes and a rename keeps (its change time a rename sets)."""
    return st.st_ino, st.st_size, st.st_mtime_ns


def directory_store(target: Path) -> FileStore:
    """The :class:`~acap.publisher._store.Store` of the folder ``target`` (made absolute;
    staged inside it only when it lies on another file system than its parent)."""
    root = os.path.abspath(target)
    parent = os.path.dirname(root)
    try:
        inside = os.lstat(root).st_dev != os.lstat(parent).st_dev
    except OSError:
        inside = False
    return FileStore(LocalFs(parent), root, f"directory {root}", stage_inside=inside)
