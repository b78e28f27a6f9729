"""Fixtures of the acceptance tests that start servers: one OpenSSH server for every
module that publishes over SFTP."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from support.servers import Sshd, sshd


@pytest.fixture(scope="session")
def sshd_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sshd]:
    """Debian's sshd on 127.0.0.1 for the whole run (see :func:`support.servers.sshd`)."""
    with sshd(tmp_path_factory.mktemp("sshd")) as s:
        yield s


@pytest.fixture
def no_users_ssh(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The tester's own ssh-agent and ~/.ssh never take part."""
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
