"""What the new site/ of a batch holds, decided from what each operator built and what the
last batch recorded (:func:`plan_site`); :mod:`acap.builder.batch._write` then writes it.

A batch site holds many operators, each in its own host folders; the build manifest
records, per operator (keyed by its card URL, which stays the same when the checkout
moves), its operator file, inputs and hosts (:class:`acap.site.OperatorRecord`). Rules,
in the order they apply:
* **A host folder acap did not write is never deleted** (``SITE-PATH``): an operator
  whose new build would replace or remove one of its host folders holding files the last
  build did not write fails (unless ``--force``), and keeps its folders.
* **A host belongs to one operator** (``SITE-HOST``). An operator that claims a
  host the last build gave to another operator (one that is kept: not in this
  batch, or in it but failed) fails, and the owner keeps it. Two operators of
  this batch claiming one host both fail, unless one of them owned it last
  time. Which operator wins never depends on file order.
* **An operator is who it can prove to be** (issue 12): its operator file, or the
  key it signs with once that file has moved away (see :class:`_Owners`), never a
  public key it lists. Two operators never sign with one key, nor with a key that
  signed another operator's card; a previous key is one the operator published
  itself (``KEY-OWNER``, :func:`_key_owners`).
* **No tenant's finding names another tenant's file**: each tenant is hostile to the
  others, and a folder's name may be a customer's. A refusal says "another operator of
  this batch" (and a card's public URL); the platform reading every tenant's outcome
  sees each file refused for the same host or key.
* **The specification site's host** is built only by ``specSite: true`` (the same
  files for every operator); an operator naming it as a host of its own fails,
  and no one else does (``SITE-HOST``).
* **An operator that failed keeps its previous folders**, and an operator whose
  inputs and outputs did not change is kept as it is (``reused``): their folders are
  not touched.
* **Operators of the last build that are not in this batch are kept**, with
  their folders, unless ``prune``; pruning is skipped (``SITE-PRUNE`` warning)
  when an operator of this batch failed before its card URL was known, since
  its previous folders could then not be told apart.
* ``--no-pages`` over a site built with pages says what it removes
  (``SITE-PAGES`` warning).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from acap.builder.batch._model import BatchOptions, BatchResult, OperatorOutcome
from acap.findings import Finding, Location
from acap.load import real_path
from acap.site import Manifest, OperatorRecord, Place, stray_files, stray_finding
from acap.uris import SPEC_HOST

__all__ = ["SitePlan", "plan_site"]


@dataclass
class SitePlan:
    """What the new site/ holds.

    Attributes:
        records: the manifest's records, by card URL.
        files: ``{path under site/: sha256 hex}`` of every file.
        staged: ``{host: the folder built for it now}``: the hosts whose folders are
            new; every other host of ``records`` keeps its folder as it is.
        staged_files: ``{host: {path under site/: sha256 hex}}`` of the hosts of
            ``staged``.
        owned: every host of ``records``.
    """

    records: dict[str, OperatorRecord] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)
    staged: dict[str, Path] = field(default_factory=dict)
    staged_files: dict[str, dict[str, str]] = field(default_factory=dict)
    owned: set[str] = field(default_factory=set)

    def manifest(self) -> Manifest:
        """The new site's build manifest."""
        return Manifest.of_batch(self.records.values(), self.files)


@dataclass
class _Last:
    """The last build as this batch sees it: its records, its files by host, and whether
    its host folders are judged for files it did not write before one is replaced."""

    manifest: Manifest
    records: list[OperatorRecord]
    files: dict[str, str]
    by_host: dict[str, list[str]]
    site_dir: Path
    shown: Path
    judge: bool

    @classmethod
    def of(cls, old: Manifest | None, site_dir: Path, options: BatchOptions) -> _Last:
        """What the batch knows of the last build from its manifest ``old``."""
        old = old if old is not None else Manifest({})
        batch = old.is_batch
        return cls(old, old.records() if batch else [], old.files, old.files_by_host(),
                   site_dir, options.site_dir, batch and not options.force)

    def stray(self, hosts: list[str]) -> Finding | None:
        """The ``SITE-PATH`` error for the host folders of ``hosts`` holding files the last
        build did not write, when they are judged; ``None`` when none does."""
        if not self.judge:
            return None
        found: list[str] = []
        for h in hosts:  # a folder the manifest does not list at all is judged too
            found += stray_files(self.site_dir, self.manifest, h)
        if not found:
            return None
        return stray_finding(f"the site folder {self.shown}", sorted(found),
                             Location(str(self.shown)), "this build replaces their host "
                             "folders")


