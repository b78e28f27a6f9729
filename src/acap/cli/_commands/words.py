"""``acap words LANG``: write acap's page words for a language into templates/words/."""

from __future__ import annotations

from pathlib import Path

import click

from acap.cli._commands._common import config_option


@click.command()
@click.argument("language")
@config_option
def words(language: str, config: Path) -> None:
    """Write acap's page words for LANGUAGE (de, pt-BR, cy ...) to translate or reword.

    \b
    The file goes to templates/words/LANGUAGE.yaml beside the operator file.
    For a language acap has words in, it is a copy of them to reword; for any
    other, acap's English words with a note on what to translate. An existing
    file is left as it is.
    """
    # start-up: the command module is listed by --help; the library loads when it runs
    from acap.builder.pages import WordsFileError, write_words_file

    try:
        written = write_words_file(config.parent, language)
    except WordsFileError as exc:
        click.echo(f"error: {exc.message}", err=True)
        if exc.hint:
            click.echo(f"    hint: {exc.hint}", err=True)
        raise SystemExit(1) from exc
    where = _show(written.path)
    name = written.language or written.tag
    if written.shipped:
        click.echo(f"wrote {where}: acap's {name} words, to reword. Your file replaces "
                   f"acap's for your pages; keep every {{operator}} as it is.")
    else:
        click.echo(f"wrote {where}: acap's English words. Translate the text after each "
                   f"colon into {name}, keep every {{operator}} as it is.")
    click.echo(f"next: add {written.tag} to page.languages in {config.name}, then acap build "
               "(it names the line of any key that is missing or misspelt)")


def _show(p: Path) -> str:
    try:
        return str(p.relative_to(Path.cwd()))
    except ValueError:
        return str(p)
