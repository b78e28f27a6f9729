"""A git branch as a publish target (GitHub Pages): :class:`BranchStore`.

Everything happens in a throw-away bare repository in a temporary folder, with its own
index file (``GIT_INDEX_FILE``): the user's working tree, index and repository are never
read or written. The branch's tip is fetched; the new tree is the tip's with acap's files
added, changed and removed (:func:`acap.publisher._engine.publish_host` decides which);
it becomes a new commit whose parent is the tip (history kept), pushed as a fast-forward
of that tip. git's own guarantees give "all or nothing": a refused or interrupted push
changes no ref on the remote. acap never force-pushes: its commit is always a child of
the tip it read, and the push names that tip as the one it replaces (git's
``--force-with-lease=<ref>:<tip>``, which on a fast-forward adds only that check), so a
branch someone pushed to, deleted or created after acap read it refuses the push and
nothing changes (``PUBLISH-CHANGED``): another tool's commit is never lost, nor ever
overwritten by a publish that did not see it.

acap's record of the publish (:class:`acap.site.PublishRecord`, signed) goes into the
commit's message (the trailer ``Published-record``, base64url): the record of a branch
is the one of the latest commit in its history that carries one, whoever committed on
top of it since.

git plumbing is driven through ``subprocess`` rather than a Python git library: the
commands used here (``hash-object``, ``update-index``, ``write-tree``, ``commit-tree``,
``push``) are git's stable scripting interface, and pushing to "any git remote URL"
needs git's own transports and credential helpers anyway. The tree, message, author,
committer and date are deterministic, so the same content gives the same commit.
"""

from __future__ import annotations

import base64
import contextlib
import os
import shutil
import stat
import subprocess
import tempfile
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from types import TracebackType

from acap._package import __version__
from acap.errors import FileRefused, GitError
from acap.load import Root, read_file, write_file
from acap.publisher._plan import TargetRefused
from acap.publisher._store import Leftover
from acap.site import MAX_DEPTH

#: Default branch GitHub Pages publishes from.
DEFAULT_BRANCH = "gh-pages"
#: The trailers of acap's commits.
TRAILER = "Published-by: acap"
HOST_TRAILER = "Published-host"
RECORD_TRAILER = "Published-record"
#: The identity of acap's commits (``.invalid`` is reserved by RFC 6761: no one's mail).
AUTHOR_NAME = "acap"
AUTHOR_EMAIL = "acap@publish.invalid"
#: The largest file acap reads on a branch (its own are a few kilobytes).
READ_LIMIT = 64 * 1024 * 1024
#: Environment variables that would point git at the user's repository; never passed on.
_GIT_LOCATION_VARS = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
                      "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_COMMON_DIR", "GIT_NAMESPACE",
                      "GIT_PREFIX", "GIT_CEILING_DIRECTORIES", "GIT_QUARANTINE_PATH")
#: The prefix of acap's temporary repositories (one removed by a publish cut by
#: ``kill -9`` is removed by the next).
_TEMP_PREFIX = "acap-publish-"


def commit_date(project_dir: Path | None) -> int:
    """The date of acap's commits, in seconds since the epoch (UTC).

    ``SOURCE_DATE_EPOCH`` when set (reproducible-builds.org); else the date of
    the last commit of the git repository holding the operator project (read
    only); else now. Unchanged content makes no commit whatever the date.
    """
    env = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if env.isdigit():
        return int(env)
    if project_dir is not None:
        try:
            out = subprocess.run(["git", "-C", str(project_dir), "log", "-1", "--format=%ct"],
                                 capture_output=True, text=True, timeout=10,
                                 env=_clean_env(), check=False)
            if out.returncode == 0 and out.stdout.strip().isdigit():
                return int(out.stdout.strip())
        except (OSError, subprocess.TimeoutExpired):
            pass
    return int(time.time())


def _clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in _GIT_LOCATION_VARS}


def _sweep_temp() -> None:
    """Remove acap's temporary repositories whose publish is gone (``kill -9``): folders
    of this user named ``acap-publish-*`` whose ``pid`` file names no running process."""
    base = Path(tempfile.gettempdir())
    for folder in base.glob(_TEMP_PREFIX + "*"):
        try:
            st = folder.lstat()
            if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid():
                continue
            pid = int(read_file(folder / "pid", Root(folder), 32))
            os.kill(pid, 0)
        except ProcessLookupError:
            shutil.rmtree(folder, ignore_errors=True)
        except (OSError, ValueError, FileRefused):
            continue


