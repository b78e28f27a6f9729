"""Issue 2, item 3: strict loading of operator.yaml.

Each fault with the smallest input that shows it, asserting rule, line, column
and the words of the message and hint:

* duplicate keys name both lines;
* YAML 1.1 surprises (unquoted ``no``, ``yes``, ``on``, ``off``, ``1.10``,
  ``10:30``, ``+441234567890``, ``01234``, ``2026-01-01``) are the text typed
  where the schema expects text, and reach the card as that text; where
  ``true``/``false`` or a number is expected they are rejected with the fix;
* unknown keys come with a did-you-mean;
* every error of a run is reported, together.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from acap.card import build_card
from acap.cli import finding_text, report_text
from acap.findings import Finding
from acap.load import load_operator
from acap.requirements import rule_ids
from support.cards import acap, run_build

Write = Callable[..., Path]

SURPRISES = ["no", "yes", "on", "off", "1.10", "10:30", "+441234567890", "01234", "2026-01-01"]

#: The smallest operator.yaml that builds a card; {v} is the value under test.
TEXT_PLACES = """\
operator:
  name: {v}
  website: https://a.example
agent:
  name: A
  description: {v}
  version: {v}
  interfaces:
    - url: https://a.example/a2a
skills:
  - id: s
    kind: public
    name: {v}
    description: D
    tags:
      - {v}
    examples: [{v}]
