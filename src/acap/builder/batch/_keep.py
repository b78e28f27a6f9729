"""The kept path of an incremental batch (issue 16): an operator whose inputs and output
files are as the last batch recorded is kept as it is, unread and unbuilt, with the same
bytes and warnings a rebuild would give.

What an operator's output depends on is one digest (:func:`state_digest`): the batch's
settings (:func:`batch_salt`), its operator file as named, and the SHA-256 of each file
it reads. A file whose ``stat`` signature is the one the last batch recorded is not read
again (:mod:`acap.site._file_stats` says why that is safe); the key files are judged as a
rebuild judges them (inside the tenant's folder or ``--key-dir``) whatever their
signature.
"""

from __future__ import annotations

import hashlib
import os
import stat
import time
from contextlib import suppress
from pathlib import Path
from typing import Any, NamedTuple

from acap._package import __version__
from acap.builder._build import REFUSED, file_hash, link_digest
from acap.builder.batch._model import BatchOptions, OperatorOutcome
from acap.errors import FileRefused
from acap.findings import Location, Report
from acap.load import KEY_ENV, KEY_FILE_LIMIT, read_regular, real_path, under
from acap.site import (
    OperatorRecord,
    Place,
    output_stamp,
    settled,
    settled_folder,
    stamp,
    unchanged_output,
)

__all__ = ["OUTPUT_LIMIT", "Known", "batch_salt", "outputs_unchanged", "reuse", "seen",
           "state_digest", "templates_of"]

#: The largest output file :func:`outputs_unchanged` reads (bytes); a larger one is rebuilt.
OUTPUT_LIMIT = 64 * 1024 * 1024


class Known(NamedTuple):
    """The signatures the last batch recorded for one operator (see :func:`reuse`).

    Attributes:
        inputs: ``{path: "stamp:sha256 hex"}`` of what it read
            (:meth:`acap.site.FileStats.inputs`).
        outputs: ``{path under site/: output stamp}`` of its output files, or of more
            (:meth:`acap.site.FileStats.outputs`, :attr:`acap.site.FileStats.all_outputs`).
        mark: the ``ctime`` (ns) every recorded output file is older than, unless changed.
    """

    inputs: dict[str, Any]
    outputs: dict[str, Any]
    mark: int


#: Nothing recorded: every file is read and hashed.
UNKNOWN = Known({}, {}, -1)


def batch_salt(options: BatchOptions) -> str:
    """The options and surroundings a batch operator's output depends on besides its own
    files (acap's version, pages, spec site, strict, new keys, the key folders as
    given, the signing key in ``ACAP_SIGNING_KEY``, the folder names are shown from),
    as a digest: an operator is kept only when they are the same as when it was built."""
    env = os.environ.get(KEY_ENV) or ""
    text = "\0".join([__version__, repr(options.pages), repr(options.spec_site),
                      repr(options.strict), repr(options.new_keys),
                      *(str(d) for d in options.key_dirs), os.getcwd(),
                      hashlib.sha256(env.encode("utf-8", "surrogateescape")).hexdigest()
                      if env else "-"])
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()


def state_digest(salt: str, config: Path, reads: list[str] | tuple[str, ...],
                 hashes: dict[str, bytes | None], templates: list[str]) -> str:
    """SHA-256 over everything one operator's output depends on: the batch's
    :func:`batch_salt`, its operator file as named, and each file it reads (``reads``:
    operator file, private values, previous keys, signing key; ``templates``: every
    file of its templates/) with the SHA-256 of its bytes, ``-`` when missing. The
    manifest keeps it (with ``reads``), so that the next batch can tell, without
    loading operator.yaml, that nothing changed."""
    h = hashlib.sha256(f"{salt}\0{config}\0".encode("utf-8", "surrogateescape"))
    for p in (*reads, *templates):
        d = hashes.get(p)
        h.update(p.encode("utf-8", "surrogateescape") + b"\0" + (d if d is not None else b"-"))
    return h.hexdigest()


def templates_of(folder: str) -> list[str]:
    """Every entry of ``folder``/templates but its folders (sorted), as
    :func:`acap.builder._build.input_files` lists them."""
    tpl = os.path.join(folder, "templates")
    if not os.path.isdir(tpl):  # the common case: one stat, no Path
        return []
    return [str(p) for p in sorted(p for p in Path(tpl).rglob("*")
                                   if p.is_symlink() or not p.is_dir())]


