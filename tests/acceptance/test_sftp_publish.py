"""acap publish over SFTP to Debian's OpenSSH server on 127.0.0.1 (issue 15, "SFTP").

Publish, republish unchanged (nothing uploaded), a change, a failed connection (nothing
changed), an unknown host key (refused before logging in), a changed host key, a refused
login, an upload cut in the middle, ssh-agent and the usual ~/.ssh files, a folder acap
owns whole, and a link on acap's way. The server's folder is on this machine, so the tests
look at it directly.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from acap.cli import cli, report_text
from acap.publisher import PublishResult, publish
from acap.publisher import _sftp as sftp_publish
from support.publishing import change, do_build, project, served, snapshot, trial
from support.servers import Sshd, free_port, keygen, ssh_agent

WEBSITE = {"index.html": b"<!doctype html><title>Praxis</title>\n",
           "impressum.html": b"<!doctype html><title>Impressum</title>\n",
           "css/site.css": b"body { font-family: serif }\n",
           ".htaccess": b"RewriteEngine On\n"}


@pytest.fixture
def server(sshd_server: Sshd, no_users_ssh: None) -> Sshd:
    """The run's sshd; the tester's own ssh-agent and ~/.ssh never take part."""
    return sshd_server


def _sftp_target(config: Path, server: Sshd, remote: Path, **extra: Any) -> None:
    settings = {"host": "127.0.0.1", "port": server.port, "user": server.user,
                "path": str(remote), "knownHosts": str(server.known_hosts),
                "key": str(server.key), **extra}
    settings = {k: v for k, v in settings.items() if v is not None}
    change(config, lambda d: d["hosts"]["example.com"].__setitem__("publish",
                                                                   {"sftp": settings}))


def _website(folder: Path) -> dict[str, bytes]:
    for rel, data in WEBSITE.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_bytes(data)
    return snapshot(folder)


def _stats(folder: Path) -> dict[str, tuple[int, int]]:
    return {p.relative_to(folder).as_posix(): (p.stat().st_ino, p.stat().st_mtime_ns)
            for p in folder.rglob("*") if p.is_file()}


def _built(config: Path, hosting: str = "apache") -> dict[str, bytes]:
    """What acap publishes of example.com to a folder ``hosting`` serves (the practice's
    website has an ``.htaccess``: Apache)."""
    return served(config, "example.com", hosting)


def _rules(res: PublishResult) -> list[str]:
    return [f.rule for f in res.report.errors]


def _leftovers(folder: Path) -> list[str]:
    """acap's staged files, in or beside the folder."""
    return sorted(p.name for p in folder.parent.rglob("*")
                  if ".acap-new-" in p.name or ".acap-stage" in str(p))


def test_publish_republish_and_a_change_over_sftp(tmp_path: Path, server: Sshd) -> None:
    config = project(tmp_path)
    remote = tmp_path / "srv/praxis/public_html"
    website = _website(remote)
    _sftp_target(config, server, remote)
    do_build(config)
    lines: list[str] = []
    res = publish(trial(config=config, progress=lines.append))
    assert res.ok, report_text(res.report)
    [host] = res.hosts
    where = f"sftp://{server.user}@127.0.0.1:{server.port}{remote}"
    assert (host.outcome, host.target.describe()) == ("published", where)
    assert snapshot(remote) == {**website, **_built(config)}  # the website's files as they were
    assert all((remote / rel).stat().st_mode & 0o777 == 0o644 for rel in _built(config))
    record = remote.parent / ".public_html.acap-published.json"
    assert sorted(json.loads(record.read_text("utf-8"))["files"]) == sorted(_built(config))
    assert _leftovers(remote) == []

    # Unchanged: nothing uploaded, no file touched.
    before = _stats(remote)
    lines.clear()
    again = publish(trial(config=config, progress=lines.append))
    assert again.ok and again.hosts[0].outcome == "up to date"
    assert "example.com: up to date: nothing written" in lines
    assert _stats(remote) == before

    # A change: the changed files are replaced, the others are left as they were.
    change(config, lambda d: d["agent"].__setitem__("version", "2.0.0"))
    do_build(config)
    third = publish(trial(config=config))
    assert third.ok, report_text(third.report)
    plan = third.hosts[0].plan
    assert plan is not None and plan.changed == [".well-known/agent-card.json"]
    assert snapshot(remote) == {**website, **_built(config)}
    after = _stats(remote)
    assert after[".well-known/jwks.json"] == before[".well-known/jwks.json"]
    assert after[".well-known/agent-card.json"] != before[".well-known/agent-card.json"]


def test_a_failed_connection_changes_nothing(tmp_path: Path, server: Sshd) -> None:
    config = project(tmp_path)
    remote = tmp_path / "www"
    website = _website(remote)
    port = free_port()  # nothing listens there
    _sftp_target(config, server, remote, port=port)
    do_build(config)
    res = publish(trial(config=config))
    assert _rules(res) == ["PUBLISH-FAILED"]
    assert res.report.errors[0].message.startswith(
        f"example.com: could not reach SFTP on 127.0.0.1 port {port}: ")
    assert res.report.errors[0].message.endswith("; nothing was changed")
    assert snapshot(remote) == website


