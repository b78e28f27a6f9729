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
  warnings a rebuild would give (:func:`acap.builder.batch._build.reuse`); the
  ``places`` (``[line, column]``) are where its operator file names its hosts and keys.

Readers: ``acap build`` (may this folder be replaced: :mod:`acap.site._guard`; which kids
were published: :mod:`acap.keys`), a batch build (who owns which host), ``acap publish``
(is site/ fresh and whole), ``acap serve`` (which host is the card's).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import orjson

from acap._package import __version__
from acap.errors import FileRefused
from acap.load import Root, read_file, write_file

__all__ = ["MANIFEST", "Manifest", "read_manifest", "write_manifest"]

#: Where the manifest lies, relative to the site folder.
MANIFEST = ".acap/manifest.json"


class Manifest:
    """A build manifest, read-only (see the module docstring for its format).

    Every accessor answers for any content (a manifest written by hand or by an
    older acap): what is missing or of the wrong type reads as empty.

    Args:
        data: the parsed JSON object.
    """

    __slots__ = ("data",)

    def __init__(self, data: Mapping[str, Any]) -> None:
        self.data = data

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
    def of_batch(cls, operators: Mapping[str, Mapping[str, Any]],
                 files: Mapping[str, str]) -> Manifest:
        """The manifest of a batch build: one record per operator, by card URL (see the
        module docstring), and the digests of every file of the site."""
        return cls({"acap": __version__, "operators": dict(sorted(operators.items())),
                    "files": dict(sorted(files.items()))})

    @property
    def files(self) -> dict[str, str]:
        """``{path under site/: sha256 hex}`` of every file the build wrote."""
        files = self.data.get("files")
        return dict(files) if isinstance(files, dict) else {}

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

    def records(self) -> list[dict[str, Any]]:
        """The per-operator records of a batch manifest (any key: card URL, or the
        operator file's path in manifests of earlier acap versions), each with a
        ``card`` and, as ``config``, the key it was filed under unless it says its own."""
        ops = self.data.get("operators")
        return [{"config": key, **r} for key, r in (ops.items() if isinstance(ops, dict) else ())
                if isinstance(r, dict) and isinstance(r.get("card"), str)]

    def of_operator(self, card_url: str) -> Manifest:
        """This manifest as the one-operator manifest of ``card_url``: for a batch, that
        operator's record's card and inputs, and the files of its hosts; otherwise itself."""
        if not self.is_batch:
            return self
        mine = [r for r in self.records() if r["card"] == card_url]
        entry = mine[0] if mine else {}
        hosts = [str(h) for h in entry.get("hosts", [])]
        return Manifest({**self.data, "inputs": entry.get("inputs"), "card": entry.get("card"),
                         "files": {r: d for r, d in self.files.items()
                                   if r.split("/", 1)[0] in hosts}})

    def hosts(self) -> list[str]:
        """The host folders the build wrote (sorted), from ``files``."""
        return sorted({rel.split("/", 1)[0] for rel in self.files
                       if "/" in rel and not rel.startswith(".")})

    def files_by_host(self) -> dict[str, list[str]]:
        """The paths of ``files`` by their host folder."""
        out: dict[str, list[str]] = {}
        for rel in self.files:
            host, sep, _ = rel.partition("/")
            if sep and rel != MANIFEST:
                out.setdefault(host, []).append(rel)
        return out

    def other_cards(self, card_url: str) -> str | None:
        """What the build was of, in words, when it was not of ``card_url`` alone: the
        other card's URL, or ``a batch build of N operators (...)``; ``None`` when it
        was of ``card_url``."""
        ops = self.data.get("operators")
        if isinstance(ops, dict):
            cards = sorted({str(o.get("card")) for o in ops.values() if isinstance(o, dict)})
            if cards == [card_url]:
                return None
            return f"a batch build of {len(ops)} operators ({', '.join(cards[:3])}" + \
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
    """Write ``manifest`` into the new site ``folder`` (at :data:`MANIFEST`): JSON with
    sorted keys, 2-space indent, UTF-8, final newline (orjson: a batch's manifest holds a
    record per operator; the standard library for what orjson does not write)."""

    forget_manifests()
    try:
        data = orjson.dumps(manifest.data, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS
                            | orjson.OPT_APPEND_NEWLINE)
    except TypeError:  # orjson.JSONEncodeError: e.g. an integer beyond 64 bits
        data = (json.dumps(manifest.data, indent=2, sort_keys=True, ensure_ascii=False)
                + "\n").encode("utf-8", "surrogateescape")
    write_file(folder / MANIFEST, Root(folder, "the new site folder"), data)


def forget_manifests() -> None:
    """Drop what this process read of any manifest: a site/ is about to change."""
    _manifests.clear()
