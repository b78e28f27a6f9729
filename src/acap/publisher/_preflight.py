"""The checks ``acap publish`` makes before anything goes out (see :mod:`acap.publisher._publish`).

Each function returns findings; none writes anything. Rules:
``PUBLISH-INTEGRITY`` (the files are the build's, byte for byte),
``PUBLISH-PRIVATE-KEY`` (no private key material in any file),
``PUBLISH-SIGNATURE`` (every card signature verifies against the built JWKS,
A2A §8.4.3) and ``PUBLISH-ORIGIN`` (the target serves the host's origin at
its root, A2A §8.2).
"""

from __future__ import annotations

import hashlib
import re
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from acap.card import KeyLookup, Verifier
from acap.checks import SOURCES_HINT
from acap.errors import FileRefused
from acap.findings import Finding, Location, Report
from acap.keys import in_bytes
from acap.load import JsonDocument, Root, json_loads, parse_document, read_file
from acap.publisher._fs import READ_LIMIT, walk
from acap.publisher._local import LocalFs
from acap.publisher._plan import TargetRefused
from acap.publisher._targets import Target
from acap.site import Manifest
from acap.uris import CARD_PATH

_GITHUB = re.compile(r"^(?:https://|ssh://git@|git@|git://)github\.com[/:]"
                     r"(?P<owner>[A-Za-z0-9-]+)/(?P<repo>[A-Za-z0-9._-]+?)(?:\.git)?/?$",
                     re.IGNORECASE)


def read_host_files(site_dir: Path, host: str, manifest: Manifest,
                    report: Report) -> dict[str, bytes]:
    """Read ``site/<host>/`` and check it against the build manifest.

    Returns:
        ``{path relative to the host root: bytes}`` of every file (walked without
        recursion, read through :func:`acap.load.read_file`: no link followed).
        Every file that the build did not write, that changed after the build
        (one byte is enough), that is missing or is not a regular file is a
        ``PUBLISH-INTEGRITY`` error in ``report``.
    """

    root = site_dir / host
    expected = {rel[len(host) + 1:]: digest
                for rel, digest in manifest.files.items()
                if rel.startswith(host + "/")}
    files: dict[str, bytes] = {}
    for rel, data in _host_files(root, report):
        files[rel] = data
        shown = str(root / rel)
        if rel not in expected:
            report.add(Finding("PUBLISH-INTEGRITY", "error", f"{shown} was not written by "
                               "acap build", Location(shown),
                               "remove it and run acap build; acap publishes only what it built"))
        elif hashlib.sha256(data).hexdigest() != expected[rel]:
            report.add(Finding("PUBLISH-INTEGRITY", "error", f"{shown} changed after "
                               "acap build", Location(shown),
                               "run acap build (never edit site/ by hand: it is rebuilt)"))
    for rel in sorted(set(expected) - set(files)):
        shown = str(root / rel)
        report.add(Finding("PUBLISH-INTEGRITY", "error", f"{shown} is missing",
                           Location(shown), "run acap build"))
    return files


def _host_files(root: Path, report: Report) -> Iterator[tuple[str, bytes]]:
    """``(relative path, bytes)`` of each regular file of the host folder ``root``; what
    is not one (a link, a FIFO) is a ``PUBLISH-INTEGRITY`` error in ``report``."""
    if not root.is_dir():
        return
    place = Root(root, f"site/{root.name}/", links="refuse", may_be_link=False)
    try:
        entries = list(walk(LocalFs(str(root)), str(root), set()))
    except TargetRefused as exc:
        report.add(Finding("PUBLISH-INTEGRITY", "error", str(exc), Location(str(root)),
                           "run acap build"))
        return
    for rel, entry in entries:
        if stat.S_ISDIR(entry.mode):
            continue
        shown = str(root / rel)
        try:
            yield rel, read_file(root / rel, place, READ_LIMIT)
        except (OSError, FileRefused):
            report.add(Finding("PUBLISH-INTEGRITY", "error", f"{shown} is not a regular file",
                               Location(shown), "run acap build"))


def private_key_findings(files: dict[str, bytes], root: Path) -> list[Finding]:
    """``PUBLISH-PRIVATE-KEY`` errors: PEM private key blocks in any file, and JWKs
    carrying private members (RFC 7518 §6.2.2, §6.3.2, §6.4.1; RFC 8037 §2) in
    any JSON file, found by :func:`acap.keys._leaks.in_bytes` (the detector
    ``acap build`` and ``acap check`` use too)."""

    out: list[Finding] = []
    for rel, data in sorted(files.items()):
        shown = str(root / rel)
        for m in in_bytes(data, rel):
            what = f"a PEM private key (line {m.line})" if m.line else \
                f"{m.what} at {m.pointer or '/'}"
            out.append(Finding("PUBLISH-PRIVATE-KEY", "error", f"{shown} holds {what}",
                               Location(shown, m.line, pointer=m.pointer),
                               f"{SOURCES_HINT}: remove it there and run acap build (it "
                               "refuses such text); treat the key as exposed and make a new "
                               "one (acap keys rotate)"))
    return out


