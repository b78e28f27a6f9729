"""``acap publish``: put each host folder of site/ on its static hosting, checked first.

One target per host, from ``hosts.<host>.publish`` in operator.yaml, or from
the command line (``--host``, ``--remote``, ``--branch``, ``--dir``):

* a **git branch** (GitHub Pages; default ``gh-pages``): the host folder
  becomes the tree of a new commit on top of the branch's tip, pushed to any
  git remote (:mod:`acap.git_pages`);
* a **directory**: mirrored, stale files removed, swapped in atomically
  (:mod:`acap.dir_mirror`).

Nothing goes out unless every check passes for every host being published
(:func:`preflight`):

* site/ was built from the current operator.yaml, templates/ and keys
  (the build manifest's ``inputs`` equal :func:`acap.build.input_digest`),
  otherwise "run acap build" (``PUBLISH-STALE``);
* every file of the host folder is the file the build wrote, byte for byte,
  and none is missing or added (``PUBLISH-INTEGRITY``);
* every signature of every Agent Card verifies against the JWKS built beside
  it (A2A §8.4.3; ``PUBLISH-SIGNATURE`` and the ``SIG-*`` rules of
  :mod:`acap.verify`);
* no private key material anywhere in the tree: no PEM private key block, no
  JWK with private members in any JSON file (``PUBLISH-PRIVATE-KEY``);
* the card is at ``https://{host}/.well-known/agent-card.json`` (A2A §8.2)
  and the target serves that origin at its root (``PUBLISH-ORIGIN``).

The build manifest (``site/.acap/manifest.json``) lies outside every host
folder and is never published.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from .findings import Finding, Location, Report
from .git_pages import DEFAULT_BRANCH, Plan

#: What a GitHub Pages branch needs beside the built files: no Jekyll run, so
#: that ``.well-known`` (a dot folder, which Jekyll skips) is served.
NOJEKYLL = ".nojekyll"
CARD_PATH = "/.well-known/agent-card.json"
#: A PEM private key block of any kind (PKCS#8, "EC", "RSA", "ENCRYPTED", "OPENSSH").
PEM_PRIVATE = re.compile(rb"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----")
_GITHUB = re.compile(r"^(?:https://|ssh://git@|git@|git://)github\.com[/:]"
                     r"(?P<owner>[A-Za-z0-9-]+)/(?P<repo>[A-Za-z0-9._-]+?)(?:\.git)?/?$",
                     re.IGNORECASE)


@dataclass
class Target:
    """Where one host folder goes.

    Attributes:
        host: the host folder under site/ (``example.com``).
        kind: ``"branch"`` (git, GitHub Pages) or ``"dir"``.
        remote: git URL or absolute path (``branch`` targets).
        branch: branch name (``branch`` targets).
        dir: absolute directory (``dir`` targets).
        where: where the target was configured (operator.yaml line, or the command line).
    """

    host: str
    kind: Literal["branch", "dir"]
    remote: str | None = None
    branch: str = DEFAULT_BRANCH
    dir: Path | None = None
    where: Location = field(default_factory=lambda: Location("command line"))

    def describe(self) -> str:
        """``"branch gh-pages of /srv/pages.git"`` or ``"directory /srv/www"``."""
        if self.kind == "branch":
            return f"branch {self.branch} of {self.remote}"
        return f"directory {self.dir}"


@dataclass
class PublishOptions:
    """What to publish, and where.

    Attributes:
        config: operator.yaml.
        site_dir: the built site; default ``site`` beside operator.yaml.
        hosts: publish only these hosts (``--host``); default every host with a
            target, or the card host when a target is given on the command line.
        remote, branch, dir: a target given on the command line; it replaces
            the configured one of each selected host. Relative paths are
            relative to the current folder.
        dry_run: list what would be added, changed and removed; change nothing.
        force: allow replacing files on a branch that acap did not publish.
        progress: called with one line of text per step (``"example.com: ..."``).
    """

    config: Path = Path("operator.yaml")
    site_dir: Path | None = None
    hosts: tuple[str, ...] = ()
    remote: str | None = None
    branch: str | None = None
    dir: Path | None = None
    dry_run: bool = False
    force: bool = False
    progress: Callable[[str], None] | None = None

    def resolved_site_dir(self) -> Path:
        """``site_dir``, or ``site`` next to operator.yaml."""
        return self.site_dir if self.site_dir is not None else self.config.parent / "site"


@dataclass
class HostResult:
    """What happened to one host.

    Attributes:
        target: where it went.
        plan: what was (or, in a dry run, would be) added, changed and removed.
        outcome: ``"published"``, ``"up to date"``, ``"dry run"`` or ``"failed"``.
        commit: the new commit (branch targets), if one was made.
        detail: the reason of a failure (git's own message included).
    """

    target: Target
    plan: Plan | None = None
    outcome: str = "failed"
    commit: str | None = None
    detail: str = ""


@dataclass
class PublishResult:
    """The whole run.

    Attributes:
        report: every finding (checks and failures).
        hosts: one :class:`HostResult` per target, in order.
    """

    report: Report = field(default_factory=Report)
    hosts: list[HostResult] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when nothing failed."""
        return self.report.ok() and all(h.outcome != "failed" for h in self.hosts)


# -- targets -----------------------------------------------------------------------------------

def _is_local(remote: str) -> bool:
    """True for a git remote on this machine (not ``scheme://``, not scp-like ``host:path``)."""
    if "://" in remote:
        return remote.startswith("file://")
    return ":" not in remote.split("/", 1)[0]


def _absolute_remote(remote: str, base: Path) -> str:
    if remote.startswith("file://") or not _is_local(remote):
        return remote
    return str((base / remote).absolute())


def _site_hosts(manifest: dict[str, Any]) -> list[str]:
    files = manifest.get("files")
    if not isinstance(files, dict):
        return []
    return sorted({rel.split("/", 1)[0] for rel in files if "/" in rel and not rel.startswith(".")})


def resolve_targets(cfg: Any, options: PublishOptions, site_hosts: list[str],
                    card_host: str, report: Report) -> list[Target]:
    """The targets of this run (see :class:`PublishOptions`); problems go to ``report``.

    Rules: ``PUBLISH-TARGET`` (error: no target, a host not built, two hosts
    on one target, a target that is the project itself; warning: a built host
    left unpublished).
    """
    configured: dict[str, dict[str, Any]] = {}
    for host, settings in cfg.hosts.items():
        pub = settings.get("publish")
        if isinstance(pub, dict):
            configured[host] = pub
    if options.remote is not None and options.dir is not None:
        report.add(Finding("PUBLISH-TARGET", "error", "--remote and --dir were both given",
                           Location("command line"), "publish to a branch or to a directory"))
        return []
    if options.hosts:
        hosts = [h.lower() for h in options.hosts]
    elif options.remote is not None or options.dir is not None:
        hosts = [card_host]
    else:
        hosts = [h for h in site_hosts if h in configured]
        for h in site_hosts:
            if h not in configured:
                report.add(Finding(
                    "PUBLISH-TARGET", "warning", f"site/{h}/ is not published: operator.yaml "
                    f"gives no hosts.{h}.publish", cfg.at("/hosts", key=True),
                    f"add hosts: {h}: publish: remote: <git URL> (or dir: <folder>), "
                    f"or run acap publish --host {h} --remote <git URL>"))
        for h in configured:
            if h not in site_hosts:
                report.add(Finding(
                    "PUBLISH-TARGET", "warning", f"hosts.{h}.publish is set, but acap build "
                    f"wrote nothing for {h}", cfg.at(f"/hosts/{h}/publish", key=True),
                    "nothing is published there"))
        if not hosts:
            report.add(Finding(
                "PUBLISH-TARGET", "error", "no publish target: operator.yaml names none for "
                "the hosts built (" + ", ".join(site_hosts) + ")", cfg.at("/hosts", key=True),
                "add hosts: <host>: publish: remote: <git URL>, or run "
                "acap publish --remote <git URL>"))
            return []
    targets: list[Target] = []
    for host in hosts:
        if host not in site_hosts:
            report.add(Finding("PUBLISH-TARGET", "error", f"site/ has no folder for {host}",
                               Location("command line"),
                               "hosts built: " + (", ".join(site_hosts) or "none")
                               + "; run acap build"))
            continue
        t = _target_for(cfg, host, configured.get(host, {}), options, report)
        if t is not None:
            targets.append(t)
    _check_target_conflicts(cfg, options, targets, report)
    return targets


def _target_for(cfg: Any, host: str, pub: dict[str, Any], options: PublishOptions,
                report: Report) -> Target | None:
    ptr = f"/hosts/{host}/publish"
    base = cfg.base_dir
    if "remote" in pub and "dir" in pub and options.remote is None and options.dir is None:
        report.add(Finding("PUBLISH-TARGET", "error", f"hosts.{host}.publish gives both remote "
                           "and dir", cfg.at(ptr, key=True), "keep one of them"))
        return None
    where = cfg.at(ptr, key=True) if pub else Location("command line")
    branch = options.branch or str(pub.get("branch") or DEFAULT_BRANCH)
    if options.remote is not None:
        return Target(host, "branch", remote=_absolute_remote(options.remote, Path.cwd()),
                      branch=branch, where=Location("command line"))
    if options.dir is not None:
        return Target(host, "dir", dir=options.dir.absolute(), where=Location("command line"))
    if "remote" in pub:
        return Target(host, "branch", remote=_absolute_remote(str(pub["remote"]), base),
                      branch=branch, where=where)
    if "dir" in pub:
        return Target(host, "dir", dir=(base / str(pub["dir"])).absolute(), where=where)
    report.add(Finding("PUBLISH-TARGET", "error", f"no target for {host}: give a remote or a dir",
                       where if pub else Location("command line"),
                       f"hosts: {host}: publish: remote: <git URL>, or --remote / --dir"))
    return None


def _inside(a: Path, b: Path) -> bool:
    try:
        a.resolve().relative_to(b.resolve())
    except ValueError:
        return False
    return True


def _check_target_conflicts(cfg: Any, options: PublishOptions, targets: list[Target],
                            report: Report) -> None:
    from .git_pages import check_branch_name

    site_dir = options.resolved_site_dir()
    seen: dict[tuple[str, str], str] = {}
    for t in targets:
        if t.kind == "branch":
            assert t.remote is not None
            problem = check_branch_name(t.branch)
            if problem:
                report.add(Finding("PUBLISH-TARGET", "error", f"{t.branch!r} is not a branch "
                                   f"name: {problem}", t.where, "use a name like gh-pages"))
            key = (t.remote, t.branch)
        else:
            assert t.dir is not None
            key = ("dir", str(t.dir.resolve()))
            project = cfg.base_dir.absolute()
            bad = None
            if _inside(project, t.dir) or _inside(site_dir, t.dir):
                bad = "it holds your project (or site/): mirroring would delete it"
            elif _inside(t.dir, site_dir):
                bad = "it is inside site/, which acap build replaces"
            elif t.dir.is_symlink():
                bad = "it is a symbolic link; give the folder it points to"
            elif t.dir.exists() and not t.dir.is_dir():
                bad = "it is a file"
            if bad:
                report.add(Finding("PUBLISH-TARGET", "error", f"cannot publish {t.host} into "
                                   f"{t.dir}: {bad}", t.where,
                                   "give the folder your web server serves for this host"))
        for (kind, other), host in seen.items():
            if t.kind == "dir" and kind == "dir" and host != t.host and (
                    _inside(Path(other), t.dir or Path()) or
                    _inside(t.dir or Path(), Path(other))):
                report.add(Finding("PUBLISH-TARGET", "error", f"{t.host} and {host} would be "
                                   "published into the same folder", t.where,
                                   "give each host its own folder"))
        if key in seen and seen[key] != t.host:
            report.add(Finding("PUBLISH-TARGET", "error", f"{t.host} and {seen[key]} would be "
                               f"published to the same {t.describe()}", t.where,
                               "give each host its own branch or repository"))
        seen.setdefault(key, t.host)


# -- checks ------------------------------------------------------------------------------------

def _walk_files(root: Path) -> Iterator[Path]:
    for dirpath, dirs, names in os.walk(root):
        dirs.sort()
        for name in sorted(names + [d for d in dirs if (Path(dirpath) / d).is_symlink()]):
            yield Path(dirpath) / name


def read_host_files(site_dir: Path, host: str, manifest: dict[str, Any],
                    report: Report) -> dict[str, bytes]:
    """Read ``site/<host>/`` and check it against the build manifest.

    Returns:
        ``{path relative to the host root: bytes}`` of every file.
        Every file that the build did not write, that changed after the build
        (one byte is enough) or that is missing is a ``PUBLISH-INTEGRITY``
        error in ``report``.
    """
    import hashlib

    root = site_dir / host
    expected = {rel[len(host) + 1:]: digest
                for rel, digest in dict(manifest.get("files") or {}).items()
                if rel.startswith(host + "/")}
    files: dict[str, bytes] = {}
    for p in _walk_files(root):
        rel = p.relative_to(root).as_posix()
        shown = str(p)
        if p.is_symlink() or not p.is_file():
            report.add(Finding("PUBLISH-INTEGRITY", "error", f"{shown} is not a regular file",
                               Location(shown), "run acap build"))
            continue
        data = p.read_bytes()
        files[rel] = data
        if rel not in expected:
            report.add(Finding("PUBLISH-INTEGRITY", "error", f"{shown} was not written by "
                               "acap build", Location(shown),
                               "remove it and run acap build; acap publishes only what it built"))
        elif hashlib.sha256(data).hexdigest() != expected[rel]:
            report.add(Finding("PUBLISH-INTEGRITY", "error", f"{shown} changed after "
                               "acap build", Location(shown),
                               "run acap build (never edit site/ by hand: it is rebuilt)"))
    for rel in sorted(set(expected) - set(files)):
        shown = str(root / rel)
        report.add(Finding("PUBLISH-INTEGRITY", "error", f"{shown} is missing",
                           Location(shown), "run acap build"))
    return files


def private_key_findings(files: dict[str, bytes], root: Path) -> list[Finding]:
    """``PUBLISH-PRIVATE-KEY`` errors: PEM private key blocks in any file, and JWKs
    carrying private members (RFC 7518 §6.2.2, §6.3.2, §6.4.1; RFC 8037 §2) in
    any JSON file."""
    from .keys import PRIVATE_MEMBERS

    out: list[Finding] = []
    for rel, data in sorted(files.items()):
        shown = str(root / rel)
        if PEM_PRIVATE.search(data):
            out.append(Finding("PUBLISH-PRIVATE-KEY", "error", f"{shown} holds a PEM private key",
                               Location(shown), "delete it, keep keys outside site/, and "
                               "rotate the key (acap keys rotate): treat it as exposed"))
            continue
        if not (rel.endswith((".json", ".jwk", ".jwks", ".jsonld", ".webmanifest"))
                or data.lstrip()[:1] in (b"{", b"[")):
            continue
        try:
            doc = json.loads(data)
        except (ValueError, RecursionError):
            continue
        for ptr in _private_jwks(doc, "", PRIVATE_MEMBERS):
            out.append(Finding("PUBLISH-PRIVATE-KEY", "error",
                               f"{shown} holds a private JWK at {ptr or '/'}",
                               Location(shown, pointer=ptr), "publish public keys only, and "
                               "rotate the key (acap keys rotate): treat it as exposed"))
    return out


def _private_jwks(value: Any, ptr: str, private: frozenset[str]) -> Iterator[str]:
    from .loader import pointer_join

    if isinstance(value, dict):
        if "kty" in value and private & set(value):
            yield ptr
        for k, v in value.items():
            yield from _private_jwks(v, pointer_join(ptr, k), private)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _private_jwks(v, pointer_join(ptr, i), private)


def signature_findings(files: dict[str, bytes], host: str, root: Path) -> list[Finding]:
    """Verify every signature of every Agent Card in the host folder against the
    JWKS built beside it (named by ``jku``, read from ``files``, never fetched).

    Returns:
        ``PUBLISH-SIGNATURE`` errors (one per signature that does not verify)
        and the findings of :func:`acap.verify.verify_card`.
    """
    from .cardfile import CardFile, parse_card_bytes
    from .verify import verify_card

    out: list[Finding] = []
    for rel in sorted(r for r in files if r.endswith("agent-card.json")):
        shown = str(root / rel)
        cf = CardFile(shown, raw=files[rel])
        parse_card_bytes(cf)
        out.extend(cf.findings)
        if cf.data is None:
            continue

        def lookup(kid: str | None, jku: str | None,
                   shown: str = shown) -> tuple[dict[str, Any] | None, str]:
            if not jku:
                return None, "the protected header names no jku"
            u = urlsplit(jku)
            if (u.hostname or "").lower() != host or u.scheme != "https":
                return None, f"jku {jku} is not on https://{host}/"
            rel_jwks = u.path.lstrip("/")
            if rel_jwks not in files:
                return None, f"the JWKS named by jku ({jku}) is not in site/{host}/"
            try:
                doc = json.loads(files[rel_jwks])
                keys = [k for k in doc["keys"] if isinstance(k, dict) and k.get("kid") == kid]
            except (ValueError, KeyError, TypeError):
                return None, f"site/{host}/{rel_jwks} is not a JWKS"
            if not keys:
                return None, f"no key with kid '{kid}' in site/{host}/{rel_jwks}"
            return keys[0], str(root / rel_jwks)

        res = verify_card(cf.data, lookup, cf, f"https://{host}/{rel}")
        out.extend(res.report)
        for s in res.signatures:
            if not s.valid:
                out.append(Finding("PUBLISH-SIGNATURE", "error",
                                   f"signature {s.index} of {shown} (kid {s.kid or '-'}) does "
                                   f"not verify against the built JWKS: {s.reason}",
                                   cf.at(f"/signatures/{s.index}"), "run acap build"))
    return out


def served_origin(target: Target, files: dict[str, bytes]) -> tuple[str | None, str, str]:
    """The origin a branch target serves: ``(host or None, path prefix, how acap knows)``.

    GitHub Pages serves a branch at the custom domain of its ``CNAME`` file;
    without one, a repository named ``<owner>.github.io`` at
    ``https://<owner>.github.io/`` and any other at
    ``https://<owner>.github.io/<repo>/`` (under a path, not at the root).
    ``(None, "", reason)`` when acap cannot tell (another git host, no CNAME).
    """
    cname = files.get("CNAME")
    if cname is not None:
        lines = cname.decode("utf-8", "replace").split()
        return (lines[0].lower() if lines else None), "", "its CNAME file"
    m = _GITHUB.match(target.remote or "")
    if m:
        owner, repo = m.group("owner").lower(), m.group("repo")
        if repo.lower() == f"{owner}.github.io":
            return f"{owner}.github.io", "", f"GitHub Pages of {owner}/{repo}"
        return f"{owner}.github.io", f"/{repo}/", f"GitHub Pages of {owner}/{repo}"
    return None, "", f"acap cannot tell which origin serves {target.remote}"


def origin_findings(target: Target, files: dict[str, bytes], card_host: str) -> list[Finding]:
    """``PUBLISH-ORIGIN``: the target must serve ``https://<host>/`` at its root, so
    that the card is at ``https://<host>/.well-known/agent-card.json`` (A2A §8.2)."""
    if target.kind != "branch":
        return []
    host, prefix, how = served_origin(target, files)
    what = (f"the card would not be at https://{target.host}{CARD_PATH}"
            if target.host == card_host else
            f"its pages would not be at https://{target.host}/")
    if host is None:
        return [Finding("PUBLISH-ORIGIN", "warning", f"{how}: make sure it serves "
                        f"https://{target.host}/ at the root", target.where,
                        f"set hosts.{target.host}.cname: {target.host} for GitHub Pages")]
    if host != target.host or prefix:
        return [Finding("PUBLISH-ORIGIN", "error",
                        f"{target.describe()} serves https://{host}{prefix or '/'} ({how}), "
                        f"not https://{target.host}/: {what}", target.where,
                        f"set hosts.{target.host}.cname: {target.host} (and the same custom "
                        "domain in the repository's Pages settings)")]
    return []


def pages_extras(cfg: Any, host: str, files: dict[str, bytes]) -> dict[str, bytes]:
    """Files a GitHub Pages branch needs that the build did not write: ``.nojekyll``
    (Jekyll would skip ``.well-known``) and ``CNAME`` from ``hosts.<host>.cname``."""
    extra: dict[str, bytes] = {}
    if NOJEKYLL not in files:
        extra[NOJEKYLL] = b""
    cname = cfg.hosts.get(host, {}).get("cname")
    if "CNAME" not in files and isinstance(cname, str) and cname:
        extra["CNAME"] = (cname.strip() + "\n").encode("utf-8")
    return extra


@dataclass
class Checked:
    """The outcome of :func:`preflight`.

    Attributes:
        report: every finding.
        targets: the targets of this run.
        files: ``{host: {path: bytes}}`` ready to go out (extras included).
        cfg: the loaded operator.yaml (``None`` when it could not be read).
    """

    report: Report
    targets: list[Target]
    files: dict[str, dict[str, bytes]]
    cfg: Any = None


def preflight(options: PublishOptions) -> Checked:
    """Every check before anything goes out (see the module docstring).

    Returns:
        A :class:`Checked`; nothing may be published unless ``report.ok()``.
    """
    from .build import input_digest
    from .operator_config import load_operator
    from .site import MANIFEST, read_manifest

    report = Report()
    cfg = load_operator(options.config)
    report.extend(cfg.findings)
    out = Checked(report, [], {}, cfg)
    if not report.ok():
        return out
    site_dir = options.resolved_site_dir()
    manifest = read_manifest(site_dir)
    if manifest is None:
        report.add(Finding("PUBLISH-STALE", "error", f"{site_dir}/ holds no build "
                           f"({MANIFEST} is missing)", Location(str(site_dir)),
                           "run acap build"))
        return out
    if manifest.get("inputs") != input_digest(cfg):
        report.add(Finding("PUBLISH-STALE", "error", f"{site_dir}/ was not built from the "
                           f"current {cfg.loaded.file}, templates/ and keys", Location(
                               str(site_dir / MANIFEST)), "run acap build"))
        return out
    card_url = str(manifest.get("card") or cfg.card_url)
    card_host = (urlsplit(card_url).hostname or "").lower()
    if urlsplit(card_url).path != CARD_PATH:
        report.add(Finding("PUBLISH-ORIGIN", "error", f"the card URL {card_url} is not at the "
                           f"root of its origin ({CARD_PATH}, A2A §8.2)",
                           cfg.at("/cardHost"), "run acap build"))
    site_hosts = _site_hosts(manifest)
    out.targets = resolve_targets(cfg, options, site_hosts, card_host, report)
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
        reason (git's own message included); that target is left as it was
        and the other targets are still published.
    """
    from .git_pages import ForeignContent, GitError, commit_date, publish_branch

    checked = preflight(options)
    result = PublishResult(checked.report)
    if not checked.report.ok():
        return result
    cfg = checked.cfg

    for t in checked.targets:
        hr = HostResult(t)
        result.hosts.append(hr)
        files = checked.files[t.host]

        def say(msg: str, host: str = t.host) -> None:
            if options.progress:
                options.progress(f"{host}: {msg}")

        say(f"{len(files)} files -> {t.describe()}" + (" (dry run)" if options.dry_run else ""))
        try:
            if t.kind == "branch":
                assert t.remote is not None
                outcome = publish_branch(files, t.remote, t.branch, host=t.host,
                                         dry_run=options.dry_run, force=options.force,
                                         date=commit_date(cfg.base_dir), progress=say)
                hr.plan, hr.commit = outcome.plan, outcome.commit
                hr.outcome = ("published" if outcome.pushed else
                              "up to date" if outcome.plan.empty and outcome.previous else
                              "dry run")
            else:
                from .dir_mirror import mirror

                assert t.dir is not None
                existed = t.dir.is_dir()
                hr.plan = mirror(files, t.dir, dry_run=options.dry_run, progress=say)
                hr.outcome = ("dry run" if options.dry_run else
                              "up to date" if hr.plan.empty and existed else "published")
        except ForeignContent as exc:
            hr.plan, hr.detail = exc.outcome.plan, str(exc)
            result.report.add(Finding("PUBLISH-FOREIGN", "error", str(exc), t.where,
                                      "check the branch; acap publish --force replaces these "
                                      "files (they stay in the branch's history)"))
        except (GitError, OSError) as exc:
            hr.detail = str(exc)
            result.report.add(Finding("PUBLISH-FAILED", "error",
                                      f"{t.host}: publishing to {t.describe()} failed; it is "
                                      f"as it was. {exc}", t.where,
                                      "fix the cause and run acap publish again"))
        say(hr.outcome + (f": {hr.plan.summary()}" if hr.plan else ""))
    return result
