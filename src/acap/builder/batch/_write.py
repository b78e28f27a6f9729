"""Writing a batch's new site/ (:class:`SiteTarget`): over a site/ that a batch wrote, tenant
by tenant (:mod:`acap.site._tenants`: each unit of change journaled, then swapped in by
rename; a tenant that did not change is not touched); otherwise (no site/ yet, an empty
one, a one-operator build's) a new folder beside it, swapped in whole, as a one-operator
build does.

A unit of change (:func:`units`) is one tenant, unless tenants trade hosts in one batch
(one prunes a host another takes, two swap hosts): those are one unit, so that no
manifest, however far a killed batch got, gives one host to two tenants.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from acap.builder.batch._assemble import SitePlan
from acap.builder.batch._model import STAGING
from acap.site import (
    LiveSite,
    Manifest,
    Unit,
    new_site_folder,
    swap_in,
    write_manifest,
)

__all__ = ["SiteTarget", "units"]


class SiteTarget:
    """Where a batch writes its operators' files, and how its new site/ goes in.

    Args:
        site_dir: the site folder (:func:`acap.site.real_site_dir`), locked, repaired
            (:func:`acap.site.repair`).
        old: its manifest (``None``: none).

    Raises:
        OSError: the folder to build in cannot be made.
    """

    def __init__(self, site_dir: Path, old: Manifest | None) -> None:
        self.site_dir = site_dir
        self.old = old
        self.live = LiveSite(site_dir) if old is not None and old.is_batch else None
        self.tmp: Path | None = None
        #: The folder operators' files are written to, ``<stage>/<n>/<host>/...``.
        self.stage: Path
        if self.live is not None:
            self.stage = self.live.stage()
        else:
            self.tmp = new_site_folder(site_dir)
            self.stage = self.tmp / STAGING

    def write(self, plan: SitePlan) -> Manifest:
        """Put ``plan`` in place; returns the new site's manifest.

        Raises:
            OSError: it could not be written. A new folder swapped in whole leaves site/
                as it was; a live site keeps the units already in, and the one that
                failed is finished by the next batch (:func:`acap.site.repair`).
        """
        manifest = plan.manifest()
        if self.live is not None:
            assert self.old is not None
            self.live.commit(units(self.old, plan), manifest)
            return manifest
        assert self.tmp is not None
        for host, folder in plan.staged.items():
            os.rename(folder, self.tmp / host)
        missing = plan.owned - set(plan.staged)
        assert not missing, f"hosts kept over a site no batch wrote: {sorted(missing)}"
        shutil.rmtree(self.stage, ignore_errors=True)
        write_manifest(self.tmp, manifest)
        tmp, self.tmp = self.tmp, None
        swap_in(tmp, self.site_dir)  # removes tmp when it fails
        return manifest

    def close(self) -> None:
        """Remove what is left of the batch's own folders (staged files of operators that
        failed, the folders replaced)."""
        if self.live is not None:
            self.live.close()
        if self.tmp is not None:
            shutil.rmtree(self.tmp, ignore_errors=True)
            self.tmp = None


def units(old: Manifest, plan: SitePlan) -> list[Unit]:
    """The units of change that turn the live site of ``old`` into ``plan``: each changed
    record (by card URL) and each host folder built now or gone, grouped so that a
    host and every record that names it, before or after, are in one unit (see the
    module docstring). In a stable order."""
    before = {r.card: r for r in old.records()}
    old_hosts = set(old.files_by_host()) | {h for r in before.values() for h in r.hosts}
    hosts: dict[str, Path | None] = {**{h: None for h in old_hosts - plan.owned},
                                     **plan.staged}
    cards = {c for c, r in plan.records.items()
             if (was := before.get(c)) is not r and was != r}
    cards |= {c for c in before if c not in plan.records}
    if not hosts and not cards:
        return []  # nothing changed: no tenant is touched
    groups = _Groups()
    for card in cards:
        groups.find(("card", card))
    for h in hosts:
        groups.find(("host", h))
    for card, rec in [*before.items(), *plan.records.items()]:
        for h in rec.hosts:
            if h in hosts:
                groups.join(("host", h), ("card", card))
    out: dict[tuple[str, str], Unit] = {}
    for node in sorted(groups.parent):
        unit = out.setdefault(groups.find(node), Unit())
        kind, name = node
        if kind == "card" and name in cards:
            unit.records[name] = plan.records.get(name)
        elif kind == "host":
            unit.hosts[name] = hosts[name]
            unit.files[name] = {}
    for h, files in plan.staged_files.items():
        out[groups.find(("host", h))].files[h].update(files)
    return [u for u in out.values() if u.records or u.hosts]


class _Groups:
    """Union-find over ``(kind, name)`` nodes (own code: a few lines, and no library of
    acap's has one)."""

    def __init__(self) -> None:
        self.parent: dict[tuple[str, str], tuple[str, str]] = {}

    def find(self, node: tuple[str, str]) -> tuple[str, str]:
        """The representative of ``node``'s group (``node`` joins as its own group)."""
        root = self.parent.setdefault(node, node)
        while self.parent[root] != root:
            root = self.parent[root]
        while node != root:  # the path straight to the root, for the next time
            self.parent[node], node = root, self.parent[node]
        return root

    def join(self, a: tuple[str, str], b: tuple[str, str]) -> None:
        """Put ``a`` and ``b`` in one group."""
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)
