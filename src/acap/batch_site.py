"""The new site/ of a batch build, put together from what each operator built.

A batch site holds many operators, each in its own host folders; the build
manifest records, per operator (keyed by its card URL, which stays the same
when the checkout moves), its operator file, inputs and hosts. Rules, in the
order they apply:

* **A host belongs to one operator** (``SITE-HOST``). An operator that claims a
  host the last build gave to another operator (one that is kept: not in this
  batch, or in it but failed) fails, and the owner keeps it. Two operators of
  this batch claiming one host with different files both fail, unless one of
  them owned it last time. Which operator wins never depends on file order.
* **An operator that failed keeps its previous folders**, found by its card URL
  (or, when operator.yaml could not be read that far, by its file).
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
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import __version__
from .batch import STAGING, BatchOptions, BatchResult, OperatorOutcome, write_failure
from .findings import Finding, Location
from .site import MANIFEST, read_manifest, swap_in, write_files, write_manifest


def previous_records(manifest: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The per-operator records of a batch manifest (any key: card URL, or the operator
    file's path in manifests of earlier acap versions), each with a ``card``."""
    ops = (manifest or {}).get("operators")
    return [{"config": key, **r} for key, r in (ops.items() if isinstance(ops, dict) else ())
            if isinstance(r, dict) and isinstance(r.get("card"), str)]


def assemble_site(result: BatchResult, options: BatchOptions, tmp: Path) -> bool:
    """Put the new site/ together in ``tmp`` (see the module docstring) and swap it in.

    Args:
        result: the batch's outcomes; operators refused here get their error.
        options: the batch's options (``site_dir``, ``prune``, ``pages``).
        tmp: the new site folder, each operator's files staged under
            :data:`acap.batch.STAGING`.

    Returns:
        Whether site/ was replaced. ``tmp`` is gone either way (swapped in or removed).
    """
    site_dir = options.site_dir.absolute()
    try:
        old = read_manifest(site_dir) or {}
        records = previous_records(old)
        same = _same_card(result)

        def matches(o: OperatorOutcome, rec: dict[str, Any]) -> bool:
            return _matches(o, rec, same, site_dir)

        while True:  # each round only takes operators out, so it ends
            kept, pruned = _surviving_records(result, records, options.prune, matches)
            if not _claim_hosts(result, kept, records, matches):
                break
        _shared_keys(result)
        if not options.pages:
            _removed_pages(result, old)
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
            operators[o.card_url] = {"config": str(o.config.resolve()),
                                     "configFromSite": _from_site(o.config, site_dir),
                                     "card": o.card_url, "inputs": o.inputs, "hosts": o.hosts,
                                     "keys": o.key_thumbprints}
        shutil.rmtree(tmp / STAGING, ignore_errors=True)
        if not result.built:
            shutil.rmtree(tmp, ignore_errors=True)
            return False
        for rec in kept:
            hosts = [str(h) for h in rec.get("hosts", []) if str(h) not in owned]
            for host in hosts:
                digests.update(_carry_over(tmp, site_dir, host, old))
                owned.add(host)
            operators.setdefault(rec["card"], {**rec, "hosts": hosts})
        result.kept = sorted(r["card"] for r in kept
                             if not any(o.card_url == r["card"] for o in result.outcomes))
        result.pruned = sorted(r["card"] for r in pruned)
        write_manifest(tmp, {"acap": __version__, "operators": dict(sorted(operators.items())),
                             "files": dict(sorted(digests.items()))})
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


def _same_card(result: BatchResult) -> set[str]:
    """Card URLs that more than one operator of the batch has (they then contest the
    card host, and are told apart by their operator files)."""
    seen: set[str] = set()
    twice: set[str] = set()
    for o in result.outcomes:
        if o.card_url is not None:
            (twice if o.card_url in seen else seen).add(o.card_url)
    return twice


Matcher = Callable[[OperatorOutcome, dict[str, Any]], bool]


def _from_site(config: Path, site_dir: Path) -> str:
    """The operator file's path from the folder holding site/ (the same when a CI runner
    checks the project out in a new folder, site/ within it)."""
    return os.path.relpath(os.path.realpath(config), os.path.realpath(site_dir.parent))


def _matches(o: OperatorOutcome, rec: dict[str, Any], same: set[str], site_dir: Path) -> bool:
    """True when ``rec`` is the last build's record of ``o``: the same operator file (its
    path, or its path from the folder holding site/), or, when no other operator
    of this batch has its card, the same card signed with a key it published then.
    Another operator file claiming that card (a takeover) is none of these."""
    config = rec.get("config")
    if isinstance(config, str) and os.path.realpath(config) == os.path.realpath(o.config):
        return True
    if rec.get("configFromSite") == _from_site(o.config, site_dir):
        return True
    if o.card_url is None or o.card_url in same or rec.get("card") != o.card_url:
        return False
    return bool(set(o.key_thumbprints) & set(rec.get("keys") or []))


