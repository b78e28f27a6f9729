"""The personEntry page: content from operator.yaml, safety, languages, overrides.

Browser checks (axe-core, requests, cookies, widths) are in test_person_entry_page_browser.py.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from acap.builder.pages import (
    _audit as audit,
)
from acap.builder.pages import (
    _jsonld as jsonld,
)
from acap.builder.pages import (
    _pages as pages,
)
from acap.builder.pages import (
    _person_text as person_text,
)
from acap.builder.pages import (
    _templating as templating,
)
from acap.builder.pages import (
    _words as words,
)
from acap.cli import finding_text, report_text
from support.pages import (
    PAYLOADS,
    everything_set_to,
    example_data,
    keys_in,
    page_text,
    run_build,
    scan,
    strings_in,
    write_yaml,
)
from support.paths import REPO, SRC

TALK = "ask.example.com/talk/index.html"
TALK_HTML = "ask.example.com/talk.html"  # the same page: GitHub Pages serves /talk from it
TALK_FR = "ask.example.com/talk/fr/index.html"


def _errors(result: Any) -> list[Any]:
    return result.report.errors


# -- the bundled example -----------------------------------------------------------------

def test_bundled_example_writes_the_person_entry_page(example: Path) -> None:
    result = run_build(example, write=True)
    assert result.report.ok, report_text(result.report)
    page = example.parent / "site" / TALK
    assert page.is_file()
    assert (example.parent / "site" / TALK_HTML).read_bytes() == page.read_bytes()
    s = scan(page.read_text(encoding="utf-8"))
    assert s.find("html")[0]["lang"] == "en"
    text = s.all_text()
    # who, what (names and the forPeople texts of the on-request skills), how, and why
    assert "<h1>Example Memorial Chapel</h1>" in page.read_text(encoding="utf-8")
    for words_ in ("Service costs", "What each of our services costs and what it includes",
                   "Book an arrangement meeting", "sit down with one of our funeral directors",
                   "Speak to a member of staff", "Transfer to a funeral director",
                   "ask@example.com", "1 Example Street, Exampleton EX1 1AA",
                   "Monday to Friday 09:00 to 17:00", "Languages we speak English",
                   "gives this information to the person who asks"):
        assert words_ in text, words_
    # a public skill and a sign-in skill are not on the page
    assert "Opening hours and location" not in text
    assert "Transfer status" not in text
    # the descriptions written for agents are not shown to people
    assert "Checks director availability" not in text
    assert "Costs and inclusions" not in text


def test_bundled_example_phone_is_international_and_rfc3966(example: Path) -> None:
    result = run_build(example)
    s = scan(page_text(result, TALK))
    tel = [a for a in s.find("a") if a.get("href", "").startswith("tel:")]
    assert [a["href"] for a in tel] == ["tel:+44-20-7946-0000"]
    assert " " not in tel[0]["href"]
    assert re.fullmatch(r"tel:\+[0-9]+(-[0-9]+)*", tel[0]["href"])
    html = page_text(result, TALK)
    assert '<a class="phone" href="tel:+44-20-7946-0000">+44 20 7946 0000</a>' in html


def test_phone_written_without_spaces_is_shown_in_international_format(tmp_path: Path) -> None:
    data = example_data()
    data["contact"]["phone"] = "+442079460000"
    result = run_build(write_yaml(tmp_path, data))
    html = page_text(result, TALK)
    assert 'href="tel:+44-20-7946-0000">+44 20 7946 0000</a>' in html


def test_a_local_phone_number_is_an_error_naming_its_line(write_operator: Any) -> None:
    text = (REPO / "operator.yaml").read_text(encoding="utf-8")
    text = text.replace('phone: "+44 20 7946 0000"', 'phone: "020 7946 0000"')
    line = next(i for i, t in enumerate(text.splitlines(), 1) if "020 7946 0000" in t)
    result = run_build(write_operator(text))
    [f] = [f for f in result.report.errors if f.rule == "PAGE-PHONE"]
    assert f.location.line == line
    assert "international form" in f.message


def test_what_operator_yaml_leaves_out_is_left_out(tmp_path: Path) -> None:
    data = example_data()
    data["contact"] = {"email": "ask@example.com"}
    result = run_build(write_yaml(tmp_path, data))
    assert result.report.ok, report_text(result.report)
    html = page_text(result, TALK)
    s = scan(html)
    assert [a for a in s.find("a") if a.get("href", "").startswith("tel:")] == []
    for label in ("Telephone", "Address", "Opening hours", "Languages we speak"):
        assert label not in s.all_text()
    assert "<dd></dd>" not in html and "<dd> </dd>" not in html
    [data_ld] = s.jsonld()
    assert "telephone" not in keys_in(data_ld)
    assert "hoursAvailable" not in keys_in(data_ld)


def test_a_page_without_any_way_to_ask_is_a_warning(tmp_path: Path) -> None:
    data = example_data()
    del data["contact"]
    for s in data["skills"]:
        s.pop("reachesStaff", None)
    result = run_build(write_yaml(tmp_path, data))
    assert result.report.ok
    [w] = [f for f in result.report.warnings if f.rule == "PAGE-CONTACT"]
    assert "says what to ask but not how" in w.message
    assert w.location.line is not None
    s = scan(page_text(result, TALK))
    assert "How to ask" not in s.all_text()


# -- what the page says about a skill, for people -----------------------------------------

def _without_for_people() -> dict[str, Any]:
    data = example_data()
    for s in data["skills"]:
        s.pop("forPeople", None)
    return data


def test_for_people_is_shown_in_place_of_the_agent_description(tmp_path: Path) -> None:
    data = example_data()
    data["skills"][4]["forPeople"] = "Ring us and a funeral director will talk with you."
    result = run_build(write_yaml(tmp_path, data))
    assert result.report.ok, report_text(result.report)
    html = page_text(result, TALK)
    assert "<h3>Book an arrangement meeting</h3>\n<p>A time to sit down with one of our " \
        "funeral directors and plan the funeral together. We will find a time that suits " \
        "you; nothing is booked until you say yes.</p>" in html
    assert "<h3>Speak to a member of staff</h3>\n<p>Ring us and a funeral director will " \
        "talk with you.</p>" in html
    text = scan(html).all_text()
    for agent_words in ("Checks director availability", "Costs and inclusions",
                        "Transfer to a funeral director"):
        assert agent_words not in text, agent_words
    # the card keeps the descriptions, and has no forPeople
    card = json.loads(result.files["example.com/.well-known/agent-card.json"])
    [booking] = [s for s in card["skills"] if s["id"] == "arrangement-booking"]
    assert booking["description"].startswith("Checks director availability")
    assert "forPeople" not in json.dumps(card)


def test_without_for_people_the_description_is_shown_without_restating_the_lead(
        tmp_path: Path) -> None:
    result = run_build(write_yaml(tmp_path, _without_for_people()))
    assert result.report.ok, report_text(result.report)
    html = page_text(result, TALK)
    # "Costs and inclusions of the chapel's services. Given to the person who asks, on
    # request.": the second sentence only says what the lead says, and is dropped
    assert "<h3>Service costs</h3>\n<p>Costs and inclusions of the chapel&#39;s services.</p>" \
        in html
    assert "Checks director availability and books an arrangement meeting. The person " \
        "confirms the booking themselves." in html
    text = scan(html).all_text()
    assert "on request" not in text
    # said twice in acap's words (the lead, "Why this page"), never a third time
    assert text.count("to the person who asks") == 2


def test_a_description_that_only_restates_the_lead_leaves_the_name_alone(
        tmp_path: Path) -> None:
    data = _without_for_people()
    data["skills"][1]["description"] = "Given to the person who asks, on request."
    result = run_build(write_yaml(tmp_path, data))
    assert result.report.ok, report_text(result.report)
    html = page_text(result, TALK)
    assert "<h3>Service costs</h3>\n</li>" in html
    assert "<p></p>" not in html


@pytest.mark.parametrize(("sentence", "restates"), [
    ("Given to the person who asks, on request.", True),
    ("Available on request.", True),
    ("We give it to the person who asks.", True),
    ("Given on request to the person who asks, at the address stated.", True),
    ("Donné à la personne qui le demande, sur demande.", True),
    ("Informations communiquées sur demande.", True),
    ("Costs and inclusions of the chapel's services.", False),
    ("The person confirms the booking themselves.", False),
    ("Given to the family on request.", False),  # says to whom: more than the lead
    ("Ask us.", False),
    ("Given to the person.", False),  # no request, no asking
    ("", False),
])
def test_what_counts_as_restating_the_lead(sentence: str, restates: bool) -> None:
    assert person_text.only_restates_the_lead(sentence) is restates


def test_clean_description_keeps_everything_else() -> None:
    clean = person_text.clean_description
    assert clean("Costs and inclusions of the chapel's services. Given to the person who\n"
                 "  asks, on request.") == "Costs and inclusions of the chapel's services."
    assert clean("Available on request. Prices of every service, and what each includes!") \
        == "Prices of every service, and what each includes!"
    assert clean("Given on request.") == ""
    assert clean("What it costs") == "What it costs"


def test_for_people_is_translated_like_the_other_page_texts(tmp_path: Path) -> None:
    """A language's page takes, for each skill: its forPeople translation, else its
    description translation, else the skill's own forPeople (marked as English)."""
    data = example_data()
    data["page"] = {"languages": ["en", "fr"], "translations": {"fr": {"hours": "9 h à 17 h",
                                                                      "skills": {
        "service-pricing": {"name": "Coût des services",
                            "forPeople": "Ce que coûte chacun de nos services."},
        "arrangement-booking": {"name": "Prendre rendez-vous",
                                "description": "Réserve un entretien. Donné à la personne "
                                               "qui le demande, sur demande."},
        "speak-to-staff": {"name": "Parler à quelqu'un"}}}}}
    result = run_build(write_yaml(tmp_path, data))
    assert result.report.ok, report_text(result.report)
    fr = page_text(result, TALK_FR)
    assert "<h3>Coût des services</h3>\n<p>Ce que coûte chacun de nos services.</p>" in fr
    assert "<h3>Prendre rendez-vous</h3>\n<p>Réserve un entretien.</p>" in fr
    assert '<p lang="en">Transfer to a funeral director' in fr
    [w] = [f for f in result.report.warnings if f.rule == "PAGE-TRANSLATION"]
    assert w.message == "the fr page shows skills.speak-to-staff.description in English"
    data["skills"][4]["forPeople"] = "Ring us."
    again = run_build(write_yaml(tmp_path, data))
    [w] = [f for f in again.report.warnings if f.rule == "PAGE-TRANSLATION"]
    assert w.message == "the fr page shows skills.speak-to-staff.forPeople in English"
    assert '<p lang="en">Ring us.</p>' in page_text(again, TALK_FR)


