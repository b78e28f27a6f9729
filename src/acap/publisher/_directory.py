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
``/srv/www`` that is ``/srv/.www.acap-published.json``): the host and the
paths of the files acap put there. Any other file the mirror would delete or
replace (a hand-made site, files someone added, a folder acap published for
another host) needs ``force``; without it :func:`mirror` raises
:class:`ForeignFolder` and changes nothing. The record lies outside the
target so that a web server serving the target never serves it; it holds
nothing private anyway (a host name, acap's version and paths that are
public once published), and no key material ever.
"""

from __future__ import annotations

import ctypes
import errno
import hashlib
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path

from acap._package import __version__
from acap.publisher._plan import ForeignFiles, Plan, Published, diff

_AT_FDCWD = -100
_RENAME_EXCHANGE = 2
#: Suffix of the record of a publish, kept beside the target (see the module docstring).
MARKER_SUFFIX = ".acap-published.json"


class ForeignFolder(ForeignFiles):
    """The target holds files acap did not publish there (for this host), and the
    mirror would delete or replace them. ``str()`` names the files; ``plan`` is
    what the mirror would have done."""

    def __init__(self, message: str, plan: Plan, host: str) -> None:
        super().__init__(message, plan, f"give the folder your web server serves for {host}; "
                         "if these files may go, acap publish --force deletes them (a folder "
                         "keeps no history: copy them first)")


def marker_path(target: Path) -> Path:
    """Where the record of acap's publish into ``target`` lives: beside it, outside
    the served tree (``/srv/www`` -> ``/srv/.www.acap-published.json``)."""
    target = target.absolute()
    return target.parent / f".{target.name}{MARKER_SUFFIX}"


def read_marker(target: Path) -> tuple[str, set[str]] | None:
    """``(host, {paths acap published})`` from the record beside ``target``;
    ``None`` when there is none or it is not acap's record."""
    try:
        data = json.loads(marker_path(target).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not (isinstance(data, dict) and data.get("publishedBy") == "acap"
            and isinstance(data.get("host"), str) and isinstance(data.get("files"), list)):
        return None
    return data["host"].lower(), {f for f in data["files"] if isinstance(f, str)}


def _write_marker(target: Path, host: str, files: list[str]) -> None:
    """Write the record atomically (a temporary file renamed over it)."""
    path = marker_path(target)
    doc = {"publishedBy": "acap", "acap": __version__, "host": host, "files": sorted(files)}
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _names(paths: list[str]) -> str:
    return ", ".join(paths[:10]) + (" ..." if len(paths) > 10 else "")


def foreign_problem(target: Path, host: str, plan: Plan) -> str | None:
    """Why mirroring ``host`` into ``target`` needs ``force``, or ``None``.

    The target's files that the mirror would delete or replace must all be
    listed in the record of an earlier acap publish of the same host.
    """
    lost = sorted(plan.changed + plan.removed)
    record = read_marker(target)
    if record is not None and record[0] != host.lower() and (lost or plan.unchanged):
        return (f"{target} was published by acap for {record[0]}, not {host}: publishing "
                f"would delete or replace its {len(lost)} file(s): {_names(lost)}"
                if lost else f"{target} was published by acap for {record[0]}, not {host}")
    ours = record[1] if record is not None else set()
    foreign = [p for p in lost if p not in ours]
    if foreign:
        return (f"{target} holds {len(foreign)} file(s) that acap did not publish there, and "
                f"publishing {host} would delete or replace them: {_names(foreign)}")
    return None


def read_tree(root: Path) -> dict[str, str]:
    """``{relative path: sha256 hex}`` of every regular file under ``root`` (``{}`` if absent)."""
    out: dict[str, str] = {}
    if not root.is_dir():
        return out
    for dirpath, _dirs, names in os.walk(root):
        for name in names:
            p = Path(dirpath) / name
            out[p.relative_to(root).as_posix()] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def plan_mirror(files: Mapping[str, bytes], target: Path) -> Plan:
    """What mirroring ``files`` into ``target`` would add, change and remove."""
    new = {rel: hashlib.sha256(data).hexdigest() for rel, data in files.items()}
    return diff(read_tree(target), new)


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
        OSError: the copy or the swap failed; ``target`` is as it was and no
            temporary folder is left behind.
    """
    say = progress or (lambda _m: None)
    target = target.absolute()
    plan = plan_mirror(files, target)
    problem = foreign_problem(target, host, plan)
    if problem and not force:
        raise ForeignFolder(problem, plan, host)
    if dry_run:
        return plan
    record = read_marker(target)
    if plan.empty and target.is_dir():
        if record != (host.lower(), set(files)):
            _record_after(target, host, sorted(files), say)
        return plan
    target.parent.mkdir(parents=True, exist_ok=True)
    # Recorded before the swap with the files of both trees, so that whatever
    # happens next, the record never leaves out a file acap put there.
    earlier = record[1] if record is not None and record[0] == host.lower() else set()
    _write_marker(target, host.lower(), sorted(earlier | set(files)))
    stage = Path(tempfile.mkdtemp(prefix=f".{target.name}.acap-new-", dir=target.parent))
    try:
        say(f"copying {len(files)} files")
        for rel in sorted(files):
            _write_file(stage / rel, files[rel])
        mode = target.stat().st_mode & 0o7777 if target.is_dir() else 0o755
        os.chmod(stage, mode)
        say(f"swapping the new tree into {target}")
        leftover = _swap_in(stage, target)
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise
    if leftover is not None:
        shutil.rmtree(leftover, ignore_errors=True)
    _record_after(target, host, sorted(files), say)
    return plan


def _record_after(target: Path, host: str, files: list[str],
                  say: Callable[[str], None]) -> None:
    """Record exactly the published files. The tree is already in place: a failure
    here is only reported (the record written before the swap still covers them)."""
    try:
        _write_marker(target, host.lower(), files)
    except OSError as exc:
        say(f"could not update {marker_path(target)}: {exc}")


class DirectoryPublisher:
    """A :class:`~acap.publisher._plan.Publisher` to a folder a web server serves: mirrored
    and swapped in atomically, with a record of what acap published beside it
    (:func:`mirror`).

    Args:
        target: the directory served as the host's root.
    """

    def __init__(self, target: Path) -> None:
        self.target = target

    def publish(self, files: Mapping[str, bytes], *, host: str, dry_run: bool, force: bool,
                progress: Callable[[str], None]) -> Published:
        """See :meth:`acap.publisher._plan.Publisher.publish`."""
        existed = self.target.is_dir()
        plan = mirror(files, self.target, host=host, force=force, dry_run=dry_run,
                      progress=progress)
        return Published(plan, "dry run" if dry_run else
                         "up to date" if plan.empty and existed else "published")
