"""Publish: each host folder of site/ to its static hosting, checked first.

:func:`preflight` checks everything before anything goes out (a fresh build, every file
as the manifest lists it, signatures against the built JWKS, no key material, the card at
its origin's well-known path); :func:`publish` then puts each host folder on its target
with one engine (:func:`publish_host`) over a small :class:`Store` protocol whose stores
only move bytes: a git branch (:class:`BranchStore`, GitHub Pages), a folder on this
machine (:func:`directory_store`) or on an SFTP server (:class:`SftpStore`), both through
one :class:`FileStore`. What acap may replace or remove at a target is what its record
says, and only when a key of the operator's history signed it (:class:`KeyRing`); on a
host where the operator's own website lives (overlay) acap adds its files beside it and
removes only what it put there. Nothing acap cannot prove is its own is replaced without
``force`` (:class:`ForeignFiles`), and nothing that is not a regular file or folder is
touched (:class:`TargetRefused`). What is live can be checked with :func:`live_check`.

May import: :mod:`acap.builder` and every stage below it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from acap._lazy import exports

if TYPE_CHECKING:
    from acap.publisher._engine import HostJob as HostJob
    from acap.publisher._engine import publish_host as publish_host
    from acap.publisher._fs import FileStore as FileStore
    from acap.publisher._git_branch import BranchStore as BranchStore
    from acap.publisher._live import HttpFacts as HttpFacts
    from acap.publisher._live import LiveCheck as LiveCheck
    from acap.publisher._live import live_check as live_check
    from acap.publisher._local import directory_store as directory_store
    from acap.publisher._plan import ForeignFiles as ForeignFiles
    from acap.publisher._plan import Plan as Plan
    from acap.publisher._plan import Published as Published
    from acap.publisher._plan import TargetRefused as TargetRefused
    from acap.publisher._publish import Checked as Checked
    from acap.publisher._publish import HostResult as HostResult
    from acap.publisher._publish import PublishResult as PublishResult
    from acap.publisher._publish import preflight as preflight
    from acap.publisher._publish import publish as publish
    from acap.publisher._sftp import SftpAddress as SftpAddress
    from acap.publisher._sftp import SftpStore as SftpStore
    from acap.publisher._store import Store as Store
    from acap.publisher._targets import PublishOptions as PublishOptions
    from acap.publisher._targets import Target as Target
    from acap.publisher._trust import KeyRing as KeyRing

__getattr__, __dir__ = exports(__name__)
