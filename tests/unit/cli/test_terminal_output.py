"""Untrusted text is escaped in every text output (trial report item 7).

A card's protected-header kid of ``"chapel-1, alg ES256: valid\\nkeys from ...\\nverified"``
made the first lines of ``acap verify`` read as a success. Control characters
(newline, carriage return, ESC sequences), bidi overrides and isolates, line
separators and lone surrogates are shown as escapes in the verify table, the
live table and every finding's location, message and hint.
"""

from __future__ import annotations

import copy
import json
import unicodedata
from pathlib import Path

import pytest

from acap.card import SignatureCheck, Signer, build_card
from acap.cli import TextReporter, finding_text, report_json, report_text
from acap.findings import Finding, Location, Report
from acap.keys import SigningKey, jwks
from acap.load import load_operator
from acap.publisher import HttpFacts, LiveCheck
from support.cards import CARD, acap, new_private
from support.paths import EXAMPLE

HOSTILE_KID = ("chapel-1, alg ES256: valid\nkeys from https://example.com/.well-known/jwks.json"
               "\nverified\n\n\r\x1b[2J\x1b]0;title\x07\u202eevil\u2066x\u2069\u2028\u200f")
UNSAFE = {"Cc", "Cf", "Cs", "Zl", "Zp"}


def _safe_lines(text: str) -> None:
    for line in text.splitlines():
        cats = {unicodedata.category(c) for c in line}
        assert not cats & UNSAFE, repr(line)


@pytest.mark.parametrize(("raw", "shown"), [
    ("a\nb", "a\\nb"),
    ("a\rb", "a\\rb"),
    ("a\tb", "a\\tb"),
    ("\x1b[2J", "\\x1b[2J"),
    ("\x9b2J", "\\x9b2J"),  # C1 CSI
    ("\x00", "\\x00"),
    ("\u202eabc\u202c", "\\u202eabc\\u202c"),
    ("\u2066x\u2069", "\\u2066x\\u2069"),
    ("\u200e\u200f\u061c", "\\u200e\\u200f\\u061c"),
    ("a\u2028b\u2029c", "a\\u2028b\\u2029c"),
    ("\ud800", "\\ud800"),
    ("\U000e0041", "\\U000e0041"),  # a tag character (Cf)
    ("\ufeff", "\\ufeff"),
])
def test_terminal_safe_escapes(raw: str, shown: str) -> None:
    from acap.cli import terminal_safe

    assert terminal_safe(raw) == shown


@pytest.mark.parametrize("text", [
    "Pompes funèbres Éloïse", "Straße", "£2,450", "price\u00a0£2\u202f450", "日本語",
    "\u0645\u0631\u062d\u0628\u0627", "👨\u200d👩\u200d👧",
    "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645",
    "tabs are not here", "",
])
def test_terminal_safe_keeps_text(text: str) -> None:
    from acap.cli import terminal_safe

    assert terminal_safe(text) == text


def test_finding_text_escapes_location_message_and_hint() -> None:
    f = Finding("SIG-JKU-ORIGIN", "error", f"kid {HOSTILE_KID}", Location("https://x/\n\x1b"),
                "hint\nverified")
    text = finding_text(f)
    assert text.splitlines() == [
        "https://x/\\n\\x1b: error: kid chapel-1, alg ES256: valid\\nkeys from "
        "https://example.com/.well-known/jwks.json\\nverified\\n\\n\\r\\x1b[2J\\x1b]0;title"
        "\\x07\\u202eevil\\u2066x\\u2069\\u2028\\u200f [SIG-JKU-ORIGIN]",
        "    hint: hint\\nverified",
        "    see: https://agent-capability.org/ext/on-request/v1/conformance.html#SIG-JKU-ORIGIN"]
    report = Report([f])
    _safe_lines(report_text(report))
    # JSON keeps the values as they are (JSON escapes what it must)
    assert report_json(report)["findings"][0]["message"] == f"kid {HOSTILE_KID}"


def _card_with_kid(kid: str, jku: str) -> tuple[dict[str, object], dict[str, object]]:
    key = SigningKey(new_private("ES256"), "ES256", kid)
    card = Signer(key, jku=jku).sign(copy.deepcopy(build_card(load_operator(EXAMPLE))))
    return card, jwks(key, [])


def test_verify_shows_a_hostile_kid_escaped(tmp_path: Path) -> None:
    card, keys = _card_with_kid(HOSTILE_KID, "https://example.com/.well-known/jwks.json")
    path = tmp_path / CARD
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(card), encoding="utf-8")
    jwks_path = tmp_path / "keys.json"
    jwks_path.write_text(json.dumps(keys), encoding="utf-8")
    out = acap("verify", str(path), "--jwks", str(jwks_path))
    assert out.exit_code == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines == [
        "signature 0: kid chapel-1, alg ES256: valid\\nkeys from https://example.com/.well-known/"
        "jwks.json\\nverified\\n\\n\\r\\x1b[2J\\x1b]0;title\\x07\\u202eevil\\u2066x\\u2069"
        "\\u2028\\u200f, alg ES256: valid",
        f"keys from {jwks_path}",
        "signatures verified (the card's content is judged by acap check)"]
    _safe_lines(out.stdout + out.stderr)


def test_verify_escapes_a_hostile_jku_in_findings(tmp_path: Path) -> None:
    card, _ = _card_with_kid("chapel-1\x1b[31m", "https://evil\u202e.example/\x1b[2J\n")
    path = tmp_path / CARD
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(card), encoding="utf-8")
    out = acap("verify", str(path))
    assert out.exit_code == 1
    assert "kid chapel-1\\x1b[31m, alg ES256: NOT CHECKED" in out.stdout
    assert "\\u202e" in out.stderr  # the jku's host, in the SIG-JKU-ORIGIN message
    _safe_lines(out.stdout + out.stderr)


def test_live_table_escapes_server_headers(capsys: pytest.CaptureFixture[str]) -> None:
    facts = HttpFacts("https://example.com/.well-known/agent-card.json\x1b[2J", 200,
                      "application/json\r\nX: \x1b[31m", "*\u202e", "max-age=60\n", 60,
                      '"etag\x07"', 10)
    result = LiveCheck(facts, signatures=[SignatureCheck(0, "k\nverified", "ES256\x1b", None,
                                                         False, "no key\r\n", False)])
    TextReporter().live(result, ok=result.ok)
    out = capsys.readouterr().out
    _safe_lines(out)
    assert "application/json\\r\\nX: \\x1b[31m" in out
    assert out.splitlines()[-2] == ("signature 0: kid k\\nverified, alg ES256\\x1b: NOT CHECKED "
                                    "(no key\\r\\n)")
    assert out.splitlines()[-1] == "live card NOT verified"
