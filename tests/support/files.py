"""Hostile files, as an attacker plants them in a project, a cloned repository or a tenant's
folder: a symbolic link at the last part or at a middle part of a path, leading out of the
command's folder or staying inside it, a FIFO, a device, and a hard link to a file
outside the project. Every command that reads or writes a file a user gave or a project
holds is tried with each (issue 22), and each test asserts the finding and that nothing
outside was read, served or changed (:class:`Outside`).
"""

from __future__ import annotations

import os
import stat
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")

#: Every form :func:`plant` makes.
FORMS = ["link-last-out", "link-last-in", "link-middle-out", "link-middle-in", "fifo", "device",
         "hard-link-out"]
#: The forms that lead out of the root or are no regular file: refused by every command.
REFUSED = ["link-last-out", "link-middle-out", "fifo", "device", "hard-link-out"]
#: What no file inside a project holds: found in an output, it came from outside.
SECRET = b"OUTSIDE-SECRET-7f3a9c"


@dataclass
class Outside:
    """A folder outside the project holding files an attacker wants read or changed,
    each with :data:`SECRET` in it; :meth:`unchanged` says none was touched."""

    folder: Path
    before: dict[str, tuple[bytes, int]] = field(default_factory=dict)

    def add(self, name: str, content: bytes) -> Path:
        """A file ``name`` holding ``content`` and :data:`SECRET` (after a newline, as
        a comment in YAML, PEM or text)."""
        path = self.folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content + b"\n# " + SECRET + b"\n")
        self.snapshot()
        return path

    def snapshot(self) -> None:
        self.before = self.state()

    def state(self) -> dict[str, tuple[bytes, int]]:
        out = {}
        for p in sorted(self.folder.rglob("*")):
            if p.is_file() and not p.is_symlink():
                st = p.stat()
                out[p.relative_to(self.folder).as_posix()] = (p.read_bytes(), st.st_mtime_ns)
        return out

    def unchanged(self) -> bool:
        """Every file as it was (bytes and modification time), none added or removed."""
        return self.state() == self.before


def outside(tmp_path: Path) -> Outside:
    """A folder beside ``tmp_path`` (a test's project may be ``tmp_path`` itself), in
    pytest's temporary folder, made empty."""
    folder = tmp_path.parent / f"{tmp_path.name}-outside"
    folder.mkdir(exist_ok=True)
    return Outside(folder)


def plant(path: Path, form: str, out: Outside, content: bytes = b"hello") -> None:
    """Make the file at ``path`` (inside its root; its parent folder is inside the root
    too, for the middle forms) hostile as ``form`` says. A form that stays inside the
    root leads to a regular file holding ``content``; one that leads out reaches a file
    of ``out`` holding ``content`` and :data:`SECRET`.

    Forms: ``link-last-out`` (``path`` is a link to a file outside), ``link-last-in``
    (a link to a file beside it), ``link-middle-out`` (its folder is a link to a folder
    outside holding a file of that name), ``link-middle-in`` (its folder is a link to
    another folder inside), ``fifo``, ``device`` (``/dev/zero``: made with ``mknod``
    where this process may, else a link to it), ``hard-link-out`` (another name of a
    file outside).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    if form == "link-last-out":
        path.symlink_to(out.add(path.name, content))
    elif form == "link-last-in":
        real = path.with_name("real-" + path.name)
        real.write_bytes(content)
        path.symlink_to(real.name)
    elif form in ("link-middle-out", "link-middle-in"):
        folder = path.parent
        if form == "link-middle-out":
            target = out.add(f"{folder.name}/{path.name}", content).parent
        else:
            target = folder.with_name("real-" + folder.name)
            target.mkdir()
            (target / path.name).write_bytes(content)
        for child in list(folder.iterdir()):  # whatever was there moves along
            os.rename(child, target / child.name)
        folder.rmdir()
        folder.symlink_to(target if form == "link-middle-out" else target.name)
    elif form == "fifo":
        os.mkfifo(path)
    elif form == "device":
        try:
            os.mknod(path, stat.S_IFCHR | 0o644, os.makedev(1, 5))  # /dev/zero
        except PermissionError:
            path.symlink_to("/dev/zero")
    elif form == "hard-link-out":
        os.link(out.add(path.name, content), path)
    else:
        raise ValueError(form)
    out.snapshot()


def ends(fn: Callable[[], T], seconds: float = 120) -> T:
    """``fn()``, run in a thread that must end within ``seconds``: a FIFO waited on or a
    device read without end fails the test instead of hanging it."""
    done: list[T] = []
    failed: list[BaseException] = []

    def run() -> None:
        try:
            done.append(fn())
        except BaseException as exc:  # handed to the test
            failed.append(exc)

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(seconds)
    assert not t.is_alive(), "it waited on a FIFO or read a device without end"
    if failed:
        raise failed[0]
    return done[0]
