"""The one interface every publish target implements: a :class:`Store` moves bytes.

:func:`acap.publisher._engine.publish_host` runs the publish steps once, over a store:
read the record, list or read what is there, then stage the new files, stage the
removals, and commit (or roll back). A store decides nothing about ownership, plans or
messages; it refuses only what it cannot touch safely (a link, a FIFO, folders nested
deeper than :data:`acap.site.MAX_DEPTH`), with :class:`~acap.publisher._plan.TargetRefused`.

Stores: :func:`acap.publisher._local.directory_store` (a folder on this machine) and
:class:`acap.publisher._sftp.SftpStore` (a folder on an SFTP server), both through
:class:`acap.publisher._fs.FileStore`; :class:`acap.publisher._git_branch.BranchStore`
(a git branch, GitHub Pages).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import TracebackType
from typing import Protocol


class Store(Protocol):
    """One publish target, as the engine sees it. Paths are relative to the target's
    root and ``/``-separated (as :func:`acap.site.path_problem` accepts them).

    Used as a context manager: entering connects (SFTP) or fetches (git); leaving
    closes and removes what the store made for itself (a temporary repository).
    """

    #: The hosting kind when nothing at the target says otherwise
    #: (:mod:`acap.publisher._hosting`).
    default_hosting: str

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

    def begin(self, intent: bytes, create: bool, paths: list[str]) -> None:
        """Get ready to write: make the root when ``create`` (and it is missing), remove
        what an interrupted publish left behind (near ``paths``), and store ``intent``
        as the record while the files go out (stores that commit all at once keep it
        for :meth:`commit`)."""

    def stage(self, rel: str, data: bytes) -> None:
        """Put ``data`` where it will go to ``rel`` at :meth:`commit`, outside what the
        target serves (never at its place yet)."""

    def remove(self, rel: str) -> None:
        """Remove ``rel`` at :meth:`commit` (after every staged file is in place)."""

    def commit(self, record: bytes, old: Mapping[str, bytes | None],
               say: Callable[[str], None]) -> str | None:
        """Put every staged file in place (the card last: it is staged last), make the
        removals and store ``record``. Where the target cannot change all at once
        (a folder), a failure before the removals puts back ``old`` (``{path: bytes or
        None}``: what each written path held) and raises; a failure during the removals
        stores a record of what is left and raises.

        Returns:
            The new commit (git), else ``None``.
        """

    def roll_back(self) -> None:
        """After a failure or an interruption: remove what was staged, put back the
        record as it was and remove a root :meth:`begin` made. Does nothing once
        :meth:`commit` put the files in place."""

    def write_record(self, record: bytes) -> bool:
        """Store ``record`` alone (nothing else changes); ``False`` where a store keeps
        its record only with a commit (git)."""
