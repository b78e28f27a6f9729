"""What publishing one host folder does, and the one interface every target implements.

A target (a git branch, a directory, ...) is a :class:`Publisher`: given the files of a
host folder, it computes the :class:`Plan` (added, changed, removed, unchanged) against
what is there, refuses to replace or remove what acap did not publish there unless
forced (:class:`ForeignFiles`), and puts the files in place so that the target is either
as it was or complete. :func:`acap.publisher.publish` runs every target through it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

from acap._package import __version__
from acap.errors import AcapError


@dataclass
class Plan:
    """What publishing changes at a target, by path relative to the host root.

    Attributes:
        added: paths the target does not have yet.
        changed: paths whose content differs.
        removed: paths the target has and the new tree does not.
        unchanged: number of paths left as they are.
    """

    added: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    unchanged: int = 0

    @property
    def empty(self) -> bool:
        """True when nothing would change."""
        return not (self.added or self.changed or self.removed)

    def summary(self) -> str:
        """``"2 added, 1 changed, 0 removed, 5 unchanged"``."""
        return (f"{len(self.added)} added, {len(self.changed)} changed, "
                f"{len(self.removed)} removed, {self.unchanged} unchanged")


def diff(old: Mapping[str, str], new: Mapping[str, str]) -> Plan:
    """The :class:`Plan` from ``old`` to ``new`` (each ``{path: content id}``)."""
    plan = Plan()
    for path in sorted(set(old) | set(new)):
        if path not in old:
            plan.added.append(path)
        elif path not in new:
            plan.removed.append(path)
        elif old[path] != new[path]:
            plan.changed.append(path)
        else:
            plan.unchanged += 1
    return plan


_T = TypeVar("_T")


def still_ours(present: Mapping[str, _T | None], owned: Mapping[str, _T | None]) -> set[str]:
    """The paths of ``owned`` that are still acap's: absent, or holding what acap put
    there (a path recorded without its content counts as acap's). A file someone changed
    after acap wrote it is theirs now: acap neither replaces (without ``force``) nor
    removes it."""
    return {p for p, expected in owned.items()
            if expected is None or present.get(p) is None or present.get(p) == expected}


def judged_record(record: tuple[str, Mapping[str, _T | None]] | None, host: str,
                  present: Mapping[str, _T | None]) -> tuple[str, set[str]] | None:
    """A record as :func:`foreign_problem` weighs it: ``(its host, the paths that are
    still acap's)`` (:func:`still_ours`; every path, for a record of another host)."""
    if record is None:
        return None
    recorded_host, owned = record
    if recorded_host != host.lower():
        return recorded_host, set(owned)
    return recorded_host, still_ours(present, owned)


def edited_paths(record: tuple[str, Mapping[str, _T | None]] | None, host: str,
                 present: Mapping[str, _T | None]) -> set[str]:
    """The paths the record says acap published there for ``host`` whose content is
    now another than the one acap wrote (someone edited them by hand, or another tool
    rewrote them): they are no longer acap's (:func:`still_ours`), but acap did put
    them there, and a message says so rather than call them someone else's files."""
    if record is None or record[0] != host.lower():
        return set()
    return {p for p, expected in record[1].items()
            if expected is not None and present.get(p) is not None
            and present.get(p) != expected}


def overlay_plan(files: Mapping[str, _T], present: Mapping[str, _T | None],
                 owned: set[str]) -> Plan:
    """The :class:`Plan` of an overlay: acap's ``files`` added or updated beside a
    website, and the files acap put there before (``owned``, see :func:`still_ours`) that
    it no longer builds removed. Nothing else is in the plan, so nothing else is touched.

    Args:
        files: ``{path: content}`` acap publishes (bytes, a digest or a git tree entry:
            anything compared by equality).
        present: ``{path: content, or None (absent)}`` at the target, for every path of
            ``files`` and ``owned``.
        owned: the paths that are acap's at the target.
    """
    plan = Plan()
    for path in sorted(set(files) | owned):
        now = present.get(path)
        if path in files:
            if now is None:
                plan.added.append(path)
            elif now != files[path]:
                plan.changed.append(path)
            else:
                plan.unchanged += 1
        elif now is not None:
            plan.removed.append(path)
    return plan


def owned_after(plan: Plan, files: Mapping[str, object], owned: set[str]) -> set[str]:
    """The paths acap owns at an overlay target once ``plan`` is done: the files it wrote
    now and those it had written before and still publishes. A file that was there
    already, byte for byte, stays the website's: acap never removes it later."""
    return (owned & set(files)) | set(plan.added) | set(plan.changed)


def count(n: int, word: str) -> str:
    """``"1 file"``, ``"2 files"``: ``n`` and ``word``, plural unless ``n`` is 1."""
    return f"{n} {word}{'s' * (n != 1)}"


def digest(data: bytes) -> str:
    """SHA-256 hex of ``data``: the content id of a record (:func:`record_bytes`)."""

    return hashlib.sha256(data).hexdigest()


def record_bytes(host: str, files: Mapping[str, str | None]) -> bytes:
    """The record of a publish (directory and SFTP targets): which host, which files acap
    put there, and the SHA-256 of each one it knows (a file someone changes afterwards is
    theirs, :func:`still_ours`). JSON; nothing private (the files are public once
    published)."""

    doc = {"publishedBy": "acap", "acap": __version__, "host": host.lower(),
           "files": sorted(files),
           "sha256": {p: h for p, h in sorted(files.items()) if h is not None}}
    return (json.dumps(doc, indent=1, ensure_ascii=False) + "\n").encode("utf-8")


def is_own_path(path: object) -> bool:
    """Whether ``path`` can be one of acap's files in a record: relative, ``/``-separated,
    without an empty, ``.`` or ``..`` part or a NUL, and not in a ``.git`` at the root.
    A record lies beside the target, where someone else may write: a path that climbs
    out of the target, or into its ``.git``, is never taken as acap's to remove."""
    if not isinstance(path, str) or not path or path.startswith("/") or "\0" in path:
        return False
    parts = path.split("/")
    return all(p not in ("", ".", "..") for p in parts) and parts[0] != ".git"


def parse_record(data: bytes) -> tuple[str, dict[str, str | None]] | None:
    """``(host, {path: SHA-256 hex or None})`` from :func:`record_bytes` (only paths
    :func:`is_own_path` accepts; records of acap versions before the digests: ``None``
    for each); ``None`` for anything else."""
    try:
        doc = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    if not (isinstance(doc, dict) and doc.get("publishedBy") == "acap"
            and isinstance(doc.get("host"), str) and isinstance(doc.get("files"), list)):
        return None
    given = doc.get("sha256")
    sums: dict[str, object] = given if isinstance(given, dict) else {}
    return doc["host"].lower(), {
        f: str(sums[f]) if isinstance(sums.get(f), str) else None
        for f in doc["files"] if is_own_path(f)}


def _names(paths: list[str]) -> str:
    return ", ".join(paths[:10]) + (" ..." if len(paths) > 10 else "")


def not_ours(plan: Plan, record: tuple[str, Collection[str]] | None,
             edited: Collection[str]) -> tuple[list[str], list[str]]:
    """The files ``plan`` would delete or replace that are not acap's (``record`` as
    :func:`judged_record` gives it): ``(never acap's, acap's and changed since)``."""
    ours = record[1] if record is not None else set()
    lost = sorted(p for p in plan.changed + plan.removed if p not in ours)
    return [p for p in lost if p not in edited], [p for p in lost if p in edited]


def foreign_problem(where: str, host: str, plan: Plan,
                    record: tuple[str, Collection[str]] | None,
                    overlay: bool = False, edited: Collection[str] = ()) -> str | None:
    """Why publishing ``host`` at ``where`` needs ``force``, or ``None``.

    The files the publish would delete or replace must all be listed in the record of
    an earlier acap publish there of the same host; a target acap published for another
    host is refused as soon as it holds anything (whole) or anything of that host's
    (overlay). Of the others, those in ``edited`` (:func:`edited_paths`: acap wrote
    them, someone changed them since) are named as such.
    """
    lost = sorted(plan.changed + plan.removed)
    if record is not None and record[0] != host.lower() and (
            (lost or plan.unchanged) if not overlay else record[1]):
        return (f"{where} was published by acap for {record[0]}, not {host}: publishing "
                f"would delete or replace its {count(len(lost), 'file')}: {_names(lost)}"
                if lost else f"{where} was published by acap for {record[0]}, not {host}")
    foreign, changed = not_ours(plan, record, edited)
    said = []
    if foreign:
        it = "it" if len(foreign) == 1 else "them"
        said.append(f"{where} holds {count(len(foreign), 'file')} that acap did not publish "
                    f"there, and publishing {host} would delete or replace {it}: "
                    f"{_names(foreign)}")
    if changed:
        it, has = ("it", "has") if len(changed) == 1 else ("them", "have")
        said.append(f"{count(len(changed), 'file')} acap published in {where} {has} "
                    f"changed since acap published {it} (by hand or by another tool), and "
                    f"publishing {host} would replace {it}: {_names(changed)}")
    return "; ".join(said) or None


#: What to do about files acap wrote and someone changed since (:func:`edited_paths`).
EDITED_HINT = ("to keep a change, make it where acap builds the file (a page: your own "
               "template in templates/, see the Templates page of the user guide) and build "
               "again; acap publish --force replaces the changed file with acap's (copy it "
               "first)")


@dataclass
class Published:
    """What one publisher did for one host.

    Attributes:
        plan: what was (or, in a dry run, would be) added, changed and removed.
        outcome: ``"published"``, ``"up to date"`` or ``"dry run"``.
        commit: the new commit, for targets that make commits.
    """

    plan: Plan
    outcome: str
    commit: str | None = None


class ForeignFiles(AcapError):
    """The target holds files acap did not publish there (for this host), and publishing
    would replace or remove them. ``str()`` names them; :attr:`plan` is what publishing
    would have done; :attr:`hint` says what to do (``PUBLISH-FOREIGN``)."""

    def __init__(self, message: str, plan: Plan, hint: str) -> None:
        super().__init__(message, hint)
        self.plan = plan


class TargetRefused(AcapError):
    """The target cannot be published to as it is, whatever ``force`` says: it holds
    something acap will not read, replace or write through (a FIFO, a device, a
    symbolic link, a folder where a file goes), an SFTP server's key is unknown or
    changed, the server refused the login. Nothing was changed.

    Attributes:
        rule: the finding's rule id (``PUBLISH-TARGET``, ``PUBLISH-HOST-KEY``,
            ``PUBLISH-FAILED``).
    """

    def __init__(self, message: str, hint: str, rule: str = "PUBLISH-TARGET") -> None:
        super().__init__(message, hint)
        self.rule = rule


class Publisher(Protocol):
    """Puts one host folder on one static hosting target.

    Implementations: :class:`acap.publisher._git_branch.BranchPublisher` (a git branch,
    GitHub Pages), :class:`acap.publisher._directory.DirectoryPublisher` (a folder a
    web server serves) and :class:`acap.publisher._sftp.SftpPublisher` (a folder on a
    server reached over SFTP). Each takes ``overlay`` when it is made: ``True`` adds and
    updates acap's files beside a website and removes only files acap put there before
    (its record says which); ``False`` makes the target hold exactly ``files``.
    """

    def publish(self, files: Mapping[str, bytes], *, host: str, dry_run: bool, force: bool,
                progress: Callable[[str], None]) -> Published:
        """Make the target hold ``files`` (``{path relative to the host root: bytes}``).

        Args:
            files: the host folder's files, extras included.
            host: the host they are for (recorded at the target).
            dry_run: compute the plan only; change nothing.
            force: replace or remove files acap did not publish there.
            progress: called with one line of text per step.

        Returns:
            What was done.

        Raises:
            ForeignFiles: without ``force``, files acap did not publish there would be
                replaced or removed; nothing was changed.
            TargetRefused: the target holds something acap will not touch, or refused
                acap; nothing was changed.
            GitError, OSError: the target could not be written; it is as it was.
        """
