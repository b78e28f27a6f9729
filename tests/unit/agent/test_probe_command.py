"""``acap probe`` against real a2a-sdk agents on 127.0.0.1: the example chapel agent passes,
over JSON-RPC and streaming; each deliberately broken variant (breaking one rule) makes the
probe report exactly that rule's id; the probe stays within its bounds."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest
from click.testing import CliRunner

from acap.agent import PROBE_RULES, BuiltCard, create_app
from acap.cli import cli
from acap.requirements import checked_at
from support.agents import (
    PRICE,
    BrokenChapel,
    build_example,
    connect_args,
    example_module,
    no_staff,
    opened,
    serving,
)

CARD = "https://example.com"


@pytest.fixture(scope="module")
def config(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_example(tmp_path_factory.mktemp("probe"))


@pytest.fixture(scope="module")
def chapel(config: Path) -> Iterator[str]:
    with serving(example_module().app(config)) as base:
        yield base


def probe(*args: str) -> tuple[int, Any]:
    """Run ``acap probe ... --format json``; returns the exit status and the document's
    one result (the probe's members) with the document's totals."""
    result = CliRunner().invoke(cli, ["probe", *args, "--delay", "0", "--format", "json"])
    try:
        doc = json.loads(result.stdout)
    except ValueError:
        raise AssertionError(result.output) from None
    [one] = doc["results"]
    return result.exit_code, {**doc, **one}


def rules(doc: dict[str, Any]) -> set[str]:
    return {f["rule"] for f in doc["findings"]}


def test_the_example_agent_passes_the_probe_over_json_rpc_and_streaming(
        chapel: str, tmp_path: Path) -> None:
    private = tmp_path / "operator.private.yaml"
    private.write_text(f'service-pricing:\n  - "{PRICE}"\n', encoding="utf-8")
    code, doc = probe(CARD, *connect_args(chapel), "--private-values", str(private))
    assert code == 0, doc
    assert doc["ok"] and doc["verified"] and doc["errors"] == 0 and doc["warnings"] == 0
    assert doc["interface"] == "https://agent.example.com/a2a/v1 (JSONRPC)"
    assert [c["case"] for c in doc["cases"]] == [
        f"{s} #1 {m}" for s in ("service-pricing", "arrangement-booking", "memorial-notice")
        for m in ("unary", "streaming")]
    sent = [(e["skill_id"], e["mode"], e["activated"], e["echo"]) for e in doc["exchanges"]]
    assert ("service-pricing", "streaming", True,
            "https://agent-capability.org/ext/on-request/v1") in sent
    assert ("service-pricing", "unary", False, "") in sent
    assert all(e["reply"] for e in doc["exchanges"])
    assert doc["requests"] == 2 + len(doc["exchanges"])  # the card, its JWKS, the messages
    # the opted-in path cannot be exercised by a caller acting for nobody: said so
    assert [n["what"] for n in doc["notJudged"]] == ["arrangement-booking"]


BROKEN = ["OR-5.1", "OR-5.3", "OR-5.4", "OR-5.7", "OR-5.8", "OR-5.10", "OR-6.1", "OR-6.2",
          "A2A-EXT-ECHO"]
#: The card a variant needs, when not the example's: OR-5.4 needs an information skill
#: opened to assistants; OR-5.10 a card that names no way to reach staff.
CARDS = {"OR-5.4": opened, "OR-5.10": no_staff}


def test_every_rule_the_probe_judges_has_a_broken_variant() -> None:
    assert sorted(PROBE_RULES) == sorted(BROKEN)
    assert sorted(checked_at("probe")) == sorted(BROKEN)


@pytest.mark.parametrize("rule", BROKEN)
def test_a_broken_variant_is_reported_with_exactly_its_rule(config: Path, rule: str,
                                                            tmp_path: Path) -> None:
    if rule in CARDS:
        (tmp_path / "card").mkdir()
        config = build_example(tmp_path / "card", CARDS[rule])
    built = BuiltCard.from_project(config)
    private = tmp_path / "operator.private.yaml"
    private.write_text(f'service-pricing:\n  - "{PRICE}"\n', encoding="utf-8")
    with serving(create_app(BrokenChapel(built, rule).executor(), built)) as base:
        code, doc = probe(CARD, *connect_args(base), "--private-values", str(private))
    assert rules(doc) == {rule}, doc["findings"]
    assert code == (0 if all(f["level"] == "warning" for f in doc["findings"]) else 1)
    assert doc["ok"] is (code == 0)


@pytest.mark.parametrize("card", [None, *CARDS])
def test_the_unbroken_hand_written_agent_passes(config: Path, card: str | None,
                                                tmp_path: Path) -> None:
    """The fixture breaks nothing unless asked (so each variant breaks only its rule), on
    each card a variant uses: where nobody can be reached, it says so (OR-5.10)."""
    if card is not None:
        config = build_example(tmp_path, CARDS[card])
    built = BuiltCard.from_project(config)
    with serving(create_app(BrokenChapel(built, None).executor(), built)) as base:
        code, doc = probe(CARD, *connect_args(base))
    assert (code, doc["findings"]) == (0, [])
    staff = [c for c in doc["cases"] if c["case"].startswith("reaching a person")]
    assert len(staff) == (1 if card == "OR-5.10" else 0)


def test_junit_xml_has_a_failure_per_error(config: Path) -> None:
    built = BuiltCard.from_project(config)
    with serving(create_app(BrokenChapel(built, "OR-5.7").executor(), built)) as base:
        result = CliRunner().invoke(cli, ["probe", CARD, *connect_args(base), "--delay", "0",
                                          "--unary", "--format", "junit"])
    assert result.exit_code == 1
    suite = ElementTree.fromstring(result.stdout)
    failures = suite.findall(".//failure")
    assert [f.get("type") for f in failures] == ["OR-5.7", "OR-5.7"]  # plain and activated
    assert suite.get("failures") == "2"
    cases = [c.get("name") for c in suite.findall("testcase")]
    assert cases[:4] == ["card", "service-pricing #1 unary", "arrangement-booking #1 unary",
                         "memorial-notice #1 unary"]


def test_the_budget_stops_the_probe_and_says_what_was_not_judged(chapel: str) -> None:
    code, doc = probe(CARD, *connect_args(chapel), "--budget", "5")
    assert code == 1
    assert doc["requests"] == 5
    assert "PROBE-LIMIT" in rules(doc)
    assert {n["what"] for n in doc["notJudged"]} >= {"memorial-notice #1 unary",
                                                      "memorial-notice #1 streaming"}


def test_a_private_address_needs_allow_private(chapel: str) -> None:
    port = chapel.rsplit(":", 1)[1]
    code, doc = probe(f"https://127.0.0.1:{port}")
    assert code == 1 and doc["requests"] == 0
    assert [f["rule"] for f in doc["findings"]] == ["PROBE-CARD"]
    assert "127.0.0.1, a loopback address" in doc["findings"][0]["message"]
    code, doc = probe(chapel)  # plain http, loopback: refused as well
    assert doc["requests"] == 0 and "is not https" in doc["findings"][0]["message"]


def test_a_card_that_does_not_verify_is_not_probed(config: Path, tmp_path: Path) -> None:
    """The card's interface URL is trusted only when its signature verifies."""
    import shutil

    copy = tmp_path / "chapel"
    shutil.copytree(config.parent, copy)
    card = copy / "site/example.com/.well-known/agent-card.json"
    card.write_bytes(card.read_bytes().replace(b"Answers questions", b"Answers questionz"))
    from starlette.applications import Starlette

    from acap.agent import card_routes

    class Loose(BuiltCard):  # serve the changed card without the start-up check
        pass

    built = BuiltCard.from_project(config)
    tampered = Loose(card.read_bytes(), json.loads(card.read_bytes()), built.jwks_bytes,
                     built.policy, card)
    with serving(Starlette(routes=card_routes(tampered))) as base:
        code, doc = probe(CARD, *connect_args(base))
    assert code == 1
    assert doc["requests"] == 2 and doc["exchanges"] == []  # the card and its JWKS only
    assert {"SIG-INVALID", "PROBE-CARD"} <= rules(doc)


def test_a_probe_file_gives_the_prompts(chapel: str, tmp_path: Path) -> None:
    prompts = tmp_path / "probe.yaml"
    prompts.write_text("memorial-notice:\n  - Put a notice up for my father, please.\n"
                       "opening-hours:\n  - When are you open?\n", encoding="utf-8")
    code, doc = probe(CARD, *connect_args(chapel), "--prompts", str(prompts), "--unary")
    assert [(f["rule"], f["level"]) for f in doc["findings"]] == [("PROBE-FILE", "error")]
    assert "opening-hours" in doc["findings"][0]["message"]
    sent = {(e["skill_id"], e["prompt"]) for e in doc["exchanges"]}
    assert ("memorial-notice", "Put a notice up for my father, please.") in sent
    assert code == 1


def test_probe_without_the_agent_extra_says_how_to_install_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "a2a", None)  # import a2a raises ImportError
    result = CliRunner().invoke(cli, ["probe", CARD])
    assert result.exit_code == 1
    assert "pip install '.[agent]'" in result.output
    assert "not on PyPI" in result.output


