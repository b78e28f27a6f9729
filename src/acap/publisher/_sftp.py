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
* **Staged beside the folder, then renamed into place** with the
  ``posix-rename@openssh.com`` extension (an atomic replace; plain SFTP v3 rename refuses
  an existing file, so where the server lacks it the old file is removed first), as
  :mod:`acap.publisher._fs` does for every folder: the staging folder and acap's record
  lie beside the served folder (``/home/u/.public_html.acap-stage/`` and
  ``.public_html.acap-published.json`` for ``/home/u/public_html``), so an upload cut by
  Ctrl-C, ``kill`` or a dropped connection leaves nothing the web server serves.
* **Only regular files and folders**: a link, a FIFO or a device on acap's way is
  refused (``PUBLISH-TARGET``), never followed.

What is acap's there, and what may be replaced or removed, is decided once for every
target (:mod:`acap.publisher._engine`); this module only moves bytes.
"""

from __future__ import annotations

import base64
import contextlib
import errno
import hashlib
import posixpath
import stat
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit

from acap.errors import FileChanged
from acap.load import file_kind
from acap.publisher._fs import READ_LIMIT, Entry, FileStore, refused
from acap.publisher._plan import TargetRefused

if TYPE_CHECKING:
    import paramiko  # start-up: paramiko only for an SFTP target

#: Default SSH port.
DEFAULT_PORT = 22
#: Seconds to connect, to receive the server's banner, to log in, and for any one
#: SFTP request.
TIMEOUT = 20.0


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
    except ValueError:  # its words would quote the URL, a password in it too
        return None, "not a URL: after the server's name, only :PORT (a number) may come"
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
            no SFTP); acap sent nothing but the SSH handshake. ``ACAP-EXTRA``: paramiko
            (the ``sftp`` extra) is not installed; nothing was sent.
    """
    import logging  # start-up: only to quiet paramiko's log

    try:
        import paramiko  # start-up: paramiko only for an SFTP target
    except ImportError:  # the sftp extra: not in a default install (CHANGELOG)
        raise TargetRefused(
            "publishing over SFTP needs acap's sftp extra (paramiko), which is not "
            "installed; nothing was sent",
            "in your copy of acap's repository, run pip install '.[sftp]' (or install "
            "acap[sftp] as you installed acap), then acap publish again",
            rule="ACAP-EXTRA") from None

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
    """Write one new file on the server (a seam for tests that cut an upload)."""
    with sftp.open(path, "wx") as fh:  # O_CREAT | O_EXCL: never over a file
        fh.set_pipelined(True)
        fh.write(data)
    sftp.chmod(path, 0o644)


