"""The installed package: its version, and where its data files live (schemas, word lists,
templates, spec sources).

acap reads its data files by path beside this module rather than through
``importlib.resources``: that module pulls in ``zipfile``, ``tempfile`` and
their dependencies (about 6 ms at start-up), and ``acap build`` must feel
instant (issue 7). acap is installed as files (it is not zip-safe: MkDocs and
Jinja2 read its templates from disk), so the paths are real. This module imports
nothing at start: ``acap --version`` reads the version from here.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["__version__", "package_path"]

#: acap's version, written here only: pyproject.toml reads it (``[tool.hatch.version]``),
#: the wheel's metadata and ``acap --version`` say it. RELEASING.md says when it changes.
__version__ = "0.1.0"

_HERE = os.path.dirname(os.path.realpath(__file__))


def package_path(*parts: str) -> Path:
    """The path of a data file or folder inside the acap package.

    ``package_path("schemas", "operator.schema.json")``.
    """
    from pathlib import Path  # pathlib costs ~3 ms: only for the commands that read data

    return Path(_HERE).joinpath(*parts)
