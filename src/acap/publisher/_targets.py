"""``acap publish`` targets: where each host folder of site/ goes.

One target per host, from ``hosts.<host>.publish`` in operator.yaml
(``remote`` + ``branch``, or ``dir``), or from the command line (``--host``,
``--remote``, ``--branch``, ``--dir``). Mistakes (no target, a host not
built, two hosts on one target, a directory that is, holds or lies inside the
parts of an acap project, or holds a private key) are ``PUBLISH-TARGET``
errors; built hosts a run leaves unpublished are ``PUBLISH-TARGET`` warnings.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from acap.findings import Finding, Location, Report
from acap.keys import holds_private_key
from acap.load import is_inside
from acap.publisher._git_branch import DEFAULT_BRANCH, check_branch_name


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


def _is_local(remote: str) -> bool:
    """True for a git remote on this machine (not ``scheme://``, not scp-like ``host:path``)."""
    if "://" in remote:
        return remote.startswith("file://")
    return ":" not in remote.split("/", 1)[0]


def _absolute_remote(remote: str, base: Path) -> str:
    if remote.startswith("file://") or not _is_local(remote):
        return remote
    return str((base / remote).absolute())


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
        _warn_left_out(cfg, options, site_hosts, card_host, configured, report)
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
            theirs = (options.resolved_site_dir() / host).is_dir()
            report.add(Finding(
                "PUBLISH-TARGET", "error", f"{host} is not a host of {cfg.path.name}: site/ "
                "holds it for another operator of the batch" if theirs else
                f"site/ has no folder for {host}", Location("command line"),
                "hosts built: " + (", ".join(site_hosts) or "none")
                + ("" if theirs else "; run acap build")))
            continue
        t = _target_for(cfg, host, configured.get(host, {}), options, report)
        if t is not None:
            targets.append(t)
    _check_target_conflicts(cfg, options, targets, report)
    return targets


def person_entry_urls(cfg: Any) -> dict[str, str]:
    """``{host: personEntry URL}`` of the card's on-request skills (first URL per host)."""

    out: dict[str, str] = {}
    for _ptr, skill in cfg.on_request_skills():
        url = skill.get("personEntry")
        if isinstance(url, str):
            try:
                host = (urlsplit(url).hostname or "").lower()
            except ValueError:
                continue
            if host:
                out.setdefault(host, url)
    return out


def _warn_left_out(cfg: Any, options: PublishOptions, site_hosts: list[str], card_host: str,
                   configured: dict[str, dict[str, Any]], report: Report) -> None:
    """``PUBLISH-TARGET`` warnings: ``--remote``/``--dir`` without ``--host`` publish the
    card's host only; every other built host (the personEntry page's above all) is
    named, with the command that publishes it."""
    flag = "--remote" if options.remote is not None else "--dir"
    entries = person_entry_urls(cfg)
    for h in site_hosts:
        if h == card_host:
            continue
        msg = f"site/{h}/ is not published: {flag} publishes only the card's host {card_host}"
        if h in entries:
            msg += f", and the card's personEntry {entries[h]} is on {h}"
        if h in configured:
            hint = f"acap publish --host {h} publishes it to its target in operator.yaml"
        else:
            what = "git URL" if flag == "--remote" else "folder"
            hint = (f"publish it to a target of its own: acap publish --host {h} {flag} "
                    f"<{what}> (or set hosts.{h}.publish in operator.yaml)")
        report.add(Finding("PUBLISH-TARGET", "warning", msg, Location("command line"), hint))


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


#: Folders of an acap project that a mirror must never replace: its keys and build
#: record (``.acap``), the templates the build reads, and site/ (acap build replaces it).
PROJECT_PARTS = (".acap", "templates", "site")
#: Files larger than this are not read for private keys (keys are a few kilobytes).
_KEY_SCAN_LIMIT = 1024 * 1024


def _is_project(folder: Path) -> bool:
    """True for an acap project folder: it holds operator.yaml or an ``.acap`` folder."""
    return (folder / "operator.yaml").is_file() or (folder / ".acap").is_dir()


def _holds_private_key(path: Path) -> bool:
    """A PEM private key block, or a JWK with private members (RFC 7518 §6) in JSON
    (:func:`acap.keys._leaks.holds_private_key`)."""

    try:
        if path.stat().st_size > _KEY_SCAN_LIMIT:
            return False
        data = path.read_bytes()
    except OSError:
        return False
    return holds_private_key(data, path.name)


def project_content(folder: Path) -> str | None:
    """What in ``folder`` a mirror must never delete, or ``None``: an acap project
    (operator.yaml or ``.acap/``, at any depth) or a private key. Symbolic links
    are not followed."""

    for name in ("operator.yaml", ".acap"):
        if (folder / name).exists():
            return f"it is an acap project (it holds {name})"
    for dirpath, dirs, names in os.walk(folder):
        here = Path(dirpath)
        dirs.sort()
        for d in dirs:
            if d == ".acap":
                rel = (here / d).relative_to(folder).as_posix()
                return f"it holds an acap project's .acap folder ({rel})"
        for n in sorted(names):
            p = here / n
            rel = p.relative_to(folder).as_posix()
            if n == "operator.yaml":
                return f"it holds an acap project ({rel})"
            if not p.is_symlink() and _holds_private_key(p):
                return f"it holds a private key ({rel})"
    return None


def _dir_problem(cfg: Any, site_dir: Path, target: Path) -> str | None:
    """Why ``target`` may never be mirrored into, even with ``--force``; ``None`` if it may.

    Refused: a folder that holds this project, site/, its keys or any other acap
    project or private key; a folder inside site/ or inside the ``.acap``,
    templates/ or site/ folder of any acap project; a symbolic link; a file.
    A folder of its own inside a project (the GitHub workflow's ``_site``) is fine.
    """
    project = cfg.base_dir.absolute()
    if is_inside(project, target) or is_inside(site_dir, target):
        return "it holds your project (or site/): mirroring would delete it"
    for key in (cfg.key_file, cfg.previous_keys_file):
        if key.exists() and is_inside(key, target):
            return f"it holds your signing keys ({key}): mirroring would delete them"
    if is_inside(target, site_dir):
        return "it is inside site/, which acap build replaces"
    for above in target.absolute().parents:
        if _is_project(above):
            part = target.absolute().relative_to(above).parts[0]
            if part in PROJECT_PARTS:
                return f"it is inside {part}/ of the acap project {above}"
    if target.is_symlink():
        return "it is a symbolic link; give the folder it points to"
    if target.exists() and not target.is_dir():
        return "it is a file"
    if target.is_dir() and (held := project_content(target)):
        return f"{held}: mirroring would delete it"
    return None


def _check_target_conflicts(cfg: Any, options: PublishOptions, targets: list[Target],
                            report: Report) -> None:
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
            bad = _dir_problem(cfg, site_dir, t.dir)
            if bad:
                report.add(Finding("PUBLISH-TARGET", "error", f"cannot publish {t.host} into "
                                   f"{t.dir}: {bad}", t.where,
                                   "give the folder your web server serves for this host"))
        for (kind, other), host in seen.items():
            if t.kind == "dir" and kind == "dir" and host != t.host and (
                    is_inside(Path(other), t.dir or Path()) or
                    is_inside(t.dir or Path(), Path(other))):
                mine = str((t.dir or Path()).resolve())
                how = ("into the same folder" if mine == other else
                       f"into folders inside one another ({other} and {mine})")
                report.add(Finding("PUBLISH-TARGET", "error", f"{t.host} and {host} would be "
                                   f"published {how}: one would delete the other's files",
                                   t.where, "give each host a folder of its own, side by side"))
        if key in seen and seen[key] != t.host and t.kind != "dir":
            report.add(Finding("PUBLISH-TARGET", "error", f"{t.host} and {seen[key]} would be "
                               f"published to the same {t.describe()}", t.where,
                               "give each host its own branch or repository"))
        seen.setdefault(key, t.host)
