"""Publishing one host folder into a directory: a mirror, swapped in atomically.

The new tree is written completely into a hidden folder beside the target
(same file system), then exchanged with the target in one step. A failure
while copying leaves the target exactly as it was; stale files disappear with
the old tree. Readers (a web server serving the directory) see the old tree
or the new one, never a mix.

The exchange uses Linux's ``renameat2(RENAME_EXCHANGE)`` through ``ctypes``:
neither the standard library nor a well-kept package offers an atomic swap of
two non-empty directories (``os.replace`` refuses a non-empty target). Where
it is not available (other systems, some file systems) two renames are used
and the old tree is put back if the second fails; between them the target is
briefly absent, but never mixed.

acap deletes or replaces only files it published there itself. Each publish
is recorded beside the target, in ``.<name>.acap-published.json`` (for
``/srv/www`` that is ``/srv/.www.acap-published.json``): the host, and the
paths and SHA-256 of the files acap put there (:func:`acap.publisher._plan.record_bytes`).
Any other file the mirror would delete or replace (a hand-made site, files
someone added or changed since acap wrote them, a folder acap published for
another host) needs ``force``; without it :func:`mirror` raises
:class:`ForeignFolder` and changes nothing. The record lies outside the
target so that a web server serving the target never serves it; it holds
nothing private anyway (a host name, acap's version, paths that are public
once published and their digests), and no key material ever.

**Overlay** (:func:`overlay`, a host where the operator's own website lives,
``hosts.<host>.overlay``): nothing is swapped. acap's new and changed files are
written under temporary names beside their places first (a failure there
changes nothing), then renamed into place one by one (a failure there puts
back what was renamed), then the files acap published there before and no
longer builds are removed (the record says which), and the folders that left
empty. Every other file of the folder is left exactly as it is, and a file at
one of acap's paths that acap did not put there (or that someone changed since)
is replaced only with ``force``, and never removed.

acap reads, replaces and deletes only regular files and folders: a FIFO, a
device, a socket or a symbolic link where acap would read or write (anywhere in
a folder acap replaces whole; on acap's own paths with overlay) is refused with
:class:`~acap.publisher._plan.TargetRefused`, before anything is read from it
or written. A ``.git`` at the target's root (only ever there when
:mod:`acap.publisher._targets` found it to be a working tree of the target
branch) is never read, replaced or deleted: a mirror carries it over.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import hashlib
import os
import shutil
import stat
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

from acap.errors import FileRefused
from acap.load import file_kind, read_regular
from acap.publisher._plan import (
    EDITED_HINT,
    ForeignFiles,
    Plan,
    Published,
    TargetRefused,
    count,
    diff,
    digest,
    edited_paths,
    foreign_problem,
    judged_record,
    not_ours,
    overlay_plan,
    owned_after,
    parse_record,
    record_bytes,
)

_AT_FDCWD = -100
_RENAME_EXCHANGE = 2
#: Suffix of the record of a publish, kept beside the target (see the module docstring).
MARKER_SUFFIX = ".acap-published.json"


#: The entry at a target's root that is never read, replaced or deleted (a working tree
#: of the target branch; any other ``.git`` is refused by :mod:`acap.publisher._targets`).
GIT_ENTRY = ".git"
#: The largest file acap reads at one of its own paths (its files are a few kilobytes).
READ_LIMIT = 64 * 1024 * 1024


class ForeignFolder(ForeignFiles):
    """The target holds files acap did not publish there (for this host), and the
    mirror would delete or replace them. ``str()`` names the files; ``plan`` is
    what the mirror would have done."""

    def __init__(self, message: str, plan: Plan, host: str, overlay: bool = False,
                 foreign: bool = True, edited: bool = False) -> None:
        super().__init__(message, plan, foreign_hint(host, overlay, foreign, edited))


def foreign_hint(host: str, overlay: bool, foreign: bool = True, edited: bool = False) -> str:
    """What to do about files acap did not put in a folder it would delete or replace
    (``foreign``), and about files acap put there that someone changed since (``edited``,
    :func:`~acap.publisher._plan.edited_paths`)."""
    if edited:
        return (f"{foreign_hint(host, overlay)}. For the changed files: {EDITED_HINT}"
                if foreign else EDITED_HINT)
    if overlay:
        return ("these files are not acap's: rename or move them, or acap publish --force "
                "replaces them with acap's (copy them first)")
    return (f"if your website lives in this folder, set hosts: {host}: overlay: true in "
            "operator.yaml: acap then adds its files beside it and changes nothing else; "
            "if these files may go, acap publish --force deletes them (copy them first)")


def refused(shown: str, what: str) -> TargetRefused:
    """The :class:`TargetRefused` for ``shown``, which is ``what`` (``"a FIFO"``)."""
    return TargetRefused(f"{shown} is {what}: acap reads, replaces and deletes only regular "
                         "files and folders, and never writes through a link",
                         "remove it, or publish into another folder")


def marker_path(target: Path) -> Path:
    """Where the record of acap's publish into ``target`` lives: beside it, outside
    the served tree (``/srv/www`` -> ``/srv/.www.acap-published.json``)."""
    target = target.absolute()
    return target.parent / f".{target.name}{MARKER_SUFFIX}"


def read_marker(target: Path) -> tuple[str, dict[str, str | None]] | None:
    """``(host, {path acap published: its SHA-256 hex, or None})`` from the record beside
    ``target``; ``None`` when there is none or it is not acap's record (a record that is
    not a regular file of at most a megabyte is not read)."""
    data = _marker_bytes(target)
    return parse_record(data) if data is not None else None


def _marker_bytes(target: Path) -> bytes | None:
    """The bytes of the record beside ``target`` as they are (``None``: none, or not a
    regular file of at most a megabyte), to put back after a failed publish."""
    try:
        return _read_regular(marker_path(target), 1024 * 1024)
    except (OSError, TargetRefused):
        return None


class _KeptRecord:
    """The record beside ``target`` as it was before a publish, kept to be put back if
    the publish fails. The record written before the files lists them without their
    content (any file there counts as acap's): left in place after a failure, a later
    hand edit of one of them would be replaced without ``force``.

    :meth:`keep` copies the old record under a temporary name beside it before anything
    is written, so that putting it back is one rename, which needs no space on a full
    disk; :meth:`restore` puts it back (or removes the record, when there was none);
    :meth:`drop` removes the copy after a publish that succeeded."""

    def __init__(self, target: Path) -> None:
        self.path = marker_path(target)
        self.raw = _marker_bytes(target)
        self.copy: Path | None = None

    def keep(self) -> None:
        """Copy the old record beside it (nothing to copy when there was none)."""
        if self.raw is not None:
            fd, tmp = tempfile.mkstemp(prefix=self.path.name + ".", dir=self.path.parent)
            try:
                with os.fdopen(fd, "wb") as fh:
                    fh.write(self.raw)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
            self.copy = Path(tmp)

    def restore(self) -> None:
        """Put the old record back; a failure here is left to the error being raised."""
        with contextlib.suppress(OSError):
            if self.copy is not None:
                os.replace(self.copy, self.path)
            elif self.raw is None:
                self.path.unlink(missing_ok=True)
            # else: the copy could not be made, so the old record was never replaced
        self.copy = None

    def drop(self) -> None:
        """Remove the copy (the publish succeeded)."""
        if self.copy is not None:
            self.copy.unlink(missing_ok=True)
            self.copy = None


def _write_marker(target: Path, host: str, files: Mapping[str, str | None]) -> None:
    """Write the record atomically (a temporary file renamed over it)."""
    path = marker_path(target)
    data = record_bytes(host, files)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _read_regular(path: Path, limit: int = READ_LIMIT) -> bytes | None:
    """The bytes of the regular file at ``path``; ``None`` when nothing is there.

    Read with :func:`acap.load.read_regular` without following a link: a FIFO, a device
    or a link (to ``/dev/zero``, say) is refused rather than read.

    Raises:
        TargetRefused: anything but a regular file, or one larger than ``limit``.
        OSError: it could not be read.
    """
    try:
        return read_regular(path, limit, follow_links=False)
    except FileNotFoundError:
        return None
    except FileRefused as exc:
        if exc.kind:
            raise refused(str(path), exc.kind) from exc
        raise TargetRefused(f"{path} is larger than any file acap writes: it is not acap's",
                            "move it, or publish into another folder") from exc


def _digest(path: Path) -> str:
    """SHA-256 hex of the regular file at ``path`` (see :func:`_read_regular`)."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    try:
        what = file_kind(os.fstat(fd).st_mode)
        if what:
            raise refused(str(path), what)
        h = hashlib.sha256()
        while chunk := os.read(fd, 1 << 20):
            h.update(chunk)
        return h.hexdigest()
    finally:
        os.close(fd)


def _entries(root: Path) -> Iterator[tuple[str, Path]]:
    """``(relative path, path)`` of every file under ``root`` (the root's ``.git`` aside),
    without following links; anything that is not a regular file or a folder is refused
    (:class:`TargetRefused`) before it is opened."""
    for dirpath, dirs, names in os.walk(root):
        here = Path(dirpath)
        if here == root and GIT_ENTRY in dirs + names:
            dirs[:] = [d for d in dirs if d != GIT_ENTRY]
            names = [n for n in names if n != GIT_ENTRY]
        for d in sorted(dirs):
            what = file_kind(os.lstat(here / d).st_mode)
            if what != "a folder":
                raise refused(str(here / d), what or "not a folder")
        dirs.sort()
        for name in sorted(names):
            p = here / name
            what = file_kind(os.lstat(p).st_mode)
            if what:
                raise refused(str(p), what)
            yield p.relative_to(root).as_posix(), p


def read_tree(root: Path) -> dict[str, str]:
    """``{relative path: sha256 hex}`` of every file under ``root`` (``{}`` if absent), the
    root's ``.git`` aside.

    Raises:
        TargetRefused: something under ``root`` is not a regular file or a folder.
    """
    if not root.is_dir() or root.is_symlink():
        return {}
    return {rel: _digest(p) for rel, p in _entries(root)}


def plan_mirror(files: Mapping[str, bytes], target: Path) -> Plan:
    """What mirroring ``files`` into ``target`` would add, change and remove."""
    return diff(read_tree(target), {rel: digest(data) for rel, data in files.items()})


def _write_file(path: Path, data: bytes) -> None:
    """Write one file of the new tree (a seam for tests that interrupt a copy)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths atomically; ``False`` when the system cannot (then nothing changed)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError):
        return False
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    fn.restype = ctypes.c_int
    if fn(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
        return False
    raise OSError(err, os.strerror(err), str(b))


def _swap_in(new: Path, target: Path) -> Path | None:
    """Put ``new`` at ``target``; returns where the old tree went (to delete), if any."""
    if not target.exists():
        os.rename(new, target)
        return None
    if _exchange(new, target):
        return new
    old = Path(tempfile.mkdtemp(prefix=f".{target.name}.acap-old-", dir=target.parent))
    os.rename(target, old / "tree")
    try:
        os.rename(new, target)
    except BaseException:
        os.rename(old / "tree", target)
        shutil.rmtree(old, ignore_errors=True)
        raise
    return old


def mirror(files: Mapping[str, bytes], target: Path, *, host: str, force: bool = False,
           dry_run: bool = False, progress: Callable[[str], None] | None = None) -> Plan:
    """Make ``target`` hold exactly ``files``, atomically, and record the publish.

    Args:
        files: ``{path relative to the host root: bytes}``.
        target: the directory a web server serves as the host's root.
        host: the host the files are for (recorded beside the target).
        force: delete or replace files acap did not publish there (see
            :func:`foreign_problem`).
        dry_run: only compute the :class:`Plan` (and refuse as without it).
        progress: called with one line of text per step.

    Returns:
        The :class:`Plan`; when it is empty and the target exists, no file of
        the target is written.

    Raises:
        ForeignFolder: without ``force``, files acap did not publish there
            would be deleted or replaced; nothing was written.
        TargetRefused: the folder holds something that is not a regular file or a
            folder (a FIFO, a link); nothing was read from it or written.
        OSError: the copy or the swap failed; ``target`` is as it was and no
            temporary folder is left behind.
    """
    say = progress or (lambda _m: None)
    target = target.absolute()
    tree = read_tree(target)
    new = {rel: digest(data) for rel, data in files.items()}
    plan = diff(tree, new)
    kept = _KeptRecord(target)
    record = parse_record(kept.raw) if kept.raw is not None else None
    edited = edited_paths(record, host, tree)
    judged = judged_record(record, host, tree)
    problem = foreign_problem(str(target), host, plan, judged, edited=edited)
    if problem and not force:
        theirs, changed = not_ours(plan, judged, edited)
        raise ForeignFolder(problem, plan, host, foreign=bool(theirs) or not changed,
                            edited=bool(changed))
    if dry_run:
        return plan
    exact: dict[str, str | None] = dict(new)
    if plan.empty and target.is_dir():
        if record != (host.lower(), exact):
            _record_after(target, host, exact, say)
        return plan
    target.parent.mkdir(parents=True, exist_ok=True)
    # Recorded before the swap with the files of both trees, so that even if acap is
    # killed during it, the record never leaves out a file acap put there. On any
    # failure it is put back as it was (:class:`_KeptRecord`).
    earlier = record[1] if record is not None and record[0] == host.lower() else {}
    git = target / GIT_ENTRY
    carried = False
    stage: Path | None = None
    try:
        kept.keep()
        _write_marker(target, host.lower(), {**earlier, **dict.fromkeys(files)})
        stage = Path(tempfile.mkdtemp(prefix=f".{target.name}.acap-new-", dir=target.parent))
        say(f"copying {count(len(files), 'file')}")
        for rel in sorted(files):
            _write_file(stage / rel, files[rel])
        mode = target.stat().st_mode & 0o7777 if target.is_dir() else 0o755
        os.chmod(stage, mode)
        if os.path.lexists(git):  # a working tree of the target branch: it stays
            os.rename(git, stage / GIT_ENTRY)
            carried = True
        say(f"swapping the new tree into {target}")
        leftover = _swap_in(stage, target)
    except BaseException:
        if stage is not None:
            if carried and os.path.lexists(stage / GIT_ENTRY) and not os.path.lexists(git):
                os.rename(stage / GIT_ENTRY, git)
            shutil.rmtree(stage, ignore_errors=True)
        kept.restore()
        raise
    kept.drop()
    if leftover is not None:
        shutil.rmtree(leftover, ignore_errors=True)
    _record_after(target, host, exact, say)
    return plan


def _record_after(target: Path, host: str, files: Mapping[str, str | None],
                  say: Callable[[str], None]) -> None:
    """Record exactly the published files. The tree is already in place: a failure
    here is only reported (the record written before the swap still covers them)."""
    try:
        _write_marker(target, host.lower(), files)
    except OSError as exc:
        say(f"could not update {marker_path(target)}: {exc}")


def _present(target: Path, rel: str) -> bytes | None:
    """The bytes at ``target/rel`` (``None``: absent), every folder on the way checked to
    be a real folder (a link there would let acap write outside ``target``)."""
    here = target
    parts = rel.split("/")
    for part in parts[:-1]:
        here = here / part
        try:
            mode = os.lstat(here).st_mode
        except FileNotFoundError:
            return None
        if not stat.S_ISDIR(mode):
            what = file_kind(mode)
            raise refused(str(here), "a file where acap needs a folder" if what is None
                          else what)
    return _read_regular(target / rel)


def _stage_file(path: Path, data: bytes, mode: int, created: list[Path]) -> Path:
    """Write ``data`` under a temporary name beside ``path`` (making the folders it needs,
    noted in ``created``); returns the temporary file."""
    missing = []
    for parent in path.parents:
        if os.path.lexists(parent):
            break
        missing.append(parent)
    for folder in reversed(missing):
        os.mkdir(folder, 0o755)
        created.append(folder)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.acap-new-", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, mode)
    except BaseException:
        os.unlink(tmp)
        raise
    return Path(tmp)


def _remove_empty(folders: list[Path], stop: Path) -> None:
    """Remove each of ``folders`` and then its parents up to ``stop`` (excluded) while
    they are empty; deepest first."""
    for folder in sorted(set(folders), key=lambda p: len(p.parts), reverse=True):
        while folder != stop and stop in folder.parents:
            try:
                os.rmdir(folder)
            except OSError:
                break
            folder = folder.parent


def overlay(files: Mapping[str, bytes], target: Path, *, host: str, force: bool = False,
            dry_run: bool = False, progress: Callable[[str], None] | None = None) -> Plan:
    """Add and update acap's ``files`` in ``target`` beside a website, and remove the
    files acap published there before and no longer builds; nothing else is touched.

    Args:
        files: ``{path relative to the host root: bytes}``.
        target: the folder a web server serves as the host's root (it holds the
            website; it is made if it does not exist).
        host: the host the files are for (recorded beside the target).
        force: replace a file at one of acap's paths that acap did not put there.
        dry_run: only compute the :class:`Plan` (and refuse as without it).
        progress: called with one line of text per step.

    Returns:
        The :class:`Plan`: ``removed`` holds only files the record lists.

    Raises:
        ForeignFolder: without ``force``, a file acap did not put there would be
            replaced, or the folder was published by acap for another host; nothing
            was written.
        TargetRefused: a FIFO, device, link or folder at one of acap's paths or on
            the way to one; nothing was written.
        OSError: a write failed; every file is as it was, no temporary file is left.
    """
    say = progress or (lambda _m: None)
    target = target.absolute()
    kept = _KeptRecord(target)
    record = parse_record(kept.raw) if kept.raw is not None else None
    owned = record[1] if record is not None and record[0] == host.lower() else {}
    present = {rel: _present(target, rel) for rel in sorted(set(files) | set(owned))}
    sums = {rel: digest(data) if data is not None else None for rel, data in present.items()}
    new = {rel: digest(data) for rel, data in files.items()}
    judged = judged_record(record, host, sums)
    ours = judged[1] if judged is not None and judged[0] == host.lower() else set()
    plan = overlay_plan(new, sums, ours)
    edited = edited_paths(record, host, sums)
    problem = foreign_problem(str(target), host, plan, judged, overlay=True, edited=edited)
    if problem and not force:
        theirs, changed = not_ours(plan, judged, edited)
        raise ForeignFolder(problem, plan, host, overlay=True,
                            foreign=bool(theirs) or not changed, edited=bool(changed))
    if dry_run:
        return plan
    after: dict[str, str | None] = {p: new[p] for p in owned_after(plan, new, ours)}
    if plan.empty:
        if target.is_dir() and record != (host.lower(), after):
            _record_after(target, host, after, say)
        return plan
    new_target = not target.is_dir()
    target.mkdir(parents=True, exist_ok=True)
    created: list[Path] = []
    staged: list[tuple[str, Path]] = []
    done: list[str] = []
    try:
        # Recorded first with every file acap is about to write, as with a mirror (their
        # content unknown until they are in place); put back as it was on a failure.
        kept.keep()
        _write_marker(target, host.lower(), {**{p: owned[p] for p in ours},
                                             **dict.fromkeys(after)})
        writes = plan.added + plan.changed
        say(f"writing {count(len(writes), 'file')} beside the website")
        for rel in sorted(writes):
            dest = target / rel
            mode = os.lstat(dest).st_mode & 0o7777 if rel in plan.changed else 0o644
            staged.append((rel, _stage_file(dest, files[rel], mode, created)))
        for rel, tmp in staged:
            _rename(tmp, target / rel)
            done.append(rel)
    except BaseException:
        _undo(target, done, present, staged, created)
        kept.restore()
        if new_target:
            with contextlib.suppress(OSError):
                target.rmdir()
        raise
    kept.drop()
    gone: list[str] = []
    try:
        for rel in plan.removed:
            say(f"removing {rel} (acap published it; it is built no more)")
            os.unlink(target / rel)
            gone.append(rel)
    except BaseException:
        # acap's new files are in place; the files not yet removed stay acap's, with the
        # content acap knows they have.
        left = {rel: sums[rel] for rel in plan.removed if rel not in gone}
        _record_after(target, host, {**after, **left}, say)
        raise
    _remove_empty([(target / rel).parent for rel in plan.removed], target)
    _record_after(target, host, after, say)
    return plan


def _rename(tmp: Path, dest: Path) -> None:
    """Put a staged file in place (a seam for tests that interrupt an overlay)."""
    os.replace(tmp, dest)


def _undo(target: Path, done: list[str], present: Mapping[str, bytes | None],
          staged: list[tuple[str, Path]], created: list[Path]) -> None:
    """After a failed overlay: put back what was renamed into place, remove every
    temporary file and every folder made for the new files."""
    for rel in reversed(done):
        old = present.get(rel)
        try:
            if old is None:
                os.unlink(target / rel)
            else:
                mode = os.lstat(target / rel).st_mode & 0o7777
                back = _stage_file(target / rel, old, mode, [])
                os.replace(back, target / rel)
        except OSError:
            pass  # reported by the error that got us here; the record still lists it
    for _rel, tmp in staged:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
    _remove_empty(created, target)


class DirectoryPublisher:
    """A :class:`~acap.publisher._plan.Publisher` to a folder a web server serves: mirrored
    and swapped in atomically (:func:`mirror`), or acap's files added beside a website
    there (:func:`overlay`), with a record of what acap published beside it.

    Args:
        target: the directory served as the host's root.
        overlay: add acap's files beside a website there (:func:`overlay`) rather
            than make the folder hold exactly them (:func:`mirror`).
    """

    def __init__(self, target: Path, overlay: bool = False) -> None:
        self.target = target
        self.overlay = overlay

    def publish(self, files: Mapping[str, bytes], *, host: str, dry_run: bool, force: bool,
                progress: Callable[[str], None]) -> Published:
        """See :meth:`acap.publisher._plan.Publisher.publish`."""
        existed = self.target.is_dir()
        run = overlay if self.overlay else mirror
        plan = run(files, self.target, host=host, force=force, dry_run=dry_run,
                   progress=progress)
        return Published(plan, "dry run" if dry_run else
                         "up to date" if plan.empty and existed else "published")
