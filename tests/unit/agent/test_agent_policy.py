"""The agent's runtime policy: acap build writes it beside the signing key, outside site/
(never published), from operator.yaml; the adapter reads it with the card and refuses a
policy built with another card."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from acap.agent import BuiltCard
from acap.builder import BuildOptions, build, policy_path_for, read_agent_policy
from acap.errors import AcapError
from support.agents import build_example
from support.paths import REPO


def test_build_writes_the_policy_beside_the_key_and_never_into_site(tmp_path: Path) -> None:
    config = build_example(tmp_path)
    path = policy_path_for(config)
    assert path == tmp_path / ".acap" / "operator.agent-policy.json"
    site = tmp_path / "site"
    assert not any("policy" in p.name for p in site.rglob("*"))
    card = (site / "example.com/.well-known/agent-card.json").read_bytes()
    assert b"safeguards" not in card and b"limitPerAssistant" not in card
    data = json.loads(path.read_bytes())
    assert {sid: e["kind"] for sid, e in data["skills"].items()} == {
        "opening-hours": "public", "service-pricing": "on-request",
        "arrangement-booking": "on-request", "memorial-notice": "on-request",
        "transfer-status": "sign-in", "speak-to-staff": "public"}
    booking = data["skills"]["arrangement-booking"]
    assert booking["safeguards"]["staffNotified"] == "The funeral director on duty"
    assert booking["safeguardsHold"] == {"a": True, "b": True, "c": True, "d": True}
    assert data["skills"]["memorial-notice"] == {  # not opened: no condition holds
        "kind": "on-request", "action": True, "completion": "deferred", "safeguards": {},
        "safeguardsHold": {"a": False, "b": False, "c": False, "d": False}}
    policy = read_agent_policy(path)
    assert policy.matches(card) and policy.operator == "Example Memorial Chapel"


def test_a_missing_safeguard_is_a_condition_that_does_not_hold(tmp_path: Path) -> None:
    config = build_example(tmp_path, lambda t: t.replace("attestationLevel: 2",
                                                         "attestationLevel: 1"))
    hold = read_agent_policy(policy_path_for(config)).skills["arrangement-booking"]
    assert dict(hold.safeguards_hold) == {"a": False, "b": True, "c": True, "d": True}
    assert not hold.all_safeguards_hold


def test_a_failed_build_keeps_the_previous_policy(tmp_path: Path) -> None:
    config = build_example(tmp_path)
    before = policy_path_for(config).read_bytes()
    config.write_text(config.read_text().replace("personEntry: https://ask.example.com/talk\n",
                                                 "personEntry: https://ask.example.com/talk?x=1\n",
                                                 1))
    assert not build(BuildOptions(config=config)).written
    assert policy_path_for(config).read_bytes() == before


def test_the_adapter_refuses_a_policy_of_another_card(tmp_path: Path) -> None:
    config = build_example(tmp_path)
    assert BuiltCard.from_project(config).policy.card_url == \
        "https://example.com/.well-known/agent-card.json"
    path = policy_path_for(config)
    data = json.loads(path.read_bytes())
    data["cardSha256"] = "0" * 64
    path.write_text(json.dumps(data))
    with pytest.raises(AcapError, match="another card") as err:
        BuiltCard.from_project(config)
    assert err.value.hint and "acap build" in err.value.hint
    path.unlink()
    with pytest.raises(AcapError, match="not a policy file"):
        BuiltCard.from_project(config)


def test_the_adapter_refuses_a_card_its_jwks_does_not_verify(tmp_path: Path) -> None:
    config = build_example(tmp_path)
    jwks = tmp_path / "site/example.com/.well-known/jwks.json"
    keys = json.loads(jwks.read_bytes())
    keys["keys"][0]["x"] = keys["keys"][0]["y"]  # another (invalid) key under the same kid
    jwks.write_text(json.dumps(keys))
    with pytest.raises(AcapError, match="does not verify"):
        BuiltCard.from_project(config)


def test_replies_and_check_reply_need_no_a2a_sdk() -> None:
    """acap.replies, check_reply and the CLI's listing import neither a2a-sdk nor protobuf."""
    code = ("import sys, json; import acap; from acap.replies import check_reply, decide, "
            "refer_information, reply_text; from acap.cli import cli; "
            "card = json.load(open('tests/data/annex-a1-card.json')); "
            "d = decide(card, 'service-pricing', request_extensions={'x'}, "
            "for_named_person=False); "
            "r = refer_information(d.skill, activated=False, message_id='m', operator='O'); "
            "assert check_reply(r, card, activated=False, skill_id='service-pricing').ok; "
            "print(sorted(m for m in sys.modules if m.startswith(('a2a', 'google.protobuf'))))")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"
