"""The extension's specification site, built with MkDocs at the extension URI.

``acap build`` in the extension's home (operator.yaml ``specSite: true``, or
``--spec-site``) publishes the specification at
``https://agent-capability.org/ext/on-request/v1/`` (``site/agent-capability.org/
ext/on-request/v1/index.html``), with its pages for operators and agent
developers, the conformance list and the changes, the schemas and the Annex A
example files.

The sources live in the package, ``acap/spec/``: ``mkdocs.yml``, ``docs/*.md``,
``docs/examples/`` (Annex A.1 to A.5) and ``theme/`` (our own template and
stylesheet). A build:
1. checks every example (:func:`acap.builder.specsite._examples.check_examples`): a broken
   example is a ``SPEC-EXAMPLE`` finding and nothing is built;
2. runs MkDocs on the package's sources (``mkdocs.config.load_config`` and
   ``mkdocs.commands.build.build``) into a temporary folder, strict (a broken
   link or anchor is a ``SPEC-SITE`` finding), with ``SOURCE_DATE_EPOCH`` set
   to the document's date so that two builds give the same bytes (sitemap
   dates and the gzip header included). The hooks of :mod:`acap.builder.specsite._hooks`
   expand the ``<!-- acap:NAME ARG -->`` directives of the Markdown: the
   requirement tables from the requirement registry (each row's ``id`` is the
   requirement id, so ``#OR-3.4`` is its anchor), the examples from their files
   (byte for byte) and the §6.2 table from the rules the example checks use;
   and they add the schemas;
3. returns the files, which the build step adds to the site under the
   extension URI, so that they are written with everything else, atomically.

MkDocs is imported only inside these functions, and only when the spec site
is built. Authors preview the pages with ``mkdocs serve -f src/acap/spec/mkdocs.yml``.
"""

from __future__ import annotations

import calendar
import html
import logging
import os
import re
import tempfile
import threading
from collections.abc import Callable
from importlib import resources
from importlib.abc import Traversable
from pathlib import Path
from typing import TYPE_CHECKING

from mkdocs.commands.build import build
from mkdocs.config import load_config
from mkdocs.exceptions import MkDocsException

from acap.builder.specsite._examples import CARRIER, TASK_STATE, check_examples, example
from acap.findings import Finding, Location, Report
from acap.requirements import Requirement, own_rules, requirements
from acap.uris import SPEC_BASE

if TYPE_CHECKING:
    from acap.builder._context import BuildContext

#: The package folder holding the site's sources (a folder on disk: MkDocs reads it).
SOURCES: Traversable = resources.files("acap") / "spec"

#: The document's date (spec header: "0.1 draft · 1 November 2026"). MkDocs uses
#: it, through SOURCE_DATE_EPOCH, for sitemap dates and the sitemap.xml.gz header.
DOCUMENT_DATE = (2026, 11, 1)

#: Rule id of a finding about the specification site's build (MkDocs failed or warned).
RULE = "SPEC-SITE"

_DIRECTIVE = re.compile(r"^<!-- acap:([a-z-]+)(?: +(\S+))? -->$", re.MULTILINE)
_REQ_ID = re.compile(r"\bOR-\d+\.\d+\b")
_env_lock = threading.Lock()

_WHERE = {
    "build": "<code>acap build</code>, from operator.yaml",
    "card": "<code>acap check</code>, on any card",
    "reply": "acap's reply check",
    "probe": "<code>acap probe</code>, on a live agent",
}
#: §6.2, in the site's words: (case, the reply, where the §6.1 object goes).
_PLACEMENT = {
    "on-request": ("Information referred", "A Message that says where to ask",
                   "that Message (<code>Message.metadata</code>); inside a task, the task's "
                   "final <code>TaskStatus.message</code>"),
    "action-referred": ("Action referred", "A Message that says the action was not carried "
                        "out, and where to ask", "that Message, as above"),
    "given-on-opt-in": ("Information given on opt-in", "An Artifact that carries the "
                        "information", "that Artifact (<code>Artifact.metadata</code>)"),
}


def source_date_epoch() -> int:
    """Seconds since 1970 (UTC) of :data:`DOCUMENT_DATE`, used as ``SOURCE_DATE_EPOCH``."""
    y, m, d = DOCUMENT_DATE
    return calendar.timegm((y, m, d, 0, 0, 0, 0, 0, 0))


# ---------------------------------------------------------------------------
# Directives: Markdown generated from the registry and the example files.

