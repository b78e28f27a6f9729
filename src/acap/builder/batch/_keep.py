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
from acap.load import KEY_ENV, KEY_FILE_LIMIT, read_regular, real_path, real_path_lstat, under
from acap.site import OperatorRecord, Place, settled, signature, unchanged_output

__all__ = ["OUTPUT_LIMIT", "Known", "batch_salt", "outputs_unchanged", "reuse", "seen",
           "state_digest", "templates_of"]

#: The largest output file :func:`outputs_unchanged` reads (bytes); a larger one is rebuilt.
OUTPUT_LIMIT = 64 * 1024 * 1024


class Known(NamedTuple):
    """The signatures the last batch recorded for one operator (see :func:`reuse`).

    Attributes:
        inputs: ``{path: [*signature, sha256 hex]}`` of what it read
            (:meth:`acap.site.FileStats.inputs`).
        outputs: ``{path under site/: signature}`` of its output files
            (:meth:`acap.site.FileStats.outputs`).
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


def _hash_reads(reads: tuple[str, ...], templates: list[str], roots: tuple[str, ...],
                known: dict[str, Any], found: dict[str, list[Any]]
                ) -> dict[str, bytes | None] | None:
    """The SHA-256 of each file (``None``: missing or refused, as
    :func:`acap.builder._build.file_hash` has it); the key files (the last two of
    ``reads``: previous keys, signing key) judged as the build judges them: inside
    ``roots`` (real paths), else ``None`` for all (then the operator is rebuilt, and
    the build reports it).

    A regular file (not a link: its ``lstat``) whose signature is the one ``known``
    recorded for it (see :mod:`acap.site._file_stats`) has the digest recorded with
    it, unread; any other is read and hashed (:func:`_digest`), and its signature put
    in ``found`` (with its digest) when :func:`acap.site.settled`. ``found`` gets the
    recorded entries of the files found unchanged.
    """
    out: dict[str, bytes | None] = {}
    since = time.time_ns()
    for i, p in enumerate((*reads, *templates)):
        if not p:
            continue
        key = 2 <= i < 4
        st = None
        if key:  # confined first, as read_regular(inside=...) does: issue 12
            real, st = real_path_lstat(p)
            if not any(under(real, r) for r in roots):
                return None
        try:  # lstat: a link is never taken for the file it leads to
            st = st if st is not None else os.lstat(p)
        except FileNotFoundError:
            out[p] = None  # missing (no link either): as the read below has it
            continue
        except OSError:
            st = None
        entry = known.get(p)
        if st is not None and isinstance(entry, list) and len(entry) == 7 and \
                stat.S_ISREG(st.st_mode) and entry[:6] == signature(st) and \
                isinstance(entry[6], str):
            with suppress(ValueError):
                out[p] = bytes.fromhex(entry[6])
                found[p] = entry
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


def seen(found: dict[str, list[Any]], path: str, digest: bytes | None, since: int) -> None:
    """Put ``path``'s signature and ``digest`` in ``found`` when it may be recorded: read
    whole (a digest), and :func:`acap.site.settled` since ``since`` (taken before it was
    read), its ``stat`` taken after the read."""
    if digest is None:
        return
    with suppress(OSError):
        st = os.lstat(path)  # a link is never recorded (settled: regular files only)
        if settled(st, since):
            found[path] = [*signature(st), digest.hex()]


def outputs_unchanged(folder: Path, files: dict[str, str], known: dict[str, Any], mark: int,
                      found: dict[str, list[int]]) -> bool:
    """True when every file of ``files`` (``{path under folder: sha256 hex}``, from the
    manifest) is a regular file under ``folder`` with that digest: an output deleted
    or edited since the last build makes its operator build again.

    A file whose ``lstat`` has the signature ``known`` recorded for it, changed before
    the last batch's ``mark``, is unchanged unread (:func:`acap.site.unchanged_output`);
    any other is read and hashed. ``found`` gets the signature of each file as it was
    judged (taken before it was read), for the next batch."""
    top = os.fspath(folder)
    for rel, digest in files.items():
        path = os.path.join(top, rel)
        try:
            sig = signature(os.lstat(path))
        except OSError:
            return False
        if unchanged_output(sig, known.get(rel), mark):
            found[rel] = sig
            continue
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
          real: str | None = None) -> OperatorOutcome | None:
    """The operator of ``config`` as the last batch left it, when nothing it reads and
    none of its output files changed since: its state (:func:`state_digest`, from the
    files the record lists and its templates/ as they are now) and its output files'
    digests (:func:`outputs_unchanged`) are those the manifest keeps. Its warnings are
    those it had, so that the batch reports what a rebuild would.

    A file whose ``stat`` has the signature the last batch recorded is not read again
    (``known``; see :mod:`acap.site._file_stats` for why that is safe); any other is
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

    Returns:
        Its outcome (``reused``), or ``None`` when it must be rebuilt.
    """
    reads = record.reads
    if options.full or len(reads) != 4 or reads[0] != str(config) or not record.state \
            or not files or os.path.islink(config):  # a link not followed: the build says
        return None
    output_stats: dict[str, list[int]] = {}
    if not outputs_unchanged(options.site_dir, files, known.outputs, known.mark, output_stats):
        return None
    folder = os.path.dirname(real if real is not None else real_path(config))
    templates = templates_of(os.path.dirname(str(config)))
    roots = (folder, *(str(d) for d in options.key_dirs))
    input_stats: dict[str, list[Any]] = {}
    hashes = _hash_reads(reads, templates, roots, known.inputs, input_stats)
    if hashes is None or state_digest(salt, config, reads, hashes, templates) != record.state:
        return None
    report = Report()
    report.extend(record.warnings)
    if not report.ok(options.strict):
        return None  # rebuilt, so that --strict fails it as a build does
    return OperatorOutcome(
        config, report, digests=dict(files), hosts=list(record.hosts), card_url=record.card,
        inputs=record.inputs,
        host_places={h: _loc(config, p) for h, p in record.places.items()},
        key_file=record.key_file, key_place=_loc(config, record.key_place),
        key_thumbprints=list(record.keys), signer=record.signer,
        previous_place=_loc(config, record.previous_place), reused=True, last=record,
        state=record.state, reads=list(reads), input_stats=input_stats,
        output_stats=output_stats)


def _loc(config: Path, place: Place | None) -> Location:
    """A location in ``config`` from a record's ``(line, column)``."""
    return Location(str(config), *place) if place is not None else Location(str(config))
