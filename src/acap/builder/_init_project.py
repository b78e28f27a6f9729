"""``acap init``: start a new operator project in a folder.

Writes, from templates shipped in the package (``acap/data/init/``):
* ``operator.yaml``: commented, on reserved example.org placeholders; it
  builds as it is (``acap build`` gives a signed card straight away);
* ``.gitignore``: keeps site/, the signing key (``.acap/``, ``*.pem``),
  the private files (``*.private.yaml``, OR-3.9: what is given on request) and
  the Actions output folder out of git;
* ``templates/README.md``: how to override acap's page templates;
* ``.github/workflows/pages.yml``: GitHub Actions builds, checks and deploys
  to GitHub Pages, the hidden ``.well-known`` folder included, with the
  signing key from the repository secret ``ACAP_SIGNING_KEY``.

An existing file is never overwritten: it is left as it is and reported; an
existing ``.gitignore`` gets the lines it lacks appended (none removed). Every file is
written inside the project folder by :func:`acap.load.write_file`: nothing through a
symbolic link, dangling or not (a cloned repository's ``.gitignore`` or ``templates/``
may be a link to a file elsewhere), each refusal a ``FILE-WRITE`` finding.
The package stores dotfiles without their dot (``gitignore``,
``github/``) because setuptools' package-data globs skip hidden files.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from importlib import metadata, resources
from pathlib import Path

from acap._package import __version__
from acap.errors import FileRefused
from acap.findings import Finding, Location
from acap.load import KEY_FILE_LIMIT, Root, read_file, write_file

#: Package file under ``acap/data/init/`` -> path in the new project.
FILES = {
    "operator.yaml": "operator.yaml",
    "gitignore": ".gitignore",
    "templates/README.md": "templates/README.md",
    "github/workflows/pages.yml": ".github/workflows/pages.yml",
}


@dataclass
class InitResult:
    """What :func:`init_project` did.

    Attributes:
        created: files written (absolute paths).
        skipped: files that existed and were left untouched (but for ``appended``).
        appended: the lines added to an existing ``.gitignore`` (see
            :func:`extend_gitignore`).
        findings: the files not written, and why (``FILE-WRITE`` errors: a symbolic
            link on the way or at the file, a FIFO, a device).
    """

    created: list[Path] = field(default_factory=list)
    skipped: list[Path] = field(default_factory=list)
    appended: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)


#: The ``uses:`` of the workflow's acap step when acap init does not know where acap
#: came from: the user writes the repository and commit (``acme/acap@0123abc...``). It
#: has no ``/`` and no ``@``, so GitHub refuses the workflow until it is replaced: a
#: placeholder shaped like ``OWNER/acap@COMMIT`` would run whatever the GitHub account
#: ``OWNER`` publishes there, with the signing key.
ACTION_PLACEHOLDER = "SET-ACAP-REPOSITORY-AND-COMMIT-HERE"


def action_ref() -> str:
    """The acap GitHub Action this very acap was installed from, for the generated
    workflow's ``uses:`` (``"acme/acap@0123abc"``); ``""`` if unknown.

    acap is not on PyPI, and installing a package by a bare name that someone else
    may register is how a build gets hijacked. The action installs acap from its own
    files, so the workflow names the GitHub repository and commit this acap was
    installed from (PEP 610 ``direct_url.json`` of a ``git+https://github.com/...``
    install). A local or editable install has none: the workflow then holds
    :data:`ACTION_PLACEHOLDER` and acap init says to replace it.
    """

    try:
        raw = metadata.distribution("acap").read_text("direct_url.json")
        info = json.loads(raw or "{}")
    except (metadata.PackageNotFoundError, ValueError):
        return ""
    vcs = info.get("vcs_info") if isinstance(info, dict) else None
    url = info.get("url", "") if isinstance(info, dict) else ""
    m = re.fullmatch(r"https://github\.com/([A-Za-z0-9-]+)/([A-Za-z0-9._-]+?)(?:\.git)?/?", url)
    if not (m and isinstance(vcs, dict) and vcs.get("vcs") == "git"):
        return ""
    commit = vcs.get("commit_id") or ""
    # Only a full commit: a branch or tag could be moved under the workflow.
    return f"{m[1]}/{m[2]}@{commit}" if re.fullmatch(r"[0-9a-f]{40}", commit) else ""


def action_comment(ref: str) -> list[str]:
    """The comment above the workflow's acap step: where ``ref`` (see :func:`action_ref`)
    came from, or what to write in place of the placeholder."""
    if ref:
        return ["The acap GitHub Action, at the commit acap init was run from: it",
                "installs acap from its own files, builds, checks and uploads."]
    return [f"The acap GitHub Action: replace {ACTION_PLACEHOLDER} with the",
            "GitHub repository acap comes from and the full commit you trust, as",
            "OWNER/REPOSITORY@COMMIT (acap init did not know where this acap came from;",
            "GitHub refuses the workflow until then). It installs acap from its own",
            "files, builds, checks and uploads."]


def template_text(name: str) -> str:
    """The text of one init template (a key of :data:`FILES`), with ``@ACAP_VERSION@``,
    ``@ACAP_ACTION@`` (see :func:`action_ref`) and the comment line
    ``@ACAP_ACTION_COMMENT@`` (see :func:`action_comment`) filled in."""

    raw = resources.files("acap").joinpath(f"data/init/{name}").read_text(encoding="utf-8")
    raw = raw.replace("@ACAP_VERSION@", __version__)
    if "@ACAP_ACTION@" in raw:
        ref = action_ref()
        raw = raw.replace("@ACAP_ACTION@", ref or ACTION_PLACEHOLDER)
        raw = re.sub(r"^([ \t]*# )@ACAP_ACTION_COMMENT@$",
                     lambda m: "\n".join(m.group(1) + line for line in action_comment(ref)),
                     raw, flags=re.MULTILINE)
    return raw


def ignored_patterns() -> list[str]:
    """The patterns of the ``.gitignore`` that :func:`init_project` writes, in order
    (``/site/``, ``/.acap/``, ``*.pem``, ``operator.private.yaml`` ...): what a
    project's own .gitignore must keep out of git when acap init leaves it alone."""
    return [line.strip() for line in template_text("gitignore").splitlines()
            if line.strip() and not line.lstrip().startswith("#")]


