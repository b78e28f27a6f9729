"""The differential suite (issue 14): acap, a2a-sdk 1.3 (Python) and @a2a-js/sdk 1.3
(JavaScript, under Node) sign every card and verify every signed card, and say the same,
or the card is of a kind listed in :data:`acap.card.DIFFERENCES`, the one table of
deliberate differences (with its reason and spec section), which docs/verifying.md shows.

The cards: every card case file under tests/cases/card, and a generated set drawn by
Hypothesis from the AgentCard schema with odd numbers, text in every script, empties,
nulls, unknown and snake_case members (:mod:`support.card_strategy`): at least 500 in all.
Each card is signed with one of ES256, EdDSA, RS256 and PS256 in turn, by each signer
that can read it, and each signed text is verified by all three.

The JavaScript side is one node process for the whole module (``tests/js/sdkcard.mjs``;
``npm ci --prefix tests/js`` installs @a2a-js/sdk 1.3.0 from the lock file).
"""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import HealthCheck, given, settings

from acap.card import DIFFERENCES, Difference, canonical_payload, differences_markdown
from acap.keys import b64url
from support.card_strategy import card_texts
from support.paths import REPO
from support.sdks import (
    ALGS,
    REFUSED,
    SIGNERS,
    VALID,
    JsSdk,
    Key,
    Outcome,
    acap_verify,
    case_texts,
    python_verify,
    run_card,
    with_signature,
)

#: Every card run, by name; and every row of the table some card was explained by.
SEEN: list[str] = []
ROWS_SEEN: set[str] = set()
GENERATED = 430


def unexplained(o: Outcome) -> list[str]:
    """Each disagreement of ``o`` that no row of the table explains, in words."""
    out = []
    for signer in SIGNERS:
        v = o.verdicts[signer]
        if len(set(v.values())) == 1:
            continue
        res = o.acap[signer]
        marks = {f.rule for f in res.report}
        reasons = [s.reason for s in res.signatures]
        rows = [d for d in DIFFERENCES if set(d.rules) & marks
                or any(r in x for r in d.reasons for x in reasons)]
        # acap's verdict on the signature alone (a card refused for a member may still
        # carry a signature that matches): it differs only where a row says it may.
        signature = VALID if any(s.valid for s in res.signatures) else REFUSED
        for sdk in ("python", "javascript"):
            if v[sdk] != v["acap"] and not any(d.allows(sdk, v[sdk]) for d in rows):
                out.append(f"signed by {signer}: acap {v['acap']} ({sorted(marks)}), {sdk} "
                           f"{v[sdk]} ({o.why[signer].get(sdk)})")
            elif v[sdk] != signature and not any(d.signature_differs and d.allows(sdk, v[sdk])
                                                 for d in rows):
                out.append(f"signed by {signer}: acap's signature verdict {signature} "
                           f"({[s.reason for s in res.signatures]}), {sdk} {v[sdk]} "
                           f"({o.why[signer].get(sdk)})")
        ROWS_SEEN.update(d.id for d in rows)
    return out


def check_card(name: str, text: str, keys: dict[str, Key], js: JsSdk) -> Outcome:
    key = keys[ALGS[len(SEEN) % len(ALGS)]]
    o = run_card(text, key, keys, js)
    SEEN.append(name)
    problems = unexplained(o)
    assert not problems, f"{name}: unexplained disagreements:\n" + "\n".join(problems) + \
        f"\n{text[:2000]}"
    return o


@pytest.mark.parametrize(("name", "text"), case_texts(), ids=[n for n, _ in case_texts()])
def test_every_case_card(name: str, text: str, keys: dict[str, Key], js: JsSdk) -> None:
    check_card(name, text, keys, js)


def test_a_valid_card_is_valid_for_all_three_whoever_signs(keys: dict[str, Key],
                                                           js: JsSdk) -> None:
    """The suite can tell agreement: the Annex-A-like card, signed by each, is valid for
    each; and changed after signing, refused by each."""
    [(_, text)] = [(n, t) for n, t in case_texts() if n == "valid/annex-a-like.json"]
    o = check_card("annex-a-like (again)", text, keys, js)
    assert all(v == dict.fromkeys(SIGNERS, VALID) for v in o.verdicts.values()), o.verdicts
    for signer in SIGNERS:
        signature = o.signatures[signer]
        assert signature is not None
        signed = json.loads(with_signature(text, signature))
        signed["description"] += " (changed)"
        changed = json.dumps(signed)
        assert not acap_verify(changed, keys).ok
        assert python_verify(changed, keys)[0] is False
        assert js.verify(changed, keys)[0] is False


