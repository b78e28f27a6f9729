"""``acap publish`` targets: where each host folder of site/ goes.

One target per host, from ``hosts.<host>.publish`` in operator.yaml
(``remote`` + ``branch``, ``dir``, or ``sftp``), or from the command line
(``--host``, ``--remote``, ``--branch``, ``--dir``, ``--sftp``). Each target
adds acap's files beside a website (overlay) or holds exactly them, as the
host's ``overlay`` setting says (:meth:`acap.load.OperatorConfig.overlay`).
Mistakes (no target, a host not built, two hosts on one target, a directory
that is, holds or lies inside the parts of an acap project or a git
repository's own folder, holds a private key where acap would replace the
folder, or holds a ``.git`` that is not a working tree of the target branch)
are ``PUBLISH-TARGET`` errors; built hosts a run leaves unpublished are
``PUBLISH-TARGET`` warnings.

Credentials in a URL (``https://user:token@host/...``, ``sftp://user:password@...``) are
never printed: every target is shown through :func:`redacted`, and a failure's text
through :func:`scrubbed`.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from acap.errors import FileRefused
from acap.findings import Finding, Location, Report
from acap.keys import holds_private_key
from acap.load import is_inside, read_regular
from acap.publisher._fs import walk
from acap.publisher._git_branch import DEFAULT_BRANCH, check_branch_name
from acap.publisher._local import LocalFs
from acap.publisher._plan import TargetRefused
from acap.publisher._sftp import SftpAddress, parse_sftp_url


@dataclass
class Target:
    """Where one host folder goes.

    Attributes:
        host: the host folder under site/ (``example.com``).
        kind: ``"branch"`` (git, GitHub Pages), ``"dir"`` or ``"sftp"``.
        remote: git URL or absolute path (``branch`` targets).
        branch: branch name (``branch`` targets; for ``dir`` targets, the branch a
            folder holding ``.git`` must have checked out).
        dir: absolute directory (``dir`` targets).
        sftp: the server and folder (``sftp`` targets).
        overlay: add acap's files beside a website there, touching nothing else,
            rather than make the target hold exactly the host folder.
        where: where the target was configured (operator.yaml line, or the command line).
        hosting: the hosting kind declared for the host (``hosts.<host>.hosting`` or
            ``--hosting``; :mod:`acap.publisher._hosting`), or ``None``: detected.
    """

    host: str
    kind: Literal["branch", "dir", "sftp"]
    remote: str | None = None
    branch: str = DEFAULT_BRANCH
    dir: Path | None = None
    sftp: SftpAddress | None = None
    overlay: bool = False
    where: Location = field(default_factory=lambda: Location("command line"))
    hosting: str | None = None

    def describe(self) -> str:
        """``"branch gh-pages of /srv/pages.git"``, ``"directory /srv/www"`` or
        ``"sftp://user@host:22/path"``; credentials in a remote's URL left out."""
        if self.kind == "branch":
            return f"branch {self.branch} of {redacted(self.remote or '')}"
        if self.kind == "sftp" and self.sftp is not None:
            return self.sftp.describe()
        return f"directory {self.dir}"


