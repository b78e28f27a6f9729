"""What an interrupted publish left in a store's staging area, and which of it acap may
remove: only what it can prove it made there itself.

A publish into a folder stages its files in a folder beside it
(:mod:`acap.publisher._fs`); a publish cut by ``kill -9`` or a lost connection leaves
them there. That folder lies beside a website, where other people and tools write too,
so a name alone proves nothing: ``.notes.acap-new-abcdef`` or ``backup1`` may be
anyone's. An entry there is acap's (:func:`sort_leftovers`) when

* its **name** is one acap gives a file it writes there (a staged file, a record, the
  record kept to put back), under a publish token that a **record acap signed** names:
  the target's record, when acap trusts it (:mod:`acap.publisher._trust`), or a record
  found in the staging area itself that a key of the operator's history signed for this
  host (the record of a publish cut before it was put in place). Every publish writes
  that record before it stages a byte, so no name of its own is ever unrecorded; or
* its **content** is a file acap published there: its SHA-256 is one such a record
  lists (a file a cut publish was removing, moved there first), under a name acap
  gives there (no other is read).

Anything else stays where it is, named in a ``PUBLISH-LEFTOVER`` warning; a dry run
lists what would be removed, and why.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from acap.publisher._plan import digest
from acap.publisher._plan import names as listed
from acap.publisher._store import Leftover
from acap.publisher._trust import KeyRing, Note
from acap.site import PublishRecord, RecordProblem


@dataclass
class Leftovers:
    """The leftovers of one store, sorted.

    Attributes:
        sweep: ``(name, where, why)`` of each entry acap proved its own: removed.
        keep: ``(where, why)`` of each other entry: left where it is.
    """

    sweep: list[tuple[str, str, str]] = field(default_factory=list)
    keep: list[tuple[str, str]] = field(default_factory=list)

    def shown(self) -> list[tuple[str, str]]:
        """``(where, why)`` of each entry removed (or, in a dry run, to be removed)."""
        return [(where, why) for _name, where, why in self.sweep]

    def notes(self, where: str) -> list[Note]:
        """The ``PUBLISH-LEFTOVER`` warning for what stays, if anything does."""
        if not self.keep:
            return []
        shown = [w for w, _why in self.keep]
        return [("PUBLISH-LEFTOVER",
                 f"the staging folder acap uses beside {where} holds {len(shown)} "
                 f"{'entry' if len(shown) == 1 else 'entries'} acap cannot prove it made "
                 f"there, so it leaves {'it' if len(shown) == 1 else 'them'}: {listed(shown)} "
                 f"({self.keep[0][1]})",
                 "if they are yours, move them out of that folder (acap uploads into it); if "
                 "they are what an earlier publish left and you do not want them, remove them "
                 "by hand")]


def _signed(data: bytes | None, ring: KeyRing, host: str) -> PublishRecord | None:
    """The record ``data`` holds, when a key of ``ring`` signed it for ``host``."""
    if data is None:
        return None
    try:
        record = PublishRecord.from_bytes(data)
        record.signed_by(ring.keys)
    except RecordProblem:
        return None
    return record if record.host == host.lower() else None


def sort_leftovers(found: list[Leftover], trusted: PublishRecord | None, ring: KeyRing,
                   host: str) -> Leftovers:
    """Which of ``found`` (a store's :meth:`~acap.publisher._store.Store.leftovers`) acap
    proves its own (see the module docstring).

    Args:
        found: the entries of the staging area.
        trusted: the record of this host that acap trusts at the target, or ``None``.
        ring: the operator's keys (what a record found there must be signed with).
        host: the host being published.

    Returns:
        :class:`Leftovers`: what to remove, and what to leave and name.
    """
    records = [r for r in [trusted, *(_signed(f.data, ring, host) for f in found)]
               if r is not None]
    tokens = {r.staging for r in records if r.staging is not None}
    sums = {d for r in records for ds in r.files.values() for d in ds}
    out = Leftovers()
    for f in found:
        why = _why(f, tokens, sums)
        if why:
            out.sweep.append((f.name, f.shown, why))
        else:
            out.keep.append((f.shown, _why_not(f)))
    return out


def _why(f: Leftover, tokens: set[str], sums: set[str]) -> str | None:
    """Why ``f`` is proven acap's, or ``None``."""
    if f.regular and f.written and f.token is not None and f.token in tokens:
        return (f"left by acap's publish {f.token}, which was cut short; a record acap "
                "signed names it")
    if f.data is not None and digest(f.data) in sums:
        return "a copy of a file acap published there: a record acap signed holds its SHA-256"
    return None


def _why_not(f: Leftover) -> str:
    if not f.regular:
        return "not a regular file: acap makes none there"
    if f.token is None:
        return "acap never makes such a name there"
    return ("no record acap trusts names it, and it holds no file acap published: an "
            "earlier publish with another key, or someone else, left it")
