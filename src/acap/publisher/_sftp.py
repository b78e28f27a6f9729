"""Publishing one host folder to a folder on a server reached over SFTP (shared hosting).

Most small businesses' websites live on shared hosting: Apache serving a folder the
customer reaches over SFTP. This target puts acap's files there with paramiko (the
SSH library the Python world keeps; imported here only, and only when an SFTP target
is used):

* **The server is known or refused.** Its host key must be in ``known_hosts``
  (``hosts.<host>.publish.sftp.knownHosts``, default ``~/.ssh/known_hosts``) and match;
  an unknown or changed key is refused (``PUBLISH-HOST-KEY``) before acap logs in, with
  the key's SHA-256 fingerprint to compare with the hosting provider's.
* **A key, never a password**: a key file (``key``), or else the keys of ``ssh-agent``
  and the usual ``~/.ssh/id_*`` files. operator.yaml holds no secret.
* **Each file is uploaded under a temporary name beside its place, then renamed into
  place** with the ``posix-rename@openssh.com`` extension (an atomic replace; plain
  SFTP v3 rename refuses an existing file, so where the server lacks the extension the
  old file is removed first). Every upload happens before the first rename: a failed
  upload leaves every file as it was and removes the temporary files; a failed rename
  puts back what was renamed.
* **Nothing acap did not write is deleted or replaced** without ``force``: as with a
  folder (:mod:`acap.publisher._directory`), a record of what acap put there lies
  beside the folder (``/home/u/.public_html.acap-published.json`` for
  ``/home/u/public_html``; inside it only when the folder is ``/``). With ``overlay``
  (a host where the operator's website lives) acap reads only its own paths and
  never lists the website's files; without it, the whole folder is listed and must
  hold only what acap put there.
* **Unchanged files are not uploaded**: each file at acap's paths is read and compared
  first, so a republish of the same build uploads nothing.

Anything at acap's paths that is not a regular file or a folder (a link, say) is
refused (``PUBLISH-TARGET``), as is a ``.git`` in a folder acap owns whole.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import io
import posixpath
import secrets
import stat
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit

from acap.load import file_kind
from acap.publisher import _plan
from acap.publisher._directory import foreign_hint
from acap.publisher._plan import ForeignFiles, Plan, Published, TargetRefused

if TYPE_CHECKING:
    import paramiko  # start-up: paramiko only for an SFTP target

#: Default SSH port.
DEFAULT_PORT = 22
#: Seconds to connect, to receive the server's banner, to log in, and for any one
#: SFTP request.
TIMEOUT = 20.0
#: The largest file acap reads at one of its own paths, and the largest record.
READ_LIMIT = 64 * 1024 * 1024
_RECORD_LIMIT = 1024 * 1024
#: Suffix of the record beside the folder (as :data:`acap.publisher._directory.MARKER_SUFFIX`).
RECORD_SUFFIX = ".acap-published.json"


@dataclass(frozen=True)
class SftpAddress:
    """A folder on an SFTP server, and how to reach it.

    Attributes:
        host: the server's name or address.
        user: the login name.
        path: the folder served as the host's root: absolute (``/var/www/x``) or
            relative to the login folder (``public_html``).
        port: the SSH port.
        known_hosts: the known_hosts file holding the server's key; ``None``:
            ``~/.ssh/known_hosts``.
        key: the private key file; ``None``: ssh-agent, then the usual key files.
    """

    host: str
    user: str
    path: str
    port: int = DEFAULT_PORT
    known_hosts: Path | None = None
    key: Path | None = None

    def describe(self) -> str:
        """``sftp://user@host:port/path`` (``/~/path`` for a path in the login folder)."""
        where = self.path if self.path.startswith("/") else "/~/" + self.path
        port = f":{self.port}" if self.port != DEFAULT_PORT else ""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"sftp://{self.user}@{host}{port}{where}"

    @classmethod
    def from_config(cls, data: Mapping[str, Any], base: Path) -> SftpAddress:
        """From ``hosts.<host>.publish.sftp`` (checked by the schema); file paths are
        relative to ``base`` (operator.yaml's folder) or start with ``~/``."""
        port = data.get("port", DEFAULT_PORT)
        address = cls(str(data.get("host", "")), str(data.get("user", "")),
                      str(data.get("path", "")), port if isinstance(port, int) else DEFAULT_PORT)
        return address.with_files(data, base)

    def with_files(self, data: Mapping[str, Any], base: Path) -> SftpAddress:
        """This address with ``knownHosts`` and ``key`` from ``data`` (operator.yaml)."""
        def path(value: object) -> Path | None:
            if not isinstance(value, str) or not value:
                return None
            p = Path(value).expanduser()
            return p if p.is_absolute() else (base / p).absolute()

        return replace(self, known_hosts=path(data.get("knownHosts")) or self.known_hosts,
                       key=path(data.get("key")) or self.key)


