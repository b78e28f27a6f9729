"""``acap publish``: put each host folder of site/ on its static hosting, checked first.

One target per host, from ``hosts.<host>.publish`` in operator.yaml, or from
the command line (``--host``, ``--remote``, ``--branch``, ``--dir``, ``--sftp``;
:mod:`acap.publisher._targets`), each a :class:`~acap.publisher._store.Store` that only
moves bytes: a **git branch** (GitHub Pages; default ``gh-pages``,
:mod:`acap.publisher._git_branch`), a **folder** on this machine
(:mod:`acap.publisher._local`) or on a server reached over **SFTP**
(:mod:`acap.publisher._sftp`). One engine runs the publish steps over any of them
(:mod:`acap.publisher._engine`): what is acap's at the target is what its signed
record says (:mod:`acap.publisher._trust`), only the hosting files the target's kind
reads go there (:mod:`acap.publisher._hosting`), files are staged outside what the
target serves and put in place at once, and nothing acap cannot prove is its own is
deleted or replaced without ``--force`` (``PUBLISH-FOREIGN``).

On a host where the operator's own website lives (``hosts.<host>.overlay``, the
default for operator.website's host) every target adds and updates only acap's
files (the card, the JWKS, its pages) and removes only files acap put there
before; everything else stays byte for byte. A target that does not exist is refused
unless ``--create`` says it is the first publish there (``PUBLISH-TARGET``).

A folder that is, holds or lies inside the parts of an acap project (operator.yaml,
``.acap/``, templates/, site/, a private key) or a git repository is refused even with
``--force`` (``PUBLISH-TARGET``), and so is anything at the target that is not a
regular file or folder (a FIFO, a link), and an SFTP server whose key known_hosts does
not hold (``PUBLISH-HOST-KEY``).

Nothing goes out unless every check passes for every host being published
(:func:`preflight`, :mod:`acap.publisher._preflight`):
* site/ was built from the current operator.yaml, templates/ and keys
  (the build manifest's ``inputs`` equal :func:`acap.builder._build.input_digest`),
  otherwise "run acap build" (``PUBLISH-STALE``);
* every file of the host folder is the file the build wrote, byte for byte,
  and none is missing or added (``PUBLISH-INTEGRITY``);
* every signature of every Agent Card verifies against the JWKS built beside
  it (A2A §8.4.3; ``PUBLISH-SIGNATURE`` and the ``SIG-*`` rules of
  :mod:`acap.card._verifier`);
* no private key material anywhere in the tree: no PEM private key block, no
  JWK with private members in any JSON file (``PUBLISH-PRIVATE-KEY``);
* the card is at ``https://{host}/.well-known/agent-card.json`` (A2A §8.2)
  and the target serves that origin at its root (``PUBLISH-ORIGIN``);
* no host is a name reserved for examples (``example.org``, ``*.test`` ...;
  ``PUBLISH-PLACEHOLDER``) unless ``allow_example_hosts`` says it is a trial;
* this computer holds the key that signed the card, which signs acap's record
  (``PUBLISH-KEY``; not needed for a dry run).

The card's host is published last, after the hosts its card names, and held
back when one of them failed (``PUBLISH-HELD``): the live card never points
to a page that is not there.

The build manifest (``site/.acap/manifest.json``) lies outside every host
folder and is never published.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from acap.builder import input_digest
from acap.errors import FetchError, FileRefused, GitError
from acap.findings import Finding, Location, Report, Result
from acap.keys import card_kids, published_keys, resolve_signing_key
from acap.load import fetch, load_operator, read_regular, strings
from acap.publisher._engine import HostJob, publish_host
from acap.publisher._git_branch import BranchStore, commit_date
from acap.publisher._local import directory_store
from acap.publisher._plan import ForeignFiles, Plan, TargetRefused, count
from acap.publisher._preflight import (
    origin_findings,
    private_key_findings,
    read_host_files,
    signature_findings,
)
from acap.publisher._signals import interruptible
from acap.publisher._store import Store
from acap.publisher._targets import PublishOptions, Target, redacted, resolve_targets, scrubbed
from acap.publisher._trust import KeyRing, RecordCopies, foreign_key
from acap.site import MANIFEST, read_manifest
from acap.uris import CARD_PATH, is_example_host

__all__ = ["Checked", "HostResult", "PublishOptions", "PublishResult", "Target", "preflight",
           "publish"]


@dataclass
class HostResult:
    """What happened to one host.

    Attributes:
        target: where it went.
        plan: what was (or, in a dry run, would be) added, changed and removed.
        outcome: ``"published"``, ``"up to date"``, ``"dry run"``, ``"failed"`` or
            ``"held back"`` (the card's host, when a host the card names failed).
        commit: the new commit (branch targets), if one was made.
        detail: the reason of a failure (git's own message included).
        swept: ``(where, why)`` of what an interrupted publish left that acap proved its
            own and removed (a dry run: would remove).
    """

    target: Target
    plan: Plan | None = None
    outcome: str = "failed"
    commit: str | None = None
    detail: str = ""
    swept: list[tuple[str, str]] = field(default_factory=list)


@dataclass(repr=False)
class PublishResult(Result):
    """The whole run.

    Attributes:
        report: every finding (checks and failures).
        hosts: one :class:`HostResult` per target, in order.
    """

    report: Report = field(default_factory=Report)
    hosts: list[HostResult] = field(default_factory=list)

    def _succeeded(self) -> bool:
        """No host failed or was held back."""
        return all(h.outcome not in ("failed", "held back") for h in self.hosts)


@dataclass
class Checked:
    """The outcome of :func:`preflight`.

    Attributes:
        report: every finding.
        targets: the targets of this run.
        files: ``{host: {path: bytes}}`` ready to go out (extras included).
        cfg: the loaded operator.yaml (``None`` when it could not be read).
        card_host: the host of the Agent Card (``""`` until it is known).
    """

    report: Report
    targets: list[Target]
    files: dict[str, dict[str, bytes]]
    cfg: Any = None
    card_host: str = ""


def preflight(options: PublishOptions) -> Checked:
    """Every check before anything goes out (see the module docstring).

    Returns:
        A :class:`Checked`; nothing may be published unless ``report.ok``.
    """

    report = Report()
    cfg = load_operator(options.config)
    report.extend(cfg.findings)
    out = Checked(report, [], {}, cfg)
    if not report.ok:
        return out
    site_dir = options.resolved_site_dir()
    manifest = read_manifest(site_dir)
    if manifest is None:
        report.add(Finding("PUBLISH-STALE", "error", f"{site_dir}/ holds no build "
                           f"({MANIFEST} is missing)", Location(str(site_dir)),
                           "run acap build"))
        return out
    manifest = manifest.of_operator(cfg.card_url)  # a batch build: this operator's own part
    if manifest.inputs != input_digest(cfg):
        report.add(Finding("PUBLISH-STALE", "error", f"{site_dir}/ was not built from the "
                           f"current {cfg.loaded.file}, templates/ and keys", Location(
                               str(site_dir / MANIFEST)), "run acap build"))
        return out
    card_url = manifest.card or cfg.card_url
    card_host = (urlsplit(card_url).hostname or "").lower()
    out.card_host = card_host
    if urlsplit(card_url).path != CARD_PATH:
        report.add(Finding("PUBLISH-ORIGIN", "error", f"the card URL {card_url} is not at the "
                           f"root of its origin ({CARD_PATH}, A2A §8.2)",
                           cfg.at("/cardHost"), "run acap build"))
    site_hosts = manifest.hosts()
    out.targets = resolve_targets(cfg, options, site_hosts, card_host, report)
    if not options.allow_example_hosts:
        report.extend(placeholder_findings(cfg, out.targets))
    for t in out.targets:
        root = site_dir / t.host
        files = read_host_files(site_dir, t.host, manifest, report)
        report.extend(private_key_findings(files, root))
        if t.host == card_host and CARD_PATH.lstrip("/") not in files:
            report.add(Finding("PUBLISH-INTEGRITY", "error", f"site/{t.host}/ has no Agent Card "
                               f"({CARD_PATH.lstrip('/')})", Location(str(root)),
                               "run acap build"))
        report.extend(signature_findings(files, t.host, root))
        report.extend(origin_findings(t, files, card_host))
        out.files[t.host] = files
    return out


# -- the run -----------------------------------------------------------------------------------

def publish(options: PublishOptions) -> PublishResult:
    """Check, then publish every target.

    Args:
        options: see :class:`PublishOptions`.

    Returns:
        A :class:`PublishResult`. When a check fails nothing is published; without
        the key that signed the card (outside a dry run) neither (``PUBLISH-KEY``: acap
        signs its record of the files it publishes with it). A failed push or copy is a
        ``PUBLISH-FAILED`` error carrying the reason (git's own message included, one
        line each, credentials left out); that target is left as it was and the other
        targets are still published, except the card's host: it goes last, and is held
        back (``PUBLISH-HELD``) when a host its card names (:func:`named_hosts`) failed.
        SIGTERM and SIGHUP stop a publish as Ctrl-C does (:mod:`acap.publisher._signals`).
    """

    checked = preflight(options)
    result = PublishResult(checked.report)
    if not checked.report.ok:
        return result
    ring = key_ring(checked, options, result.report)
    result.report.extend(live_key_findings(checked, options, ring))
    if not result.report.ok:
        return result
    run = _Run(checked, options, result, ring,
               RecordCopies(checked.cfg.base_dir / ".acap" / "published"))
    with interruptible():
        # The hosts the card names first, the card's host last: the card goes out only
        # once every page it points to is there.
        for t in sorted(checked.targets, key=lambda t: t.host == checked.card_host):
            run.host(t)
    return result


def key_ring(checked: Checked, options: PublishOptions, report: Report) -> KeyRing:
    """The operator's keys on this computer: the kid history (what the record and the
    card at a target are checked against) and the key that signed the built card (what
    signs acap's record). Outside a dry run, no such key is a ``PUBLISH-KEY`` error."""
    cfg = checked.cfg
    site_dir = options.resolved_site_dir()
    history = {kid: dict(jwk) for kid, (jwk, _where) in published_keys(cfg, site_dir).items()}
    found = resolve_signing_key(cfg, site_dir, create=False)
    kids = card_kids(_built_card(checked, site_dir))
    key = found.key if found.key is not None and found.key.kid in kids else None
    if key is not None:
        history.setdefault(key.kid, key.public_jwk())
    elif not options.dry_run:
        why = next((f.message for f in found.findings if f.level == "error"), None) or (
            f"the key here has kid {found.key.kid}, and site/'s card is signed with "
            f"{', '.join(sorted(kids)) or 'no kid'}" if found.key is not None else
            "no key was found")
        report.add(Finding(
            "PUBLISH-KEY", "error", "acap signs its record of the files it publishes with the "
            f"key that signed the card, and this computer does not have it ({why})",
            Location(str(cfg.loaded.file)),
            "bring that key (ACAP_SIGNING_KEY, or .acap/signing-key.pem from the computer "
            "that built it) and run acap build and acap publish again"))
    return KeyRing(history, key)


#: Seconds to fetch the live card for :func:`live_key_findings` (a publish does not wait
#: long on a host that does not answer: the target's own card is checked anyway).
LIVE_CARD_TIMEOUT = 5.0


def live_key_findings(checked: Checked, options: PublishOptions, ring: KeyRing
                      ) -> list[Finding]:
    """``PUBLISH-KEY`` when the card live at ``https://{card host}/.well-known/agent-card.json``
    is signed only with kids this computer lacks (or under one of its kids with another
    key): the hosting may have moved, or this is a second computer, and publishing would
    replace the live card's key without a rotation (issue 20, item 4). A live card that
    cannot be fetched says nothing (the target's own card is checked at publish); a host
    reserved for examples is fetched only where ``options.connect_to`` routes it."""
    host = checked.card_host
    if not host or not any(t.host == host for t in checked.targets) or (
            is_example_host(host) and host not in options.connect_to):
        return []
    url = f"https://{host}{CARD_PATH}"
    try:
        resp = fetch(url, timeout=LIVE_CARD_TIMEOUT, connect_to=options.connect_to)
    except FetchError:
        return []
    signatures = ring.card_signatures(resp.body) if resp.status == 200 else None
    if not signatures or any(ok for _kid, ok in signatures):
        return []
    kid = next((k for k, _ok in signatures if k not in ring.keys), None) or \
        str(signatures[0][0])
    refusal = foreign_key(kid, f"the live card at {url}", host)
    target = next(t for t in checked.targets if t.host == host)
    return [Finding("PUBLISH-KEY", "error", f"{host}: {refusal}", target.where, refusal.hint)]


def _built_card(checked: Checked, site_dir: Path) -> bytes:
    """The card site/ holds (checked by :func:`preflight` when its host is published)."""
    card = checked.files.get(checked.card_host, {}).get(CARD_PATH.lstrip("/"))
    if card is not None:
        return card
    try:
        return read_regular(site_dir / checked.card_host / CARD_PATH.lstrip("/"), 1 << 20,
                            follow_links=False)
    except (OSError, FileRefused):
        return b""


@dataclass
class _Run:
    """One :func:`publish` run: what every host shares."""

    checked: Checked
    options: PublishOptions
    result: PublishResult
    ring: KeyRing
    copies: RecordCopies
    needs: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        card = self.checked.files.get(self.checked.card_host, {}).get(CARD_PATH.lstrip("/"),
                                                                       b"")
        self.needs = named_hosts(card, {t.host for t in self.checked.targets}
                                 - {self.checked.card_host})

    def say(self, host: str, msg: str) -> None:
        """One progress line."""
        if self.options.progress:
            self.options.progress(f"{host}: {msg}")

    def host(self, t: Target) -> None:
        """Publish one target (or hold it back), recording what happened."""
        hr = HostResult(t)
        self.result.hosts.append(hr)
        if self._held_back(t, hr):
            return
        files = self.checked.files[t.host]
        self.say(t.host, f"{count(len(files), 'file')} -> {t.describe()}"
                 + (" (dry run)" if self.options.dry_run else ""))
        job = HostJob(t.host, files, t.overlay, card_host=t.host == self.checked.card_host,
                      hosting=t.hosting, force=self.options.force,
                      dry_run=self.options.dry_run, create=self.options.create,
                      progress=lambda msg: self.say(t.host, msg))
        try:
            done = publish_host(store_for(t, self.checked.cfg), job, self.ring, self.copies)
            hr.plan, hr.outcome, hr.commit, hr.swept = (done.plan, done.outcome, done.commit,
                                                        done.swept)
        except (ForeignFiles, TargetRefused, GitError, OSError) as exc:
            self._failed(t, hr, exc)
        for rule, msg, hint in job.notes:
            self.result.report.add(Finding(rule, "warning", f"{t.host}: {msg}", t.where, hint))
        self._said(hr)

    def _held_back(self, t: Target, hr: HostResult) -> bool:
        failed = [h.target.host for h in self.result.hosts
                  if h.target.host in self.needs and h.outcome == "failed"]
        if t.host != self.checked.card_host or not failed:
            return False
        hr.outcome = "held back"
        hr.detail = f"{', '.join(failed)} failed"
        self.result.report.add(Finding(
            "PUBLISH-HELD", "error",
            f"{t.host}: not published: held back because {' and '.join(failed)} failed, "
            f"so the card does not point to a page that is not there", t.where,
            "fix what stopped " + " and ".join(failed) + " (its own error says what) and run "
            "acap publish again: the card goes out once every host it names is published"))
        self.say(t.host, "held back")
        return True

    def _failed(self, t: Target, hr: HostResult, exc: Exception) -> None:
        text = scrubbed(str(exc), t.remote) if t.remote else str(exc)
        hr.detail = text
        if isinstance(exc, ForeignFiles):
            hr.plan = exc.plan
            self.result.report.add(Finding(exc.rule, "error", text, t.where, exc.hint))
        elif isinstance(exc, TargetRefused):
            self.result.report.add(Finding(exc.rule, "error", f"{t.host}: {text}", t.where,
                                           exc.hint))
        else:
            said = "\n".join(failure_lines(text))
            self.result.report.add(Finding("PUBLISH-FAILED", "error",
                                           f"{t.host}: publishing to {t.describe()} failed; "
                                           f"it is as it was. {said}", t.where,
                                           "fix the cause and run acap publish again"))

    def _said(self, hr: HostResult) -> None:
        host = hr.target.host
        if hr.outcome in ("published", "dry run") and hr.plan:
            self.say(host, f"{hr.outcome}: {hr.plan.summary()}")
        elif hr.plan and hr.outcome != "up to date":
            # nothing of the plan happened: say what it would have been, not what was
            self.say(host, f"{hr.outcome}, nothing changed there (it would have been "
                     f"{hr.plan.summary()})")
        else:
            self.say(host, hr.outcome)


def failure_lines(text: str) -> list[str]:
    """The lines of a failure's text (git's own message included), as a finding carries
    them (one per line; the text reporter quotes each under the finding): blank lines
    dropped, runs of spaces made one, and the ``remote: `` git puts before each line a
    server says given once (a server that starts its own lines with ``remote:`` would
    read ``remote: remote: ...``)."""
    out = []
    for line in text.splitlines():
        line = " ".join(line.split())
        while line.startswith("remote: remote:"):
            line = line[len("remote: "):]
        if line and line != "remote:":
            out.append(line)
    return out


def placeholder_findings(cfg: Any, targets: list[Target]) -> list[Finding]:
    """``PUBLISH-PLACEHOLDER`` for each target whose host is a name reserved for examples
    (RFC 2606, RFC 6761; :func:`acap.uris.is_example_host`): the placeholders of
    ``acap init`` (``example.org``) built as they are and published to a real folder
    would put a card for a website that is no one's on the operator's server."""
    try:
        website = (urlsplit(cfg.website).hostname or "").lower()
    except ValueError:
        website = ""
    out = []
    for t in targets:
        if not is_example_host(t.host):
            continue
        own = t.host == website
        out.append(Finding(
            "PUBLISH-PLACEHOLDER", "error",
            f"{t.host} is an example address (reserved for examples by RFC 2606 and RFC 6761, "
            "never anyone's website): acap does not publish it",
            cfg.at("/operator/website") if own else t.where,
            ("operator.yaml still has the example website from acap init: put your own "
             "website's address in `website:` and build again" if own else
             f"operator.yaml still names the example host {t.host} (a personEntry page or "
             "hosts:): put your own addresses there and build again")
            + " (to try acap out with the example, acap publish --allow-example-hosts "
              "publishes it anyway)"))
    return out


def named_hosts(card: bytes, hosts: set[str]) -> set[str]:
    """The hosts of ``hosts`` that the Agent Card ``card`` (JSON bytes) names in a URL
    (its personEntry pages, a JWKS or a document on another host): those must be
    published before the card (``PUBLISH-HELD``). An unreadable card names none."""
    try:
        data = json.loads(card)
    except ValueError:
        return set()
    named: set[str] = set()
    for _ptr, text, _key in strings(data):
        if text.startswith("https://"):
            try:
                host = (urlsplit(text).hostname or "").lower()
            except ValueError:
                continue
            if host in hosts:
                named.add(host)
    return named


def store_for(target: Target, cfg: Any) -> Store:
    """The :class:`~acap.publisher._store.Store` of ``target``."""
    if target.kind == "branch":
        assert target.remote is not None
        return BranchStore(target.remote, target.branch, target.host,
                           commit_date(cfg.base_dir), shown=redacted(target.remote))
    if target.kind == "sftp":
        from acap.publisher._sftp import SftpStore  # start-up: paramiko only for SFTP

        assert target.sftp is not None
        return SftpStore(target.sftp)
    assert target.dir is not None
    return directory_store(target.dir)
