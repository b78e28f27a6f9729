"""``acap init``: start a new operator project in a folder.

Writes, from templates shipped in the package (``acap/data/init/``):

* ``operator.yaml``: commented, on reserved example.org placeholders; it
  builds as it is (``acap build`` gives a signed card straight away);
* ``.gitignore``: keeps site/, the signing key (``.acap/``, ``*.pem``) and
  the Actions output folder out of git;
* ``templates/README.md``: how to override acap's page templates;
* ``.github/workflows/pages.yml``: GitHub Actions builds, checks and deploys
  to GitHub Pages, the hidden ``.well-known`` folder included, with the
  signing key from the repository secret ``ACAP_SIGNING_KEY``.

An existing file is never overwritten: it is left as it is and reported.
The package stores dotfiles without their dot (``gitignore``,
``github/``) because setuptools' package-data globs skip hidden files.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from . import __version__

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
        skipped: files that existed and were left untouched.
    """

    created: list[Path] = field(default_factory=list)
    skipped: list[Path] = field(default_factory=list)


def pip_spec() -> str:
    """Where pip can install this very acap from, for the generated workflow; ``""`` if unknown.

    acap is not on PyPI, and installing a package by a bare name that someone
    else may register is how a build gets hijacked. So the workflow installs
    from the VCS URL and commit this acap was installed from (PEP 610
    ``direct_url.json``), or, when that is unknown (a local or editable
    install), from the ``ACAP_PIP_SPEC`` variable the user sets.
    """
    import json
    from importlib import metadata

    try:
        raw = metadata.distribution("acap").read_text("direct_url.json")
        info = json.loads(raw or "{}")
    except (metadata.PackageNotFoundError, ValueError):
        return ""
    vcs = info.get("vcs_info") if isinstance(info, dict) else None
    url = info.get("url", "") if isinstance(info, dict) else ""
    if isinstance(vcs, dict) and vcs.get("vcs") == "git" and url.startswith("https://"):
        commit = vcs.get("commit_id") or vcs.get("requested_revision") or ""
        return f"acap @ git+{url}" + (f"@{commit}" if commit else "")
    return ""


def template_text(name: str) -> str:
    """The text of one init template (a key of :data:`FILES`), with ``@ACAP_VERSION@``
    and ``@ACAP_PIP_SPEC@`` (see :func:`pip_spec`) filled in."""
    raw = resources.files("acap").joinpath(f"data/init/{name}").read_text(encoding="utf-8")
    raw = raw.replace("@ACAP_VERSION@", __version__)
    if "@ACAP_PIP_SPEC@" in raw:
        raw = raw.replace("@ACAP_PIP_SPEC@", pip_spec().replace("'", "''"))
    return raw


def init_project(folder: Path) -> InitResult:
    """Write a new operator project into ``folder`` (created if needed).

    Args:
        folder: the project folder.

    Returns:
        An :class:`InitResult`. Files that exist are skipped, never changed.

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
            continue
        result.created.append(target.absolute())
    return result