@dataclass
class PublishOptions:
    """What to publish, and where.

    Attributes:
        config: operator.yaml.
        site_dir: the built site; default ``site`` beside operator.yaml.
        hosts: publish only these hosts (``--host``); default every host with a
            target, or the card host when a target is given on the command line.
        remote, branch, dir, sftp: a target given on the command line; it replaces
            the configured one of each selected host. Relative paths are
            relative to the current folder; ``sftp`` is a URL
            (``sftp://user@host[:port]/path``, :func:`acap.publisher._sftp.parse_sftp_url`).
        dry_run: list what would be added, changed and removed; change nothing.
        force: allow replacing (and, where acap owns the host whole, removing) files
            that acap did not publish there.
        progress: called with one line of text per step (``"example.com: ..."``).
        allow_example_hosts: publish hosts whose names are reserved for examples
            (``example.org``, ``*.test`` ...; :func:`acap.uris.is_example_host`), for
            trying acap out with its example into a local folder; without it they are
            refused (``PUBLISH-PLACEHOLDER``).
        create: make a target that does not exist yet (a folder, a branch); without it
            a missing target is refused, so that a typo never publishes into a new,
            unserved folder.
        hosting: the hosting kind of the targets given on the command line
            (``--hosting``), overriding ``hosts.<host>.hosting``.
        connect_to: ``{host: "http://127.0.0.1:8000"}``: where the live card of a host
            is fetched from, for the check that it is not signed with a key this
            computer lacks (a site not yet in DNS, tests); a host reserved for examples
            is fetched only when routed so.
    """

    config: Path = Path("operator.yaml")
    site_dir: Path | None = None
    hosts: tuple[str, ...] = ()
    remote: str | None = None
    branch: str | None = None
    dir: Path | None = None
    sftp: str | None = None
    dry_run: bool = False
    force: bool = False
    progress: Callable[[str], None] | None = None
    allow_example_hosts: bool = False
    create: bool = False
    hosting: str | None = None
    connect_to: Mapping[str, str] = field(default_factory=dict)

    def resolved_site_dir(self) -> Path:
        """``site_dir``, or ``site`` next to operator.yaml."""
        return self.site_dir if self.site_dir is not None else self.config.parent / "site"


def redacted(url: str) -> str:
    """``url`` with its credentials replaced by ``***``: the password of any URL, and the
    whole user part of an ``http(s)`` URL (a token often stands there); an SSH login
    name is kept (``sftp://praxis@host``, ``git@github.com:...``)."""
    m = re.match(r"([A-Za-z][A-Za-z0-9+.-]*://)([^/?#]*)@", url)
    if not m:
        # ``scheme://name:secret/...`` (the @ forgotten): what stands as the port is
        # not a port
        port = re.match(r"([A-Za-z][A-Za-z0-9+.-]*://(?:\[[^\]/]*\]|[^/?#:\[]*):)([^/?#]*)",
                        url)
        return url if not port or port.group(2).isdigit() else \
            f"{port.group(1)}***{url[port.end():]}"
    scheme, userinfo = m.group(1), m.group(2)
    user, colon, _password = userinfo.partition(":")
    keep = scheme.lower() in ("sftp://", "ssh://", "git+ssh://", "ssh+git://")
    shown = (user + (":***" if colon else "")) if keep else "***"
    return f"{scheme}{shown}@{url[m.end():]}"


def scrubbed(text: str, url: str) -> str:
    """``text`` (git's message, say) with ``url`` and its credentials replaced as
    :func:`redacted` shows them; a secret shorter than four characters is left alone
    where it does not stand in the URL itself."""
    text = text.replace(url, redacted(url))
    m = re.match(r"[A-Za-z][A-Za-z0-9+.-]*://([^/?#]*)@", url)
    if m:
        userinfo = m.group(1)
        for secret in (userinfo, userinfo.partition(":")[2]):
            if len(secret) >= 4 and redacted(url) != url:
                text = text.replace(secret, "***")
    return text


def _is_local(remote: str) -> bool:
    """True for a git remote on this machine (not ``scheme://``, not scp-like ``host:path``)."""
    if "://" in remote:
        return remote.startswith("file://")
    return ":" not in remote.split("/", 1)[0]


def _absolute_remote(remote: str, base: Path) -> str:
    if remote.startswith("file://") or not _is_local(remote):
        return remote
    return str((base / remote).absolute())


def _configured(cfg: Any) -> dict[str, dict[str, Any]]:
    """``{host: hosts.<host>.publish}`` of operator.yaml."""
    return {host: settings["publish"] for host, settings in cfg.hosts.items()
            if isinstance(settings.get("publish"), dict)}


def _given(options: PublishOptions) -> list[str]:
    """The target flags given on the command line."""
    return [flag for flag, value in (("--remote", options.remote), ("--dir", options.dir),
                                     ("--sftp", options.sftp)) if value is not None]


