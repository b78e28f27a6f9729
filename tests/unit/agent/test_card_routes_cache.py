"""The agent's card and JWKS routes (acap.agent.card_routes) as an A2A client caches them
(A2A §8.6): the example chapel agent on 127.0.0.1 sends a strong ETag of the very bytes it
serves and Cache-Control with a max-age, answers a matching If-None-Match with 304 and the
same headers (RFC 9110 §15.4.5), and passes `acap check --live` with no cache warning."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from acap.agent import BuiltCard, card_routes
from support.agents import build_example, example_module, serving
from support.cards import acap

PATHS = {"card": "/.well-known/agent-card.json", "jwks": "/.well-known/jwks.json"}


@pytest.fixture(scope="module")
def chapel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    config = build_example(tmp_path_factory.mktemp("chapel"))
    with serving(example_module().app(config)) as base:
        yield base, config


@pytest.mark.parametrize("what", sorted(PATHS))
def test_a_revalidation_is_answered_304_with_the_same_headers(chapel: tuple[str, Path],
                                                              what: str) -> None:
    base, config = chapel
    site = config.parent / "site/example.com"
    full = httpx.get(base + PATHS[what])
    assert full.status_code == 200
    assert full.content == (site / PATHS[what].lstrip("/")).read_bytes()
    etag = full.headers["etag"]
    assert etag == '"' + hashlib.sha256(full.content).hexdigest()[:32] + '"'
    assert full.headers["cache-control"] == "public, max-age=600"
    assert full.headers["access-control-allow-origin"] == "*"
    for header in (etag, f"W/{etag}", f'"older", {etag}', "*"):
        again = httpx.get(base + PATHS[what], headers={"If-None-Match": header})
        assert again.status_code == 304, header
        assert again.content == b""
        assert {k: again.headers[k] for k in ("etag", "cache-control",
                                              "access-control-allow-origin")} == \
            {"etag": etag, "cache-control": "public, max-age=600",
             "access-control-allow-origin": "*"}
    changed = httpx.get(base + PATHS[what], headers={"If-None-Match": '"older"'})
    assert changed.status_code == 200 and changed.content == full.content


def test_the_card_and_the_jwks_have_their_own_tags(chapel: tuple[str, Path]) -> None:
    base, _ = chapel
    card, jwks = (httpx.get(base + p).headers["etag"] for p in PATHS.values())
    assert card != jwks
    assert httpx.get(base + PATHS["jwks"], headers={"If-None-Match": card}).status_code == 200


def test_max_age_is_the_callers_and_zero_is_no_cache(chapel: tuple[str, Path]) -> None:
    from starlette.applications import Starlette

    built = BuiltCard.from_project(chapel[1])
    for seconds, sent in ((3600, "public, max-age=3600"), (0, "no-cache")):
        with serving(Starlette(routes=card_routes(built, max_age=seconds))) as base:
            assert httpx.get(base + PATHS["card"]).headers["cache-control"] == sent


def test_the_live_check_of_the_agent_finds_its_cache_headers(chapel: tuple[str, Path]) -> None:
    """What `acap check --live` said of the agent before: two LIVE-ETAG warnings."""
    base, config = chapel
    out = acap("check", "https://example.com/.well-known/agent-card.json", "--live",
               "--connect-to", f"example.com={base}", "--site-dir",
               str(config.parent / "site"), "--format", "json")
    doc = json.loads(out.stdout)
    assert [f["rule"] for f in doc["findings"]] == [], doc["findings"]
    assert doc["ok"] is True