def _surviving_records(result: BatchResult, records: list[dict[str, Any]], prune: bool,
                       matches: Matcher) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``(kept, pruned)``: the last build's records whose folders go on into the new
    site: those of operators that failed now, and, unless pruning, those of
    operators not in this batch. Records of operators built now are neither."""
    built, failed = result.built, result.failed
    kept, unmatched = [], []
    for rec in records:
        if any(matches(o, rec) for o in built):
            continue
        if any(matches(o, rec) for o in failed):
            kept.append(rec)
        else:
            unmatched.append(rec)
    if not prune:
        return kept + unmatched, []
    # Never pruned: a card an operator of this batch has (its own, or one it contests).
    cards = {o.card_url for o in result.outcomes}
    kept += [r for r in unmatched if r["card"] in cards]
    unmatched = [r for r in unmatched if r["card"] not in cards]
    unknown = [o for o in failed if o.card_url is None]
    if unknown and unmatched:
        result.report.add(Finding(
            "SITE-PRUNE", "warning", f"nothing was pruned: {unknown[0].config} could not be "
            "read far enough to know its card, so its previous folders cannot be told apart "
            "from those of operators that left the batch", Location(str(unknown[0].config)),
            "fix that file (its error is above) and build again with --prune"))
        return kept + unmatched, []
    return kept, unmatched


def _claim_hosts(result: BatchResult, kept: list[dict[str, Any]],
                 records: list[dict[str, Any]], matches: Matcher) -> bool:
    """Refuse the operators whose hosts belong to another (``SITE-HOST``); see the module
    docstring. Decided on the claims as made, so the order of the files does not
    matter. Returns whether any operator was refused."""
    kept_owner = {str(h): r for r in kept for h in r.get("hosts", [])}
    last_owner = {str(h): r for r in records for h in r.get("hosts", [])}
    claims: dict[str, list[OperatorOutcome]] = {}
    for o in result.built:
        for h in o.hosts:
            claims.setdefault(h, []).append(o)
    refused: dict[int, Finding] = {}
    for o in result.built:
        for h in o.hosts:
            where = o.host_places.get(h, Location(str(o.config)))
            owner = kept_owner.get(h)
            rivals = [c for c in claims[h] if c is not o and not _same_files(c, o, h)]
            last = last_owner.get(h)
            if rivals and last is not None and any(matches(c, last) for c in rivals):
                owner = last  # a rival is the last owner, and builds now
            if owner is not None and not matches(o, owner):
                refused[id(o)] = Finding(
                    "SITE-HOST", "error", f"host {h} belongs to another operator: the last "
                    f"build published it for the card {owner['card']}"
                    + (f" ({owner['config']})" if isinstance(owner.get("config"), str) else ""),
                    where, f"remove {h} from this file, or, if that operator has left, build "
                    "without it and with --prune first")
                break
            if rivals and not (last is not None and matches(o, last)):
                names = ", ".join(str(c.config) for c in rivals)
                refused[id(o)] = Finding(
                    "SITE-HOST", "error", f"host {h} is also built by {names}, with other "
                    "files; a host belongs to one operator", where,
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


def _removed_pages(result: BatchResult, old: dict[str, Any]) -> None:
    """A ``SITE-PAGES`` warning for each operator whose pages of the last build this
    ``--no-pages`` build removes (the personEntry pages its card sends people to)."""
    files = dict(old.get("files") or {})
    for o in result.built:
        gone = [r for r in files if r.endswith(".html") and r.split("/", 1)[0] in o.hosts
                and r not in o.digests]
        if gone:
            o.report.add(Finding(
                "SITE-PAGES", "warning", f"--no-pages removes the {len(gone)} pages the last "
                f"build wrote for its hosts (e.g. {gone[0]}), including the personEntry pages "
                "its card sends people to", Location(str(o.config)),
                "build without --no-pages to keep them"))


def _carry_over(tmp: Path, site_dir: Path, host: str, old: dict[str, Any]) -> dict[str, str]:
    """Copy ``host``'s files of the previous build (as its manifest lists them) into the
    new site folder ``tmp``; returns their digests."""
    out: dict[str, str] = {}
    for rel in dict(old.get("files") or {}):
        if rel.startswith(host + "/") and rel != MANIFEST:
            try:
                data = (site_dir / rel).read_bytes()
            except OSError:
                continue
            write_files(tmp, [(rel, data)])
            out[rel] = hashlib.sha256(data).hexdigest()
    return out