def resolve_targets(cfg: Any, options: PublishOptions, site_hosts: list[str],
                    card_host: str, report: Report) -> list[Target]:
    """The targets of this run (see :class:`PublishOptions`); problems go to ``report``.

    Rules: ``PUBLISH-TARGET`` (error: no target, a host not built, two hosts
    on one target, a target that is the project itself; warning: a built host
    left unpublished).
    """
    configured = _configured(cfg)
    given = _given(options)
    if len(given) > 1:
        report.add(Finding("PUBLISH-TARGET", "error", f"{' and '.join(given)} were all given"
                           if len(given) > 2 else f"{given[0]} and {given[1]} were both given",
                           Location("command line"),
                           "publish to one place at a time: a branch, a folder or an SFTP "
                           "server"))
        return []
    if options.hosts:
        hosts = [h.lower() for h in options.hosts]
    elif given:
        hosts = [card_host]
        _warn_left_out(cfg, options, site_hosts, card_host, configured, report)
    else:
        hosts = _configured_hosts(cfg, site_hosts, configured, report)
    targets: list[Target] = []
    for host in hosts:
        if _built(cfg, options, host, site_hosts, report):
            t = _target_for(cfg, host, configured.get(host, {}), options, report)
            targets += [t] if t is not None else []
    _check_target_conflicts(cfg, options, targets, report)
    return targets


#: The forms of an SFTP target acap accepts, as its hints show them: operator.yaml's
#: ``hosts.<host>.publish.sftp`` (keys and values, :meth:`SftpAddress.from_config`) and
#: ``--sftp`` (a URL, :func:`acap.publisher._sftp.parse_sftp_url`). Not ``user@server:folder``
#: (scp's form), which neither reads.
SFTP_KEY_FORM = "sftp: {host: SERVER, user: LOGIN, path: public_html}"
SFTP_URL_FORM = "sftp://LOGIN@SERVER/~/public_html"


#: scp's ``LOGIN@SERVER:FOLDER`` (no password, no scheme): the form people know from
#: scp and rsync, which ``--sftp`` does not read; the hint rewrites it as a URL.
_SCP_FORM = re.compile(r"([^@:/\s]+)@([^@:/\s]+):(\S+)")


def sftp_hint(given: str) -> str:
    """The fix of an ``--sftp`` value acap cannot read: the accepted forms, and
    ``given`` rewritten as one when it is scp's ``LOGIN@SERVER:FOLDER`` (a folder not
    starting with ``/`` is in the login folder: ``/~/``)."""
    forms = (f"write it as {SFTP_URL_FORM} (/~/ is the folder you land in when you log "
             "in; sftp://LOGIN@SERVER/var/www/site is a full path); in operator.yaml the "
             f"same target is {SFTP_KEY_FORM}")
    m = _SCP_FORM.fullmatch(given.strip())
    if not m:
        return forms
    login, server, folder = m.groups()
    url = f"sftp://{login}@{server}" + (folder if folder.startswith("/") else f"/~/{folder}")
    return (f"acap reads a URL, not scp's LOGIN@SERVER:FOLDER: --sftp {url}; in "
            f"operator.yaml: sftp: {{host: {server}, user: {login}, path: {folder}}}")


def _configured_hosts(cfg: Any, site_hosts: list[str], configured: dict[str, dict[str, Any]],
                      report: Report) -> list[str]:
    """The built hosts operator.yaml gives a target; warnings for the others, and for
    targets of hosts not built; an error when none is left."""
    for h in site_hosts:
        if h not in configured:
            report.add(Finding(
                "PUBLISH-TARGET", "warning", f"site/{h}/ is not published: operator.yaml "
                f"gives no hosts.{h}.publish", cfg.at("/hosts", key=True),
                f"add hosts: {h}: publish: remote: <git URL> (or dir: <folder>, or "
                f"{SFTP_KEY_FORM}), or run acap publish --host {h} --remote <git URL>"))
    for h in configured:
        if h not in site_hosts:
            report.add(Finding(
                "PUBLISH-TARGET", "warning", f"hosts.{h}.publish is set, but acap build "
                f"wrote nothing for {h}", cfg.at(f"/hosts/{h}/publish", key=True),
                "nothing is published there"))
    hosts = [h for h in site_hosts if h in configured]
    if not hosts:
        report.add(Finding(
            "PUBLISH-TARGET", "error", "no publish target: operator.yaml names none for "
            "the hosts built (" + ", ".join(site_hosts) + ")", cfg.at("/hosts", key=True),
            "add hosts: <host>: publish: with dir: <folder of your website>, "
            f"{SFTP_KEY_FORM} or remote: <git URL>; or run acap publish "
            f"--dir <folder>, --sftp {SFTP_URL_FORM} or --remote <git URL>"))
    return hosts


