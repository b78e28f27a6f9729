"""MkDocs hooks of the user guide (mkdocs.yml ``hooks:``): the pages written from acap itself
at build time, so that the guide cannot drift from what it describes.

* ``<!-- acap:cli-reference -->`` (docs/cli.md): every command's ``--help``, from the click
  commands (``acap.cli.cli_reference``);
* ``<!-- acap:changelog -->`` (docs/changelog.md): CHANGELOG.md at the repository's root,
  less its title;
* ``<!-- acap:rules -->`` (docs/rules.md): the table of every rule id, from the registry
  (:func:`acap.requirements.rules_table`).

The guide is built where acap is installed (the test environment: ``mkdocs build``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def _changelog() -> str:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    lines = text.splitlines()
    if lines and lines[0].startswith("# "):
        lines = lines[1:]
    return "\n".join(lines).strip() + "\n"


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """Fill each marker of the page (MkDocs event)."""
    if "<!-- acap:cli-reference -->" in markdown:
        from acap.cli import cli_reference

        markdown = markdown.replace("<!-- acap:cli-reference -->", cli_reference())
    if "<!-- acap:changelog -->" in markdown:
        markdown = markdown.replace("<!-- acap:changelog -->", _changelog())
    if "<!-- acap:rules -->" in markdown:
        from acap.requirements import rules_table

        markdown = markdown.replace("<!-- acap:rules -->", rules_table())
    return markdown