#: What the file signatures record of an input that was missing, when its operator's
#: folder says so (see :class:`Folder`).
MISSING = "-"


class Folder:
    """An operator's folder, as the kept path judges it: named as the batch names it, its
    real path, and whether it is the folder the last batch recorded, unchanged.

    A folder's ``mtime`` and ``ctime`` change whenever an entry is added, removed or
    renamed in it, and the kernel sets ``ctime`` (see :mod:`acap.site._file_stats`): a
    folder whose signature is the recorded one, recorded once settled, holds the same
    names for the same files and folders as then. So an input recorded missing whose
    first missing part was a name in that folder (``operator.private.yaml``,
    ``keys/``) is missing still, unlooked-at, and a folder of it (``.acap/``) is the
    same folder, which is no link if the real path recorded through it is the folder's
    own real path and the name (:meth:`confined`).

    Args:
        named: the folder as named (the operator file's folder).
        real: its real path.
        known: the recorded signatures of the operator's inputs (``{path: entry}``;
            the folder's under ``named`` + ``/``).
    """

    __slots__ = ("_known", "_stat", "_unchanged", "named", "prefix", "real")

    def __init__(self, named: str, real: str, known: dict[str, Any]) -> None:
        self.named, self.real, self._known = named, real, known
        self.prefix = named + os.sep
        self._unchanged: bool | None = None
        self._stat: os.stat_result | None = None

    def unchanged(self) -> bool:
        """True when the folder's ``lstat`` has the recorded signature (looked at once)."""
        if self._unchanged is None:
            entry = self._known.get(self.prefix)
            try:
                self._unchanged = entry == stamp(os.lstat(self.named)) + ":"
            except OSError:
                self._unchanged = False
        return self._unchanged

    def keep(self, found: dict[str, str]) -> None:
        """Carry the folder's recorded signature into ``found`` when it was found
        unchanged (the entries recorded missing that it proves need it next time)."""
        if self._unchanged and self.prefix not in found:
            found[self.prefix] = self._known[self.prefix]

    def part(self, path: str) -> str | None:
        """``path`` relative to the folder, when it lies in it as written (no ``..``)."""
        if not path.startswith(self.prefix):
            return None
        rel = path[len(self.prefix):]
        return rel if rel and ".." not in rel.split(os.sep) else None

    def still_missing(self, path: str) -> bool:
        """True when ``path`` was recorded missing and the folder says it still is."""
        return self._known.get(path) == MISSING and self.part(path) is not None and \
            self.unchanged()

    def confined(self, path: str, real: str | None) -> bool:
        """True when ``path`` (a key file unchanged since recorded, at most one folder
        below this one) has the real path ``real`` recorded for it, through this
        unchanged folder: no link on its way then or now (see the class docstring)."""
        rel = self.part(path)
        return rel is not None and rel.count(os.sep) <= 1 and real is not None and \
            real == self.real + os.sep + rel and self.unchanged()

    def record(self, found: dict[str, str], path: str, since: int, *,
               gone: bool = False) -> None:
        """Record ``path``, missing, in ``found`` when this folder can say so next time:
        its first missing part is a name in this folder, and the folder is
        :func:`acap.site.settled` since ``since``. ``gone``: nothing is at ``path`` (the
        caller just found so), which settles it for a name in this folder."""
        rel = self.part(path)
        if rel is None or ((not gone or os.sep in rel) and
                           os.path.lexists(self.prefix + rel.split(os.sep, 1)[0])):
            return
        entry = self._known.get(self.prefix) if self.unchanged() else None
        if entry is None:
            if self._stat is None:
                try:
                    self._stat = os.lstat(self.named)
                except OSError:
                    return
            if settled_folder(self._stat, since):
                entry = stamp(self._stat) + ":"
        if entry is not None:
            found[self.prefix] = entry
            found[path] = MISSING


def _recorded(st: os.stat_result, entry: object) -> bytes | None:
    """The digest recorded with ``entry`` when ``st`` (an ``lstat``) is its stamp and it
    is a regular file; else ``None``."""
    if isinstance(entry, str) and stat.S_ISREG(st.st_mode):
        mine = stamp(st) + ":"
        if entry.startswith(mine):
            with suppress(ValueError):
                return bytes.fromhex(entry[len(mine):])
    return None


