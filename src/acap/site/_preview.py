"""``acap serve``: preview site/ on this machine, every host on one port.

Hosts are told apart by the request's ``Host`` header (the way a static host
serves many sites on one address):
* ``http://example.com.localhost:8000/`` serves ``site/example.com/``
  (browsers and curl send ``*.localhost`` to the loopback address);
* a request with ``Host: example.com`` does the same (``curl -H``, tests,
  SDK clients whose connection is pointed at the preview);
* plain ``http://localhost:8000/`` or ``http://127.0.0.1:8000/`` serves the
  card's host.

Responses imitate GitHub Pages where it matters to A2A clients:
``.json`` as ``application/json``, ``Access-Control-Allow-Origin: *`` on
every answer, ``Cache-Control: max-age=600``, a strong ``ETag`` (and ``304``
for ``If-None-Match``), ``/page`` answered from ``page.html`` when it exists,
else ``/dir`` redirected to ``/dir/``, and the host's
``404.html`` for missing pages. Only regular files inside a host folder are served
(:func:`acap.load.read_file`): a host folder that is a link is no host, a link inside
it is followed only to a file inside it, and a link out of it, a FIFO or a device is
answered ``403`` with the reason, unread: never the build manifest, never anything
outside the host folder.

With an operator file, a background thread polls the modification times of
operator.yaml, templates/ and the previous keys file and rebuilds when one
changes (a failed build keeps the previous site/). Polling needs no extra
dependency and a site this small needs no more.
"""

from __future__ import annotations

import json
import mimetypes
import os
import re
import stat
import threading
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import unquote, urlsplit

from acap.errors import AcapError, FileRefused
from acap.load import Root, file_status, load_operator, private_path_for, read_file
from acap.site._files import url_to_path
from acap.site._http_cache import MAX_AGE, not_modified, strong_etag
from acap.site._manifest import read_manifest
from acap.uris import EXTENSION_URI

#: Largest file served (bytes): a built site's largest is far smaller (an image of the
#: spec site); a larger one is refused rather than read whole into memory.
SERVE_LIMIT = 32 * 1024 * 1024
#: What GitHub Pages sends (10 minutes); A2A §8.6.1 asks for a max-age.
CACHE_CONTROL = f"max-age={MAX_AGE}"
DEFAULT_BIND = "127.0.0.1"
DEFAULT_PORT = 8000
_LOCAL_NAMES = {"localhost", "127.0.0.1", "::1", "[::1]", "0.0.0.0"}
_TYPES = {".json": "application/json; charset=utf-8", ".html": "text/html; charset=utf-8",
          ".htm": "text/html; charset=utf-8", ".css": "text/css; charset=utf-8",
          ".js": "text/javascript; charset=utf-8", ".txt": "text/plain; charset=utf-8",
          ".xml": "application/xml", ".svg": "image/svg+xml", ".yaml": "text/yaml; charset=utf-8",
          ".webmanifest": "application/manifest+json"}


def content_type(path: str) -> str:
    """The ``Content-Type`` of a served file, by extension (``application/octet-stream``
    for files without a known one, such as ``CNAME``)."""
    suffix = PurePosixPath(path).suffix.lower()
    if suffix in _TYPES:
        return _TYPES[suffix]
    guess = mimetypes.guess_type(path)[0]
    return guess or "application/octet-stream"


def host_from_header(value: str | None, hosts: list[str], default: str | None) -> str | None:
    """The site/ host folder a ``Host`` header asks for, or ``None`` if none matches.

    ``example.com``, ``example.com:8000``, ``example.com.localhost:8000`` ->
    ``example.com``; ``localhost``/``127.0.0.1`` -> ``default``.
    """
    name = (value or "").strip().lower()
    if name.startswith("["):
        name = name.split("]", 1)[0] + "]"
    elif name.count(":") == 1:
        name = name.split(":", 1)[0]
    name = name.rstrip(".")
    if not name or name in _LOCAL_NAMES:
        return default
    if name.endswith(".localhost"):
        name = name[: -len(".localhost")]
    return name if name in hosts else None