"""


def only(findings: list[Finding], rule: str) -> Finding:
    hits = [f for f in findings if f.rule == rule]
    assert len(hits) == 1, [finding_text(f) for f in findings]
    return hits[0]


def where(f: Finding) -> tuple[int | None, int | None]:
    return f.location.line, f.location.column


# -- text places: read as typed, and reach the card as that text --------------------------------

@pytest.mark.parametrize("value", SURPRISES)
def test_surprise_is_the_text_typed_where_text_is_expected(write_operator: Write,
                                                           value: str) -> None:
    cfg = load_operator(write_operator(TEXT_PLACES.format(v=value)))
    assert cfg.findings == []
    card = build_card(cfg)
    assert card["provider"]["organization"] == value
    assert card["description"] == value
    assert card["version"] == value
    assert card["skills"][0]["name"] == value
    assert card["skills"][0]["tags"] == [value]
    assert card["skills"][0]["examples"] == [value]


@pytest.mark.parametrize("value", ["1.10", "01234", "10:30", "2026-01-01"])
def test_surprise_reaches_the_published_card_as_text(write_operator: Write, value: str) -> None:
    path = write_operator(TEXT_PLACES.format(v=value))
    result = run_build(path)
    assert result.report.ok, report_text(result.report)
    card = json.loads((path.parent / "site/a.example/.well-known/agent-card.json").read_bytes())
    assert card["version"] == value
    assert card["skills"][0]["tags"] == [value]


# -- boolean places: rejected with the fix ------------------------------------------------------

@pytest.mark.parametrize("value", ["no", "yes", "on", "off", "No", "YES", "Off"])
def test_yaml11_boolean_word_where_true_false_is_expected(write_operator: Write,
                                                          value: str) -> None:
    cfg = load_operator(write_operator(f"specSite: {value}\n"))
    f = only(cfg.findings, "YAML-AMBIGUOUS")
    assert where(f) == (1, 11)
    assert f.message == f"'{value}' could be read as true or false, or as the word {value}"
    assert "YAML 1" not in f.message
    assert f.hint == "write true or false"
    assert f.location.pointer == "/specSite"


@pytest.mark.parametrize("value", ["1.10", "10:30", "+441234567890", "01234", "2026-01-01"])
def test_other_surprises_where_true_false_is_expected(write_operator: Write, value: str) -> None:
    cfg = load_operator(write_operator(f"specSite: {value}\n"))
    f = only(cfg.findings, "SCHEMA-TYPE")
    assert where(f) == (1, 11)
    assert f.message == f"'specSite' must be true or false, found the text '{value}'"
    assert f.hint == "write true or false"


def test_quoted_boolean_is_told_to_lose_its_quotes(write_operator: Write) -> None:
    cfg = load_operator(write_operator('specSite: "true"\n'))
    f = only(cfg.findings, "SCHEMA-TYPE")
    assert where(f) == (1, 11)
    assert f.hint == "remove the quotes: write true or false"


@pytest.mark.parametrize("value", ["true", "false", "True", "FALSE"])
def test_yaml12_booleans_are_booleans(write_operator: Write, value: str) -> None:
    cfg = load_operator(write_operator(f"specSite: {value}\n"))
    assert cfg.data["specSite"] is (value.lower() == "true")
    assert not [f for f in cfg.findings if f.location.pointer == "/specSite"]


def test_boolean_surprise_in_a_card_field(example: Path) -> None:
    text = example.read_text(encoding="utf-8").replace("  streaming: false\n", "  streaming: no\n")
    example.write_text(text, encoding="utf-8")
    line = text.splitlines().index("  streaming: no") + 1
    cfg = load_operator(example)
    f = only(cfg.findings, "YAML-AMBIGUOUS")
    assert where(f) == (line, 14)
    assert f.location.pointer == "/agent/streaming"


# -- number places: rejected with the fix -------------------------------------------------------

NUMBER_PLACE = "skills: [{safeguards: {attestationLevel: %s}}]\n"
COL = NUMBER_PLACE.index("%s") + 1


@pytest.mark.parametrize(("value", "message", "hint"), [
    ("01234", "'01234' has a leading zero, so it could be read as an octal number (base 8)",
     "write 1234, without the leading zero"),
    ("10:30", "'10:30' is not a number: it could be read as a time or as a base-60 number",
     "write the number in plain digits, e.g. 2"),
    ("2026-01-01", "'2026-01-01' is not a number: it reads as a date",
     "write the number in plain digits, e.g. 2"),
])
def test_ambiguous_number_where_a_number_is_expected(write_operator: Write, value: str,
                                                     message: str, hint: str) -> None:
    cfg = load_operator(write_operator(NUMBER_PLACE % value))
    f = only(cfg.findings, "YAML-AMBIGUOUS")
    assert where(f) == (1, COL)
    assert (f.message, f.hint) == (message, hint)
    assert f.location.pointer == "/skills/0/safeguards/attestationLevel"


@pytest.mark.parametrize("value", ["1.10", "no", "on"])
def test_not_a_whole_number_where_one_is_expected(write_operator: Write, value: str) -> None:
    cfg = load_operator(write_operator(NUMBER_PLACE % value))
    f = only(cfg.findings, "SCHEMA-TYPE")
    assert where(f) == (1, COL)
    assert f.message == f"'attestationLevel' must be a whole number, found the text '{value}'"
    assert f.hint == "write a whole number such as 2"


def test_phone_like_number_where_a_small_number_is_expected(write_operator: Write) -> None:
    # +441234567890 is an integer in YAML 1.2 too: it is read as one, and the range says no.
    cfg = load_operator(write_operator(NUMBER_PLACE % "+441234567890"))
    f = only(cfg.findings, "SCHEMA-VALUE")
    assert where(f) == (1, COL)
    assert f.message == "'attestationLevel' is 441234567890; it must be at most 3"
    assert f.hint == "write a number at most 3"


def test_quoted_number_is_told_to_lose_its_quotes(write_operator: Write) -> None:
    cfg = load_operator(write_operator(NUMBER_PLACE % '"2"'))
    f = only(cfg.findings, "SCHEMA-TYPE")
    assert f.hint == "remove the quotes: write a whole number such as 2"


def test_plain_number_is_a_number(write_operator: Write) -> None:
    cfg = load_operator(write_operator(NUMBER_PLACE % "2"))
    assert cfg.data["skills"][0]["safeguards"]["attestationLevel"] == 2
    assert not [f for f in cfg.findings if f.rule in ("YAML-AMBIGUOUS", "SCHEMA-TYPE")]


# -- duplicate and unknown keys -----------------------------------------------------------------

def test_duplicate_key_names_both_lines(write_operator: Write) -> None:
    cfg = load_operator(write_operator("specSite: true\nspecSite: false\n"))
    f = only(cfg.findings, "YAML-DUPLICATE-KEY")
    assert where(f) == (2, 1)
    assert f.message == "duplicate key 'specSite' (first at line 1)"
    assert f.hint == "keep one 'specSite' and delete the other"


def test_duplicate_key_in_a_nested_mapping(write_operator: Write) -> None:
    text = "agent:\n  name: A\n  version: '1'\n  name: B\n"
    f = only(load_operator(write_operator(text)).findings, "YAML-DUPLICATE-KEY")
    assert where(f) == (4, 3)
    assert f.message == "duplicate key 'name' (first at line 2)"


def test_unknown_top_level_key_with_did_you_mean(write_operator: Write) -> None:
    f = only(load_operator(write_operator("specSit: true\n")).findings, "SCHEMA-UNKNOWN-KEY")
    assert where(f) == (1, 1)
    assert f.message == "unknown key 'specSit'"
    assert f.hint == "did you mean 'specSite'?"


def test_unknown_nested_key_with_did_you_mean(write_operator: Write) -> None:
    text = "skills:\n  - id: s\n    persnEntry: https://a.example/ask\n"
    f = only(load_operator(write_operator(text)).findings, "SCHEMA-UNKNOWN-KEY")
    assert where(f) == (3, 5)
    assert f.message == "unknown key 'persnEntry'"
    assert f.hint == "did you mean 'personEntry'?"


def test_unknown_key_far_from_any_lists_what_is_allowed(write_operator: Write) -> None:
    f = only(load_operator(write_operator("contact:\n  zzz: 1\n")).findings,
             "SCHEMA-UNKNOWN-KEY")
    assert where(f) == (2, 3)
    assert f.hint == "remove it; allowed here: phone, email, address, hours, languages"


# -- all errors together ------------------------------------------------------------------------

ALL_AT_ONCE = """\
operator: {name: A, website: https://a.example}
agent:
  name: A
  description: B
  version: 1.10
  interfaces: [{url: https://a.example/a2a}]
  streaming: yes
  streaming: false
skills:
  - {id: s, kind: publc, name: S, description: D, tags: [t]}
  - {id: t, kind: public, name: T, description: D, tags: [t], exampels: [x]}
specSite: off
"""


def test_every_error_of_a_file_is_reported_together(write_operator: Write) -> None:
    cfg = load_operator(write_operator(ALL_AT_ONCE))
    got = sorted((f.location.line, f.location.column, f.rule) for f in cfg.findings)
    assert got == [
        (7, 14, "YAML-AMBIGUOUS"),
        (8, 3, "YAML-DUPLICATE-KEY"),
        (10, 19, "SCHEMA-ENUM"),
        (11, 63, "SCHEMA-UNKNOWN-KEY"),
        (12, 11, "YAML-AMBIGUOUS"),
    ]
    enum = only(cfg.findings, "SCHEMA-ENUM")
    assert enum.hint == "did you mean 'public'?"
    assert cfg.data["agent"]["version"] == "1.10"


def test_cli_prints_every_error_with_file_line_and_column(write_operator: Write) -> None:
    path = write_operator(ALL_AT_ONCE)
    result = acap("build", "-c", str(path))
    assert result.exit_code == 1
    lines = [ln for ln in result.stderr.splitlines() if ": error: " in ln]
    assert [ln.split(": error: ")[0] for ln in lines] == [
        f"{path}:7:14", f"{path}:8:3", f"{path}:10:19", f"{path}:11:63", f"{path}:12:11"]
    # the requirement checks run beside the loading errors: no skill reaches staff
    assert "[OR-5.10]" in result.stderr
    assert "5 errors, 1 warning" in result.stderr
    assert not (path.parent / "site").exists()


def test_every_rule_a_loading_finding_cites_is_registered(write_operator: Write) -> None:
    texts = [ALL_AT_ONCE, "specSite: 1\n", NUMBER_PLACE % "9", "signIn: {x: {description: y}}\n",
             "\tspecSite: true\n", "skills: []\n", "operator: {name: ''}\n"]
    for text in texts:
        for f in load_operator(write_operator(text)).findings:
            assert f.rule in rule_ids(), finding_text(f)


# -- the file itself ----------------------------------------------------------------------------

def test_tab_indentation(write_operator: Write) -> None:
    f = only(load_operator(write_operator("agent:\n\tname: A\n")).findings, "YAML-TAB")
    assert where(f) == (2, 1)
    assert f.message == "line 2 is indented with a tab"
    assert f.hint is not None and f.hint.startswith("YAML indents with spaces, never tabs")


def test_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "operator.yaml"
    path.write_bytes(b"operator:\n  name: Caf\xe9\n")
    f = only(load_operator(path).findings, "YAML-ENCODING")
    assert where(f) == (2, 12)
    assert f.message == "byte 0xe9 is not UTF-8 text"


def test_utf16_file(tmp_path: Path) -> None:
    path = tmp_path / "operator.yaml"
    path.write_bytes("specSite: true\n".encode("utf-16"))
    f = only(load_operator(path).findings, "YAML-ENCODING")
    assert f.message.endswith("is UTF-16, not UTF-8")


def test_missing_file_is_a_finding(tmp_path: Path) -> None:
    f = only(load_operator(tmp_path / "nope.yaml").findings, "FILE")
    assert f.message.startswith("cannot read")


def test_empty_file(write_operator: Write) -> None:
    f = only(load_operator(write_operator("# nothing\n")).findings, "YAML-EMPTY")
    assert where(f) == (1, 1)


def test_merge_keys_and_tags_are_refused(write_operator: Write) -> None:
    text = "agent: &a {name: A}\noperator:\n  <<: *a\nspecSite: !env X\n"
    cfg = load_operator(write_operator(text))
    assert where(only(cfg.findings, "YAML-MERGE")) == (3, 3)
    assert where(only(cfg.findings, "YAML-TAG")) == (4, 11)


def test_alias_bomb_is_stopped(write_operator: Write) -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 8):
        prev = f"*a{i - 1}"
        lines.append(f"a{i}: &a{i} [{', '.join([prev] * 10)}]")
    cfg = load_operator(write_operator("\n".join(lines) + "\n"))
    f = only(cfg.findings, "YAML-ALIAS")
    assert f.message == "anchors and aliases expand to too many values"
