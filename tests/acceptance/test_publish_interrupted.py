"""A publish interrupted in the middle of its upload, on every store (issue 20).

The trial's case: Ctrl-C during an SFTP upload left ``.acap-new-...`` files in the public
web root (Apache served them) and no later publish removed them. Here ``acap publish`` runs
as its own process over a slow connection (a relay pacing the bytes to OpenSSH, for SFTP
and for git over ssh; a folder on this machine has no connection, so its writes are
paced), and is stopped mid-upload by Ctrl-C (SIGINT to its process group, as a terminal
sends it), ``kill`` (SIGTERM) or ``kill -9``. Afterwards nothing acap was writing is in the
served folder, every file of the website is as it was, and the next publish completes
and leaves nothing behind.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from acap.cli import report_text
from acap.publisher import publish
from acap.publisher._fs import STAGED
from support.paths import REPO
from support.publishing import branch_tip, change, do_build, project
from support.servers import Sshd, slow_link
from support.stores import STORES, WEBSITE, Harness

SIGNALS = {"INT": signal.SIGINT, "TERM": signal.SIGTERM, "KILL": signal.SIGKILL}
#: Bytes a second up and down the slow connection (a few seconds to upload the pages).
UP, DOWN = 6000, 200_000


def _pages_on_the_website(config: Path) -> None:
    """personEntry pages on the practice's own host: several files to upload there."""
    def move(d: dict[str, object]) -> None:
        for s in d["skills"]:  # type: ignore[attr-defined]
            if s["id"] in ("service-pricing", "arrangement-booking"):
                s["personEntry"] = "https://example.com/" + s["id"]
    change(config, move)


def _known(server: Sshd, port: int) -> Path:
    """The run's known_hosts, with the server's key for the relay's port too (the key is
    the same server's: the relay only paces the bytes)."""
    with server.known_hosts.open("a", encoding="utf-8") as fh:
        fh.write(f"[127.0.0.1]:{port} {server.host_pub}\n")
    return server.known_hosts


@contextmanager
def _slow_command(h: Harness, server: Sshd, monkeypatch: pytest.MonkeyPatch
                  ) -> Iterator[list[str]]:
    """The ``acap publish`` command line (and environment) that publishes example.com to
    ``h`` over a slow connection (the target given on the command line: operator.yaml, and
    so the build, stay as they are)."""
    base = ["publish", "--allow-example-hosts", "-c", str(h.config)]
    if h.kind == "dir":
        monkeypatch.setenv("ACAP_TEST_SLOW", "0.4")
        yield [sys.executable, str(REPO / "tests/support/slow_acap.py"), *base,
               "--host", "example.com"]
        return
    with slow_link(server.port, UP, DOWN) as port:
        known = _known(server, port)
        address = f"{server.user}@127.0.0.1:{port}{h.root}"
        if h.kind == "sftp":
            yield [sys.executable, "-m", "acap", *base, "--sftp", f"sftp://{address}"]
            return
        monkeypatch.setenv("GIT_SSH_COMMAND", (
            f"ssh -F /dev/null -i {server.key} -o IdentitiesOnly=yes -o BatchMode=yes "
            f"-o UserKnownHostsFile={known} -o StrictHostKeyChecking=yes"))
        yield [sys.executable, "-m", "acap", *base, "--remote", f"ssh://{address}"]


def _staging(h: Harness) -> Path:
    return h.root.parent / f".{h.root.name}.acap-stage"


def _uploading(h: Harness, said: list[str]) -> Callable[[], bool]:
    """True once the publish is uploading: a file staged beside the folder; for git, the
    push under way."""
    if h.kind == "branch":
        return lambda: any("pushing" in line for line in said)
    def staged() -> bool:
        with contextlib.suppress(FileNotFoundError):  # the folder may go meanwhile
            return any((m := STAGED.fullmatch(p.name)) is not None
                       and m["kind"].startswith("new.") for p in _staging(h).iterdir())
        return False
    return staged


def _wait(until: Callable[[], bool], proc: subprocess.Popen[str], said: list[str]) -> None:
    deadline = time.monotonic() + 90
    while not until():
        assert proc.poll() is None, "acap ended before its upload: " + "".join(said)
        assert time.monotonic() < deadline, "no upload began: " + "".join(said)
        time.sleep(0.02)


def _temp_repos_of(pid: int) -> list[Path]:
    """The git store's temporary repositories of the acap process ``pid``."""
    import tempfile

    out = []
    for folder in Path(tempfile.gettempdir()).glob("acap-publish-*"):
        try:
            if (folder / "pid").read_text(encoding="ascii") == str(pid):
                out.append(folder)
        except OSError:
            continue
    return out


@pytest.mark.parametrize("sig", list(SIGNALS))
@pytest.mark.parametrize("kind", STORES)
def test_a_publish_interrupted_mid_upload_leaves_nothing_served_and_the_next_completes(
        kind: str, sig: str, tmp_path: Path, sshd_server: Sshd, no_users_ssh: None,
        monkeypatch: pytest.MonkeyPatch) -> None:
    config = project(tmp_path)
    _pages_on_the_website(config)
    root = tmp_path / ("pages.git" if kind == "branch" else "srv/praxis")
    h = Harness(kind, config, root, sshd_server)
    h.website()
    do_build(config)
    assert publish(h.options()).ok
    before, record = h.served(), h.record()
    tip = branch_tip(root) if kind == "branch" else None
    change(config, lambda d: d["operator"].__setitem__("name", "Zahnarztpraxis Beispiel"))
    do_build(config)
    monkeypatch.setenv("PYTHONPATH", str(REPO / "tests"))

    said: list[str] = []
    with _slow_command(h, sshd_server, monkeypatch) as argv:
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, start_new_session=True)
        reader = threading.Thread(target=lambda: said.extend(proc.stderr or []), daemon=True)
        reader.start()
        _wait(_uploading(h, said), proc, said)
        if sig == "INT":  # Ctrl-C: the terminal signals the whole process group
            os.killpg(proc.pid, signal.SIGINT)
        else:
            os.kill(proc.pid, SIGNALS[sig])
        code = proc.wait(90)
        reader.join(10)
    assert code == {"INT": 130, "TERM": 143, "KILL": -9}[sig], "".join(said)
    if sig != "KILL":
        assert "interrupted: stopped before it was done" in "".join(said)
    served = h.served()
    assert {rel: served.get(rel) for rel in WEBSITE} == WEBSITE  # the website, byte for byte
    assert [p for p in served if ".acap-" in p] == []  # nothing of acap's upload is served
    if kind == "branch":  # git moves the branch all at once, or not at all
        assert branch_tip(root) == tip or served[".well-known/agent-card.json"] == \
            (config.parent / "site/example.com/.well-known/agent-card.json").read_bytes()
    else:
        assert served == before
        if sig != "KILL":  # rolled back: the record as it was, nothing staged left
            assert h.record() == record
            assert not _staging(h).exists(), sorted(os.listdir(_staging(h)))
    left = _temp_repos_of(proc.pid)

    again = publish(h.options())
    assert again.ok, report_text(again.report)
    served = h.served()
    assert {rel: served.get(rel) for rel in WEBSITE} == WEBSITE
    assert served[".well-known/agent-card.json"] == \
        (config.parent / "site/example.com/.well-known/agent-card.json").read_bytes()
    assert not _staging(h).exists() and [p for p in served if ".acap-" in p] == []
    assert not [p for p in left if p.exists()]  # a killed git publish's repository swept
