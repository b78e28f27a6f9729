"""A :class:`~acap.publisher._store.Store` over a file system: a folder a web server
serves, on this machine (:mod:`acap.publisher._local`) or on a server reached over SFTP
(:mod:`acap.publisher._sftp`). Those two only move bytes (:class:`Fs`); how files are
staged, put in place, put back and cleaned up is written once, here.

Beside the folder (``/srv/www`` for ``/srv/www/praxis``), outside what the web server
serves, lie acap's record of the publish (``.praxis.acap-published.json``) and its
staging folder (``.praxis.acap-stage/``). A file goes up into the staging folder first
and is renamed into its place only once every file is up: an interrupted upload (Ctrl-C,
``kill``, a dropped connection, even ``kill -9``) leaves no temporary file in the served
folder. (A folder that is ``/`` keeps both inside itself, as dot-files; so does a folder
on another file system than its parent, where a rename from beside it cannot work.)

**What acap leaves, and what it removes.** Every name acap makes in the staging folder
starts with this publish's random token (``4f1c2a9e0b7d3e55.new.3``), and the record
acap signs and puts in place before it stages a byte names that token
(:attr:`acap.site.PublishRecord.staging`). What an interrupted publish left there is
listed by :meth:`FileStore.leftovers`; :mod:`acap.publisher._leftovers` decides which of
it acap can prove it made, and only that is removed (:meth:`FileStore.sweep`).

**Other writers during a publish.** The target is shared ground: another person or tool
may write a file between acap's look at it and acap's change. Immediately before it
changes a file, acap checks that it is still what the survey saw (:class:`Seen`):

* a file acap **adds** is put in place by a move that never replaces anything
  (:meth:`Fs.place`): a file someone put there meanwhile stops the publish;
* a file acap **replaces** is read again and replaced only if its bytes are still the
  ones the survey read (:meth:`Fs.swap`): on this machine through the folder acap holds
  open, looked at once more (inode, size, times) and renamed over at once, two system
  calls apart; over SFTP while the file is still open, one network round trip apart;
* a file acap **removes** is first moved into the staging folder, then checked there
  against the bytes read before the upload began (a file the survey only listed, one
  ``--force`` removes, is read then: :meth:`FileStore.remove`): one that changed is
  moved back, and nothing of anyone's is lost.

A file that changed stops the publish: what it had moved is put back (each only if it
is still acap's), and so is the record (``PUBLISH-CHANGED``). While the files go out
the record lists, for each path, the content acap is replacing and the one it puts
there (:mod:`acap.site._publish_record`): a publish cut at any point leaves a record
that still says which files are acap's.

acap reads, replaces and deletes only regular files and folders: a link, a FIFO, a
device or a socket where acap would read or write is refused
(:class:`~acap.publisher._plan.TargetRefused`) before anything is read from it or
written, and so are folders nested deeper than :data:`acap.site.MAX_DEPTH`.
"""

from __future__ import annotations

import contextlib
import posixpath
import re
import secrets
import stat
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import NamedTuple, Protocol

from acap.errors import FileChanged
from acap.load import file_kind
from acap.publisher._plan import TargetRefused, digest
from acap.publisher._store import Leftover
from acap.site import MAX_DEPTH, RECORD_LIMIT, RECORD_NAME

#: The largest file acap reads at one of its own paths (its files are a few kilobytes).
READ_LIMIT = 64 * 1024 * 1024
#: The most files acap lists in a folder it owns whole (a site of its own has dozens).
MAX_FILES = 200_000
#: The names acap makes in its staging folder: ``<token>.new.<n>`` (a file to put in
#: place), ``<token>.record.<n>`` (a record on its way), ``<token>.record-old`` (the
#: record before, kept to put back), ``<token>.gone.<n>`` (a file being removed, or
#: taken back), and the temporary name :func:`acap.load.write_file` writes each under
#: (``.<name>.<8 hex>.acap-tmp``).
STAGED = re.compile(r"(?P<tmp>\.)?(?P<token>[0-9a-f]{16})\."
                    r"(?P<kind>new\.\d+|record\.\d+|record-old|gone\.\d+)"
                    r"(?(tmp)\.[0-9a-f]{8}\.acap-tmp)")
