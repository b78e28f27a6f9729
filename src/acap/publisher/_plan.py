"""What publishing one host does to a target, and what stops it (data only).

:func:`acap.publisher._engine.publish_host` computes a :class:`Plan` (added, changed,
removed, unchanged) from what is at the target and what acap can prove is its own there,
and raises :class:`ForeignFiles` or :class:`TargetRefused` when it may not go ahead.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field

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

    @property
    def writes(self) -> list[str]:
        """The paths written (added and changed), sorted."""
        return sorted(self.added + self.changed)

    def summary(self) -> str:
        """``"2 added, 1 changed, 0 removed, 5 unchanged"``."""
        return (f"{len(self.added)} added, {len(self.changed)} changed, "
                f"{len(self.removed)} removed, {self.unchanged} unchanged")


def make_plan(files: Mapping[str, str], present: Mapping[str, str | None],
              remove: set[str]) -> Plan:
    """The :class:`Plan` that makes the target hold ``files`` and no longer ``remove``.

    Args:
        files: ``{path: SHA-256 hex}`` acap publishes.
        present: ``{path: SHA-256 hex, or None (absent)}`` at the target, for every path
            of ``files`` and ``remove``.
        remove: paths to remove when acap does not publish them (those it may remove:
            acap's own, or, with ``--force`` on a host acap owns whole, anything).
    """
    plan = Plan()
    for path in sorted(set(files) | remove):
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


def count(n: int, word: str) -> str:
    """``"1 file"``, ``"2 files"``: ``n`` and ``word``, plural unless ``n`` is 1."""
    return f"{n} {word}{'s' * (n != 1)}"


def names(paths: list[str]) -> str:
    """The first ten of ``paths``, comma-separated (``" ..."`` when there are more)."""
    return ", ".join(paths[:10]) + (" ..." if len(paths) > 10 else "")


def digest(data: bytes) -> str:
    """SHA-256 hex of ``data``: how acap tells contents apart at a target."""
    return hashlib.sha256(data).hexdigest()


@dataclass
class Published:
    """What publishing one host did.

    Attributes:
        plan: what was (or, in a dry run, would be) added, changed and removed.
        outcome: ``"published"``, ``"up to date"`` or ``"dry run"``.
        commit: the new commit, for targets that make commits.
        notes: warnings the publish gives (a record that was missing, a folder that
            holds no website ...), as ``(rule, message, hint)``.
        swept: ``(where, why)`` of each thing an interrupted publish left that acap
            proved its own and removed (in a dry run: would remove;
            :mod:`acap.publisher._leftovers`).
    """

    plan: Plan
    outcome: str
    commit: str | None = None
    notes: list[tuple[str, str, str]] = field(default_factory=list)
    swept: list[tuple[str, str]] = field(default_factory=list)


class ForeignFiles(AcapError):
    """Publishing would replace or remove files acap cannot prove it put there (for this
    host). ``str()`` names them; :attr:`plan` is what publishing would have done;
    :attr:`hint` says what to do; :attr:`rule` is the finding's rule id
    (``PUBLISH-FOREIGN``, or ``SITE-PAGE-TAKEN`` for a page of the website where acap
    would put a personEntry page)."""

    def __init__(self, message: str, plan: Plan, hint: str,
                 rule: str = "PUBLISH-FOREIGN") -> None:
        super().__init__(message, hint)
        self.plan = plan
        self.rule = rule


class TargetRefused(AcapError):
    """The target cannot be published to as it is, whatever ``force`` says: it holds
    something acap will not read, replace or write through (a FIFO, a device, a
    symbolic link, a folder where a file goes, folders nested deeper than acap walks),
    it does not exist (without ``--create``), an SFTP server's key is unknown or
    changed, the server refused the login, or it holds a card or record signed with a
    key this computer lacks; or a file (a branch) at the target changed while acap
    published, after acap had read it. Nothing was changed (by acap).

    Attributes:
        rule: the finding's rule id (``PUBLISH-TARGET``, ``PUBLISH-HOST-KEY``,
            ``PUBLISH-FAILED``, ``PUBLISH-KEY``, ``PUBLISH-CHANGED``).
    """

    def __init__(self, message: str, hint: str, rule: str = "PUBLISH-TARGET") -> None:
        super().__init__(message, hint)
        self.rule = rule