def test_for_people_must_be_text_on_its_line(tmp_path: Path) -> None:
    data = example_data()
    data["skills"][1]["forPeople"] = ["What it costs"]
    cfg = write_yaml(tmp_path, data)
    result = run_build(cfg)
    [f] = result.report.errors
    assert f.rule == "SCHEMA-TYPE"
    line = next(i for i, t in enumerate(cfg.read_text().splitlines(), 1) if "forPeople" in t)
    assert f.location.line in (line, line + 1)


# -- structured data ---------------------------------------------------------------------

def test_jsonld_describes_the_business_and_its_contact_point(example: Path) -> None:
    [data] = scan(page_text(run_build(example), TALK)).jsonld()
    assert data["@context"] == "https://schema.org"
    assert data["@type"] == "Organization"
    assert data["name"] == "Example Memorial Chapel"
    assert data["url"] == "https://example.com"
    cp = data["contactPoint"]
    assert cp["@type"] == "ContactPoint"
    assert cp["url"] == "https://ask.example.com/talk"
    assert cp["telephone"] == "+44 20 7946 0000"
    assert cp["contactType"] == "customer service"
    assert cp["availableLanguage"] == ["en"]
    assert cp["hoursAvailable"] == {"@type": "OpeningHoursSpecification",
                                    "description": "Monday to Friday 09:00 to 17:00"}


