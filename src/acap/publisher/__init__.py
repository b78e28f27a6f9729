"""Publish: each host folder of site/ to its static hosting, checked first.

:func:`preflight` checks everything before anything goes out (a fresh build, every file
as the manifest lists it, signatures against the built JWKS, no key material, the card at
its origin's well-known path); :func:`publish` then puts each host folder on its target:
a git branch (GitHub Pages) or a directory, swapped in atomically. What is live can be
checked with :func:`live_check`.

May import: :mod:`acap.builder` and every stage below it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from acap._lazy import exports

if TYPE_CHECKING:
    from acap.publisher._live import HttpFacts as HttpFacts
    from acap.publisher._live import LiveCheck as LiveCheck
    from acap.publisher._live import live_check as live_check
    from acap.publisher._publish import Checked as Checked
    from acap.publisher._publish import HostResult as HostResult
    from acap.publisher._publish import PublishResult as PublishResult
    from acap.publisher._publish import preflight as preflight
    from acap.publisher._publish import publish as publish
    from acap.publisher._targets import PublishOptions as PublishOptions
    from acap.publisher._targets import Target as Target
    from acap.publisher._targets import resolve_targets as resolve_targets

__getattr__, __all__ = exports(__name__)
