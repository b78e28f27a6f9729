"""The new site/ of a batch build, put together from what each operator built.

A batch site holds many operators, each in its own host folders; the build
manifest records, per operator (keyed by its card URL, which stays the same
when the checkout moves), its operator file, inputs and hosts. Rules, in the
order they apply:
* **A host belongs to one operator** (``SITE-HOST``). An operator that claims a
  host the last build gave to another operator (one that is kept: not in this
  batch, or in it but failed) fails, and the owner keeps it. Two operators of
  this batch claiming one host both fail, unless one of them owned it last
  time. Which operator wins never depends on file order.
* **An operator that failed keeps its previous folders**, found by its operator
  file or by the key it signs with (see :class:`_Owners`).
* **Operators of the last build that are not in this batch are kept**, with
  their folders, unless ``prune``; pruning is skipped (``SITE-PRUNE`` warning)
  when an operator of this batch failed before its card URL was known, since
  its previous folders could then not be told apart.
* ``--no-pages`` over a site built with pages says what it removes
  (``SITE-PAGES`` warning); operators signing with one key file are told
  (``KEY`` warning).
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from acap.builder.batch._model import STAGING, BatchOptions, BatchResult, OperatorOutcome
from acap.findings import Finding, Location
from acap.site import Manifest, read_manifest, swap_in, write_failure, write_files, write_manifest
from acap.uris import SPEC_BASE

#: The host of the extension's own site (``specSite: true``): every operator that
#: builds it builds the same files, so it belongs to none of them.
SPEC_HOST = str(urlsplit(SPEC_BASE).hostname)


def assemble_site(result: BatchResult, options: BatchOptions, tmp: Path,
                  site_dir: Path) -> bool:
    """Put the new site/ together in ``tmp`` (see the module docstring) and swap it in.

    Args:
        result: the batch's outcomes; operators refused here get their error.
        options: the batch's options (``site_dir``, ``prune``, ``pages``).
        tmp: the new site folder, each operator's files staged under
            :data:`acap.builder.batch._model.STAGING`.
        site_dir: the site folder it replaces (:func:`acap.site._files.real_site_dir`).

    Returns:
        Whether site/ was replaced. ``tmp`` is gone either way (swapped in or removed).
    """
    try:
        old = read_manifest(site_dir) or Manifest({})
        records = old.records()
        old_files = old.files_by_host()
        owners = _Owners(result, records, site_dir)
        while True:  # each round only takes operators out, so it ends
            kept, pruned, held = _surviving_records(result, records, options.prune, owners)
            if not _claim_hosts(result, kept, records, owners):
                break
        if held is not None:
            result.report.add(held)
        _shared_keys(result)
        if not options.pages:
            _removed_pages(result, old_files)
        digests: dict[str, str] = {}
        operators: dict[str, dict[str, Any]] = {}
        owned: set[str] = set()
        for o in result.built:
            assert o.staged is not None and o.card_url is not None
            for h in o.hosts:
                if h not in owned:
                    os.rename(o.staged / h, tmp / h)
                    owned.add(h)
            digests.update(o.digests)
            operators[o.card_url] = {"config": owners.real[id(o)],
                                     "configFromSite": owners.from_site[id(o)],
                                     "card": o.card_url, "inputs": o.inputs, "hosts": o.hosts,
                                     "keys": o.key_thumbprints}
        shutil.rmtree(tmp / STAGING, ignore_errors=True)
        if not result.built:
            shutil.rmtree(tmp, ignore_errors=True)
            return False
        for rec in kept:
            hosts = [str(h) for h in rec.get("hosts", []) if str(h) not in owned]
            for host in hosts:
                digests.update(_carry_over(tmp, site_dir, old_files.get(host, [])))
                owned.add(host)
            operators.setdefault(rec["card"], {**rec, "hosts": hosts})
        cards = {o.card_url for o in result.outcomes}
        result.kept = sorted(r["card"] for r in kept
                             if owners.owner(r) is None and r["card"] not in cards)
        result.pruned = sorted(r["card"] for r in pruned)
        write_manifest(tmp, Manifest.of_batch(operators, digests))
    except BaseException as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        if isinstance(exc, OSError):
            result.report.add(write_failure(options.site_dir, exc))
            return False
        raise
    try:
        swap_in(tmp, site_dir)
    except OSError as exc:
        result.report.add(write_failure(options.site_dir, exc))
        return False
    return True


class _Owners:
    """Which operator of this batch each record of the last build is: the same operator
    file (its path, or its path from the folder holding site/, the same when a CI
    runner checks the project out in a new folder), else the operator that signs
    with a key that record published (the one with its card, when several do).
    Another operator claiming that card with its own key (a takeover) is none of
    these. Indexed once, so that a batch of thousands is not compared pair by pair."""

    def __init__(self, result: BatchResult, records: list[dict[str, Any]],
                 site_dir: Path) -> None:
        base = os.path.realpath(site_dir.parent)
        self.real: dict[int, str] = {}
        self.from_site: dict[int, str] = {}
        by_real: dict[str, OperatorOutcome] = {}
        by_rel: dict[str, OperatorOutcome] = {}
        by_key: dict[str, list[OperatorOutcome]] = {}
        for o in result.outcomes:
            real = self.real[id(o)] = os.path.realpath(o.config)
            rel = self.from_site[id(o)] = os.path.relpath(real, base)
            by_real.setdefault(real, o)
            by_rel.setdefault(rel, o)
            for k in o.key_thumbprints:
                by_key.setdefault(k, []).append(o)
        self._of: dict[int, OperatorOutcome | None] = {}
        for rec in records:
            mine = by_real.get(str(rec.get("config"))) or \
                by_rel.get(str(rec.get("configFromSite")))
            if mine is None:
                signers = {id(o): o for k in rec.get("keys") or [] for o in by_key.get(k, [])}
                if len(signers) > 1:  # one key file for several: the one with the card
                    signers = {i: o for i, o in signers.items() if o.card_url == rec["card"]}
                if len(signers) == 1:
                    mine = next(iter(signers.values()))
            self._of[id(rec)] = mine

    def owner(self, rec: dict[str, Any]) -> OperatorOutcome | None:
        """The operator of this batch ``rec`` is the record of, if any."""
        return self._of.get(id(rec))


def _surviving_records(result: BatchResult, records: list[dict[str, Any]], prune: bool,
                       owners: _Owners) -> tuple[list[dict[str, Any]], list[dict[str, Any]],
                                                 Finding | None]:
    """``(kept, pruned, why not pruned)``: the last build's records whose folders go on
    into the new site: those of operators that failed now, and, unless pruning,
    those of operators not in this batch. Records of operators built now are
    neither. The finding says why pruning was held back, if it was."""
    kept, unmatched = [], []
    for rec in records:
        o = owners.owner(rec)
        if o is None:
            unmatched.append(rec)
        elif not o.built:
            kept.append(rec)
    if not prune:
        return kept + unmatched, [], None
    # Never pruned: a card an operator of this batch has (its own, or one it contests).
    cards = {o.card_url for o in result.outcomes}
    kept += [r for r in unmatched if r["card"] in cards]
    unmatched = [r for r in unmatched if r["card"] not in cards]
    unknown = [o for o in result.failed if o.card_url is None]
    if unknown and unmatched:
        return kept + unmatched, [], Finding(
            "SITE-PRUNE", "warning", f"nothing was pruned: {unknown[0].config} could not be "
            "read far enough to know its card, so its previous folders cannot be told apart "
            "from those of operators that left the batch", Location(str(unknown[0].config)),
            "fix that file (its error is above) and build again with --prune")
    return kept, unmatched, None


def _claim_hosts(result: BatchResult, kept: list[dict[str, Any]],
                 records: list[dict[str, Any]], owners: _Owners) -> bool:
    """Refuse the operators whose hosts belong to another (``SITE-HOST``); see the module
    docstring. Decided on the claims as made, so the order of the files does not
    matter. Returns whether any operator was refused."""
    kept_owner = {str(h): r for r in kept for h in r.get("hosts", []) if h != SPEC_HOST}
    last_owner = {str(h): r for r in records for h in r.get("hosts", [])}
    claims: dict[str, list[OperatorOutcome]] = {}
    for o in result.built:
        for h in o.hosts:
            claims.setdefault(h, []).append(o)
    refused: dict[int, Finding] = {}
    for o in result.built:
        for h in o.hosts:
            where = o.host_places.get(h, Location(str(o.config)))
            if h == SPEC_HOST:  # the extension's own site: shared, when built alike
                odd = [c for c in claims[h] if not _same_files(c, o, h)]
                if odd:
                    refused[id(o)] = Finding(
                        "SITE-HOST", "error", f"the specification site ({h}) built for "
                        f"{odd[0].config} differs from this one's", Location(str(o.config)),
                        "build the batch with one acap version and the same specSite "
                        "settings, or with --no-spec-site")
                    break
                continue
            owner = kept_owner.get(h)
            rivals = [c for c in claims[h] if c is not o]
            last = last_owner.get(h)
            if rivals and last is not None and owners.owner(last) in rivals:
                owner = last  # a rival is the last owner, and builds now
            if owner is not None and owners.owner(owner) is not o:
                refused[id(o)] = Finding(
                    "SITE-HOST", "error", f"host {h} belongs to another operator: the last "
                    f"build published it for the card {owner['card']}"
                    + (f" ({owner['config']})" if isinstance(owner.get("config"), str) else ""),
                    where, f"remove {h} from this file, or, if that operator has left, build "
                    "without it and with --prune first")
                break
            if rivals and not (last is not None and owners.owner(last) is o):
                names = ", ".join(str(c.config) for c in rivals)
                refused[id(o)] = Finding(
                    "SITE-HOST", "error", f"host {h} is also built by {names}; a host "
                    "belongs to one operator", where,
                    f"remove {h} from all but one of these operator files")
                break
    for o in result.built:
        if id(o) in refused:
            o.fail(refused[id(o)])
    return bool(refused)


def _same_files(a: OperatorOutcome, b: OperatorOutcome, host: str) -> bool:
    """True when ``a`` and ``b`` build ``host`` with the very same files."""
    prefix = host + "/"
    return ({r: d for r, d in a.digests.items() if r.startswith(prefix)}
            == {r: d for r, d in b.digests.items() if r.startswith(prefix)})


def _shared_keys(result: BatchResult) -> None:
    """``KEY`` warnings for operators of this batch signing with one key file: two
    operators' cards would then verify under each other's JWKS."""
    by_key: dict[str, list[OperatorOutcome]] = {}
    for o in result.built:
        if o.key_file is not None:
            by_key.setdefault(o.key_file, []).append(o)
    for key, ops in by_key.items():
        for o in ops[1:] if len(ops) > 1 else ():
            o.report.add(Finding(
                "KEY", "warning", f"signs with the same key file as {ops[0].config} ({key})",
                o.key_place or Location(str(o.config)),
                "give each operator its own signing.keyFile (each folder's .acap/ "
                "holds its own by default), then run acap keys new for it"))


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


def _carry_over(tmp: Path, site_dir: Path, files: list[str]) -> dict[str, str]:
    """Copy ``files`` of the previous build (one host's, as its manifest lists them) into
    the new site folder ``tmp``; returns their digests."""
    out: dict[str, str] = {}
    for rel in files:
        try:
            data = (site_dir / rel).read_bytes()
        except OSError:
            continue
        write_files(tmp, [(rel, data)])
        out[rel] = hashlib.sha256(data).hexdigest()
    return out