@dataclass
class PreviewServer:
    """A running preview (see :func:`start_preview`).

    Attributes:
        site_dir: the folder served.
        bind: the address listened on.
        port: the port (the real one when 0 was asked for).
        default_host: the host served for ``localhost``.
        rebuilds: how many rebuilds the watcher ran.
    """

    site_dir: Path
    bind: str
    port: int
    default_host: str | None
    rebuilds: int = 0
    _httpd: Any = None
    _threads: list[threading.Thread] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)

    def hosts(self) -> list[str]:
        """Host folders currently in site/."""
        return site_hosts(self.site_dir)

    def url(self, host: str | None = None) -> str:
        """Where to open ``host`` in a browser: ``http://example.com.localhost:8000/``."""
        shown = "localhost" if self.bind in ("127.0.0.1", "0.0.0.0", "::") else self.bind
        if host is None:
            return f"http://{shown}:{self.port}/"
        return f"http://{host}.localhost:{self.port}/"

    def preview_url(self, url: str) -> str:
        """Where the page at ``url`` (an https URL of the site) is in this preview:
        ``https://ask.example.com/talk`` -> ``http://ask.example.com.localhost:8000/talk``."""
        parts = urlsplit(url)
        return self.url((parts.hostname or "").lower()).rstrip("/") + (parts.path or "/")

    def entry_points(self) -> list[tuple[str, str]]:
        """What a person opens first, as preview URLs: ``[("the card", url), ("where a
        person asks", url), ...]``, from the manifest's card address and the personEntry
        pages of the built card (On Request extension, OR-3.4), in the card's order,
        each once; a ``tel:`` personEntry is named as the phone number it is
        (``("a phone number to ask", "+34 961 23 45 67")``), never as an address. Empty
        when site/ holds no card; never raises."""
        man = read_manifest(self.site_dir)
        card_url = man.card if man is not None else None
        if not card_url:
            return []
        out = [("the card", self.preview_url(card_url))]
        try:
            rel = url_to_path(card_url)
            root = host_root(self.site_dir, rel.split("/", 1)[0])
            card = json.loads(read_file(self.site_dir / rel, root, 1 << 20))
            exts = card.get("capabilities", {}).get("extensions", [])
            entries = [s.get("personEntry") for e in exts if e.get("uri") == EXTENSION_URI
                       for s in e.get("params", {}).get("skills", [])]
        except (OSError, ValueError, AttributeError, TypeError, AcapError):
            return out  # a card acap did not write: the card's address is enough
        for entry in dict.fromkeys(e for e in entries if isinstance(e, str)):
            phone = _TEL.fullmatch(entry)
            if phone:  # a number to call: no preview address, the number itself
                out.append(("a phone number to ask", phone[1].replace("-", " ")
                            + (f" ({phone[2].lstrip(';')})" if phone[2] else "")))
            elif entry.lower().startswith("https://"):
                out.append(("where a person asks", self.preview_url(entry)))
        return out

    def stop(self) -> None:
        """Stop serving and watching; returns when the threads have ended."""
        self._stop.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        for t in self._threads:
            t.join(timeout=10)

    def __enter__(self) -> PreviewServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


#: A ``tel:`` personEntry as acap writes it (RFC 3966 global number: ``+``, digits and
#: hyphens, and parameters such as ``;ext=12``), and nothing else: what is printed.
_TEL = re.compile(r"tel:(\+[0-9][0-9-]{1,40})((?:;[a-z0-9-]{1,20}=[0-9a-z+-]{1,20}){0,3})",
                  re.IGNORECASE | re.ASCII)


def site_hosts(site_dir: Path) -> list[str]:
    """Host folders in ``site_dir``: folders, not links to one (a host folder that is a
    link could lead anywhere), and not hidden (``.acap`` is no host)."""
    try:
        with os.scandir(site_dir) as entries:
            return sorted(e.name for e in entries if e.is_dir(follow_symlinks=False) and
                          not e.name.startswith("."))
    except OSError:
        return []


def host_root(site_dir: Path, host: str) -> Root:
    """The folder a host's files are served from: ``site_dir/host``, which must not be a
    link itself, with links inside it followed only to files inside it."""
    return Root(site_dir / host, f"the host folder {host}", "inside", may_be_link=False)


