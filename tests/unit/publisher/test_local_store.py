"""The folder store moves bytes only through acap's one way to touch a file
(:mod:`acap.load._files`): a folder swapped for a link after acap looked at it is refused
when acap writes, renames or removes there, and nothing outside the target changes."""

from __future__ import annotations

from pathlib import Path

import pytest

from acap.publisher._local import LocalFs
from acap.publisher._plan import TargetRefused


def _swapped(tmp_path: Path) -> tuple[LocalFs, Path, Path]:
    """A target whose ``talk`` folder was a folder when acap looked and is now a link to
    a folder outside; returns the file system, the target and the outside folder."""
    www = tmp_path / "www"
    (www / "talk").mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "index.html").write_bytes(b"not acap's\n")
    (www / "talk").rmdir()
    (www / "talk").symlink_to(outside)
    return LocalFs(str(tmp_path)), www, outside


def test_a_rename_through_a_link_on_the_way_is_refused(tmp_path: Path) -> None:
    fs, www, outside = _swapped(tmp_path)
    stage = tmp_path / ".www.acap-stage"
    fs.mkdir(str(stage))
    fs.write(str(stage / "1"), b"acap's page\n")
    with pytest.raises(TargetRefused, match="symbolic link"):
        fs.move(str(stage / "1"), str(www / "talk/index.html"))
    assert (outside / "index.html").read_bytes() == b"not acap's\n"
    assert (stage / "1").read_bytes() == b"acap's page\n"  # nothing moved


def test_a_removal_through_a_link_on_the_way_is_refused(tmp_path: Path) -> None:
    fs, www, outside = _swapped(tmp_path)
    with pytest.raises(TargetRefused, match="symbolic link"):
        fs.unlink(str(www / "talk/index.html"))
    assert (outside / "index.html").read_bytes() == b"not acap's\n"


def test_a_read_through_a_link_on_the_way_is_refused(tmp_path: Path) -> None:
    fs, www, _outside = _swapped(tmp_path)
    with pytest.raises(TargetRefused, match="symbolic link"):
        fs.read(str(www / "talk/index.html"), 1024)


def test_a_new_file_never_replaces_anything(tmp_path: Path) -> None:
    fs = LocalFs(str(tmp_path))
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    with pytest.raises((FileExistsError, TargetRefused)):
        fs.write(str(tmp_path / "dangling"), b"x")
    assert not (tmp_path / "nowhere").exists()
    fs.write(str(tmp_path / "new"), b"x")
    assert (tmp_path / "new").stat().st_mode & 0o777 == 0o644