def test_jsonld_never_has_a_price_or_an_offer(tmp_path: Path) -> None:
    data = example_data()
    data["skills"][1]["description"] = "Prices of our services, given on request."
    result = run_build(write_yaml(tmp_path, data))
    for rel in result.files:
        if rel.endswith(".html"):
            for block in scan(page_text(result, rel)).jsonld():
                found = keys_in(block) & jsonld.FORBIDDEN_KEYS
                assert not found, (rel, found)
                assert not any("Offer" in s or "Price" in s for s in strings_in(block)
                               if s.startswith(("http", "Offer", "Price")))


def test_jsonld_script_text_cannot_end_the_script_element() -> None:
    value = {"a": "</script><script>alert(1)</script><!-- & \u2028"}
    text = str(jsonld.script_text(value))
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text) == value


# -- operator text is text ---------------------------------------------------------------


@pytest.mark.parametrize("payload", PAYLOADS)
def test_every_operator_text_field_appears_as_text(tmp_path: Path, payload: str) -> None:
    result = run_build(write_yaml(tmp_path, everything_set_to(payload)), write=True)
    assert result.report.ok, report_text(result.report)
    checked = 0
    for rel in result.files:
        if not rel.endswith(".html"):
            continue
        html = page_text(result, rel)
        s = scan(html)
        assert s.find("img") == [], rel
        assert [t for t, a in s.tags if t == "script" and
                a.get("type") != "application/ld+json"] == [], rel
        assert not [k for _, a in s.tags for k in a if k.startswith("on")], rel
        if rel in (TALK, TALK_FR):
            checked += 1
            # name (h1, footer), intro, 2 asks x 2, staff x 2, address, hours, email,
            # one language shown as written
            assert s.all_text().count(payload) >= 10, rel
            for block in s.jsonld():
                values = strings_in(block)
                assert block["name"] == payload
                assert block["address"] == payload
                assert block["contactPoint"]["email"] == payload
                assert block["contactPoint"]["hoursAvailable"]["description"] == payload
                assert payload in block["contactPoint"]["availableLanguage"]
                assert values.count(payload) >= 5
            for raw in s.scripts:
                assert "<" not in raw and ">" not in raw
    assert checked == 2
    # the email is not a plain address: shown as text, without a mailto link, and said
    assert [f.rule for f in result.report.warnings].count("PAGE-EMAIL") == 1


# -- languages ---------------------------------------------------------------------------

def _two_languages(tmp_path: Path, **fr: Any) -> Path:
    data = example_data()
    block: dict[str, Any] = {
        "hours": "Du lundi au vendredi, de 9 h à 17 h",
        "skills": {
            "service-pricing": {"name": "Coût des services",
                                "description": "Le coût des services de la chapelle."},
            "arrangement-booking": {"name": "Prendre rendez-vous",
                                    "description": "Réserve un entretien."},
            "speak-to-staff": {"name": "Parler à quelqu'un",
                               "description": "Un conseiller vous rappelle."},
        }}
    block.update(fr)
    data["page"] = {"languages": ["en", "fr"], "translations": {"fr": block}}
    return write_yaml(tmp_path, data)


def test_each_language_has_its_page_with_hreflang_links_between_them(tmp_path: Path) -> None:
    result = run_build(_two_languages(tmp_path))
    # Fully translated: no PAGE-* warning (the example's own OR-5.x warnings stay).
    assert result.report.ok, report_text(result.report)
    assert not [f for f in result.report if f.rule.startswith("PAGE-")], \
        report_text(result.report)
    en, fr = scan(page_text(result, TALK)), scan(page_text(result, TALK_FR))
    assert en.find("html")[0]["lang"] == "en" and fr.find("html")[0]["lang"] == "fr"
    for s in (en, fr):
        alts = {a["hreflang"]: a["href"] for a in s.find("link", rel="alternate")}
        assert alts == {"en": "https://ask.example.com/talk",
                        "fr": "https://ask.example.com/talk/fr/",
                        "x-default": "https://ask.example.com/talk"}
    assert en.find("a", hreflang="fr") == [{"href": "/talk/fr/", "hreflang": "fr", "lang": "fr"}]
    assert fr.find("a", hreflang="en") == [{"href": "/talk", "hreflang": "en", "lang": "en"}]
    assert fr.find("link", rel="canonical")[0]["href"] == "https://ask.example.com/talk/fr/"
    text = fr.all_text()
    for t in ("Ce que vous pouvez nous demander", "Coût des services", "Téléphone",
              "Du lundi au vendredi", "Langues parlées anglais", "Parler à quelqu'un",
              "donne ces informations à la personne qui les demande"):
        assert t in text, t
    assert "Service costs" not in text
    [ld] = fr.jsonld()
    assert ld["contactPoint"]["url"] == "https://ask.example.com/talk/fr/"
    assert ld["contactPoint"]["hoursAvailable"]["description"].startswith("Du lundi")