#: The entry at a target's root that acap never touches (see :class:`FileStore`).
GIT_ENTRY = ".git"
#: Errors a store meets on the way: local, and over SFTP (paramiko raises EOFError
#: for a dropped connection).
STORE_ERRORS = (OSError, EOFError)


class Entry(NamedTuple):
    """One entry of a folder, as :meth:`Fs.names` lists it.

    Attributes:
        name: its name.
        mode: its ``st_mode`` (``lstat``: a link is a link).
        stamp: what writing it changes (:meth:`Fs.stamp`).
    """

    name: str
    mode: int
    stamp: tuple[int, ...]


class Fs(Protocol):
    """What :class:`FileStore` needs of a file system; paths are absolute and
    ``/``-separated. Nothing here follows a symbolic link."""

    def shown(self, path: str) -> str:
        """``path`` as a message names it (``/srv/www/x``, ``/www/x on the server``)."""

    def mode(self, path: str) -> int | None:
        """``st_mode`` of ``path`` itself (``lstat``); ``None`` when nothing is there."""

    def stamp(self, path: str) -> tuple[int, ...] | None:
        """What writing the file at ``path`` changes and a rename keeps (on this machine
        its inode, size and modification time in nanoseconds; over SFTP its size and
        modification time in seconds); ``None`` when nothing is there."""

    def names(self, folder: str) -> list[Entry]:
        """Each entry of ``folder``."""

    def read(self, path: str, limit: int) -> bytes:
        """The bytes of the regular file at ``path`` (at most ``limit``; checked again
        once open). Raises :class:`TargetRefused` for anything else."""

    def write(self, path: str, data: bytes) -> None:
        """Write a new file at ``path`` (mode 0644); never over an existing one."""

    def chmod(self, path: str, mode: int) -> None:
        """Set ``path``'s permission bits."""

    def move(self, src: str, dst: str) -> None:
        """Put ``src`` at ``dst`` in one step (a rename), replacing a file there (only
        inside acap's staging folder, and for its record)."""

    def place(self, src: str, dst: str) -> None:
        """Put ``src`` at ``dst`` in one step, never replacing anything there.

        Raises:
            FileExistsError: something is at ``dst``; nothing moved.
        """

    def swap(self, src: str, dst: str, same: Callable[[bytes], bool]) -> None:
        """Put ``src`` over the regular file at ``dst`` in one step, only while its
        bytes are ones ``same`` accepts, read again immediately before.

        Raises:
            FileChanged: ``dst`` is not such a file (any more); nothing moved.
        """

    def unlink(self, path: str) -> None:
        """Remove the file at ``path``."""

    def mkdir(self, path: str) -> None:
        """Make the folder ``path`` (mode 0755)."""

    def rmdir(self, path: str) -> None:
        """Remove the empty folder ``path``."""


@dataclass(frozen=True)
class Seen:
    """What the survey saw at one path of the target, to check again before acap changes
    it. Neither set: nothing was there.

    Attributes:
        digest: SHA-256 hex of the bytes read there.
        stamp: for a file listed but not read (one ``--force`` removes), its
            :meth:`Fs.stamp`.
    """

    digest: str | None = None
    stamp: tuple[int, ...] | None = None


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


def walk(fs: Fs, root: str, skip: set[str]) -> Iterator[tuple[str, Entry]]:
    """``(relative path, entry)`` of every entry under ``root``, folders included,
    without recursion (a tree nested thousands deep is refused, not a traceback) and
    without following links; the root-level names in ``skip`` are passed over.

    Raises:
        TargetRefused: folders nested deeper than :data:`acap.site.MAX_DEPTH`.
    """
    stack = [("", 0)]
    while stack:
        rel, depth = stack.pop()
        entries = sorted(fs.names(posixpath.join(root, rel) if rel else root), reverse=True)
        for entry in entries:
            if not rel and entry.name in skip:
                continue
            here = rel + entry.name
            yield here, entry
            if stat.S_ISDIR(entry.mode):
                if depth >= MAX_DEPTH:
                    raise TargetRefused(
                        f"{fs.shown(posixpath.join(root, here))} lies more than {MAX_DEPTH} "
                        "folders deep: acap walks no deeper, and none of its files lies there",
                        "publish into a folder of its own (or remove those folders)")
                stack.append((here + "/", depth + 1))