class _Repo:
    """A temporary bare repository with its own index; removed by :meth:`close`."""

    def __init__(self) -> None:
        _sweep_temp()
        self.tmp = Path(tempfile.mkdtemp(prefix=_TEMP_PREFIX))
        write_file(self.tmp / "pid", Root(self.tmp), str(os.getpid()).encode("ascii"))
        self.git_dir = self.tmp / "repo.git"
        self.env = _clean_env()
        self.env.update({"GIT_DIR": str(self.git_dir), "GIT_INDEX_FILE": str(self.tmp / "index"),
                         "GIT_CONFIG_NOSYSTEM": "1", "LC_ALL": "C"})
        self.run(["init", "-q", "--bare", str(self.git_dir)], what="create a temporary repository")

    def close(self) -> None:
        shutil.rmtree(self.tmp, ignore_errors=True)

    def run(self, args: list[str], *, what: str, stdin: bytes | None = None,
            cwd: Path | None = None, extra_env: Mapping[str, str] | None = None) -> str:
        return self.run_bytes(args, what=what, stdin=stdin, cwd=cwd,
                              extra_env=extra_env).decode("utf-8", "replace")

    def run_bytes(self, args: list[str], *, what: str, stdin: bytes | None = None,
                  cwd: Path | None = None, extra_env: Mapping[str, str] | None = None) -> bytes:
        env = {**self.env, **(extra_env or {})}
        try:
            # No hooks: a core.hooksPath in the user's global config must not run
            # (or veto) anything in acap's throw-away repository.
            proc = subprocess.run(["git", "-c", f"core.hooksPath={os.devnull}", *args],
                                  input=stdin, capture_output=True,
                                  cwd=cwd or self.tmp, env=env, check=False)
        except FileNotFoundError as exc:
            raise GitError("git is not installed (acap publishes to a branch with git)") from exc
        if proc.returncode != 0:
            raise GitError(f"could not {what}: git says:\n{_git_says(proc)}")
        return proc.stdout


def _git_says(proc: subprocess.CompletedProcess[bytes]) -> str:
    err = proc.stderr.decode("utf-8", "replace").strip()
    out = proc.stdout.decode("utf-8", "replace").strip()
    # ``push --porcelain`` puts the refused ref ("!  ... [remote rejected]") on stdout.
    refused = [ln for ln in out.splitlines() if ln.startswith("!")]
    msg = "\n".join(filter(None, [err, *refused])) or out or f"exit status {proc.returncode}"
    return "\n".join(line.rstrip() for line in msg.splitlines())


def check_branch_name(branch: str) -> str | None:
    """``None`` when ``branch`` is a valid branch name, else git's reason."""
    proc = subprocess.run(["git", "check-ref-format", "--branch", branch], capture_output=True,
                          text=True, env=_clean_env(), check=False)
    return None if proc.returncode == 0 else (proc.stderr.strip() or "not a valid branch name")