def _built(cfg: Any, options: PublishOptions, host: str, site_hosts: list[str],
           report: Report) -> bool:
    """Whether site/ holds ``host`` of this operator; an error naming why not."""
    if host in site_hosts:
        return True
    theirs = (options.resolved_site_dir() / host).is_dir()
    report.add(Finding(
        "PUBLISH-TARGET", "error", f"{host} is not a host of {cfg.path.name}: site/ "
        "holds it for another operator of the batch" if theirs else
        f"site/ has no folder for {host}", Location("command line"),
        "hosts built: " + (", ".join(site_hosts) or "none")
        + ("" if theirs else "; run acap build")))
    return False


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
    flag = "--remote" if options.remote is not None else \
        "--dir" if options.dir is not None else "--sftp"
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
            what = {"--remote": "<git URL>", "--dir": "<folder>"}.get(flag, SFTP_URL_FORM)
            hint = (f"publish it to a target of its own: acap publish --host {h} {flag} "
                    f"{what} (or set hosts.{h}.publish in operator.yaml)")
        report.add(Finding("PUBLISH-TARGET", "warning", msg, Location("command line"), hint))


def _target_for(cfg: Any, host: str, pub: dict[str, Any], options: PublishOptions,
                report: Report) -> Target | None:
    """The target of ``host``: the command line's, else operator.yaml's; ``None`` (and an
    error in ``report``) when there is none or it cannot be used."""
    kinds = [k for k in ("remote", "dir", "sftp") if k in pub]
    cli = Location("command line")
    if len(kinds) > 1 and not _given(options):
        report.add(Finding("PUBLISH-TARGET", "error", f"hosts.{host}.publish gives "
                           + " and ".join(kinds), cfg.at(f"/hosts/{host}/publish", key=True),
                           "keep one of them: acap publishes each host to one place"))
        return None
    declared = cfg.hosts.get(host, {}).get("hosting")
    base = Target(host, "dir", branch=options.branch or str(pub.get("branch") or DEFAULT_BRANCH),
                  overlay=bool(cfg.overlay(host)),
                  hosting=options.hosting or (declared if isinstance(declared, str) else None))
    if _given(options):
        return _command_line_target(cfg, base, pub, options, report)
    where = cfg.at(f"/hosts/{host}/publish", key=True) if pub else cli
    if "remote" in pub:
        return _with(base, "branch", where, remote=_absolute_remote(str(pub["remote"]),
                                                                    cfg.base_dir))
    if "dir" in pub:
        return _with(base, "dir", where, dir=(cfg.base_dir / str(pub["dir"])).absolute())
    if isinstance(pub.get("sftp"), dict):
        return _with(base, "sftp", cfg.at(f"/hosts/{host}/publish/sftp", key=True),
                     sftp=SftpAddress.from_config(pub["sftp"], cfg.base_dir))
    report.add(Finding("PUBLISH-TARGET", "error",
                       f"no target for {host}: give a remote, a dir or an sftp server",
                       where, f"hosts: {host}: publish: remote: <git URL>, or --remote / "
                       "--dir / --sftp"))
    return None


def _with(base: Target, kind: Literal["branch", "dir", "sftp"], where: Location,
          **given: Any) -> Target:
    """``base`` as a target of ``kind`` configured at ``where``."""
    return Target(base.host, kind, branch=base.branch, overlay=base.overlay,
                  hosting=base.hosting, where=where, **given)


