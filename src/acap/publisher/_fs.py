"""A :class:`~acap.publisher._store.Store` over a file system: a folder a web server
serves, on this machine (:mod:`acap.publisher._local`) or on a server reached over SFTP
(:mod:`acap.publisher._sftp`). Those two only move bytes (:class:`Fs`); how files are
staged, put in place, put back and cleaned up is written once, here.

Beside the folder (``/srv/www`` for ``/srv/www/praxis``), outside what the web server
serves, lie acap's record of the publish (``.praxis.acap-published.json``) and its
staging folder (``.praxis.acap-stage/``). A file goes up into the staging folder first
and is renamed into its place only once every file is up: an interrupted upload (Ctrl-C,
``kill``, a dropped connection, even ``kill -9``) leaves no temporary file in the served
folder, and the next publish empties the staging folder before it starts. (A folder
that is ``/`` keeps both inside itself, as dot-files; so does a folder on another file
system than its parent, where a rename from beside it cannot work.)

While the files go out the record lists, for each path, the content acap is replacing
and the one it puts there (:mod:`acap.site._publish_record`): a publish cut at any point
leaves a record that still says which files are acap's. A failure before the first
rename changes nothing; a failure while renaming puts back what was renamed and the
record as it was.

acap reads, replaces and deletes only regular files and folders: a link, a FIFO, a
device or a socket where acap would read or write is refused
(:class:`~acap.publisher._plan.TargetRefused`) before anything is read from it or
written, and so are folders nested deeper than :data:`acap.site.MAX_DEPTH`.
"""

from __future__ import annotations

import contextlib
import posixpath
import re
import stat
from collections.abc import Callable, Iterator, Mapping
from types import TracebackType
from typing import Protocol

from acap.load import file_kind
from acap.publisher._plan import TargetRefused
from acap.site import MAX_DEPTH, RECORD_LIMIT, RECORD_NAME

#: The largest file acap reads at one of its own paths (its files are a few kilobytes).
READ_LIMIT = 64 * 1024 * 1024
#: The most files acap lists in a folder it owns whole (a site of its own has dozens).
MAX_FILES = 200_000
#: Temporary files an acap before the staging folder left beside their places
#: (``.agent-card.json.acap-new-1a2b3c``): removed where acap writes.
_LEGACY_TEMP = re.compile(r"\..+\.acap-new-[A-Za-z0-9_]{6,16}")
#: The entry at a target's root that acap never touches (see :class:`FileStore`).
GIT_ENTRY = ".git"
#: Errors a store meets on the way: local, and over SFTP (paramiko raises EOFError
#: for a dropped connection).
STORE_ERRORS = (OSError, EOFError)


class Fs(Protocol):
    """What :class:`FileStore` needs of a file system; paths are absolute and
    ``/``-separated. Nothing here follows a symbolic link."""

    def shown(self, path: str) -> str:
        """``path`` as a message names it (``/srv/www/x``, ``/www/x on the server``)."""

    def mode(self, path: str) -> int | None:
        """``st_mode`` of ``path`` itself (``lstat``); ``None`` when nothing is there."""

    def names(self, folder: str) -> list[tuple[str, int]]:
        """``(name, st_mode)`` of each entry of ``folder`` (``lstat`` modes)."""

    def read(self, path: str, limit: int) -> bytes:
        """The bytes of the regular file at ``path`` (at most ``limit``; checked again
        once open). Raises :class:`TargetRefused` for anything else."""

    def write(self, path: str, data: bytes) -> None:
        """Write a new file at ``path`` (mode 0644); never over an existing one."""

    def chmod(self, path: str, mode: int) -> None:
        """Set ``path``'s permission bits."""

    def move(self, src: str, dst: str) -> None:
        """Put ``src`` at ``dst`` in one step (a rename), replacing a file there."""

    def unlink(self, path: str) -> None:
        """Remove the file at ``path``."""

    def mkdir(self, path: str) -> None:
        """Make the folder ``path`` (mode 0755)."""

    def rmdir(self, path: str) -> None:
        """Remove the empty folder ``path``."""


def beside(root: str, what: str) -> str:
    """The path of acap's ``what`` beside ``root``, outside it (``/srv/www`` ->
    ``/srv/.www.<what>``); inside it for ``/``."""
    parent, name = posixpath.split(root.rstrip("/"))
    return f"/.{what}" if not name else posixpath.join(parent, f".{name}.{what}")