def plan_site(result: BatchResult, options: BatchOptions, site_dir: Path,
              old: Manifest | None, reals: dict[str, str] | None = None) -> SitePlan | None:
    """Decide what the new site/ holds (see the module docstring); operators refused
    here get their error, and ``result.kept``/``result.pruned`` are set.

    Args:
        result: the batch's outcomes.
        options: the batch's options (``prune``, ``pages``, ``force``).
        site_dir: the site folder (:func:`acap.site.real_site_dir`).
        old: its manifest, as read once for the batch (``None``: none).
        reals: ``{operator file as named: its real path}``, as the batch found them
            (each is resolved here when not given).

    Returns:
        The plan, or ``None`` when no operator built (site/ stays as it is).
    """
    last = _Last.of(old, site_dir, options)
    # an operator's own warnings, before the batch adds any about the others
    own = {id(o): tuple(o.report.warnings) for o in result.outcomes}
    owners = _Owners(result, last.records, site_dir, reals or {})
    _refuse_strays(result, owners, last)
    _key_owners(result, last.records, owners)
    while True:  # each round only takes operators out, so it ends
        kept, pruned, held = _surviving_records(result, last, options.prune, owners)
        if not _claim_hosts(result, kept, last.records, owners):
            break
    if held is not None:
        result.report.add(held)
    if not options.pages:
        _removed_pages(result, last.by_host)
    if not result.built:
        return None
    plan = SitePlan()
    for o in result.built:
        _add_built(plan, o, owners, own[id(o)])
    for rec in kept:
        hosts = tuple(h for h in rec.hosts if h not in plan.owned)
        for host in hosts:
            plan.files.update((r, last.files[r]) for r in last.by_host.get(host, ()))
        plan.owned.update(hosts)
        plan.records.setdefault(rec.card, _with_hosts(rec, hosts))
    cards = {o.card_url for o in result.outcomes}
    result.kept = sorted(r.card for r in kept if owners.owner(r) is None and r.card not in cards)
    result.pruned = sorted(r.card for r in pruned)
    return plan


def _add_built(plan: SitePlan, o: OperatorOutcome, owners: _Owners,
               warnings: tuple[Finding, ...]) -> None:
    """Put an operator that built (or was kept as it was) into ``plan``: its record, its
    files, and the folders it built now (a host the plan has already, the shared
    specification site's, is not built twice)."""
    assert o.card_url is not None
    if not o.reused:
        assert o.staged is not None
        for h in o.hosts:
            if h not in plan.owned:
                plan.staged[h] = o.staged / h
                prefix = h + "/"
                plan.staged_files[h] = {r: d for r, d in o.digests.items()
                                        if r.startswith(prefix)}
    plan.owned.update(o.hosts)
    plan.files.update(o.digests)
    plan.records[o.card_url] = _record(o, owners, warnings)


def _with_hosts(rec: OperatorRecord, hosts: tuple[str, ...]) -> OperatorRecord:
    """``rec`` owning ``hosts`` (itself when they are its own)."""
    if hosts == rec.hosts:
        return rec
    from dataclasses import replace  # start-up: rare (a kept record losing the spec host)

    return replace(rec, hosts=hosts)


def _record(o: OperatorOutcome, owners: _Owners, warnings: tuple[Finding, ...]
            ) -> OperatorRecord:
    """The manifest's record of an operator that built (or was kept as it was): who it
    is (operator file, signing key), what it built, and what the next batch needs to
    keep it without a rebuild (:func:`acap.builder.batch._keep.reuse`)."""
    assert o.card_url is not None
    last = o.last
    if last is not None and last.config == owners.real[id(o)] and \
            last.config_from_site == owners.from_site[id(o)] and last.warnings == warnings:
        return last  # kept as it was, where it was: its record as it is
    return OperatorRecord(
        card=o.card_url, config=owners.real[id(o)], config_from_site=owners.from_site[id(o)],
        inputs=o.inputs, hosts=tuple(o.hosts), keys=tuple(o.key_thumbprints),
        signer=o.signer, key_file=o.key_file, state=o.state, reads=tuple(o.reads),
        warnings=warnings, places={h: _place(loc) for h, loc in o.host_places.items()},
        key_place=_place(o.key_place), previous_place=_place(o.previous_place))


def _place(loc: Location | None) -> Place | None:
    return (loc.line, loc.column or 1) if loc is not None and loc.line is not None else None


