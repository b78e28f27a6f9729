"""``acap probe`` cannot be turned against its user (issue 19 item 7): a gzip bomb costs at
most the cap (peak memory measured in a child process, unary and SSE), a trickling stream
is cut at --timeout, an agent's escape bytes reach no format raw (JUnit stays XML), and
what the deadline cut off is "not run", never "ok"."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import zlib
from collections.abc import AsyncIterator, Iterator
from typing import Any
from xml.etree import ElementTree

import pytest
from click.testing import CliRunner
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from acap.agent import BuiltCard, card_routes
from acap.agent._probe_net import MAX_RESPONSE
from acap.cli import cli
from support.agents import build_example, connect_args, probe_json, serving
from support.paths import REPO

CARD = "https://example.com"
#: 980 MiB of zeros, gzipped as one member: 993 KiB, under the 1 MiB the probe reads.
BOMB_MIB = 980


def gzip_bomb(mib: int = BOMB_MIB) -> bytes:
    """``mib`` MiB of zeros as one gzip member, made without compressing them all: after a
    full flush deflate's output for the same input repeats, so one block stands for all."""
    zero = b"\0" * (1 << 20)
    c = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    block = c.compress(zero) + c.flush(zlib.Z_FULL_FLUSH)
    crc = 0
    for _ in range(mib):
        crc = zlib.crc32(zero, crc)
    return (b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff" + block * mib + c.flush()
            + struct.pack("<II", crc, (mib << 20) & 0xFFFFFFFF))


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> BuiltCard:
    return BuiltCard.from_project(build_example(tmp_path_factory.mktemp("bounds")))


def _agent(built: BuiltCard, answer: Any) -> Starlette:
    return Starlette(routes=[*card_routes(built), Route("/a2a/v1", answer, methods=["POST"])])


def _rpc_id(body: bytes) -> Any:
    return json.loads(body).get("id")


def _probe_in_child(base: str, *args: str) -> dict[str, Any]:
    """Run the probe in a child process; its findings and its peak resident memory."""
    code = (
        "import json, resource, sys\n"
        "from acap.agent import ProbeOptions, probe\n"
        "host, url, mode = sys.argv[1], sys.argv[2], sys.argv[3]\n"
        "r = probe(ProbeOptions('https://example.com', connect_to={'example.com': url,\n"
        "          'agent.example.com': url}, delay=0, streaming=(mode == 'streaming'),\n"
        "          max_prompts=1, timeout=60, deadline=300))\n"
        "print(json.dumps({'maxrss_kib': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,\n"
        "  'findings': [[f.rule, f.message] for f in r.report]}))\n")
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    out = subprocess.run([sys.executable, "-c", code, "example.com", base, *args],
                         capture_output=True, text=True, timeout=600, env=env, check=True)
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


@pytest.mark.parametrize("mode", ["unary", "streaming"])
def test_a_gzip_bomb_costs_at_most_the_cap(built: BuiltCard, mode: str) -> None:
    bomb = gzip_bomb()
    assert len(bomb) < MAX_RESPONSE  # small enough for a cap that counts what is sent
    media = "application/json" if mode == "unary" else "text/event-stream"

    async def explode(request: Request) -> Response:
        return Response(bomb, media_type=media, headers={"Content-Encoding": "gzip"})

    async def plain(request: Request) -> Response:  # the baseline: a small, honest error
        return JSONResponse({"jsonrpc": "2.0", "id": _rpc_id(await request.body()),
                             "error": {"code": -32603, "message": "nothing here"}})

    with serving(_agent(built, plain)) as base:
        baseline = _probe_in_child(base, mode)
    with serving(_agent(built, explode)) as base:
        boom = _probe_in_child(base, mode)
    messages = [m for rule, m in boom["findings"] if rule == "PROBE-REQUEST"]
    assert messages and all("larger than 1024 KiB" in m for m in messages), boom["findings"]
    added = (boom["maxrss_kib"] - baseline["maxrss_kib"]) * 1024
    # the cap, plus a small constant for the decoder and the noise of two processes;
    # without the bound this was about 2 GiB
    assert added <= MAX_RESPONSE + 16 * 1024 * 1024, (added, baseline, boom)


def test_a_trickling_stream_is_cut_at_the_timeout(built: BuiltCard) -> None:
    import asyncio

    async def trickle(request: Request) -> Response:
        async def drip() -> AsyncIterator[bytes]:
            yield b": keep-alive\n\n"
            for _ in range(600):  # a comment byte every 0.2 s, for two minutes
                await asyncio.sleep(0.2)
                yield b":"

        return StreamingResponse(drip(), media_type="text/event-stream")

    with serving(_agent(built, trickle)) as base:
        result = CliRunner().invoke(cli, ["probe", CARD, *connect_args(base), "--delay", "0",
                                          "--streaming", "--max-prompts", "1", "--timeout",
                                          "2", "--deadline", "300", "--format", "json"])
    doc = probe_json(result.stdout)
    assert result.exit_code == 1
    msgs = {f["message"] for f in doc["findings"] if f["rule"] == "PROBE-REQUEST"}
    assert msgs and all("took longer than 2 s (--timeout)" in m for m in msgs), doc["findings"]
    assert "PROBE-LIMIT" not in {f["rule"] for f in doc["findings"]}  # not the deadline


EVIL = "\x1b[2J\x1b[31mRED\x1b[0m \x9b31m \u202eevil\u202c \x07\x00 \ud800 end"
RAW = ("\x1b", "\x9b", "\u202e", "\x07", "\x00")