def test_an_untranslated_text_is_marked_with_its_language_and_warned(tmp_path: Path) -> None:
    cfg = _two_languages(tmp_path, skills={"service-pricing": {"name": "Coût des services"}})
    result = run_build(cfg)
    assert result.report.ok
    [w] = [f for f in result.report.warnings if f.rule == "PAGE-TRANSLATION"]
    assert "skills.service-pricing.forPeople" in w.message and "in English" in w.message
    assert "skills.arrangement-booking.name" in w.message
    fr = scan(page_text(result, TALK_FR))
    assert {"lang": "en"} in fr.find("h3")  # Book an arrangement meeting, in English
    assert fr.find("p", lang="en")
    assert "Coût des services" in fr.all_text()


def test_the_translation_hint_shows_the_block_to_write(tmp_path: Path) -> None:
    """Fresh-operator trial (LOW): "add them under page.translations.fr" did not say how.
    The hint shows the block, in the form operator.yaml reads; with its texts filled in,
    the warning goes."""
    cfg = _two_languages(tmp_path, skills={"service-pricing": {"name": "Coût des services"}})
    [w] = [f for f in run_build(cfg).report.warnings if f.rule == "PAGE-TRANSLATION"]
    line = next(i for i, t in enumerate(cfg.read_text().splitlines(), 1) if t.strip() == "fr:")
    assert w.location.line == line
    example = ("fr: {skills: {service-pricing: {forPeople: ...}, arrangement-booking: "
               "{name: ..., forPeople: ...}, speak-to-staff: {name: ..., description: ...}}}")
    assert w.hint == ("add them under page: translations:, in French, for example: "
                      + example)
    block = yaml.safe_load(example.replace("...", "Texte"))["fr"]
    data = yaml.safe_load(cfg.read_text(encoding="utf-8"))
    for sid, texts in block["skills"].items():  # what the hint shows, added to what is there
        data["page"]["translations"]["fr"]["skills"].setdefault(sid, {}).update(texts)
    again = run_build(write_yaml(tmp_path, data))
    assert again.report.ok and not [f for f in again.report.warnings
                                    if f.rule == "PAGE-TRANSLATION"]


def test_a_language_acap_has_no_words_for_is_an_error_on_its_line(tmp_path: Path) -> None:
    data = example_data()
    data["page"] = {"languages": ["en", "cy"]}
    cfg = write_yaml(tmp_path, data)
    line = next(i for i, t in enumerate(cfg.read_text().splitlines(), 1) if t.strip() == "- cy")
    result = run_build(cfg)
    [f] = [f for f in result.report.errors if f.rule == "PAGE-WORDS"]
    assert f.location.line == line
    assert f.message == "acap has no words in Welsh (cy) for the page yet"
    assert f.hint == ("run `acap words cy`: it writes templates/words/cy.yaml next to "
                      "operator.yaml, acap's words to translate into Welsh")


def _words_en() -> str:
    return (templating.package_templates_dir() / "words" / "en.yaml").read_text("utf-8")


def test_a_words_file_in_templates_adds_a_language(tmp_path: Path) -> None:
    data = example_data()
    data["page"] = {"languages": ["cy"]}
    cfg = write_yaml(tmp_path, data)
    (tmp_path / "templates" / "words").mkdir(parents=True)
    cy = _words_en().replace("How to ask\n", "Sut i ofyn\n")
    (tmp_path / "templates" / "words" / "cy.yaml").write_text(cy, encoding="utf-8")
    result = run_build(cfg)
    assert result.report.ok, report_text(result.report)
    s = scan(page_text(result, TALK))
    assert s.find("html")[0]["lang"] == "cy"
    assert "Sut i ofyn" in s.all_text()
    assert "Languages we speak Saesneg" in s.all_text()  # CLDR's Welsh name


def test_a_words_file_in_templates_rewords_a_shipped_language(tmp_path: Path) -> None:
    data = example_data()
    data["page"] = {"languages": ["de"]}
    cfg = write_yaml(tmp_path, data)
    (tmp_path / "templates" / "words").mkdir(parents=True)
    shipped = (templating.package_templates_dir() / "words" / "de.yaml").read_text("utf-8")
    de = shipped.replace("howHeading: So erreichen Sie uns", "howHeading: So fragen Sie uns")
    assert de != shipped
    (tmp_path / "templates" / "words" / "de.yaml").write_text(de, encoding="utf-8")
    result = run_build(cfg)
    assert result.report.ok, report_text(result.report)
    s = scan(page_text(result, TALK)).all_text()
    assert "So fragen Sie uns" in s and "So erreichen Sie uns" not in s
    assert "Wir sprechen Englisch" in s  # the rest of acap's German words, and CLDR's name


