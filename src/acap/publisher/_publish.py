"""``acap publish``: put each host folder of site/ on its static hosting, checked first.

One target per host, from ``hosts.<host>.publish`` in operator.yaml, or from
the command line (``--host``, ``--remote``, ``--branch``, ``--dir``, ``--sftp``;
:mod:`acap.publisher._targets`):
* a **git branch** (GitHub Pages; default ``gh-pages``): the host folder
  becomes the tree of a new commit on top of the branch's tip, pushed to any
  git remote (:mod:`acap.publisher._git_branch`);
* a **directory**: mirrored, stale files removed, swapped in atomically
  (:mod:`acap.publisher._directory`);
* a folder on an **SFTP** server (shared hosting): each file uploaded under a
  temporary name and renamed into place (:mod:`acap.publisher._sftp`).

On a host where the operator's own website lives (``hosts.<host>.overlay``, the
default for operator.website's host) every target adds and updates only acap's
files (the card, the JWKS, its pages) and removes only files acap put there
before; everything else stays byte for byte.

acap never deletes or replaces what it did not publish without ``--force``
(``PUBLISH-FOREIGN``): a branch whose tip is not acap's commit *for this host*,
or files in a folder that the record of acap's last publish there (for this
host) does not list. A folder that is, holds or lies inside the parts of an
acap project (operator.yaml, ``.acap/``, templates/, site/, a private key) or a
git repository is refused even with ``--force`` (``PUBLISH-TARGET``), and so is
anything at the target that is not a regular file or folder (a FIFO, a link),
and an SFTP server whose key known_hosts does not hold (``PUBLISH-HOST-KEY``).

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
  ``PUBLISH-PLACEHOLDER``) unless ``allow_example_hosts`` says it is a trial.

The card's host is published last, after the hosts its card names, and held
back when one of them failed (``PUBLISH-HELD``): the live card never points
to a page that is not there.

The build manifest (``site/.acap/manifest.json``) lies outside every host
folder and is never published.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from acap.builder import input_digest
from acap.errors import GitError
from acap.findings import Finding, Location, Report, Result
from acap.load import load_operator, strings
from acap.publisher._directory import DirectoryPublisher
from acap.publisher._git_branch import BranchPublisher, commit_date
from acap.publisher._plan import ForeignFiles, Plan, Publisher, TargetRefused, count
from acap.publisher._preflight import (
    origin_findings,
    pages_extras,
    private_key_findings,
    read_host_files,
    signature_findings,
)
from acap.publisher._targets import PublishOptions, Target, resolve_targets
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
    """

    target: Target
    plan: Plan | None = None
    outcome: str = "failed"
    commit: str | None = None
    detail: str = ""


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
        if t.kind == "branch":
            files.update(pages_extras(cfg, t.host, files))
        report.extend(origin_findings(t, files, card_host))
        out.files[t.host] = files
    return out


# -- the run -----------------------------------------------------------------------------------

def publish(options: PublishOptions) -> PublishResult:
    """Check, then publish every target.

    Args:
        options: see :class:`PublishOptions`.

    Returns:
        A :class:`PublishResult`. When a check fails nothing is published.
        A failed push or copy is a ``PUBLISH-FAILED`` error carrying the
        reason (git's own message included, one line each); that target is
        left as it was and the other targets are still published, except the
        card's host: it goes last, and is held back (``PUBLISH-HELD``) when a
        host its card names (:func:`named_hosts`) failed.
    """

    checked = preflight(options)
    result = PublishResult(checked.report)
    if not checked.report.ok:
        return result
    cfg = checked.cfg
    card_host = checked.card_host
    needs = named_hosts(checked.files.get(card_host, {}).get(CARD_PATH.lstrip("/"), b""),
                        {t.host for t in checked.targets} - {card_host})
    # The hosts the card names first, the card's host last: the card goes out only once
    # every page it points to is there.
    for t in sorted(checked.targets, key=lambda t: t.host == card_host):
        hr = HostResult(t)
        result.hosts.append(hr)
        files = checked.files[t.host]

        def say(msg: str, host: str = t.host) -> None:
            if options.progress:
                options.progress(f"{host}: {msg}")

        failed = [h.target.host for h in result.hosts
                  if h.target.host in needs and h.outcome == "failed"]
        if t.host == card_host and failed:
            hr.outcome = "held back"
            hr.detail = f"{', '.join(failed)} failed"
            result.report.add(Finding(
                "PUBLISH-HELD", "error",
                f"{t.host}: not published: held back because {' and '.join(failed)} failed, "
                f"so the card does not point to a page that is not there", t.where,
                "fix what stopped " + " and ".join(failed) + " (its own error says what) and run "
                "acap publish again: the card goes out once every host it names is published"))
            say("held back")
            continue

        say(f"{count(len(files), 'file')} -> {t.describe()}"
            + (" (dry run)" if options.dry_run else ""))
        try:
            done = _publisher(t, cfg).publish(files, host=t.host, dry_run=options.dry_run,
                                              force=options.force, progress=say)
            hr.plan, hr.outcome, hr.commit = done.plan, done.outcome, done.commit
        except ForeignFiles as exc:
            hr.plan, hr.detail = exc.plan, str(exc)
            result.report.add(Finding("PUBLISH-FOREIGN", "error", str(exc), t.where, exc.hint))
        except TargetRefused as exc:
            hr.detail = str(exc)
            result.report.add(Finding(exc.rule, "error", f"{t.host}: {exc}", t.where, exc.hint))
        except (GitError, OSError) as exc:
            hr.detail = str(exc)
            said = "\n".join(failure_lines(str(exc)))
            result.report.add(Finding("PUBLISH-FAILED", "error",
                                      f"{t.host}: publishing to {t.describe()} failed; it is "
                                      f"as it was. {said}", t.where,
                                      "fix the cause and run acap publish again"))
        if hr.outcome in ("published", "dry run") and hr.plan:
            say(f"{hr.outcome}: {hr.plan.summary()}")
        elif hr.plan and hr.outcome != "up to date":
            # nothing of the plan happened: say what it would have been, not what was
            say(f"{hr.outcome}, nothing changed there (it would have been "
                f"{hr.plan.summary()})")
        else:
            say(hr.outcome)
    return result


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


def _publisher(target: Target, cfg: Any) -> Publisher:
    """The :class:`~acap.publisher._plan.Publisher` of ``target``."""
    if target.kind == "branch":
        assert target.remote is not None
        return BranchPublisher(target.remote, target.branch, commit_date(cfg.base_dir),
                               overlay=target.overlay)
    if target.kind == "sftp":
        from acap.publisher._sftp import SftpPublisher  # start-up: paramiko only for SFTP

        assert target.sftp is not None
        return SftpPublisher(target.sftp, overlay=target.overlay)
    assert target.dir is not None
    return DirectoryPublisher(target.dir, overlay=target.overlay)
