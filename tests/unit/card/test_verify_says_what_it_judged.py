"""``acap verify`` judges signatures, not what the card declares (trial 3, F8): a card
whose signature verifies and which breaks a MUST of the extension exits 0 in verify, whose
last line says that only the signatures were judged, and 1 in ``acap check``, which names
the rule at its line."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from acap.card import Signer, build_card
from acap.cli._reporters import SIGNATURES_VERIFIED
from acap.keys import SigningKey, jwks
from acap.load import load_operator
from support.cards import acap, new_private
from support.paths import EXAMPLE


def test_verify_says_signatures_and_check_finds_the_duplicate_id(tmp_path: Path) -> None:
    card = copy.deepcopy(build_card(load_operator(EXAMPLE)))
    card["skills"].append(copy.deepcopy(card["skills"][0]))  # two skills with one id
    key = SigningKey(new_private("ES256"), "ES256", "chapel-1")
    signed = Signer(key, jku=None).sign(card)
    path = tmp_path / "card.json"
    path.write_text(json.dumps(signed, indent=1), encoding="utf-8")
    keys = tmp_path / "jwks.json"
    keys.write_text(json.dumps(jwks(key, [])), encoding="utf-8")
    verified = acap("verify", str(path), "--jwks", str(keys))
    assert verified.exit_code == 0, verified.output
    assert verified.stdout.splitlines()[-1] == SIGNATURES_VERIFIED
    assert SIGNATURES_VERIFIED == ("signatures verified (the card's content is judged by "
                                   "acap check)")
    checked = acap("check", str(path))
    assert checked.exit_code == 1
    dup = [ln for ln in checked.stderr.splitlines() if ln.endswith("[A2A-SKILL-ID]")]
    lines = path.read_text(encoding="utf-8").split("\n")
    needle = '"id": ' + json.dumps(card["skills"][0]["id"])
    where = [n for n, ln in enumerate(lines, 1) if needle in ln]
    assert len(dup) == 1 and ": error: " in dup[0], checked.stderr
    assert dup[0].startswith(f"{path}:{where[-1]}:"), dup
