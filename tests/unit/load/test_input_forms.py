"""Inputs acap refuses or warns about, and how it says so: hosts with a final dot, skill
ids that travel badly, NaN in a card, language tags (BCP 47), a site folder inside
templates/, and the messages of check, check-reply and URL-SCRIPT.

(The case files tests/cases/operator/url-form-trailing-dot.yaml, skill-id-form.yaml and
tests/cases/card/card-json-nan.json, skill-id-space.json, url-form-trailing-dot.json, and
tests/cases/reply/or-3.8-person-entry-query.json prove the rule ids and lines.)
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from acap.builder import BuildOptions, build
from acap.builder.pages._language_tags import is_well_formed, primary_language_is_reserved
from acap.checks import check_card
from acap.checks._declaration import skill_id_problem, suggested_id
from acap.checks._urls import host_problems, url_problems
from acap.cli import report_text
from acap.errors import JsonTextError
from acap.load import json_loads, parse_reply
from support.cards import acap
from support.pages import example_data, run_build, write_yaml
from support.paths import CASES, SRC

A1_CARD = CASES / "reply" / "cards" / "annex-a1.json"
A_REPLY = CASES / "reply" / "or-6.1-person-entry-differs.json"


# -- a host with a final dot ------------------------------------------------------------------

def test_a_final_dot_is_refused_with_the_fix() -> None:
    [p] = host_problems("ask.example.com.", what="cardHost")
    assert (p.rule, p.level, p.message) == ("URL-FORM", "error",
                                            "cardHost 'ask.example.com.' ends with a dot")
    assert p.hint.startswith("drop the final dot: write ask.example.com ")
    [p] = url_problems("https://ask.example.com./talk", what="the address")
    assert p.message == "the host of the address 'ask.example.com.' ends with a dot"
    assert host_problems("ask.example.com") == []


def test_a_final_dot_in_person_entry_is_one_finding_not_also_a_foreign_origin(
        tmp_path: Path) -> None:
    data = example_data()
    data["skills"][1]["personEntry"] = "https://ask.example.com./talk"
    result = run_build(write_yaml(tmp_path, data))
    assert [(f.rule, f.location.pointer) for f in result.report.errors] == [
        ("URL-FORM", "/skills/1/personEntry")]
    assert result.card is None


# -- skill ids --------------------------------------------------------------------------------

@pytest.mark.parametrize(("sid", "says"), [
    ("service pricing", "a space"),
    ("a/b", "a slash"),
    ("../../etc", "a slash"),
    ("a..b", "'..', a step up in a path"),
    (".", "only a dot"),
    ("service\npricing", "a line break"),
    ("a\u00a0b", "the space character U+00A0 (NO-BREAK SPACE)"),
    ("a\ue000b", "the character U+E000"),
    ("ｓervice", "the character 'ｓ' (FULLWIDTH LATIN SMALL LETTER S), a look-alike that "
                "other programs may read as 's'"),
    ("ﬁle", "the character 'ﬁ' (LATIN SMALL LIGATURE FI), a look-alike that other programs "
            "may read as 'fi'"),
    ("price?", "the character '?'"),
])
def test_skill_ids_that_travel_badly(sid: str, says: str) -> None:
    assert skill_id_problem(sid) == says


@pytest.mark.parametrize("sid", ["service-pricing", "opening.hours_2", "café-ouvert", "営業時間",
                                 "a\u200bb", "a\x07b"])  # invisible ones: TEXT-INVISIBLE's
def test_skill_ids_that_are_fine(sid: str) -> None:
    assert skill_id_problem(sid) is None


def test_a_skill_id_fault_says_why_and_gives_a_fixed_id(tmp_path: Path) -> None:
    data = example_data()
    data["skills"][0]["id"] = "opening hours"
    result = run_build(write_yaml(tmp_path, data))
    [f] = result.report.errors
    assert (f.rule, f.location.pointer) == ("SKILL-ID", "/skills/0/id")
    assert "comes back as skillId in replies" in f.message
    assert f.hint == "write it with letters, digits and - . _ only, e.g. opening-hours"
    assert suggested_id("../../etc") == "etc"
    assert suggested_id("ｓervice") == "service"
    assert suggested_id("///") == "skill-id"


# -- NaN and JSON in plain words ---------------------------------------------------------------

@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_are_not_json(constant: str) -> None:
    with pytest.raises(JsonTextError) as err:
        json_loads('{\n  "name": "NaN",\n  "n": ' + constant + "\n}")
    assert (err.value.line, err.value.column) == (3, 8)
    assert err.value.message.startswith(f"{constant} is not a JSON number")
    assert json_loads('{"name": "NaN and Infinity"}') == {"name": "NaN and Infinity"}


def test_a_card_with_nan_is_refused(tmp_path: Path) -> None:
    card = json.loads(A1_CARD.read_text(encoding="utf-8"))
    path = tmp_path / "card.json"
    path.write_text(json.dumps(card, indent=2).replace('"name": "Example Memorial Chapel '
                                                       'assistant"', '"name": NaN'))
    [f] = check_card(str(path)).report.errors
    assert f.rule == "CARD-JSON"
    assert f.message == ("the card is not JSON: NaN is not a JSON number (RFC 8259 §6 has no "
                         "NaN or Infinity)")
    assert f.location.line == 2


@pytest.mark.parametrize(("text", "says", "line", "column"), [
    ("", "the file is empty", None, None),
    ("  \n", "the file is empty", None, None),
    ('{"a": 1\n "b": 2}', "a comma is missing between two values", 2, 2),
    ('{"a" 1}', "a colon is missing after a key", 1, 6),
    ("{'a': 1}", "a key is expected here, in double quotes (or a comma stands before a "
                 "closing })", 1, 2),
    ('{"a": True}', "a value is missing or is not JSON here (text goes in double quotes; true, "
                    "false and null are written in lower case)", 1, 7),
    ('{"a": "b}', "a text in double quotes is not closed", 1, 7),
    ('{} {}', "more follows the end of the JSON value (a file holds one value)", 1, 4),
])
def test_json_faults_in_plain_words(text: str, says: str, line: int | None,
                                    column: int | None) -> None:
    with pytest.raises(JsonTextError) as err:
        json_loads(text)
    assert (err.value.message, err.value.line, err.value.column) == (says, line, column)


def test_check_reply_on_an_empty_file(tmp_path: Path) -> None:
    empty = tmp_path / "reply.json"
    empty.write_text("")
    res = acap("check-reply", str(empty), "--card", str(A1_CARD))
    assert res.exit_code == 1
    assert f"{empty}: error: the file is empty [REPLY-JSON]" in res.stderr
    assert "Expecting value" not in res.output + res.stderr


def test_a_reply_that_is_not_json_says_where_in_plain_words() -> None:
    [f] = parse_reply('{"messageId": "m"\n "role": "ROLE_AGENT"}', "r.json").findings
    assert (f.rule, f.message, f.location.line, f.location.column) == (
        "REPLY-JSON", "the reply is not JSON: a comma is missing between two values", 2, 2)


# -- check-reply: what is wrong with a personEntry ---------------------------------------------

CARD_S = "; and it is not the card's personEntry (https://ask.example.com/talk)"


@pytest.mark.parametrize(("entry", "rule", "says"), [
    ("https://ask.example.com/talk?caller=123", "OR-3.8",
     "personEntry 'https://ask.example.com/talk?caller=123': it carries a query string "
     "(?caller=123); personEntry is the same address for every caller and says nothing "
     "about them" + CARD_S),
    # a neutral fragment says nothing about the person: only that it is not the card's
    ("https://ask.example.com/talk#you", "OR-6.1",
     "personEntry https://ask.example.com/talk#you is not the card's "
     "(https://ask.example.com/talk)"),
    ("http://ask.example.com/talk", "OR-3.4",
     "personEntry 'http://ask.example.com/talk' is http, not https" + CARD_S),
    ("tel:+44 20 7946 0000", "OR-3.4",
     "personEntry 'tel:+44 20 7946 0000' has spaces; a tel: address has none" + CARD_S),
    ("mailto:ask@example.com", "OR-3.4",
     "personEntry 'mailto:ask@example.com': mailto: addresses are not allowed" + CARD_S),
    # the card's own address in another spelling (RFC 3986 §6.2): no finding at all
    ("HTTPS://ASK.EXAMPLE.COM:443/talk", "", ""),
])
def test_check_reply_says_what_is_wrong_with_person_entry(tmp_path: Path, entry: str, rule: str,
                                                          says: str) -> None:
    """One fault, one finding: the §6.1 personEntry judged as the card's is, naming the
    card's address where it differs too."""
    reply = json.loads(A_REPLY.read_text(encoding="utf-8"))
    reply["metadata"]["https://agent-capability.org/ext/on-request/v1"]["personEntry"] = entry
    path = tmp_path / "reply.json"
    path.write_text(json.dumps(reply, indent=2))
    res = acap("check-reply", str(path), "--card", str(A1_CARD), "--activated")
    if not rule:
        assert res.exit_code == 0 and "error" not in res.stderr, res.stderr
        return
    assert f"{says} [{rule}]" in res.stderr, res.stderr
    assert res.stderr.count(" error: ") == 1, res.stderr


