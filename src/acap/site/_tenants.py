"""A live batch site changed one unit at a time: a tenant (or the few tenants trading hosts
with each other) is the unit of change (issue 24).

A batch over a site/ that an earlier batch wrote does not rebuild and swap the whole
folder: each changed tenant's host folders are built beside the live ones (in
``site/.acap/batch/stage-*``), then swapped in by rename, unit by unit; a tenant that did
not change is not touched at all. Each unit is made safe to interrupt by a journal
entry, written whole (a new file renamed into place) *before* its first rename:

1. ``site/.acap/batch/journal/<n>.json`` says what the unit does: for each host, the
   staged folder that becomes it (with the folder's device and inode, which tell it apart
   from any other folder) or its removal, and the unit's new manifest records and host
   files (:meth:`acap.site.Manifest.changed`);
2. each host is swapped (Linux's ``renameat2(RENAME_EXCHANGE)``: the served path always
   holds a whole folder, old or new; two renames elsewhere), the replaced folder moved
   out of site/ into a folder beside it, and removed by a thread of its own while the
   batch goes on (:meth:`LiveSite._remove_later`);
3. when every unit is in, the manifest (the index) is written whole, then the journal
   removed (:meth:`LiveSite.finish`).

A batch killed at any point (``kill -9``) leaves every host folder whole; a unit whose
entry was written may have some hosts swapped and not others, and the next batch, holding
the site's lock, finishes it before anything else (:func:`repair`): it redoes what the
entry says, each step judged by what is on disk (so it may be redone any number of
times), and writes the index the killed batch did not. A unit without an entry changed
nothing. Readers of site/ that come before that repair (``acap publish``) compare each
host's files with the manifest, and refuse a host that does not match it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import queue
import re
import shutil
import stat
import sys
import tempfile
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from acap.errors import FileRefused
from acap.load import Root, read_file, write_file
from acap.site._files import stops_held
from acap.site._manifest import Manifest, OperatorRecord, read_manifest, write_manifest

__all__ = ["BATCH_DIR", "LiveSite", "Unit", "repair"]

#: acap's own folder of a live batch site (never published: not a host folder).
BATCH_DIR = ".acap/batch"
_JOURNAL = f"{BATCH_DIR}/journal"
_ENTRY = re.compile(r"[0-9]{6}\.json")
_STAGE_PREFIX = "stage-"


@dataclass
class Unit:
    """One unit of change of a live batch site.

    Attributes:
        records: ``{card URL: its new record}`` (``None``: the record goes).
        hosts: ``{host: the folder built for it}`` (``None``: the host folder goes).
        files: ``{host: {path under site/: sha256 hex}}``, each host's files after the
            change (``{}`` for a host that goes).
    """

    records: dict[str, OperatorRecord | None] = field(default_factory=dict)
    hosts: dict[str, Path | None] = field(default_factory=dict)
    files: dict[str, dict[str, str]] = field(default_factory=dict)


class LiveSite:
    """A batch site/ changed in place, unit by unit (see the module docstring). Use it while
    holding the site's lock (:func:`acap.site.site_lock`), after :func:`repair`.

    Args:
        site_dir: the site folder (real path; it holds a batch manifest).
    """

    def __init__(self, site_dir: Path) -> None:
        self.site_dir = site_dir
        self._count = 0
        self._trash: Path | None = None
        self._stages: list[Path] = []
        self._replaced: queue.SimpleQueue[Path | None] = queue.SimpleQueue()
        self._remover: threading.Thread | None = None

    def stage(self) -> Path:
        """A new empty folder in site/'s own ``.acap/batch``, on site/'s file system, to
        build host folders in (``<stage>/<anything>/<host>``).

        Raises:
            OSError: it cannot be made.
        """
        parent = self.site_dir / BATCH_DIR
        parent.mkdir(parents=True, exist_ok=True)
        made = Path(tempfile.mkdtemp(prefix=_STAGE_PREFIX, dir=parent))
        self._stages.append(made)
        return made

    def apply(self, unit: Unit) -> None:
        """Swap ``unit`` in: its journal entry first, then each host.

        Raises:
            OSError: a folder could not be swapped; the unit's entry stays, and the next
                batch finishes it (:func:`repair`).
        """
        hosts = {h: _staged_entry(self.site_dir, p) for h, p in unit.hosts.items()}
        entry = {"records": {c: r.data() if r is not None else None
                             for c, r in unit.records.items()},
                 "hosts": hosts, "files": unit.files}
        journal = self.site_dir / _JOURNAL
        journal.mkdir(parents=True, exist_ok=True)
        self._count += 1
        _write_whole(journal / f"{self._count:06d}.json", orjson.dumps(entry))
        replaced: list[Path] = []

        def unit_trash() -> Path:  # this unit's own folder of what it replaced
            if not replaced:
                replaced.append(self._trash_folder() / str(self._count))
                replaced[0].mkdir()
            return replaced[0]

        _roll_forward(self.site_dir, hosts, unit_trash)
        for folder in replaced:
            self._remove_later(folder)

    def finish(self, manifest: Manifest) -> None:
        """Write ``manifest`` (the site's new index), then forget the journal: every unit
        is in."""
        write_manifest(self.site_dir, manifest)
        shutil.rmtree(self.site_dir / _JOURNAL, ignore_errors=True)

    def commit(self, units: Iterable[Unit], manifest: Manifest) -> None:
        """:meth:`apply` each of ``units``, then :meth:`finish` with ``manifest``, with
        Ctrl-C and SIGTERM held until it is done (as :func:`acap.site.swap_in` holds
        them): the batch has done what it was asked, and a renaming stopped half-way
        would leave its end to the next batch (:func:`repair`).

        Raises:
            OSError: as :meth:`apply`.
        """
        with stops_held():
            for unit in units:
                self.apply(unit)
            self.finish(manifest)

    def close(self) -> None:
        """Remove what the batch left of its own: its staged folders (those not moved in)
        and the folders it replaced (moved out of site/, no longer served), once the
        removal of those begun as each unit went in is done."""
        if self._remover is not None:
            self._replaced.put(None)
            self._remover.join()
            self._remover = None
        for folder in [*self._stages, *([self._trash] if self._trash else [])]:
            shutil.rmtree(folder, ignore_errors=True)
        with contextlib.suppress(OSError):
            os.rmdir(self.site_dir / BATCH_DIR)
        self._stages, self._trash = [], None

    def _remove_later(self, folder: Path) -> None:
        """Remove ``folder`` (what one unit replaced, out of site/) in a thread of its own,
        while the batch goes on with the next units, the index and the file signatures:
        off the path the user waits for (a batch stopped first leaves it beside site/,
        and the next one removes it: :func:`acap.site.site_lock`)."""
        if self._remover is None:
            self._remover = threading.Thread(target=_remove_each, args=(self._replaced,),
                                             name="acap-replaced", daemon=True)
            self._remover.start()
        self._replaced.put(folder)

    def _trash_folder(self) -> Path:
        """The folder beside site/ that replaced host folders are moved into (made on
        first use, named as :func:`acap.site.site_lock` removes leftovers)."""
        if self._trash is None:
            self._trash = Path(tempfile.mkdtemp(prefix=f".{self.site_dir.name}-old-",
                                                dir=self.site_dir.parent))
        return self._trash


def _remove_each(folders: queue.SimpleQueue[Path | None]) -> None:
    """Remove each folder put in ``folders`` until ``None`` comes (see
    :meth:`LiveSite._remove_later`)."""
    while (folder := folders.get()) is not None:
        shutil.rmtree(folder, ignore_errors=True)


def repair(site_dir: Path) -> Manifest | None:
    """Finish the units a killed batch began in ``site_dir`` (see the module docstring):
    redo each journal entry's swaps, apply its records and files to the manifest, write
    that manifest, and remove the journal and every staged folder. Call it holding the
    site's lock.

    Returns:
        The repaired manifest, or ``None`` when there was nothing to repair.

    Raises:
        OSError: a folder could not be swapped or the manifest written (the journal
            stays for the next try).
    """
    journal = site_dir / _JOURNAL
    try:
        names = sorted(n for n in os.listdir(journal) if _ENTRY.fullmatch(n))
    except OSError:
        names = []
    manifest = read_manifest(site_dir) if names else None
    trash: list[Path] = []

    def trash_folder() -> Path:
        if not trash:
            trash.append(Path(tempfile.mkdtemp(prefix=f".{site_dir.name}-old-",
                                               dir=site_dir.parent)))
        return trash[0]

    for name in names:
        entry = _read_entry(journal / name)
        if entry is None or manifest is None:
            continue
        _roll_forward(site_dir, entry.hosts, trash_folder)
        manifest = manifest.changed(entry.records, entry.files)
    if manifest is not None:
        write_manifest(site_dir, manifest)
    batch = site_dir / BATCH_DIR
    with contextlib.suppress(OSError):
        for name in os.listdir(batch):
            if name.startswith(_STAGE_PREFIX) or name == "journal":
                shutil.rmtree(batch / name, ignore_errors=True)
        os.rmdir(batch)
    _remove_parts(site_dir / MANIFEST_DIR)
    for folder in trash:
        shutil.rmtree(folder, ignore_errors=True)
    return manifest


@dataclass
class _Entry:
    """A journal entry as :func:`repair` reads it back."""

    records: dict[str, OperatorRecord | None]
    hosts: dict[str, object]
    files: dict[str, dict[str, str]]


#: acap's own folder of a site (the manifest's).
MANIFEST_DIR = ".acap"
#: The temporary file :func:`acap.load.write_file` writes before its rename (of the
#: manifest, a journal entry), left by a process killed between the two.
_PART = re.compile(r"\..+\.[0-9a-f]{8}\.acap-tmp")


def _remove_parts(folder: Path) -> None:
    """Remove the temporary files a killed write left in ``folder`` (see :data:`_PART`)."""
    with contextlib.suppress(OSError):
        for name in os.listdir(folder):
            if _PART.fullmatch(name):
                with contextlib.suppress(OSError):
                    os.unlink(folder / name)


def _read_entry(path: Path) -> _Entry | None:
    """A journal entry, or ``None`` when it is not one (written by no acap: the entries are
    written whole)."""
    try:
        data = orjson.loads(read_file(path, Root(path.parent, "the batch's journal"),
                                      ENTRY_LIMIT))
    except (OSError, ValueError, FileRefused):
        return None
    if not isinstance(data, dict) or not all(isinstance(data.get(k), dict)
                                             for k in ("records", "hosts", "files")):
        return None
    records = {str(c): OperatorRecord.of(str(c), r) for c, r in data["records"].items()}
    files = {str(h): {str(k): str(v) for k, v in f.items()} if isinstance(f, dict) else {}
             for h, f in data["files"].items()}
    return _Entry(records, {str(h): op for h, op in data["hosts"].items()}, files)


def _staged_entry(site_dir: Path, folder: Path | None) -> dict[str, object] | None:
    """A host's part of a journal entry: the staged folder (under site/) and its identity."""
    if folder is None:
        return None
    st = os.lstat(folder)
    return {"from": os.path.relpath(folder, site_dir), "id": [st.st_dev, st.st_ino]}


def _roll_forward(site_dir: Path, hosts: Mapping[str, object],
                  trash: Callable[[], Path]) -> None:
    """Make each host of a journal entry what the entry says (see the module docstring),
    judging each step by what is on disk, so that it may be redone. ``trash`` makes (or
    gives) the folder that replaced folders go to."""
    for host, op in sorted(hosts.items()):
        if not _is_host(host):
            continue  # not a name a batch writes: an entry written by no acap
        live = site_dir / host
        if isinstance(op, dict):
            _swap_one(site_dir, live, op, trash)
        elif op is None and os.path.lexists(live):
            os.rename(live, _spot(trash, host))


def _swap_one(site_dir: Path, live: Path, op: dict[str, object],
              trash: Callable[[], Path]) -> None:
    """Put the staged folder ``op`` describes at ``live`` (already there: nothing)."""
    source, ident = op.get("from"), op.get("id")
    if not isinstance(source, str) or ".." in Path(source).parts or not isinstance(ident, list):
        return
    staged = site_dir / source
    if _identity(live) == ident:  # in already; an exchange left the old one at `staged`
        if _identity(staged) not in (None, ident):
            os.rename(staged, _spot(trash, live.name))
        return
    if _identity(staged) != ident:
        return  # the staged folder is gone and is not live: nothing of it to put in
    if os.path.lexists(live):
        if _exchange(staged, live):
            os.rename(staged, _spot(trash, live.name))
            return
        os.rename(live, _spot(trash, live.name))
    os.rename(staged, live)


def _identity(path: Path) -> list[int] | None:
    """``[st_dev, st_ino]`` of the folder at ``path`` (not followed), or ``None``."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return [st.st_dev, st.st_ino] if stat.S_ISDIR(st.st_mode) else None


def _spot(trash: Callable[[], Path], name: str) -> Path:
    """A free path in the trash folder for a replaced folder named ``name``."""
    folder = trash()
    spot = folder / name
    n = 0
    while os.path.lexists(spot):
        n += 1
        spot = folder / f"{name}.{n}"
    return spot


def _is_host(name: str) -> bool:
    """True for a host folder's name (no separator, not ``.`` or ``..``, not hidden)."""
    return bool(name) and "/" not in name and os.sep not in name and not name.startswith(".")


_RENAME_EXCHANGE = 2  # <linux/fs.h>
_AT_FDCWD = -100


def _exchange(a: Path, b: Path) -> bool:
    """Swap the folders at ``a`` and ``b`` in one step (Linux ``renameat2`` with
    ``RENAME_EXCHANGE``, through ctypes: the standard library has no binding for it, and
    it is what keeps a served host folder whole while it is replaced). ``False`` where
    the system or file system has no such call (then two renames do it).

    Raises:
        OSError: the exchange failed for another reason.
    """
    if not sys.platform.startswith("linux"):
        return False
    import ctypes  # start-up: only when a live batch site changes

    try:
        call = ctypes.CDLL(None, use_errno=True).renameat2
    except AttributeError:  # a C library older than glibc 2.28
        return False
    if call(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP):
        return False
    raise OSError(err, os.strerror(err), str(a), None, str(b))


#: The largest journal entry read back (bytes): one unit's records and files.
ENTRY_LIMIT = 64 * 1024 * 1024


def _write_whole(path: Path, data: bytes) -> None:
    """Write ``path`` whole or not at all (:func:`acap.load.write_file`: a new file renamed
    over it)."""
    write_file(path, Root(path.parent, "the batch's journal"), data)
