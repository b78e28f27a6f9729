"""``acap words LANG``: the words file an operator translates (or rewords) for a page language.

acap's own words on the pages live in ``templates/words/<tag>.yaml`` inside the
package (:mod:`acap.builder.pages._words`). An operator who wants another
language, or other wording in a shipped one, puts a file of the same name in the
``templates/words/`` folder beside operator.yaml. This module writes that file:

* for a language acap ships (``de``, or ``de-CH`` through ``de``), a copy of
  acap's file, to reword;
* for any other language, acap's English file with a header saying what to
  translate, into which language, and what to keep.

An existing file is never overwritten, as ``acap init`` never overwrites one, and
nothing is written through a symbolic link (:func:`acap.load.write_file`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from acap.builder.pages._pages import tag_problem
from acap.builder.pages._templating import package_templates_dir
from acap.builder.pages._words import REFERENCE, language_name, words_names
from acap.errors import AcapError, FileRefused
from acap.load import Root, read_file, write_file

#: The English file's own header (its opening comment lines) is replaced by this one,
#: in English: the person translating reads English, since they start from English.
_HEADER = """\
# acap's words on the personEntry page, to translate into {language}.
#
# Translate the text after each colon, and keep every {{operator}} as it is: acap
# puts the operator's name there. Lines starting with # are notes for you; they
# can stay. acap build checks this file and names the line of any key that is
# missing or misspelt. Write for the people who read the page (a bereaved family,
# a patient): plainly and kindly, as you would speak to them.
#
# Then add {tag} to page.languages in operator.yaml. Send the finished file to
# acap's maintainers if you like, so that everyone gets it.
"""


class WordsFileError(AcapError):
    """``acap words`` cannot write the file: the tag is not a language tag, or the file
    exists already (never overwritten). ``hint`` says what to do."""


@dataclass(frozen=True)
class WordsFile:
    """A words file written by :func:`write_words_file`.

    Attributes:
        path: where it was written (``<project>/templates/words/<tag>.yaml``).
        tag: the language tag, as given.
        language: the language's name in English (``German``), or ``None`` when CLDR
            has none (a private-use tag such as ``x-klingon``).
        shipped: the name of acap's own file it copies (``words/de.yaml``) when acap
            has words in this language, else ``None`` (the English file, to translate).
    """

    path: Path
    tag: str
    language: str | None
    shipped: str | None


def words_text(tag: str) -> tuple[str, str | None]:
    """The text of the words file for ``tag``.

    Returns:
        ``(text, shipped)``: ``shipped`` names acap's own file for the language when
        there is one (its text is returned as it is), else ``None`` and the text is
        acap's English file with a header saying what to translate.
    """
    folder = package_templates_dir()
    root = Root(folder, "acap's templates")  # the tag is the user's: read within them
    for name in words_names(tag):
        try:
            return read_file(folder / name, root, 1 << 20).decode("utf-8"), name
        except (OSError, FileRefused):
            continue  # acap has no words in this language (or the tag is no file name)
    english = read_file(folder / "words" / f"{REFERENCE}.yaml", root, 1 << 20).decode("utf-8")
    lines = english.split("\n")
    start = next(i for i, line in enumerate(lines) if line.strip() and not line.startswith("#"))
    # Keep the comments that belong to the first keys (the blank line ends the header).
    while start > 0 and lines[start - 1].startswith("#"):
        start -= 1
    english_name = language_name(tag, "en")
    language = f"{english_name} ({tag})" if english_name else f"the language {tag}"
    return _HEADER.format(language=language, tag=tag) + "\n" + "\n".join(lines[start:]), None


def write_words_file(project_dir: Path, tag: str) -> WordsFile:
    """Write ``templates/words/<tag>.yaml`` under ``project_dir`` (the folder of
    operator.yaml), creating the folders it needs.

    Args:
        project_dir: the operator's project folder.
        tag: a language tag (BCP 47), e.g. ``de``, ``pt-BR``, ``x-klingon``.

    Returns:
        The :class:`WordsFile` written.

    Raises:
        WordsFileError: ``tag`` is not a language tag, the file (or a link, or a folder
            in its place) exists already, a folder on its way is a symbolic link
            (``FILE-WRITE``: nothing is written through one), or it cannot be written;
            the message names the file.
    """
    problem = tag_problem(tag)
    if problem:
        raise WordsFileError(problem, hint="give a language tag: de, es, it, nl, pt-BR, cy")
    path = project_dir / "templates" / "words" / f"{tag}.yaml"
    text, shipped = words_text(tag)
    try:
        # exclusive: never over a file, nor a link (dangling or not), nor a folder; inside
        # the project, through no link (a templates/ linked elsewhere is refused).
        write_file(path, Root(project_dir, "the project folder"), text.encode("utf-8"),
                   exclusive=True)
    except FileExistsError as exc:
        raise WordsFileError(f"{path} exists already; acap leaves it as it is",
                             hint="edit that file, or move it away to start again") from exc
    except FileRefused as exc:
        where = f"{exc.link} is a symbolic link: acap writes nothing through one; " \
            if exc.link else ""
        raise WordsFileError(f"{path}: {exc.reason}; nothing was written [FILE-WRITE]",
                             hint=f"{where}make templates/words/ a folder of the project, "
                             "then run this again") from exc
    except OSError as exc:
        raise WordsFileError(f"cannot write {path}: {exc.strerror or exc}",
                             hint="check that the folder exists and that you may write "
                             "there") from exc
    return WordsFile(path, tag, language_name(tag, "en"), shipped)