def _command_line_target(cfg: Any, base: Target, pub: dict[str, Any],
                         options: PublishOptions, report: Report) -> Target | None:
    """The target ``--remote``, ``--dir`` or ``--sftp`` gives (an ``--sftp`` URL takes
    ``knownHosts`` and ``key`` from operator.yaml's ``sftp`` of the host)."""
    cli = Location("command line")
    if options.remote is not None:
        return _with(base, "branch", cli, remote=_absolute_remote(options.remote, Path.cwd()))
    if options.dir is not None:
        return _with(base, "dir", cli, dir=options.dir.absolute())
    address, problem = parse_sftp_url(options.sftp or "")
    if address is None:
        report.add(Finding("PUBLISH-TARGET", "error",
                           f"--sftp {redacted(options.sftp or '')}: {problem}", cli,
                           sftp_hint(options.sftp or "")))
        return None
    given = pub.get("sftp")
    return _with(base, "sftp", cli, sftp=address.with_files(
        given if isinstance(given, dict) else {}, cfg.base_dir))


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
    (:func:`acap.keys._leaks.holds_private_key`); a file larger than any key is not read."""
    try:
        data = read_regular(path, _KEY_SCAN_LIMIT, follow_links=False)
    except (OSError, FileRefused):
        return False
    return holds_private_key(data, path.name)


def project_content(folder: Path) -> str | None:
    """What in ``folder`` a mirror must never delete, or ``None``: an acap project
    (operator.yaml or ``.acap/``, at any depth), a git repository below its root
    (``sub/.git``), or a private key. Walked without recursion and without following a
    link (:func:`acap.publisher._fs.walk`); a file that is not a regular file is not
    opened (the publish refuses it later).

    Raises:
        TargetRefused: folders nested deeper than acap walks.
    """
    for name in ("operator.yaml", ".acap"):
        if (folder / name).exists():
            return f"it is an acap project (it holds {name})"
    for rel, entry in walk(LocalFs(str(folder)), str(folder), set()):
        held = _held(folder, rel, entry.mode)
        if held:
            return held
    return None


def _held(folder: Path, rel: str, mode: int) -> str | None:
    """What the entry ``rel`` of ``folder`` is that a mirror must never delete."""
    name = rel.rsplit("/", 1)[-1]
    if name == ".acap" and stat.S_ISDIR(mode):
        return f"it holds an acap project's .acap folder ({rel})"
    if name == ".git" and "/" in rel:
        return f"it holds a git repository ({rel})" if stat.S_ISDIR(mode) else \
            f"it holds a git working tree ({rel})"
    if name == "operator.yaml":
        return f"it holds an acap project ({rel})"
    if stat.S_ISREG(mode) and _holds_private_key(folder / rel):
        return f"it holds a private key ({rel})"
    return None


def _is_git_dir(folder: Path) -> bool:
    """A git repository's own folder (``.git``, or a bare repository): HEAD, objects/, refs/."""
    return (folder / "HEAD").is_file() and (folder / "objects").is_dir() and \
        (folder / "refs").is_dir()


def checked_out_branch(tree: Path) -> str | None:
    """The branch the git working tree ``tree`` has checked out (``gh-pages``), read from
    its ``.git`` (a folder, or a file ``gitdir: ...`` for a worktree) without running
    git in it (its config could run commands). ``None`` for a detached HEAD or
    anything acap cannot read as git's."""

    git = tree / ".git"
    try:
        if git.is_symlink():
            return None
        if git.is_file():
            data = read_regular(git, 4096, follow_links=False)
            line = data.decode("utf-8", "replace").strip()
            if not line.startswith("gitdir:"):
                return None
            gitdir = Path(line[len("gitdir:"):].strip())
            git = gitdir if gitdir.is_absolute() else tree / gitdir
        head = read_regular(git / "HEAD", 4096, follow_links=False)
    except (OSError, FileRefused):
        return None
    text = head.decode("utf-8", "replace").strip()
    prefix = "ref: refs/heads/"
    return text[len(prefix):] if text.startswith(prefix) else None