def refused(fs: Fs, path: str, mode: int, what: str | None = None) -> TargetRefused:
    """The :class:`TargetRefused` for ``path``, which is not a regular file (``mode``)."""
    words = what or file_kind(mode) or "not a regular file"
    return TargetRefused(f"{fs.shown(path)} is {words}: acap reads, replaces and deletes only "
                         "regular files and folders, and never writes through a link",
                         "remove it, or publish into another folder")


def walk(fs: Fs, root: str, skip: set[str]) -> Iterator[tuple[str, int]]:
    """``(relative path, st_mode)`` of every entry under ``root``, folders included,
    without recursion (a tree nested thousands deep is refused, not a traceback) and
    without following links; the root-level names in ``skip`` are passed over.

    Raises:
        TargetRefused: folders nested deeper than :data:`acap.site.MAX_DEPTH`.
    """
    stack = [("", 0)]
    while stack:
        rel, depth = stack.pop()
        entries = sorted(fs.names(posixpath.join(root, rel) if rel else root), reverse=True)
        for name, mode in entries:
            if not rel and name in skip:
                continue
            here = rel + name
            yield here, mode
            if stat.S_ISDIR(mode):
                if depth >= MAX_DEPTH:
                    raise TargetRefused(
                        f"{fs.shown(posixpath.join(root, here))} lies more than {MAX_DEPTH} "
                        "folders deep: acap walks no deeper, and none of its files lies there",
                        "publish into a folder of its own (or remove those folders)")
                stack.append((here + "/", depth + 1))