def parse_sftp_url(url: str) -> tuple[SftpAddress | None, str]:
    """``--sftp URL``: ``sftp://user@host[:port]/path``.

    As curl and the IETF draft on SFTP URIs read them, the path is absolute, and a
    path starting with ``/~/`` is relative to the login folder.

    Returns:
        ``(address, "")``, or ``(None, what is wrong)``.
    """
    try:
        u = urlsplit(url)
        port = u.port
    except ValueError as exc:
        return None, f"not a URL ({exc})"
    if u.scheme != "sftp":
        return None, "it does not start with sftp://"
    if not u.hostname:
        return None, "it names no server"
    if not u.username:
        return None, "it names no login (sftp://NAME@server/...)"
    if u.password is not None:
        return None, "it holds a password: acap logs in with a key or ssh-agent only"
    path = unquote(u.path)
    if path.startswith("/~/"):
        path = path[3:]
    if path.strip("/") == "" and not path.startswith("/"):
        return None, "it names no folder"
    if not path:
        return None, "it names no folder"
    return SftpAddress(u.hostname, unquote(u.username), path, port or DEFAULT_PORT), ""


def fingerprint(key: Any) -> str:
    """A host key's fingerprint as OpenSSH shows it: ``SHA256:<base64, no padding>``."""
    digest = hashlib.sha256(key.asbytes()).digest()
    return "SHA256:" + base64.b64encode(digest).decode("ascii").rstrip("=")


class _UnknownHostKey(Exception):
    """Raised by :class:`_Refuse` for a server whose key known_hosts does not hold."""

    def __init__(self, key: Any) -> None:
        super().__init__("unknown host key")
        self.key = key


def _refuse_policy() -> Any:
    """A paramiko ``MissingHostKeyPolicy`` that refuses an unknown server, keeping its key
    (for the fingerprint in the message). paramiko's ``RejectPolicy`` does the same with
    a message only."""
    import paramiko  # start-up: paramiko only for an SFTP target

    class _Refuse(paramiko.MissingHostKeyPolicy):
        def missing_host_key(self, client: paramiko.SSHClient, hostname: str,
                             key: paramiko.PKey) -> None:
            raise _UnknownHostKey(key)

    return _Refuse()


def _server(address: SftpAddress) -> str:
    return address.host if address.port == DEFAULT_PORT else f"[{address.host}]:{address.port}"