@settings(max_examples=GENERATED, derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.filter_too_much])
@given(text=card_texts())
def test_generated_cards(text: str, both: tuple[dict[str, Key], JsSdk]) -> None:
    check_card(f"generated {len(SEEN)}", text, *both)


@pytest.fixture(scope="module")
def both(keys: dict[str, Key], js: JsSdk) -> tuple[dict[str, Key], JsSdk]:
    """The keys and the node process in one argument: a failing example prints
    ``both=(…)``, not a key."""
    return keys, js


# -- signatures made by hand: the rows about headers ----------------------------------------


def _annex() -> dict[str, object]:
    [(_, text)] = [(n, t) for n, t in case_texts() if n == "valid/annex-a-like.json"]
    card: dict[str, object] = json.loads(text)
    card.pop("signatures", None)
    return card


def _signed(key: Key, header: dict[str, object], *, odd_bits: bool = False,
            unprotected: dict[str, object] | None = None) -> str:
    card = _annex()
    protected = b64url(json.dumps(header).encode())
    payload = b64url(canonical_payload(card))
    signature = b64url(key.signing.sign(f"{protected}.{payload}".encode()))
    if odd_bits:  # the same bytes, spelled with unused bits set (RFC 4648 §3.5)
        alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
        last = alphabet.index(signature[-1])
        signature = signature[:-1] + alphabet[last | 1 if last % 2 == 0 else last - 1]
    sig: dict[str, object] = {"protected": protected, "signature": signature}
    if unprotected is not None:
        sig["header"] = unprotected
    return with_signature(json.dumps(card), sig)


def _verdicts(text: str, publics: list[dict[str, object]], js: JsSdk) -> dict[str, str]:
    res = acap_verify(text, publics)  # type: ignore[arg-type]
    py = python_verify(text, publics)[0]  # type: ignore[arg-type]
    jv = js.verify(text, publics)[0]  # type: ignore[arg-type]
    return {"acap": VALID if res.ok else REFUSED, "python": VALID if py else REFUSED,
            "javascript": VALID if jv else REFUSED}


def _row(row_id: str) -> Difference:
    [row] = [d for d in DIFFERENCES if d.id == row_id]
    return row


@pytest.mark.parametrize("row_id", ["no-typ", "b64", "base64url", "ps256-without-alg",
                                    "header-names-twice"])
def test_header_rows(row_id: str, keys: dict[str, Key], js: JsSdk) -> None:
    """Each header row of the table, on a signature made by hand: the three verdicts are
    the ones the row states, and they do differ."""
    key = keys["PS256" if row_id == "ps256-without-alg" else "ES256"]
    header: dict[str, object] = dict(key.header)
    publics = [k.public for k in keys.values()]
    if row_id == "no-typ":
        del header["typ"]
    if row_id == "b64":
        header["b64"] = False  # and no crit: the SDKs part ways
    if row_id == "ps256-without-alg":
        publics = [{k: v for k, v in p.items() if k != "alg"} for p in publics]
    text = _signed(key, header, odd_bits=row_id == "base64url",
                   unprotected={"kid": key.kid} if row_id == "header-names-twice" else None)
    v = _verdicts(text, publics, js)
    row = _row(row_id)
    assert row.acap.startswith(v["acap"]), (row_id, v)
    assert row.allows("python", v["python"]) and row.allows("javascript", v["javascript"]), v
    assert len(set(v.values())) > 1, v  # a real difference
    ROWS_SEEN.add(row_id)
    SEEN.append(f"header {row_id}")


# -- the table, the docs, the count ---------------------------------------------------------


def test_docs_show_the_table() -> None:
    """docs/verifying.md shows the table as the code has it, generated into its block by
    scripts/differences_table.py (the page cannot drift from the data)."""
    docs = (REPO / "docs" / "verifying.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- DIFFERENCES:[^\n]*-->\n(.*?)\n<!-- /DIFFERENCES -->", docs, re.S)
    assert block is not None, "docs/verifying.md has no <!-- DIFFERENCES --> block"
    assert block.group(1) == differences_markdown(), \
        "run: .venv/bin/python scripts/differences_table.py"


def test_at_least_500_cards_and_every_row_seen() -> None:
    """Runs last in this module: the suite went over 500 cards or more, and every row of
    the table explained some card (no row is there for nothing)."""
    if len(SEEN) < 500:
        pytest.fail(f"only {len(SEEN)} cards went through the three (run the whole module)")
    assert {d.id for d in DIFFERENCES} - ROWS_SEEN == set()

