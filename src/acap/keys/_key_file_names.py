"""A mistyped ``signing.keyFile``: the key file the operator most likely meant.

``keyFile: .acap/signing-kye.pem`` names no file, while ``.acap/signing-key.pem``
is there. Without this, the build would make a new key at the mistyped path, or,
when the kid was published before, advise ``acap keys rotate --lost`` for a key
that is not lost. difflib ranks the names (it ships with Python; nothing more is
needed for a handful of file names).

Only the operator's own folder is looked in: the folder keyFile names when it lies
inside the folder of operator.yaml, and that folder's ``.acap/``. A keyFile that
points elsewhere gets no suggestion, so that a did-you-mean never tells anyone the
names of files outside their own project.
"""

from __future__ import annotations

from pathlib import Path

from acap.load import DEFAULT_KEY_FILE, OperatorConfig, is_inside

#: How alike two paths must be (difflib's ratio) to suggest one for the other.
_CUTOFF = 0.8
#: Files looked at in one folder, at most (a key folder holds a few).
_MAX_FILES = 200


def similar_key_file(cfg: OperatorConfig, path: Path) -> str | None:
    """The existing file ``signing.keyFile`` most likely meant, as messages show paths
    (relative to operator.yaml's folder), or ``None``.

    Args:
        cfg: the loaded operator.yaml; only a keyFile it names explicitly is looked at.
        path: the key file it names, which does not exist.

    Returns:
        A path such as ``.acap/signing-key.pem``, or ``None`` when keyFile is not set,
        lies outside the project, or no file's path is close to it.
    """
    if "keyFile" not in cfg.signing or not is_inside(path, cfg.base_dir):
        return None
    folders = [path.parent, (cfg.base_dir / DEFAULT_KEY_FILE).parent]
    found: dict[str, Path] = {}
    for folder in dict.fromkeys(folders):
        if not is_inside(folder, cfg.base_dir):
            continue
        try:
            entries = sorted(folder.iterdir())[:_MAX_FILES]
        except OSError:
            continue
        for entry in entries:
            if entry.is_file() and not entry.is_symlink():
                found[cfg.display_path(entry)] = entry
    if not found:
        return None
    import difflib  # only for a did-you-mean: not at start-up

    near = difflib.get_close_matches(cfg.display_path(path), list(found), n=1, cutoff=_CUTOFF)
    return near[0] if near else None