def test_an_endless_answer_is_cut_and_a_redirect_not_followed(config: Path) -> None:
    from starlette.applications import Starlette
    from starlette.responses import RedirectResponse, Response
    from starlette.routing import Route

    from acap.agent import card_routes

    built = BuiltCard.from_project(config)

    async def huge(request: Any) -> Response:
        return Response(b"{" + b" " * (2 * 1024 * 1024) + b"}", media_type="application/json")

    app = Starlette(routes=[*card_routes(built), Route("/a2a/v1", huge, methods=["POST"])])
    with serving(app) as base:
        code, doc = probe(CARD, *connect_args(base), "--unary", "--max-prompts", "1")
    assert code == 1
    assert rules(doc) == {"PROBE-REQUEST"}
    assert all("larger than 1024 KiB" in f["message"] for f in doc["findings"])

    async def away(request: Any) -> Response:
        return RedirectResponse("https://elsewhere.example/card.json", status_code=302)

    moved = Starlette(routes=[Route("/.well-known/agent-card.json", away)])
    with serving(moved) as base:
        code, doc = probe(CARD, *connect_args(base))
    assert code == 1 and doc["requests"] == 1  # the redirect was not followed
    assert [f["message"] for f in doc["findings"]] == [
        "the card https://example.com/.well-known/agent-card.json could not be read: "
        "HTTP status 302"]