class _Owners:
    """Which operator of this batch each record of the last build is: the same operator
    file (its path, or its path from the folder holding site/, the same when a CI
    runner checks the project out in a new folder), else the operator that signs
    with the key that record signed with (the one with its card, when several do),
    provided that record's own operator file is gone (moved away): a key another
    operator file still names is that file's, whoever else holds it. A public key an
    operator lists among its previous keys recognises nobody (issue 12: a tenant
    listed another's published key and was taken for it). Indexed once, so that a
    batch of thousands is not compared pair by pair."""

    def __init__(self, result: BatchResult, records: list[OperatorRecord],
                 site_dir: Path, reals: dict[str, str]) -> None:
        base = real_path(site_dir.parent)
        self.real: dict[int, str] = {}
        self.from_site: dict[int, str] = {}
        by_real: dict[str, OperatorOutcome] = {}
        by_rel: dict[str, OperatorOutcome] = {}
        by_signer: dict[str, list[OperatorOutcome]] = {}
        inside = base.rstrip(os.sep) + os.sep
        for o in result.outcomes:
            real = self.real[id(o)] = reals.get(str(o.config)) or real_path(o.config)
            rel = self.from_site[id(o)] = real[len(inside):] if real.startswith(inside) \
                else os.path.relpath(real, base)  # the first: relpath's answer, quicker
            by_real.setdefault(real, o)
            by_rel.setdefault(rel, o)
            if o.signer is not None:
                by_signer.setdefault(o.signer, []).append(o)
        self._of: dict[int, OperatorOutcome | None] = {}
        for rec in records:
            mine: OperatorOutcome | None = by_real.get(rec.config) or \
                by_rel.get(rec.config_from_site)
            if mine is None and rec.signer is not None and not rec.still_there():
                signers = by_signer.get(rec.signer, [])
                if len(signers) > 1:  # one key for several: the one with the card
                    signers = [o for o in signers if o.card_url == rec.card]
                if len(signers) == 1:
                    mine = signers[0]
            self._of[id(rec)] = mine
        self.last = {id(who): r for r in records if (who := self._of[id(r)]) is not None}

    def owner(self, rec: OperatorRecord) -> OperatorOutcome | None:
        """The operator of this batch ``rec`` is the record of, if any."""
        return self._of.get(id(rec))


def _refuse_strays(result: BatchResult, owners: _Owners, last: _Last) -> None:
    """Fail (``SITE-PATH``) each operator built now whose new build would replace or
    remove a host folder holding files the last build did not write."""
    for o in result.built:
        if o.reused:
            continue
        rec = owners.last.get(id(o))
        finding = last.stray([*o.hosts, *(h for h in rec.hosts if h not in o.hosts)]
                             if rec is not None else list(o.hosts))
        if finding is not None:
            o.fail(finding)


def _key_owners(result: BatchResult, records: list[OperatorRecord], owners: _Owners) -> None:
    """``KEY-OWNER`` errors (issue 12): two operators never sign with one key, and none
    signs with a key that signed another operator's card in the last build (each
    card would verify under the other's JWKS, and the key would make it the owner of
    the other's hosts). A previous key is listed only when it was this operator's own
    in the last build (a newcomer may bring keys that are nobody's): another
    operator's public key, copied from its JWKS, is refused at the line naming the
    previous keys. The operator that had the key last time keeps it; when none did,
    every operator using it fails."""
    mine, others = _last_keys(records, owners)
    signing: dict[str, list[OperatorOutcome]] = {}
    for o in result.built:
        if o.signer is not None:
            signing.setdefault(o.signer, []).append(o)
    refused: dict[int, Finding] = {}
    for key, ops in signing.items():
        for o in ops:
            found = _signer_refusal(o, key, ops, mine, others)
            if found is not None:
                refused[id(o)] = found
    for o in result.built:
        if id(o) not in refused:
            found = _previous_key_refusal(o, mine, others, signing)
            if found is not None:
                refused[id(o)] = found
    for o in result.built:
        if id(o) in refused:
            o.fail(refused[id(o)])


def _last_keys(records: list[OperatorRecord], owners: _Owners
               ) -> tuple[dict[int, set[str]], dict[str, OperatorRecord]]:
    """The keys of the last build: ``({id of an operator of this batch: the keys its
    record had}, {thumbprint: a record that had it})``."""
    mine: dict[int, set[str]] = {}
    others: dict[str, OperatorRecord] = {}
    for rec in records:
        keys = {*rec.keys, *([rec.signer] if rec.signer else [])}
        o = owners.owner(rec)
        if o is not None:
            mine.setdefault(id(o), set()).update(keys)
        for k in keys:
            others.setdefault(k, rec)
    return mine, others