def _link_ids(text: str, page: str) -> str:
    """Escaped ``text`` with every requirement id linked to its anchor on the spec page."""
    return _REQ_ID.sub(lambda m: f'<a href="{page}#{m[0]}">{m[0]}</a>', html.escape(text))


def _levels(r: Requirement) -> str:
    if r.levels:
        return ", ".join(f'<span class="kw">{html.escape(k)}</span>' for k in r.levels)
    note = html.escape(r.level_note or "The spec states this without an RFC 2119 keyword.")
    return f'none<br><small>{note}</small>'


def _requirement_table(reqs: list[Requirement], *, anchors: bool, where: bool) -> str:
    page = "" if anchors else "index.html"
    head = ["Id", "Level", "Requirement (our words)"] + (["Where acap checks it"] if where else [])
    rows = ['<table class="requirements">', "<thead><tr>"
            + "".join(f'<th scope="col">{h}</th>' for h in head) + "</tr></thead>", "<tbody>"]
    for r in reqs:
        rid = html.escape(r.id)
        row_id = f' id="{rid}"' if anchors else ""
        cells = [f'<th scope="row"><a href="{page}#{rid}">{rid}</a></th>',
                 f'<td class="level">{_levels(r)}</td>',
                 f"<td>{_link_ids(r.statement, page)}</td>"]
        if where:
            if r.where:
                text = "<br>".join(_WHERE[w] for w in r.where)
            else:
                text = "not checkable: " + html.escape(r.not_checkable or "")
            cells.append(f"<td>{text}</td>")
        rows.append(f"<tr{row_id}>" + "".join(cells) + "</tr>")
    rows += ["</tbody>", "</table>"]
    return "\n".join(rows)


def _rules_table() -> str:
    rows = ['<table class="rules">', '<thead><tr><th scope="col">Rule id</th>'
            '<th scope="col">What acap checks</th></tr></thead>', "<tbody>"]
    for rule, statement in own_rules():
        rid = html.escape(rule)
        rows.append(f'<tr id="{rid}"><th scope="row"><code>{rid}</code></th>'
                    f"<td>{html.escape(statement)}</td></tr>")
    rows += ["</tbody>", "</table>"]
    return "\n".join(rows)


def _placement_table() -> str:
    rows = ["<table>", '<thead><tr><th scope="col">Case (<code>status</code>)</th>'
            '<th scope="col">The reply</th><th scope="col">The §6.1 object goes in</th>'
            '<th scope="col">Task state, when the agent made a task</th></tr></thead>', "<tbody>"]
    for status, (case, reply, where) in _PLACEMENT.items():
        assert CARRIER[status] in where.lower()  # the words follow the rules the checks use
        rows.append(f"<tr><td>{case} (<code>{status}</code>)</td><td>{reply}</td>"
                    f"<td>{where}</td><td><code>{TASK_STATE[status]}</code></td></tr>")
    rows += ["</tbody>", "</table>"]
    return "\n".join(rows)


def _example_block(name: str, read: Callable[[str], bytes]) -> str:
    ex = example(name)  # KeyError for a file that is not one of Annex A's
    text = read(name).decode("utf-8")
    lang = "json" if name.endswith(".json") else "http"
    # Raw HTML, not a fenced block: the bytes are shown exactly, escaped once.
    return (f'<pre class="example" data-example="{html.escape(name)}"><code class="language-'
            f'{lang}">{html.escape(text.rstrip(chr(10)), quote=False)}</code></pre>\n\n'
            f'<p class="example-source">Example {ex.id} as a file: '
            f'<a href="examples/{html.escape(name)}">examples/{html.escape(name)}</a></p>')


def expand(markdown: str, read_example: Callable[[str], bytes]) -> str:
    """Expand the ``<!-- acap:NAME ARG -->`` directives of one Markdown source.

    Directives (each alone on its line):
        ``requirements SECTION``: the requirements of spec section SECTION
        (``3``, ``5.1`` ... ``6``), each row with ``id`` equal to the requirement
        id; ``conformance``: every requirement, with where acap checks it, linked
        to the specification page; ``rules``: acap's own rule ids;
        ``example FILE``: an Annex A example file, as it is; ``placement``: the
        §6.2 table.

    Args:
        markdown: the source text.
        read_example: returns an example file's bytes by file name.

    Returns:
        The Markdown with every directive replaced by HTML.

    Raises:
        ValueError: an unknown directive, or a section with no requirement.
    """
    def one(m: re.Match[str]) -> str:
        name, arg = m[1], m[2]
        if name == "requirements" and arg:
            reqs = [r for r in requirements() if r.section == arg]
            if not reqs:
                raise ValueError(f"no requirement in section {arg}")
            return _requirement_table(reqs, anchors=True, where=False)
        if name == "conformance":
            return _requirement_table(list(requirements()), anchors=False, where=True)
        if name == "rules":
            return _rules_table()
        if name == "example" and arg:
            return _example_block(arg, read_example)
        if name == "placement":
            return _placement_table()
        raise ValueError(f"unknown directive {m[0]}")

    return _DIRECTIVE.sub(one, markdown)


