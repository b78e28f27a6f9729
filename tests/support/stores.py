"""One publish target of each kind, for the suite that runs the same publish tests on
every store (issue 20): a folder on this machine, a folder on Debian's OpenSSH server
over SFTP, and a branch of a git repository. Each :class:`Harness` plants what others
might leave at its target (a website, a record, a link, deep folders) and reads back
what the target serves, so that a test says the same thing of every store.
"""

from __future__ import annotations

import base64
import contextlib
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acap.publisher import PublishOptions
from support.publishing import bare_repo, branch_tip, change, git, tree_files, trial
from support.servers import Sshd

#: The practice's website: what every test keeps byte for byte.
WEBSITE = {"index.html": b"<!doctype html><title>Praxis</title><p>Willkommen</p>\n",
           "impressum.html": b"<!doctype html><title>Impressum</title>\n",
           "blog/post.html": b"<!doctype html><title>Neu</title>\n",
           "css/site.css": b"body { font-family: serif }\n"}
STORES = ("dir", "sftp", "branch")


def files_under(folder: Path) -> dict[str, bytes]:
    """``{relative path: bytes}`` of every file under ``folder``, walked without recursion
    (a tree thousands of folders deep is one of the cases); links not followed."""
    out: dict[str, bytes] = {}
    stack = [folder] if folder.is_dir() else []
    while stack:
        here = stack.pop()
        with os.scandir(here) as it:
            for e in it:
                if e.is_dir(follow_symlinks=False):
                    stack.append(Path(e.path))
                elif e.is_file(follow_symlinks=False):
                    out[Path(e.path).relative_to(folder).as_posix()] = Path(e.path).read_bytes()
    return dict(sorted(out.items()))