def _hash_reads(reads: tuple[str, ...], templates: list[str], roots: tuple[str, ...],
                folder: Folder, key_real: str | None, found: dict[str, str],
                first: os.stat_result | None = None) -> dict[str, bytes | None] | None:
    """The SHA-256 of each file (``None``: missing or refused, as
    :func:`acap.builder._build.file_hash` has it); the key files (the last two of
    ``reads``: previous keys, signing key) judged as the build judges them: inside
    ``roots`` (real paths), else ``None`` for all (then the operator is rebuilt, and
    the build reports it).

    A regular file (not a link: its ``lstat``) whose signature is the one recorded for
    it (see :mod:`acap.site._file_stats`) has the digest recorded with it, unread; a
    file recorded missing that its folder says is missing still (:class:`Folder`) is
    not looked at; any other is read and hashed (:func:`_digest`), and its signature
    put in ``found`` (with its digest) when :func:`acap.site.settled`. ``found`` gets
    the recorded entries of the files found unchanged. ``key_real`` is the real path
    the last batch recorded of the signing key file; ``first`` the ``lstat`` of the
    operator file (the first of ``reads``) when the batch took it already.
    """
    out: dict[str, bytes | None] = {}
    known = folder._known
    since = time.time_ns()
    for i, p in enumerate((*reads, *templates)):
        if not p:
            continue
        if folder.still_missing(p):
            out[p], found[p] = None, MISSING
            continue
        key = 2 <= i < 4
        st: os.stat_result | None = first if i == 0 else None
        missing = False
        try:  # lstat: a link is never taken for the file it leads to
            st = st or os.lstat(p)
        except FileNotFoundError:
            missing = True
        except OSError:
            pass  # judged by the read below
        digest = _recorded(st, known.get(p)) if st is not None else None
        if key and not ((digest is not None and folder.confined(p, key_real if i == 3 else None))
                        or any(under(real_path(p), r) for r in roots)):
            return None  # outside its folder, as read_regular(inside=...) judges it
        if digest is not None:
            out[p], found[p] = digest, known[p]
            continue
        if st is None and missing:
            out[p] = None  # missing (no link either): as the read below has it
            folder.record(found, p, since, gone=True)
            continue
        digest = _digest(p, key, roots)
        if digest is REFUSED_KEY:
            return None
        out[p] = digest
        seen(found, p, digest, since)
    return out


#: :func:`_digest` of a key file the build would refuse (then the operator is rebuilt).
REFUSED_KEY = b"refused key"


def _digest(path: str, key: bool, roots: tuple[str, ...]) -> bytes | None:
    """The digest of one input as the build hashes it: a key file read confined to
    ``roots`` (:data:`REFUSED_KEY` when refused), any other as
    :func:`acap.builder._build.file_hash` does; a symbolic link hashed with where it
    leads (:func:`acap.builder._build.link_digest`)."""
    if not key:
        return file_hash(Path(path))
    try:
        return link_digest(path, hashlib.sha256(read_regular(
            path, KEY_FILE_LIMIT, inside=[Path(r) for r in roots])).digest())
    except FileNotFoundError:
        return link_digest(path, REFUSED if os.path.lexists(path) else None)
    except (OSError, FileRefused):
        return REFUSED_KEY


def seen(found: dict[str, str], path: str, digest: bytes | None, since: int) -> None:
    """Put ``path``'s signature and ``digest`` in ``found`` when it may be recorded: read
    whole (a digest), and :func:`acap.site.settled` since ``since`` (taken before it was
    read), its ``stat`` taken after the read."""
    if digest is None:
        return
    with suppress(OSError):
        st = os.lstat(path)  # a link is never recorded (settled: regular files only)
        if settled(st, since):
            found[path] = f"{stamp(st)}:{digest.hex()}"


def outputs_unchanged(folder: Path, files: dict[str, str], known: dict[str, Any], mark: int,
                      found: dict[str, str]) -> bool:
    """True when every file of ``files`` (``{path under folder: sha256 hex}``, from the
    manifest) is a regular file under ``folder`` with that digest: an output deleted
    or edited since the last build makes its operator build again.

    A file whose ``lstat`` has the signature ``known`` recorded for it, changed before
    the last batch's ``mark``, is unchanged unread (:func:`acap.site.unchanged_output`);
    any other is read and hashed. ``found`` gets the signature of each file as it was
    judged (taken before it was read), for the next batch."""
    top = os.fspath(folder) + os.sep
    for rel, digest in files.items():
        path = top + rel
        try:
            st = os.lstat(path)
        except OSError:
            return False
        recorded = known.get(rel)
        if recorded is not None and unchanged_output(st, recorded, mark):
            found[rel] = recorded  # as recorded, unchanged since: see unchanged_output
            continue
        sig = output_stamp(st)
        try:
            data = read_regular(path, OUTPUT_LIMIT)
        except (OSError, FileRefused):
            return False
        if hashlib.sha256(data).hexdigest() != digest:
            return False
        found[rel] = sig
    return True


