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
"""

from __future__ import annotations

import ctypes
import errno
import hashlib
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path

from .git_pages import Plan, diff

_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


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


def mirror(files: Mapping[str, bytes], target: Path, *, dry_run: bool = False,
           progress: Callable[[str], None] | None = None) -> Plan:
    """Make ``target`` hold exactly ``files``, atomically.

    Args:
        files: ``{path relative to the host root: bytes}``.
        target: the directory a web server serves as the host's root.
        dry_run: only compute the :class:`Plan`.
        progress: called with one line of text per step.

    Returns:
        The :class:`Plan`; when it is empty and the target exists, nothing is
        written.

    Raises:
        OSError: the copy or the swap failed; ``target`` is as it was and no
            temporary folder is left behind.
    """
    say = progress or (lambda _m: None)
    target = target.absolute()
    plan = plan_mirror(files, target)
    if dry_run or (plan.empty and target.is_dir()):
        return plan
    target.parent.mkdir(parents=True, exist_ok=True)
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
    return plan