def connect(address: SftpAddress) -> tuple[paramiko.SSHClient, paramiko.SFTPClient]:
    """Log in to the server and open SFTP: the host key checked against known_hosts
    first; a key file, or ssh-agent and the usual key files.

    Returns:
        ``(client, sftp)``; close the client when done.

    Raises:
        TargetRefused: ``PUBLISH-HOST-KEY`` (an unknown or changed host key, a missing
            known_hosts file) or ``PUBLISH-FAILED`` (no connection, the login refused,
            no SFTP); acap sent nothing but the SSH handshake.
    """
    import logging  # start-up: only to quiet paramiko's log

    import paramiko  # start-up: paramiko only for an SFTP target

    # paramiko logs a dropped connection from its own thread; acap reports it as a finding.
    logging.getLogger("paramiko").addHandler(logging.NullHandler())
    logging.getLogger("paramiko").propagate = False
    server = _server(address)
    where = f"{address.host} port {address.port}"
    known = address.known_hosts or Path("~/.ssh/known_hosts").expanduser()
    client = paramiko.SSHClient()
    try:
        if address.known_hosts is not None:
            client.load_host_keys(str(address.known_hosts))
        else:
            client.load_system_host_keys()
    except FileNotFoundError:
        client.close()
        raise TargetRefused(f"the known_hosts file {known} does not exist, so acap cannot "
                            f"tell whether {address.host} is the right server",
                            _add_key_hint(address, known), "PUBLISH-HOST-KEY") from None
    except (OSError, paramiko.SSHException) as exc:
        client.close()
        raise TargetRefused(f"cannot read the known_hosts file {known}: {exc}",
                            "give a known_hosts file (knownHosts: in hosts.<host>.publish.sftp)",
                            "PUBLISH-HOST-KEY") from None
    client.set_missing_host_key_policy(_refuse_policy())
    try:
        client.connect(address.host, port=address.port, username=address.user,
                       key_filename=str(address.key) if address.key else None,
                       allow_agent=address.key is None, look_for_keys=address.key is None,
                       timeout=TIMEOUT, banner_timeout=TIMEOUT, auth_timeout=TIMEOUT)
        sftp = client.open_sftp()
        sftp.get_channel().settimeout(TIMEOUT)  # type: ignore[union-attr]
    except _UnknownHostKey as exc:
        client.close()
        raise TargetRefused(
            f"the server {server} is not in {known} (its key is {fingerprint(exc.key)}): "
            "acap cannot tell it is the right server, so it did not log in",
            _add_key_hint(address, known), "PUBLISH-HOST-KEY") from None
    except paramiko.BadHostKeyException as exc:
        client.close()
        raise TargetRefused(
            f"the server {server} sent another key ({fingerprint(exc.key)}) than {known} "
            f"holds for it ({fingerprint(exc.expected_key)}): this can be someone between "
            "you and the server, so acap did not log in",
            "ask your hosting provider whether the server's key changed; only if it did, "
            f"remove the old line (ssh-keygen -R '{server}' -f {known}) and add the new key",
            "PUBLISH-HOST-KEY") from None
    except paramiko.AuthenticationException as exc:
        client.close()
        how = f"the key {address.key}" if address.key else "ssh-agent or your usual keys"
        raise TargetRefused(
            f"{address.host} refused the login of {address.user} with {how}: {exc}",
            "add your public key to the server (your hosting provider's SSH keys page, or "
            "~/.ssh/authorized_keys there); a key with a passphrase: load it with ssh-add "
            "and leave key: out", "PUBLISH-FAILED") from None
    except (OSError, paramiko.SSHException, EOFError) as exc:
        client.close()
        reason = str(exc) or type(exc).__name__
        raise TargetRefused(
            f"could not reach SFTP on {where}: {reason}; nothing was changed",
            "check the server name, port and login your hosting provider gives, and that "
            "it offers SFTP", "PUBLISH-FAILED") from None
    return client, sftp


def _add_key_hint(address: SftpAddress, known: Path) -> str:
    scan = f"ssh-keyscan -p {address.port} {address.host}" if address.port != DEFAULT_PORT \
        else f"ssh-keyscan {address.host}"
    return (f"compare the server's key with the fingerprint your hosting provider publishes, "
            f"then add it: {scan} >> {known} (or log in once with ssh, which asks you)")


def _upload(sftp: paramiko.SFTPClient, path: str, data: bytes) -> None:
    """Write one temporary file on the server (a seam for tests that cut an upload)."""
    sftp.putfo(io.BytesIO(data), path, file_size=len(data), confirm=True)