def test_the_http_json_binding_passes_too(tmp_path: Path) -> None:
    config = build_example(tmp_path, lambda t: t.replace("binding: JSONRPC",
                                                         "binding: HTTP+JSON"))
    with serving(example_module().app(config)) as base:
        code, doc = probe(CARD, *connect_args(base))
    assert code == 0, doc["findings"]
    assert doc["interface"] == "https://agent.example.com/a2a/v1 (HTTP+JSON)"
    assert len(doc["cases"]) == 6


def test_one_deadline_bounds_a_slow_agent(config: Path) -> None:
    import asyncio

    from a2a.server.agent_execution import AgentExecutor

    class Slow(AgentExecutor):
        async def execute(self, context: Any, event_queue: Any) -> None:
            await asyncio.sleep(30)

        async def cancel(self, context: Any, event_queue: Any) -> None:
            raise NotImplementedError

    built = BuiltCard.from_project(config)
    with serving(create_app(Slow(), built)) as base:
        code, doc = probe(CARD, *connect_args(base), "--deadline", "2", "--timeout", "60")
    assert code == 1
    assert "PROBE-LIMIT" in rules(doc)
    assert doc["cases"] == [] or all(c["findings"] for c in doc["cases"])
    assert any("deadline" in n["why"] for n in doc["notJudged"])


def test_a_name_that_resolves_to_a_local_address_is_refused(chapel: str) -> None:
    port = chapel.rsplit(":", 1)[1]
    code, doc = probe(f"https://localhost:{port}")
    assert code == 1 and doc["requests"] == 0
    assert "localhost resolves to" in doc["findings"][0]["message"]


ELSEWHERE = "https://agent.elsewhere.example/a2a/v1"