@dataclass
class Harness:
    """One target of ``kind`` for the project ``config`` (see the module docstring).

    Attributes:
        kind: ``"dir"``, ``"sftp"`` or ``"branch"``.
        config: operator.yaml of the project.
        root: the served folder (``dir``, ``sftp``) or the bare repository (``branch``).
        server: the sshd (``sftp``).
    """

    kind: str
    config: Path
    root: Path
    server: Sshd | None = None
    work: Path = field(init=False)

    def __post_init__(self) -> None:
        self.work = self.root.parent / f"{self.root.name}-clone"
        if self.kind == "sftp":
            assert self.server is not None
            self.configure_sftp(self.config)
        if self.kind == "dir":
            change(self.config, lambda d: d["hosts"]["example.com"].__setitem__(
                "publish", {"dir": str(self.root)}))
        if self.kind == "branch" and not self.root.exists():
            bare_repo(self.root)

    # -- where ---------------------------------------------------------------------------

    def configure_sftp(self, config: Path) -> None:
        """Set hosts.example.com.publish.sftp of ``config`` to this folder."""
        s = self.server
        assert s is not None
        settings = {"host": "127.0.0.1", "port": s.port, "user": s.user,
                    "path": str(self.root), "knownHosts": str(s.known_hosts),
                    "key": str(s.key)}
        change(config, lambda d: d["hosts"]["example.com"].__setitem__("publish",
                                                                       {"sftp": settings}))

    def options(self, **more: Any) -> PublishOptions:
        """:func:`support.publishing.trial` options publishing example.com here."""
        where: dict[str, Any] = {"branch": {"remote": str(self.root)}}.get(
            self.kind, {"hosts": ("example.com",)})
        return trial(config=self.config, **{**where, **more})

    def describe(self) -> str:
        """The target as acap's messages name it."""
        if self.kind == "dir":
            return f"directory {self.root}"
        if self.kind == "branch":
            return f"branch gh-pages of {self.root}"
        assert self.server is not None
        return f"sftp://{self.server.user}@127.0.0.1:{self.server.port}{self.root}"

    # -- what is there ---------------------------------------------------------------------

    def served(self) -> dict[str, bytes]:
        """Every file the target holds (a branch's tip tree)."""
        if self.kind == "branch":
            return tree_files(self.root, "gh-pages") if branch_tip(self.root) else {}
        return files_under(self.root)

    def exists(self) -> bool:
        """Whether the target is there."""
        return branch_tip(self.root) is not None if self.kind == "branch" \
            else self.root.exists()

    def record_file(self) -> Path:
        """Where the record of a folder lies."""
        return self.root.parent / f".{self.root.name}.acap-published.json"

    def record(self) -> bytes | None:
        """The record at the target as it is."""
        if self.kind != "branch":
            return self.record_file().read_bytes() if self.record_file().exists() else None
        if branch_tip(self.root) is None:
            return None
        for line in git("log", "-1", "--format=%B", "gh-pages", cwd=self.root).splitlines():
            if line.startswith("Published-record: "):
                text = line.split(": ", 1)[1]
                return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        return None

    # -- what others leave there -------------------------------------------------------------

    def put(self, files: dict[str, bytes], message: str = "the website") -> None:
        """Files written there by someone else (the website, a hand edit)."""
        if self.kind != "branch":
            for rel, data in files.items():
                (self.root / rel).parent.mkdir(parents=True, exist_ok=True)
                (self.root / rel).write_bytes(data)
            return
        self._sync()
        for rel, data in files.items():
            (self.work / rel).parent.mkdir(parents=True, exist_ok=True)
            (self.work / rel).write_bytes(data)
        self._commit(message)

    def website(self) -> None:
        """The practice's website (:data:`WEBSITE`)."""
        self.put(WEBSITE)

    def put_record(self, raw: bytes) -> None:
        """A record planted by someone else, or acap's own edited."""
        if self.kind != "branch":
            self.record_file().write_bytes(raw)
            return
        self._sync()
        text = base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")
        self._commit(f"Publish example.com\n\nPublished-by: acap\nPublished-record: {text}",
                     allow_empty=True)

    def drop_record(self) -> None:
        """The record deleted: the file beside a folder; on a branch, a history rewritten
        without acap's commits (the same tree, one commit of someone else's)."""
        if self.kind != "branch":
            self.record_file().unlink()
            return
        tree = git("rev-parse", "gh-pages^{tree}", cwd=self.root).strip()
        commit = git("commit-tree", tree, "-m", "squashed", cwd=self.root).strip()
        git("update-ref", "refs/heads/gh-pages", commit, cwd=self.root)

    def link_on_acaps_way(self, elsewhere: Path) -> None:
        """A symbolic link standing where acap reads: the record of a folder (pointing to
        a record in ``elsewhere``); on a branch, ``.well-known`` itself."""
        if self.kind != "branch":
            target = elsewhere / "record.json"
            if self.record_file().exists():
                shutil.copyfile(self.record_file(), target)
                self.record_file().unlink()
            os.symlink(target, self.record_file())
            return
        self._sync()
        shutil.rmtree(self.work / ".well-known", ignore_errors=True)
        (self.work / ".well-known").symlink_to(elsewhere)
        self._commit("a link")

    def nest(self, depth: int) -> Path:
        """A file ``depth`` folders down (made one folder at a time: ``mkdir -p`` recurses
        in Python); returns its relative path."""
        rel = Path(*(["d"] * depth)) / "deep.txt"
        if self.kind == "branch":
            self._sync()
        base = self.work if self.kind == "branch" else self.root
        here = str(base)
        for _ in range(depth):
            here += "/d"
            os.makedirs(here) if not os.path.isdir(here) else None
        Path(here, "deep.txt").write_bytes(b"deep\n")
        if self.kind == "branch":
            self._commit("deep folders")
        return rel

    def unnest(self) -> None:
        """Remove what :meth:`nest` made, one folder at a time (``rmtree`` recurses)."""
        for base in (self.root, self.work):
            deepest = str(base / "d")
            if not os.path.isdir(deepest):
                continue
            while os.path.isdir(deepest + "/d"):
                deepest += "/d"
            with contextlib.suppress(FileNotFoundError):
                os.unlink(deepest + "/deep.txt")
            while deepest != str(base):
                os.rmdir(deepest)
                deepest = os.path.dirname(deepest)

    def _sync(self) -> None:
        if not self.work.exists():
            git("init", "-q", "-b", "gh-pages", str(self.work))
        if branch_tip(self.root):
            git("fetch", "-q", str(self.root), "gh-pages", cwd=self.work)
            git("reset", "-q", "--hard", "FETCH_HEAD", cwd=self.work)

    def _commit(self, message: str, allow_empty: bool = False) -> None:
        git("add", "-A", cwd=self.work)
        git("commit", "-q", *(["--allow-empty"] if allow_empty else []), "-m", message,
            cwd=self.work)
        git("push", "-q", "-f", str(self.root), "HEAD:gh-pages", cwd=self.work)

    def delete(self, rel: str, message: str = "a page removed") -> None:
        """A file removed by someone else."""
        if self.kind != "branch":
            (self.root / rel).unlink()
            return
        self._sync()
        (self.work / rel).unlink()
        self._commit(message)
