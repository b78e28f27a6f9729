"""The one way acap opens a file it did not just create: confined to a named folder.

Every command that reads or writes a file a user gave or a project holds (an operator
file, a key, a template, a card, a reply, a file of site/ it serves, the ``.gitignore``
``acap init`` extends) goes through here, and a test (``tests/test_files_module.py``)
walks the source for any other ``open``, ``read_bytes``, ``write_text``, ``os.replace``
... and fails on one not listed with its reason.

What it does, for a path and its :class:`Root` (the folder the command says the file
belongs to: the project folder, a host folder of site/, the folder acap runs in):

* **confines**: the path must lie in the root as written (``..`` climbing out is
  outside), and it is walked one part at a time from an open descriptor of the root,
  each part opened relative to the one before with ``O_NOFOLLOW`` (the ``openat``
  way): a symbolic link at any depth is seen where it is, never followed by the
  kernel behind acap's back, and a link swapped in between a check and the open is
  refused too, because there is no second lookup by name;
* **links**: refused wherever they are (``links="refuse"``), or, where a command
  documents it (``links="inside"``), followed only while they lead to a place inside
  the root, resolved here part by part; a link out of the root, to nothing or in a
  loop is refused; writes never follow a link, dangling or not;
* **only regular files** of bounded size: looked at (``fstatat`` without following)
  before they are opened, so that a device is never opened; opened with
  ``O_NONBLOCK``, so that a FIFO is refused rather than waited on; checked again on
  the open descriptor (the same file, still regular, still within the limit), and read
  no further than the limit; with ``one_name``, a file with other names (a hard link,
  which no path check can see: another tenant's key) is refused;
* **writes** by a temporary file in the target's own folder, renamed over the target
  (one ``rename``: a reader sees the old file or the new one, never half), created
  with ``O_EXCL | O_NOFOLLOW``; ``exclusive`` writes never replace anything (a key is
  never overwritten): the temporary file is hard-linked to the name, which fails if
  anything, even a dangling link, is there.
* **moves onto shared ground** (a publish putting its files into a folder a web server
  serves, where other tools write too): :func:`move_file` without ``replace`` never
  replaces anything (the same hard link), and :func:`swap_file` replaces a file only
  while it is the one the caller read: read again through the folder it holds open,
  looked at once more, and renamed over at once (see its docstring for the moment that
  is left).

Why our own and not a library: Python has no ``openat2`` (``RESOLVE_BENEATH``) and no
library on the dependency list confines a path to a folder this way; ``os.open`` with
``dir_fd`` and ``O_NOFOLLOW`` are the POSIX primitives it takes.

A refusal is :class:`acap.errors.FileRefused` (its ``reason`` in plain words, ``kind``
for a file that is not a regular one, ``outside`` for a path or link leading out of the
root, ``link`` for the link refused); the caller turns it into a finding with its
own rule id. A missing file is :class:`FileNotFoundError`, the caller's to judge.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from acap.errors import FileChanged, FileRefused
from acap.load._paths import real_path, under

__all__ = ["KEY_FILE_LIMIT", "Root", "file_kind", "file_status", "given_root", "move_file",
           "read_file", "read_regular", "remove_file", "rename_file", "swap_file",
           "write_check", "write_file"]

#: Largest file of each kind an operator names that acap reads (bytes): far above any
#: real one, so that ``/dev/zero`` or a log file named by mistake is refused, not read.
KEY_FILE_LIMIT = 1024 * 1024

#: Most symbolic links one path may pass through (as Linux's ``MAXSYMLINKS``).
_MAX_HOPS = 40
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | _CLOEXEC

Links = Literal["refuse", "inside"]


@dataclass(frozen=True)
class Root:
    """The folder a file must lie in, as the command names it.

    Attributes:
        folder: the folder (relative paths are from the current folder). Links on the
            way to it are the command's own (the user named it); below it, ``links``
            decides.
        name: what it is, in words, for messages (``"the project folder"``).
        links: ``"refuse"``: a symbolic link at any depth below ``folder`` is refused;
            ``"inside"``: followed while it leads to a place inside ``folder`` (for
            reading only: a write never follows one).
        may_be_link: ``False``: ``folder`` itself must not be a symbolic link (a host
            folder of site/, which its parent, not a link, must hold).
    """

    folder: Path
    name: str = "its folder"
    links: Links = "refuse"
    may_be_link: bool = True


def given_root(path: str | os.PathLike[str], links: Links = "inside", *,
               base: str | os.PathLike[str] | None = None, name: str | None = None) -> Root:
    """The root of a file a user names: ``base`` (by default the folder acap runs in)
    when the path, as written, leads into it, else the folder the path names (its
    parent as written). ``acap check site/x.json`` reads within the current folder, so
    a link in a cloned repository cannot lead it to ``~/.ssh``; ``acap check
    /tmp/card.json`` reads within ``/tmp``; operator.yaml's ``signing.keyFile`` within
    the project folder, or within the folder an absolute ``keyFile`` names.

    Args:
        path: the path as given (relative to the current folder).
        links: how links below the root are treated (see :class:`Root`).
        base: the folder the path should lead into (default: the current folder).
        name: what ``base`` is, in words (default: "the current folder").

    Returns:
        A :class:`Root`.
    """
    here = os.getcwd() if base is None else os.path.abspath(base)
    full = os.path.normpath(os.path.join(os.getcwd(), os.fspath(path)))
    if _parts_under(full, here) is not None:
        return Root(Path(here) if base is None else Path(base),
                    name or ("the current folder" if base is None else f"the folder {base}"),
                    links)
    parent = os.path.dirname(full)
    return Root(Path(parent), f"the folder {parent}", links)


def _split(path: str) -> list[str]:
    """The parts of an absolute path, without empty and ``.`` parts (``..`` kept)."""
    return [p for p in path.split(os.sep) if p not in ("", ".")]


def _parts_under(path: str, folder: str) -> list[str] | None:
    """The parts of ``path`` below ``folder`` (``..`` kept, resolved by the walk), or
    ``None`` when ``path`` as written does not start in ``folder``."""
    base = _split(os.path.abspath(folder))
    parts = _split(path if os.path.isabs(path) else os.path.join(os.getcwd(), path))
    if parts[: len(base)] != base:
        return None
    return parts[len(base):]


@dataclass
class _Place:
    """Where a walk ended: the open folder holding the last part, its name, and its
    ``lstat`` (``None``: nothing there)."""

    dir_fd: int
    name: str
    st: os.stat_result | None
    shown: str


class _Walk:
    """One walk from a root's descriptor along a path's parts (see the module
    docstring); owns the descriptors it opens and closes them all."""

    def __init__(self, root: Root, path: str | os.PathLike[str], *, make: bool = False,
                 follow: bool = True) -> None:
        self.root = root
        self.raw = os.fspath(path)
        self.make = make
        self.follow = follow and root.links == "inside"
        self.fds: list[int] = []
        self.names: list[str] = []
        self.hops = 0
        self.via: str | None = None  # the last link followed
        self.last_link: str | None = None  # the path's last part, a link being followed
        self._real_root: str | None = None

    def __enter__(self) -> _Walk:
        return self

    def __exit__(self, *exc: object) -> None:
        for fd in self.fds:
            os.close(fd)
        self.fds.clear()

    def shown(self, name: str = "") -> str:
        """Where the walk is (with ``name`` below it), as a path inside the root."""
        return "/".join([*self.names, name] if name else self.names) or "."

    def go(self) -> _Place:
        """Walk to the last part; every folder on the way opened without following."""
        parts = _parts_under(self.raw, os.fspath(self.root.folder))
        if parts is None:
            raise FileRefused(self.raw, f"it lies outside {self.root.name}", outside=True)
        self.open_root()
        if not parts:
            raise FileRefused(self.raw, f"it is {self.root.name} itself, not a file",
                              kind="a folder")
        pending = list(parts)
        while True:
            part = pending.pop(0)
            if part == "..":
                self.up()
                if not pending:
                    raise FileRefused(self.raw, "it is a folder, not a file", kind="a folder")
                continue
            if pending:
                pending = self.descend(part) + pending
                continue
            st = self.lstat(part)
            if st is not None and stat.S_ISLNK(st.st_mode) and self.follow:
                self.last_link = self.shown(part)
                pending = self.through(part)
                if pending:
                    continue
            if st is None and self.last_link is not None:
                raise self.to_nothing()
            return _Place(self.fds[-1], part, st, self.shown(part))

    def to_nothing(self) -> FileRefused:
        """The refusal of a path whose last part is a link to nothing (never taken as no
        file: what it was meant to be is unknown)."""
        return FileRefused(self.raw, f"{self.last_link} is a symbolic link that leads to "
                           "nothing", kind="a symbolic link", link=self.last_link)

    def open_root(self) -> None:
        flags = _DIR_FLAGS if not self.root.may_be_link else _DIR_FLAGS & ~os.O_NOFOLLOW
        if self.make:  # a write makes the folder the command names, as `mkdir -p` would
            os.makedirs(self.root.folder, exist_ok=True)
        try:
            self.fds.append(os.open(self.root.folder, flags))
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENOTDIR) and os.path.islink(self.root.folder):
                raise FileRefused(self.raw, f"{self.root.name} is a symbolic link, which "
                                  "acap does not follow here", kind="a symbolic link",
                                  link=os.fspath(self.root.folder)) from exc
            raise

    def lstat(self, name: str) -> os.stat_result | None:
        """``lstat`` of ``name`` in the folder the walk is in; ``None``: nothing there."""
        try:
            return os.stat(name, dir_fd=self.fds[-1], follow_symlinks=False)
        except FileNotFoundError:
            return None

    def up(self) -> None:
        """``..``: back to the folder before, never above the root."""
        if len(self.fds) == 1:
            if self.via is not None:
                raise self.leads_out(self.via)
            raise FileRefused(self.raw, f"it climbs out of {self.root.name} (..)",
                              outside=True)
        os.close(self.fds.pop())
        self.names.pop()

    def descend(self, part: str) -> list[str]:
        """Open the folder ``part`` (made when missing and ``make``); the parts a link
        there leads to when it is followed, else ``[]``."""
        try:
            fd = os.open(part, _DIR_FLAGS, dir_fd=self.fds[-1])
        except FileNotFoundError:
            if self.last_link is not None:
                raise self.to_nothing() from None
            if not self.make:
                raise
            # made a moment ago by another process: opened below, judged the same
            with contextlib.suppress(FileExistsError):
                os.mkdir(part, 0o777, dir_fd=self.fds[-1])
            return self.descend(part)
        except OSError as exc:
            if exc.errno not in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
                raise
            st = self.lstat(part)
            if st is None or not stat.S_ISLNK(st.st_mode):  # a file where a folder should be
                raise NotADirectoryError(errno.ENOTDIR, f"{self.shown(part)} is not a folder",
                                         self.raw) from exc
            if not self.follow:
                raise self.link_refused(part, last=False) from exc
            return self.through(part)
        self.fds.append(fd)
        self.names.append(part)
        return []

    def link_refused(self, part: str, *, last: bool) -> FileRefused:
        """The refusal of the link ``part``, the path's last part or one on the way."""
        shown = self.shown(part)
        what = "it is a symbolic link" if last else f"{shown} is a symbolic link"
        return FileRefused(self.raw, f"{what}, and acap follows no link there",
                           kind="a symbolic link", link=shown)

    def leads_out(self, shown: str) -> FileRefused:
        return FileRefused(self.raw, f"{shown} is a symbolic link that leads out of "
                           f"{self.root.name}", kind="a symbolic link", outside=True,
                           link=shown)

    def through(self, part: str) -> list[str]:
        """The parts the link ``part`` leads to, from where the walk now is (an
        absolute target restarts at the root); refused when it leads out or in a loop
        (one to nothing is missing where the walk gets there)."""
        self.hops += 1
        shown = self.via = self.shown(part)
        if self.hops > _MAX_HOPS:
            raise FileRefused(self.raw, f"{shown} is one of symbolic links that lead in a "
                              "loop", kind="a symbolic link", link=shown)
        target = os.readlink(part, dir_fd=self.fds[-1])
        if not os.path.isabs(target):
            return [p for p in target.split(os.sep) if p not in ("", ".")]
        rel = _parts_under(target, self.real_root())
        if rel is None:
            raise self.leads_out(shown)
        while len(self.fds) > 1:
            self.up()
        return rel

    def real_root(self) -> str:
        """The root's real path, checked to be the folder the walk holds open."""
        if self._real_root is None:
            real = os.path.realpath(self.root.folder)
            here, there = os.fstat(self.fds[0]), os.stat(real)
            if (here.st_dev, here.st_ino) != (there.st_dev, there.st_ino):
                raise FileRefused(self.raw, f"{self.root.name} changed while acap read it")
            self._real_root = real
        return self._real_root


