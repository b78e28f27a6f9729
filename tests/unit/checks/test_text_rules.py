"""Text that must mean what it shows (trial report items 9 and 11).

* text of only spaces or invisible characters has no value: an error at its line in
  operator.yaml, ``A2A-REQUIRED`` in a card where A2A requires the field;
* bidirectional controls and other invisible characters are errors, in operator.yaml
  and in cards; the joiners scripts and emoji need are not;
* overlong text is a warning with the limit;
* ``protocolVersion`` is a version A2A defines for the card;
* a kid is one plain word;
* OR-3.8's word list knows the words of funerals in six languages.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from acap.checks import check_card
from acap.checks._a2a_structure import version_problems
from acap.checks._words import revealing_word
from acap.cli import finding_text
from acap.findings import Finding
from acap.load import blank, hidden_characters, load_operator
from support.cards import run_build
from support.paths import CASES, EXAMPLE

Write = Callable[..., Path]
CARD = CASES / "card" / "valid" / "annex-a-like.json"


def example_with(old: str, new: str) -> str:
    text = EXAMPLE.read_text(encoding="utf-8")
    assert old in text
    return text.replace(old, new, 1)


def line_of(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.split("\n"), 1) if needle in line)


def rules(findings: list[Finding]) -> list[tuple[str, str, int | None]]:
    return sorted((f.rule, f.level, f.location.line) for f in findings)


# -- blank text ---------------------------------------------------------------------------------

@pytest.mark.parametrize("value", ['"   "', '"\\u200b"', '"\\u3000\\u00a0"', '"\\u2060\\t"',
                                   '"\\u3164"'])
def test_blank_skill_name_is_an_error_and_never_built(write_operator: Write,
                                                     value: str) -> None:
    text = example_with("    name: Opening hours and location\n", f"    name: {value}\n")
    path = write_operator(text)
    result = run_build(path)
    assert rules(result.report.errors) == [("SCHEMA-EMPTY", "error", 50)]
    f = result.report.errors[0]
    assert f.message == "'name' has only spaces or invisible characters"
    assert f.hint == "write the text"
    assert not (path.parent / "site").exists()


def test_blank_text_everywhere_text_is_required(write_operator: Write) -> None:
    text = (example_with("  name: Example Memorial Chapel\n", '  name: "  "\n')
            .replace("    tags: [hours, location]", '    tags: [hours, " "]', 1)
            .replace("      - When is Example Memorial Chapel open?", '      - " "', 1)
            .replace("  hours: Monday to Friday 09:00 to 17:00", '  hours: "\\u200b"', 1))
    cfg = load_operator(write_operator(text))
    lines = text.splitlines()
    at = [next(i for i, line in enumerate(lines, 1) if marker in line)
          for marker in ('  name: "  "', 'tags: [hours, " "]', '      - " "', 'hours: "\\u200b"')]
    assert rules(cfg.findings) == [("SCHEMA-EMPTY", "error", n) for n in at]
    assert {f.hint for f in cfg.findings} == {"write the text",
                                              "write the text, or delete the line"}


def test_text_with_letters_and_joiners_is_not_blank() -> None:
    assert blank("   ") and blank("\u200b") and blank("\u3164") and blank("\t\n")
    assert not blank("") and not blank(" a ") and not blank("👨\u200d👩")


def card_with(change: Callable[[dict[str, object]], None], tmp_path: Path) -> list[Finding]:
    card = json.loads(CARD.read_text(encoding="utf-8"))
    change(card)
    path = tmp_path / "card.json"
    path.write_text(json.dumps(card, indent=2, ensure_ascii=False), encoding="utf-8")
    return list(check_card(str(path)).report)


def test_acap_check_refuses_a_blank_required_string(tmp_path: Path) -> None:
    def change(card: dict[str, object]) -> None:
        card["skills"][0]["name"] = "   "  # type: ignore[index]

    found = [f for f in card_with(change, tmp_path) if f.level == "error"]
    assert [(f.rule, f.location.pointer) for f in found] == [("A2A-REQUIRED", "/skills/0/name")]
    assert "a REQUIRED string must have a value" in found[0].message


def test_acap_check_warns_of_blank_optional_text(tmp_path: Path) -> None:
    def change(card: dict[str, object]) -> None:
        card["documentationUrl"] = "  "

    found = [f for f in card_with(change, tmp_path) if f.location.pointer == "/documentationUrl"]
    assert ("A2A-EMPTY", "warning") in {(f.rule, f.level) for f in found}


# -- hidden characters -------------------------------------------------------------------------

@pytest.mark.parametrize("ch", ["\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066",
                                "\u2067", "\u2068", "\u2069", "\u200b", "\u2060", "\ufeff",
                                "\u00ad", "\U000e0041", "\x07"])
def test_hidden_characters_are_found(ch: str) -> None:
    assert hidden_characters(f"Service{ch}costs") == [ch]


@pytest.mark.parametrize("text", ["Pompes funèbres Éloïse", "مرحبا\u200f 2", "می\u200cخواهم",
                                  "👨\u200d👩\u200d👧", "\U0001f3f4\U000e0067\U000e0062\U000e0073"
                                  "\U000e0063\U000e0074\U000e007f Scotland", "tab\there\nline"])
def test_text_that_needs_format_characters_passes(text: str) -> None:
    assert hidden_characters(text) == []


def test_bidi_override_in_operator_yaml(write_operator: Write) -> None:
    text = example_with("    name: Opening hours and location\n",
                        '    name: "Opening \\u202Enoitacol"\n')
    result = run_build(write_operator(text))
    assert rules(result.report.errors) == [("TEXT-INVISIBLE", "error", 50)]
    assert "U+202E (RIGHT-TO-LEFT OVERRIDE)" in result.report.errors[0].message


def test_bidi_isolate_in_a_card(tmp_path: Path) -> None:
    def change(card: dict[str, object]) -> None:
        card["description"] = "Prices \u2066free\u2069 on request"

    found = [f for f in card_with(change, tmp_path) if f.rule == "TEXT-INVISIBLE"]
    assert [(f.level, f.location.pointer) for f in found] == [("error", "/description")]
    assert "and 1 more" in found[0].message


# -- length ------------------------------------------------------------------------------------

def test_overlong_skill_name_is_a_warning_with_the_limit(write_operator: Write) -> None:
    text = example_with("    name: Opening hours and location\n",
                        "    name: " + "x" * 201 + "\n")
    result = run_build(write_operator(text))
    assert result.report.ok
    [f] = [f for f in result.report if f.rule == "TEXT-LENGTH"]
    assert (f.level, f.location.line) == ("warning", 50)
    assert f.message == "'name' is 201 characters long; keep it under 200"


def test_a_name_at_the_limit_is_fine(write_operator: Write) -> None:
    text = example_with("    name: Opening hours and location\n",
                        "    name: " + "x" * 200 + "\n")
    cfg = load_operator(write_operator(text))
    assert [f for f in cfg.findings if f.rule == "TEXT-LENGTH"] == []


def test_overlong_description_and_card(write_operator: Write) -> None:
    long = "word " * 600  # 3,000 characters: over the 2,000 of a description
    text = example_with("    description: States the chapel's opening hours and where to find it.",
                        "    description: " + long)
    examples = "".join(f"      - Question {i}, {'x ' * 900}\n" for i in range(40))
    text = text.replace("      - When is Example Memorial Chapel open?\n",
                        "      - When is Example Memorial Chapel open?\n" + examples, 1)
    result = run_build(write_operator(text))
    found = {(f.rule, f.level, f.location.line) for f in result.report
             if f.rule == "TEXT-LENGTH"}
    assert ("TEXT-LENGTH", "warning", 51) in found
    card = [f for f in result.report if f.rule == "TEXT-LENGTH" and "KiB" in f.message]
    assert len(card) == 1 and card[0].message.endswith("keep it under 64 KiB")


# -- protocolVersion ---------------------------------------------------------------------------

@pytest.mark.parametrize(("version", "level", "words"), [
    ("1.0", None, ""),
    ("0.3", "error", "is the earlier A2A 0.3; this card is A2A 1.0"),
    ("0.2", "error", "is the earlier A2A 0.2"),
    ("9.9", "warning", "is not a version A2A defines for this card (1.0)"),
    ("1.1", "warning", "is not a version A2A defines"),
    ("1.0.1", "warning", "written otherwise than Major.Minor"),
    ("banana", "error", "is not a version number"),
    ("v1", "error", "is not a version number"),
])
def test_protocol_version(version: str, level: str | None, words: str) -> None:
    problems = version_problems(version, [version])
    if level is None:
        assert problems == []
        return
    [p] = problems
    assert (p.rule, p.level) == ("A2A-PROTOCOL-VERSION", level)
    assert words in p.message
    assert "1.0" in (p.hint or "")


def test_an_earlier_interface_beside_a_current_one_is_a_warning() -> None:
    [p] = version_problems("0.3", ["1.0", "0.3"])
    assert p.level == "warning"


def test_protocol_version_banana_is_not_built(write_operator: Write) -> None:
    path = write_operator(example_with('protocolVersion: "1.0"', 'protocolVersion: banana'))
    result = run_build(path)
    assert rules(result.report.errors) == [("A2A-PROTOCOL-VERSION", "error", 26)]
    assert not (path.parent / "site").exists()


# -- kid ---------------------------------------------------------------------------------------

@pytest.mark.parametrize(("kid", "what"), [('"chapel 1"', "a space"),
                                           ('"chapel-1\\nvalid"', "U+000A"),
                                           ('"chapel-1\\u202e"', "U+202E"),
                                           ('"chapel-1\\t"', "U+0009")])
def test_kid_with_space_or_control_character(write_operator: Write, kid: str,
                                             what: str) -> None:
    text = example_with("  kid: chapel-1\n", f"  kid: {kid}\n")
    path = write_operator(text)
    cfg = load_operator(path)
    found = [f for f in cfg.findings if f.level == "error"]
    assert [f.rule for f in found] == ["KEY-ID"], [finding_text(f) for f in cfg.findings]
    assert what in found[0].message
    assert found[0].location.line == line_of(text, "  kid:")


# -- OR-3.8 words ------------------------------------------------------------------------------

@pytest.mark.parametrize("path", [
    "/cremation", "/cremations", "/cremate", "/crematorium", "/burial", "/burials",
    "/obituary", "/obituaries", "/death", "/deaths", "/death-notice", "/deathnotices",
    "/fr/cremation", "/inhumation", "/enterrement", "/necrologie",
    "/Einäscherung", "/Feuerbestattung", "/beisetzung", "/nachruf", "/Todesanzeigen",
    "/cremación", "/entierros", "/sepelio", "/esquelas",
    "/crematie", "/cremeren", "/begraven", "/teraardebestelling",
    "/cremazione", "/sepoltura", "/necrologi",
])
def test_funeral_words_reveal_circumstances(path: str) -> None:
    assert revealing_word(path) is not None, path


@pytest.mark.parametrize("path", ["/deathstar", "/talk", "/contact", "/mortgage", "/todo",
                                  "/mortal", "/bury", "/ask"])
def test_everyday_words_do_not(path: str) -> None:
    assert revealing_word(path) is None, path


# Fresh-operator trial (LOW): Spanish and Catalan/Valencian forms the lists missed.
@pytest.mark.parametrize("path", [
    "/embarazadas", "/info-embarazada", "/enfermas", "/tanatorio", "/velatorio",
    "/pesame", "/condolencias", "/malaltes", "/soterrament", "/tanatori", "/condol",
    "/pesam", "/embarassades",
])
def test_spanish_and_valencian_forms_reveal_circumstances(path: str) -> None:
    assert revealing_word(path) is not None, path


@pytest.mark.parametrize("path", ["/pregunte-por-precios", "/por", "/enfermeria",
                                  "/consulta", "/pregunteu", "/preus", "/cita-previa",
                                  "/pesas", "/portal"])
def test_neutral_spanish_and_catalan_paths_do_not(path: str) -> None:
    assert revealing_word(path) is None, path


def test_por_does_not_make_portuguese_spanish() -> None:
    """'por' is as common in Portuguese as in Spanish: it told nothing, and made a
    Portuguese card's words read as Spanish (OR-5.10 then looked for Spanish words)."""
    from acap.checks._words import text_language

    assert text_language("Falamos por telefone para marcar consultas") is None
    assert text_language("Hablar con nuestro equipo por teléfono") == "es"


def test_the_neutral_path_hint_is_not_only_english() -> None:
    """A Valencian or Spanish page's neutral path is a word of its own language: the hint
    says so, for the certain error and for the guess alike."""
    from acap.checks._person_entry_rules import said_about_the_person

    [guess] = said_about_the_person("/embarazadas", "", "")
    [certain] = said_about_the_person("/duelo", "", "")
    assert (guess.rule, guess.level, certain.level) == ("OR-3.8", "warning", "error")
    for p in (guess, certain):
        assert "or a word of your page's language that says nothing about the person " \
               "(/consulta, /contacte)" in p.hint
