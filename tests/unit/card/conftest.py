"""Fixtures of the differential suites (test_differential.py, test_differential_handmade.py):
one signing key per algorithm, and one node process running @a2a-js/sdk, per module."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from support.sdks import JsSdk, Key, make_keys


@pytest.fixture(scope="module")
def keys() -> dict[str, Key]:
    """One key per algorithm of :data:`support.sdks.ALGS` (a module may define its own)."""
    return make_keys()


@pytest.fixture(scope="module")
def js() -> Iterator[JsSdk]:
    """The @a2a-js/sdk side: one node process for the module."""
    sdk = JsSdk()
    yield sdk
    sdk.close()