def file_status(path: str | os.PathLike[str], root: Root) -> os.stat_result | None:
    """The ``lstat`` of ``path`` in ``root`` (links on the way as ``root.links`` says,
    the last part followed only when it may be), or ``None`` when nothing is there.

    Raises:
        FileRefused: the path leads out of ``root``, or through a link refused there.
        OSError: a folder on the way cannot be read.
    """
    with _Walk(root, path) as walk:
        try:
            return walk.go().st
        except (FileNotFoundError, NotADirectoryError):
            return None


def read_file(path: str | os.PathLike[str], root: Root, limit: int, *,
              one_name: bool = False) -> bytes:
    """The bytes of the regular file ``path``, confined to ``root`` (see the module
    docstring).

    Args:
        path: the file (relative paths are from the current folder).
        root: the folder it must lie in, and how links below it are treated.
        limit: the most bytes it may have.
        one_name: refuse a file with other names (hard links): a key or private file,
            which may be another's (outside the project) that no path check can see.

    Returns:
        The file's bytes.

    Raises:
        FileNotFoundError: nothing is there (a missing optional file is the caller's
            to judge).
        FileRefused: outside ``root``, a link refused there, not a regular file
            (``kind``), larger than ``limit``, with other names (``one_name``), or
            replaced while it was opened.
        OSError: it could not be read (permissions ...).
    """
    with _Walk(root, path) as walk:
        place = walk.go()
        if place.st is None:
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", os.fspath(path))
        if stat.S_ISLNK(place.st.st_mode):
            raise walk.link_refused(place.name, last=True)
        _judge(path, place.st, limit, one_name)
        try:
            fd = os.open(place.name, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | _CLOEXEC,
                         dir_fd=place.dir_fd)
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENXIO, errno.EMLINK, errno.EISDIR):
                raise FileRefused(os.fspath(path), "it was replaced while acap opened it",
                                  kind="a symbolic link") from exc
            raise
        return _read_open(path, fd, place.st, limit, one_name)


