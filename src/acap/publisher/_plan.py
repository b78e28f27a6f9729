"""What publishing one host folder does, and the one interface every target implements.

A target (a git branch, a directory, ...) is a :class:`Publisher`: given the files of a
host folder, it computes the :class:`Plan` (added, changed, removed, unchanged) against
what is there, refuses to replace or remove what acap did not publish there unless
forced (:class:`ForeignFiles`), and puts the files in place so that the target is either
as it was or complete. :func:`acap.publisher.publish` runs every target through it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

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


def overlay_plan(files: Mapping[str, _T], present: Mapping[str, _T | None],
                 owned: set[str]) -> Plan:
    """The :class:`Plan` of an overlay: acap's ``files`` added or updated beside a
    website, and the files acap put there before (``owned``) that it no longer builds
    removed. Nothing else is in the plan, so nothing else is touched.

    Args:
        files: ``{path: content}`` acap publishes (bytes, or a content id such as a git
            blob id: anything compared by equality).
        present: ``{path: content, or None (absent)}`` at the target, for every path of
            ``files`` and ``owned``.
        owned: the paths the record of acap's last publish there lists.
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


def record_bytes(host: str, files: set[str] | list[str]) -> bytes:
    """The record of a publish (directory and SFTP targets): which host, which files
    acap put there. JSON; nothing private (the paths are public once published)."""
    from acap._package import __version__

    doc = {"publishedBy": "acap", "acap": __version__, "host": host.lower(),
           "files": sorted(files)}
    return (json.dumps(doc, indent=1, ensure_ascii=False) + "\n").encode("utf-8")


def parse_record(data: bytes) -> tuple[str, set[str]] | None:
    """``(host, {paths})`` from :func:`record_bytes`; ``None`` for anything else."""
    try:
        doc = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    if not (isinstance(doc, dict) and doc.get("publishedBy") == "acap"
            and isinstance(doc.get("host"), str) and isinstance(doc.get("files"), list)):
        return None
    return doc["host"].lower(), {f for f in doc["files"] if isinstance(f, str)}


def _names(paths: list[str]) -> str:
    return ", ".join(paths[:10]) + (" ..." if len(paths) > 10 else "")


def foreign_problem(where: str, host: str, plan: Plan, record: tuple[str, set[str]] | None,
                    overlay: bool = False) -> str | None:
    """Why publishing ``host`` at ``where`` needs ``force``, or ``None``.

    The files the publish would delete or replace must all be listed in the record of
    an earlier acap publish there of the same host; a target acap published for another
    host is refused as soon as it holds anything (whole) or anything of that host's
    (overlay).
    """
    lost = sorted(plan.changed + plan.removed)
    if record is not None and record[0] != host.lower() and (
            (lost or plan.unchanged) if not overlay else record[1]):
        return (f"{where} was published by acap for {record[0]}, not {host}: publishing "
                f"would delete or replace its {len(lost)} file(s): {_names(lost)}"
                if lost else f"{where} was published by acap for {record[0]}, not {host}")
    ours = record[1] if record is not None else set()
    foreign = [p for p in lost if p not in ours]
    if foreign:
        return (f"{where} holds {len(foreign)} file(s) that acap did not publish there, and "
                f"publishing {host} would delete or replace them: {_names(foreign)}")
    return None


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
