"""``acap init [DIR]``: a new operator project, never overwriting a file."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from acap.builder import (
    ACTION_PLACEHOLDER,
    action_ref,
    init_language,
    init_languages,
    init_project,
)
from acap.cli._reporters import finding_text


@click.command()
@click.argument("folder", type=click.Path(path_type=Path, file_okay=False), default=Path("."),
                required=False)
@click.option("--language", "-l", default=None, metavar="LANG",
              help="Write operator.yaml's comments and placeholders in this language, "
                   "the language of your page (de, fr, es, ca-ES-valencia ...) "
                   "[default: English].")
def init(folder: Path, language: str | None) -> None:
    """Start an operator project in FOLDER (default: here).

    \b
    Writes operator.yaml (commented placeholders that build as they are),
    .gitignore, templates/README.md and .github/workflows/pages.yml (GitHub
    Actions: build, check, deploy to Pages). Existing files are left alone;
    an existing .gitignore gets the lines it lacks appended. Nothing is
    written through a symbolic link.
    """

    if language is not None and init_language(language) is None:
        raise click.BadParameter(
            f"acap has no operator.yaml in {language!r}: it has "
            f"{', '.join(init_languages())}. Start from the nearest, then acap words "
            f"{language} writes the page's words for you to translate",
            param_hint="--language")
    result = init_project(folder, language)
    for f in result.findings:
        click.echo(finding_text(f), err=True)
    for p in result.created:
        click.echo(f"created {_show(p, folder)}")
    for p in result.skipped:
        click.echo(f"exists, left as it is: {_show(p, folder)}", err=True)
    if result.appended:
        click.echo("added to .gitignore, which lacked them: " + "  ".join(result.appended),
                   err=True)
    if any(p.name == "pages.yml" for p in result.created) and not action_ref():
        click.echo(f"note: in .github/workflows/pages.yml, replace {ACTION_PLACEHOLDER} with "
                   "the GitHub repository acap comes from and the full commit you trust "
                   "(acap init did not know where this acap came from)", err=True)
    if result.created or result.appended:
        where = "" if folder == Path(".") else f"cd {folder} && "
        click.echo(f"next: edit operator.yaml, then {where}acap build && acap serve")
    elif not result.findings:
        click.echo("nothing written: the project is already there", err=True)
    if result.findings:
        sys.exit(1)


def _show(p: Path, folder: Path) -> str:
    try:
        return str(p.relative_to(folder.absolute()))
    except ValueError:
        return str(p)