def _read_open(path: str | os.PathLike[str], fd: int, seen: os.stat_result | None,
               limit: int, one_name: bool) -> bytes:
    """Read the open ``fd`` (closed here): judged again on the descriptor, the same
    file as ``seen`` when given, and no more than ``limit + 1`` bytes."""
    try:
        st = os.fstat(fd)
        if seen is not None and (st.st_dev, st.st_ino) != (seen.st_dev, seen.st_ino):
            raise FileRefused(os.fspath(path), "it was replaced while acap opened it")
        _judge(path, st, limit, one_name)
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
        raise FileRefused(os.fspath(path), f"it has more than {limit:,} bytes",
                          too_large=True)
    return data


def write_file(path: str | os.PathLike[str], root: Root, data: bytes, *,
               mode: int | None = None, exclusive: bool = False) -> None:
    """Write ``data`` at ``path`` inside ``root`` by a temporary file renamed into place;
    folders missing on the way (``root`` too) are made. Nothing is written through a
    link below ``root``.

    Args:
        path: the file (relative paths are from the current folder).
        root: the folder it must lie in (its ``links`` does not apply: a write
            follows no link below the root).
        data: the bytes.
        mode: the file's mode (``0o600`` for a key); ``None``: the mode of the file
            replaced, or the default for new files (``0o666`` less the umask).
        exclusive: never replace anything: a file, a folder or a link (dangling or
            not) at ``path`` is :class:`FileExistsError`, and nothing is written.

    Raises:
        FileExistsError: ``exclusive`` and something is at ``path``.
        FileRefused: ``path`` lies outside ``root``, a part of it (the last one too)
            is a symbolic link, or the last one is not a regular file.
        OSError: it could not be written (permissions, a full disk, a file where a
            folder should be); the target is as it was.
    """
    with _Walk(root, path, make=True, follow=False) as walk:
        place = walk.go()
        st = place.st
        if st is not None and exclusive:
            raise FileExistsError(errno.EEXIST, "File exists", os.fspath(path))
        _writable(path, place)
        keep = mode if mode is not None else (st.st_mode & 0o7777 if st is not None else None)
        tmp = _write_temporary(place, data, keep)
        try:
            if exclusive:
                _link_new(place, tmp)
            else:
                os.replace(tmp, place.name, src_dir_fd=place.dir_fd, dst_dir_fd=place.dir_fd)
        except BaseException:
            _unlink(place.dir_fd, tmp)
            raise
        _sync_folder(place.dir_fd)


