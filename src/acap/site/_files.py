"""site/: files addressed by URL, written all at once or not at all.

Every output file has a URL; its place in site/ is ``<host>/<path of the URL>``
(a path without a file name, like ``https://ask.example.com/talk``, is the
folder's ``index.html``). A build collects files in a :class:`SiteFiles`
in memory, then :func:`write_site` writes them into a new folder beside site/
and swaps it in only when every file is written: a failed build leaves the
previous site/ as it was.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import tempfile
import threading
import unicodedata
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, urlsplit

from acap.errors import SitePathError
from acap.findings import Finding, Location
from acap.site._file_stats import signature
from acap.site._manifest import Manifest, forget_manifests, write_manifest


@lru_cache(maxsize=4096)  # a pure function a build calls for the same few URLs
def url_to_path(url: str) -> str:
    """The relative path under site/ for ``url``.

    ``https://example.com/.well-known/agent-card.json`` ->
    ``example.com/.well-known/agent-card.json``;
    ``https://ask.example.com/talk`` -> ``ask.example.com/talk/index.html``.

    Raises:
        SitePathError: not an https URL with a host, a path that climbs (``..``), or one
            :func:`path_fault` refuses (a NUL, a line break, ``%2F`` ...).
    """
    u = urlsplit(url)
    if u.scheme != "https" or not u.hostname:
        raise SitePathError(f"not an https URL with a host: {url!r}")
    fault = path_fault(u.path)
    if fault:
        raise SitePathError(f"the path of {url!r} {fault}")
    path = unquote(u.path) or "/"
    parts = [p for p in PurePosixPath(path).parts if p != "/"]
    if any(p in ("..", ".") for p in parts):
        raise SitePathError(f"the path of {url} climbs out of its folder")
    if path.endswith("/") or not parts or "." not in parts[-1] or parts[-1].startswith("."):
        parts.append("index.html")
    return "/".join([u.hostname.lower(), *parts])


def path_fault(path: str) -> str | None:
    """Why the path of a URL (as written, percent-escapes and all) cannot name a file of
    site/, in words ("has an encoded slash (%2F)"), or ``None``: a percent-escape that
    decodes to a character of Unicode category C (controls, such as a NUL or a line
    break, which make a file name that breaks ``_headers`` or a terminal) or Z other
    than the plain space U+0020 (U+2028 and U+2029 end a line for readers that split
    on them, as JavaScript's and Python's ``splitlines`` do; U+00A0, U+3000 look like
    a space and are not one), to a backslash, or to bytes that are not UTF-8; or an
    encoded slash (``%2F``, one
    component that would be two folders). Own code: ``urllib.parse.unquote`` decodes
    whatever it is given, and no library judges a path as a file name.

    Args:
        path: the path part of a URL (``/ask%0Ax``).
    """
    if "%" not in path and "\\" not in path and path.isascii() and path.isprintable():
        return None
    if re.search(r"%2[fF]", path):
        return "has an encoded slash (%2F)"
    try:
        text = unquote(path, errors="strict")
    except UnicodeDecodeError:
        return "has percent-escapes that are not UTF-8 text"
    if "\\" in text:
        return "has a backslash (\\)"
    odd = unsafe_char(text)
    if odd is None:
        return None
    if unicodedata.category(odd).startswith("Z"):
        return (f"has the separator U+{ord(odd):04X} ({unicodedata.name(odd, 'a space')}): "
                "a line break for some readers or a space that is not one")
    return f"has the control or invisible character U+{ord(odd):04X}"


def unsafe_char(text: str, allowed: str = " ") -> str | None:
    """The first character of ``text`` that must not be in one line of a file acap
    writes for a web server or host (``_headers``, ``.htaccess``, ``nginx.conf`` ...)
    or in a file name: of Unicode category C (controls, format, unassigned: a NUL, a
    line feed, U+0085) or Z (separators: U+2028 and U+2029 end a line for readers that
    split on them, U+00A0 and U+3000 look like a space), unless in ``allowed``;
    ``None`` when there is none. Own code: no library judges text for this.

    Args:
        text: one line, or a decoded path.
        allowed: characters of those categories that may be there (the plain space by
            default; a server file's tab).
    """
    for c in text:
        if c not in allowed and unicodedata.category(c)[0] in "CZ":
            return c
    return None


def refuse_line_breaks(name: str, lines: list[str], allowed: str = " ") -> None:
    """Raise :class:`acap.errors.SitePathError` when a line of the file ``name`` holds
    a character :func:`unsafe_char` finds: a second line of defence, after
    :func:`path_fault`, so that no path or name can add a line (a header rule) to a
    server's settings file.

    Args:
        name: the file's path under site/, for the message.
        lines: its lines, without their line ends.
        allowed: as :func:`unsafe_char`.
    """
    for line in lines:
        odd = unsafe_char(line, allowed)
        if odd is not None:
            raise SitePathError(f"{name} was not written: a line of it would hold the "
                                f"character U+{ord(odd):04X}, a line break or control "
                                "character for some readers")


class SiteFiles:
    """The files of a build, by relative path under site/, with their URLs."""

    def __init__(self) -> None:
        self._files: dict[str, bytes] = {}
        self._urls: dict[str, str] = {}

    def add(self, url: str, data: bytes) -> str:
        """Add the file served at ``url``; returns its relative path.

        Raises:
            SitePathError: see :func:`url_to_path`; or two different contents for
                one path.
        """
        return self.add_path(url_to_path(url), data, url)

    def add_path(self, rel: str, data: bytes, url: str | None = None) -> str:
        """Add a file by relative path (``host/...``), e.g. hosting files like ``CNAME``."""
        if rel in self._files and self._files[rel] != data:
            raise SitePathError(f"two different files want {rel}")
        self._files[rel] = data
        if url:
            self._urls[rel] = url
        return rel

    def __contains__(self, rel: str) -> bool:
        return rel in self._files

    def __getitem__(self, rel: str) -> bytes:
        return self._files[rel]

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._files))

    def __len__(self) -> int:
        return len(self._files)

    def hosts(self) -> list[str]:
        """Host folders present, sorted."""
        return sorted({rel.split("/", 1)[0] for rel in self._files if not rel.startswith(".")})

    def digest(self) -> dict[str, str]:
        """``{relative path: sha256 hex}`` of every file."""
        return {rel: hashlib.sha256(self._files[rel]).hexdigest() for rel in self}


def write_site(files: SiteFiles, site_dir: Path, manifest: Manifest) -> None:
    """Write ``files`` (and the build manifest) as the new ``site_dir``, atomically.

    The new tree is written in a temporary folder beside ``site_dir``
    (:func:`new_site_folder`), then swapped in (:func:`swap_in`). Any error
    before the swap leaves ``site_dir`` untouched.

    Raises:
        OSError: the folder could not be written; nothing was changed.
    """
    site_dir = real_site_dir(site_dir)
    tmp = new_site_folder(site_dir)
    try:
        write_files(tmp, ((rel, files[rel]) for rel in files))
        write_manifest(tmp, manifest)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    swap_in(tmp, site_dir)


class SiteBusy:
    """Another acap process is writing the site folder (see :func:`site_lock`)."""

    def finding(self, shown: Path) -> Finding:
        """The ``SITE-BUSY`` error for the folder as the user named it."""

        return Finding("SITE-BUSY", "error", f"another acap build is writing {shown} now; "
                       "this one wrote nothing", Location(str(shown)),
                       "wait until it is done, then build again")


@contextmanager
def site_lock(site_dir: Path) -> Iterator[SiteBusy | None]:
    """Hold the lock of ``site_dir`` while a build replaces it; yields ``None``, or a
    :class:`SiteBusy` when another process holds it (then write nothing).

    The lock is an ``flock`` on a file named after the site folder's real path, in a
    folder of this user's own in the system's temporary folder: nothing is left
    beside site/, and builds of other site folders, even in the same folder, go on.
    Holding it, the build also removes the ``.<site>-new-*`` and ``.<site>-old-*``
    folders that a build killed before it could clean up left beside site/. Where
    ``flock`` does not exist (Windows), or no lock file can be made safely, nothing
    is locked. Own code: the standard library has no cross-process lock.
    """
    try:
        import fcntl  # not on every platform (Windows has no flock)
    except ImportError:  # pragma: no cover - not POSIX
        yield None
        return
    fd = _lock_file(site_dir)
    if fd is None:
        yield None
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield SiteBusy()
            return
        except OSError:  # a file system without locks: build unlocked
            yield None
            return
        _remove_leftovers(site_dir)
        yield None
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def _lock_file(site_dir: Path) -> int | None:
    """An open descriptor of the lock file of ``site_dir`` (see :func:`site_lock`), or
    ``None`` when the lock folder is not this user's alone (another user, a link)."""
    folder = Path(tempfile.gettempdir()) / f"acap-locks-{os.getuid()}"
    name = hashlib.sha256(os.path.realpath(site_dir).encode()).hexdigest()[:32] + ".lock"
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        st = os.lstat(folder)
        if not os.path.isdir(folder) or os.path.islink(folder) or st.st_uid != os.getuid():
            return None
        return os.open(folder / name, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    except OSError:
        return None


def _remove_leftovers(site_dir: Path) -> None:
    """Remove the temporary folders of builds that were killed (see :func:`site_lock`)."""
    pattern = re.compile(rf"\.{re.escape(site_dir.name)}-(?:new|old)-[a-z0-9_]{{8}}")
    try:
        names = os.listdir(site_dir.parent)
    except OSError:
        return
    for name in names:
        path = site_dir.parent / name
        if pattern.fullmatch(name) and path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)


def new_site_folder(site_dir: Path) -> Path:
    """A new empty folder beside ``site_dir`` (same file system, so that
    :func:`swap_in` is two renames), named ``.<site>-new-*``.

    Raises:
        OSError: it cannot be made.
    """
    site_dir.parent.mkdir(parents=True, exist_ok=True)
    # What this process read of site/ stays: read_manifest keys it by the manifest's
    # inode, size and times, and site/ changes only by swap_in, which forgets it.
    return Path(tempfile.mkdtemp(prefix=f".{site_dir.name}-new-", dir=site_dir.parent))


def write_files(folder: Path, files: Iterable[tuple[str, bytes]],
                stats: dict[str, list[int]] | None = None) -> None:
    """Write ``(relative path, bytes)`` pairs under ``folder``, making each folder once.

    Args:
        folder: where to write.
        files: the pairs.
        stats: when given, filled with ``{relative path: signature}`` of each file as
            written (:func:`acap.site._file_stats.signature`, for the next batch).

    Raises:
        OSError: a file cannot be written.
    """
    made: set[str] = set()  # folders made so far: one mkdir each, not one per file
    for rel, data in files:
        parent = rel.rpartition("/")[0]
        if parent and parent not in made:
            os.makedirs(folder / parent, exist_ok=True)
            made.add(parent)
        path = folder / rel
        path.write_bytes(data)
        if stats is not None:
            stats[rel] = signature(os.lstat(path))


def swap_in(tmp: Path, site_dir: Path) -> None:
    """Make the finished folder ``tmp`` the new ``site_dir``: the old folder is renamed
    away, ``tmp`` renamed in, and the old one removed (restored if the second
    rename fails). ``tmp`` is removed on failure.

    Raises:
        OSError: the swap failed; ``site_dir`` is as it was.
    """
    forget_manifests()
    try:
        os.chmod(tmp, 0o755)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    with _stops_held():
        old = None
        if site_dir.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{site_dir.name}-old-", dir=site_dir.parent))
            os.rename(site_dir, old / "site")
        try:
            os.rename(tmp, site_dir)
        except BaseException:
            if old:
                os.rename(old / "site", site_dir)
                shutil.rmtree(old, ignore_errors=True)
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        if old:
            shutil.rmtree(old, ignore_errors=True)


@contextmanager
def _stops_held() -> Iterator[None]:
    """Ctrl-C and SIGTERM are ignored while site/ is swapped in: the build has done what
    it was asked, and stopping it half-way through the swap would report a failure for a
    site/ that was replaced (or leave the old one beside it). The handlers are replaced,
    not the signal mask: in a process with other threads (a worker pool, a library's
    own) the kernel may hand the signal to any thread that does not block it. Only in
    the main thread, where Python lets a handler be set; elsewhere, nothing."""
    import signal  # start-up: only the swap of a build needs it

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    stops = [signal.SIGINT, signal.SIGTERM]
    before = {s: signal.getsignal(s) for s in stops}
    for s in stops:
        signal.signal(s, signal.SIG_IGN)
    try:
        yield
    finally:
        for s, handler in before.items():
            signal.signal(s, handler if handler is not None else signal.SIG_DFL)


def real_site_dir(site_dir: Path) -> Path:
    """``site_dir`` as an absolute path, or, when it is a symbolic link, the folder it
    points to: a build replaces that folder and leaves the link (a platform may
    serve a path that is a link to the site)."""
    path = site_dir.absolute()
    return path.resolve() if path.is_symlink() else path


def write_failure(site_dir: Path, exc: OSError) -> Finding:
    """The ``SITE-WRITE`` error for a site folder that could not be written."""
    return Finding("SITE-WRITE", "error", f"cannot write {site_dir}: {exc.strerror or exc}",
                   Location(str(site_dir)), "check that the folder and its parent are "
                   "writable; the previous site/ was left as it was")
