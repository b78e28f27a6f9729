"""The publish steps, written once, over any :class:`~acap.publisher._store.Store`.

For one host at one target, :func:`publish_host`:

1. refuses a target that does not exist unless told to create it (a typo in a folder
   would otherwise make a new, unserved one and report success);
2. reads the record and judges it (:func:`acap.publisher._trust.judge`): only a record
   signed by a key of the operator's history, for this host, and only for paths acap
   could have published there, says which files are acap's;
3. picks the files the target's hosting reads (:mod:`acap.publisher._hosting`);
4. reads what is at acap's paths (and, where acap owns the host whole, lists the
   whole target), and, on the card's host, refuses to replace a card signed with a
   key this computer lacks (``PUBLISH-KEY``);
5. decides what is acap's: recorded and unchanged since, or recognised by content (its
   own card and JWKS); plans what to add, change and remove; and refuses to replace or
   remove anything else without ``force`` (``PUBLISH-FOREIGN``; a page of the website
   where acap would put its page: ``SITE-PAGE-TAKEN``);
6. sorts what an interrupted publish left in the store's staging area: only what acap
   can prove it made is removed, the rest is named (:mod:`acap.publisher._leftovers`);
7. writes: a record of what is about to change (so that even ``kill -9`` leaves a
   record that says which files are acap's, and names this publish's staging token),
   every file staged outside what the target serves, then all of them put in place at
   once (the card last) with the signals that stop a publish held
   (:mod:`acap.publisher._signals`), the removals, and the final record, signed; each
   file only while it is still what step 4 read (another tool's change made meanwhile
   stops the publish, ``PUBLISH-CHANGED``); a failure or an interruption before that
   rolls back. acap keeps a copy of the record in the project
   (:class:`~acap.publisher._trust.RecordCopies`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from acap.publisher import _hosting
from acap.publisher._leftovers import Leftovers, sort_leftovers
from acap.publisher._plan import ForeignFiles, Plan, Published, TargetRefused, count, digest
from acap.publisher._plan import make_plan as plan_of
from acap.publisher._plan import names as listed
from acap.publisher._signals import deferred
from acap.publisher._store import Store
from acap.publisher._trust import CARD, KeyRing, Note, RecordCopies, Trust, foreign_key, judge
from acap.site import PublishRecord, RecordSigner
from acap.uris import JWKS_PATH

#: What to do about files acap wrote and someone changed since.
EDITED_HINT = ("to keep a change, make it where acap builds the file (a page: your own "
               "template in templates/, see the Templates page of the user guide) and build "
               "again; acap publish --force replaces the changed file with acap's (copy it "
               "first)")


@dataclass
class HostJob:
    """What to publish for one host.

    Attributes:
        host: the host (lower case).
        files: ``{path: bytes}``: the host folder of site/, every hosting file included.
        overlay: add acap's files beside a website (else acap owns the host whole).
        card_host: this host carries the card (its key is checked at the target).
        hosting: the declared hosting kind, or ``None`` (detected).
        force: replace (and, where acap owns the host whole, remove) files acap cannot
            prove are its own.
        dry_run: plan only.
        create: make the target when it does not exist.
        progress: called with one line per step.
        notes: filled with the warnings the publish gives (``(rule, message, hint)``),
            whether it succeeds or not.
    """

    host: str
    files: Mapping[str, bytes]
    overlay: bool
    card_host: bool = False
    hosting: str | None = None
    force: bool = False
    dry_run: bool = False
    create: bool = False
    progress: Callable[[str], None] = field(default=lambda _m: None)
    notes: list[Note] = field(default_factory=list)


@dataclass
class View:
    """What is at the target.

    Attributes:
        exists: the target's root is there.
        top: the names at its root.
        present: ``{path: bytes or None}`` at acap's paths and the record's.
        others: where acap owns the host whole, every other file there.
    """

    exists: bool
    top: list[str] = field(default_factory=list)
    present: dict[str, bytes | None] = field(default_factory=dict)
    others: list[str] = field(default_factory=list)

    def sums(self) -> dict[str, str | None]:
        """``{path: SHA-256 hex or None}`` of :attr:`present`, and ``"?"`` (someone's
        content, unread) for :attr:`others`."""
        out: dict[str, str | None] = {p: digest(b) if b is not None else None
                                      for p, b in self.present.items()}
        out.update(dict.fromkeys(self.others, "?"))
        return out


@dataclass
class Mine:
    """What at the target is acap's.

    Attributes:
        owned: recorded and unchanged since (or absent), or recognised by content.
        edited: recorded, and changed since by someone.
        recognised: acap's own by content alone (no record says so).
    """

    owned: set[str]
    edited: set[str]
    recognised: set[str]


def publish_host(store: Store, job: HostJob, ring: KeyRing, copies: RecordCopies) -> Published:
    """Publish ``job`` at ``store`` (see the module docstring).

    Returns:
        What was (or, in a dry run, would be) done, with the warnings to give.

    Raises:
        ForeignFiles: without ``force``, files acap cannot prove are its own would be
            replaced or removed; nothing was changed.
        TargetRefused: the target cannot be published to (see
            :class:`~acap.publisher._plan.TargetRefused`); nothing was changed.
        OSError, GitError: the target could not be written; it is as it was, or,
            after the files were in place, its record still lists them.
    """
    where = store.describe()
    job.progress(f"reading {where}")
    with store:
        view = View(_root_exists(store, job))
        trust = judge(store.record() if view.exists else None, copies.load(job.host, where),
                      job.host, job.overlay, ring, where)
        job.notes += trust.notes
        view.top = store.top() if view.exists else []
        files = _for_hosting(store, job, view.top)
        _survey(store, job, files, trust, view)
        _check_card_key(view, job, ring, where)
        mine = _ownership(view, trust, ring)
        job.notes += _trust_notes(where, trust, mine)
        plan = _plan(job, files, view, mine)
        _refuse(where, job, files, plan, view, mine, trust)
        job.notes += _website_notes(where, job, files, view, mine)
        left = sort_leftovers(store.leftovers(), trust.record, ring, job.host)
        job.notes += left.notes(where)
        if job.dry_run:
            return Published(plan, "dry run", notes=job.notes, swept=left.shown())
        final = _final_record(job, files, plan, mine, store.staging)
        signed = final.to_bytes(_signer(ring))
        _sweep(store, job, left)
        commit = _write(store, job, files, plan, view, mine, (final, signed), trust, ring)
        said = copies.save(job.host, where, signed)
        if said:
            job.progress(said)
        outcome = "up to date" if plan.empty and view.exists else "published"
        return Published(plan, outcome, commit, job.notes, left.shown())


def _root_exists(store: Store, job: HostJob) -> bool:
    if store.exists():
        return True
    if job.create:
        return False
    raise TargetRefused(f"{store.describe()} does not exist, so no website is served from "
                        "it: acap makes no new target unless told to",
                        "check the target (a typo in a folder or branch name?); if this is "
                        "the first publish there, run acap publish --create")


def _for_hosting(store: Store, job: HostJob, top: list[str]) -> dict[str, bytes]:
    """The files of ``job`` the target's hosting reads (a note when acap cannot tell which
    web server serves a folder)."""
    kind, _why = (job.hosting, "declared") if job.hosting else \
        _hosting.detect(top, store.default_hosting)
    files = _hosting.for_kind(job.files, kind)
    if kind == "github-pages":
        files = _hosting.jekyll_ready(store, top, files, job.overlay)
    if not job.hosting and kind == "plain":
        job.notes.append(_hosting.hosting_note(job.host, store.describe()))
    return files


def _survey(store: Store, job: HostJob, files: Mapping[str, bytes], trust: Trust,
            view: View) -> None:
    """Fill ``view``: what is at acap's paths and the record's, and, where acap owns the
    host whole, every other file there."""
    if not view.exists:
        return
    wanted = set(files) | set(trust.files)
    view.present = {rel: store.read(rel) for rel in sorted(wanted)}
    if not job.overlay:
        view.others = [p for p in store.listing() if p not in wanted]


def _check_card_key(view: View, job: HostJob, ring: KeyRing, where: str) -> None:
    """On the card's host: a card at the target signed only under kids this computer
    lacks (or under one of its kids with another key) is refused (``PUBLISH-KEY``)."""
    raw = view.present.get(CARD)
    if not job.card_host or raw is None:
        return
    signatures = ring.card_signatures(raw)
    if not signatures or any(ok for _kid, ok in signatures):
        return
    kid = next((k for k, _ok in signatures if k not in ring.keys), None)
    if kid is not None:
        raise foreign_key(kid, f"the card at {where}", job.host)
    kid = str(signatures[0][0])
    raise TargetRefused(
        f"the card at {where} is signed under kid {kid} with another key than this "
        f"project's key of that kid: publishing would give kid {kid} two keys",
        "bring the key that signed it: put it in place of this computer's key (its "
        ".acap/signing-key.pem, or ACAP_SIGNING_KEY set to its text), remove site/ (built "
        "with this computer's key), then acap build and acap publish; if that key is lost "
        "for good, rotate on purpose: acap keys rotate --lost --jwks "
        f"https://{job.host}{JWKS_PATH}", "PUBLISH-KEY")


def _ownership(view: View, trust: Trust, ring: KeyRing) -> Mine:
    owned: set[str] = set()
    edited: set[str] = set()
    for rel, sums in trust.files.items():
        now = view.present.get(rel)
        (owned if now is None or digest(now) in sums else edited).add(rel)
    recognised = {rel for rel, raw in view.present.items()
                  if raw is not None and rel not in trust.files and ring.recognises(rel, raw)}
    return Mine(owned | recognised, edited, recognised)


def _plan(job: HostJob, files: Mapping[str, bytes], view: View, mine: Mine) -> Plan:
    new = {rel: digest(data) for rel, data in files.items()}
    sums = view.sums()
    # Beside a website acap removes only its own files; where it owns the host whole,
    # everything it does not build (what is not acap's is refused below, unless forced).
    remove = mine.owned if job.overlay else {p for p, s in sums.items() if s is not None}
    return plan_of(new, sums, set(remove) - set(files))


# -- refusals ---------------------------------------------------------------------------------

def _refuse(where: str, job: HostJob, files: Mapping[str, bytes], plan: Plan, view: View,
            mine: Mine, trust: Trust) -> None:
    """Raise :class:`ForeignFiles` unless everything ``plan`` replaces or removes is acap's
    (or ``force`` says so)."""
    if trust.other_host and not job.force and _other_hosts_site(job, view, trust):
        lost = sorted(plan.changed + plan.removed)
        raise ForeignFiles(f"{where} was published by acap for {trust.other_host}, not "
                           f"{job.host}" + (f": publishing would delete or replace its "
                                            f"{count(len(lost), 'file')}: {listed(lost)}"
                                            if lost else ""), plan,
                           f"one target serves one host: publish {job.host} to a target of "
                           f"its own; acap publish --force replaces {trust.other_host}'s site")
    theirs = sorted(p for p in plan.changed + plan.removed if p not in mine.owned)
    if not theirs or job.force:
        return
    pages = [p for p in theirs if job.overlay and p.endswith(".html") and p in files
             and p not in mine.edited]
    if pages:
        raise ForeignFiles(
            f"{where} holds a page of the website where acap would put its page for "
            f"https://{job.host}/{_page_path(pages[0])}: {listed(pages)}; publishing would "
            "replace it", plan,
            "give that personEntry another address in operator.yaml (one your website does "
            "not use), then acap build and acap publish; acap never replaces a page of "
            "your website", "SITE-PAGE-TAKEN")
    edited = [p for p in theirs if p in mine.edited]
    foreign = [p for p in theirs if p not in mine.edited]
    raise ForeignFiles(_foreign_message(where, job.host, foreign, edited), plan,
                       _foreign_hint(job, trust, mine, foreign, edited))


def _other_hosts_site(job: HostJob, view: View, trust: Trust) -> bool:
    """Whether the target still holds anything of the other host acap published there."""
    if not job.overlay:
        return any(v is not None for v in view.present.values()) or bool(view.others)
    return any(view.present.get(p) is not None for p in trust.files)


def _page_path(rel: str) -> str:
    """The address a page file is served at (``talk/index.html`` -> ``talk``)."""
    return rel.removesuffix("index.html").removesuffix(".html").rstrip("/")


def _foreign_message(where: str, host: str, foreign: list[str], edited: list[str]) -> str:
    said = []
    if foreign:
        it = "it" if len(foreign) == 1 else "them"
        said.append(f"{where} holds {count(len(foreign), 'file')} that acap did not publish "
                    f"there, and publishing {host} would delete or replace {it}: "
                    f"{listed(foreign)}")
    if edited:
        it, has = ("it", "has") if len(edited) == 1 else ("them", "have")
        said.append(f"{count(len(edited), 'file')} acap published in {where} {has} changed "
                    f"since acap published {it} (by hand or by another tool), and publishing "
                    f"{host} would replace {it}: {listed(edited)}")
    return "; ".join(said)


def _foreign_hint(job: HostJob, trust: Trust, mine: Mine, foreign: list[str],
                  edited: list[str]) -> str:
    if not foreign:
        return EDITED_HINT
    if trust.record is None and mine.recognised:
        hint = ("acap recognises its own card there, but has no record of its other files: "
                "bring the record back (publish from the computer that published last, whose "
                ".acap/published/ holds acap's copy of it), or move these files away; then "
                "publish again")
    elif job.overlay:
        hint = ("these files are not acap's: rename or move them, or acap publish --force "
                "replaces them with acap's (copy them first)")
    else:
        hint = (f"if your website lives there, set hosts: {job.host}: overlay: true in "
                "operator.yaml: acap then adds its files beside it and changes nothing else; "
                "if these files may go, acap publish --force deletes them (copy them first)")
    return f"{hint}. For the changed files: {EDITED_HINT}" if edited else hint


# -- notes --------------------------------------------------------------------------------------

def _trust_notes(where: str, trust: Trust, mine: Mine) -> list[Note]:
    if trust.record is not None or trust.found or not mine.recognised:
        return []
    return [("PUBLISH-RECORD", f"{where} holds acap's own card (signed with a key of this "
             "project) but no record of what acap published there: it was deleted, or the "
             "site was published from a computer whose .acap/ is not here; acap replaces only "
             "the files it recognises as its own, and writes a new record",
             "nothing to do if this publish succeeds; acap's older files it cannot recognise "
             "stay where they are (remove them by hand if you no longer want them)")]


def _website_notes(where: str, job: HostJob, files: Mapping[str, bytes], view: View,
                   mine: Mine) -> list[Note]:
    """Beside a website: a target holding nothing but acap's files is likely the wrong
    folder (the website's is the one its web server serves)."""
    if not job.overlay or not view.exists:
        return []
    ours = {p.split("/")[0] for p in set(files) | mine.owned}
    if set(view.top) - ours:
        return []
    return [("PUBLISH-TARGET", f"{where} holds no website, only acap's files: acap adds its "
             f"files beside your website, so this is likely not the folder that serves "
             f"https://{job.host}/",
             "check the target: it must be the folder (or branch) your website is served "
             f"from; if {job.host} has no other pages, set hosts: {job.host}: overlay: false")]


# -- writing ------------------------------------------------------------------------------------

def _signer(ring: KeyRing) -> RecordSigner:
    if ring.signer is None:  # publish() refuses before anything when there is no key
        raise TargetRefused("no signing key to sign acap's record with",
                            "bring the key (ACAP_SIGNING_KEY)", "PUBLISH-KEY")
    return ring.signer


def _final_record(job: HostJob, files: Mapping[str, bytes], plan: Plan, mine: Mine,
                  staging: str | None) -> PublishRecord:
    """The record once ``plan`` is done: every file acap publishes there (beside a
    website, only those it wrote or owned: a file the website had already, byte for byte,
    stays the website's), and the store's staging token."""
    written = set(plan.writes)
    mine_now = {p for p in files if not job.overlay or p in written or p in mine.owned}
    return PublishRecord(job.host, {p: (digest(files[p]),) for p in sorted(mine_now)},
                         staging=staging)


def _intent_record(job: HostJob, files: Mapping[str, bytes], plan: Plan, view: View,
                   mine: Mine, final: PublishRecord) -> PublishRecord:
    """The record while ``plan`` goes out: each path with the content acap is replacing
    (when it was acap's) and the one it puts there."""
    out: dict[str, list[str]] = {p: list(d) for p, d in final.files.items()}
    for rel in sorted(mine.owned & set(view.present)):
        now = view.present[rel]
        if now is not None and digest(now) not in out.setdefault(rel, []):
            out[rel].append(digest(now))
    return PublishRecord(job.host, {p: tuple(d) for p, d in out.items() if d},
                         staging=final.staging)


def _sweep(store: Store, job: HostJob, left: Leftovers) -> None:
    """Remove what an interrupted publish left that acap proved its own."""
    for _name, where, why in left.sweep:
        job.progress(f"removing {where} ({why})")
    if left.sweep:
        store.sweep([name for name, _where, _why in left.sweep])


def _write(store: Store, job: HostJob, files: Mapping[str, bytes], plan: Plan, view: View,
           mine: Mine, final: tuple[PublishRecord, bytes], trust: Trust,
           ring: KeyRing) -> str | None:
    """Put ``plan`` in place at ``store`` with the record ``final`` (and its signed bytes);
    see the module docstring, step 6."""
    record, signed = final
    if plan.empty and view.exists:
        if not record.same_files(trust.record) or not trust.found:
            store.write_record(signed)
        job.progress("up to date: nothing written")
        return None
    intent = _intent_record(job, files, plan, view, mine, record)
    writes = sorted(plan.writes, key=lambda p: (p == CARD, p))  # the card goes last
    try:
        for rel in plan.removed:  # first: a store may read what it only listed
            store.remove(rel)
        store.begin(intent.to_bytes(_signer(ring)), job.create)
        job.progress(f"writing {count(len(writes), 'file')}")
        for rel in writes:
            store.stage(rel, files[rel])
        with deferred():
            return store.commit(signed, {p: view.present.get(p) for p in writes},
                                job.progress)
    except BaseException:
        store.roll_back()
        raise