def _write_temporary(place: _Place, data: bytes, mode: int | None) -> str:
    """A new temporary file beside ``place`` holding ``data`` (written and synced); its
    name."""
    tmp = f".{place.name}.{secrets.token_hex(4)}.acap-tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | _CLOEXEC,
                 0o600 if mode is not None else 0o666, dir_fd=place.dir_fd)
    try:
        with os.fdopen(fd, "wb", closefd=False) as fh:
            fh.write(data)
        if mode is not None:
            os.fchmod(fd, mode)
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        _unlink(place.dir_fd, tmp)
        raise
    os.close(fd)
    return tmp


def _link_new(place: _Place, tmp: str, tmp_dir_fd: int | None = None) -> None:
    """Give the temporary file ``tmp`` (in ``tmp_dir_fd``, by default the same folder) the
    name of ``place`` without replacing anything there: a hard link fails on any
    existing name (a dangling link too); then the temporary name goes. Where the file
    system has no hard links, a rename after looking (a name made in between would be
    replaced: the rare case of such a file system)."""
    src_fd = place.dir_fd if tmp_dir_fd is None else tmp_dir_fd
    try:
        os.link(tmp, place.name, src_dir_fd=src_fd, dst_dir_fd=place.dir_fd,
                follow_symlinks=False)
    except FileExistsError:
        raise
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK):
            raise
        try:
            os.stat(place.name, dir_fd=place.dir_fd, follow_symlinks=False)
        except FileNotFoundError:
            os.rename(tmp, place.name, src_dir_fd=src_fd, dst_dir_fd=place.dir_fd)
            return
        raise FileExistsError(errno.EEXIST, "File exists", place.shown) from exc
    _unlink(src_fd, tmp)


