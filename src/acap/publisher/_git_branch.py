"""Publishing one host folder as a new commit on a git branch (GitHub Pages).

Everything happens in a throw-away bare repository in a temporary folder, with
its own index file (``GIT_INDEX_FILE``): the user's working tree, index and
repository are never read or written. The branch's current tip is fetched
from the remote, the host folder becomes the tree of a new commit whose parent
is that tip (history kept), and the commit is pushed as a fast-forward. git's
own guarantees then give "all or nothing": a refused push changes no ref on
the remote.

git plumbing is driven through ``subprocess`` rather than a Python git
library: the commands used here (``hash-object``, ``update-index``,
``write-tree``, ``commit-tree``, ``push``) are git's stable scripting
interface, and pushing to "any git remote URL" needs git's own transports and
credential helpers anyway.

The tree, message, author, committer and date are deterministic, so the same
content gives the same tree, and unchanged content makes no commit at all.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import yaml

from acap._package import __version__
from acap.errors import GitError
from acap.publisher import _plan
from acap.publisher._plan import (
    ForeignFiles,
    Plan,
    Published,
    TargetRefused,
    diff,
    is_own_path,
    overlay_plan,
    owned_after,
    still_ours,
)

#: Default branch GitHub Pages publishes from.
DEFAULT_BRANCH = "gh-pages"
#: Trailer acap writes in every commit it makes; tells acap's own commits apart.
TRAILER = "Published-by: acap"
#: Trailer naming the host a commit publishes (``Published-host: example.com``): acap
#: never replaces one host's site with another's without ``--force``.
HOST_TRAILER = "Published-host"
#: Trailer listing, as a JSON array, the files acap owns on a branch it shares with a
#: website (overlay): the record of what it may update and remove there.
FILES_TRAILER = "Published-files"
#: What a GitHub Pages branch needs so that ``.well-known`` is served (no Jekyll run).
NOJEKYLL = ".nojekyll"
#: The identity of acap's commits (``.invalid`` is reserved by RFC 6761: no one's mail).
AUTHOR_NAME = "acap"
AUTHOR_EMAIL = "acap@publish.invalid"
#: Environment variables that would point git at the user's repository; never passed on.
_GIT_LOCATION_VARS = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
                      "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_COMMON_DIR", "GIT_NAMESPACE",
                      "GIT_PREFIX", "GIT_CEILING_DIRECTORIES", "GIT_QUARANTINE_PATH")


@dataclass
class PagesOutcome:
    """What :func:`publish_branch` did.

    Attributes:
        plan: the difference between the branch tip and the new tree.
        previous: the branch tip before (``None`` for a new branch).
        commit: the new commit, ``None`` when none was made (up to date, dry run).
        pushed: whether the remote branch now points at ``commit``.
        foreign: the tip was not made by acap (its files were someone else's).
        host: the host acap's tip published (``None``: a new branch, a tip that is
            not acap's, or one that does not say).
    """

    plan: Plan
    previous: str | None
    commit: str | None = None
    pushed: bool = False
    foreign: bool = False
    host: str | None = None


class ForeignContent(ForeignFiles):
    """The branch holds files acap did not publish (or published for another host), and
    publishing would replace or remove them.

    Attributes:
        outcome: what publishing found (the plan, the tip, the host acap's tip names).
    """

    def __init__(self, message: str, outcome: PagesOutcome, host: str,
                 overlay: bool = False) -> None:
        other = outcome.host
        hint = (f"one branch serves one host: publish {host} to a branch or repository of its "
                f"own; acap publish --force replaces {other}'s site (it stays in the branch's "
                "history)" if other and other != host.lower() else
                "these files are not acap's: rename or move them on the branch, or acap "
                "publish --force replaces them (they stay in the branch's history)" if overlay
                else f"if your website lives on this branch, set hosts: {host}: overlay: true "
                "in operator.yaml: acap then adds its files beside it and changes nothing "
                "else; acap publish --force replaces these files (they stay in the branch's "
                "history)")
        super().__init__(message, outcome.plan, hint)
        self.outcome = outcome


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


class _Repo:
    """A temporary bare repository with its own index; removed by :meth:`close`."""

    def __init__(self) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="acap-publish-"))
        self.git_dir = self.tmp / "repo.git"
        self.env = _clean_env()
        self.env.update({"GIT_DIR": str(self.git_dir), "GIT_INDEX_FILE": str(self.tmp / "index"),
                         "GIT_CONFIG_NOSYSTEM": "1", "LC_ALL": "C"})
        self.run(["init", "-q", "--bare", str(self.git_dir)], what="create a temporary repository")

    def close(self) -> None:
        shutil.rmtree(self.tmp, ignore_errors=True)

    def run(self, args: list[str], *, what: str, stdin: bytes | None = None,
            cwd: Path | None = None, extra_env: Mapping[str, str] | None = None) -> str:
        env = dict(self.env)
        if extra_env:
            env.update(extra_env)
        try:
            # No hooks: a core.hooksPath in the user's global config must not run
            # (or veto) anything in acap's throw-away repository.
            proc = subprocess.run(["git", "-c", f"core.hooksPath={os.devnull}", *args],
                                  input=stdin, capture_output=True,
                                  cwd=cwd or self.tmp, env=env, check=False)
        except FileNotFoundError as exc:
            raise GitError("git is not installed (acap publishes to a branch with git)") from exc
        if proc.returncode != 0:
            err = proc.stderr.decode("utf-8", "replace").strip()
            out = proc.stdout.decode("utf-8", "replace").strip()
            # ``push --porcelain`` puts the refused ref ("!  ... [remote rejected]") on stdout.
            refused = [ln for ln in out.splitlines() if ln.startswith("!")]
            msg = "\n".join(filter(None, [err, *refused])) or out \
                or f"exit status {proc.returncode}"
            msg = "\n".join(line.rstrip() for line in msg.splitlines())
            raise GitError(f"could not {what}: git says:\n{msg}")
        return proc.stdout.decode("utf-8", "replace")


def check_branch_name(branch: str) -> str | None:
    """``None`` when ``branch`` is a valid branch name, else git's reason."""
    proc = subprocess.run(["git", "check-ref-format", "--branch", branch], capture_output=True,
                          text=True, env=_clean_env(), check=False)
    return None if proc.returncode == 0 else (proc.stderr.strip() or "not a valid branch name")


def publish_branch(files: Mapping[str, bytes], remote: str, branch: str, *, host: str,
                   dry_run: bool = False, force: bool = False, date: int | None = None,
                   progress: Callable[[str], None] | None = None,
                   overlay: bool = False) -> PagesOutcome:
    """Make ``files`` the tree of a new commit on ``branch`` at ``remote`` and push it.

    Args:
        files: ``{path relative to the host root: bytes}``; every file is a
            regular file (mode 100644), dotfiles included.
        remote: any URL or path git can push to (absolute when local).
        branch: the branch name (GitHub Pages: ``gh-pages``).
        host: the host the files are for (in the commit message).
        dry_run: stop after computing the :class:`Plan`; nothing is pushed.
        force: allow replacing or removing files that acap did not publish (a
            tip without acap's trailer), or a tip acap made for another host
            (its ``Published-host`` trailer). History is kept even then: the
            commit's parent is the tip, and the push is a fast-forward.
        date: commit date (seconds since the epoch); see :func:`commit_date`.
        progress: called with one line of text per step.
        overlay: the branch holds the operator's own website: the new tree is the
            tip's with acap's files added or updated and the files acap published
            there before and no longer builds removed (:func:`_overlay_tree`); every
            other entry of the tip stays as it is.

    Returns:
        A :class:`PagesOutcome`. Unchanged content makes no commit.

    Raises:
        ForeignContent: without ``force``: the tip is not acap's and files would
            be replaced or removed (with ``overlay``: a file at one of acap's paths
            that acap did not put there would be replaced), or acap's last commit
            there is for another host.
        TargetRefused: with ``overlay``, a file of the branch stands where acap needs a
            folder (or the reverse), or the branch's site is built by Jekyll and would
            not serve ``.well-known``.
        GitError: git failed (unreachable remote, push refused ...); the
            remote and every local repository are unchanged. The message
            carries git's own.
    """
    say = progress or (lambda _m: None)
    repo = _Repo()
    try:
        ref = f"refs/heads/{branch}"
        say(f"reading {branch} at {remote}")
        listing = repo.run(["ls-remote", "--", remote, ref], what=f"read {remote}")
        tip = None
        for line in listing.splitlines():
            sha, _, name = line.partition("\t")
            if name == ref:
                tip = sha
        old: dict[str, str] = {}
        foreign = False
        tip_host: str | None = None
        if tip:
            repo.run(["fetch", "-q", "--no-tags", "--", remote, f"+{ref}:refs/acap/tip"],
                     what=f"fetch {branch} from {remote}")
            tip = repo.run(["rev-parse", "refs/acap/tip"], what="read the branch tip").strip()
            listing = repo.run(["ls-tree", "-r", "-z", "--full-tree", tip],
                               what="list the branch tip")
            for entry in filter(None, listing.split("\0")):
                meta, _, path = entry.partition("\t")
                old[path] = meta
            message = repo.run(["log", "-1", "--format=%B", tip], what="read the tip's message")
            foreign = TRAILER not in message
            if not foreign:
                tip_host = _published_host(repo, tip, message, "CNAME" in old)
        owned: set[str] = set()
        if overlay and tip:
            tip_host, recorded = _acap_record(repo, tip)
            owned = still_ours(old, recorded)
            files = _jekyll_ready(repo, tip, old, files, branch)
        if overlay:
            new_tree, plan = _overlay_tree(repo, tip, old, files, owned)
            foreign = bool(set(plan.changed) - owned)
        else:
            new_tree, new = _write_tree(repo, files)
            plan = diff(old, new)
        outcome = PagesOutcome(plan, tip, foreign=foreign, host=tip_host)
        lost = plan.changed + plan.removed
        if tip_host is not None and tip_host != host.lower() and not force:
            raise ForeignContent(
                f"{branch} at {remote} was published by acap for {tip_host}, not {host}"
                + (f": publishing would replace or remove {len(lost)} of its files: "
                   + ", ".join(sorted(lost)[:10]) + (" ..." if len(lost) > 10 else "")
                   if lost else ""), outcome, host)
        if tip and plan.empty:
            say("up to date: no new commit")
            return outcome
        if overlay and foreign and not force:
            theirs = sorted(set(plan.changed) - owned)
            raise ForeignContent(
                f"{branch} at {remote} holds {_plan.count(len(theirs), 'file')} at acap's paths "
                "that acap did not publish, and publishing would replace them: "
                + ", ".join(theirs[:10]) + (" ..." if len(theirs) > 10 else ""),
                outcome, host, overlay=True)
        if not overlay and foreign and lost and not force:
            raise ForeignContent(
                f"{branch} at {remote} holds {_plan.count(len(lost), 'file')} that acap did not "
                f"publish, and publishing would replace or remove them: "
                + ", ".join(sorted(lost)[:10]) + (" ..." if len(lost) > 10 else ""),
                outcome, host)
        if dry_run:
            return outcome
        when = date if date is not None else commit_date(None)
        ident = {"GIT_AUTHOR_NAME": AUTHOR_NAME, "GIT_AUTHOR_EMAIL": AUTHOR_EMAIL,
                 "GIT_COMMITTER_NAME": AUTHOR_NAME, "GIT_COMMITTER_EMAIL": AUTHOR_EMAIL,
                 "GIT_AUTHOR_DATE": f"@{when} +0000", "GIT_COMMITTER_DATE": f"@{when} +0000"}
        msg = (f"Publish {host}\n\nBuilt and checked by acap {__version__}.\n\n{TRAILER}\n"
               f"{HOST_TRAILER}: {host.lower()}\n")
        if overlay:
            mine = owned_after(plan, files, owned)
            msg = (f"Publish {host}\n\nBuilt and checked by acap {__version__}. acap adds its "
                   "files beside the website on this\nbranch; it changes no other file.\n\n"
                   f"{TRAILER}\n{HOST_TRAILER}: {host.lower()}\n"
                   f"{FILES_TRAILER}: {json.dumps(sorted(mine), ensure_ascii=False)}\n")
        args = ["commit-tree", "--no-gpg-sign", new_tree]
        if tip:
            args += ["-p", tip]
        commit = repo.run(args, what="make the commit", stdin=msg.encode("utf-8"),
                          extra_env=ident).strip()
        outcome.commit = commit
        say(f"pushing {commit[:12]} to {branch}")
        # A plain push: a fast-forward from the tip we read. If the branch moved
        # meanwhile, git refuses and nothing changes; acap never force-pushes.
        repo.run(["push", "--porcelain", "--", remote, f"{commit}:{ref}"],
                 what=f"push to {branch} at {remote}")
        outcome.pushed = True
        return outcome
    finally:
        repo.close()


def _published_host(repo: _Repo, tip: str, message: str, has_cname: bool) -> str | None:
    """The host an acap commit published: its ``Published-host`` trailer (read with
    git's own trailer parser); for commits of acap versions before that trailer, the
    subject ``Publish <host>`` they always had, else the tree's ``CNAME``. ``None``
    when none of these says."""

    trailer = repo.run(["log", "-1", f"--format=%(trailers:key={HOST_TRAILER},valueonly)", tip],
                       what="read the tip's trailers").split()
    if trailer:
        return trailer[0].lower()
    m = re.match(r"Publish (\S+)\n", message)
    if m:
        return m.group(1).lower()
    if has_cname:
        cname = repo.run(["cat-file", "blob", f"{tip}:CNAME"], what="read the tip's CNAME")
        words = cname.split()
        if words:
            return words[0].lower()
    return None


def _acap_record(repo: _Repo, tip: str) -> tuple[str | None, dict[str, str | None]]:
    """``(host, {path acap owns: its tree entry in acap's commit})`` from acap's last commit
    in the tip's history (someone may have committed on top). The paths are that commit's
    ``Published-files`` trailer (overlay commits), else its whole tree (acap owned the
    branch whole); ``(None, {})`` when acap never published there. A file changed since
    that commit is no longer acap's (:func:`acap.publisher._plan.still_ours`)."""
    last = repo.run(["rev-list", "-1", f"--grep=^{TRAILER}$", tip],
                    what="find acap's last commit").strip()
    if not last:
        return None, {}
    message = repo.run(["log", "-1", "--format=%B", last], what="read acap's last commit")
    listing = repo.run(["ls-tree", "-r", "-z", "--full-tree", last],
                       what="list acap's last commit")
    entries: dict[str, str | None] = {}
    for entry in filter(None, listing.split("\0")):
        meta, _, path = entry.partition("\t")
        entries[path] = meta
    host = _published_host(repo, last, message, "CNAME" in entries)
    for line in reversed(message.splitlines()):
        if line.startswith(FILES_TRAILER + ":"):
            try:
                paths = json.loads(line.split(":", 1)[1])
            except ValueError:
                break
            if isinstance(paths, list):
                return host, {p: entries.get(p) for p in paths if is_own_path(p)}
    return host, entries


#: Paths a branch's site uses when GitHub Pages builds it with Jekyll.
_JEKYLL = ("_config.yml", "_config.yaml")


def _jekyll_ready(repo: _Repo, tip: str, tree: Mapping[str, str], files: Mapping[str, bytes],
                  branch: str) -> Mapping[str, bytes]:
    """``files`` for an overlay on a branch whose site may be built by Jekyll.

    GitHub Pages builds a branch with Jekyll unless it holds ``.nojekyll``; Jekyll
    leaves out folders starting with a dot, ``.well-known`` among them. acap adds
    ``.nojekyll`` to a plain site (no ``_config.yml``, no folder starting with ``_``,
    no Markdown: Jekyll would only have copied it). A site that uses Jekyll would
    break without it, so ``.nojekyll`` is left out there, and its ``_config.yml``
    must list ``.well-known`` under ``include:``.

    Raises:
        TargetRefused: the site uses Jekyll and its ``_config.yml`` does not include
            ``.well-known``.
    """
    if NOJEKYLL not in files or NOJEKYLL in tree:
        return files
    uses = any(p in tree for p in _JEKYLL) or any(
        part.startswith("_") for p in tree for part in p.split("/")[:-1]) or any(
        p.endswith((".md", ".markdown")) for p in tree)
    if not uses:
        return files
    config = next((p for p in _JEKYLL if p in tree), None)
    include: object = None
    if config is not None:
        text = repo.run(["cat-file", "blob", f"{tip}:{config}"], what=f"read {config}")
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError:
            data = None
        include = data.get("include") if isinstance(data, dict) else None
    if isinstance(include, list) and any(str(i).strip("/") == ".well-known" for i in include):
        return {p: b for p, b in files.items() if p != NOJEKYLL}
    why = config or "it has Jekyll folders or Markdown"
    raise TargetRefused(
        f"the site on {branch} is built by Jekyll ({why}), which leaves out .well-known/, "
        "where the card lies",
        f"add `include: [.well-known]` to {config or '_config.yml'} on {branch}, or an empty "
        ".nojekyll file if the site does not need Jekyll; then publish again")


def _overlay_tree(repo: _Repo, tip: str | None, old: Mapping[str, str],
                  files: Mapping[str, bytes], owned: set[str]) -> tuple[str, Plan]:
    """The tip's tree with acap's ``files`` added or updated and the ``owned`` paths acap
    no longer builds removed; every other entry (any mode: links, submodules) as it is.

    Returns:
        ``(tree id, plan)``.

    Raises:
        TargetRefused: a path of the branch is a file where acap needs a folder, or a
            folder where acap writes a file.
    """
    folders = {"/".join(p.split("/")[:i]) for p in old for i in range(1, p.count("/") + 1)}
    for rel in files:
        parts = rel.split("/")
        for i in range(1, len(parts)):
            if "/".join(parts[:i]) in old:
                raise TargetRefused(f"{'/'.join(parts[:i])} on the branch is a file where acap "
                                    f"needs a folder (for {rel})",
                                    "rename it on the branch, or give acap's page another "
                                    "address")
        if rel in folders:
            raise TargetRefused(f"{rel} on the branch is a folder where acap writes a file",
                                "rename it on the branch")
    _tree, new = _write_tree(repo, files, keep_index=True)
    plan = overlay_plan(new, {p: old.get(p) for p in set(new) | owned}, owned)
    index = Path(repo.env["GIT_INDEX_FILE"])
    index.unlink(missing_ok=True)
    if tip:
        repo.run(["read-tree", tip], what="read the branch's tree")
    changes = b"".join(f"{new[rel]}\t{rel}".replace(" blob ", " ").encode() + b"\0"
                       for rel in plan.added + plan.changed)
    changes += b"".join(f"0 {'0' * 40}\t{rel}".encode() + b"\0" for rel in plan.removed)
    if changes:
        repo.run(["update-index", "-z", "--add", "--remove", "--index-info"],
                 what="stage acap's files", stdin=changes)
    tree = repo.run(["write-tree"], what="write the tree").strip()
    return tree, plan


def _write_tree(repo: _Repo, files: Mapping[str, bytes],
                keep_index: bool = False) -> tuple[str, dict[str, str]]:
    """Store ``files`` as blobs and write one tree; returns ``(tree id, {path: ls-tree meta})``
    (the tree id is ``""`` with ``keep_index``: the blobs only are stored)."""
    stage = repo.tmp / "stage"
    names = sorted(files)
    for rel in names:
        if "\n" in rel or "\0" in rel or rel.startswith("/"):
            raise GitError(f"cannot publish a file named {rel!r}")
        target = stage / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(files[rel])
    blobs: list[str] = []
    if names:
        out = repo.run(["hash-object", "-w", "--no-filters", "--stdin-paths"],
                       what="store the files", stdin=("\n".join(names) + "\n").encode("utf-8"),
                       cwd=stage)
        blobs = out.split()
    meta = {rel: f"100644 blob {sha}" for rel, sha in zip(names, blobs, strict=True)}
    if keep_index:
        return "", meta
    index_info = b"".join(f"100644 {sha}\t{rel}".encode() + b"\0"
                          for rel, sha in zip(names, blobs, strict=True))
    index = Path(repo.env["GIT_INDEX_FILE"])
    index.unlink(missing_ok=True)
    repo.run(["update-index", "-z", "--add", "--index-info"], what="stage the files",
             stdin=index_info)
    tree = repo.run(["write-tree"], what="write the tree").strip()
    return tree, meta


class BranchPublisher:
    """A :class:`~acap.publisher._plan.Publisher` to a git branch (GitHub Pages): the host
    folder becomes the tree of a new commit on the branch's tip (:func:`publish_branch`).

    Args:
        remote: any URL or path git can push to (absolute when local).
        branch: the branch name.
        date: commit date in seconds since the epoch (:func:`commit_date`).
        overlay: the branch holds the operator's own website; acap adds its files
            beside it (see :func:`publish_branch`).
    """

    def __init__(self, remote: str, branch: str, date: int | None = None,
                 overlay: bool = False) -> None:
        self.remote = remote
        self.branch = branch
        self.date = date
        self.overlay = overlay

    def publish(self, files: Mapping[str, bytes], *, host: str, dry_run: bool, force: bool,
                progress: Callable[[str], None]) -> Published:
        """See :meth:`acap.publisher._plan.Publisher.publish`."""
        outcome = publish_branch(files, self.remote, self.branch, host=host, dry_run=dry_run,
                                 force=force, date=self.date, progress=progress,
                                 overlay=self.overlay)
        state = ("published" if outcome.pushed else
                 "up to date" if outcome.plan.empty and outcome.previous else "dry run")
        return Published(outcome.plan, state, outcome.commit)