def test_an_incomplete_words_file_names_the_missing_key(tmp_path: Path) -> None:
    data = example_data()
    data["page"] = {"languages": ["de"]}
    cfg = write_yaml(tmp_path, data)
    (tmp_path / "templates" / "words").mkdir(parents=True)
    de = _words_en().replace("howHeading: How to ask\n", "howHeadin: So fragen Sie uns\n")
    de = de.replace("privacy: This page sets no cookies and runs no programs in your browser.",
                    'privacy: "{operater} sets no cookies."')
    (tmp_path / "templates" / "words" / "de.yaml").write_text(de, encoding="utf-8")
    result = run_build(cfg)
    found = {(f.message, f.hint) for f in result.report.errors}
    assert all(f.rule == "PAGE-WORDS" for f in result.report.errors)
    assert any("has no 'howHeading'" in m for m, _ in found)
    assert ("unknown key 'howHeadin' in " + str(tmp_path / "templates/words/de.yaml"),
            "did you mean 'howHeading'?") in found
    assert any("{operater}" in m for m, _ in found)
    lines = de.splitlines()
    [f] = [f for f in result.report.errors if "howHeadin'" in f.message]
    assert lines[f.location.line - 1].startswith("howHeadin:")


def test_every_file_s_mistakes_are_said_in_one_run(tmp_path: Path) -> None:
    """Fresh-operator trial (LOW): a mistake in operator.yaml hid the words file's until
    the next run. Both are said at once, each at its file and line; the words file's
    error alone, once operator.yaml is fixed, is the same finding."""
    data = example_data()
    data["page"] = {"languages": ["de"]}
    data["operator"]["webiste"] = data["operator"].pop("website")
    cfg = write_yaml(tmp_path, data)
    (tmp_path / "templates" / "words").mkdir(parents=True)
    de = _words_en().replace("howHeading: How to ask\n", "howHeadin: So fragen Sie uns\n")
    (tmp_path / "templates" / "words" / "de.yaml").write_text(de, encoding="utf-8")
    result = run_build(cfg)
    typo = next(i for i, t in enumerate(cfg.read_text().splitlines(), 1) if "webiste:" in t)
    words = next(i for i, t in enumerate(de.splitlines(), 1) if t.startswith("howHeadin:"))
    where = {(f.rule, Path(f.location.file).name, f.location.line) for f in result.report.errors}
    assert {("SCHEMA-UNKNOWN-KEY", cfg.name, typo), ("PAGE-WORDS", "de.yaml", words)} <= where
    data["operator"]["website"] = data["operator"].pop("webiste")
    fixed = run_build(write_yaml(tmp_path, data))
    assert {(f.rule, Path(f.location.file).name, f.location.line)
            for f in fixed.report.errors} == {w for w in where if w[1] == "de.yaml"}


@pytest.mark.parametrize(("page", "rule", "says"), [
    ({"languages": ["en_GB"]}, "PAGE-LANGUAGE", "'en_GB' is not a language tag"),
    ({"languages": ["en-"]}, "PAGE-LANGUAGE", "'en-' is not a language tag"),
    ({"languages": ["english"]}, "PAGE-LANGUAGE",
     "'english' is not a language tag in use: a language is named by 2 or 3 letters"),
    # a private-use tag is a language tag (RFC 5646 §2.2.7): what it lacks is acap's words
    ({"languages": ["en", "x-klingon"]}, "PAGE-WORDS",
     "acap has no words for the language x-klingon for the page yet"),
    ({"languages": ["en", "EN"]}, "PAGE-LANGUAGE", "'EN' is listed twice"),
    ({"languages": ["en"], "translations": {"fr": {"intro": "Bonjour"}}}, "PAGE-LANGUAGE",
     "page.translations has 'fr', which page.languages does not list"),
    ({"languages": ["en", "fr"], "translations": {"fr": {"skills": {"service-prices": {
        "name": "Prix"}}}}}, "PAGE-TRANSLATION", "no skill has the id 'service-prices'"),
])
def test_language_settings_mistakes(tmp_path: Path, page: dict[str, Any], rule: str,
                                    says: str) -> None:
    data = example_data()
    data["page"] = page
    result = run_build(write_yaml(tmp_path, data))
    assert not result.report.ok
    [f] = result.report.errors
    assert (f.rule, f.message) == (rule, says)
    assert f.location.line is not None


def test_language_url_for_a_folder_and_a_file() -> None:
    assert pages.language_url("https://a.example/talk", "fr") == "https://a.example/talk/fr/"
    assert pages.language_url("https://a.example/talk/", "pt-BR") == \
        "https://a.example/talk/pt-br/"
    assert pages.language_url("https://a.example/", "fr") == "https://a.example/fr/"
    assert pages.language_url("https://a.example/ask.html", "fr") == \
        "https://a.example/ask.fr.html"


def test_language_names_come_from_cldr() -> None:
    from babel import Locale

    for page in ("en", "fr"):
        for tag in ("en", "fr", "de", "cy", "ar", "es", "pt", "zh", "pl"):
            assert words.language_name(tag, page) == Locale.parse(page).languages[tag]
    assert words.autonym("fr") == "Français"
    assert words.autonym("cy") == "Cymraeg"
    assert words.direction("ar") == "rtl" and words.direction("fr") == "ltr"
    assert words.language_name("fr-CA", "en") == Locale.parse("en").languages["fr_CA"]
    assert words.language_name("de-AT", "fr") == "allemand autrichien"
    assert words.language_name("de-LI", "en") == "German"  # no regional name: the language


def test_shipped_words_files_match_english() -> None:
    folder = templating.package_templates_dir() / "words"
    ref = words.parse_words("en", (folder / "en.yaml").read_text("utf-8"), "en.yaml", None)
    assert ref.words is not None and ref.findings == []
    shipped = sorted(p.stem for p in folder.glob("*.yaml"))
    assert {"en", "fr"} <= set(shipped)
    for tag in shipped:
        res = words.parse_words(tag, (folder / f"{tag}.yaml").read_text("utf-8"), tag,
                                ref.words.texts)
        assert res.findings == [], tag
        assert res.words is not None and set(res.words.texts) == set(ref.words.texts)