def signature_findings(files: dict[str, bytes], host: str, root: Path) -> list[Finding]:
    """Verify every signature of every Agent Card in the host folder against the
    JWKS built beside it (named by ``jku``, read from ``files``, never fetched).

    Returns:
        ``PUBLISH-SIGNATURE`` errors (one per signature that does not verify)
        and the findings of :meth:`acap.card.Verifier.verify`.
    """

    out: list[Finding] = []
    # The cards a client fetches sit at the well-known path (A2A §8.2); other JSON
    # with that name (the spec site's Annex A.1 example, with its placeholder
    # signature) is documentation, not a published card.
    for rel in sorted(r for r in files if ("/" + r).endswith(CARD_PATH)):
        shown = str(root / rel)
        cf = JsonDocument(shown, raw=files[rel])
        parse_document(cf)
        out.extend(cf.findings)
        if cf.data is None:
            continue
        verifier = Verifier(built_keys(files, host, root),
                            "run acap build: it writes the JWKS beside the card")
        res = verifier.verify(cf.data, card_url=f"https://{host}/{rel}", cf=cf)
        out.extend(res.report)
        out.extend(Finding("PUBLISH-SIGNATURE", "error",
                           f"signature {s.index} of {shown} (kid {s.kid or '-'}) does not "
                           f"verify against the built JWKS: {s.reason}",
                           cf.at(f"/signatures/{s.index}"), "run acap build")
                   for s in res.signatures if not s.valid)
    return out


def built_keys(files: dict[str, bytes], host: str, root: Path) -> KeyLookup:
    """The :data:`acap.card.KeyLookup` of a card in the host folder ``files``: the key
    of its kid in the JWKS its ``jku`` names, which must lie on ``https://{host}/`` and
    be one of ``files`` (never fetched)."""

    def lookup(kid: str | None, jku: str | None) -> tuple[dict[str, Any] | None, str]:
        if not jku:
            return None, "the protected header names no jku"
        try:
            u = urlsplit(jku)
            jku_host = (u.hostname or "").lower()
        except ValueError:  # https://[::1/x: not a URL (a hand-edited card)
            return None, f"jku {jku!r} is not a URL"
        if jku_host != host or u.scheme != "https":
            return None, f"jku {jku} is not on https://{host}/"
        rel_jwks = u.path.lstrip("/")
        if rel_jwks not in files:
            return None, f"the JWKS named by jku ({jku}) is not in site/{host}/"
        try:
            doc = json_loads(files[rel_jwks].decode("utf-8"))
            keys = [k for k in doc["keys"] if isinstance(k, dict) and k.get("kid") == kid]
        except (ValueError, KeyError, TypeError):
            return None, f"site/{host}/{rel_jwks} is not a JWKS"
        if not keys:
            return None, f"no key with kid '{kid}' in site/{host}/{rel_jwks}"
        return keys[0], str(root / rel_jwks)

    return lookup


def served_origin(target: Target, files: dict[str, bytes]) -> tuple[str | None, str, str]:
    """The origin a branch target serves: ``(host or None, path prefix, how acap knows)``.

    GitHub Pages serves a branch at the custom domain of its ``CNAME`` file;
    without one, a repository named ``<owner>.github.io`` at
    ``https://<owner>.github.io/`` and any other at
    ``https://<owner>.github.io/<repo>/`` (under a path, not at the root).
    ``(None, "", reason)`` when acap cannot tell (another git host, no CNAME).
    """
    cname = files.get("CNAME")
    if cname is not None:
        lines = cname.decode("utf-8", "replace").split()
        return (lines[0].lower() if lines else None), "", "its CNAME file"
    m = _GITHUB.match(target.remote or "")
    if m:
        owner, repo = m.group("owner").lower(), m.group("repo")
        if repo.lower() == f"{owner}.github.io":
            return f"{owner}.github.io", "", f"GitHub Pages of {owner}/{repo}"
        return f"{owner}.github.io", f"/{repo}/", f"GitHub Pages of {owner}/{repo}"
    return None, "", f"acap cannot tell which origin serves {target.remote}"


def origin_findings(target: Target, files: dict[str, bytes], card_host: str) -> list[Finding]:
    """``PUBLISH-ORIGIN``: the target must serve ``https://<host>/`` at its root, so
    that the card is at ``https://<host>/.well-known/agent-card.json`` (A2A §8.2)."""
    if target.kind != "branch":
        return []
    host, prefix, how = served_origin(target, files)
    what = (f"the card would not be at https://{target.host}{CARD_PATH}"
            if target.host == card_host else
            f"its pages would not be at https://{target.host}/")
    if host is None:
        return [Finding("PUBLISH-ORIGIN", "warning", f"{how}: make sure it serves "
                        f"https://{target.host}/ at the root", target.where,
                        f"set hosts.{target.host}.cname: {target.host} for GitHub Pages")]
    if host != target.host or prefix:
        return [Finding("PUBLISH-ORIGIN", "error",
                        f"{target.describe()} serves https://{host}{prefix or '/'} ({how}), "
                        f"not https://{target.host}/: {what}", target.where,
                        f"set hosts.{target.host}.cname: {target.host} (and the same custom "
                        "domain in the repository's Pages settings)")]
    return []