def _fingerprint(pub: Path) -> str:
    out = subprocess.run(["ssh-keygen", "-l", "-E", "sha256", "-f", str(pub)],
                         capture_output=True, text=True, check=True).stdout
    return out.split()[1]


def test_an_unknown_host_key_is_refused_before_logging_in(tmp_path: Path, server: Sshd) -> None:
    config = project(tmp_path)
    remote = tmp_path / "www"
    website = _website(remote)
    empty = tmp_path / "known_hosts"
    empty.write_text("", encoding="utf-8")
    _sftp_target(config, server, remote, knownHosts=str(empty))
    do_build(config)
    logins = server.logins()
    res = publish(trial(config=config))
    assert _rules(res) == ["PUBLISH-HOST-KEY"]
    err = res.report.errors[0]
    fp = _fingerprint(server.dir / "host_key.pub")
    assert err.message == (f"example.com: the server [127.0.0.1]:{server.port} is not in {empty} "
                           f"(its key is {fp}): acap cannot tell it is the right server, so it "
                           "did not log in")
    assert err.hint == ("compare the server's key with the fingerprint your hosting provider "
                        f"publishes, then add it: ssh-keyscan -p {server.port} 127.0.0.1 >> "
                        f"{empty} (or log in once with ssh, which asks you)")
    assert server.logins() == logins  # the key was never offered
    assert snapshot(remote) == website


def test_a_changed_host_key_is_refused(tmp_path: Path, server: Sshd) -> None:
    config = project(tmp_path)
    remote = tmp_path / "www"
    other = keygen(tmp_path / "other_host_key")
    kind, b64 = other.with_suffix(".pub").read_text().split()[:2]
    known = tmp_path / "known_hosts"
    known.write_text(f"[127.0.0.1]:{server.port} {kind} {b64}\n", encoding="utf-8")
    _sftp_target(config, server, remote, knownHosts=str(known))
    do_build(config)
    res = publish(trial(config=config))
    assert _rules(res) == ["PUBLISH-HOST-KEY"]
    msg = res.report.errors[0].message
    assert f"sent another key ({_fingerprint(server.dir / 'host_key.pub')})" in msg
    assert f"holds for it ({_fingerprint(other.with_suffix('.pub'))})" in msg
    assert "this can be someone between you and the server" in msg
    assert not remote.exists()


def test_a_refused_login_says_what_to_do(tmp_path: Path, server: Sshd) -> None:
    config = project(tmp_path)
    stranger = keygen(tmp_path / "stranger")
    _sftp_target(config, server, tmp_path / "www", key=str(stranger))
    do_build(config)
    res = publish(trial(config=config))
    assert _rules(res) == ["PUBLISH-FAILED"]
    err = res.report.errors[0]
    assert err.message.startswith(f"example.com: 127.0.0.1 refused the login of {server.user} "
                                  f"with the key {stranger}")
    assert "add your public key to the server" in (err.hint or "")
    assert not (tmp_path / "www").exists()


