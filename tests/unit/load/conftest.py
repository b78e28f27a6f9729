"""Fixtures of the fetch tests: a test CA made here, and that CA trusted."""

from __future__ import annotations

import pytest

from support.https_servers import LocalCA, make_ca


@pytest.fixture(scope="module")
def ca(tmp_path_factory: pytest.TempPathFactory) -> LocalCA:
    """A certificate authority and a 127.0.0.1 server certificate, made for this module."""
    return make_ca(tmp_path_factory.mktemp("ca"))


@pytest.fixture
def trusted(ca: LocalCA, monkeypatch: pytest.MonkeyPatch) -> LocalCA:
    """The test CA is trusted (Python's default TLS context reads SSL_CERT_FILE)."""
    monkeypatch.setenv("SSL_CERT_FILE", str(ca.ca_file))
    return ca