def test_no_words_file_says_the_page_has_no_scripts(example: Path) -> None:
    """The page carries a <script type="application/ld+json"> data block, so acap's
    words never claim "no scripts" in any language; they say it runs no programs."""
    folder = templating.package_templates_dir() / "words"
    for f in sorted(folder.glob("*.yaml")):
        res = words.parse_words(f.stem, f.read_text("utf-8"), f.name, None)
        assert res.words is not None
        privacy = res.words.texts["privacy"].lower()
        assert "script" not in privacy, f.name
        assert "program" in privacy, f.name
    s = scan(page_text(run_build(example), TALK))
    assert [a.get("type") for t, a in s.tags if t == "script"] == ["application/ld+json"]
    assert "This page sets no cookies and runs no programs in your browser." in s.all_text()


# -- overrides ---------------------------------------------------------------------------

def _override(tmp_path: Path, name: str, text: str) -> Path:
    cfg = write_yaml(tmp_path, example_data())
    target = tmp_path / "templates" / name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    return cfg


def test_a_template_in_templates_replaces_acaps(tmp_path: Path) -> None:
    cfg = _override(tmp_path, "footer.html", "<p>Family run since 1921.</p>\n")
    result = run_build(cfg)
    assert result.report.ok, report_text(result.report)
    text = scan(page_text(result, TALK)).all_text()
    assert "Family run since 1921." in text
    assert "This page sets no cookies" not in text


def test_an_override_can_extend_acaps_template_and_replace_one_block(tmp_path: Path) -> None:
    cfg = _override(tmp_path, "person-entry.html",
                    '{% extends "acap/person-entry.html" %}\n'
                    "{% block about %}<p>We answer every question ourselves.</p>{% endblock %}\n")
    result = run_build(cfg)
    assert result.report.ok, report_text(result.report)
    text = scan(page_text(result, TALK)).all_text()
    assert "We answer every question ourselves." in text
    assert "Why this page" not in text
    assert "What you can ask us about" in text


def test_a_css_override_is_allowed_by_its_own_hash(tmp_path: Path) -> None:
    css = "body { font-family: serif; }\n"
    result = run_build(_override(tmp_path, "page.css", css))
    assert result.report.ok, report_text(result.report)
    html = page_text(result, TALK)
    assert f"<style>{css}</style>" in html
    assert audit.style_hash(css) in scan(html).find("meta", http_equiv="Content-Security-Policy")[
        0]["content"]


def test_the_repositorys_own_override_changes_the_bundled_page(tmp_path: Path) -> None:
    shutil.copyfile(REPO / "operator.yaml", tmp_path / "operator.yaml")
    plain = run_build(tmp_path / "operator.yaml")
    shutil.copytree(REPO / "templates", tmp_path / "templates")
    over = run_build(tmp_path / "operator.yaml")
    assert over.report.ok, report_text(over.report)
    note = "fictional business of the On Request specification's Annex A"
    assert note in page_text(over, TALK) and note not in page_text(plain, TALK)


def test_a_template_using_an_undefined_name_fails_the_build_clearly(tmp_path: Path) -> None:
    cfg = _override(tmp_path, "footer.html",
                    "<p>{{ operator.name }}</p>\n\n<p>{{ opening_times }}</p>\n")
    site = tmp_path / "site"
    site.mkdir()
    (site / "keep.txt").write_text("previous build")
    result = run_build(cfg, write=True)
    assert not result.report.ok and not result.written
    [f] = result.report.errors
    assert f.rule == "PAGE-TEMPLATE"
    assert f.location.file == str(tmp_path / "templates" / "footer.html")
    assert f.location.line == 3
    assert "'opening_times' is undefined" in f.message
    assert (site / "keep.txt").read_text() == "previous build"
    assert finding_text(f).startswith(f"{tmp_path}/templates/footer.html:3: error:")


def test_a_template_syntax_error_names_its_line(tmp_path: Path) -> None:
    cfg = _override(tmp_path, "footer.html", "<p>\n{% if operator.name %}\n</p>\n")
    [f] = run_build(cfg).report.errors
    assert f.rule == "PAGE-TEMPLATE" and f.location.line is not None
    assert f.location.file.endswith("templates/footer.html")
    assert "template syntax" in f.message


@pytest.mark.parametrize(("snippet", "says"), [
    ('<script src="https://cdn.example.net/a.js"></script>', "runs no script"),
    ('<link rel="stylesheet" href="https://fonts.example.net/css">', "another origin"),
    ('<img src="https://maps.example.net/tile.png" alt="">', "another origin"),
    ('<p style="color: red">x</p>', "style= attribute"),
    ('<form action="/ask"><input name="q"></form>', "a <form>"),
    ("<style>p { color: red }</style>", "does not allow"),
    ('<a href="/" onclick="track()">x</a>', "event handler"),
])
def test_an_override_that_is_not_the_same_for_everyone_fails(tmp_path: Path, snippet: str,
                                                             says: str) -> None:
    result = run_build(_override(tmp_path, "footer.html", snippet + "\n"))
    assert not result.report.ok
    assert any(f.rule == "PAGE-SAME-FOR-EVERYONE" and says in f.message
               for f in result.report.errors), report_text(result.report)


