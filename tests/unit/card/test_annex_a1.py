"""Issue 2, item 4: the card built from the bundled operator.yaml is the spec's Annex A.1 card.

tests/data/annex-a1-card.json is Annex A.1 as printed (its ``signatures`` is a
placeholder). Without ``signatures`` the two must be equal field for field, and
in the same key order: Annex A.1 lists the AgentCard fields in a2a.proto's
field-number order (name 1, description 2, supportedInterfaces 3, provider 4,
version 5, capabilities 7, securitySchemes 8, defaultInputModes 10,
defaultOutputModes 11, skills 12), the order MessageToDict writes them in, so a
reader comparing the published card with the spec sees the same document.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from acap.card import build_card
from acap.cli import report_text
from acap.load import load_operator
from support.cards import CARD, run_build
from support.paths import DATA, EXAMPLE

ANNEX = DATA / "annex-a1-card.json"


def annex() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(ANNEX.read_text(encoding="utf-8"))
    del data["signatures"]
    return data


def key_order(value: Any) -> Any:
    """The value with every object turned into its list of (key, value) pairs, in order."""
    if isinstance(value, dict):
        return [(k, key_order(v)) for k, v in value.items()]
    if isinstance(value, list):
        return [key_order(v) for v in value]
    return value


def test_bundled_example_loads_without_findings() -> None:
    cfg = load_operator(EXAMPLE)
    assert cfg.findings == []


def test_unsigned_card_equals_annex_a1_field_for_field() -> None:
    card = build_card(load_operator(EXAMPLE))
    assert card == annex()


def test_unsigned_card_has_annex_a1_key_order_at_every_level() -> None:
    card = build_card(load_operator(EXAMPLE))
    assert key_order(card) == key_order(annex())
    assert list(card) == ["name", "description", "supportedInterfaces", "provider", "version",
                          "capabilities", "securitySchemes", "defaultInputModes",
                          "defaultOutputModes", "skills"]


def test_built_and_signed_card_without_signatures_equals_annex_a1(example: Path) -> None:
    result = run_build(example)
    assert result.report.ok, report_text(result.report)
    published = json.loads((example.parent / "site" / CARD).read_bytes())
    assert list(published)[-1] == "signatures"
    assert len(published.pop("signatures")) == 1
    assert published == annex()
    assert key_order(published) == key_order(annex())


def test_card_is_written_pretty_with_a_final_newline(example: Path) -> None:
    run_build(example)
    raw = (example.parent / "site" / CARD).read_bytes()
    text = raw.decode("utf-8")
    assert text.startswith('{\n  "name": "Example Memorial Chapel assistant",\n')
    assert text.endswith("}\n")