def _digest_is(expected: str) -> Callable[[bytes], bool]:
    return lambda data: digest(data) == expected


class FileStore:
    """A :class:`~acap.publisher._store.Store` over :class:`Fs` (see the module docstring).

    Args:
        fs: the file system.
        root: the folder served as the host's root (absolute, ``/``-separated).
        describe: the target in words.
        stage_inside: keep the staging folder inside the root (``.acap-stage``): the
            root is on another file system than its parent.

    Attributes:
        staging: this publish's token (16 hex digits, random): every name it makes in
            the staging folder starts with it, and its records name it.
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
        self.staging = secrets.token_hex(8)
        self._old_record: bytes | None = None
        self._kept: str | None = None  # the record before, kept in the staging folder
        self._made: list[str] = []  # folders this publish made
        self._mine: set[str] = set()  # names this publish made in the staging folder
        self._seen: dict[str, Seen] = {}
        self._staged: list[tuple[str, str, str]] = []  # (path, staged file, its SHA-256)
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
        return sorted(e.name for e in self.fs.names(self.root) if e.name not in self.own_names)

    def listing(self) -> list[str]:
        """See :meth:`acap.publisher._store.Store.listing`. A file listed and not read is
        remembered by its :meth:`Fs.stamp`, to be checked before it is removed."""
        if not self.exists():
            return []
        out: list[str] = []
        for rel, entry in walk(self.fs, self.root, self.own_names):
            if stat.S_ISREG(entry.mode):
                out.append(rel)
                self._seen.setdefault(rel, Seen(stamp=entry.stamp))
            elif not stat.S_ISDIR(entry.mode):
                raise refused(self.fs, posixpath.join(self.root, rel), entry.mode)
            if len(out) > MAX_FILES:
                raise TargetRefused(f"{self.fs.shown(self.root)} holds more than {MAX_FILES} "
                                    "files: it is not a site of acap's own",
                                    "publish into a folder of its own")
        return sorted(out)

    def read(self, rel: str) -> bytes | None:
        """See :meth:`acap.publisher._store.Store.read`. What is read is remembered
        (:class:`Seen`), to be checked again before acap changes that path."""
        here = self.root
        for part in rel.split("/")[:-1]:
            here = posixpath.join(here, part)
            mode = self.fs.mode(here)
            if mode is None:
                self._seen[rel] = Seen()
                return None
            if not stat.S_ISDIR(mode):
                raise refused(self.fs, here, mode, "a file where acap needs a folder"
                              if stat.S_ISREG(mode) else None)
        data = self._read_file(posixpath.join(self.root, rel), READ_LIMIT)
        self._seen[rel] = Seen(digest(data)) if data is not None else Seen()
        return data

    def _read_file(self, path: str, limit: int) -> bytes | None:
        mode = self.fs.mode(path)
        if mode is None:
            return None
        if not stat.S_ISREG(mode):
            raise refused(self.fs, path, mode)
        return self.fs.read(path, limit)

    # -- what an earlier publish left --------------------------------------------------------

    def leftovers(self) -> list[Leftover]:
        """See :meth:`acap.publisher._store.Store.leftovers`: the entries of the staging
        folder (the folder itself a link, or anything but a folder, is refused)."""
        mode = self.fs.mode(self.stage_at)
        if mode is None:
            return []
        if not stat.S_ISDIR(mode):
            raise refused(self.fs, self.stage_at, mode)
        entries = self.fs.names(self.stage_at)
        if len(entries) > MAX_FILES:
            raise TargetRefused(f"{self.fs.shown(self.stage_at)} holds more than {MAX_FILES} "
                                "files: it is not acap's staging folder",
                                "move it away, or publish into another folder")
        return [self._leftover(e) for e in sorted(entries)]

    def _leftover(self, entry: Entry) -> Leftover:
        """One entry of the staging folder; read only when it has a name acap gives (no
        other can be acap's: a folder full of anything else costs no reading)."""
        path = posixpath.join(self.stage_at, entry.name)
        named = STAGED.fullmatch(entry.name)
        regular = stat.S_ISREG(entry.mode)
        if named is None:
            return Leftover(entry.name, self.fs.shown(path), regular, None, None, False)
        data = None
        if regular:
            with contextlib.suppress(TargetRefused):  # too large: proves nothing by content
                data = self.fs.read(path, READ_LIMIT)
        return Leftover(entry.name, self.fs.shown(path), regular, data, named["token"],
                        not named["kind"].startswith("gone"))

    def sweep(self, names: list[str]) -> None:
        """See :meth:`acap.publisher._store.Store.sweep`."""
        for name in names:
            with contextlib.suppress(FileNotFoundError):
                self.fs.unlink(posixpath.join(self.stage_at, name))
        if not self._began:
            self._drop_stage()

    # -- writing ---------------------------------------------------------------------------

    def begin(self, intent: bytes, create: bool) -> None:
        """See :meth:`acap.publisher._store.Store.begin`. The record goes first into the
        staging folder: from then on, every name this publish makes there is one a
        signed record of it names (even a publish cut before the record is in place)."""
        self._began = True
        if create:
            self._make_folders(self.root, self._made)
        try:
            self._stage_ready()
            tmp = self._temp("record")
            self.fs.write(tmp, intent)
            if self._old_record is not None:
                # kept beside it, so that putting it back is one rename (no space needed)
                self._kept = self._temp("record-old")
                self.fs.write(self._kept, self._old_record)
            self._move_out(tmp, self.record_at)
        except PermissionError as exc:
            raise TargetRefused(
                f"acap may not write {self.fs.shown(self.stage_at)} and "
                f"{posixpath.basename(self.record_at)} beside {self.root}, where it stages the "
                f"files and keeps its record ({exc.strerror or exc}); nothing was changed",
                "acap keeps both beside the folder your web server serves, outside it: ask "
                "your hosting provider to let you write there, or publish into a folder "
                "inside one you may write in", "PUBLISH-FAILED") from None

    def _temp(self, kind: str) -> str:
        """A new name in the staging folder (``<token>.<kind>.<n>``; the record kept to
        put back: ``<token>.record-old``)."""
        self._n += 1
        name = f"{self.staging}.{kind}" + (f".{self._n}" if kind != "record-old" else "")
        self._mine.add(name)
        return posixpath.join(self.stage_at, name)

    def _move_out(self, tmp: str, dst: str) -> None:
        """Rename ``tmp`` (in the staging folder) to ``dst``, over what is there."""
        self.fs.move(tmp, dst)
        self._mine.discard(posixpath.basename(tmp))

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
        self._write_record(record)
        if not self._began:
            self._drop_stage()
        return True

    def _write_record(self, record: bytes) -> None:
        self._stage_ready()
        tmp = self._temp("record")
        self.fs.write(tmp, record)
        self._move_out(tmp, self.record_at)

    def stage(self, rel: str, data: bytes) -> None:
        """See :meth:`acap.publisher._store.Store.stage`."""
        tmp = self._temp("new")
        self.fs.write(tmp, data)
        self._staged.append((rel, tmp, digest(data)))

    def remove(self, rel: str) -> None:
        """See :meth:`acap.publisher._store.Store.remove`. A file the survey listed but did
        not read (one ``--force`` removes) is read now, while it still has the stamp it
        was listed with: its removal then checks its bytes, not only a stamp (over SFTP
        only its size and modification time in whole seconds)."""
        seen = self._seen.get(rel, Seen())
        if seen.digest is None and seen.stamp is not None:
            self._seen[rel] = self._pinned(rel, seen)
        self._removals.append(rel)

    def _pinned(self, rel: str, seen: Seen) -> Seen:
        """``seen`` with the digest of the file at ``rel``, read now (a file larger than
        acap reads keeps its stamp alone).

        Raises:
            TargetRefused: ``PUBLISH-CHANGED``: its stamp is not the one listed.
        """
        path = posixpath.join(self.root, rel)
        try:
            data: bytes | None = self.fs.read(path, READ_LIMIT)
        except FileNotFoundError:
            return seen  # gone meanwhile: nothing to remove (:meth:`_take`)
        except TargetRefused:
            mode = self.fs.mode(path)
            if mode is None or not stat.S_ISREG(mode):
                raise
            data = None  # larger than acap reads: its stamp alone
        if self.fs.stamp(path) != seen.stamp:
            raise self._changed(rel, seen, FileChanged(path, "it changed"))
        return Seen(digest(data) if data is not None else None, seen.stamp)

    def commit(self, record: bytes, old: Mapping[str, bytes | None],
               say: Callable[[str], None]) -> str | None:
        """See :meth:`acap.publisher._store.Store.commit`: each file checked against what
        the survey saw immediately before it is put in place or removed (see the module
        docstring); one that changed puts back what was done and raises
        ``PUBLISH-CHANGED``. A failure after that (the record) leaves the record written
        by :meth:`begin`, which lists every file."""
        done: list[tuple[str, str | None]] = []  # (path, where it was moved aside) ...
        try:
            for rel, tmp, _sum in self._staged:
                self._put(rel, tmp)
                done.append((rel, None))
            for rel in self._removals:
                say(f"removing {rel} (acap published it; it is built no more)")
                aside = self._take(rel, self._seen.get(rel, Seen()))
                if aside is not None:
                    done.append((rel, aside))
        except BaseException:
            self._undo(done, old, say)
            raise
        self._committed = True
        self._remove_empty([posixpath.dirname(posixpath.join(self.root, rel))
                            for rel in self._removals])
        try:
            self._write_record(record)
        except STORE_ERRORS as exc:  # the files are in place; the record written before
            say(f"could not update {self.fs.shown(self.record_at)}: {exc}")  # lists them
        self._drop_stage()
        return None

    def _put(self, rel: str, tmp: str) -> None:
        """Put the staged ``tmp`` at ``rel`` if that path is still what the survey saw:
        nothing (a move that replaces nothing), or the bytes it read (:meth:`Fs.swap`).

        Raises:
            TargetRefused: ``PUBLISH-CHANGED``: it is not; nothing moved.
        """
        dest = posixpath.join(self.root, rel)
        self._make_folders(posixpath.dirname(dest), self._made)
        seen = self._seen.get(rel, Seen())
        try:
            if seen.digest is None:  # nothing was there: acap replaces no file it has not read
                self.fs.place(tmp, dest)
            else:
                mode = self.fs.mode(dest)
                if mode is not None and stat.S_ISREG(mode):
                    self.fs.chmod(tmp, mode & 0o7777)
                self.fs.swap(tmp, dest, _digest_is(seen.digest))
        except (FileChanged, FileExistsError) as exc:
            raise self._changed(rel, seen, exc) from None
        self._mine.discard(posixpath.basename(tmp))

    def _take(self, rel: str, seen: Seen) -> str | None:
        """Move the file at ``rel`` into the staging folder and keep it there if it is what
        ``seen`` says (it goes with the folder); else move it back.

        Returns:
            Where it is now, or ``None`` when nothing was there (nothing to remove).

        Raises:
            TargetRefused: ``PUBLISH-CHANGED``: it was not what ``seen`` says.
        """
        dest = posixpath.join(self.root, rel)
        aside = self._temp("gone")
        try:
            self.fs.move(dest, aside)
        except FileNotFoundError:
            self._mine.discard(posixpath.basename(aside))
            return None
        if self._holds(aside, seen):
            return aside
        left = self._put_back(rel, aside)
        raise self._changed(rel, seen, FileChanged(dest, "it changed"), left)

    def _holds(self, path: str, seen: Seen) -> bool:
        """Whether the file at ``path`` is what ``seen`` says."""
        if seen.stamp is not None and self.fs.stamp(path) != seen.stamp:
            return False
        if seen.digest is not None:
            try:
                return digest(self.fs.read(path, READ_LIMIT)) == seen.digest
            except TargetRefused:
                return False
        return seen.stamp is not None

    def _put_back(self, rel: str, aside: str) -> str | None:
        """Move ``aside`` back to ``rel``, never over a file put there meanwhile.

        Returns:
            ``None``, or, when it cannot go back, what to tell: where it is kept (it is
            no longer acap's to remove).
        """
        self._mine.discard(posixpath.basename(aside))
        try:
            self.fs.place(aside, posixpath.join(self.root, rel))
        except STORE_ERRORS as exc:
            return f"{self.fs.shown(aside)} keeps it ({exc})"
        return None

    def _undo(self, done: list[tuple[str, str | None]], old: Mapping[str, bytes | None],
              say: Callable[[str], None]) -> None:
        """Put back, last first, each file ``done`` moved (each only while it is still
        what this publish left there); say what could not be."""
        new = {rel: s for rel, _tmp, s in self._staged}
        for rel, aside in reversed(done):
            try:
                left = self._put_back(rel, aside) if aside is not None \
                    else self._unput(rel, new[rel], old.get(rel))
            except (TargetRefused, *STORE_ERRORS) as exc:
                left = str(exc)
            if left:
                say(f"could not put back {rel}: {left}")
        self._remove_empty(self._made)

    def _unput(self, rel: str, new: str, before: bytes | None) -> str | None:
        """Put back what ``rel`` held before (``before``; ``None``: nothing), only while it
        holds what this publish put there (SHA-256 ``new``)."""
        try:
            if before is None:
                self._take(rel, Seen(new))
                return None
            tmp = self._temp("new")
            self.fs.write(tmp, before)
            self.fs.swap(tmp, posixpath.join(self.root, rel), _digest_is(new))
        except (TargetRefused, FileChanged):
            return "it changed after acap put it there (another person or tool), so it stays"
        self._mine.discard(posixpath.basename(tmp))
        return None

    def _changed(self, rel: str, seen: Seen, exc: Exception,
                 left: str | None = None) -> TargetRefused:
        """The ``PUBLISH-CHANGED`` refusal for ``rel``, which is not what the survey saw."""
        shown = self.fs.shown(posixpath.join(self.root, rel))
        if seen.digest is None and seen.stamp is None:
            what = (f"a file was put at {shown} while acap was publishing (by another person "
                    "or tool), where acap was adding its own")
        else:
            why = getattr(exc, "reason", "it changed")
            what = (f"{shown} changed while acap was publishing ({why} after acap had read "
                    "it: another person or tool wrote it)")
        return TargetRefused(
            f"{what}: acap stopped and put back what this publish had changed, so the target "
            "is as it was, with that change" + (f"; {left}" if left else ""),
            f"run acap publish again: it reads {rel} as it is now (a file acap published "
            "shows as changed since, any other as not acap's) and says what to do",
            "PUBLISH-CHANGED")

    def roll_back(self) -> None:
        """See :meth:`acap.publisher._store.Store.roll_back`."""
        if self._committed or not self._began:
            return
        with contextlib.suppress(*STORE_ERRORS):
            if self._kept is not None:
                self._move_out(self._kept, self.record_at)
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

    def _drop_stage(self) -> None:
        """Remove what this publish left in the staging folder, then the folder if nothing
        else is in it (what anyone else left there stays; never through a link). A write
        cut short (Ctrl-C) leaves its temporary file (``.<token>.new.3.<8 hex>.acap-tmp``,
        :func:`acap.load.write_file`): one under this publish's token is its own too."""
        with contextlib.suppress(TargetRefused, *STORE_ERRORS):
            self._mine.update(e.name for e in self.fs.names(self.stage_at)
                              if (m := STAGED.fullmatch(e.name)) is not None and m["tmp"]
                              and m["token"] == self.staging and stat.S_ISREG(e.mode))
        for name in sorted(self._mine):
            with contextlib.suppress(TargetRefused, *STORE_ERRORS):
                self.fs.unlink(posixpath.join(self.stage_at, name))
        self._mine.clear()
        with contextlib.suppress(*STORE_ERRORS):
            self.fs.rmdir(self.stage_at)