def served_file(root: Root, raw: str, parts: list[str]) -> Path | str | None:
    """The file of ``root`` a request path answers with, as GitHub Pages finds it:
    ``/talk`` from ``talk`` or else ``talk.html``, ``/dir/`` from ``dir/index.html``.

    Args:
        root: the host folder (see :func:`host_root`).
        raw: the request's path, decoded (``/talk``).
        parts: its parts, none of them ``.`` or ``..``.

    Returns:
        The file to read (a :class:`~pathlib.Path`), the path to redirect to (``str``:
        ``/dir`` -> ``/dir/``), or ``None`` for nothing there.

    Raises:
        FileRefused: a link on the way leads out of the host folder (nothing is read).
    """
    if not parts:
        return root.folder / "index.html"
    target = root.folder.joinpath(*parts)
    st = file_status(target, root)
    if not raw.endswith("/") and not _regular(st):
        html = target.with_name(target.name + ".html")
        if _regular(file_status(html, root)):
            return html  # GitHub Pages answers /talk from talk.html, before /talk/
    if st is not None and stat.S_ISDIR(st.st_mode):
        return target / "index.html" if raw.endswith("/") else raw + "/"
    return target if st is not None else None


def _regular(st: os.stat_result | None) -> bool:
    return st is not None and stat.S_ISREG(st.st_mode)


def _default_host(site_dir: Path) -> str | None:
    man = read_manifest(site_dir)
    card = man.card if man is not None else None
    if card is not None:
        return (urlsplit(card).hostname or "").lower() or None
    hosts = site_hosts(site_dir)
    return hosts[0] if hosts else None


