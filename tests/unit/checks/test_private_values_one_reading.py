"""OR-3.9 reads skill text as ``acap check-reply`` reads a reply (trial 3, F4): a value of
operator.private.yaml spelled out in words is the same error in ``acap build``, in
``acap check operator.yaml`` and (under OR-5.3) in ``acap check-reply --operator``, at the
same place; in a card, an amount spelled out is the same OR-3.9 warning as one in digits."""

from __future__ import annotations

import json
from pathlib import Path

from support.cards import acap, run_build

WORDS = "thirteen hundred and ninety-five pounds"
#: The smallest operator.yaml that breaks OR-3.9 with the words: line 14 holds them.
OPERATOR = f"""\
operator:
  name: Example Chapel
  website: https://example.com
agent:
  name: Example Chapel assistant
  description: Answers questions for Example Chapel.
  version: 1.0.0
  interfaces:
    - url: https://agent.example.com/a2a/v1
skills:
  - id: service-pricing
    kind: on-request
    name: Service costs
    description: Costs of our services, from {WORDS}.
    tags: [pricing]
    personEntry: https://example.com/talk
"""
PRIVATE = 'service-pricing:\n  - "£1,395"\n'
EXPECTED = ("{d}/operator.yaml:14:18: error: the description of skill 'service-pricing' "
            "contains a value you give on request ({d}/operator.private.yaml line 2 "
            "(service-pricing)) [OR-3.9]")


def _project(folder: Path) -> Path:
    (folder / "operator.private.yaml").write_text(PRIVATE, encoding="utf-8")
    path = folder / "operator.yaml"
    path.write_text(OPERATOR, encoding="utf-8")
    return path


def _errors(stderr: str) -> list[str]:
    return [ln for ln in stderr.splitlines() if ": error: " in ln]


def test_build_refuses_a_private_value_spelled_out(tmp_path: Path) -> None:
    path = _project(tmp_path)
    res = acap("build", "-c", str(path), "--no-spec-site")
    assert res.exit_code == 1
    assert _errors(res.stderr) == [EXPECTED.format(d=tmp_path)], res.stderr
    assert not (tmp_path / "site").exists()


def test_check_gives_the_build_verdict(tmp_path: Path) -> None:
    path = _project(tmp_path)
    res = acap("check", str(path))
    assert res.exit_code == 1
    assert _errors(res.stderr) == [EXPECTED.format(d=tmp_path)], res.stderr


def test_check_reply_and_check_agree_on_the_same_words(example: Path) -> None:
    assert run_build(example).report.ok
    card = example.parent / "site" / "example.com" / ".well-known" / "agent-card.json"
    (example.parent / "operator.private.yaml").write_text(PRIVATE, encoding="utf-8")
    reply = example.parent / "reply.json"
    reply.write_text(json.dumps({"messageId": "m1", "role": "ROLE_AGENT", "parts": [{
        "text": "The chapel gives this to the person who asks: https://ask.example.com/talk "
                f"(It is {WORDS}.)"}]}), encoding="utf-8")
    said = acap("check-reply", str(reply), "--card", str(card), "--not-activated",
                "--skill", "service-pricing", "--operator", str(example))
    assert said.exit_code == 1
    assert [e.rsplit(" ", 1)[1] for e in _errors(said.stderr)] == ["[OR-5.3]"], said.stderr
    assert "operator.private.yaml line 2 (service-pricing))" in _errors(said.stderr)[0]
    text = example.read_text(encoding="utf-8")
    old = "Costs and inclusions of the chapel's services."
    example.write_text(text.replace(old, f"Costs from {WORDS}.", 1), encoding="utf-8")
    checked = acap("check", str(example))
    assert checked.exit_code == 1
    errors = _errors(checked.stderr)
    assert len(errors) == 1 and errors[0].endswith("[OR-3.9]"), checked.stderr
    assert "operator.private.yaml line 2 (service-pricing))" in errors[0]
    assert errors[0].startswith(f"{example}:59:")


def test_a_card_with_an_amount_spelled_out_warns_as_with_digits(tmp_path: Path) -> None:
    assert run_build(_fresh(tmp_path)).report.ok
    card = tmp_path / "site" / "example.com" / ".well-known" / "agent-card.json"
    data = json.loads(card.read_text(encoding="utf-8"))
    pricing = next(i for i, s in enumerate(data["skills"]) if s["id"] == "service-pricing")
    data["skills"][pricing]["description"] = f"Costs, from {WORDS}."
    changed = tmp_path / "card.json"
    changed.write_text(json.dumps(data, indent=1), encoding="utf-8")
    line = next(n for n, ln in enumerate(changed.read_text().split("\n"), 1) if WORDS in ln)
    res = acap("check", str(changed))
    warned = [ln for ln in res.stderr.splitlines() if "[OR-3.9]" in ln]
    assert len(warned) == 1 and warned[0].startswith(f"{changed}:{line}:"), res.stderr
    assert ": warning: the description of on-request skill 'service-pricing' contains an " \
           f"amount of money ('{WORDS.replace('-', ' ')}')" in warned[0]  # its words, folded


def _fresh(folder: Path) -> Path:
    path = folder / "operator.yaml"
    path.write_text(OPERATOR.replace(f", from {WORDS}", ""), encoding="utf-8")
    return path