def extend_gitignore(path: Path, root: Root) -> list[str]:
    """Append to an existing ``.gitignore`` the lines of acap's (:func:`ignored_patterns`)
    it does not have, under a comment saying why; no line is removed or changed. The
    file is read and replaced inside ``root`` (:func:`acap.load.write_file`), never
    through a link.

    Args:
        path: the ``.gitignore``.
        root: the project folder.

    Returns:
        The lines appended (``[]`` when it had them all).

    Raises:
        FileRefused: it is a link, or lies under one, or is no regular file.
        OSError: it could not be read or written.
    """
    text = read_file(path, root, KEY_FILE_LIMIT).decode("utf-8", "surrogateescape")
    have = {line.strip() for line in text.splitlines()}
    missing = [p for p in ignored_patterns() if p not in have]
    if missing:
        block = ("" if not text or text.endswith("\n") else "\n") + \
            "\n# added by acap init: the signing key, site/ and what is given on request " \
            "stay out of git\n" + "".join(p + "\n" for p in missing)
        write_file(path, root, (text + block).encode("utf-8", "surrogateescape"))
    return missing


def init_project(folder: Path) -> InitResult:
    """Write a new operator project into ``folder`` (created if needed).

    Args:
        folder: the project folder.

    Returns:
        An :class:`InitResult`. Files that exist are skipped, never overwritten; an
        existing ``.gitignore`` gets the lines it lacks appended; a file that would be
        written through a symbolic link (or over a FIFO, a device) is not written, and
        is a ``FILE-WRITE`` finding.

    Raises:
        OSError: a file could not be written (files written before stay).
    """
    folder.mkdir(parents=True, exist_ok=True)
    root = Root(folder, "the project folder")
    result = InitResult()
    for name, rel in FILES.items():
        target = folder / rel
        try:
            try:
                # exclusive: an existing file (even one made a moment ago, a dangling
                # link) is never replaced.
                write_file(target, root, template_text(name).encode("utf-8"),
                           exclusive=True)
            except FileExistsError:
                if rel == ".gitignore":
                    result.appended = extend_gitignore(target, root)
                result.skipped.append(target.absolute())
                continue
        except FileRefused as exc:
            result.findings.append(_refused(rel, target, exc))
            continue
        result.created.append(target.absolute())
    return result


def _refused(rel: str, target: Path, exc: FileRefused) -> Finding:
    """The ``FILE-WRITE`` error of a file acap init did not write."""
    if exc.link is not None:
        hint = (f"{exc.link} is a symbolic link: acap init writes nothing through one. "
                "Put the file itself there (or remove the link) and run acap init again")
    else:
        hint = f"remove {rel} or make it a regular file, then run acap init again"
    return Finding("FILE-WRITE", "error", f"acap init did not write {rel}: {exc.reason}",
                   Location(str(target)), hint)