def write_check(path: str | os.PathLike[str], root: Root) -> None:
    """Raise what :func:`write_file` would raise for ``path`` before it writes a byte, so
    that a command writing several files refuses before it changes the first one.

    Raises:
        FileRefused: as :func:`write_file` (``exclusive`` aside).
        OSError: a folder on the way cannot be read.
    """
    with _Walk(root, path, follow=False) as walk:
        try:
            place = walk.go()
        except (FileNotFoundError, NotADirectoryError):
            return  # made by the write (a file where a folder should be fails it there)
        _writable(path, place)


def _writable(path: str | os.PathLike[str], place: _Place) -> None:
    """Raise :class:`FileRefused` when what is at ``place`` may not be replaced: a link,
    dangling or not, or no regular file."""
    st = place.st
    if st is None:
        return
    if stat.S_ISLNK(st.st_mode):
        raise FileRefused(os.fspath(path), "it is a symbolic link, and acap writes "
                          "nothing through a link", kind="a symbolic link", link=place.shown)
    kind = file_kind(st.st_mode)
    if kind:
        raise FileRefused(os.fspath(path), f"it is {kind}, not a regular file", kind=kind)


def rename_file(path: str | os.PathLike[str], new: str | os.PathLike[str], root: Root) -> None:
    """Give the regular file ``path`` the name ``new`` in the same folder of ``root``,
    never replacing anything at ``new`` (``acap keys rotate`` keeps the old key so).

    Raises:
        FileNotFoundError: nothing is at ``path``.
        FileExistsError: something is at ``new``.
        FileRefused: either lies outside ``root`` or under a link, ``path`` is a link or
            not a regular file, or ``new`` is in another folder.
    """
    if os.path.dirname(os.path.abspath(path)) != os.path.dirname(os.path.abspath(new)):
        raise FileRefused(os.fspath(new), "it is in another folder than the file renamed")
    with _Walk(root, path, follow=False) as walk:
        place = walk.go()
        if place.st is None:
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", os.fspath(path))
        if stat.S_ISLNK(place.st.st_mode):
            raise walk.link_refused(place.name, last=True)
        kind = file_kind(place.st.st_mode)
        if kind:
            raise FileRefused(os.fspath(path), f"it is {kind}, not a regular file", kind=kind)
        name = os.path.basename(os.path.abspath(new))
        _link_new(_Place(place.dir_fd, name, None, os.fspath(new)), place.name)
        _sync_folder(place.dir_fd)


