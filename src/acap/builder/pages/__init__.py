"""The personEntry page, the root and 404 pages of a host, and the files static hosts need.

Two build steps: :func:`step_person_entry_pages` (the page at every https personEntry on
a host acap builds, in each page language, rendered with Jinja2 from acap's templates or
the operator's ``templates/``, audited to be the same for everyone: OR-3.8) and
:func:`step_hosting_files` (``index.html``, ``404.html``, ``.nojekyll``, ``CNAME``,
``_headers``), which runs after every step that adds files. Also
:func:`write_words_file` (``acap words LANG``: acap's page words to translate).

May import: :mod:`acap.builder._context` and the stages below :mod:`acap.builder`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from acap._lazy import exports

if TYPE_CHECKING:
    from acap.builder.pages._hosting import HOSTING_KINDS as HOSTING_KINDS
    from acap.builder.pages._hosting import READS as READS
    from acap.builder.pages._hosting import cache_policy as cache_policy
    from acap.builder.pages._hosting import reads as reads
    from acap.builder.pages._pages import language_errors as language_errors
    from acap.builder.pages._pages import page_findings as page_findings
    from acap.builder.pages._reply_words import reply_words as reply_words
    from acap.builder.pages._servers import APACHE_NO_HEADERS_TYPE as APACHE_NO_HEADERS_TYPE
    from acap.builder.pages._servers import SERVERS_DIR as SERVERS_DIR
    from acap.builder.pages._servers import server_files as server_files
    from acap.builder.pages._steps import step_hosting_files as step_hosting_files
    from acap.builder.pages._steps import step_person_entry_pages as step_person_entry_pages
    from acap.builder.pages._taken import final_check_pages_taken as final_check_pages_taken
    from acap.builder.pages._words_file import WordsFile as WordsFile
    from acap.builder.pages._words_file import WordsFileError as WordsFileError
    from acap.builder.pages._words_file import words_text as words_text
    from acap.builder.pages._words_file import write_words_file as write_words_file

__getattr__, __dir__ = exports(__name__)