class _PreviewHandler(BaseHTTPRequestHandler):
    """Answers one request of a :class:`PreviewServer`: the host's file, a redirect to a
    folder's slash, 304, or 400/403/404 in plain words; never a traceback. Made per
    request by the server through ``functools.partial`` (as ``http.server`` does for its
    ``directory``), which brings ``preview`` and ``log``."""

    server_version = "acap-serve"
    sys_version = ""

    def __init__(self, *args: Any, preview: PreviewServer,
                 log: Callable[[str], None] | None, **kwargs: Any) -> None:
        self.preview, self._log = preview, log
        super().__init__(*args, **kwargs)

    def log_message(self, format: str, *args: Any) -> None:
        if self._log:
            self._log(f"{self.headers.get('Host', '-')} {format % args}")

    def do_HEAD(self) -> None:
        self._answer(body=False)

    def do_GET(self) -> None:
        self._answer(body=True)

    def _send(self, status: int, data: bytes, ctype: str, body: bool,
              extra: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Access-Control-Allow-Origin", "*")
        self.send_header("X-Content-Type-Options", "nosniff")
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        if status != HTTPStatus.NOT_MODIFIED:
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if body and status != HTTPStatus.NOT_MODIFIED:
            self.wfile.write(data)

    def _answer(self, body: bool) -> None:
        hosts = site_hosts(self.preview.site_dir)
        host = host_from_header(self.headers.get("Host"), hosts, self.preview.default_host)
        if host is None or host not in hosts:
            msg = ("acap serve: no such host here. Hosts: "
                   + ", ".join(self.preview.url(h) for h in hosts) + "\n").encode()
            self._send(HTTPStatus.NOT_FOUND, msg, "text/plain; charset=utf-8", body)
            return
        root = host_root(self.preview.site_dir, host)
        raw = unquote(urlsplit(self.path).path or "/")
        parts = [p for p in raw.split("/") if p]
        if "\0" in raw or any(p in ("..", ".") or "\\" in p for p in parts):
            self._send(HTTPStatus.BAD_REQUEST, b"bad path\n", "text/plain; charset=utf-8",
                       body)
            return
        data, name = None, ""
        try:
            found = served_file(root, raw, parts)
            if isinstance(found, str):  # a folder asked for without its slash
                self._send(HTTPStatus.MOVED_PERMANENTLY, b"", "text/plain", body,
                           {"Location": found})
                return
            if found is not None:
                name = found.name
                data = read_file(found, root, SERVE_LIMIT)
        except FileRefused as exc:  # said to the browser and the log, never a traceback
            self.log_message("refused %s: %s", raw, exc.reason)
            self._send(HTTPStatus.FORBIDDEN, f"acap serve: {raw} is not served: "
                       f"{exc.reason}\n".encode(), "text/plain; charset=utf-8", body)
            return
        except OSError:
            data = None  # gone, or a file where a folder should be: not found
        if data is None:
            self._not_found(root, body)
            return
        etag = strong_etag(data)
        headers = {"ETag": etag, "Cache-Control": CACHE_CONTROL}
        if not_modified(self.headers.get("If-None-Match"), etag):
            self._send(HTTPStatus.NOT_MODIFIED, b"", "", body, headers)
            return
        self._send(HTTPStatus.OK, data, content_type(name), body, headers)

    def _not_found(self, root: Root, body: bool) -> None:
        try:
            page: bytes | None = read_file(root.folder / "404.html", root, SERVE_LIMIT)
        except (FileRefused, OSError):
            page = None
        self._send(HTTPStatus.NOT_FOUND, page or b"404 Not Found\n",
                   "text/html; charset=utf-8" if page else "text/plain", body)


def watched_files(config: Path) -> dict[Path, tuple[int, int, int]]:
    """``{file: (mtime ns, size, CRC-32)}`` of everything a build reads that a user
    edits: operator.yaml, operator.private.yaml, every file under templates/, and the
    previous keys file. The CRC sees an edit that keeps the size within one tick of
    the file system's clock. Each is looked at as the build reads it, within the
    project folder (:func:`acap.load.read_file`): a FIFO or a link out of the folder is
    watched by its own ``lstat``, never opened or followed."""
    root = Root(config.parent, "the project folder", "inside")
    paths = [config, private_path_for(config)]
    tpl = config.parent / "templates"
    if tpl.is_dir():
        paths += sorted(p for p in tpl.rglob("*") if p.is_file())
    paths.append(load_operator(config).previous_keys_file)  # never raises for bad content
    out: dict[Path, tuple[int, int, int]] = {}
    for p in paths:
        try:
            st = os.lstat(p)
            crc = zlib.crc32(read_file(p, root, 1 << 20))
        except FileRefused:
            crc = 0  # refused by the build too, which says why
        except OSError:
            continue
        out[p] = (st.st_mtime_ns, st.st_size, crc)
    return out


def start_preview(site_dir: Path, *, bind: str = DEFAULT_BIND, port: int = DEFAULT_PORT,
                  config: Path | None = None, rebuild: Callable[[], bool] | None = None,
                  interval: float = 1.0,
                  log: Callable[[str], None] | None = None) -> PreviewServer:
    """Serve ``site_dir`` in a background thread and return at once.

    Args:
        site_dir: the built site (``site/``).
        bind: address to listen on; loopback by default (a preview is not
            for the network).
        port: TCP port; ``0`` picks a free one (see :attr:`PreviewServer.port`).
        config: operator.yaml; when given with ``rebuild``, a watcher calls
            ``rebuild`` when it, templates/ or the previous keys change.
        rebuild: builds site/ again and returns whether it was replaced (the caller
            brings the build: :func:`acap.builder.build`, reporting as it likes).
        interval: seconds between two polls of the watched files.
        log: called with one line per request (``None``: quiet).

    Returns:
        A running :class:`PreviewServer`; call :meth:`~PreviewServer.stop`
        (or use it in a ``with`` block).

    Raises:
        OSError: the address is in use or cannot be bound.
    """
    server = PreviewServer(site_dir.absolute(), bind, port, _default_host(site_dir))
    httpd = ThreadingHTTPServer((bind, port),
                                partial(_PreviewHandler, preview=server, log=log))
    httpd.daemon_threads = True
    server._httpd = httpd
    server.port = int(httpd.server_address[1])
    t = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.2},
                         name="acap-serve", daemon=True)
    t.start()
    server._threads.append(t)
    if config is not None and rebuild is not None:
        # The files as they are now, before returning: a change made the moment this
        # returns must be seen as a change, whenever the watcher thread first runs.
        seen = watched_files(config)
        w = threading.Thread(target=_watch, args=(server, config, interval, rebuild, seen),
                             name="acap-serve-watch", daemon=True)
        w.start()
        server._threads.append(w)
    return server


def _watch(server: PreviewServer, config: Path, interval: float, rebuild: Callable[[], bool],
           seen: dict[Path, tuple[int, int, int]]) -> None:
    while not server._stop.wait(interval):
        now = watched_files(config)
        if now == seen:
            continue
        seen = now
        written = rebuild()
        server.rebuilds += 1
        if written:
            server.default_host = _default_host(server.site_dir) or server.default_host


def serve_forever(server: PreviewServer) -> None:
    """Block until Ctrl-C, then stop ``server``."""
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
