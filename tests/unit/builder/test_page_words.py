"""acap's page words in every shipped language, and ``acap words LANG``.

The browser test of each language's page (axe-core, 360 px) is in
tests/acceptance/test_landing_browser.py.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from acap.builder.pages import _words as words
from acap.builder.pages import words_text, write_words_file
from acap.cli import report_text
from support.cards import acap
from support.languages import WORDS, example_in, shipped_languages
from support.pages import page_text, run_build, scan, write_yaml

ENGLISH = yaml.safe_load((WORDS / "en.yaml").read_text(encoding="utf-8"))


def _one_line(text: str) -> str:
    """``text`` as :meth:`Scan.all_text` shows it: every run of spaces (a non-breaking
    one too) as one space."""
    return re.sub(r"\s+", " ", text)


def _texts(tag: str) -> dict[str, str]:
    data: dict[str, str] = yaml.safe_load((WORDS / f"{tag}.yaml").read_text(encoding="utf-8"))
    return data


def test_acap_ships_eight_languages_besides_english() -> None:
    assert shipped_languages() == ["en", "ca", "de", "es", "fr", "it", "nl", "pt", "pt-PT"]


@pytest.mark.parametrize("tag", shipped_languages()[1:])
def test_each_words_file_has_exactly_the_english_keys_and_no_fault(tag: str) -> None:
    text = (WORDS / f"{tag}.yaml").read_text(encoding="utf-8")
    res = words.parse_words(tag, text, f"words/{tag}.yaml", ENGLISH)
    assert res.findings == [] and res.words is not None
    assert list(res.words.texts) == list(ENGLISH)


@pytest.mark.parametrize("tag", shipped_languages()[1:])
def test_each_translation_names_the_operator_where_english_does(tag: str) -> None:
    """A translation that drops {operator} would lose the operator's name from the page."""
    texts = _texts(tag)
    for key, english in ENGLISH.items():
        assert ("{operator}" in texts[key]) == ("{operator}" in english), (tag, key)


@pytest.mark.parametrize("tag", shipped_languages()[1:])
def test_each_translation_is_translated_not_copied(tag: str) -> None:
    """Words that are the same in English ('Website', 'E-mail') may stay; sentences may not."""
    texts = _texts(tag)
    same = sorted(k for k in ENGLISH if texts[k].casefold() == ENGLISH[k].casefold())
    assert set(same) <= {"website", "email"}, (tag, same)


def test_portuguese_has_a_brazilian_and_a_european_file() -> None:
    br, pt = _texts("pt"), _texts("pt-PT")
    assert "conosco" in br["howHeading"] and "connosco" in pt["howHeading"]
    assert pt["address"] == "Morada" and br["address"] == "Endereço"


def test_pt_br_takes_the_brazilian_file_and_pt_pt_the_european_one() -> None:
    assert words_text("pt-BR")[1] == "words/pt.yaml"
    assert words_text("pt-PT")[1] == "words/pt-PT.yaml"
    assert words_text("de-CH")[1] == "words/de.yaml"
    assert words_text("cy")[1] is None


@pytest.mark.parametrize("tag", shipped_languages())
def test_each_shipped_language_builds_the_example_page_written_in_it(
        tmp_path: Path, tag: str) -> None:
    """The example with its page texts in ``tag`` (the first page language), and English:
    no finding at all, and every heading in the language's own words."""
    result = run_build(write_yaml(tmp_path, example_in(tag)))
    assert result.report.findings == [], report_text(result.report)
    texts = _texts(tag)
    page = scan(page_text(result, "ask.example.com/talk/index.html"))
    assert page.find("html")[0]["lang"] == tag
    shown = page.all_text()
    for key in ("asksHeading", "howHeading", "aboutHeading", "phone", "email", "address",
                "hours", "languages", "lead"):
        assert _one_line(texts[key]) in shown, (tag, key)
    not_found = scan(page_text(result, "ask.example.com/404.html")).all_text()
    assert _one_line(texts["notFoundTitle"]) in not_found
    assert _one_line(texts["notFoundNext"].replace("{operator}", "Example Memorial Chapel")) \
        in not_found


