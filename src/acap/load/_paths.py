"""Paths an operator's files name: where they lead, once links are followed.

A path is judged by where it really is (:func:`is_inside`), never by how it is written:
``keys/../../other/.acap/signing-key.pem`` and a link that leads out of a folder are
outside it.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["is_inside"]


def is_inside(path: Path, folder: Path) -> bool:
    """True when ``path`` is ``folder`` or lies under it, both resolved (links followed,
    ``..`` applied). A path that cannot be resolved is not inside.

    Args:
        path: any path.
        folder: the folder it should lie in.
    """
    try:
        path.resolve().relative_to(folder.resolve())
    except (ValueError, OSError):
        return False
    return True
