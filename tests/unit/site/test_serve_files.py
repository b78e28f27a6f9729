"""acap serve serves only regular files whose path, links followed, is inside the host folder
(issue 22): a folder link ``site/<host>/d -> /outside`` served ``/outside/secret.txt`` with
status 200, and so did a host folder that was itself a link."""

from __future__ import annotations

import http.client
import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from acap.site import PreviewServer, start_preview
from acap.site._preview import watched_files
from support.files import SECRET, Outside, outside, plant

HOST = "example.com"


@pytest.fixture
def site(tmp_path: Path) -> Iterator[tuple[PreviewServer, Path, Outside]]:
    site = tmp_path / "project" / "site"
    (site / HOST / "d").mkdir(parents=True)
    (site / HOST / "index.html").write_bytes(b"<p>home</p>")
    (site / HOST / "404.html").write_bytes(b"<p>not here</p>")
    (site / HOST / "d" / "page.html").write_bytes(b"<p>page</p>")
    server = start_preview(site, port=0)
    try:
        yield server, site / HOST, outside(tmp_path)
    finally:
        server.stop()


def _get(server: PreviewServer, path: str, host: str = HOST) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    conn.request("GET", path, headers={"Host": host})
    resp = conn.getresponse()
    out = resp.status, resp.read()
    conn.close()
    return out


@pytest.mark.parametrize("form", ["link-last-out", "link-middle-out", "fifo", "device"])
def test_what_leads_out_or_is_no_regular_file_is_refused_unread(
        site: tuple[PreviewServer, Path, Outside], form: str) -> None:
    server, host, out = site
    plant(host / "d" / "secret.txt", form, out, b"outside page")
    status, body = _get(server, "/d/secret.txt")  # a FIFO or a device answers at once
    assert status == 403
    assert SECRET not in body and b"outside page" not in body
    reason = {"fifo": b"named pipe (FIFO)", "device": b"device"}.get(
        form, b"symbolic link that leads out of the host folder example.com")
    if form == "device" and (host / "d" / "secret.txt").is_symlink():
        reason = b"leads out of the host folder"
    assert b"acap serve: /d/secret.txt is not served: " in body and reason in body
    assert out.unchanged()


@pytest.mark.parametrize("form", ["link-last-in", "link-middle-in"])
def test_a_link_that_stays_in_the_host_folder_is_served(
        site: tuple[PreviewServer, Path, Outside], form: str) -> None:
    server, host, out = site
    plant(host / "d" / "notes.txt", form, out, b"inside page")
    assert _get(server, "/d/notes.txt") == (200, b"inside page")
    assert _get(server, "/d/page") == (200, b"<p>page</p>")  # page.html moved along


def test_a_link_into_another_host_folder_is_out_of_this_one(
        site: tuple[PreviewServer, Path, Outside]) -> None:
    server, host, _ = site
    other = host.parent / "other.example"
    other.mkdir()
    (other / "private.txt").write_bytes(b"other's")
    (host / "x.txt").symlink_to(other / "private.txt")
    status, body = _get(server, "/x.txt")
    assert status == 403 and b"other's" not in body


def test_a_host_folder_that_is_a_link_is_no_host(
        site: tuple[PreviewServer, Path, Outside]) -> None:
    server, host, out = site
    out.add("secret.txt", b"outside")
    (host.parent / "evil.example").symlink_to(out.folder)
    status, body = _get(server, "/secret.txt", "evil.example")
    assert status == 404 and SECRET not in body
    assert b"no such host here" in body and b"evil.example" not in body
    assert out.unchanged()


def test_a_404_page_that_leads_out_is_not_shown(
        site: tuple[PreviewServer, Path, Outside]) -> None:
    server, host, out = site
    (host / "404.html").unlink()
    (host / "404.html").symlink_to(out.add("404.html", b"<p>outside</p>"))
    status, body = _get(server, "/missing")
    assert status == 404 and body == b"404 Not Found\n"


def test_the_watcher_never_opens_a_fifo_or_follows_a_link_out(tmp_path: Path) -> None:
    """It read each watched file whole: operator.private.yaml as a FIFO hung it, a
    template linked out of the project was read."""
    project = tmp_path / "project"
    (project / "templates").mkdir(parents=True)
    config = project / "operator.yaml"
    config.write_bytes(b"operator:\n  name: x\n")
    os.mkfifo(project / "operator.private.yaml")
    out = outside(tmp_path)
    (project / "templates" / "base.html").symlink_to(out.add("base.html", b"x"))
    (project / "templates" / "own.html").write_bytes(b"mine")
    got: list[dict[Path, tuple[int, int, int]]] = []
    t = threading.Thread(target=lambda: got.append(watched_files(config)), daemon=True)
    t.start()
    t.join(10)
    assert not t.is_alive(), "the watcher waits on a FIFO"
    seen = got[0]
    assert seen[project / "operator.private.yaml"][2] == 0
    assert seen[project / "templates" / "base.html"][2] == 0  # not read
    assert seen[project / "templates" / "own.html"][2] != 0
    assert out.unchanged()
