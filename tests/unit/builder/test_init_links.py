"""acap init writes nothing through a symbolic link, dangling or not (issue 22): a cloned
repository's ``.gitignore`` that was a link to a file outside the project got acap's lines
(``/site/``, ``*.pem`` ...) appended to that outside file."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from support.cards import acap
from support.files import FORMS, SECRET, outside, plant


@pytest.mark.parametrize("form", FORMS)
def test_a_gitignore_that_is_no_regular_file_of_the_project_is_left_alone(
        tmp_path: Path, form: str) -> None:
    """At the last part (.gitignore lies at the project's top, so its middle part is
    templates/ below)."""
    project = tmp_path / "project"
    out = outside(tmp_path)
    if form.startswith("link-middle"):
        path = project / "templates" / "README.md"
    else:
        path = project / ".gitignore"
    plant(path, form, out, b"# mine\n")
    done: list[object] = []
    t = threading.Thread(target=lambda: done.append(acap("init", str(project))), daemon=True)
    t.start()
    t.join(60)
    assert not t.is_alive(), "acap init waited on a FIFO or read a device"
    res = done[0]
    rel = path.relative_to(project).as_posix()
    assert out.unchanged()
    if form == "hard-link-out":
        # Another name of an outside file: replaced by a file of the project's own (the
        # outside one unchanged), with acap's lines.
        assert res.exit_code == 0, res.output  # type: ignore[attr-defined]
        assert os.stat(path).st_nlink == 1 and b"/site/" in path.read_bytes()
        return
    assert res.exit_code == 1, res.output  # type: ignore[attr-defined]
    err = res.stderr  # type: ignore[attr-defined]
    assert f"{path}: error: acap init did not write {rel}: " in err
    assert "[FILE-WRITE]" in err
    assert SECRET.decode() not in err + res.stdout  # type: ignore[attr-defined]
    link = {"link-last-out": rel, "link-last-in": rel, "link-middle-out": "templates",
            "link-middle-in": "templates"}.get(form)
    if link is not None:
        assert f"hint: {link} is a symbolic link: acap init writes nothing through one" in err
    else:
        kind = "a named pipe (FIFO)" if form == "fifo" else \
            "a symbolic link" if os.path.islink(path) else "a device"
        assert f"it is {kind}" in err
    if form.endswith("-in"):  # the file inside the project is not changed either
        real = path.with_name("real-" + path.name) if form == "link-last-in" else \
            project / "real-templates" / path.name
        assert real.read_bytes() == b"# mine\n"
    # Every other file is written.
    written = {p.relative_to(project).as_posix() for p in project.rglob("*") if p.is_file()
               and not p.is_symlink()}
    assert "operator.yaml" in written and ".github/workflows/pages.yml" in written


def test_a_dangling_gitignore_link_is_not_made_into_a_file_outside(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    out = outside(tmp_path)
    (project / ".gitignore").symlink_to(out.folder / "new-file")
    res = acap("init", str(project))
    assert res.exit_code == 1
    assert not (out.folder / "new-file").exists()
    assert "it is a symbolic link, and acap follows no link there" in res.stderr


def test_a_workflows_folder_linked_out_gets_no_workflow(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".github").mkdir(parents=True)
    out = outside(tmp_path)
    (project / ".github" / "workflows").symlink_to(out.folder)
    res = acap("init", str(project))
    assert res.exit_code == 1
    assert list(out.folder.iterdir()) == []
    assert ".github/workflows is a symbolic link, and acap follows no link there" in res.stderr
