"""Real servers on 127.0.0.1 for the publishing tests: Debian's OpenSSH server, Apache,
nginx and Caddy, each started in the foreground on a free port with a configuration of its
own (never the system's), and stopped by its process id.

Each is a context manager; the test modules wrap them in fixtures. A missing program is
an error naming the Debian package (``.ci/run`` installs them), never a skip.
"""

from __future__ import annotations

import contextlib
import getpass
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

#: Seconds a server may take to open its port.
START_TIMEOUT = 15.0


def need(program: str, package: str) -> str:
    """The path of ``program``; an AssertionError naming ``package`` when it is missing."""
    found = shutil.which(program) or (program if Path(program).is_file() else None)
    assert found, f"{program} is missing: apt-get install {package} (.ci/run installs it)"
    return found


def free_port() -> int:
    """A TCP port nothing listens on at the moment (127.0.0.1)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _wait_port(proc: subprocess.Popen[bytes], port: int, log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"the server exited ({proc.returncode}):\n"
                                 + (log.read_text(errors="replace") if log.exists() else ""))
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.01)
    raise AssertionError(f"port {port} did not open:\n{log.read_text(errors='replace')}")


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@contextmanager
def world_readable_dir(prefix: str) -> Iterator[Path]:
    """A new folder that every user may enter (``tmp_path`` is 0700 under
    ``/tmp/pytest-of-root``, and Apache's children run as www-data); removed after."""
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def keygen(path: Path) -> Path:
    """A new ed25519 key pair at ``path`` (private) and ``path.pub``; made for the test."""
    need("ssh-keygen", "openssh-client")
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "", "-f", str(path)],
                   check=True)
    return path


# -- OpenSSH -------------------------------------------------------------------------------------

@dataclass
class Sshd:
    """A running sshd (SFTP only matters here).

    Attributes:
        port: where it listens on 127.0.0.1.
        user: the login (this user: the tests log in as themselves, by key).
        key: the client's private key file (authorized by the server).
        known_hosts: a known_hosts file holding the server's key for ``[127.0.0.1]:port``.
        host_pub: the server's public key line (``ssh-ed25519 AAAA...``).
        log: sshd's log (``-e``: what it says on stderr).
        dir: the folder holding all of it.
    """

    port: int
    user: str
    key: Path
    known_hosts: Path
    host_pub: str
    log: Path
    dir: Path

    def logins(self) -> int:
        """How many logins sshd accepted so far."""
        return self.log.read_text(errors="replace").count("Accepted publickey")


_SSHD_CONFIG = """\
Port {port}
ListenAddress 127.0.0.1
HostKey {d}/host_key
PidFile {d}/sshd.pid
AuthorizedKeysFile {d}/authorized_keys
UsePAM no
StrictModes no
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
Subsystem sftp internal-sftp
LogLevel VERBOSE
"""


@contextmanager
def sshd(folder: Path) -> Iterator[Sshd]:
    """Debian's sshd on a free port of 127.0.0.1, with host and client keys made in
    ``folder``, logging to a file (a pipe nobody reads would block it)."""
    binary = need("/usr/sbin/sshd", "openssh-server")
    if os.geteuid() == 0:
        # sshd's privilege separation folder (a compile-time path); systemd makes it
        # for the packaged service, a test must make it itself.
        os.makedirs("/run/sshd", mode=0o755, exist_ok=True)
    keygen(folder / "host_key")
    keygen(folder / "client_key")
    shutil.copyfile(folder / "client_key.pub", folder / "authorized_keys")
    port = free_port()
    config = folder / "sshd_config"
    config.write_text(_SSHD_CONFIG.format(port=port, d=folder), encoding="utf-8")
    log = folder / "sshd.log"
    with log.open("wb") as out:
        proc = subprocess.Popen([binary, "-D", "-e", "-f", str(config)], stdout=out,
                                stderr=subprocess.STDOUT)
    try:
        _wait_port(proc, port, log)
        kind, b64 = (folder / "host_key.pub").read_text(encoding="utf-8").split()[:2]
        known = folder / "known_hosts"
        known.write_text(f"[127.0.0.1]:{port} {kind} {b64}\n", encoding="utf-8")
        yield Sshd(port, getpass.getuser(), folder / "client_key", known, f"{kind} {b64}",
                   log, folder)
    finally:
        _stop(proc)