# -- acap check of an http URL ------------------------------------------------------------------

def test_check_of_an_http_url_says_cards_are_fetched_over_https() -> None:
    res = acap("check", "http://example.com/.well-known/agent-card.json")
    assert res.exit_code == 1
    assert ("hint: cards are fetched over https only (A2A §8.2 publishes them at "
            "https://HOST/.well-known/agent-card.json): check "
            "https://example.com/.well-known/agent-card.json") in res.output


# -- URL-SCRIPT in one plain sentence -------------------------------------------------------------

def test_url_script_is_one_plain_sentence() -> None:
    [p] = [p for p in url_problems("https://ex\u0430mple.com/", what="operator.website")
           if p.rule == "URL-SCRIPT"]
    assert p.message == ("the host of operator.website is 'ex\u0430mple.com', whose label "
                         "'ex\u0430mple' mixes Cyrillic and Latin letters, a common way to "
                         "imitate another name")
    [p] = [p for p in host_problems("xn--exmple-4nf.com", what="cardHost")
           if p.rule == "URL-SCRIPT"]
    assert p.message.startswith("cardHost is 'ex\u0430mple.com', whose label 'ex\u0430mple' "
                                "mixes Cyrillic and Latin letters")


# -- language tags (BCP 47) -----------------------------------------------------------------------

