"""The one interface every publish target implements: a :class:`Store` moves bytes.

:func:`acap.publisher._engine.publish_host` runs the publish steps once, over a store:
read the record, list or read what is there (and what an interrupted publish left),
then stage the new files, stage the removals, and commit (or roll back). A store
decides nothing about ownership, plans or messages; it refuses only what it cannot
touch safely (a link, a FIFO, folders nested deeper than :data:`acap.site.MAX_DEPTH`),
with :class:`~acap.publisher._plan.TargetRefused`, and checks, before it changes a
file, that it is still what it read (``PUBLISH-CHANGED``).

Stores: :func:`acap.publisher._local.directory_store` (a folder on this machine) and
:class:`acap.publisher._sftp.SftpStore` (a folder on an SFTP server), both through
:class:`acap.publisher._fs.FileStore`; :class:`acap.publisher._git_branch.BranchStore`
(a git branch, GitHub Pages).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import Protocol


@dataclass(frozen=True)
class Leftover:
    """An entry of a store's staging area that an earlier publish (or anyone) left there.

    Attributes:
        name: its name in the staging area.
        shown: where it is, as messages name it.
        regular: it is a regular file.
        data: its bytes (a regular file no larger than any acap writes, with a name acap
            gives there), else ``None``.
        token: the publish token its name starts with, when it is a name acap makes
            there (:attr:`Store.staging`), else ``None``.
        written: the name is one acap gives a file it writes itself (a staged file, a
            record), not one it moves there (a file being removed): its name alone can
            prove it acap's.
    """

    name: str
    shown: str
    regular: bool
    data: bytes | None
    token: str | None
    written: bool


class Store(Protocol):
    """One publish target, as the engine sees it. Paths are relative to the target's
    root and ``/``-separated (as :func:`acap.site.path_problem` accepts them).

    Used as a context manager: entering connects (SFTP) or fetches (git); leaving
    closes and removes what the store made for itself (a temporary repository).
    """

    #: The hosting kind when nothing at the target says otherwise
    #: (:mod:`acap.publisher._hosting`).
    default_hosting: str
    @property
    def staging(self) -> str | None:
        """This publish's random token, which every name it makes in the store's staging
        area starts with and its records name (:attr:`acap.site.PublishRecord.staging`);
        ``None`` for a store that stages nothing at the target (git)."""

    def __enter__(self) -> Store:
        """Connect or fetch; see the class docstring."""

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        """Close; see the class docstring."""

    def describe(self) -> str:
        """The target in words (``directory /srv/www``), credentials left out."""

    def exists(self) -> bool:
        """Whether the target's root (folder, branch) is there."""

    def record(self) -> bytes | None:
        """The stored publish record as it is (``None``: none).

        Raises:
            TargetRefused: the record is a link, not a regular file, or too large.
        """

    def top(self) -> list[str]:
        """The names at the target's root (files and folders), sorted."""

    def listing(self) -> list[str]:
        """Every file under the root, sorted, the store's own entries aside.

        Raises:
            TargetRefused: a link or anything but a regular file or folder, folders
                nested deeper than :data:`acap.site.MAX_DEPTH`, or more files than acap
                lists.
        """

    def read(self, rel: str) -> bytes | None:
        """The bytes at ``rel`` (``None``: absent), every folder on the way a folder.

        Raises:
            TargetRefused: a link, a FIFO, a device, a folder where a file is, a file
                where a folder is, or a file larger than any acap writes.
        """

    def leftovers(self) -> list[Leftover]:
        """What lies in the store's staging area (left by an interrupted publish, or put
        there by anyone); ``[]`` for a store without one.

        Raises:
            TargetRefused: the staging area is a link or not a folder.
        """

    def sweep(self, names: list[str]) -> None:
        """Remove these entries of :meth:`leftovers` (the ones acap proved its own)."""

    def begin(self, intent: bytes, create: bool) -> None:
        """Get ready to write: make the root when ``create`` (and it is missing), and
        store ``intent`` as the record while the files go out, before anything is staged
        (stores that commit all at once keep it for :meth:`commit`)."""

    def stage(self, rel: str, data: bytes) -> None:
        """Put ``data`` where it will go to ``rel`` at :meth:`commit`, outside what the
        target serves (never at its place yet)."""

    def remove(self, rel: str) -> None:
        """Remove ``rel`` at :meth:`commit` (after every staged file is in place). Called
        right after the survey, before :meth:`begin`: a store that listed ``rel`` without
        reading it may read it now, to check those bytes before it removes it.

        Raises:
            TargetRefused: ``PUBLISH-CHANGED``: ``rel`` changed since it was listed.
        """

    def commit(self, record: bytes, old: Mapping[str, bytes | None],
               say: Callable[[str], None]) -> str | None:
        """Put every staged file in place (the card last: it is staged last), make the
        removals and store ``record``, each path only while it is still what the
        survey read there (:meth:`read`, :meth:`listing`): another writer's change
        made meanwhile is never overwritten or removed. Where the target cannot change
        all at once (a folder), a failure puts back what was done (``old``: ``{path:
        bytes or None}``, what each written path held) and raises.

        Returns:
            The new commit (git), else ``None``.

        Raises:
            TargetRefused: ``PUBLISH-CHANGED``: a path changed since the survey (a
                folder: a file; git: the branch); the target is as it was, with that
                change.
        """

    def roll_back(self) -> None:
        """After a failure or an interruption: remove what was staged, put back the
        record as it was and remove a root :meth:`begin` made. Does nothing once
        :meth:`commit` put the files in place."""

    def write_record(self, record: bytes) -> bool:
        """Store ``record`` alone (nothing else changes); ``False`` where a store keeps
        its record only with a commit (git)."""