@contextmanager
def ssh_agent(folder: Path, key: Path) -> Iterator[str]:
    """An ssh-agent holding ``key``; yields its socket (the value of SSH_AUTH_SOCK)."""
    need("ssh-agent", "openssh-client")
    sock = folder / "agent.sock"
    proc = subprocess.Popen(["ssh-agent", "-D", "-a", str(sock)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while not sock.exists():
            assert time.monotonic() < deadline, "ssh-agent did not start"
            time.sleep(0.01)
        subprocess.run(["ssh-add", "-q", str(key)], env={**os.environ, "SSH_AUTH_SOCK": str(sock)},
                       check=True, capture_output=True)
        yield str(sock)
    finally:
        _stop(proc)


# -- web servers ---------------------------------------------------------------------------------

_APACHE_CONF = """\
ServerRoot "{d}"
DefaultRuntimeDir "{d}/run"
PidFile "{d}/run/httpd.pid"
Listen 127.0.0.1:{port}
ServerName 127.0.0.1
LoadModule mpm_event_module /usr/lib/apache2/modules/mod_mpm_event.so
LoadModule authz_core_module /usr/lib/apache2/modules/mod_authz_core.so
LoadModule mime_module /usr/lib/apache2/modules/mod_mime.so
{headers}LoadModule dir_module /usr/lib/apache2/modules/mod_dir.so
{user}
ErrorLog "{d}/error.log"
TypesConfig /etc/mime.types
DocumentRoot "{root}"
<Directory />
    AllowOverride None
    Require all denied
</Directory>
<Directory "{root}">
    AllowOverride {override}
    Require all granted
</Directory>
<Files ".ht*">
    Require all denied
</Files>
DirectoryIndex index.html
{include}
"""


@contextmanager
def apache(root: Path, work: Path, *, override: str = "FileInfo",
           include: Path | None = None, headers: bool = True) -> Iterator[str]:
    """Debian's Apache 2.4 serving ``root`` on a free port; yields its origin.

    Args:
        root: the document root (every folder above it must be enterable by www-data).
        work: a world-readable folder for its configuration and logs.
        override: ``AllowOverride`` for the root (``FileInfo`` reads ``.htaccess``
            files; ``None`` ignores them, as Debian's default for /var/www).
        include: a file included in the server configuration (acap's ``apache.conf``).
        headers: load mod_headers (off, as on a shared host that has not enabled it).
    """
    binary = need("/usr/sbin/apache2", "apache2")
    (work / "run").mkdir(exist_ok=True)
    port = free_port()
    user = "User www-data\nGroup www-data" if os.geteuid() == 0 else ""
    conf = work / "httpd.conf"
    conf.write_text(_APACHE_CONF.format(
        d=work, port=port, root=root, user=user, override=override,
        include=f'Include "{include}"' if include else "",
        headers="LoadModule headers_module /usr/lib/apache2/modules/mod_headers.so\n"
        if headers else ""), encoding="utf-8")
    log = work / "stdout.log"
    with log.open("wb") as out:
        proc = subprocess.Popen([binary, "-f", str(conf), "-DFOREGROUND"], stdout=out,
                                stderr=subprocess.STDOUT)
    try:
        _wait_port(proc, port, log)
        yield f"http://127.0.0.1:{port}"
    finally:
        _stop(proc)


_NGINX_CONF = """\
{user}
worker_processes 1;
pid {d}/nginx.pid;
error_log {d}/error.log warn;
events {{ worker_connections 64; }}
http {{
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    access_log off;
    client_body_temp_path {d}/tmp/body;
    proxy_temp_path {d}/tmp/proxy;
    fastcgi_temp_path {d}/tmp/fastcgi;
    uwsgi_temp_path {d}/tmp/uwsgi;
    scgi_temp_path {d}/tmp/scgi;
    server {{
        listen 127.0.0.1:{port};
        root {root};
        index index.html;
        include {snippet};
    }}
}}
"""


@contextmanager
def nginx(root: Path, work: Path, snippet: Path) -> Iterator[str]:
    """Debian's nginx serving ``root`` with ``snippet`` included in its ``server {}``
    block, on a free port; yields its origin."""
    binary = need("/usr/sbin/nginx", "nginx")
    (work / "tmp").mkdir(exist_ok=True)
    port = free_port()
    # As root, workers would run as nobody, who cannot enter pytest's 0700 folders.
    user = "user root;" if os.geteuid() == 0 else ""
    conf = work / "nginx.conf"
    conf.write_text(_NGINX_CONF.format(d=work, port=port, root=root, snippet=snippet,
                                       user=user), encoding="utf-8")
    log = work / "error.log"
    with (work / "stdout.log").open("wb") as out:
        proc = subprocess.Popen([binary, "-p", str(work), "-c", str(conf), "-e", str(log),
                                 "-g", "daemon off;"], stdout=out, stderr=subprocess.STDOUT)
    try:
        _wait_port(proc, port, log)
        yield f"http://127.0.0.1:{port}"
    finally:
        _stop(proc)


@contextmanager
def caddy(root: Path, work: Path, snippet: Path) -> Iterator[str]:
    """Debian's Caddy serving ``root`` with ``snippet`` imported in its site block (before
    ``file_server``), on a free port, no admin endpoint, no HTTPS; yields its origin."""
    binary = need("caddy", "caddy")
    port = free_port()
    conf = work / "Caddyfile"
    conf.write_text("{\n\tadmin off\n\tauto_https off\n}\n"
                    f"http://127.0.0.1:{port} {{\n\troot * {root}\n\timport {snippet}\n"
                    "\tfile_server\n}\n", encoding="utf-8")
    env = {**os.environ, "HOME": str(work), "XDG_DATA_HOME": str(work / "data"),
           "XDG_CONFIG_HOME": str(work / "config")}
    log = work / "caddy.log"
    with log.open("wb") as out:
        proc = subprocess.Popen([binary, "run", "--config", str(conf), "--adapter",
                                 "caddyfile"], env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        _wait_port(proc, port, log)
        yield f"http://127.0.0.1:{port}"
    finally:
        _stop(proc)


@dataclass
class Response:
    """What curl got: the status and the headers (names in lower case, last value wins)."""

    status: int
    headers: dict[str, str]
    body: bytes


def curl(url: str, method: str = "GET", headers: dict[str, str] | None = None) -> Response:
    """One request with curl (as an operator would check a server), no redirects followed."""
    binary = need("curl", "curl")
    args = [binary, "-sS", "-D", "-", "-o", "/dev/stdout", "--max-time", "10", "-X", method]
    if method == "HEAD":
        args[-2:] = ["-I"]
    for name, value in (headers or {}).items():
        args += ["-H", f"{name}: {value}"]
    out = subprocess.run([*args, url], capture_output=True, check=True).stdout
    head, _, body = out.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    parsed = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        parsed[name.strip().lower()] = value.strip()
    return Response(status, parsed, body)


# -- a slow connection ---------------------------------------------------------------------------

@contextmanager
def slow_link(port: int, up: int, down: int | None = None) -> Iterator[int]:
    """A TCP relay on 127.0.0.1 to ``port`` that passes at most ``up`` bytes a second to
    the server and ``down`` (default: ``up``) back (a slow upload, as from a clinic's
    office line); yields its own port. Real bytes, real protocol: only the pace is the
    relay's."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.settimeout(0.2)
    stop = threading.Event()

    def pump(src: socket.socket, dst: socket.socket, rate: int) -> None:
        try:
            while not stop.is_set():
                data = src.recv(max(1, rate // 20))
                if not data:
                    break
                dst.sendall(data)
                time.sleep(len(data) / rate)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)

    def serve() -> None:
        while not stop.is_set():
            try:
                client, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", port))
            for a, b, rate in ((client, upstream, up), (upstream, client, down or up)):
                threading.Thread(target=pump, args=(a, b, rate), daemon=True).start()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        stop.set()
        listener.close()
        thread.join(5)