@pytest.fixture(scope="module")
def evil(built: BuiltCard) -> Iterator[str]:
    async def answer(request: Request) -> Response:
        # ASCII JSON: a lone surrogate can be sent only as an escape
        return Response(json.dumps({"jsonrpc": "2.0", "id": _rpc_id(await request.body()),
                                    "error": {"code": -32603, "message": EVIL}}),
                        media_type="application/json")

    with serving(_agent(built, answer)) as base:
        yield base


@pytest.mark.parametrize("fmt", ["text", "json", "junit"])
def test_an_agents_escape_bytes_reach_no_format_raw(evil: str, fmt: str) -> None:
    result = CliRunner().invoke(cli, ["probe", CARD, *connect_args(evil), "--delay", "0",
                                      "--unary", "--max-prompts", "1", "--format", fmt])
    assert result.exit_code == 1
    shown = result.stdout + result.stderr
    assert "RED" in shown and "evil" in shown  # the error is reported ...
    assert not any(c in shown for c in RAW), repr(shown[:400])  # ... but nothing raw
    if fmt == "json":
        doc = probe_json(result.stdout)  # and the JSON says exactly what the agent said
        errors = [e["error"] for e in doc["exchanges"]]
        assert errors and all("\x1b[2J\x1b[31mRED" in e and "\u202eevil" in e
                              for e in errors), errors
        assert {f["rule"] for f in doc["findings"]} == {"PROBE-REQUEST"}
    if fmt == "junit":
        suite = ElementTree.fromstring(result.stdout)  # well-formed XML
        assert suite.get("failures") == str(len(suite.findall(".//failure")))
        assert {f.get("type") for f in suite.findall(".//failure")} == {"PROBE-REQUEST"}


def test_what_the_deadline_cut_off_is_not_run_never_ok(built: BuiltCard) -> None:
    import asyncio

    async def slow(request: Request) -> Response:
        await asyncio.sleep(30)
        return Response(b"{}")

    with serving(_agent(built, slow)) as base:
        for fmt in ("json", "text", "junit"):
            result = CliRunner().invoke(cli, ["probe", CARD, *connect_args(base), "--delay",
                                              "0", "--deadline", "2", "--timeout", "60",
                                              "--format", fmt])
            assert result.exit_code == 1
            if fmt == "json":
                doc = probe_json(result.stdout)
                assert doc["cases"] == []
                not_run = {n["what"] for n in doc["notJudged"] if n["why"].startswith(
                    "not run: the deadline (2 s)")}
                assert not_run == {f"{s} #1 {m}" for s in ("service-pricing",
                                                           "arrangement-booking",
                                                           "memorial-notice")
                                   for m in ("unary", "streaming")}
            elif fmt == "text":
                assert ": ok" not in result.stdout
                assert "service-pricing #1 unary: not run: the deadline" in result.stdout
            else:
                suite = ElementTree.fromstring(result.stdout)
                skipped = [c.get("name") for c in suite.findall("testcase")
                           if c.find("skipped") is not None]
                assert "memorial-notice #1 streaming" in skipped


def _coded(data: bytes, coding: str) -> bytes:
    if coding == "gzip":
        c = zlib.compressobj(6, zlib.DEFLATED, 31)
    elif coding == "deflate":  # RFC 9110: the zlib format
        c = zlib.compressobj(6, zlib.DEFLATED, zlib.MAX_WBITS)
    else:  # "raw": the raw deflate some servers send as deflate
        c = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
    return c.compress(data) + c.flush()


@pytest.mark.parametrize("codings, header", [
    (["gzip"], "gzip"),
    (["deflate"], "deflate"),
    (["raw"], "deflate"),
    (["gzip", "gzip"], "gzip, gzip"),
    (["deflate", "gzip"], "deflate, gzip"),
])
def test_the_card_is_read_in_every_coding_the_probe_asks_for(built: BuiltCard,
                                                             codings: list[str],
                                                             header: str) -> None:
    body = built.card_bytes
    for c in codings:
        body = _coded(body, c)

    async def card(request: Request) -> Response:
        assert request.headers["accept-encoding"] == "gzip, deflate"
        return Response(body, media_type="application/json",
                        headers={"Content-Encoding": header})

    async def jwks(request: Request) -> Response:
        return Response(built.jwks_bytes, media_type="application/json")

    async def nothing(request: Request) -> Response:
        return JSONResponse({"jsonrpc": "2.0", "id": _rpc_id(await request.body()),
                             "error": {"code": -32603, "message": "nothing here"}})

    app = Starlette(routes=[Route("/.well-known/agent-card.json", card),
                            Route("/.well-known/jwks.json", jwks),
                            Route("/a2a/v1", nothing, methods=["POST"])])
    with serving(app) as base:
        result = CliRunner().invoke(cli, ["probe", CARD, *connect_args(base), "--delay", "0",
                                          "--unary", "--max-prompts", "1", "--format", "json"])
    doc = probe_json(result.stdout)
    assert doc["verified"], doc["findings"]


@pytest.mark.parametrize("header, why", [
    ("br", "the content coding 'br', which the probe did not ask for"),
    ("gzip, gzip, gzip", "more than two content codings"),
    ("gzip", "coding is broken"),
])
def test_a_coding_the_probe_did_not_ask_for_is_refused(built: BuiltCard, header: str,
                                                       why: str) -> None:
    async def card(request: Request) -> Response:
        return Response(b"not what it says", media_type="application/json",
                        headers={"Content-Encoding": header})

    with serving(Starlette(routes=[Route("/.well-known/agent-card.json", card)])) as base:
        result = CliRunner().invoke(cli, ["probe", CARD, *connect_args(base), "--delay", "0",
                                          "--format", "json"])
    doc = probe_json(result.stdout)
    assert result.exit_code == 1
    assert [f["rule"] for f in doc["findings"]] == ["PROBE-CARD"]
    assert why in doc["findings"][0]["message"]
