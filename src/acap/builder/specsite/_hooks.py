"""MkDocs hooks of the specification site (``hooks:`` in ``acap/spec/mkdocs.yml``).

MkDocs loads this file by its path, as a plugin. It makes the pages from the
package's sources without copying them anywhere:
* ``on_page_markdown`` expands the ``<!-- acap:NAME ARG -->`` directives of each
  page (:func:`acap.builder.specsite._site.expand`): requirement tables from the registry,
  the Annex A example files from ``docs/examples/``, the §6.2 table;
* ``on_files`` adds the shipped JSON Schemas as files of the site, so that they
  are published beside the pages byte for byte and links to them are checked.

With these hooks, ``mkdocs serve -f src/acap/spec/mkdocs.yml`` previews the site
while its pages are edited; ``acap build`` builds it (see :mod:`acap.builder.specsite._site`).
Imports stay inside the functions: MkDocs puts this file's folder on
``sys.path`` while it loads it.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

from acap import schemas
from acap.builder.specsite._site import expand


def on_files(files: Any, config: Any) -> Any:
    """Add the three schemas of ``acap/schemas/`` to the site's files (MkDocs event)."""



    folder = str(resources.files(schemas.__name__))
    for name in schemas.ALL:
        if files.get_file_from_path(name) is None:
            files.append(File(name, src_dir=folder, dest_dir=config.site_dir,
                              use_directory_urls=config.use_directory_urls))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """Expand the page's directives (MkDocs event).

    Raises:
        mkdocs.exceptions.PluginError: a bad directive or a missing example file.
    """



    examples = Path(config.docs_dir) / "examples"
    try:
        return expand(markdown, lambda name: (examples / name).read_bytes())
    except (ValueError, KeyError, OSError) as exc:
        raise PluginError(f"{page.file.src_uri}: {exc}") from exc
