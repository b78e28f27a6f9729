"""Write src/acap/data/constraints.txt: acap's default dependencies, pinned as tested.

The GitHub Action installs acap with ``pip install -c constraints.txt`` and keys its pip
cache on this file's digest, so that every run of one acap version installs the same
dependencies (the versions its tests passed with) and a cache hit installs nothing from
the network. ``acap init``'s workflow gets the file with the Action's commit.

The pins are the versions installed in the environment that ran the tests: run this
there, after the whole suite passed (RELEASING.md, step 2). Only the default install's
dependencies are pinned (not the extras': agent, sftp, test), the whole closure
(dependencies of dependencies), on this Python; a dependency that only another Python
needs (a backport) is not pinned and pip resolves it as usual.

Run: ``.venv/bin/python scripts/constraints.py`` (``--check`` says whether the file is
current and exits 1 if not).
"""

from __future__ import annotations

import re
import sys
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement

OUT = Path(__file__).resolve().parent.parent / "src" / "acap" / "data" / "constraints.txt"

HEADER = """\
# acap's default dependencies, pinned to the versions acap {version}'s tests passed with.
# The GitHub Action installs acap with pip install -c this file, and keys its pip cache on
# it. Written by scripts/constraints.py (RELEASING.md); do not edit by hand.
"""


def _name(name: str) -> str:
    """The PEP 503 normalised name."""
    return re.sub(r"[-_.]+", "-", name).lower()


def closure(root: str = "acap") -> dict[str, str]:
    """The installed distributions ``root`` needs without extras, with their versions:
    ``{normalised name: version}`` (``root`` itself not included).

    Raises:
        metadata.PackageNotFoundError: a dependency this Python needs is not installed.
    """
    found: dict[str, str] = {}
    todo = [root]
    while todo:
        dist = metadata.distribution(todo.pop())
        for line in dist.requires or []:
            req = Requirement(line)
            if req.marker is not None and not req.marker.evaluate({"extra": ""}):
                continue  # an extra's, or another Python's
            name = _name(req.name)
            if name not in found:
                found[name] = metadata.version(req.name)
                todo.append(req.name)
    return found


def text() -> str:
    """The file's text for the environment this runs in."""
    from acap import __version__

    pins = closure()
    return HEADER.format(version=__version__) + "".join(
        f"{name}=={pins[name]}\n" for name in sorted(pins))


def main(argv: list[str]) -> int:
    want = text()
    if "--check" in argv:
        have = OUT.read_text(encoding="utf-8") if OUT.exists() else ""
        if have != want:
            print(f"{OUT} is not the versions installed here: run scripts/constraints.py")
            return 1
        return 0
    OUT.write_text(want, encoding="utf-8")
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