class BranchStore:
    """A :class:`~acap.publisher._store.Store` for ``branch`` at ``remote`` (see the module
    docstring).

    Args:
        remote: any URL or path git can push to (absolute when local).
        branch: the branch name (GitHub Pages: ``gh-pages``).
        host: the host published (named in the commit message).
        date: commit date in seconds since the epoch (:func:`commit_date`).
        shown: the remote as messages name it (credentials left out).
    """

    default_hosting = "github-pages"
    #: A branch stages nothing at the target: the push moves it all at once.
    staging = None

    def __init__(self, remote: str, branch: str, host: str, date: int | None = None,
                 shown: str | None = None) -> None:
        self.remote = remote
        self.branch = branch
        self.host = host.lower()
        self.date = date
        self.shown = shown or remote
        self.ref = f"refs/heads/{branch}"
        self.tip: str | None = None
        self.entries: dict[str, tuple[str, str]] = {}
        self.folders: set[str] = set()
        self._staged: dict[str, bytes] = {}
        self._removed: list[str] = []
        self._repo: _Repo | None = None

    @property
    def repo(self) -> _Repo:
        """The temporary repository (made on entering)."""
        assert self._repo is not None, "use BranchStore as a context manager"
        return self._repo

    def __enter__(self) -> BranchStore:
        self._repo = _Repo()
        try:
            self._fetch()
        except BaseException:
            self._repo.close()
            raise
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._repo is not None:
            self._repo.close()

    def _fetch(self) -> None:
        listing = self.repo.run(["ls-remote", "--", self.remote, self.ref],
                                what=f"read {self.shown}")
        if not any(line.partition("\t")[2] == self.ref for line in listing.splitlines()):
            return
        self.repo.run(["fetch", "-q", "--no-tags", "--", self.remote,
                       f"+{self.ref}:refs/acap/tip"], what=f"fetch {self.branch} from {self.shown}")
        self.tip = self.repo.run(["rev-parse", "refs/acap/tip"], what="read the tip").strip()
        tree = self.repo.run(["ls-tree", "-r", "-z", "--full-tree", self.tip],
                             what="list the branch tip")
        for entry in filter(None, tree.split("\0")):
            meta, _, path = entry.partition("\t")
            mode, _kind, sha = meta.split()
            self.entries[path] = (mode, sha)
            parts = path.split("/")
            self.folders.update("/".join(parts[:i]) for i in range(1, len(parts)))

    # -- reading ---------------------------------------------------------------------------

    def describe(self) -> str:
        """``branch gh-pages of <remote>``."""
        return f"branch {self.branch} of {self.shown}"

    def exists(self) -> bool:
        """Whether the branch is there."""
        return self.tip is not None

    def record(self) -> bytes | None:
        """The record of the latest commit in the tip's history that carries one."""
        if self.tip is None:
            return None
        last = self.repo.run(["rev-list", "-1", f"--grep=^{RECORD_TRAILER}: ", self.tip],
                             what="find acap's last record").strip()
        if not last:
            return None
        message = self.repo.run(["log", "-1", "--format=%B", last], what="read acap's record")
        for line in reversed(message.splitlines()):
            if line.startswith(RECORD_TRAILER + ": "):
                text = line.split(": ", 1)[1].strip()
                with contextlib.suppress(ValueError):
                    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
                return text.encode("utf-8", "replace")  # not base64url: not acap's record
        return None

    def top(self) -> list[str]:
        """The names at the branch's root."""
        return sorted({p.split("/")[0] for p in self.entries})

    def listing(self) -> list[str]:
        """Every path of the tip's tree (files, links, submodules).

        Raises:
            TargetRefused: a path deeper than :data:`acap.site.MAX_DEPTH`.
        """
        deep = next((p for p in self.entries if p.count("/") > MAX_DEPTH), None)
        if deep is not None:
            raise TargetRefused(f"{deep} on {self.describe()} lies more than {MAX_DEPTH} "
                                "folders deep: acap walks no deeper, and none of its files "
                                "lies there", "publish to a branch of its own")
        return sorted(self.entries)

    def read(self, rel: str) -> bytes | None:
        """The blob at ``rel``; ``None`` when absent.

        Raises:
            TargetRefused: a file (or link) of the branch where acap needs a folder, a
                folder where acap writes a file, a link or a submodule at ``rel``.
        """
        parts = rel.split("/")
        blocked = next(("/".join(parts[:i]) for i in range(1, len(parts))
                        if "/".join(parts[:i]) in self.entries), None)
        if blocked is not None:
            what = "a symbolic link: acap never writes through a link" \
                if self.entries[blocked][0] == "120000" else "a file where acap needs a folder"
            raise TargetRefused(f"{blocked} on the branch is {what} (for {rel})",
                                "rename it on the branch, or give acap's page another address")
        if rel in self.folders:
            raise TargetRefused(f"{rel} on the branch is a folder where acap writes a file",
                                "rename it on the branch")
        entry = self.entries.get(rel)
        if entry is None:
            return None
        mode, sha = entry
        if mode in ("120000", "160000"):
            what = "a symbolic link" if mode == "120000" else "a submodule"
            raise TargetRefused(f"{rel} on the branch is {what}: acap replaces only files",
                                "rename it on the branch, or publish to a branch of its own")
        size = int(self.repo.run(["cat-file", "-s", sha], what=f"read {rel}").strip())
        if size > READ_LIMIT:
            raise TargetRefused(f"{rel} on the branch is larger than any file acap writes: it "
                                "is not acap's", "rename it on the branch")
        return self.repo.run_bytes(["cat-file", "blob", sha], what=f"read {rel}")

    # -- writing ---------------------------------------------------------------------------

    def leftovers(self) -> list[Leftover]:
        """Nothing: an interrupted push leaves nothing at the remote (the temporary
        repository of a publish cut by ``kill -9`` is removed by the next one)."""
        return []

    def sweep(self, names: list[str]) -> None:
        """Nothing to remove (:meth:`leftovers`)."""

    def begin(self, intent: bytes, create: bool) -> None:
        """Nothing to do: the record goes out with the commit (and the branch with the
        push, when it is new)."""

    def stage(self, rel: str, data: bytes) -> None:
        """Keep ``data`` for the new tree."""
        if "\n" in rel:
            raise GitError(f"cannot publish a file named {rel!r}")
        self._staged[rel] = data

    def remove(self, rel: str) -> None:
        """Leave ``rel`` out of the new tree."""
        self._removed.append(rel)

    def commit(self, record: bytes, old: Mapping[str, bytes | None],
               say: Callable[[str], None]) -> str | None:
        """Make the new tree and commit (the record in its message), and push it as a
        fast-forward of the tip read, that tip named as the one it replaces: if the
        branch moved meanwhile (or was deleted, or made), git refuses and nothing
        changes (``PUBLISH-CHANGED``, see the module docstring)."""
        tree = self._tree()
        when = self.date if self.date is not None else commit_date(None)
        ident = {"GIT_AUTHOR_NAME": AUTHOR_NAME, "GIT_AUTHOR_EMAIL": AUTHOR_EMAIL,
                 "GIT_COMMITTER_NAME": AUTHOR_NAME, "GIT_COMMITTER_EMAIL": AUTHOR_EMAIL,
                 "GIT_AUTHOR_DATE": f"@{when} +0000", "GIT_COMMITTER_DATE": f"@{when} +0000"}
        text = base64.urlsafe_b64encode(record).rstrip(b"=").decode("ascii")
        msg = (f"Publish {self.host}\n\nBuilt and checked by acap {__version__}. acap's signed "
               "record of the files it put on this\nbranch is the last trailer.\n\n"
               f"{TRAILER}\n{HOST_TRAILER}: {self.host}\n{RECORD_TRAILER}: {text}\n")
        args = ["commit-tree", "--no-gpg-sign", tree, *(["-p", self.tip] if self.tip else [])]
        commit = self.repo.run(args, what="make the commit", stdin=msg.encode("utf-8"),
                               extra_env=ident).strip()
        say(f"pushing {commit[:12]} to {self.branch}")
        # The lease is the tip this publish read ("" for a branch that was not there):
        # acap's commit is its child, so the push is a fast-forward and the lease only
        # makes git refuse it when the branch is no longer at that tip.
        lease = f"--force-with-lease={self.ref}:{self.tip or ''}"
        try:
            self.repo.run(["push", "--porcelain", lease, "--", self.remote,
                           f"{commit}:{self.ref}"], what=f"push to {self.branch} at {self.shown}")
        except GitError:
            self._moved()
            raise
        return commit

    def _moved(self) -> None:
        """After a refused push: raise ``PUBLISH-CHANGED`` when the branch is no longer at
        the tip this publish read (else the push failed for another reason)."""
        try:
            listing = self.repo.run(["ls-remote", "--", self.remote, self.ref],
                                    what=f"read {self.shown}")
        except GitError:
            return
        now = next((line.partition("\t")[0] for line in listing.splitlines()
                    if line.partition("\t")[2] == self.ref), None)
        if now == self.tip:
            return
        was = f"at {self.tip[:12]}" if self.tip else "not there"
        became = f"it is at {now[:12]}" if now else "it was deleted"
        raise TargetRefused(
            f"{self.describe()} changed while acap was publishing (it was {was} when acap "
            f"read it; {became}: someone else pushed to it): acap never force-pushes, so its "
            "push was refused and the branch is as they left it",
            "run acap publish again: it reads the branch as it is now (a file acap published "
            "that their commit changed shows as changed since, any other as not acap's) and "
            "says what to do", "PUBLISH-CHANGED")

    def _tree(self) -> str:
        """The tip's tree with the staged files and removals."""
        stage = self.repo.tmp / "stage"
        names = sorted(self._staged)
        for i, rel in enumerate(names):
            write_file(stage / str(i), Root(stage), self._staged[rel])
        blobs = self.repo.run(["hash-object", "-w", "--no-filters", "--stdin-paths"],
                              what="store the files", cwd=stage,
                              stdin="".join(f"{i}\n" for i in range(len(names))).encode()
                              ).split() if names else []
        Path(self.repo.env["GIT_INDEX_FILE"]).unlink(missing_ok=True)
        if self.tip:
            self.repo.run(["read-tree", self.tip], what="read the branch's tree")
        changes = b"".join(f"100644 {sha}\t{rel}".encode() + b"\0"
                           for rel, sha in zip(names, blobs, strict=True))
        changes += b"".join(f"0 {'0' * 40}\t{rel}".encode() + b"\0" for rel in self._removed)
        if changes:
            self.repo.run(["update-index", "-z", "--add", "--remove", "--index-info"],
                          what="stage acap's files", stdin=changes)
        return self.repo.run(["write-tree"], what="write the tree").strip()

    def roll_back(self) -> None:
        """Nothing to undo: the remote changes only with the push, all at once."""

    def write_record(self, record: bytes) -> bool:
        """A branch keeps its record only with a commit: ``False``."""
        return False