def _signer_refusal(o: OperatorOutcome, key: str, ops: list[OperatorOutcome],
                    mine: dict[int, set[str]], others: dict[str, OperatorRecord]
                    ) -> Finding | None:
    """Why ``o`` may not sign with ``key``, which ``ops`` (``o`` among them) sign with: a
    rival signs with it too and ``o`` is not the one that had it last time, or it
    signed another operator's card in the last build."""
    had = [c for c in ops if key in mine.get(id(c), set())]
    rivals = [c for c in ops if c is not o]
    where = o.key_place or Location(str(o.config))
    if rivals and not (len(had) == 1 and had[0] is o):
        return Finding(
            "KEY-OWNER", "error", "signs with the same key as another operator of this "
            "batch: in a batch no two operators sign with one key (each card would verify under "
            "the other's keys)", where, "give each operator its own signing key in its own "
            "folder (signing.keyFile), then run acap keys new for it")
    other = others.get(key)
    if other is not None and key not in mine.get(id(o), set()):
        return Finding(
            "KEY-OWNER", "error", "signs with the key that signed another operator's "
            f"card in the last build ({other.card}); a key is one "
            "operator's", where, "give this operator its own signing key (signing.keyFile "
            "in its own folder); if it is that operator, moved, build it from its old path "
            "once")
    return None


def _previous_key_refusal(o: OperatorOutcome, mine: dict[int, set[str]],
                          others: dict[str, OperatorRecord],
                          signing: dict[str, list[OperatorOutcome]]) -> Finding | None:
    """Why ``o`` may not list one of its previous keys: another operator's, or (for an
    operator of the last build) a key it did not publish then."""
    owned = mine.get(id(o), set())
    newcomer = id(o) not in mine
    for key in o.key_thumbprints[1:]:
        if key in owned:
            continue
        theirs = others.get(key)
        users = [c for c in signing.get(key, []) if c is not o]
        if theirs is None and not users and newcomer:
            continue  # a key nobody had, brought by an operator new to this site
        whose = (f"the key of another operator ({theirs.card})" if theirs is not None
                 else "the signing key of another operator of this batch" if users else
                 "a key this operator did not publish in the last build")
        return Finding(
            "KEY-OWNER", "error", f"its previous keys list {whose}; a previous key is one "
            "this operator published itself", o.previous_place or Location(str(o.config)),
            "remove that key from the previous-keys file (signing.previousKeys); only "
            "keys this operator signed with belong there")
    return None


def _surviving_records(result: BatchResult, last: _Last, prune: bool, owners: _Owners
                       ) -> tuple[list[OperatorRecord], list[OperatorRecord], Finding | None]:
    """``(kept, pruned, why not pruned)``: the last build's records whose folders go on
    into the new site: those of operators that failed now, and, unless pruning,
    those of operators not in this batch. Records of operators built now are
    neither. The finding says why pruning was held back, if it was (or why one
    record was not pruned: its folders hold files acap did not write)."""
    kept, unmatched = [], []
    for rec in last.records:
        o = owners.owner(rec)
        if o is None:
            unmatched.append(rec)
        elif not o.built:
            kept.append(rec)
    if not prune:
        return kept + unmatched, [], None
    # Never pruned: a card an operator of this batch has (its own, or one it contests).
    cards = {o.card_url for o in result.outcomes}
    kept += [r for r in unmatched if r.card in cards]
    unmatched = [r for r in unmatched if r.card not in cards]
    unknown = [o for o in result.failed if o.card_url is None]
    if unknown and unmatched:
        return kept + unmatched, [], Finding(
            "SITE-PRUNE", "warning", f"nothing was pruned: {unknown[0].config} could not be "
            "read far enough to know its card, so its previous folders cannot be told apart "
            "from those of operators that left the batch", Location(str(unknown[0].config)),
            "fix that file (its error is above) and build again with --prune")
    held: Finding | None = None
    pruned = []
    for rec in unmatched:
        stray = last.stray(list(rec.hosts))
        if stray is None:
            pruned.append(rec)
        else:
            kept.append(rec)
            held = held or stray
    return kept, pruned, held


