"""acap.load's files module (issue 22): a path confined to a named folder, no link followed
out of it (or, where a command says so, none at all), only regular files of bounded size,
and writes by a temporary file renamed into place, never through a link."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from acap.errors import FileChanged, FileRefused
from acap.load import (
    Root,
    file_status,
    given_root,
    move_file,
    read_file,
    read_regular,
    rename_file,
    swap_file,
    write_file,
)
from acap.load import _files as files_module
from support.files import FORMS, SECRET, outside, plant


def _project(tmp_path: Path) -> tuple[Path, Root]:
    folder = tmp_path / "project"
    (folder / "keys").mkdir(parents=True)
    return folder, Root(folder, "the project folder", "inside")


@pytest.mark.parametrize("links", ["refuse", "inside"])
@pytest.mark.parametrize("form", FORMS)
def test_each_hostile_form_is_read_only_where_it_stays_inside(tmp_path: Path, form: str,
                                                             links: str) -> None:
    folder, _ = _project(tmp_path)
    root = Root(folder, "the project folder", links)  # type: ignore[arg-type]
    out = outside(tmp_path)
    path = folder / "keys" / "previous-keys.json"
    plant(path, form, out, b"inside bytes")
    followed = form.startswith("link-") and form.endswith("-in") and links == "inside"
    if followed:
        assert read_file(path, root, 1024, one_name=True) == b"inside bytes"
        return
    with pytest.raises(FileRefused) as caught:
        read_file(path, root, 1024, one_name=True)
    exc = caught.value
    assert exc.path == str(path)
    assert SECRET.decode() not in str(exc)
    expected = {
        "link-last-out": ("symbolic link", "keys/previous-keys.json"),
        "link-last-in": ("symbolic link", "keys/previous-keys.json"),
        "link-middle-out": ("symbolic link", "keys"),
        "link-middle-in": ("symbolic link", "keys"),
        "fifo": ("named pipe (FIFO)", None),
        "device": ("device" if not os.path.islink(path) else "symbolic link",
                   None if not os.path.islink(path) else "keys/previous-keys.json"),
        "hard-link-out": ("other names (hard links)", None),
    }[form]
    assert expected[0] in exc.reason
    assert exc.link == expected[1]
    if form.endswith("-out") and form.startswith("link") and links == "inside":
        assert exc.outside and "leads out of the project folder" in exc.reason
    assert out.unchanged()


def test_a_fifo_is_refused_at_once_never_waited_on(tmp_path: Path) -> None:
    folder, root = _project(tmp_path)
    os.mkfifo(folder / "pipe")
    done: list[BaseException] = []
    t = threading.Thread(target=lambda: _catch(done, lambda: read_file(folder / "pipe", root,
                                                                       10)), daemon=True)
    t.start()
    t.join(10)
    assert not t.is_alive(), "read_file waited on a FIFO"
    assert isinstance(done[0], FileRefused) and done[0].kind == "a named pipe (FIFO)"


def _catch(into: list[BaseException], fn: Callable[[], object]) -> None:
    try:
        fn()
    except BaseException as exc:  # handed to the test
        into.append(exc)


def test_a_device_is_refused_unread_even_inside_its_root() -> None:
    """/dev/zero, inside /dev: refused by its kind, never read (it would never end)."""
    with pytest.raises(FileRefused) as caught:
        read_file("/dev/zero", Root(Path("/dev"), "/dev"), 10)
    assert caught.value.kind == "a device"


def test_a_file_larger_than_the_limit_is_refused(tmp_path: Path) -> None:
    folder, root = _project(tmp_path)
    (folder / "big").write_bytes(b"x" * 11)
    assert read_file(folder / "big", root, 11) == b"x" * 11
    with pytest.raises(FileRefused, match="11 bytes; a file of its kind has at most 10"):
        read_file(folder / "big", root, 10)


def test_a_path_climbing_out_is_outside_before_anything_is_opened(tmp_path: Path) -> None:
    folder, root = _project(tmp_path)
    out = outside(tmp_path)
    out.add("secret.txt", b"x")
    for path in (folder / ".." / "outside" / "secret.txt", out.folder / "secret.txt",
                 folder / "keys" / ".." / ".." / "outside" / "secret.txt"):
        with pytest.raises(FileRefused) as caught:
            read_file(path, root, 1024)
        assert caught.value.outside, path
    (folder / "a").write_bytes(b"ok")  # a ".." that stays inside is walked
    assert read_file(folder / "keys" / ".." / "keys" / ".." / "a", root, 10) == b"ok"


def test_links_inside_are_followed_through_many_hops_and_absolute_targets(
        tmp_path: Path) -> None:
    folder, root = _project(tmp_path)
    (folder / "keys" / "a.json").write_bytes(b"A")
    (folder / "one").symlink_to("keys")
    (folder / "two").symlink_to(folder / "one")  # absolute, inside
    (folder / "keys" / "up").symlink_to("..")
    assert read_file(folder / "two" / "up" / "one" / "a.json", root, 10) == b"A"


def test_a_link_loop_and_a_link_to_nothing_are_refused(tmp_path: Path) -> None:
    folder, root = _project(tmp_path)
    (folder / "a").symlink_to("b")
    (folder / "b").symlink_to("a")
    with pytest.raises(FileRefused, match="loop"):
        read_file(folder / "a", root, 10)
    (folder / "nothing").symlink_to("gone/away")
    with pytest.raises(FileRefused, match="nothing is a symbolic link that leads to nothing"):
        read_file(folder / "nothing", root, 10)  # never taken as no file
    with pytest.raises(FileRefused, match="leads to nothing"):
        file_status(folder / "nothing", root)
    with pytest.raises(FileRefused) as caught:  # never followed where links are refused
        read_file(folder / "nothing", Root(folder), 10)
    assert caught.value.link == "nothing"


def test_an_absolute_link_out_is_refused_even_into_a_sibling_with_a_longer_name(
        tmp_path: Path) -> None:
    """``/x/project-other`` starts with ``/x/project`` as text; it is not inside it."""
    folder, root = _project(tmp_path)
    other = tmp_path / "project-other"
    other.mkdir()
    (other / "k").write_bytes(SECRET)
    (folder / "k").symlink_to(other / "k")
    with pytest.raises(FileRefused) as caught:
        read_file(folder / "k", root, 100)
    assert caught.value.outside


def test_a_link_swapped_in_after_the_check_is_refused(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The file is judged, then replaced by a link to a secret before it is opened: the
    open does not follow it (O_NOFOLLOW, relative to the folder already open)."""
    folder, root = _project(tmp_path)
    out = outside(tmp_path)
    secret = out.add("secret.txt", b"secret")
    target = folder / "keys" / "k.pem"
    target.write_bytes(b"mine")
    judge = files_module._judge

    def swap(path: object, st: os.stat_result, limit: int, one_name: bool) -> None:
        judge(path, st, limit, one_name)  # type: ignore[arg-type]
        if target.exists() and not target.is_symlink():
            target.unlink()
            target.symlink_to(secret)

    monkeypatch.setattr(files_module, "_judge", swap)
    with pytest.raises(FileRefused, match="replaced while acap opened it"):
        read_file(target, root, 100)
    assert out.unchanged()