def _git_problem(target: Path, branch: str) -> tuple[str, str] | None:
    """Why ``target`` may never be published into because of git (issue 12, item 6):
    a git repository's own folder (the project's ``.git``, a bare repository) or a
    folder inside one; a folder holding ``.git`` unless it is a working tree of
    ``branch``. ``(problem, hint)`` or ``None``."""
    real = target.resolve()
    for folder in (real, *real.parents):
        if folder.name == ".git" or (folder.is_dir() and _is_git_dir(folder)):
            return (f"{'it is' if folder == real else 'it is inside'} a git repository's "
                    f"own folder ({folder}): publishing would destroy its history",
                    "give the folder your web server serves; to publish to a branch, use "
                    "--remote and --branch")
    if os.path.lexists(target / ".git"):
        head = checked_out_branch(target)
        if head != branch:
            what = f"branch {head}" if head else "no branch acap can read"
            return (f"it is a git working tree of {what}, not of the branch {branch}: acap "
                    "would mix its files into that tree",
                    f"publish to the branch itself (--remote <repository> --branch {branch}), "
                    f"or into a working tree of {branch} (git worktree add <folder> {branch})")
    return None


def _dir_problem(cfg: Any, site_dir: Path, target: Path, branch: str = DEFAULT_BRANCH,
                 overlay: bool = False) -> tuple[str, str] | None:
    """Why ``target`` may never be published into, even with ``--force``: ``(problem,
    hint)``, or ``None`` if it may.

    Refused: a folder that holds this project, site/ or its keys; a folder inside
    site/ or inside the ``.acap``, templates/ or site/ folder of any acap project; a
    git repository's own folder, or one holding ``.git`` that is not a working tree
    of ``branch`` (:func:`_git_problem`); a symbolic link; a file. Where acap owns the
    host whole (not ``overlay``) and would replace the folder: one holding any other
    acap project, a git repository below its root, or a private key
    (:func:`project_content`). A folder of its own inside a project (the GitHub
    workflow's ``_site``) is fine.
    """
    verb = "publishing would write acap's files into it" if overlay else \
        "mirroring would delete it"
    found = _project_problem(cfg, site_dir, target, verb) or _git_problem(target, branch)
    if found:
        return found
    if target.is_symlink():
        return ("it is a symbolic link", f"give the folder it points to ({target.resolve()})")
    if target.exists() and not target.is_dir():
        return "it is a file", "give a folder"
    try:
        held = None if overlay or not target.is_dir() else project_content(target)
    except TargetRefused as exc:
        return str(exc), exc.hint or ""
    if held:
        return (f"{held}: mirroring would delete it",
                "give the folder your web server serves as https://<host>/; if your website "
                "lives there, set hosts: <host>: overlay: true (acap then adds its files and "
                "deletes nothing of yours)")
    return None


def _project_problem(cfg: Any, site_dir: Path, target: Path, verb: str
                     ) -> tuple[str, str] | None:
    """``(problem, hint)`` when ``target`` holds this project, site/ or its keys, or lies
    inside site/ or the ``.acap``, templates/ or site/ folder of an acap project."""
    elsewhere = "give the folder your web server serves as https://<host>/, outside your " \
        "acap project"
    if is_inside(cfg.base_dir.absolute(), target) or is_inside(site_dir, target):
        return f"it holds your project (or site/): {verb}", elsewhere
    for key in (cfg.key_file, cfg.previous_keys_file):
        if key.exists() and is_inside(key, target):
            return f"it holds your signing keys ({key}): {verb}", elsewhere
    if is_inside(target, site_dir):
        return "it is inside site/, which acap build replaces", elsewhere
    for above in target.absolute().parents:
        if _is_project(above):
            part = target.absolute().relative_to(above).parts[0]
            if part in PROJECT_PARTS:
                return f"it is inside {part}/ of the acap project {above}", elsewhere
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
        elif t.kind == "sftp":
            assert t.sftp is not None
            key = ("sftp", t.sftp.describe())
        else:
            assert t.dir is not None
            key = ("dir", str(t.dir.resolve()))
            bad = _dir_problem(cfg, site_dir, t.dir, t.branch, t.overlay)
            if bad:
                problem, hint = bad
                report.add(Finding("PUBLISH-TARGET", "error", f"cannot publish {t.host} into "
                                   f"{t.dir}: {problem}", t.where,
                                   hint.replace("<host>", t.host)))
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
                               "give each host its own branch or repository" if t.kind ==
                               "branch" else "give each host a folder of its own"))
        seen.setdefault(key, t.host)