def _claim_hosts(result: BatchResult, kept: list[OperatorRecord],
                 records: list[OperatorRecord], owners: _Owners) -> bool:
    """Refuse the operators whose hosts belong to another (``SITE-HOST``); see the module
    docstring. Decided on the claims as made, so the order of the files does not
    matter. Returns whether any operator was refused."""
    claims = _Claims(kept, records, owners)
    refused: dict[int, tuple[Finding, bool]] = {}
    for o in result.built:
        if SPEC_HOST in o.host_places:  # named as its own: refused, alone
            refused[id(o)] = (Finding(
                "SITE-HOST", "error", f"{SPEC_HOST} is the host of the extension's "
                "specification site, which acap builds for specSite: true; it is no "
                "operator's own host", o.host_places[SPEC_HOST],
                f"remove {SPEC_HOST} from this file (specSite: true builds that site)"), False)
            continue
        for h in o.hosts:
            claims.by_host.setdefault(h, []).append(o)
    for o in result.built:
        if id(o) not in refused:
            found = next((r for h in o.hosts if (r := claims.refusal(o, h)) is not None), None)
            if found is not None:
                refused[id(o)] = found
    for o in result.built:
        if id(o) in refused:
            finding, card_host = refused[id(o)]
            if card_host:
                # The JWKS in site/ for that host is the other operator's: its kids are
                # not this one's to keep or rotate (a tenant told to run acap keys rotate
                # --lost for another tenant's kid).
                o.report.findings = [f for f in o.report.findings if f not in o.history]
            o.fail(finding)
    return bool(refused)


class _Claims:
    """The claims on each host, and who owned it (see :func:`_claim_hosts`)."""

    def __init__(self, kept: list[OperatorRecord], records: list[OperatorRecord],
                 owners: _Owners) -> None:
        self.kept_owner = {h: r for r in kept for h in r.hosts if h != SPEC_HOST}
        self.last_owner = {h: r for r in records for h in r.hosts}
        self.owners = owners
        self.by_host: dict[str, list[OperatorOutcome]] = {}

    def refusal(self, o: OperatorOutcome, h: str) -> tuple[Finding, bool] | None:
        """Why ``o`` may not build ``h`` (and whether ``h`` is its card's host), if so."""
        where = o.host_places.get(h, Location(str(o.config)))
        rivals = [c for c in self.by_host[h] if c is not o]
        if h == SPEC_HOST:  # the extension's own site: shared, when built alike
            odd = [c for c in self.by_host[h] if not _same_files(c, o, h)]
            return None if not odd else (Finding(
                "SITE-HOST", "error", f"the specification site ({h}) built for another "
                "operator of this batch differs from this one's", Location(str(o.config)),
                "build the batch with one acap version and the same specSite settings, or "
                "with --no-spec-site"), False)
        owner = self.kept_owner.get(h)
        last = self.last_owner.get(h)
        last_is_rival = last is not None and self.owners.owner(last) in rivals
        if last_is_rival:
            owner = last  # a rival is the last owner, and builds now
        if owner is not None and self.owners.owner(owner) is not o:
            return Finding(
                "SITE-HOST", "error", f"host {h} belongs to another operator: the last "
                f"build published it for the card {owner.card}", where,
                f"remove {h} from this file, or, if that operator has left, build without it "
                "and with --prune first"), _is_card_host(o, h)
        if rivals and not (last is not None and self.owners.owner(last) is o):
            others = "another operator" if len(rivals) == 1 else f"{len(rivals)} other operators"
            return Finding("SITE-HOST", "error", f"host {h} is also built by {others} of "
                           "this batch; a host belongs to one operator", where,
                           f"remove {h} from all but one of the operator files that name it "
                           "(the batch's output lists each file refused for it)"
                           ), _is_card_host(o, h)
        return None


def _is_card_host(o: OperatorOutcome, host: str) -> bool:
    """Whether ``host`` is the host of ``o``'s card."""
    return o.card_url is not None and urlsplit(o.card_url).hostname == host


def _same_files(a: OperatorOutcome, b: OperatorOutcome, host: str) -> bool:
    """True when ``a`` and ``b`` build ``host`` with the very same files."""
    prefix = host + "/"
    return ({r: d for r, d in a.digests.items() if r.startswith(prefix)}
            == {r: d for r, d in b.digests.items() if r.startswith(prefix)})


def _removed_pages(result: BatchResult, old_files: dict[str, list[str]]) -> None:
    """A ``SITE-PAGES`` warning for each operator whose pages of the last build this
    ``--no-pages`` build removes (the personEntry pages its card sends people to)."""
    for o in result.built:
        gone = [r for h in o.hosts for r in old_files.get(h, [])
                if r.endswith(".html") and r not in o.digests]
        if gone:
            o.report.add(Finding(
                "SITE-PAGES", "warning", f"--no-pages removes the {len(gone)} pages the last "
                f"build wrote for its hosts (e.g. {gone[0]}), including the personEntry pages "
                "its card sends people to", Location(str(o.config)),
                "build without --no-pages to keep them"))
