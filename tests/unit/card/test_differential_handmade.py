"""Issue 21's hand-made cards (tests/cases/differential/cards.json): each gets the verdict
the seed's text gives (or an acap rule listed with its reason), from ``acap check``; and
acap, a2a-sdk 1.3 and @a2a-js/sdk 1.3 each sign it and verify what each signed, agreeing
or differing only as a row of :data:`acap.card.DIFFERENCES` says. The cases whose
signatures are made by hand (a bad one beside a good one, the Annex A.1 placeholder, the
specification's literal reading, a header name twice, no typ) give each verifier's own
verdict, as the case states it."""

from __future__ import annotations

import json
from typing import Any

import pytest

from acap.card import DIFFERENCES, SDK, SPEC, canonical_payload
from acap.checks import check_card
from acap.keys import b64url
from support.cards import differential_card
from support.paths import CASES
from support.sdks import (
    ALGS,
    REFUSED,
    SIGNERS,
    VALID,
    JsSdk,
    Key,
    acap_verify,
    python_verify,
    run_card,
)

DOC = json.loads((CASES / "differential" / "cards.json").read_text(encoding="utf-8"))
BASE = json.loads((CASES / "card" / "valid" / "annex-a-like.json").read_text(encoding="utf-8"))
#: {"alg":"ES256","kid":"chapel-1"}, as Annex A.1 has it
A1_PROTECTED = "eyJhbGciOiJFUzI1NiIsImtpZCI6ImNoYXBlbC0xIn0"


def card_of(case: dict[str, Any]) -> dict[str, Any]:
    """The base card with the case's changes."""
    return differential_card(BASE, case)


CASE_LIST = DOC["cases"]


def test_there_are_enough_hand_made_cards() -> None:
    assert len(CASE_LIST) >= 40
    assert len({c["name"] for c in CASE_LIST}) == len(CASE_LIST)
    assert all(c.get("text") for c in CASE_LIST), "every case quotes the text it rests on"


@pytest.mark.parametrize("case", CASE_LIST, ids=[c["name"] for c in CASE_LIST])
def test_acap_check_gives_the_texts_verdict(case: dict[str, Any]) -> None:
    card = card_of(case)
    res = check_card(json.dumps(card).encode(), url=case.get("url"))
    got = sorted((f.rule, f.level) for f in res.findings)
    assert got == sorted(tuple(e) for e in case["expect"]), \
        "\n".join(f"{f.rule} {f.level}: {f.message}" for f in res.findings)
    assert sorted({r for r, _ in res.not_judged}) == sorted(case.get("notJudged", []))
    assert res.ok is not any(level == "error" for _, level in case["expect"])


def _sign(card: dict[str, Any], key: Key, *, mode: str = SDK,
          header: dict[str, Any] | None = None) -> dict[str, Any]:
    protected = b64url(json.dumps(header or key.header).encode())
    payload = b64url(canonical_payload(card, mode))  # type: ignore[arg-type]
    return {"protected": protected,
            "signature": b64url(key.signing.sign(f"{protected}.{payload}".encode()))}


def hand_signed(card: dict[str, Any], how: str, key: Key) -> str:
    """The card with the hand-made signatures ``how`` names."""
    good = _sign(card, key)
    if how == "bad-then-good":
        other = dict(card, description="Another card.")
        sigs = [dict(good, signature=_sign(other, key)["signature"]), good]
    elif how == "placeholder-then-good":
        sigs = [{"protected": A1_PROTECTED, "signature": "PLACEHOLDER"}, good]
    elif how == "spec-only":
        sigs = [_sign(card, key, mode=SPEC)]
    elif how == "header-repeats-kid":
        sigs = [dict(good, header={"kid": key.kid})]
    elif how == "no-typ":
        sigs = [_sign(card, key, header={k: v for k, v in key.header.items() if k != "typ"})]
    else:
        raise AssertionError(how)
    return json.dumps({**card, "signatures": sigs})


def _explained(sdk: str, verdict: str, marks: set[str], reasons: list[str]) -> bool:
    rows = [d for d in DIFFERENCES if set(d.rules) & marks
            or any(r in x for r in d.reasons for x in reasons)]
    return any(d.allows(sdk, verdict) for d in rows)


@pytest.mark.parametrize("case", CASE_LIST, ids=[c["name"] for c in CASE_LIST])
def test_the_three_verifiers_agree_or_a_row_says_why(case: dict[str, Any], keys: dict[str, Key],
                                                      js: JsSdk) -> None:
    card = card_of(case)
    key = keys[ALGS[CASE_LIST.index(case) % len(ALGS)]]
    if "signatures" in case:
        text = hand_signed(card, case["signatures"], keys["ES256"])
        res = acap_verify(text, keys)
        got = {"acap": VALID if res.ok else REFUSED,
               "python": VALID if python_verify(text, keys)[0] else REFUSED,
               "javascript": VALID if js.verify(text, keys)[0] else REFUSED}
        assert got == case["verify"], (got, [s.reason for s in res.signatures])
        marks = {f.rule for f in res.findings}
        said = [s.reason for s in res.signatures] + [f.message for f in res.findings]
        for sdk in ("python", "javascript"):
            assert got[sdk] == got["acap"] or _explained(sdk, got[sdk], marks, said), (sdk, got)
        return
    o = run_card(json.dumps(card), key, keys, js)
    for signer in SIGNERS:
        v = o.verdicts[signer]
        res = o.acap.get(signer)
        if res is None:
            continue
        marks = {f.rule for f in res.findings}
        for sdk in ("python", "javascript"):
            assert v[sdk] == v["acap"] or _explained(
                sdk, v[sdk], marks, [s.reason for s in res.signatures]), (signer, sdk, v)