def test_a_folder_swapped_for_a_link_after_the_walk_reads_nothing_outside(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The walk holds each folder open: a folder renamed away and replaced by a link to
    outside after it was entered does not redirect the read."""
    folder, root = _project(tmp_path)
    out = outside(tmp_path)
    out.add("keys/k.pem", b"secret")
    (folder / "keys" / "k.pem").write_bytes(b"mine")
    judge = files_module._judge

    def swap(path: object, st: os.stat_result, limit: int, one_name: bool) -> None:
        judge(path, st, limit, one_name)  # type: ignore[arg-type]
        if not (folder / "keys").is_symlink():
            os.rename(folder / "keys", folder / "moved")
            (folder / "keys").symlink_to(out.folder / "keys")

    monkeypatch.setattr(files_module, "_judge", swap)
    assert read_file(folder / "keys" / "k.pem", root, 100) == b"mine"


def test_a_root_that_may_not_be_a_link_is_refused_when_it_is_one(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    out = outside(tmp_path)
    out.add("secret.txt", b"x")
    (site / "example.com").symlink_to(out.folder)
    with pytest.raises(FileRefused) as caught:
        read_file(site / "example.com" / "secret.txt",
                  Root(site / "example.com", "the host folder", "inside", may_be_link=False),
                  100)
    assert "the host folder is a symbolic link" in caught.value.reason


@pytest.mark.parametrize("form", FORMS)
def test_a_write_goes_through_no_link_and_replaces_no_special_file(tmp_path: Path,
                                                                   form: str) -> None:
    folder, root = _project(tmp_path)
    out = outside(tmp_path)
    path = folder / "keys" / "previous-keys.json"
    plant(path, form, out, b"before")
    if form == "hard-link-out":
        # A hard link is a file of the project: replacing it gives the project a new file
        # and leaves the outside one as it was.
        write_file(path, root, b"after")
        assert path.read_bytes() == b"after" and os.stat(path).st_nlink == 1
    else:
        with pytest.raises(FileRefused) as caught:
            write_file(path, root, b"after")
        assert caught.value.link is not None or caught.value.kind is not None
    assert out.unchanged()


def test_a_dangling_link_is_never_written_through(tmp_path: Path) -> None:
    folder, root = _project(tmp_path)
    out = outside(tmp_path)
    (folder / ".gitignore").symlink_to(out.folder / "made-by-acap")
    with pytest.raises(FileRefused, match="writes nothing through a link"):
        write_file(folder / ".gitignore", root, b"x")
    with pytest.raises(FileExistsError):
        write_file(folder / ".gitignore", root, b"x", exclusive=True)
    assert not (out.folder / "made-by-acap").exists()
    assert sorted(os.listdir(folder)) == [".gitignore", "keys"]  # no temporary file left


def test_a_write_makes_its_folders_replaces_in_one_rename_and_keeps_the_mode(
        tmp_path: Path) -> None:
    folder, root = _project(tmp_path)
    path = folder / "a" / "b" / "c.txt"
    write_file(path, root, b"one")
    os.chmod(path, 0o640)
    inode = os.stat(path).st_ino
    write_file(path, root, b"two")
    assert path.read_bytes() == b"two"
    assert os.stat(path).st_mode & 0o777 == 0o640
    assert os.stat(path).st_ino != inode  # a new file renamed over the old one
    write_file(path, root, b"three", mode=0o600)
    assert os.stat(path).st_mode & 0o777 == 0o600
    assert sorted(os.listdir(path.parent)) == ["c.txt"]


def test_an_exclusive_write_never_replaces_anything(tmp_path: Path) -> None:
    folder, root = _project(tmp_path)
    key = folder / ".acap" / "signing-key.pem"
    write_file(key, root, b"first", mode=0o600, exclusive=True)
    assert os.stat(key).st_mode & 0o777 == 0o600
    with pytest.raises(FileExistsError):
        write_file(key, root, b"second", exclusive=True)
    assert key.read_bytes() == b"first"
    assert sorted(os.listdir(key.parent)) == ["signing-key.pem"]


def test_a_write_outside_its_root_is_refused(tmp_path: Path) -> None:
    folder, root = _project(tmp_path)
    with pytest.raises(FileRefused) as caught:
        write_file(folder / ".." / "escaped", root, b"x")
    assert caught.value.outside
    assert not (tmp_path / "escaped").exists()


def test_rename_keeps_the_file_in_its_folder_and_replaces_nothing(tmp_path: Path) -> None:
    folder, root = _project(tmp_path)
    key = folder / "keys" / "k.pem"
    key.write_bytes(b"k")
    (folder / "keys" / "taken").write_bytes(b"t")
    with pytest.raises(FileExistsError):
        rename_file(key, folder / "keys" / "taken", root)
    rename_file(key, folder / "keys" / "k.1.old.pem", root)
    assert not key.exists() and (folder / "keys" / "k.1.old.pem").read_bytes() == b"k"
    (folder / "keys" / "l").symlink_to("taken")
    with pytest.raises(FileRefused):
        rename_file(folder / "keys" / "l", folder / "keys" / "m", root)


def test_file_status_sees_links_as_the_root_says(tmp_path: Path) -> None:
    folder, root = _project(tmp_path)
    (folder / "keys" / "a").write_bytes(b"12345")
    (folder / "b").symlink_to("keys/a")
    st = file_status(folder / "b", root)
    assert st is not None and st.st_size == 5
    strict = file_status(folder / "b", Root(folder))
    assert strict is not None and strict.st_size != 5  # the link itself
    assert file_status(folder / "missing" / "x", root) is None
    (folder / "out").symlink_to(tmp_path)
    with pytest.raises(FileRefused):
        file_status(folder / "out" / "x", root)


def test_the_root_of_a_path_named_on_the_command_line(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    here = tmp_path / "here"
    (here / "site").mkdir(parents=True)
    monkeypatch.chdir(here)
    assert given_root("site/card.json").folder == here
    assert given_root(here / "card.json").folder == here
    assert given_root("../elsewhere/card.json").folder == tmp_path / "elsewhere"
    assert given_root("/tmp/card.json").folder == Path("/tmp")
    # A link in the folder acap runs in leads nowhere out of it.
    out = outside(tmp_path)
    (here / "card.json").symlink_to(out.add("card.json", b"{}"))
    with pytest.raises(FileRefused) as caught:
        read_file("card.json", given_root("card.json"), 100)
    assert caught.value.outside


def test_read_regular_confines_by_real_path_and_walks_it_without_links(tmp_path: Path) -> None:
    """The older form, for batch tenants: a link into the folder from elsewhere is read;
    one out of it is refused, unread."""
    folder, _ = _project(tmp_path)
    (folder / "op.yaml").write_bytes(b"x: 1")
    (tmp_path / "elsewhere.yaml").symlink_to(folder / "op.yaml")
    assert read_regular(tmp_path / "elsewhere.yaml", 10, inside=[folder]) == b"x: 1"
    out = outside(tmp_path)
    (folder / "k").symlink_to(out.add("k", b"x"))
    with pytest.raises(FileRefused) as caught:
        read_regular(folder / "k", 100, inside=[folder])
    assert caught.value.outside


def test_a_move_that_may_not_replace_leaves_whatever_is_there(tmp_path: Path) -> None:
    """A publish adding a file: a file, or even a dangling link, someone put at the name
    meanwhile stays, and so does the staged file."""
    folder, root = _project(tmp_path)
    staged = folder / "stage" / "n.1"
    staged.parent.mkdir()
    staged.write_bytes(b"acap's")
    (folder / "www").mkdir()
    (folder / "www" / "taken.html").write_bytes(b"theirs")
    (folder / "www" / "dangling").symlink_to("nowhere")
    for name in ("taken.html", "dangling"):
        with pytest.raises(FileExistsError):
            move_file(staged, folder / "www" / name, root, replace=False)
    assert (folder / "www" / "taken.html").read_bytes() == b"theirs"
    assert os.readlink(folder / "www" / "dangling") == "nowhere"
    move_file(staged, folder / "www" / "new" / "page.html", root, replace=False)
    assert (folder / "www" / "new" / "page.html").read_bytes() == b"acap's"
    assert not staged.exists()


@pytest.mark.parametrize("there", ["same", "other bytes", "removed", "a link",
                                   "rewritten while read"])
def test_a_swap_replaces_only_the_bytes_the_caller_read(tmp_path: Path, there: str) -> None:
    """``swap_file`` puts a file over another only while that one holds the bytes read
    before; "rewritten while read": another writer rewrites it (same size) while
    ``swap_file`` reads it, and the look after the read sees it."""
    folder, root = _project(tmp_path)
    staged, dest = folder / "n.1", folder / "page.html"
    staged.write_bytes(b"new")
    dest.write_bytes(b"old")

    def same(data: bytes) -> bool:
        if there == "rewritten while read":
            dest.write_bytes(b"OLD")
        return data == b"old"
    if there == "other bytes":
        dest.write_bytes(b"theirs")
    if there == "removed":
        dest.unlink()
    if there == "a link":
        dest.unlink()
        dest.symlink_to(staged)
    if there == "same":
        swap_file(staged, dest, root, same, 100)
        assert dest.read_bytes() == b"new" and not staged.exists()
        return
    with pytest.raises(FileChanged) as caught:
        swap_file(staged, dest, root, same, 100)
    assert caught.value.path == str(dest)
    assert caught.value.reason == {"other bytes": "it changed", "removed": "it was removed",
                                   "a link": "it is a symbolic link now",
                                   "rewritten while read": "it changed"}[there]
    assert staged.read_bytes() == b"new"  # nothing moved
    if there != "removed":
        assert os.readlink(dest) == str(staged) if there == "a link" else \
            dest.read_bytes() in (b"theirs", b"OLD")


@pytest.mark.parametrize("base", ["project", "./project", "a/../project", "/", "", "."])
@pytest.mark.parametrize("named", [
    "key.pem", ".acap/signing-key.pem", "./key.pem", "keys/../key.pem", "../other/key.pem",
    "keys/../../other/key.pem", "/etc/key.pem", "", ".", "projectx/key.pem", "..",
])
def test_the_root_of_a_key_file_is_given_roots_answer(tmp_path: Path, base: str, named: str,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """OperatorConfig.root_of answers from the strings alone for a path written inside
    the project folder (issue 24): the very Root given_root gives, for every form."""
    from acap.load import OperatorConfig
    from acap.load._yaml import Loaded

    (tmp_path / "project").mkdir()
    monkeypatch.chdir(tmp_path)
    base_dir = Path(base)
    cfg = OperatorConfig(base_dir / "operator.yaml", Loaded(file="operator.yaml"))
    for path in (base_dir / named, Path(named)):
        expected = given_root(path, base=cfg.base_dir, name="the project folder")
        assert cfg.root_of(path) == expected, path
        assert cfg.root_of(path) == expected  # asked again: remembered
