"""What publishing one host folder does, and the one interface every target implements.

A target (a git branch, a directory, ...) is a :class:`Publisher`: given the files of a
host folder, it computes the :class:`Plan` (added, changed, removed, unchanged) against
what is there, refuses to replace or remove what acap did not publish there unless
forced (:class:`ForeignFiles`), and puts the files in place so that the target is either
as it was or complete. :func:`acap.publisher.publish` runs every target through it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

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


class Publisher(Protocol):
    """Puts one host folder on one static hosting target.

    Implementations: :class:`acap.publisher._git_branch.BranchPublisher` (a git branch,
    GitHub Pages) and :class:`acap.publisher._directory.DirectoryPublisher` (a folder a
    web server serves).
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
            GitError, OSError: the target could not be written; it is as it was.
        """