@pytest.mark.parametrize("snippet", [
    '<script src="https://cdn.example.net/a.js"></script>',
    '<script src="/a.js"></script>',
    '<script src="/a.js" />',
    '<script type="application/ld+json" src="/data.json"></script>',
    "<script>alert(1)</script>",
])
def test_a_script_in_an_override_is_one_finding(tmp_path: Path, snippet: str) -> None:
    """Only the real finding: a script element is refused once, and its (empty or
    program) text is not also reported as JSON-LD that is not valid JSON."""
    result = run_build(_override(tmp_path, "footer.html", "<p>Thanks.</p>\n" + snippet + "\n"))
    [f] = result.report.errors
    assert f.rule == "PAGE-SAME-FOR-EVERYONE"
    assert "the page runs no script" in f.message and "(line " in f.message
    assert "JSON" not in f.message
    if "src=" in snippet:
        assert snippet.split('src="')[1].split('"')[0] in f.message


def test_a_broken_json_ld_block_in_an_override_is_still_found(tmp_path: Path) -> None:
    cfg = _override(tmp_path, "person-entry.html",
                    '{% extends "acap/person-entry.html" %}\n'
                    '{% block jsonld %}<script type="application/ld+json">{"a": </script>'
                    "{% endblock %}\n")
    [f] = run_build(cfg).report.errors
    assert f.rule == "PAGE-SAME-FOR-EVERYONE" and "the JSON-LD is not valid JSON" in f.message


def test_same_origin_images_are_allowed(tmp_path: Path) -> None:
    cfg = _override(tmp_path, "footer.html", '<img src="/logo.png" alt="Logo">\n')
    (tmp_path / "templates" / "person-entry.html").write_text(
        '{% extends "acap/person-entry.html" %}\n'
        '{% block about %}<img src="https://ask.example.com/l.png" alt="">{% endblock %}\n')
    result = run_build(cfg)
    assert result.report.ok, report_text(result.report)
    assert '<img src="https://ask.example.com/l.png" alt="">' in page_text(result, TALK)


# -- same for everyone --------------------------------------------------------------------

def test_the_page_has_csp_referrer_lang_and_no_script(example: Path) -> None:
    html = page_text(run_build(example), TALK)
    s = scan(html)
    [csp] = s.find("meta", http_equiv="Content-Security-Policy")
    assert csp["content"].startswith("default-src 'none'; style-src 'sha256-")
    assert "script-src" not in csp["content"] and "unsafe" not in csp["content"]
    assert s.find("meta", name="referrer") == [{"name": "referrer", "content": "no-referrer"}]
    assert s.find("html")[0]["lang"] == "en"
    assert [a.get("type") for t, a in s.tags if t == "script"] == ["application/ld+json"]
    assert s.find("form") == []
    assert audit.audit(html, "ask.example.com") == []


def test_acaps_own_pages_pass_the_audit_the_build_skips_for_them(example: Path) -> None:
    """Without an override folder the build does not audit (nothing to find); this test
    is where acap's own templates are audited, on every page they make (with the card host
    acap's own too, so that its home and 404 pages are made)."""
    from support.publishing import set_overlay

    set_overlay(example, "example.com", False)
    result = run_build(example)
    assert templating.override_dir_for(example.parent) is None
    htmls = [rel for rel in result.files if rel.endswith(".html")]
    assert len(htmls) >= 5
    for rel in htmls:
        host = rel.split("/", 1)[0]
        assert audit.audit(result.files[rel].decode("utf-8"), host) == [], rel


def test_two_builds_write_the_same_pages(example: Path) -> None:
    a, b = run_build(example), run_build(example)
    for rel in a.files:
        if not rel.endswith(".json"):
            assert a.files[rel] == b.files[rel], rel


def test_templates_are_compiled_once_per_process(tmp_path: Path) -> None:
    first = run_build(write_yaml(tmp_path, example_data()))
    assert first.report.ok
    env = templating.templates(None).env
    tpl = env.get_template("person-entry.html")
    for i in range(3):
        data = example_data()
        data["operator"]["name"] = f"Operator {i}"
        folder = tmp_path / str(i)
        folder.mkdir()
        assert run_build(write_yaml(folder, data)).report.ok
    assert templating.templates(None).env is env
    assert env.get_template("person-entry.html") is tpl