# ---------------------------------------------------------------------------
# The MkDocs build.

#: The MkDocs hooks file (:mod:`acap.builder.specsite._hooks`), given to MkDocs by path.
HOOKS = Path(__file__).with_name("_hooks.py")


def run_mkdocs(config: Path, site_dir: Path) -> list[str]:
    """Build the site whose MkDocs configuration is ``config`` into ``site_dir``.

    The build is strict (a warning fails it) and reproducible:
    ``SOURCE_DATE_EPOCH`` is set to :func:`source_date_epoch` during the build
    (under a lock; the previous value is restored). The hooks are
    :data:`HOOKS`. MkDocs' own log records at WARNING or above are collected
    and returned, not printed.

    Args:
        config: ``mkdocs.yml`` (its ``docs_dir`` and ``custom_dir`` are relative to it).
        site_dir: the output folder (emptied by MkDocs first).

    Returns:
        The problems: empty when the site was built.
    """


    problems: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            problems.append(record.getMessage())

    logger = logging.getLogger("mkdocs")
    handler = Collect(logging.WARNING)
    with _env_lock:
        saved = os.environ.get("SOURCE_DATE_EPOCH")
        propagate = logger.propagate
        os.environ["SOURCE_DATE_EPOCH"] = str(source_date_epoch())
        logger.addHandler(handler)
        logger.propagate = False
        try:
            build(load_config(str(config), site_dir=str(site_dir), hooks=[str(HOOKS)]))
        except MkDocsException as exc:
            if not problems:
                problems.append(exc.format_message())
        finally:
            logger.removeHandler(handler)
            logger.propagate = propagate
            if saved is None:
                del os.environ["SOURCE_DATE_EPOCH"]
            else:
                os.environ["SOURCE_DATE_EPOCH"] = saved
    merged: list[str] = []
    for p in problems:  # MkDocs logs "Error reading page 'x.md':" and the cause apart
        if merged and merged[-1].endswith(":"):
            merged[-1] += " " + p
        else:
            merged.append(p)
    return merged


def build_spec_site(report: Report, sources: Traversable | None = None) -> dict[str, bytes] | None:
    """Check the examples and build the site.

    Args:
        report: findings are added here (``SPEC-EXAMPLE``, ``SPEC-SITE``).
        sources: the ``acap/spec`` folder (default :data:`SOURCES`).

    Returns:
        ``{path relative to the extension URI: bytes}`` (``index.html``,
        ``css/spec.css``, ``examples/a1-agent-card.json`` ...), or ``None`` when
        a finding stopped the build.

    Raises:
        OSError: the temporary folder could not be written.
    """
    src = Path(str(sources if sources is not None else SOURCES))
    examples = src / "docs" / "examples"
    found = check_examples(lambda n: (examples / n).read_bytes(), lambda n: str(examples / n))
    report.extend(found)
    if found:
        return None
    with tempfile.TemporaryDirectory(prefix="acap-spec-") as tmp:
        out = Path(tmp)
        problems = run_mkdocs(src / "mkdocs.yml", out)
        if problems:
            for p in problems:
                report.add(Finding(RULE, "error", f"MkDocs: {p}", Location(str(src / "docs")),
                                   "fix the page, link or directive named, in acap/spec/docs"))
            return None
        files = {}
        for path in sorted(out.rglob("*")):
            if path.is_file():
                files[path.relative_to(out).as_posix()] = path.read_bytes()
    return files


def add_spec_site(ctx: BuildContext) -> None:
    """Build the site and add its files to ``ctx.files`` under the extension URI.

    Called by the build step :func:`acap.builder._steps.step_spec_site` when the spec
    site is on; findings go to ``ctx.report``.

    Raises:
        acap.site._files.SitePathError: a file of the site collides with another file
            of the build that has different bytes.
    """
    files = build_spec_site(ctx.report)
    if files is None:
        return
    for rel, data in files.items():
        ctx.files.add(SPEC_BASE + rel, data)