class SftpFs:
    """The file system of an SFTP server, for :class:`~acap.publisher._fs.FileStore`.
    Modes are ``lstat``'s (the attributes a folder listing carries are too)."""

    def __init__(self, sftp: paramiko.SFTPClient) -> None:
        self.sftp = sftp

    def shown(self, path: str) -> str:
        """``/www/x on the server``."""
        return f"{path} on the server"

    def mode(self, path: str) -> int | None:
        """``lstat`` mode; ``None`` when nothing is there."""
        try:
            mode = self.sftp.lstat(path).st_mode
        except FileNotFoundError:
            return None
        return mode if mode is not None else 0

    def stamp(self, path: str) -> tuple[int, ...] | None:
        """Size, modification time (seconds: all SFTP version 3 gives), mode and owner
        of ``path`` itself; ``None`` when nothing is there."""
        try:
            return _stamp(self.sftp.lstat(path))
        except FileNotFoundError:
            return None

    def names(self, folder: str) -> list[Entry]:
        """Each entry of ``folder`` (the attributes a listing carries are ``lstat``'s)."""
        return [Entry(a.filename, a.st_mode or 0, _stamp(a))
                for a in self.sftp.listdir_attr(folder)]

    def read(self, path: str, limit: int) -> bytes:
        """The regular file at ``path``, checked again once open (not a link swapped in)."""
        with self.sftp.open(path, "rb") as fh:
            return self._read_open(fh, path, limit)

    def _read_open(self, fh: paramiko.SFTPFile, path: str, limit: int) -> bytes:
        st = fh.stat()
        if not stat.S_ISREG(st.st_mode or 0):
            raise refused(self, path, st.st_mode or 0)
        size = st.st_size or 0
        if size > limit:
            raise TargetRefused(f"{path} on the server is larger ({size} bytes) than any "
                                "file acap writes: it is not acap's",
                                "move it, or publish into another folder")
        if size:
            fh.prefetch(size)
        data: bytes = fh.read(limit + 1)
        return data

    def write(self, path: str, data: bytes) -> None:
        """A new file (``O_EXCL``), mode 0644."""
        _upload(self.sftp, path, data)

    def chmod(self, path: str, mode: int) -> None:
        """SFTP ``setstat``."""
        self.sftp.chmod(path, mode)

    def move(self, src: str, dst: str) -> None:
        """``posix-rename@openssh.com`` (one step, over a file there); where the server
        lacks it, the file there is removed first (SFTP v3 rename refuses one)."""
        try:
            self.sftp.posix_rename(src, dst)
        except OSError:
            if self.mode(src) is None:
                raise
            if self.mode(dst) is not None:
                self.sftp.remove(dst)
            self.sftp.rename(src, dst)

    def place(self, src: str, dst: str) -> None:
        """SFTP version 3 ``rename``, which refuses a name that exists (OpenSSH makes it
        a hard link, then removes the old name)."""
        try:
            self.sftp.rename(src, dst)
        except OSError:
            if self.mode(dst) is not None:
                raise FileExistsError(errno.EEXIST, "File exists", dst) from None
            raise

    def swap(self, src: str, dst: str, same: Callable[[bytes], bool]) -> None:
        """Read ``dst`` again (a regular file, the one ``lstat`` shows) and, while it is
        still open, rename ``src`` over it (:meth:`move`): the rename follows the read's
        answer by one round trip."""
        mode = self.mode(dst)
        if mode is None:
            raise FileChanged(self.shown(dst), "it was removed")
        if not stat.S_ISREG(mode):
            raise FileChanged(self.shown(dst), f"it is {file_kind(mode) or 'no file'} now")
        with self.sftp.open(dst, "rb") as fh:
            try:
                data = self._read_open(fh, dst, READ_LIMIT)
            except TargetRefused:
                raise FileChanged(self.shown(dst), "it is not the file acap read") from None
            if not same(data):
                raise FileChanged(self.shown(dst), "it changed")
            self.move(src, dst)

    def unlink(self, path: str) -> None:
        """SFTP ``remove``."""
        self.sftp.remove(path)

    def mkdir(self, path: str) -> None:
        """SFTP ``mkdir``, mode 0755."""
        self.sftp.mkdir(path, 0o755)

    def rmdir(self, path: str) -> None:
        """SFTP ``rmdir``."""
        self.sftp.rmdir(path)


def _stamp(attrs: paramiko.SFTPAttributes) -> tuple[int, ...]:
    """What SFTP version 3 tells of a file that writing it changes: its size, and its
    modification time in whole seconds (with its mode and owner)."""
    return (attrs.st_size or 0, attrs.st_mtime or 0, attrs.st_mode or 0, attrs.st_uid or 0,
            attrs.st_gid or 0)


def _resolve_root(sftp: paramiko.SFTPClient, path: str) -> str:
    """The folder as an absolute path on the server (a relative one from the login
    folder), its links resolved by the server where it exists (a web root such as
    ``www`` is often a link to ``public_html``)."""
    if not path.startswith("/"):
        path = posixpath.join(sftp.normalize("."), path)
    path = posixpath.normpath(path)
    with contextlib.suppress(OSError):
        return sftp.normalize(path)
    return path


class SftpStore(FileStore):
    """A :class:`~acap.publisher._store.Store` for a folder on an SFTP server: logs in on
    entering (:func:`connect`), logs out on leaving.

    Args:
        address: the server, login and folder.
    """

    def __init__(self, address: SftpAddress) -> None:
        self.address = address
        self._client: paramiko.SSHClient | None = None

    def __enter__(self) -> SftpStore:
        client, sftp = connect(self.address)
        self._client = client
        try:
            FileStore.__init__(self, SftpFs(sftp), _resolve_root(sftp, self.address.path),
                               self.address.describe())
        except BaseException:
            client.close()
            raise
        return self

    def describe(self) -> str:
        """``sftp://user@host:port/path`` (known before logging in)."""
        return self.address.describe()

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        import paramiko  # start-up: paramiko only for an SFTP target

        if self._client is not None:
            self._client.close()
        if isinstance(exc, (paramiko.SSHException, EOFError)):
            raise OSError(f"the SSH connection failed: {exc}") from exc


__all__ = ["SftpAddress", "SftpFs", "SftpStore", "connect", "fingerprint", "parse_sftp_url"]