class FileStore:
    """A :class:`~acap.publisher._store.Store` over :class:`Fs` (see the module docstring).

    Args:
        fs: the file system.
        root: the folder served as the host's root (absolute, ``/``-separated).
        describe: the target in words.
        stage_inside: keep the staging folder inside the root (``.acap-stage``): the
            root is on another file system than its parent.
    """

    default_hosting = "plain"

    def __init__(self, fs: Fs, root: str, describe: str, stage_inside: bool = False) -> None:
        self.fs = fs
        self.root = root.rstrip("/") or "/"
        self._describe = describe
        self.record_at = beside(self.root, RECORD_NAME)
        self.stage_at = (posixpath.join(self.root, ".acap-stage") if stage_inside
                         else beside(self.root, "acap-stage"))
        #: Root-level names never listed, read or written: acap's own (when they lie
        #: inside), and a ``.git`` (a working tree of the target branch, the only kind
        #: :mod:`acap.publisher._targets` lets through).
        self.own_names = {posixpath.basename(p) for p in (self.record_at, self.stage_at)
                          if posixpath.dirname(p) == self.root} | {GIT_ENTRY}
        self._old_record: bytes | None = None
        self._kept = False
        self._made: list[str] = []
        self._staged: list[tuple[str, str]] = []
        self._removals: list[str] = []
        self._n = 0
        self._began = False
        self._committed = False

    def __enter__(self) -> FileStore:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        return None

    # -- reading ---------------------------------------------------------------------------

    def describe(self) -> str:
        """See :meth:`acap.publisher._store.Store.describe`."""
        return self._describe

    def exists(self) -> bool:
        """See :meth:`acap.publisher._store.Store.exists`."""
        mode = self.fs.mode(self.root)
        if mode is None:
            return False
        if not stat.S_ISDIR(mode):
            raise refused(self.fs, self.root, mode, "a file, not a folder"
                          if stat.S_ISREG(mode) else None)
        return True

    def record(self) -> bytes | None:
        """See :meth:`acap.publisher._store.Store.record`."""
        self._old_record = self._read_file(self.record_at, RECORD_LIMIT)
        return self._old_record

    def top(self) -> list[str]:
        """See :meth:`acap.publisher._store.Store.top`."""
        if not self.exists():
            return []
        return sorted(n for n, _m in self.fs.names(self.root) if n not in self.own_names)

    def listing(self) -> list[str]:
        """See :meth:`acap.publisher._store.Store.listing`."""
        if not self.exists():
            return []
        out: list[str] = []
        for rel, mode in walk(self.fs, self.root, self.own_names):
            if _LEGACY_TEMP.fullmatch(rel.rsplit("/", 1)[-1]) and stat.S_ISREG(mode):
                continue  # an earlier acap's temporary file: removed by :meth:`begin`
            if stat.S_ISREG(mode):
                out.append(rel)
            elif not stat.S_ISDIR(mode):
                raise refused(self.fs, posixpath.join(self.root, rel), mode)
            if len(out) > MAX_FILES:
                raise TargetRefused(f"{self.fs.shown(self.root)} holds more than {MAX_FILES} "
                                    "files: it is not a site of acap's own",
                                    "publish into a folder of its own")
        return sorted(out)

    def read(self, rel: str) -> bytes | None:
        """See :meth:`acap.publisher._store.Store.read`."""
        here = self.root
        for part in rel.split("/")[:-1]:
            here = posixpath.join(here, part)
            mode = self.fs.mode(here)
            if mode is None:
                return None
            if not stat.S_ISDIR(mode):
                raise refused(self.fs, here, mode, "a file where acap needs a folder"
                              if stat.S_ISREG(mode) else None)
        return self._read_file(posixpath.join(self.root, rel), READ_LIMIT)

    def _read_file(self, path: str, limit: int) -> bytes | None:
        mode = self.fs.mode(path)
        if mode is None:
            return None
        if not stat.S_ISREG(mode):
            raise refused(self.fs, path, mode)
        return self.fs.read(path, limit)

    # -- writing ---------------------------------------------------------------------------

    def begin(self, intent: bytes, create: bool, paths: list[str]) -> None:
        """See :meth:`acap.publisher._store.Store.begin`."""
        self._began = True
        if create:
            self._make_folders(self.root, self._made)
        try:
            self._clean(paths)
            if self._old_record is not None:
                # kept beside it, so that putting it back is one rename (no space needed)
                self.fs.write(posixpath.join(self.stage_at, "record.old"), self._old_record)
                self._kept = True
            self.write_record(intent)
        except PermissionError as exc:
            raise TargetRefused(
                f"acap may not write {self.fs.shown(self.stage_at)} and "
                f"{posixpath.basename(self.record_at)} beside {self.root}, where it stages the "
                f"files and keeps its record ({exc.strerror or exc}); nothing was changed",
                "acap keeps both beside the folder your web server serves, outside it: ask "
                "your hosting provider to let you write there, or publish into a folder "
                "inside one you may write in", "PUBLISH-FAILED") from None

    def _temp(self) -> str:
        self._n += 1
        return posixpath.join(self.stage_at, str(self._n))

    def _stage_ready(self) -> bool:
        """Make the staging folder when it is missing; ``False`` when it was there.

        Raises:
            TargetRefused: something else than a folder has its name (a link is never
                followed).
        """
        mode = self.fs.mode(self.stage_at)
        if mode is None:
            self.fs.mkdir(self.stage_at)
            return True
        if not stat.S_ISDIR(mode):
            raise refused(self.fs, self.stage_at, mode)
        return False

    def write_record(self, record: bytes) -> bool:
        """See :meth:`acap.publisher._store.Store.write_record`."""
        self._stage_ready()
        tmp = self._temp()
        self.fs.write(tmp, record)
        self.fs.move(tmp, self.record_at)
        return True

    def stage(self, rel: str, data: bytes) -> None:
        """See :meth:`acap.publisher._store.Store.stage`."""
        tmp = self._temp()
        self.fs.write(tmp, data)
        self._staged.append((rel, tmp))

    def remove(self, rel: str) -> None:
        """See :meth:`acap.publisher._store.Store.remove`."""
        self._removals.append(rel)

    def commit(self, record: bytes, old: Mapping[str, bytes | None],
               say: Callable[[str], None]) -> str | None:
        """See :meth:`acap.publisher._store.Store.commit`. A failed removal leaves the
        record written by :meth:`begin`, which still lists the files not yet removed."""
        self._place_all(old)
        self._committed = True
        for rel in self._removals:
            say(f"removing {rel} (acap published it; it is built no more)")
            self.fs.unlink(posixpath.join(self.root, rel))
        self._remove_empty([posixpath.dirname(posixpath.join(self.root, rel))
                            for rel in self._removals])
        try:
            self.write_record(record)
        except STORE_ERRORS as exc:  # the files are in place; the record written before
            say(f"could not update {self.fs.shown(self.record_at)}: {exc}")  # lists them
        self._drop_stage()
        return None

    def _place_all(self, old: Mapping[str, bytes | None]) -> None:
        made: list[str] = []
        done: list[str] = []
        try:
            for rel, tmp in self._staged:
                dest = posixpath.join(self.root, rel)
                self._make_folders(posixpath.dirname(dest), made)
                mode = self.fs.mode(dest)
                if mode is not None:
                    self.fs.chmod(tmp, mode & 0o7777)
                self.fs.move(tmp, dest)
                done.append(rel)
        except BaseException:
            self._put_back(done, old)
            self._remove_empty(made)
            raise

    def _put_back(self, done: list[str], old: Mapping[str, bytes | None]) -> None:
        """Put back what each renamed path held; what cannot be put back stays acap's in
        the record of :meth:`begin`, and the error that got here is reported."""
        for rel in reversed(done):
            with contextlib.suppress(*STORE_ERRORS):
                dest = posixpath.join(self.root, rel)
                before = old.get(rel)
                if before is None:
                    self.fs.unlink(dest)
                else:
                    tmp = self._temp()
                    self.fs.write(tmp, before)
                    self.fs.move(tmp, dest)

    def roll_back(self) -> None:
        """See :meth:`acap.publisher._store.Store.roll_back`."""
        if self._committed or not self._began:
            return
        with contextlib.suppress(*STORE_ERRORS):
            if self._kept:
                self.fs.move(posixpath.join(self.stage_at, "record.old"), self.record_at)
            elif self._old_record is None:
                self.fs.unlink(self.record_at)
        self._drop_stage()
        self._remove_empty(self._made)

    # -- folders ---------------------------------------------------------------------------

    def _make_folders(self, folder: str, made: list[str]) -> None:
        """Make ``folder`` and the folders above it that are missing (noted in ``made``);
        one that is there must be a folder, not a link or a file."""
        missing: list[str] = []
        here = folder
        while (mode := self.fs.mode(here)) is None and here not in ("/", ""):
            missing.append(here)
            here = posixpath.dirname(here)
        if mode is not None and not stat.S_ISDIR(mode):
            raise refused(self.fs, here, mode, "a file where acap needs a folder"
                          if stat.S_ISREG(mode) else None)
        for f in reversed(missing):
            self.fs.mkdir(f)
            made.append(f)

    def _remove_empty(self, folders: list[str]) -> None:
        """Remove each folder, then its parents, while they are empty; never the root
        unless it is one acap made (:meth:`begin` with ``create``)."""
        keep = self.root not in self._made
        for folder in sorted(set(folders), key=lambda f: f.count("/"), reverse=True):
            while folder not in ("/", "") and (folder != self.root or not keep):
                try:
                    self.fs.rmdir(folder)
                except STORE_ERRORS:
                    break
                folder = posixpath.dirname(folder)

    def _clean(self, paths: list[str]) -> None:
        """Empty the staging folder an interrupted publish left, and remove the temporary
        files an acap before it left beside its own files (in the folders of ``paths``)."""
        fresh = self._stage_ready()
        for name, kind in [] if fresh else self.fs.names(self.stage_at):
            if not stat.S_ISREG(kind):
                raise refused(self.fs, posixpath.join(self.stage_at, name), kind)
            self.fs.unlink(posixpath.join(self.stage_at, name))
        for folder in sorted({posixpath.dirname(p) for p in paths} | {""}):
            where = posixpath.join(self.root, folder) if folder else self.root
            if not self._real_folder(folder):
                continue
            for name, kind in self.fs.names(where):
                if _LEGACY_TEMP.fullmatch(name) and stat.S_ISREG(kind):
                    self.fs.unlink(posixpath.join(where, name))

    def _real_folder(self, rel: str) -> bool:
        """Whether the root and every folder of ``rel`` on the way is a folder (no link)."""
        here = self.root
        for part in [""] + (rel.split("/") if rel else []):
            here = posixpath.join(here, part) if part else here
            mode = self.fs.mode(here)
            if mode is None or not stat.S_ISDIR(mode):
                return False
        return True

    def _drop_stage(self) -> None:
        """Remove the staging folder and what is left in it (never through a link)."""
        mode = self.fs.mode(self.stage_at)
        if mode is None or not stat.S_ISDIR(mode):
            return
        with contextlib.suppress(*STORE_ERRORS):
            for name, kind in self.fs.names(self.stage_at):
                if stat.S_ISREG(kind):
                    self.fs.unlink(posixpath.join(self.stage_at, name))
            self.fs.rmdir(self.stage_at)
