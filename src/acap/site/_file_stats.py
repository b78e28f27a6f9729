"""What a batch knew of each file it read or wrote, so that the next batch can tell an
unchanged file by one ``stat`` instead of reading and hashing it (issue 16).

``site/.acap/file-stats.json`` (:data:`FILE_STATS`), written once the new site/ is in
place, holds a *signature* per file: its type, ``st_dev``, ``st_ino``, ``st_size``,
``st_mtime_ns`` and ``st_ctime_ns`` (:func:`signature`)::

    {"version": 1, "mark": ctime (ns) of this file, made after the swap,
     "outputs": {path under site/: signature without its ctime},
     "inputs": {state digest of an operator: {path it reads: [*signature, sha256 hex]}}}

It is a cache: it is not part of the build's output (the manifest is), a file it does
not list, or lists with another signature, is read and hashed as before, and a lost or
damaged cache only costs that time.

Why a signature is enough to call a file unchanged
--------------------------------------------------
The kernel sets a file's ``st_ctime`` to the current time whenever anything about it
changes (its bytes, its mode, its owner, its links, its times), and no call lets a user
set it: ``utime`` restores ``mtime``, not ``ctime``. An unprivileged tenant can therefore
not give a changed file the signature of the unchanged one; a file replaced by another
has another ``st_ino``. The one way to change a file and keep its signature is to do it
within the same timestamp tick as the change the signature recorded (the kernel's clock
for file times advances in ticks of up to a few milliseconds, and some file systems keep
whole seconds). So a signature counts only when that cannot have happened:

* **a file a build read** (operator.yaml, its private values, keys, templates): its
  signature is taken after acap read it, and is recorded only when its ``ctime`` is at
  least :data:`SETTLED_NS` older than the moment before acap first read it
  (:func:`settled`): the file did not change while acap read it, and any later change
  gets a later ``ctime``. A file changed seconds before a build is hashed again by the
  next one.
* **a file of site/**: linking a kept file into the new site/ and removing the old
  site/ change its ``ctime`` (its link count changes), so its own ``ctime`` is not
  recorded but a *mark*: the ``ctime`` of this cache's file, made after the swap (and
  once the file system's clock has moved past the tick it was made in, a few
  milliseconds). Every change acap made is older than the mark, and any later change
  is not (the file system's own clock, whatever its tick): a file is unchanged when its
  type, device, inode, size and ``mtime`` are those acap checked or wrote earlier in
  the batch and its ``ctime`` is older than the mark.

Limits, where a changed file could be taken for unchanged (each also needs the same
size and a restored ``mtime``, which only a deliberate or copying tool does):
* a file system whose timestamps are coarser than :data:`SETTLED_NS` (2 s, FAT), or
  whose ``ctime`` is not the kernel's change time (some FUSE and network file systems);
  on NFS, a change made from another machine is seen once the client's attribute cache
  expires (``actimeo``), so by a later batch;
* the clock set back by root (or an NFS server's clock behind this machine's by more
  than :data:`SETTLED_NS`), to before a recorded ``ctime`` or mark;
* a file of site/ changed during the batch itself, between acap's check or write of it
  and the mark (site/ is the platform's, and locked by the batch while it runs).
``acap build --full`` rebuilds everything whatever the signatures say.
"""

from __future__ import annotations

import contextlib
import os
import stat
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import orjson

from acap.errors import FileRefused
from acap.load import Root, read_file

__all__ = ["FILE_STATS", "SETTLED_NS", "FileStats", "read_file_stats", "record_file_stats",
           "settled", "signature", "unchanged_output"]

#: Where the signatures lie, relative to the site folder (beside the manifest, so never
#: published).
FILE_STATS = ".acap/file-stats.json"

#: How much older than the first read a file's ``ctime`` must be for its signature to
#: count (ns): above a file system's timestamp granularity (at most 1 s on Linux's own
#: file systems, 2 s on FAT) and the kernel's clock tick.
SETTLED_NS = 3_000_000_000

#: The format of :data:`FILE_STATS`; another is ignored.
_VERSION = 1
#: Largest file-stats record read (bytes): far above a batch of a hundred thousand
#: operators; a file put in its place is refused rather than read without end.
_LIMIT = 1 << 30


def signature(st: os.stat_result) -> list[int]:
    """``[file type, st_dev, st_ino, st_size, st_mtime_ns, st_ctime_ns]`` of ``st`` (see the
    module docstring): equal signatures mean the same file, unchanged."""
    return [stat.S_IFMT(st.st_mode), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns,
            st.st_ctime_ns]


