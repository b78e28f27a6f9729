"""May ``acap build`` replace this site folder? (rule ``SITE-PATH``)

A build replaces the whole site folder (:func:`acap.site._files.write_site`), so it
first makes sure that nothing is lost and nothing private is published:
* the folder must not hold what the build reads (operator.yaml, templates/,
  the previous keys) nor lie inside templates/ (its files would change what the
  next build reads), nor hold the signing key (everything in it is published);
* it must not be a file, and an existing folder must be empty or a previous
  ``acap build`` (it has the build manifest): a mistyped ``--site-dir`` never
  deletes anything;
* a previous build of another card (another project, or this one before its
  card URL changed) is replaced only with ``--force``;
* files the previous build did not write (the manifest lists every file it
  wrote), such as a page added by hand, are refused rather than deleted, unless
  ``--force``: refusing is the safer of warning and refusing, since the
  warning would come after the file is gone.

Every problem is one finding; the hints never suggest the folder refused.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from pathlib import Path

from acap.findings import Finding, Location
from acap.load import OperatorConfig, real_path, under
from acap.site._manifest import MANIFEST, Manifest, read_manifest
from acap.uris import card_url

#: Folder names suggested for a site folder of its own, in order.
_CANDIDATES = ("site", "public", "site-out", "acap-site")
#: The card of the operator.yaml ``acap init`` writes (example.org, RFC 2606): the first
#: build after you put in your own hosts replaces its site/ without --force.
PLACEHOLDER_CARD = card_url("example.org")
#: acap's own folder in site/ (never a host: see :data:`acap.site.MANIFEST`).
ACAP_DIR = MANIFEST.partition("/")[0]
#: The folders beside an operator file that a build reads (templates/, the default places
#: of the previous keys and of the signing key).
_READ_FOLDERS = ("templates", "keys", ".acap")
#: How many stray files a finding names before "and N more".
_SHOWN = 5


def site_dir_findings(site_dir: Path, cfg: OperatorConfig, where: str, *,
                      force: bool = False) -> list[Finding]:
    """``SITE-PATH`` errors that keep a build from replacing ``site_dir``.

    Args:
        site_dir: the folder the build would replace.
        cfg: the loaded operator.yaml.
        where: how the user named the folder (``--site-dir out`` or ``site``), for
            the findings' location.
        force: replace a previous build of another card, and delete files the
            previous build did not write (``acap build --force``). What the build
            reads, the signing key, and a folder acap did not write are refused
            whatever ``force`` says.

    Returns:
        The findings; ``[]`` when the folder may be replaced.
    """
    key = cfg.key_file
    keys = [key] if not cfg.key_from_env or key.exists() else []
    reads = [cfg.path, cfg.previous_keys_file, cfg.base_dir / "templates"]
    return _findings(site_dir, where, reads, keys, cfg.base_dir, cfg.card_url, force)


def batch_site_findings(site_dir: Path, folders: Iterable[str], where: str, *,
                        force: bool = False, key_dirs: Iterable[str] = ()) -> list[Finding]:
    """:func:`site_dir_findings` for a batch build into one folder, of the operators whose
    folders (real paths) are ``folders``: the site folder must not hold an operator's
    folder nor lie inside one (a batch that wrote there would change a tenant's own
    files, whatever becomes of its build), nor be a file or a folder acap did not
    write, nor lie in the folders an operator file's build reads beside it (templates/,
    keys/, .acap/); over a site/ that no batch wrote, it must not hold files the last
    build did not write (unless ``force``; a batch changes a batch site host folder by host
    folder, and judges each folder it replaces or removes: :mod:`acap.builder.batch`).
    What each operator reads through a link (templates/, key files) is judged per
    operator (:func:`tenant_site_findings`): one tenant's link never holds back the
    others. The platform's key folders (``key_dirs``, real paths) and the site folder
    must not hold one another. A batch may build some of the operators a previous
    batch built, so the cards are not compared.

    Strings, not ``Path``: thousands of operators, and a ``Path`` costs microseconds.
    """
    loc = Location(where)
    target = site_dir.resolve()

    def hint(also: str | None = None) -> str:
        return _own_folder_hint(site_dir, Path.cwd(), None, also)

    if target.is_file():
        return [Finding("SITE-PATH", "error", f"the site folder {site_dir} is a file", loc,
                        hint())]
    real_target = str(target)
    for folder in folders:
        what = f"holds the operator folder {folder}" if under(folder, real_target) else next(
            (f"is inside {os.path.join(folder, sub)}" for sub in _READ_FOLDERS
             if under(real_target, os.path.join(folder, sub))), None) \
            if under(real_target, folder) else None
        if what is not None:
            return [Finding("SITE-PATH", "error", f"the site folder {site_dir} {what}, whose "
                            "files the build reads (operator file, templates, keys); a batch "
                            "writes the site folder", loc, hint())]
    for folder in key_dirs:
        if under(folder, real_target) or under(real_target, folder):
            return [Finding("SITE-PATH", "error", f"the site folder {site_dir} and the key "
                            f"folder {folder} (--key-dir) lie in one another: everything in "
                            "the site folder is published", loc, hint())]
    if not target.is_dir():
        return []
    return _content_findings(site_dir, target, None, force, loc, hint)


def tenant_site_findings(site_dir: Path, cfg: OperatorConfig) -> list[Finding]:
    """The ``SITE-PATH`` error of one operator of a batch whose files lead, through a link,
    into the batch's site folder (its templates/, its key files), or whose templates/
    (through a link) holds the site folder: at its operator file; the others build.
    An operator folder in the site folder, or holding it, is the batch's own error
    (:func:`batch_site_findings`), not repeated here.

    Args:
        site_dir: the batch's site folder.
        cfg: the operator's loaded operator.yaml.
    """
    target = str(_resolved(str(site_dir)))
    if under(real_path(cfg.base_dir), target):
        return []
    named = [("the signing key file", cfg.key_file)] if not cfg.key_from_env else []
    named += [("the previous-keys file", cfg.previous_keys_file),
              ("templates/", cfg.base_dir / "templates")]
    for what, path in named:
        real = real_path(path)
        inside = what == "templates/" and under(target, real)
        if inside or under(real, target):
            where = "holds the site folder" if inside else "lies in the site folder"
            return [Finding("SITE-PATH", "error", f"{what} of this operator ("
                            f"{cfg.display_path(path)}, through a link) {where} of the batch, "
                            f"{site_dir}, which the batch writes and publishes",
                            Location(cfg.loaded.file), "keep the operator's files in its own "
                            "folder: replace the link with the files themselves")]
    return []


@lru_cache(maxsize=8)
def _resolved(site_dir: str) -> Path:
    """``site_dir`` resolved (a batch asks once per operator, for one folder)."""
    return Path(site_dir).resolve()


def _findings(site_dir: Path, where: str, reads: Sequence[str | Path],
              keys: Sequence[str | Path],
              base_dir: Path, card_url: str | None, force: bool) -> list[Finding]:
    loc = Location(where)
    target = site_dir.resolve()

    def hint(also: str | None = None) -> str:
        return _own_folder_hint(site_dir, base_dir, card_url, also)

    if target.is_file():
        return [Finding("SITE-PATH", "error", f"the site folder {site_dir} is a file", loc,
                        hint())]
    out = _holds_findings(site_dir, target, reads, keys, base_dir, loc, hint)
    if out or not target.is_dir():
        return out
    return _content_findings(site_dir, target, card_url, force, loc, hint)


def _holds_findings(site_dir: Path, target: Path, reads: Sequence[str | Path],
                    keys: Sequence[str | Path], base_dir: Path, loc: Location,
                    hint: Callable[[], str]) -> list[Finding]:
    """The site folder holds what a build reads, lies inside templates/, or holds a key."""
    real_target = str(target)
    real_reads = [real_path(p) for p in reads]  # each resolved once
    for reads_path, real in zip(reads, real_reads, strict=True):
        if under(real, real_target):
            return [Finding("SITE-PATH", "error", f"the site folder {site_dir} holds "
                            f"{os.path.basename(reads_path)}, which the build reads; a build "
                            "replaces the whole folder", loc, hint())]
    for real in (r for p, r in zip(reads, real_reads, strict=True)
                 if os.path.basename(p) == "templates"):
        if under(real_target, real) and real_target != real:
            return [Finding("SITE-PATH", "error", f"the site folder {site_dir} is inside "
                            "templates/, which the build reads: writing it would change "
                            "templates/, and publish would then refuse the site as stale", loc,
                            hint())]
    for key in keys:
        if under(real_path(key), real_target):
            return [Finding("SITE-PATH", "error", f"the site folder {site_dir} holds the signing "
                            f"key {_shown(Path(key), base_dir)} (signing.keyFile): everything in "
                            "the site folder is published, and a build replaces the whole folder",
                            loc, hint())]
    return []


def _content_findings(site_dir: Path, target: Path, card_url: str | None, force: bool,
                      loc: Location, hint: Callable[..., str]) -> list[Finding]:
    """The site folder is no build of acap's, another card's build, or holds files the last
    build did not write (the last for a batch site only when the last build was no batch:
    a batch judges the host folders it replaces, :mod:`acap.builder.batch`)."""
    manifest = read_manifest(target)
    if manifest is None:
        if any(target.iterdir()):
            return [Finding("SITE-PATH", "error", f"the site folder {site_dir} is not empty "
                            "and was not written by acap build; a build replaces the whole "
                            "folder", loc,
                            hint(f"or, after checking that nothing in {site_dir} is needed, "
                                 "remove it"))]
        return []
    out: list[Finding] = []
    other = manifest.other_cards(card_url) if card_url is not None else None
    if other == PLACEHOLDER_CARD:
        other = None  # acap init's build on example.org: yours to replace, nobody else's
    if other and not force:
        out.append(Finding("SITE-PATH", "error", f"the site folder {site_dir} holds the build "
                           f"of another card, {other} (another project, or this one before "
                           f"its card URL changed); this build would replace it with "
                           f"{card_url}", loc,
                           hint("or, to replace it, build again with --force")))
    if force or (card_url is None and manifest.is_batch):
        return out
    stray = stray_files(target, manifest)
    if stray:
        out.append(stray_finding(f"the site folder {site_dir}", stray, loc,
                                 "a build replaces the whole folder"))
    return out


def stray_finding(what: str, stray: list[str], loc: Location, why: str) -> Finding:
    """The ``SITE-PATH`` error for ``stray`` files (paths under site/, sorted) in ``what``
    (a site folder, a host folder) that a build would delete (``why``)."""
    names = ", ".join(stray[:_SHOWN]) + (f" and {len(stray) - _SHOWN} more"
                                         if len(stray) > _SHOWN else "")
    return Finding("SITE-PATH", "error", f"{what} holds files the last build did not write: "
                   f"{names}; {why} and would delete them", loc,
                   "move them out of the site folder (your own pages belong in "
                   "templates/, or on a host with ownPages: true), or build again "
                   "with --force to delete them")


def stray_files(site_dir: Path, manifest: Manifest, host: str | None = None) -> list[str]:
    """Paths under ``site_dir`` (``/``-separated, sorted) of files and links the build
    manifest does not list, acap's own folder ``.acap/`` aside (the manifest, the batch's
    file signatures :data:`acap.site._file_stats.FILE_STATS`, a batch's journal and the
    parts of them written when a build was stopped); with ``host``, in that host folder
    only (what a batch would delete replacing or removing it). Links are not followed;
    a folder that cannot be read (or is not there) is skipped."""
    listed = manifest.files
    out: list[str] = []
    # os.scandir and strings, not os.walk and Path objects: a batch's site holds a few
    # files per operator, and the entry's type comes with its name (no stat each).
    top = os.fspath(site_dir)
    folders = [(os.path.join(top, host), host + "/")] if host else [(top, "")]
    while folders:
        folder, prefix = folders.pop()
        try:
            with os.scandir(folder) as entries:
                for e in entries:
                    rel = prefix + e.name
                    if rel == ACAP_DIR:
                        continue  # acap's own: the manifest, file signatures, a batch's journal
                    if e.is_dir(follow_symlinks=False):
                        folders.append((e.path, rel + "/"))
                    elif rel not in listed:
                        out.append(rel)
        except OSError:
            continue
    return sorted(out)


def _own_folder_hint(site_dir: Path, base_dir: Path, card_url: str | None,
                     also: str | None = None) -> str:
    """``build into a folder of its own, e.g. --site-dir X`` with an X that is not
    ``site_dir`` and could be used, and ``also`` after it."""
    hint = "build into a folder of its own"
    choice = _free_folder(site_dir, base_dir, card_url)
    if choice is not None:
        hint += f", e.g. --site-dir {choice}"
    return f"{hint}, {also}" if also else hint


def _free_folder(site_dir: Path, base_dir: Path, card_url: str | None) -> str | None:
    """A folder in ``base_dir`` that a build could use (missing, empty, or a build of
    ``card_url``), other than ``site_dir``; as the user would type it."""
    refused = site_dir.resolve()
    for name in _CANDIDATES:
        cand = base_dir / name
        r = cand.resolve()
        if r == refused:
            continue
        if r.is_dir():
            man = read_manifest(r)
            mine = man is not None and card_url is not None and \
                man.other_cards(card_url) is None
            if not (mine or not any(r.iterdir())):
                continue
        elif r.exists():
            continue
        rel = os.path.relpath(cand)
        return rel if not rel.startswith("..") else str(cand)
    return None


def _shown(path: Path, base_dir: Path) -> str:
    try:
        return str(path.resolve().relative_to(base_dir.resolve()))
    except ValueError:
        return str(path)