def test_a_page_in_german_names_the_languages_in_german(tmp_path: Path) -> None:
    result = run_build(write_yaml(tmp_path, example_in("de")))
    shown = scan(page_text(result, "ask.example.com/talk/index.html")).all_text()
    assert "Wir sprechen Deutsch, Englisch" in shown
    assert "Kosten unserer Leistungen" in shown
    english = scan(page_text(result, "ask.example.com/talk/en/index.html")).all_text()
    assert "Languages we speak German, English" in english
    assert "Service costs" in english


# -- acap words LANG -------------------------------------------------------------------------

def test_acap_words_writes_english_to_translate_for_a_language_acap_lacks(
        tmp_path: Path) -> None:
    cfg = write_yaml(tmp_path, {**example_in("en"), "page": {"languages": ["en", "cy"]}})
    res = acap("words", "cy", "-c", str(cfg))
    assert res.exit_code == 0, res.output
    path = tmp_path / "templates" / "words" / "cy.yaml"
    assert f"wrote {path}" in res.stdout and "into Welsh" in res.stdout
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# acap's words on the personEntry page, to translate into "
                           "Welsh (cy).\n")
    assert yaml.safe_load(text) == ENGLISH  # every key, the English text to translate
    # The file as written builds (in English until it is translated), and a translated
    # key shows on the Welsh page.
    path.write_text(text.replace("howHeading: How to ask", "howHeading: Sut i ofyn"),
                    encoding="utf-8")
    result = run_build(cfg)
    assert result.report.ok, report_text(result.report)
    assert "Sut i ofyn" in page_text(result, "ask.example.com/talk/cy/index.html")


def test_acap_words_copies_a_shipped_language_to_reword(tmp_path: Path) -> None:
    res = acap("words", "de", "-c", str(tmp_path / "operator.yaml"))
    assert res.exit_code == 0, res.output
    assert "acap's German words, to reword" in res.stdout
    assert (tmp_path / "templates" / "words" / "de.yaml").read_bytes() == \
        (WORDS / "de.yaml").read_bytes()


def test_acap_words_never_overwrites_a_file(tmp_path: Path) -> None:
    path = tmp_path / "templates" / "words" / "cy.yaml"
    path.parent.mkdir(parents=True)
    path.write_text("howHeading: Sut i ofyn\n", encoding="utf-8")
    res = acap("words", "cy", "-c", str(tmp_path / "operator.yaml"))
    assert res.exit_code == 1
    assert res.stderr.startswith(f"error: {path} exists already; acap leaves it as it is\n")
    assert path.read_text(encoding="utf-8") == "howHeading: Sut i ofyn\n"


@pytest.mark.parametrize(("tag", "says"), [
    ("english", "'english' is not a language tag in use: a language is named by 2 or 3 "
                "letters"),
    ("de_DE", "'de_DE' is not a language tag"),
    ("../x", "'../x' is not a language tag"),
])
def test_acap_words_refuses_what_is_not_a_language_tag(tmp_path: Path, tag: str,
                                                       says: str) -> None:
    res = acap("words", tag, "-c", str(tmp_path / "operator.yaml"))
    assert res.exit_code == 1
    assert res.stderr.splitlines()[0] == f"error: {says}"
    assert not (tmp_path / "templates").exists()


def test_write_words_file_returns_what_it_wrote(tmp_path: Path) -> None:
    w = write_words_file(tmp_path, "pt-BR")
    assert (w.tag, w.language, w.shipped) == ("pt-BR", "Brazilian Portuguese", "words/pt.yaml")
    assert w.path == tmp_path / "templates" / "words" / "pt-BR.yaml"