def test_acap_help_and_importing_the_build_do_not_load_jinja2() -> None:
    code = ("import sys\nimport acap.builder._build\nfrom acap.cli._group import main\n"
            "sys.argv = ['acap', '--help']\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in ('jinja2', 'markupsafe', 'babel') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_every_rule_the_page_steps_use_is_in_the_registry() -> None:
    from acap.requirements import rule_ids

    folder = SRC / "builder" / "pages"
    used = {m for p in folder.glob("*.py")
            for m in re.findall(r'"(PAGE-[A-Z-]+)"', p.read_text(encoding="utf-8"))}
    assert used >= {"PAGE-TEMPLATE", "PAGE-SAME-FOR-EVERYONE", "PAGE-WORDS", "PAGE-PHONE"}
    assert used <= rule_ids()


def test_the_person_entry_page_docs_languages_example_builds(tmp_path: Path) -> None:
    """The example under "Languages" in docs/person-entry-page.md builds, as written."""
    import yaml

    page = (REPO / "docs" / "person-entry-page.md").read_text(encoding="utf-8")
    section = page[page.index("## Languages"):]
    snippet = section[section.index("```yaml") + len("```yaml"):section.index("```\n", 10)]
    data = example_data()
    data.update(yaml.safe_load(snippet))
    result = run_build(write_yaml(tmp_path, data))
    assert result.report.ok, report_text(result.report)
    fr = scan(page_text(result, TALK_FR)).all_text()
    assert "Coût des services" in fr and "Nous sommes là pour vous aider" in fr
    assert "We are here to help" in scan(page_text(result, TALK)).all_text()


def test_a_person_entry_naming_a_pdf_gets_no_page_and_a_warning(tmp_path: Path) -> None:
    data = example_data()
    data["skills"][1]["personEntry"] = "https://ask.example.com/prices.pdf"
    result = run_build(write_yaml(tmp_path, data))
    assert result.report.ok, report_text(result.report)
    assert "ask.example.com/prices.pdf" not in result.files
    [w] = [f for f in result.report.warnings if f.rule == "PAGE-PATH"]
    assert "prices.pdf" in w.message and w.location.line is not None
    # the other skill still has its page; it lists this one too, linked to where it is asked
    page = scan(page_text(result, TALK))
    assert "Service costs" in page.all_text()
    assert "/prices.pdf" in [a.get("href") for a in page.find("a")]


def test_a_person_entry_at_a_host_root_is_that_hosts_index(tmp_path: Path) -> None:
    data = example_data()
    for s in data["skills"]:
        if s.get("kind") == "on-request":
            s["personEntry"] = "https://ask.example.com/"
    data["page"] = {"languages": ["en", "fr"], "translations": {"fr": {}}}
    result = run_build(write_yaml(tmp_path, data))
    assert result.report.ok, report_text(result.report)
    s = scan(page_text(result, "ask.example.com/index.html"))
    assert "What you can ask us about" in s.all_text()
    assert s.find("a", hreflang="fr")[0]["href"] == "/fr/"
    assert "ask.example.com/fr/index.html" in result.files


# -- every on-request skill on the page, and the ones asked by phone (issue 23) ----------------

def test_a_skill_asked_by_phone_only_is_on_the_page_with_its_number(tmp_path: Path) -> None:
    """The page where a person asks lists every on-request skill: one asked by phone
    with its number (a tel: link), one asked at another page with a link to it, so that
    nobody who came for one thing misses that they can phone about another."""
    data = example_data()
    pricing = next(s for s in data["skills"] if s["id"] == "service-pricing")
    by_phone = {**pricing, "id": "repatriation", "name": "Repatriation from abroad",
                "forPeople": "Bringing someone home from another country.",
                "personEntry": "tel:+34 961 23 45 67"}
    elsewhere = {**pricing, "id": "memorials", "name": "Memorial stones",
                 "forPeople": "Stones and plaques.",
                 "personEntry": "https://ask.example.com/memorials"}
    data["skills"] += [by_phone, elsewhere]
    result = run_build(write_yaml(tmp_path, data))
    assert result.report.ok, report_text(result.report)
    page = scan(page_text(result, TALK))
    text = page.all_text()
    for name in ("Service costs", "Repatriation from abroad", "Memorial stones"):
        assert name in text, name
    tel = [a["href"] for a in page.find("a") if a.get("href", "").startswith("tel:+34")]
    assert tel == ["tel:+34-961-23-45-67"]
    assert "Telephone: +34 961 23 45 67" in text
    assert "/memorials" in [a.get("href") for a in page.find("a")]
    # and the page at /memorials lists the others, /talk among them
    other = scan(page_text(result, "ask.example.com/memorials/index.html"))
    assert "/talk" in [a.get("href") for a in other.find("a")]
    assert "tel:+34-961-23-45-67" in [a.get("href") for a in other.find("a")]


def test_the_phone_line_is_in_the_page_s_language(tmp_path: Path) -> None:
    data = example_data()
    data["skills"][1]["personEntry"] = "tel:+34 961 23 45 67"  # service-pricing, by phone
    data["page"] = {"languages": ["ca"]}
    result = run_build(write_yaml(tmp_path, data))
    assert result.report.errors == [], report_text(result.report)
    text = scan(page_text(result, TALK)).all_text()
    assert "Telèfon: +34 961 23 45 67" in text


def test_valencian_is_named_as_its_speakers_name_it(tmp_path: Path) -> None:
    """ca-ES-valencia is "valencià" (CLDR's name of the variant), never "catalán" or
    "català (Espanya, valencià)"; in Spanish "valenciano", in English "Valencian"."""
    assert words.language_name("ca-ES-valencia", "ca") == "valencià"
    assert words.language_name("ca-ES-valencia", "ca-ES-valencia") == "valencià"
    assert words.language_name("ca-ES-valencia", "es") == "valenciano"
    assert words.language_name("ca-ES-valencia", "en") == "Valencian"
    assert words.autonym("ca-ES-valencia") == "Valencià"
    assert words.language_name("ca-valencia", "es") == "valenciano"
    assert words.language_name("ca", "es") == "catalán"  # plain Catalan stays Catalan
    assert words.language_name("ca-x-valencia", "es") == "catalán"  # private use: no variant
    data = example_data()
    data["page"] = {"languages": ["ca-ES-valencia", "es"]}
    data["contact"]["languages"] = ["ca-ES-valencia", "es"]
    result = run_build(write_yaml(tmp_path, data))
    page = scan(page_text(result, TALK))
    text = page.all_text()
    # Catalan words (ca.yaml); Spanish as Catalan and Valencian speakers name it, not
    # CLDR's "espanyol" (fresh-operator trial)
    assert "L'atenem en" in text and "valencià, castellà" in text
    assert "espanyol" not in text
    assert words.language_name("es", "ca") == "castellà"
    assert words.language_name("es-MX", "ca") == "espanyol de Mèxic"  # CLDR's, as it was
    html = page_text(result, TALK)
    assert '<span aria-current="page" lang="ca-ES-valencia">Valencià</span>' in html
    assert "catal" not in text.lower()
    spanish = scan(page_text(result, "ask.example.com/talk/es/index.html")).all_text()
    assert "valenciano, español" in spanish