def move_file(path: str | os.PathLike[str], new: str | os.PathLike[str], root: Root,
              replace: bool = True) -> None:
    """Put the regular file ``path`` at ``new``, both inside ``root`` and walked part by
    part without following a link (a publish puts a file it staged beside a web root
    into its place); folders missing on the way to ``new`` are made. With ``replace``,
    one ``rename``: a regular file at ``new`` is replaced. Without it, nothing there is
    ever replaced (a hard link, then the old name removed): a file another program puts
    at ``new`` at any moment is never lost, the link fails.

    Raises:
        FileNotFoundError: nothing is at ``path``.
        FileExistsError: without ``replace``: something (a file, a folder, a link) is at
            ``new``.
        FileRefused: either lies outside ``root`` or under a link; ``path`` is not a
            regular file; with ``replace``, something else than a regular file is at
            ``new``.
        OSError: the move failed (another file system, permissions ...); nothing moved.
    """
    with _Walk(root, path, follow=False) as walk, \
            _Walk(root, new, make=True, follow=False) as there:
        place = walk.go()
        if place.st is None:
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", os.fspath(path))
        _writable(path, place)
        dest = there.go()
        if replace:
            _writable(new, dest)
            os.replace(place.name, dest.name, src_dir_fd=place.dir_fd, dst_dir_fd=dest.dir_fd)
        elif dest.st is not None:
            raise FileExistsError(errno.EEXIST, "File exists", os.fspath(new))
        else:
            _link_new(dest, place.name, place.dir_fd)
        _sync_folder(dest.dir_fd)


def swap_file(path: str | os.PathLike[str], new: str | os.PathLike[str], root: Root,
              same: Callable[[bytes], bool], limit: int) -> None:
    """Put the regular file ``path`` over the regular file at ``new`` in one rename, only
    while the file at ``new`` is the one the caller read before: its bytes, read again
    through the folder this walk holds open, are ones ``same`` accepts, and it is still
    that file (the same inode, size, modification and change times) when looked at once
    more, just before the rename.

    What is left between that last look and the rename is two system calls on the same
    open folder: POSIX has no rename that happens only if a file still holds given
    bytes, and a program holding the file open may write into it at any moment.

    Args:
        path: the file to put in place.
        new: the file it replaces.
        root: the folder both lie in.
        same: says whether the bytes at ``new`` are the ones the caller read.
        limit: the most bytes read at ``new``.

    Raises:
        FileChanged: nothing, or no regular file, is at ``new``, or ``same`` refuses its
            bytes, or it changed while it was read; nothing moved.
        FileNotFoundError: nothing is at ``path``.
        FileRefused: either lies outside ``root`` or under a link; ``path`` is not a
            regular file.
        OSError: the rename failed; nothing moved.
    """
    with _Walk(root, path, follow=False) as walk, _Walk(root, new, follow=False) as there:
        place = walk.go()
        if place.st is None:
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", os.fspath(path))
        _writable(path, place)
        try:
            dest = there.go()
        except (FileNotFoundError, NotADirectoryError):
            raise FileChanged(os.fspath(new), "it was removed") from None
        _unchanged(new, dest, same, limit)
        os.replace(place.name, dest.name, src_dir_fd=place.dir_fd, dst_dir_fd=dest.dir_fd)
        _sync_folder(dest.dir_fd)


def _stamp(st: os.stat_result) -> tuple[int, ...]:
    """What any write, rename or removal of a file changes (its change time, set by the
    kernel, cannot be set back by a program)."""
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