@pytest.fixture(scope="module")
def elsewhere(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The chapel, whose signed card names an interface on another registrable domain."""
    config = build_example(tmp_path_factory.mktemp("elsewhere"),
                           lambda t: t.replace("https://agent.example.com/a2a/v1", ELSEWHERE))
    with serving(example_module().app(config)) as base:
        yield base


def test_a_card_cannot_aim_the_probe_off_its_own_host(elsewhere: str) -> None:
    """A verified card names an interface on another domain: nothing is sent there, and the
    finding names the flag that allows it."""
    args = [*connect_args(elsewhere), "--connect-to", f"agent.elsewhere.example={elsewhere}"]
    code, doc = probe(CARD, *args)
    assert code == 1
    assert doc["requests"] == 2 and doc["exchanges"] == []  # the card and its JWKS only
    [f] = [f for f in doc["findings"] if f["rule"] == "PROBE-INTERFACE"]
    assert f["level"] == "error"
    assert "agent.elsewhere.example, neither the card's host example.com" in f["message"]
    assert "--allow-origin https://agent.elsewhere.example" in f["hint"]
    code, doc = probe(CARD, *args, "--allow-origin", "https://Agent.Elsewhere.Example:443/",
                      "--unary", "--max-prompts", "1")
    assert "PROBE-INTERFACE" not in rules(doc)
    assert doc["exchanges"] and code == 0, doc["findings"]


def test_allow_origin_takes_an_origin_only() -> None:
    result = CliRunner().invoke(cli, ["probe", CARD, "--allow-origin",
                                      "https://agent.elsewhere.example/a2a/v1"])
    assert result.exit_code == 2
    assert "is not an origin: give scheme://host[:port]" in result.output


@pytest.mark.parametrize(("interface", "allowed", "refused"), [
    ("https://example.com/a2a", (), False),  # the card's own host
    ("https://example.com:8443/a2a", (), False),  # its own host, another port
    ("https://agent.example.com/a2a", (), False),  # a subdomain
    ("https://a.b.example.com./a2a", (), False),  # a deeper one, with a final dot
    ("https://AGENT.Example.COM/a2a", (), False),  # hosts are case-blind
    ("https://evilexample.com/a2a", (), True),  # a name that merely ends the same
    ("https://com/a2a", (), True),  # the parent
    ("https://127.0.0.1/a2a", (), True),
    ("https://agent.other.example/a2a", (), True),
    ("https://agent.other.example/a2a", ("https://agent.other.example",), False),
    ("https://agent.other.example:8443/a2a", ("https://agent.other.example",), True),
    ("https://agent.other.example:443/a2a", ("https://agent.other.example",), False),
])
def test_which_interfaces_a_card_may_aim_the_probe_at(interface: str,
                                                      allowed: tuple[str, ...],
                                                      refused: bool) -> None:
    from acap.agent import interface_refusal

    why = interface_refusal("https://example.com/.well-known/agent-card.json", interface,
                            allowed)
    assert (why is not None) == refused, why
    if why:
        assert "--allow-origin" in why


def test_a_slow_judgement_cannot_overrun_the_deadline(chapel: str,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The replies are judged off the event loop, within what is left of the deadline: a
    judgement that never ends (injected here: every scanner acap has is linear, so none is
    slow on its own) is cut, its case said not run, and the probe returns while it is still
    judging, instead of when it is done."""
    import threading

    from acap.agent import ProbeOptions
    from acap.agent import _probe as probe_module
    from acap.agent import probe as run

    entered, release, finished = threading.Event(), threading.Event(), threading.Event()

    def endless(*_args: object) -> list[object]:
        entered.set()
        release.wait(300)
        finished.set()
        return []

    monkeypatch.setattr(probe_module, "judge_pair", endless)
    try:
        result = run(ProbeOptions(CARD, connect_to={"example.com": chapel,
                                                    "agent.example.com": chapel},
                                  delay=0, deadline=5, timeout=60, streaming=False,
                                  max_prompts=1))
        assert entered.is_set() and not finished.is_set()  # returned while still judging
    finally:
        release.set()
    assert result.cases == []
    assert "PROBE-LIMIT" in {f.rule for f in result.report}
    why = dict(result.not_judged)["service-pricing #1 unary"]
    assert why == "not run: the deadline (5 s) passed while judging service-pricing #1 unary"
