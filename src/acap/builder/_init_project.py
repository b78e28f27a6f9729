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
existing ``.gitignore`` gets the lines it lacks appended (none removed).
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
    """

    created: list[Path] = field(default_factory=list)
    skipped: list[Path] = field(default_factory=list)
    appended: list[str] = field(default_factory=list)


def pip_spec() -> str:
    """Where pip can install this very acap from, for the generated workflow; ``""`` if unknown.

    acap is not on PyPI, and installing a package by a bare name that someone
    else may register is how a build gets hijacked. So the workflow installs
    from the VCS URL and commit this acap was installed from (PEP 610
    ``direct_url.json``), or, when that is unknown (a local or editable
    install), from the ``ACAP_PIP_SPEC`` variable the user sets.
    """

    try:
        raw = metadata.distribution("acap").read_text("direct_url.json")
        info = json.loads(raw or "{}")
    except (metadata.PackageNotFoundError, ValueError):
        return ""
    vcs = info.get("vcs_info") if isinstance(info, dict) else None
    url = info.get("url", "") if isinstance(info, dict) else ""
    if isinstance(vcs, dict) and vcs.get("vcs") == "git" and url.startswith("https://"):
        commit = vcs.get("commit_id") or vcs.get("requested_revision") or ""
        spec = f"acap @ git+{url}" + (f"@{commit}" if commit else "")
        # It goes into a YAML string and a comment line: no line breaks or controls.
        return "" if any(ord(c) < 0x20 or c == "\x7f" for c in spec) else spec
    return ""


def pip_comment(spec: str) -> list[str]:
    """The comment above the workflow's install step: what it does with ``spec``
    (see :func:`pip_spec`) as its default, so that the comment and the script agree."""
    lines = ["Where pip gets acap: the repository variable ACAP_PIP_SPEC"]
    if spec:
        lines += ["if set (Settings > Secrets and variables > Actions > Variables),",
                  f"else {spec}, the source acap init was run from."]
    else:
        lines += ["(Settings > Secrets and variables > Actions > Variables), e.g.",
                  "acap @ git+https://github.com/OWNER/acap@COMMIT. acap init did not know",
                  "where this acap came from, so there is no default: while the variable",
                  "is empty, this step stops with an error."]
    return lines


def template_text(name: str) -> str:
    """The text of one init template (a key of :data:`FILES`), with ``@ACAP_VERSION@``,
    ``@ACAP_PIP_SPEC@`` (see :func:`pip_spec`) and the comment line ``@ACAP_PIP_COMMENT@``
    (see :func:`pip_comment`) filled in."""

    raw = resources.files("acap").joinpath(f"data/init/{name}").read_text(encoding="utf-8")
    raw = raw.replace("@ACAP_VERSION@", __version__)
    if "@ACAP_PIP_SPEC@" in raw:
        spec = pip_spec()
        raw = raw.replace("@ACAP_PIP_SPEC@", spec.replace("'", "''"))
        raw = re.sub(r"^([ \t]*# )@ACAP_PIP_COMMENT@$",
                     lambda m: "\n".join(m.group(1) + line for line in pip_comment(spec)),
                     raw, flags=re.MULTILINE)
    return raw


def ignored_patterns() -> list[str]:
    """The patterns of the ``.gitignore`` that :func:`init_project` writes, in order
    (``/site/``, ``/.acap/``, ``*.pem``, ``operator.private.yaml`` ...): what a
    project's own .gitignore must keep out of git when acap init leaves it alone."""
    return [line.strip() for line in template_text("gitignore").splitlines()
            if line.strip() and not line.lstrip().startswith("#")]


def extend_gitignore(path: Path) -> list[str]:
    """Append to an existing ``.gitignore`` the lines of acap's (:func:`ignored_patterns`)
    it does not have, under a comment saying why; no line is removed or changed.

    Args:
        path: the ``.gitignore``.

    Returns:
        The lines appended (``[]`` when it had them all).

    Raises:
        OSError: it could not be read or written.
    """
    text = path.read_bytes().decode("utf-8", "surrogateescape")
    have = {line.strip() for line in text.splitlines()}
    missing = [p for p in ignored_patterns() if p not in have]
    if missing:
        block = ("" if not text or text.endswith("\n") else "\n") + \
            "\n# added by acap init: the signing key, site/ and what is given on request " \
            "stay out of git\n" + "".join(p + "\n" for p in missing)
        with open(path, "a", encoding="utf-8", errors="surrogateescape", newline="\n") as fh:
            fh.write(block)
    return missing


def init_project(folder: Path) -> InitResult:
    """Write a new operator project into ``folder`` (created if needed).

    Args:
        folder: the project folder.

    Returns:
        An :class:`InitResult`. Files that exist are skipped, never overwritten; an
        existing ``.gitignore`` gets the lines it lacks appended.

    Raises:
        OSError: a file could not be written (files written before stay).
    """
    folder.mkdir(parents=True, exist_ok=True)
    result = InitResult()
    for name, rel in FILES.items():
        target = folder / rel
        text = template_text(name)
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            # "x": create only; an existing file (even one made a moment ago) is never replaced.
            with open(target, "x", encoding="utf-8", newline="\n") as fh:
                fh.write(text)
        except FileExistsError:
            result.skipped.append(target.absolute())
            if rel == ".gitignore":
                result.appended = extend_gitignore(target)
            continue
        result.created.append(target.absolute())
    return result