def test_an_upload_cut_in_the_middle_changes_nothing(tmp_path: Path, server: Sshd,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    config = project(tmp_path)
    remote = tmp_path / "www/praxis"
    website = _website(remote)
    _sftp_target(config, server, remote)
    do_build(config)
    assert publish(trial(config=config)).ok
    before = snapshot(remote)
    record = (remote.parent / ".praxis.acap-published.json").read_bytes()
    change(config, lambda d: d["operator"].__setitem__("name", "Zahnarztpraxis Beispiel"))
    do_build(config)
    sent: list[str] = []
    real = sftp_publish._upload

    def flaky(client: Any, path: str, data: bytes) -> None:
        if not data.startswith(b'{\n "publishedBy"') and not path.endswith("record.old"):
            raise OSError(28, "No space left on device")
        real(client, path, data)
        sent.append(path)

    monkeypatch.setattr(sftp_publish, "_upload", flaky)
    res = publish(trial(config=config))
    # the copy of the old record and the record of what goes up, into the staging folder
    # beside the served one; then the disk is full for the first file
    stage = f"{remote.parent}/.praxis.acap-stage/"
    assert len(sent) == 2 and all(p.startswith(stage) for p in sent)
    assert _rules(res) == ["PUBLISH-FAILED"] and "No space left" in res.report.errors[0].message
    assert snapshot(remote) == before and _leftovers(remote) == []
    assert website.items() <= before.items()
    # The record is as it was too (with the digests: a file edited by hand later is
    # still seen as edited), and no copy of it is left.
    assert (remote.parent / ".praxis.acap-published.json").read_bytes() == record
    assert sorted(p.name for p in remote.parent.iterdir()) == [".praxis.acap-published.json",
                                                                "praxis"]
    monkeypatch.undo()
    assert publish(trial(config=config)).ok
    assert snapshot(remote) == {**website, **_built(config)}


def test_ssh_agent_logs_in_when_no_key_is_named(tmp_path: Path, server: Sshd,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    config = project(tmp_path)
    remote = tmp_path / "www"
    _sftp_target(config, server, remote, key=None)
    do_build(config)
    with ssh_agent(tmp_path, server.key) as sock:
        monkeypatch.setenv("SSH_AUTH_SOCK", sock)
        res = publish(trial(config=config))
    assert res.ok, report_text(res.report)
    assert snapshot(remote) == _built(config, "plain")


def test_sftp_url_on_the_command_line_with_the_usual_ssh_files(tmp_path: Path,
                                                               server: Sshd) -> None:
    """``--sftp``, with ~/.ssh/known_hosts and ~/.ssh/id_ed25519 as ssh would use them."""
    config = project(tmp_path)
    do_build(config)
    ssh = Path(os.environ["HOME"]) / ".ssh"
    ssh.mkdir(mode=0o700)
    (ssh / "known_hosts").write_bytes(server.known_hosts.read_bytes())
    (ssh / "id_ed25519").write_bytes(server.key.read_bytes())
    (ssh / "id_ed25519").chmod(0o600)
    remote = tmp_path / "www"
    url = f"sftp://{server.user}@127.0.0.1:{server.port}{remote}"
    res = CliRunner().invoke(cli, ["publish", "--create", "--allow-example-hosts",
                                   "-c", str(config), "--sftp", url])
    assert res.exit_code == 0, res.output
    assert f"example.com: published ({url})" in res.stdout
    assert f"example.com: reading {url}" in res.stderr
    assert snapshot(remote) == _built(config, "plain")
    bad = CliRunner().invoke(cli, ["publish", "--create", "--allow-example-hosts",
                                   "-c", str(config), "--sftp", f"sftp://127.0.0.1{remote}"])
    assert bad.exit_code == 1
    assert "--sftp sftp://127.0.0.1" in bad.stderr and "it names no login" in bad.stderr


def test_a_folder_acap_owns_whole_over_sftp(tmp_path: Path, server: Sshd) -> None:
    config = project(tmp_path, overlay=False)
    remote = tmp_path / "www"
    website = _website(remote)
    _sftp_target(config, server, remote)
    do_build(config)
    res = publish(trial(config=config))
    assert _rules(res) == ["PUBLISH-FOREIGN"]
    msg = res.report.errors[0].message
    assert "holds 4 files that acap did not publish there" in msg and ".htaccess" in msg
    assert "overlay: true" in (res.report.errors[0].hint or "")
    assert snapshot(remote) == website
    for rel in WEBSITE:
        (remote / rel).unlink()
    res = publish(trial(config=config, hosting="github-pages"))
    assert res.ok, report_text(res.report)
    assert snapshot(remote) == _built(config, "github-pages")
    # What acap published and builds no more goes; nothing else is there to go.
    change(config, lambda d: d["hosts"]["example.com"].pop("cname"))
    do_build(config)
    res = publish(trial(config=config, hosting="github-pages"))
    assert res.ok and res.hosts[0].plan is not None and res.hosts[0].plan.removed == ["CNAME"]
    assert snapshot(remote) == _built(config, "github-pages")


def test_a_link_on_acaps_way_on_the_server_is_refused(tmp_path: Path, server: Sshd) -> None:
    config = project(tmp_path)
    remote = tmp_path / "www"
    _website(remote)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (remote / ".well-known").symlink_to(elsewhere)
    _sftp_target(config, server, remote)
    do_build(config)
    res = publish(trial(config=config))
    assert _rules(res) == ["PUBLISH-TARGET"]
    assert res.report.errors[0].message == (
        f"example.com: {remote}/.well-known on the server is a symbolic link: acap reads, "
        "replaces and deletes only regular files and folders, and never writes through a link")
    assert list(elsewhere.iterdir()) == []


def test_a_folder_whose_parent_acap_may_not_write_is_refused_before_anything_goes_up(
        tmp_path: Path, server: Sshd) -> None:
    """acap's record lies beside the folder; where the server forbids that, nothing is
    uploaded and the message says where and why. (The server runs as root here, so the
    parent is made immutable to be out of its reach: chattr +i.)"""
    config = project(tmp_path)
    parent = tmp_path / "locked"
    remote = parent / "public_html"
    website = _website(remote)
    _sftp_target(config, server, remote)
    do_build(config)
    locked = subprocess.run(["chattr", "+i", str(parent)], capture_output=True, check=False)
    if locked.returncode != 0:  # a file system without attributes: a folder we cannot enter
        pytest.fail(f"chattr +i failed here: {locked.stderr!r}")
    try:
        res = publish(trial(config=config))
    finally:
        subprocess.run(["chattr", "-i", str(parent)], check=True)
    assert _rules(res) == ["PUBLISH-FAILED"]
    msg = res.report.errors[0].message
    assert msg.startswith(f"example.com: acap may not write {parent}/.public_html.acap-stage "
                          "on the server and .public_html.acap-published.json beside "
                          f"{remote}, where it stages the files and keeps its record")
    assert msg.endswith("; nothing was changed")
    assert snapshot(remote) == website