class _Remote:
    """The folder on the server: reads checked to be regular files, writes under
    temporary names renamed into place."""

    def __init__(self, sftp: paramiko.SFTPClient, root: str) -> None:
        self.sftp = sftp
        self.root = root
        self.created: list[str] = []

    def path(self, rel: str) -> str:
        return posixpath.join(self.root, rel)

    def lstat_mode(self, path: str) -> int | None:
        """The mode of ``path`` without following a link; ``None`` when absent."""
        try:
            mode = self.sftp.lstat(path).st_mode
        except FileNotFoundError:
            return None
        return mode if mode is not None else 0

    def read(self, rel: str, limit: int = READ_LIMIT) -> bytes | None:
        """The bytes at ``rel`` (``None``: absent), each folder on the way checked to be
        a folder and the file a regular file before it is opened."""
        parts = rel.split("/")
        here = self.root
        for part in parts[:-1]:
            here = posixpath.join(here, part)
            mode = self.lstat_mode(here)
            if mode is None:
                return None
            if not stat.S_ISDIR(mode):
                raise _refused(here, mode, "a file where acap needs a folder"
                               if stat.S_ISREG(mode) else None)
        return self.read_file(self.path(rel), limit)

    def read_file(self, path: str, limit: int) -> bytes | None:
        mode = self.lstat_mode(path)
        if mode is None:
            return None
        if not stat.S_ISREG(mode):
            raise _refused(path, mode)
        with self.sftp.open(path, "rb") as fh:
            size = fh.stat().st_size or 0
            if size > limit:
                raise TargetRefused(f"{path} on the server is larger ({size} bytes) than any "
                                    "file acap writes: it is not acap's",
                                    "move it, or publish into another folder")
            if size:
                fh.prefetch(size)
            data: bytes = fh.read(limit + 1)
        return data

    def tree(self, skip: str | None) -> dict[str, int]:
        """``{relative path: size}`` of every file under the root (``{}`` if absent);
        ``skip`` (the record, when it lies inside) is left out."""
        out: dict[str, int] = {}
        if self.lstat_mode(self.root) is None:
            return out

        def walk(folder: str, rel: str) -> Iterator[tuple[str, int]]:
            for entry in sorted(self.sftp.listdir_attr(folder), key=lambda e: e.filename):
                path = posixpath.join(folder, entry.filename)
                here = f"{rel}{entry.filename}"
                mode = entry.st_mode or 0
                if stat.S_ISDIR(mode):
                    if entry.filename == ".git":
                        raise TargetRefused(f"{path} on the server is a git repository: "
                                            "acap would delete it", "publish into a folder of "
                                            "its own, or set overlay: true for this host")
                    yield from walk(path, here + "/")
                elif stat.S_ISREG(mode):
                    if path != skip:
                        yield here, entry.st_size or 0
                else:
                    raise _refused(path, mode)

        out.update(walk(self.root, ""))
        return out

    def makedirs(self, folder: str) -> None:
        """Make ``folder`` and the folders above it that are missing (noted in ``created``)."""
        missing = []
        while self.lstat_mode(folder) is None:
            missing.append(folder)
            parent = posixpath.dirname(folder)
            if parent == folder:
                break
            folder = parent
        for f in reversed(missing):
            self.sftp.mkdir(f, 0o755)
            self.created.append(f)

    def put(self, path: str, data: bytes) -> str:
        """Upload ``data`` under a temporary name beside ``path``; returns that name."""
        folder, name = posixpath.split(path)
        self.makedirs(folder)
        tmp = posixpath.join(folder, f".{name}.acap-new-{secrets.token_hex(6)}")
        _upload(self.sftp, tmp, data)
        self.sftp.chmod(tmp, 0o644)
        return tmp

    def rename(self, tmp: str, path: str) -> None:
        """Rename ``tmp`` over ``path`` atomically (``posix-rename@openssh.com``); where the
        server lacks that extension, remove ``path`` first (SFTP v3 rename refuses an
        existing file)."""
        try:
            self.sftp.posix_rename(tmp, path)
        except OSError:
            if self.lstat_mode(tmp) is None:
                raise
            if self.lstat_mode(path) is not None:
                self.sftp.remove(path)
            self.sftp.rename(tmp, path)

    def remove_quietly(self, path: str) -> None:
        with contextlib.suppress(OSError):
            self.sftp.remove(path)

    def remove_empty(self, folders: list[str]) -> None:
        """Remove each folder, then its parents below the root, while they are empty."""
        for folder in sorted(set(folders), key=lambda f: f.count("/"), reverse=True):
            while folder != self.root and folder.startswith(self.root.rstrip("/") + "/"):
                try:
                    self.sftp.rmdir(folder)
                except OSError:
                    break
                folder = posixpath.dirname(folder)


def _refused(path: str, mode: int, what: str | None = None) -> TargetRefused:
    words = what or file_kind(mode) or "not a regular file"
    return TargetRefused(f"{path} on the server is {words}: acap reads, replaces and deletes "
                         "only regular files and folders, and never writes through a link",
                         "remove it, or publish into another folder")


def _record_path(root: str) -> str:
    """Where the record of acap's publish lies: beside the folder, or inside it for ``/``."""
    parent, name = posixpath.split(root.rstrip("/"))
    if not name:
        return "/." + RECORD_SUFFIX.lstrip(".")
    return posixpath.join(parent, f".{name}{RECORD_SUFFIX}")