#: RFC 5646 Appendix A's examples of well-formed tags, and private use.
WELL_FORMED = ["de", "fr", "ja", "i-enochian", "zh-Hant", "zh-Hans", "sr-Cyrl", "sr-Latn",
               "zh-cmn-Hans-CN", "cmn-Hans-CN", "zh-yue-HK", "yue-HK", "zh-Hans-CN",
               "sr-Latn-RS", "sl-rozaj", "sl-rozaj-biske", "sl-nedis", "de-CH-1901",
               "sl-IT-nedis", "hy-Latn-IT-arevela", "de-DE", "en-US", "es-419",
               "de-CH-x-phonebk", "az-Arab-x-AZE-derbend", "x-whatever", "qaa-Qaaa-QM-x-southern",
               "de-Qaaa", "sr-Latn-QM", "sr-Qaaa-RS", "en-US-u-islamcal", "zh-CN-a-myext-x-private",
               "en-a-myext-b-another", "x-klingon", "i-klingon", "EN-gb"]
#: Appendix A's ill-formed ones, and other slips.
ILL_FORMED = ["de-419-DE", "a-DE", "", "en_GB", "en-", "-en", "en--GB", "x", "en-x",
              "abcdefghi", "123", "en-GB-a", "fr-ç", "en-US-u"]


@pytest.mark.parametrize("tag", WELL_FORMED)
def test_well_formed_language_tags(tag: str) -> None:
    assert is_well_formed(tag)
    assert not primary_language_is_reserved(tag)


@pytest.mark.parametrize("tag", ILL_FORMED)
def test_ill_formed_language_tags(tag: str) -> None:
    assert not is_well_formed(tag)


def test_a_language_subtag_of_five_letters_is_well_formed_but_names_no_language() -> None:
    assert is_well_formed("english") and primary_language_is_reserved("english")


def test_a_private_use_page_language_builds_with_its_words_file(tmp_path: Path) -> None:
    data = example_data()
    data["page"] = {"languages": ["en", "x-klingon"]}
    data["contact"]["languages"] = ["en", "x-klingon"]
    config = write_yaml(tmp_path, data)
    [f] = run_build(config).report.errors
    assert (f.rule, f.message) == ("PAGE-WORDS", "acap has no words for the language x-klingon "
                                                 "for the page yet")
    assert f.hint == ("run `acap words x-klingon`: it writes templates/words/x-klingon.yaml "
                      "next to operator.yaml, acap's words to translate into x-klingon")
    words = tmp_path / "templates" / "words"
    words.mkdir(parents=True)
    src = SRC / "templates" / "words" / "en.yaml"
    (words / "x-klingon.yaml").write_text(src.read_text(encoding="utf-8"), encoding="utf-8")
    result = run_build(config)
    assert result.report.ok, report_text(result.report)
    assert "ask.example.com/talk/x-klingon/index.html" in result.files.digest()
    [w] = [w for w in result.report.warnings if w.location.pointer == "/contact/languages/1"]
    assert w.message == ("contact.languages: acap knows no name for the language 'x-klingon'; "
                         "the page shows it as written")


# -- the site folder ------------------------------------------------------------------------------

def test_a_site_folder_inside_templates_is_refused(example: Path) -> None:
    (example.parent / "templates").mkdir()
    out = example.parent / "templates" / "out"
    result = build(BuildOptions(config=example, site_dir=out, spec_site=False))
    [f] = result.report.errors
    assert f.rule == "SITE-PATH"
    assert f.message == (f"the site folder {out} is inside templates/, which the build reads: "
                         "writing it would change templates/, and publish would then refuse "
                         "the site as stale")
    assert not out.exists() and not result.written