def settled(st: os.stat_result, since_ns: int) -> bool:
    """True when ``st`` is a regular file whose last change (``ctime``) is at least
    :data:`SETTLED_NS` before ``since_ns`` (``time.time_ns()`` taken before the file was
    first read): its signature may then be recorded (see the module docstring)."""
    return stat.S_ISREG(st.st_mode) and st.st_ctime_ns <= since_ns - SETTLED_NS


class FileStats:
    """The signatures the last batch recorded (read-only; any content answers, what is
    not as :data:`FILE_STATS` describes reads as unknown).

    Args:
        data: the parsed JSON object.
    """

    __slots__ = ("_inputs", "_outputs", "mark")

    def __init__(self, data: Mapping[str, Any]) -> None:
        ok = data.get("version") == _VERSION and isinstance(data.get("mark"), int)
        inputs, outputs = data.get("inputs"), data.get("outputs")
        self._inputs: dict[str, Any] = inputs if ok and isinstance(inputs, dict) else {}
        self._outputs: dict[str, Any] = outputs if ok and isinstance(outputs, dict) else {}
        #: The ``ctime`` (ns) every recorded output file is older than, unless changed.
        self.mark: int = data["mark"] if ok else -1

    def inputs(self, state: object) -> dict[str, Any]:
        """``{path: [*signature, sha256 hex]}`` of what the operator whose state digest is
        ``state`` read, as recorded (``{}`` when unknown)."""
        found = self._inputs.get(state) if isinstance(state, str) else None
        return found if isinstance(found, dict) else {}

    def outputs(self, paths: Iterable[str]) -> dict[str, Any]:
        """``{path under site/: signature without its ctime}`` of those of ``paths``
        recorded."""
        return {p: self._outputs[p] for p in paths if p in self._outputs}


def unchanged_output(sig: list[int], recorded: object, mark: int) -> bool:
    """True when a file of site/ whose ``lstat`` gives ``sig`` is the regular file
    :meth:`FileStats.outputs` recorded, unchanged since the ``mark`` (see the module
    docstring)."""
    return sig[0] == stat.S_IFREG and sig[5] < mark and recorded == sig[:5]


def read_file_stats(site_dir: Path) -> FileStats:
    """The signatures recorded in ``site_dir`` (none when the file is missing or damaged)."""
    try:  # acap's own file: inside site/, through no link (issue 22)
        data = orjson.loads(read_file(site_dir / FILE_STATS, Root(site_dir, "the site folder"),
                                      _LIMIT))
    except (OSError, ValueError, RecursionError, FileRefused):
        return FileStats({})
    return FileStats(data if isinstance(data, dict) else {})


def record_file_stats(site_dir: Path, outputs: Mapping[str, list[int]],
                      inputs: Mapping[str, Mapping[str, list[Any]]]) -> None:
    """Write :data:`FILE_STATS` into the site folder just swapped in, with its mark (see
    the module docstring).

    Args:
        site_dir: the site folder.
        outputs: ``{path under site/: signature}`` of its files as the batch checked
            (kept) or wrote (built) them; their ``ctime`` is left out.
        inputs: what to record of the operators' inputs (:meth:`FileStats.inputs`), by
            state digest, each taken as :func:`settled` says.

    Nothing is raised: a cache that cannot be written is left out.
    """

    final = os.path.join(site_dir, FILE_STATS)
    part = f"{final}.{os.getpid()}.part"
    try:
        fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0),
                     0o644)
    except OSError:
        return
    try:
        mark = _later_mark(fd, part)
        data = orjson.dumps({"version": _VERSION, "mark": mark, "inputs": inputs,
                             "outputs": {rel: sig[:5] for rel, sig in outputs.items()}})
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.close(fd)
        fd = -1
        os.replace(part, final)
    except (OSError, TypeError):  # TypeError: orjson.JSONEncodeError (an integer beyond 64 bits)
        if fd >= 0:
            os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(part)


def _later_mark(fd: int, path: str) -> int:
    """The ``ctime`` of ``path`` (just made, open as ``fd``), touched again until the file
    system's clock has left the tick it was made in: every change before it was made is
    then older (waits a few milliseconds; a file system with coarser times gives the
    first, and the files changed in its tick are read again by the next batch)."""
    first = os.fstat(fd).st_ctime_ns
    for _ in range(10):
        time.sleep(0.001)
        os.utime(path)
        now = os.fstat(fd).st_ctime_ns
        if now > first:
            return now
    return first
