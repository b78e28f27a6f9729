"""Where acap's package data lives (schemas, word lists, templates, spec sources).

acap reads its data files by path beside this module rather than through
``importlib.resources``: that module pulls in ``zipfile``, ``tempfile`` and
their dependencies (about 6 ms at start-up), and ``acap build`` must feel
instant (issue 7). acap is installed as files (it is not zip-safe: MkDocs and
Jinja2 read its templates from disk), so the paths are real.
"""

from __future__ import annotations

from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent


def package_path(*parts: str) -> Path:
    """The path of a data file or folder inside the acap package.

    ``package_path("schemas", "operator.schema.json")``.
    """
    return PACKAGE_DIR.joinpath(*parts)
