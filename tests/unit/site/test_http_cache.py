"""acap.site's conditional GET (RFC 9110 §13.1.2): which If-None-Match values a strong
ETag of the served bytes matches, shared by acap serve and the agent's card routes."""

from __future__ import annotations

import hashlib

import pytest

from acap.site import not_modified, strong_etag

TAG = strong_etag(b"{}")


def test_the_tag_is_the_bytes_digest() -> None:
    assert '"' + hashlib.sha256(b"{}").hexdigest()[:32] + '"' == TAG
    assert strong_etag(b"{ }") != TAG


@pytest.mark.parametrize("header", [
    TAG, f"W/{TAG}", "*", f'"other", {TAG}', f'"a,b", {TAG}', f'"a",,{TAG}',
    f" , {TAG} ,", f'"a",\t{TAG}'])
def test_a_listed_tag_or_a_star_is_not_modified(header: str) -> None:
    assert not_modified(header, TAG)


@pytest.mark.parametrize("header", [
    None, "", '"other"', TAG[:-2] + '"', f"{TAG} junk", f'"a" {TAG}', TAG.strip('"'),
    f"w/{TAG}", '"a", *'])
def test_anything_else_sends_the_whole_answer(header: str | None) -> None:
    assert not not_modified(header, TAG)
