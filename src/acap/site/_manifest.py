"""The build manifest, ``site/.acap/manifest.json``: what the build that wrote site/ wrote
and what it read. This module is the one reader and writer of its format.

The manifest lies outside every host folder, so it is never published. Two shapes:
* one operator (``acap build``)::
    {"acap": version, "card": card URL, "inputs": digest of what the build read,
     "files": {path under site/: sha256 hex}, "publishedKeys": [public JWK, ...]}

* a batch (``acap build DIR``): ``files`` for the whole site, and one record per
  operator, keyed by its card URL (which stays the same when its file moves)::
    {"acap": version, "files": {...},
     "operators": {card URL: {"card", "config", "configFromSite", "inputs", "hosts",
                              "keys", "signer", "keyFile", "state", "reads",
                              "warnings", "places", "keyPlace", "previousPlace"}}}

  ``keys`` are the RFC 7638 thumbprints of its JWKS, ``signer`` that of the key it
  signs with (who it is, with ``config``); ``state``, ``reads`` and ``warnings`` let
  the next batch keep an operator whose inputs and outputs did not change, with the
  warnings a rebuild would give (:func:`acap.builder.batch._keep.reuse`); the
  ``places`` (``[line, column]``) are where its operator file names its hosts and keys.
  A record is read and written as an :class:`OperatorRecord` (:meth:`OperatorRecord.of`,
  :meth:`OperatorRecord.data`), nowhere else.

A batch's manifest is written without indentation (it holds a record per operator);
a one-operator build's with a 2-space indent.

Readers: ``acap build`` (may this folder be replaced: :mod:`acap.site._guard`; which kids
were published: :mod:`acap.keys`), a batch build (who owns which host), ``acap publish``
(is site/ fresh and whole), ``acap serve`` (which host is the card's).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from acap._package import __version__
from acap.errors import FileRefused
from acap.findings import Finding, Level, Location
from acap.load import Root, read_file, write_file

__all__ = ["MANIFEST", "Manifest", "OperatorRecord", "Place", "read_manifest",
           "write_manifest"]

#: A place in an operator file: ``(line, column)``, 1-based.
Place = tuple[int, int]


@dataclass(frozen=True)
class OperatorRecord:
    """One operator's record in a batch manifest (see the module docstring): who it is,
    what it built, and what the next batch needs to keep it as it is.

    Attributes:
        card: its card's URL (the record's key in the manifest).
        config: the real path of its operator file.
        config_from_site: that path relative to the folder holding site/ (the same
            when a CI runner checks the project out in another folder).
        inputs: :func:`acap.builder.input_digest` of what its build read.
        hosts: the host folders it owns, in the order it built them.
        keys: the RFC 7638 thumbprints of its JWKS, current key first.
        signer: the thumbprint of the key it signs with (in a manifest of an earlier
            acap, which had none, the first of ``keys``).
        key_file: the real path of its signing key file, ``None`` for
            ``ACAP_SIGNING_KEY``.
        state: the digest of everything its output depends on
            (:func:`acap.builder.batch._keep.state_digest`).
        reads: the four files ``state`` covers besides templates/: operator file,
            private values, previous keys, signing key (``""`` for none).
        warnings: its own warnings, as a rebuild would give them.
        places: where its operator file names each host (``None``: nowhere).
        key_place: where it names its signing key file.
        previous_place: where it names its previous keys.
    """

    card: str
    config: str
    config_from_site: str = ""
    inputs: str = ""
    hosts: tuple[str, ...] = ()
    keys: tuple[str, ...] = ()
    signer: str | None = None
    key_file: str | None = None
    state: str = ""
    reads: tuple[str, ...] = ()
    warnings: tuple[Finding, ...] = ()
    places: Mapping[str, Place | None] = field(default_factory=dict)
    key_place: Place | None = None
    previous_place: Place | None = None
    #: The JSON this record was read from, when :meth:`data` gives it back as it is (a
    #: batch of thousands rewrites the records it kept as they were).
    json: dict[str, Any] | None = field(default=None, compare=False, repr=False)

    @classmethod
    def of(cls, key: str, data: object) -> OperatorRecord | None:
        """The record filed under ``key`` (a card URL; an operator file's path in manifests
        of earlier acap versions) as JSON ``data``; ``None`` when it is no record (not an
        object, or no text ``card``). Any member of the wrong type reads as empty."""
        if type(data) is not dict or type(data.get("card")) is not str:
            return None
        get = data.get
        keys = _texts(get("keys"))
        signer = get("signer")
        places = get("places")
        return cls(
            card=data["card"], config=_text(get("config")) or key,
            config_from_site=_text(get("configFromSite")) or "",
            inputs=_text(get("inputs")) or "", hosts=_texts(get("hosts")), keys=keys,
            signer=signer if isinstance(signer, str) else (keys[0] if keys else None),
            key_file=_text(get("keyFile")), state=_text(get("state")) or "",
            reads=_texts(get("reads")),
            warnings=tuple(_finding(w) for w in get("warnings") or ()
                           if isinstance(w, dict)) if get("warnings") else (),
            places={str(h): _place(v) for h, v in places.items()}
            if type(places) is dict else {},
            key_place=_place(get("keyPlace")), previous_place=_place(get("previousPlace")),
            json=data if _canonical(data) else None)

    def data(self) -> dict[str, Any]:
        """The record as the manifest keeps it (JSON; the reverse of :meth:`of`)."""
        if self.json is not None:
            return self.json
        return {"config": self.config, "configFromSite": self.config_from_site,
                "card": self.card, "inputs": self.inputs, "hosts": list(self.hosts),
                "keys": list(self.keys), "signer": self.signer, "keyFile": self.key_file,
                "state": self.state, "reads": list(self.reads),
                "warnings": [_finding_data(f) for f in self.warnings],
                "places": {h: _place_data(p) for h, p in self.places.items()},
                "keyPlace": _place_data(self.key_place),
                "previousPlace": _place_data(self.previous_place)}

    def still_there(self) -> bool:
        """True when the operator file this record was built from is still where it was."""
        return os.path.isfile(self.config)


#: The members of a record as :meth:`OperatorRecord.data` writes them.
_MEMBERS = frozenset({"config", "configFromSite", "card", "inputs", "hosts", "keys", "signer",
                      "keyFile", "state", "reads", "warnings", "places", "keyPlace",
                      "previousPlace"})


def _canonical(data: dict[str, Any]) -> bool:
    """True when :meth:`OperatorRecord.data` of the record read from ``data`` is ``data``
    itself: its members and no others, each of the type written (no warnings: those
    are read into findings and written anew). Plain type tests: a batch reads
    thousands."""
    get = data.get
    places, signer, key_file = get("places"), get("signer"), get("keyFile")
    if data.keys() != _MEMBERS or get("warnings") != [] or not get("config") or \
            type(places) is not dict or (signer is not None and type(signer) is not str) or \
            (signer is None and get("keys")) or (key_file is not None and
                                                 type(key_file) is not str):
        return False
    for k in ("config", "configFromSite", "card", "inputs", "state"):
        if type(get(k)) is not str:
            return False
    for k in ("hosts", "keys", "reads"):
        v = get(k)
        if type(v) is not list or not all(type(t) is str for t in v):
            return False
    return all(v is None or _place(v) is not None
               for v in (*places.values(), get("keyPlace"), get("previousPlace")))


def _text(value: object) -> str | None:
    return value if type(value) is str else None


def _texts(value: object) -> tuple[str, ...]:
    return tuple(map(str, value)) if type(value) is list else ()


def _place(value: object) -> Place | None:
    if type(value) is list and len(value) == 2:
        a, b = value
        if type(a) is int and type(b) is int:  # not a bool
            return (a, b)
    return None


def _place_data(place: Place | None) -> list[int] | None:
    return [place[0], place[1]] if place is not None else None


def _finding_data(f: Finding) -> dict[str, Any]:
    return {"rule": f.rule, "level": f.level, "message": f.message, "hint": f.hint,
            "file": f.location.file, "line": f.location.line, "column": f.location.column,
            "pointer": f.location.pointer}


def _finding(d: dict[str, Any]) -> Finding:
    loc = Location(str(d.get("file")), d.get("line"), d.get("column"), d.get("pointer"))
    level: Level = "error" if d.get("level") == "error" else "warning"
    return Finding(str(d.get("rule")), level, str(d.get("message")), loc,
                   d.get("hint") if isinstance(d.get("hint"), str) else None)

#: Where the manifest lies, relative to the site folder.
MANIFEST = ".acap/manifest.json"


class Manifest:
    """A build manifest, read-only (see the module docstring for its format).

    Every accessor answers for any content (a manifest written by hand or by an
    older acap): what is missing or of the wrong type reads as empty.

    Args:
        data: the parsed JSON object.
    """

    __slots__ = ("_by_host", "_files", "_records", "data")

    def __init__(self, data: Mapping[str, Any]) -> None:
        self.data = data
        self._files: dict[str, str] | None = None
        self._records: list[OperatorRecord] | None = None
        self._by_host: dict[str, list[str]] | None = None

    @classmethod
    def of_build(cls, card: str, inputs: str, files: Mapping[str, str],
                 published_keys: list[dict[str, Any]] | None = None) -> Manifest:
        """The manifest of a one-operator build.

        Args:
            card: the card's URL.
            inputs: :func:`acap.builder.input_digest` of what the build read.
            files: ``{path under site/: sha256 hex}`` of every file written.
            published_keys: every public key builds into this site/ published
                (:func:`acap.keys.key_history`), or ``None`` when the build has no JWKS.
        """
        data: dict[str, Any] = {"acap": __version__, "inputs": inputs, "card": card,
                                "files": dict(files)}
        if published_keys is not None:
            data["publishedKeys"] = published_keys
        return cls(data)

    @classmethod
    def of_batch(cls, records: Iterable[OperatorRecord], files: Mapping[str, str]) -> Manifest:
        """The manifest of a batch build: one record per operator, by card URL (see the
        module docstring), and the digests of every file of the site."""
        operators = {r.card: r.data() for r in records}
        return cls({"acap": __version__, "operators": dict(sorted(operators.items())),
                    "files": dict(sorted(files.items()))})

    def changed(self, records: Mapping[str, OperatorRecord | None],
                hosts: Mapping[str, Mapping[str, str]]) -> Manifest:
        """This batch manifest with one unit of change applied
        (:mod:`acap.site._tenants`): each record of ``records`` set (``None``: removed,
        by card URL), and the files of each host of ``hosts`` replaced by the
        ``{path under site/: sha256 hex}`` given (``{}``: the host is gone)."""
        operators = {r.card: r for r in self.records()}
        for card, rec in records.items():
            if rec is None:
                operators.pop(card, None)
            else:
                operators[card] = rec
        files = {rel: d for rel, d in self.files.items() if rel.partition("/")[0] not in hosts}
        for host_files in hosts.values():
            files.update(host_files)
        return Manifest.of_batch(operators.values(), files)

    @property
    def files(self) -> dict[str, str]:
        """``{path under site/: sha256 hex}`` of every file the build wrote (read once;
        not to be changed)."""
        if self._files is None:
            files = self.data.get("files")
            self._files = {str(k): str(v) for k, v in files.items()} \
                if isinstance(files, dict) else {}
        return self._files

    @property
    def card(self) -> str | None:
        """The card URL of a one-operator build."""
        card = self.data.get("card")
        return card if isinstance(card, str) else None

    @property
    def inputs(self) -> str | None:
        """The digest of what a one-operator build read."""
        inputs = self.data.get("inputs")
        return inputs if isinstance(inputs, str) else None

    @property
    def published_keys(self) -> list[dict[str, Any]]:
        """The public JWKs builds into this site/ published (``publishedKeys``), each a
        JSON object with a text ``kid``."""
        keys = self.data.get("publishedKeys")
        return [k for k in keys if isinstance(k, dict) and isinstance(k.get("kid"), str)] \
            if isinstance(keys, list) else []

    @property
    def is_batch(self) -> bool:
        """True for the manifest of a batch build (it has ``operators``)."""
        return isinstance(self.data.get("operators"), dict)

    def records(self) -> list[OperatorRecord]:
        """The per-operator records of a batch manifest (read once; see
        :meth:`OperatorRecord.of`)."""
        if self._records is None:
            ops = self.data.get("operators")
            found = (OperatorRecord.of(str(k), r)
                     for k, r in (ops.items() if isinstance(ops, dict) else ()))
            self._records = [r for r in found if r is not None]
        return self._records

    def of_operator(self, card_url: str) -> Manifest:
        """This manifest as the one-operator manifest of ``card_url``: for a batch, that
        operator's record's card and inputs, and the files of its hosts; otherwise itself."""
        if not self.is_batch:
            return self
        mine = [r for r in self.records() if r.card == card_url]
        hosts = set(mine[0].hosts) if mine else set()
        return Manifest({**self.data, "inputs": mine[0].inputs if mine else None,
                         "card": mine[0].card if mine else None,
                         "files": {r: d for r, d in self.files.items()
                                   if r.split("/", 1)[0] in hosts}})

    def hosts(self) -> list[str]:
        """The host folders the build wrote (sorted), from ``files``."""
        return sorted({rel.split("/", 1)[0] for rel in self.files
                       if "/" in rel and not rel.startswith(".")})

    def files_by_host(self) -> dict[str, list[str]]:
        """The paths of ``files`` by their host folder (worked out once; not to be
        changed)."""
        if self._by_host is None:
            out: dict[str, list[str]] = {}
            for rel in self.files:
                host, sep, _ = rel.partition("/")
                if sep and rel != MANIFEST:
                    out.setdefault(host, []).append(rel)
            self._by_host = out
        return self._by_host

    def other_cards(self, card_url: str) -> str | None:
        """What the build was of, in words, when it was not of ``card_url`` alone: the
        other card's URL, or ``a batch build of N operators (...)``; ``None`` when it
        was of ``card_url``."""
        if self.is_batch:
            cards = sorted({r.card for r in self.records()})
            if cards == [card_url]:
                return None
            return f"a batch build of {len(self.records())} operators ({', '.join(cards[:3])}" + \
                (" ..." if len(cards) > 3 else "") + ")"
        card = self.card
        return card if card is not None and card != card_url else None


#: Manifests read by this process: ``{path: (stat key, parsed)}`` (see :func:`read_manifest`).
_manifests: dict[str, tuple[tuple[int, ...], Manifest | None]] = {}
#: Largest manifest read (bytes): far above a batch of a hundred thousand operators, so
#: that a file put in its place (``/dev/zero`` behind a link is refused anyway) is
#: refused rather than read without end.
MANIFEST_LIMIT = 1 << 30


def read_manifest(site_dir: Path) -> Manifest | None:
    """The manifest of the last build in ``site_dir``, or ``None`` if there is none (or
    it is not a JSON object).

    The parsed manifest is kept while the file's inode, size and modification time
    stay the same (and until :func:`write_manifest` writes one): a batch build asks
    for the manifest of its one site/ once per operator, and a manifest of
    thousands of operators takes milliseconds to parse.
    """
    path = site_dir / MANIFEST
    try:
        st = os.stat(path)
    except OSError:
        return None
    key = (st.st_ino, st.st_dev, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    seen = _manifests.get(str(path))
    if seen is not None and seen[0] == key:
        return seen[1]
    try:  # acap's own file: inside site/, through no link (issue 22)
        data = orjson.loads(read_file(path, Root(site_dir, "the site folder"), MANIFEST_LIMIT))
    except (OSError, ValueError, RecursionError, FileRefused):
        return None
    result = Manifest(data) if isinstance(data, dict) else None
    if len(_manifests) > 8:
        _manifests.clear()
    _manifests[str(path)] = (key, result)
    return result


def write_manifest(folder: Path, manifest: Manifest) -> None:
    """Write ``manifest`` into the site ``folder`` (at :data:`MANIFEST`), whole or not at
    all (a new file renamed over the old: a live batch site's index is rewritten in
    place, :mod:`acap.site._tenants`): JSON with sorted keys, UTF-8, final newline, with
    a 2-space indent but for a batch's, which holds a record per operator and is read
    and written whole by every batch (orjson; the standard library for what orjson does
    not write)."""

    forget_manifests()
    try:
        indent = 0 if manifest.is_batch else orjson.OPT_INDENT_2
        data = orjson.dumps(manifest.data, option=indent | orjson.OPT_SORT_KEYS
                            | orjson.OPT_APPEND_NEWLINE)
    except TypeError:  # orjson.JSONEncodeError: e.g. an integer beyond 64 bits
        data = (json.dumps(manifest.data, indent=None if manifest.is_batch else 2,
                           separators=(",", ":") if manifest.is_batch else None,
                           sort_keys=True, ensure_ascii=False)
                + "\n").encode("utf-8", "surrogateescape")
    write_file(folder / MANIFEST, Root(folder, "the site folder"), data)


def forget_manifests() -> None:
    """Drop what this process read of any manifest: a site/ is about to change."""
    _manifests.clear()
