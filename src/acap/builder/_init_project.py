"""``acap init``: start a new operator project in a folder.

Writes, from templates shipped in the package (``acap/data/init/``):
* ``operator.yaml``: commented, on reserved example.org placeholders; it
  builds as it is (``acap build`` gives a signed card straight away); in English, or
  with ``--language`` in the operator's language (``operator.<tag>.yaml``: its comments
  and placeholders translated, its page in that language);
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


def init_languages() -> list[str]:
    """The languages ``acap init --language`` writes operator.yaml in: ``en`` (the
    reference, ``operator.yaml``) and each language with an ``operator.<tag>.yaml`` under
    ``acap/data/init/``: those acap has page words for (a test keeps them the same)."""
    folder = resources.files("acap").joinpath("data/init")
    tags = sorted(p.name[len("operator."):-len(".yaml")] for p in folder.iterdir()
                  if p.name.startswith("operator.") and p.name.count(".") == 2)
    return ["en", *tags]


def init_language(tag: str) -> str | None:
    """The operator.yaml template for language ``tag`` (BCP 47): the one of
    :func:`init_languages` equal to it (``pt-PT``), else to its language (``de-CH`` ->
    ``de``, ``pt-BR`` -> ``pt``, ``ca-ES-valencia`` -> ``ca``), compared without case;
    ``None`` when acap has none."""
    known = {t.lower(): t for t in init_languages()}
    return known.get(tag.lower()) or known.get(tag.split("-", 1)[0].lower())


def template_text(name: str, language: str | None = None) -> str:
    """The text of one init template (a key of :data:`FILES`), with ``@ACAP_VERSION@``,
    ``@ACAP_ACTION@`` (see :func:`action_ref`) and the comment line
    ``@ACAP_ACTION_COMMENT@`` (see :func:`action_comment`) filled in; for
    ``operator.yaml`` and a ``language`` other than English, the template in that
    language (:func:`init_language`), its page and contact languages set to ``language``
    as given.

    Raises:
        ValueError: acap has no operator.yaml in ``language``.
    """
    source = name
    if name == "operator.yaml" and language is not None:
        found = init_language(language)
        if found is None:
            raise ValueError(f"acap has no operator.yaml in {language}: it has "
                             + ", ".join(init_languages()))
        if found != "en":
            source = f"operator.{found}.yaml"
    raw = resources.files("acap").joinpath(f"data/init/{source}").read_text(encoding="utf-8")
    raw = raw.replace("@ACAP_VERSION@", __version__)
    if language is not None:
        raw = raw.replace("@PAGE_LANGUAGE@", language)
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


#: A value that is a host name by itself (``cname: example.org``).
_HOST = re.compile(r"(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}\.?", re.I)


def _host_in(value: str) -> str | None:
    """The host a value names: a URL's, an email address's domain, or the value itself
    when it is a host name; ``None`` for any other text."""
    from urllib.parse import urlsplit  # start-up: only when placeholders are looked for

    text = value.strip()
    if "://" in text:
        try:
            return urlsplit(text).hostname
        except ValueError:
            return None
    if "@" in text and " " not in text:
        return text.rsplit("@", 1)[1]
    return text if _HOST.fullmatch(text) else None


def placeholders(config: str | Path) -> list[str]:
    """Where an operator file still holds ``acap init``'s example addresses: every value
    (and every ``hosts:`` key) naming a host reserved for examples (RFC 2606, RFC 6761;
    :func:`acap.uris.is_example_host`), as ``operator.yaml:18:12: operator.website:
    https://example.org``, in file order. Such a project builds (to try acap out) but
    is never published (``PUBLISH-PLACEHOLDER``): the GitHub Action builds and checks it,
    and says these are what to replace instead of deploying.

    Args:
        config: the operator file.

    Returns:
        One line per placeholder; ``[]`` when there is none, or when the file cannot be
        read as a mapping (``acap build`` then says why).
    """
    from acap.load import load_operator  # start-up: only when placeholders are looked for
    from acap.uris import is_example_host  # start-up: as above

    cfg = load_operator(config)
    if not isinstance(cfg.loaded.data, dict):
        return []
    found: list[tuple[tuple[int, int], str]] = []

    def note(pointer: str, value: str, key: bool = False) -> None:
        host = _host_in(value)
        if host and is_example_host(host):
            where = cfg.at(pointer, key=key)
            parts = pointer.strip("/").split("/")[:-1] if key else pointer.strip("/").split("/")
            name = ".".join(p if not p.isdigit() else f"[{p}]" for p in parts).replace(".[", "[")
            found.append(((where.line or 0, where.column or 0),
                          f"{where}: {name.replace('~1', '/').replace('~0', '~')}: {value}"))

    def walk(node: object, pointer: str) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                child = f"{pointer}/{str(k).replace('~', '~0').replace('/', '~1')}"
                if pointer == "/hosts":
                    note(child, str(k), key=True)
                walk(v, child)
        elif isinstance(node, list):
            for i, v in enumerate(node):
                walk(v, f"{pointer}/{i}")
        elif isinstance(node, str):
            note(pointer, node)

    walk(cfg.loaded.data, "")
    return [text for _, text in sorted(found, key=lambda f: f[0])]


def init_project(folder: Path, language: str | None = None) -> InitResult:
    """Write a new operator project into ``folder`` (created if needed).

    Args:
        folder: the project folder.
        language: the operator's language (BCP 47 tag, ``de``, ``ca-ES-valencia``):
            operator.yaml's comments and placeholders are written in it, and it is the
            page's language; ``None``: English (see :func:`init_language`).

    Returns:
        An :class:`InitResult`. Files that exist are skipped, never overwritten; an
        existing ``.gitignore`` gets the lines it lacks appended; a file that would be
        written through a symbolic link (or over a FIFO, a device) is not written, and
        is a ``FILE-WRITE`` finding.

    Raises:
        ValueError: acap has no operator.yaml in ``language`` (nothing is written).
        OSError: a file could not be written (files written before stay).
    """
    texts = {name: template_text(name, language) for name in FILES}  # ValueError first
    folder.mkdir(parents=True, exist_ok=True)
    root = Root(folder, "the project folder")
    result = InitResult()
    for name, rel in FILES.items():
        target = folder / rel
        try:
            try:
                # exclusive: an existing file (even one made a moment ago, a dangling
                # link) is never replaced.
                write_file(target, root, texts[name].encode("utf-8"), exclusive=True)
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