def reuse(config: Path, record: OperatorRecord, files: dict[str, str],
          options: BatchOptions, salt: str, known: Known = UNKNOWN,
          real: str | None = None, st: os.stat_result | None = None
          ) -> OperatorOutcome | None:
    """The operator of ``config`` as the last batch left it, when nothing it reads and
    none of its output files changed since: its state (:func:`state_digest`, from the
    files the record lists and its templates/ as they are now) and its output files'
    digests (:func:`outputs_unchanged`) are those the manifest keeps. Its warnings are
    those it had, so that the batch reports what a rebuild would.

    A file whose ``stat`` has the signature the last batch recorded is not read again
    (``known``; see :mod:`acap.site._file_stats` for why that is safe), nor is a file
    recorded missing whose folder says it still is (:class:`Folder`); any other is
    read and hashed. The key files are judged as a rebuild judges them (inside the
    operator's folder or ``--key-dir``, a regular file) whatever their signature; one
    that is not is no reuse: the rebuild reports it.

    Args:
        config: the operator file.
        record: its record in the last build's manifest (matched by its real path).
        files: ``{path under site/: sha256}`` of the files of its hosts.
        options: the batch's options (``key_dirs`` resolved).
        salt: :func:`batch_salt` of ``options``.
        known: the signatures the last batch recorded.
        real: the real path of ``config``, when the batch has it already.
        st: the ``lstat`` of ``config`` the batch took when it found it, if any.

    Returns:
        Its outcome (``reused``), or ``None`` when it must be rebuilt.
    """
    reads = record.reads
    named = str(config)
    if options.full or len(reads) != 4 or reads[0] != named or not record.state \
            or not files or _is_link(named, st):  # a link not followed: the build says
        return None
    output_stats: dict[str, str] = {}
    if not outputs_unchanged(options.site_dir, files, known.outputs, known.mark, output_stats):
        return None
    folder = Folder(os.path.dirname(named),
                    os.path.dirname(real if real is not None else real_path(config)),
                    known.inputs)
    input_stats: dict[str, str] = {}
    templates = _templates(folder, input_stats)
    roots = (folder.real, *(str(d) for d in options.key_dirs))
    hashes = _hash_reads(reads, templates, roots, folder, record.key_file, input_stats,
                         st if st is not None and stat.S_ISREG(st.st_mode) else None)
    if hashes is None or state_digest(salt, config, reads, hashes, templates) != record.state:
        return None
    folder.keep(input_stats)
    report = Report()
    report.extend(record.warnings)
    if not report.passes(options.strict):
        return None  # rebuilt, so that --strict fails it as a build does
    return OperatorOutcome(
        config, report, digests=files, hosts=list(record.hosts), card_url=record.card,
        inputs=record.inputs,
        host_places={h: _loc(named, p) for h, p in record.places.items()},
        key_file=record.key_file, key_place=_loc(named, record.key_place),
        key_thumbprints=list(record.keys), signer=record.signer,
        previous_place=_loc(named, record.previous_place), reused=True, last=record,
        state=record.state, reads=list(reads), input_stats=input_stats,
        output_stats=output_stats)


def _is_link(path: str, st: os.stat_result | None) -> bool:
    """Whether ``path`` is a symbolic link (``st``: its ``lstat``, when taken already)."""
    if st is not None and stat.S_ISREG(st.st_mode):
        return False
    return os.path.islink(path)


def _templates(folder: Folder, found: dict[str, str]) -> list[str]:
    """:func:`templates_of` the operator's folder, unlooked-at when it had no templates/
    and still has none (:meth:`Folder.still_missing`); recorded so in ``found``."""
    tpl = folder.prefix + "templates"
    if folder.still_missing(tpl):
        found[tpl] = MISSING
        return []
    out = templates_of(folder.named)
    if not out and not os.path.lexists(tpl):
        folder.record(found, tpl, time.time_ns())
    return out


def _loc(config: str, place: Place | None) -> Location:
    """A location in ``config`` from a record's ``(line, column)``."""
    return Location(config, *place) if place is not None else Location(config)
