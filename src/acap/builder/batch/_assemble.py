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
* **An operator is who it can prove to be** (issue 12): its operator file, or the
  key it signs with once that file has moved away (see :class:`_Owners`), never a
  public key it lists. Two operators never sign with one key, nor with a key that
  signed another operator's card; a previous key is one the operator published
  itself (``KEY-OWNER``, :func:`_key_owners`).
* **The specification site's host** is built only by ``specSite: true`` (the same
  files for every operator); an operator naming it as a host of its own fails,
  and no one else does (``SITE-HOST``).
* **An operator that failed keeps its previous folders**, and an operator whose
  inputs and outputs did not change is kept as it is (``reused``): their files
  are hard links to the last build's, with the manifest's digests, never read.
* **Operators of the last build that are not in this batch are kept**, with
  their folders, unless ``prune``; pruning is skipped (``SITE-PRUNE`` warning)
  when an operator of this batch failed before its card URL was known, since
  its previous folders could then not be told apart.
* ``--no-pages`` over a site built with pages says what it removes
  (``SITE-PAGES`` warning).
"""

from __future__ import annotations

import os
import shutil
from contextlib import suppress
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from acap.builder.batch._model import (
    STAGING,
    BatchOptions,
    BatchResult,
    OperatorOutcome,
    finding_data,
)
from acap.findings import Finding, Location
from acap.load import real_path
from acap.site import Manifest, read_manifest, swap_in, write_failure, write_manifest
from acap.uris import SPEC_HOST


def assemble_site(result: BatchResult, options: BatchOptions, tmp: Path,
                  site_dir: Path, old: Manifest | None = None,
                  reals: dict[str, str] | None = None) -> Manifest | None:
    """Put the new site/ together in ``tmp`` (see the module docstring) and swap it in.

    Args:
        result: the batch's outcomes; operators refused here get their error.
        options: the batch's options (``site_dir``, ``prune``, ``pages``).
        tmp: the new site folder, each operator's files staged under
            :data:`acap.builder.batch._model.STAGING`.
        site_dir: the site folder it replaces (:func:`acap.site._files.real_site_dir`).
        old: its manifest, as read once for the batch (read here when not given).
        reals: ``{operator file as named: its real path}``, as the batch found them
            (each is resolved here when not given).

    Returns:
        The manifest of the new site/ when it was swapped in, else ``None`` (site/ as it
        was). ``tmp`` is gone either way (swapped in or removed).
    """
    try:
        old = old or read_manifest(site_dir) or Manifest({})
        records = old.records()
        old_files = old.files_by_host()
        old_digests = old.files
        # an operator's own warnings, before the batch adds any about the others
        own = {id(o): [finding_data(f) for f in o.report.warnings] for o in result.outcomes}
        owners = _Owners(result, records, site_dir, reals or {})
        _key_owners(result, records, owners)
        while True:  # each round only takes operators out, so it ends
            kept, pruned, held = _surviving_records(result, records, options.prune, owners)
            if not _claim_hosts(result, kept, records, owners):
                break
        if held is not None:
            result.report.add(held)
        if not options.pages:
            _removed_pages(result, old_files)
        digests: dict[str, str] = {}
        operators: dict[str, dict[str, Any]] = {}
        owned: set[str] = set()
        linker = _Linker(site_dir, tmp)
        for o in result.built:
            assert o.card_url is not None
            for h in o.hosts:
                if h in owned:
                    continue
                if o.reused:
                    linker.link(old_files.get(h, []))
                else:
                    assert o.staged is not None
                    os.rename(o.staged / h, tmp / h)
                owned.add(h)
            digests.update(o.digests)
            operators[o.card_url] = _record(o, owners, own[id(o)])
        shutil.rmtree(tmp / STAGING, ignore_errors=True)
        if not result.built:
            shutil.rmtree(tmp, ignore_errors=True)
            return None
        for rec in kept:
            hosts = [str(h) for h in rec.get("hosts", []) if str(h) not in owned]
            for host in hosts:
                digests.update(linker.link([r for r in old_files.get(host, [])
                                            if r in old_digests], old_digests))
                owned.add(host)
            operators.setdefault(rec["card"], {**rec, "hosts": hosts})
        cards = {o.card_url for o in result.outcomes}
        result.kept = sorted(r["card"] for r in kept
                             if owners.owner(r) is None and r["card"] not in cards)
        result.pruned = sorted(r["card"] for r in pruned)
        manifest = Manifest.of_batch(operators, digests)
        write_manifest(tmp, manifest)
    except BaseException as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        if isinstance(exc, OSError):
            result.report.add(write_failure(options.site_dir, exc))
            return None
        raise
    try:
        swap_in(tmp, site_dir)
    except OSError as exc:
        result.report.add(write_failure(options.site_dir, exc))
        return None
    return manifest


def _record(o: OperatorOutcome, owners: _Owners, warnings: list[dict[str, Any]]
            ) -> dict[str, Any]:
    """The manifest's record of an operator that built (or was kept as it was): who it
    is (operator file, signing key), what it built, and what the next batch needs to
    keep it without a rebuild (:func:`acap.builder.batch._build.reuse`)."""

    def place(loc: Location | None) -> list[int] | None:
        return [loc.line, loc.column or 1] if loc is not None and loc.line is not None \
            else None

    return {"config": owners.real[id(o)], "configFromSite": owners.from_site[id(o)],
            "card": o.card_url, "inputs": o.inputs, "hosts": o.hosts,
            "keys": o.key_thumbprints, "signer": o.signer, "keyFile": o.key_file,
            "state": o.state, "reads": o.reads, "warnings": warnings,
            "places": {h: place(loc) for h, loc in o.host_places.items()},
            "keyPlace": place(o.key_place), "previousPlace": place(o.previous_place)}


class _Linker:
    """Files of the last build into the new site folder, by hard link (the same bytes,
    neither read nor written; a copy where the file system has no hard links), each
    folder made once."""

    def __init__(self, site_dir: Path, tmp: Path) -> None:
        self.site_dir, self.tmp = os.fspath(site_dir), os.fspath(tmp)  # strings: thousands
        self.made: set[str] = set()

    def link(self, files: list[str], digests: dict[str, str] | None = None
             ) -> dict[str, str]:
        """Link ``files`` (paths under site/); returns the ``digests`` of those linked
        (a file gone from the last build is left out)."""
        out: dict[str, str] = {}
        for rel in files:
            self._folder(rel.rpartition("/")[0])
            src, dst = os.path.join(self.site_dir, rel), os.path.join(self.tmp, rel)
            try:
                os.link(src, dst, follow_symlinks=False)
            except FileNotFoundError:
                continue
            except OSError:  # no hard links here (another file system type)
                shutil.copy2(src, dst, follow_symlinks=False)
            if digests is not None:
                out[rel] = digests[rel]
        return out

    def _folder(self, rel: str) -> None:
        """Make the folder ``rel`` (under the new site) and those above it, each once:
        ``os.mkdir``, as ``os.makedirs`` would look at each level first."""
        if not rel or rel in self.made:
            return
        self._folder(rel.rpartition("/")[0])
        with suppress(FileExistsError):
            os.mkdir(os.path.join(self.tmp, rel))
        self.made.add(rel)


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

    def __init__(self, result: BatchResult, records: list[dict[str, Any]],
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
            mine = by_real.get(str(rec.get("config"))) or \
                by_rel.get(str(rec.get("configFromSite")))
            signer = record_signer(rec)
            if mine is None and signer is not None and not _still_there(rec):
                signers = by_signer.get(signer, [])
                if len(signers) > 1:  # one key for several: the one with the card
                    signers = [o for o in signers if o.card_url == rec["card"]]
                if len(signers) == 1:
                    mine = signers[0]
            self._of[id(rec)] = mine

    def owner(self, rec: dict[str, Any]) -> OperatorOutcome | None:
        """The operator of this batch ``rec`` is the record of, if any."""
        return self._of.get(id(rec))


def record_signer(rec: dict[str, Any]) -> str | None:
    """The thumbprint of the key a record's operator signed with: its ``signer``, or, in
    a manifest of an earlier acap, the first key of its JWKS (the current key)."""
    signer = rec.get("signer")
    if isinstance(signer, str):
        return signer
    keys = rec.get("keys")
    return keys[0] if isinstance(keys, list) and keys and isinstance(keys[0], str) else None


def _still_there(rec: dict[str, Any]) -> bool:
    """True when the operator file a record was built from is still where it was."""
    config = rec.get("config")
    return isinstance(config, str) and os.path.isfile(config)


def _key_owners(result: BatchResult, records: list[dict[str, Any]], owners: _Owners) -> None:
    """``KEY-OWNER`` errors (issue 12): two operators never sign with one key, and none
    signs with a key that signed another operator's card in the last build (each
    card would verify under the other's JWKS, and the key would make it the owner of
    the other's hosts). A previous key is listed only when it was this operator's own
    in the last build (a newcomer may bring keys that are nobody's): another
    operator's public key, copied from its JWKS, is refused at the line naming the
    previous keys. The operator that had the key last time keeps it; when none did,
    every operator using it fails."""
    mine: dict[int, set[str]] = {}
    others: dict[str, dict[str, Any]] = {}  # thumbprint -> a record not of its user
    for rec in records:
        o = owners.owner(rec)
        keys = {str(k) for k in rec.get("keys") or []} | {record_signer(rec) or ""}
        if o is not None:
            mine.setdefault(id(o), set()).update(keys)
        for k in keys - {""}:
            others.setdefault(k, rec)
    signing: dict[str, list[OperatorOutcome]] = {}
    for o in result.built:
        if o.signer is not None:
            signing.setdefault(o.signer, []).append(o)
    refused: dict[int, Finding] = {}
    for key, ops in signing.items():
        had = [o for o in ops if key in mine.get(id(o), set())]
        for o in ops:
            rivals = [c for c in ops if c is not o]
            if rivals and not (len(had) == 1 and had[0] is o):
                refused[id(o)] = Finding(
                    "KEY-OWNER", "error", f"signs with the same key as {rivals[0].config}: in "
                    "a batch no two operators sign with one key (each card would verify under "
                    "the other's keys)", o.key_place or Location(str(o.config)),
                    "give each operator its own signing key in its own folder "
                    "(signing.keyFile), then run acap keys new for it")
                continue
            other = others.get(key)
            if other is not None and key not in mine.get(id(o), set()):
                refused[id(o)] = Finding(
                    "KEY-OWNER", "error", "signs with the key that signed another operator's "
                    f"card in the last build ({other['card']}"
                    + (f", {other['config']}" if isinstance(other.get("config"), str) else "")
                    + "); a key is one operator's", o.key_place or Location(str(o.config)),
                    "give this operator its own signing key (signing.keyFile in its own "
                    "folder); if it is that operator, moved, build it from its old path once")
    for o in result.built:
        if id(o) in refused:
            continue
        owned = mine.get(id(o), set())
        newcomer = id(o) not in mine
        for key in o.key_thumbprints[1:]:
            if key in owned:
                continue
            theirs = others.get(key)
            users = [c for c in signing.get(key, []) if c is not o]
            if theirs is None and not users and newcomer:
                continue  # a key nobody had, brought by an operator new to this site
            whose = (f"the key of another operator ({theirs['card']})" if theirs is not None
                     else f"the signing key of {users[0].config}" if users else
                     "a key this operator did not publish in the last build")
            refused[id(o)] = Finding(
                "KEY-OWNER", "error", f"its previous keys list {whose}; a previous key is one "
                "this operator published itself", o.previous_place or Location(str(o.config)),
                "remove that key from the previous-keys file (signing.previousKeys); only "
                "keys this operator signed with belong there")
            break
    for o in result.built:
        if id(o) in refused:
            o.fail(refused[id(o)])


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
    refused: dict[int, Finding] = {}
    refused_card_host: dict[int, bool] = {}
    for o in result.built:
        if SPEC_HOST in o.host_places:  # named as its own: refused, alone
            refused[id(o)] = Finding(
                "SITE-HOST", "error", f"{SPEC_HOST} is the host of the extension's "
                "specification site, which acap builds for specSite: true; it is no "
                "operator's own host", o.host_places[SPEC_HOST],
                f"remove {SPEC_HOST} from this file (specSite: true builds that site)")
            continue
        for h in o.hosts:
            claims.setdefault(h, []).append(o)
    for o in result.built:
        if id(o) in refused:
            continue
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
                refused_card_host[id(o)] = _is_card_host(o, h)
                break
            if rivals and not (last is not None and owners.owner(last) is o):
                names = ", ".join(str(c.config) for c in rivals)
                refused[id(o)] = Finding(
                    "SITE-HOST", "error", f"host {h} is also built by {names}; a host "
                    "belongs to one operator", where,
                    f"remove {h} from all but one of these operator files")
                refused_card_host[id(o)] = _is_card_host(o, h)
                break
    for o in result.built:
        if id(o) in refused:
            if refused_card_host.get(id(o)):
                # The JWKS in site/ for that host is the other operator's: its kids are
                # not this one's to keep or rotate (a tenant told to run acap keys rotate
                # --lost for another tenant's kid).
                o.report.findings = [f for f in o.report.findings if f not in o.history]
            o.fail(refused[id(o)])
    return bool(refused)


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
