"""Shared fixtures. Tests generate their own keys; nothing secret is committed."""

from __future__ import annotations

import shutil
import socket
from collections.abc import Callable, Iterator
from pathlib import Path
from unittest import mock

import pytest

from support.paths import EXAMPLE


@pytest.fixture(autouse=True)
def _no_env_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """A developer's ACAP_SIGNING_KEY never leaks into a test."""
    monkeypatch.delenv("ACAP_SIGNING_KEY", raising=False)


@pytest.fixture
def offline() -> Iterator[None]:
    """No host name resolves (socket.getaddrinfo fails as for an unknown name): fetches
    fail at once, with no network."""
    def no_dns(*_args: object, **_kwargs: object) -> None:
        raise socket.gaierror(-2, "Name or service not known")

    with mock.patch("socket.getaddrinfo", no_dns):
        yield


@pytest.fixture
def example(tmp_path: Path) -> Path:
    """A copy of the bundled operator.yaml in an empty folder; returns its path."""
    target = tmp_path / "operator.yaml"
    shutil.copyfile(EXAMPLE, target)
    return target


@pytest.fixture
def write_operator(tmp_path: Path) -> Callable[[str], Path]:
    """Write operator.yaml text into a fresh folder and return the file's path."""

    def write(text: str, name: str = "operator.yaml") -> Path:
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        return path

    return write