def _resolve_root(sftp: paramiko.SFTPClient, path: str) -> str:
    """The folder as an absolute path on the server (a relative one from the login folder)."""
    if not path.startswith("/"):
        path = posixpath.join(sftp.normalize("."), path)
    return posixpath.normpath(path)


class SftpPublisher:
    """A :class:`~acap.publisher._plan.Publisher` to a folder on an SFTP server (see the
    module docstring).

    Args:
        address: the server, login and folder.
        overlay: add acap's files beside a website there, touching nothing else,
            rather than make the folder hold exactly them.
    """

    def __init__(self, address: SftpAddress, overlay: bool = False) -> None:
        self.address = address
        self.overlay = overlay

    def publish(self, files: Mapping[str, bytes], *, host: str, dry_run: bool, force: bool,
                progress: Callable[[str], None]) -> Published:
        """See :meth:`acap.publisher._plan.Publisher.publish`.

        Raises:
            TargetRefused: see :func:`connect`; or something at acap's paths is not a
                regular file or a folder; or paramiko (the ``sftp`` extra) is not
                installed (``ACAP-EXTRA``).
            ForeignFiles: without ``force``, a file acap did not put there would be
                replaced or removed.
            OSError: an SFTP request failed; every file is as it was.
        """
        try:
            import paramiko  # start-up: paramiko only for an SFTP target
        except ImportError:  # the sftp extra: not in a default install (CHANGELOG 0.1.0)
            raise TargetRefused(
                "publishing over SFTP needs acap's sftp extra (paramiko), which is not "
                "installed; nothing was sent",
                "in your copy of acap's repository, run pip install '.[sftp]' (or install "
                "acap[sftp] as you installed acap), then acap publish again",
                rule="ACAP-EXTRA") from None

        progress(f"connecting to {self.address.describe()}")
        client, sftp = connect(self.address)
        try:
            return self._publish(_Remote(sftp, _resolve_root(sftp, self.address.path)),
                                 files, host, dry_run, force, progress)
        except paramiko.SSHException as exc:
            raise OSError(f"the SSH connection failed: {exc}") from exc
        finally:
            client.close()

    def _publish(self, remote: _Remote, files: Mapping[str, bytes], host: str, dry_run: bool,
                 force: bool, say: Callable[[str], None]) -> Published:
        record_at = _record_path(remote.root)
        raw = remote.read_file(record_at, _RECORD_LIMIT)
        record = _plan.parse_record(raw) if raw is not None else None
        owned = record[1] if record is not None and record[0] == host.lower() else {}
        if self.overlay:
            present = {rel: remote.read(rel) for rel in sorted(set(files) | set(owned))}
        else:
            listed = remote.tree(skip=record_at)
            # Files acap does not publish are read only when the record says acap put
            # them there (to tell whether someone changed them since).
            present = {rel: remote.read(rel) if rel in listed else None
                       for rel in sorted(set(files) | (set(owned) & set(listed)))}
        sums = {rel: _plan.digest(data) if data is not None else None
                for rel, data in present.items()}
        if not self.overlay:
            sums.update({rel: "?" for rel in listed if rel not in sums})  # someone's
        new = {rel: _plan.digest(data) for rel, data in files.items()}
        judged = _plan.judged_record(record, host, sums)
        ours = judged[1] if judged is not None and judged[0] == host.lower() else set()
        plan = _plan.overlay_plan(new, sums, ours if self.overlay else set(sums) - set(new))
        edited = _plan.edited_paths(record, host, sums)
        problem = _plan.foreign_problem(self.address.describe(), host, plan, judged,
                                        self.overlay, edited)
        if problem and not force:
            theirs, changed = _plan.not_ours(plan, judged, edited)
            raise ForeignFiles(problem, plan, foreign_hint(
                host, self.overlay, bool(theirs) or not changed, bool(changed)))
        if dry_run:
            return Published(plan, "dry run")
        mine = _plan.owned_after(plan, new, ours) if self.overlay else set(new)
        after: dict[str, str | None] = {p: new[p] for p in mine}
        if plan.empty:
            if record != (host.lower(), after):
                self._write_record(remote, record_at, host, after)
            say("up to date: nothing uploaded")
            return Published(plan, "up to date")
        # Recorded first with every file acap is about to write: even if acap is killed
        # during the upload, the record never leaves out a file acap put there. The old
        # record is first copied beside it, so that on a failure it is put back with one
        # rename (which needs no space on a full disk): every file is as it was, and so
        # is the record (left in place, the one written here lists the files without
        # their content, and a later publish would replace a file someone edits by hand
        # without asking).
        kept: str | None = None
        try:
            remote.makedirs(remote.root)
            if raw is not None:
                kept = remote.put(record_at, raw)
            self._write_record(remote, record_at, host,
                               {**{p: owned[p] for p in ours}, **dict.fromkeys(after)})
        except PermissionError as exc:
            if kept is not None:
                remote.remove_quietly(kept)
            raise TargetRefused(
                f"the server does not let acap write {record_at}, its record of the files it "
                f"puts in {remote.root} ({exc.strerror or exc}); nothing was changed",
                "acap keeps that record beside the folder: ask your hosting provider to let "
                "you write there, or publish into a folder inside one you may write in",
                "PUBLISH-FAILED") from None
        except BaseException:
            if kept is not None:
                remote.remove_quietly(kept)
            raise
        final: str | None = None
        try:
            # The record of what is going up, uploaded now: put in place with one rename
            # once the files are, so that nothing that needs space comes after them.
            final = remote.put(record_at, _plan.record_bytes(host, after))
            self._apply(remote, files, plan, present, say)
        except _Removing as exc:
            # acap's new files are in place; those not yet removed stay acap's, with the
            # content acap knows they have.
            left = {rel: sums[rel] for rel in plan.removed if rel not in exc.gone}
            with contextlib.suppress(OSError, EOFError):
                self._write_record(remote, record_at, host, {**after, **left})
            for tmp in (kept, final):
                if tmp is not None:
                    remote.remove_quietly(tmp)
            raise exc.error from None
        except BaseException:
            with contextlib.suppress(OSError, EOFError):
                if final is not None:
                    remote.remove_quietly(final)
                if kept is not None:
                    remote.rename(kept, record_at)
                else:
                    remote.sftp.remove(record_at)
            raise
        if kept is not None:
            remote.remove_quietly(kept)
        try:
            remote.rename(final, record_at)
        except (OSError, EOFError) as exc:  # the files are in place; the record written
            say(f"could not update {record_at}: {exc}")  # before them still lists them
        return Published(plan, "published")

    def _apply(self, remote: _Remote, files: Mapping[str, bytes], plan: Plan,
               present: Mapping[str, bytes | None], say: Callable[[str], None]) -> None:
        """Upload every new and changed file under a temporary name, rename them all into
        place, then remove what the plan removes; on a failure before the removals,
        every file is put back as it was."""
        staged: list[tuple[str, str]] = []
        done: list[str] = []
        writes = sorted(plan.added + plan.changed)
        try:
            say(f"uploading {_plan.count(len(writes), 'file')}")
            for rel in writes:
                staged.append((rel, remote.put(remote.path(rel), files[rel])))
            for rel, tmp in staged:
                remote.rename(tmp, remote.path(rel))
                done.append(rel)
        except BaseException:
            for rel in reversed(done):
                old = present.get(rel)
                try:
                    if old is None:
                        remote.sftp.remove(remote.path(rel))
                    else:
                        remote.rename(remote.put(remote.path(rel), old), remote.path(rel))
                except (OSError, EOFError):
                    pass  # the error that got us here is reported
            for _rel, tmp in staged:
                remote.remove_quietly(tmp)
            remote.remove_empty(remote.created)
            raise
        gone: list[str] = []
        try:
            for rel in plan.removed:
                say(f"removing {rel}")
                remote.sftp.remove(remote.path(rel))
                gone.append(rel)
        except (OSError, EOFError) as exc:
            raise _Removing(exc, gone) from exc
        remote.remove_empty([posixpath.dirname(remote.path(rel)) for rel in plan.removed])

    def _write_record(self, remote: _Remote, record_at: str, host: str,
                      files: Mapping[str, str | None]) -> None:
        remote.rename(remote.put(record_at, _plan.record_bytes(host, files)), record_at)


class _Removing(Exception):
    """A removal failed after acap's new files were put in place: ``error`` is why,
    ``gone`` the files already removed."""

    def __init__(self, error: BaseException, gone: list[str]) -> None:
        super().__init__(str(error))
        self.error = error
        self.gone = gone


__all__ = ["SftpAddress", "SftpPublisher", "connect", "fingerprint", "parse_sftp_url"]