def _unchanged(path: str | os.PathLike[str], place: _Place, same: Callable[[bytes], bool],
               limit: int) -> None:
    """Raise :class:`FileChanged` unless ``place`` holds a regular file whose bytes
    ``same`` accepts and that did not change while it was read (see :func:`swap_file`)."""
    if place.st is None:
        raise FileChanged(os.fspath(path), "it was removed")
    if not stat.S_ISREG(place.st.st_mode):
        raise FileChanged(os.fspath(path), f"it is {file_kind(place.st.st_mode) or 'no file'} "
                          "now")
    try:
        fd = os.open(place.name, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | _CLOEXEC,
                     dir_fd=place.dir_fd)
    except OSError as exc:
        raise FileChanged(os.fspath(path), "it was replaced while acap read it") from exc
    try:
        before = os.fstat(fd)
        if _stamp(before)[:2] != _stamp(place.st)[:2]:  # another file since the walk looked
            raise FileChanged(os.fspath(path), "it was replaced while acap read it")
        chunks, left = [], limit + 1
        while left > 0 and (chunk := os.read(fd, min(left, 1 << 20))):
            chunks.append(chunk)
            left -= len(chunk)
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > limit or not same(data):
        raise FileChanged(os.fspath(path), "it changed")
    try:
        now = os.stat(place.name, dir_fd=place.dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        raise FileChanged(os.fspath(path), "it was removed") from None
    if _stamp(now) != _stamp(before):
        raise FileChanged(os.fspath(path), "it changed")


def remove_file(path: str | os.PathLike[str], root: Root) -> None:
    """Remove the regular file ``path`` inside ``root``, walked part by part without
    following a link (a folder swapped for a link on the way is refused, not entered).

    Raises:
        FileNotFoundError: nothing is at ``path``.
        FileRefused: it lies outside ``root`` or under a link, or is not a regular file.
        OSError: it could not be removed.
    """
    with _Walk(root, path, follow=False) as walk:
        place = walk.go()
        if place.st is None:
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", os.fspath(path))
        _writable(path, place)
        os.unlink(place.name, dir_fd=place.dir_fd)


def _unlink(dir_fd: int, name: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(name, dir_fd=dir_fd)


def _sync_folder(dir_fd: int) -> None:
    """Make a rename in the folder durable (a key renamed must not be lost to a crash);
    a file system that cannot sync a folder is left to its own devices."""
    with contextlib.suppress(OSError):
        os.fsync(dir_fd)


def read_regular(path: str | os.PathLike[str], limit: int, *, inside: Sequence[Path] | None = None,
                 follow_links: bool = True, one_name: bool = False) -> bytes:
    """The bytes of ``path``, once it is judged: a regular file of at most ``limit``
    bytes, and, when ``inside`` is given, whose real path lies in one of those folders.
    The older form of :func:`read_file`, for callers that confine by real path (a batch
    tenant's operator file, which may be a link into its own folder from elsewhere).

    With ``inside``, the real path is found, then read as :func:`read_file` reads it
    from the folder it lies in, following no link (so a link swapped in after the
    real path was found is refused). Without it, ``path`` is opened as named.

    Args:
        path: the file.
        limit: the most bytes it may have.
        inside: folders (resolved here) the file must lie in, or ``None``.
        follow_links: ``False``: a symbolic link as the last part is refused, not
            followed (``O_NOFOLLOW``: a publish target never reads through a link).
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
        base = next((b for b in map(real_path, inside) if under(real, b)), None)
        if base is None:
            raise FileRefused(str(path), "it lies outside the folder it must be in",
                              outside=True)
        try:
            return read_file(real, Root(Path(base)), limit, one_name=one_name)
        except FileRefused as exc:
            raise FileRefused(os.fspath(path), exc.reason, kind=exc.kind, outside=exc.outside,
                              link=exc.link, too_large=exc.too_large) from exc
    # stat first: a device is never opened (opening some has effects of its own), and
    # fstat after opening, for a file swapped in between.
    _judge(path, os.stat(path) if follow_links else os.lstat(path), limit, one_name)
    flags = os.O_RDONLY | os.O_NONBLOCK | _CLOEXEC
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
    return _read_open(path, fd, None, limit, one_name)


def _judge(path: str | os.PathLike[str], st: os.stat_result, limit: int, one_name: bool) -> None:
    """Raise :class:`FileRefused` unless ``st`` is a regular file of at most ``limit``
    bytes (and, with ``one_name``, a single link)."""
    kind = file_kind(st.st_mode)
    if kind:
        raise FileRefused(str(path), f"it is {kind}, not a regular file", kind=kind)
    if st.st_size > limit:
        raise FileRefused(str(path), f"it has {st.st_size:,} bytes; a file of its kind "
                          f"has at most {limit:,}", too_large=True)
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
