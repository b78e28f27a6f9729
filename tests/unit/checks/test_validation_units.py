"""The parts of the validator that the example files exercise only through a few values:
word lists, IDN and scripts, private values, the final site check, robustness on any
card, and the registry against the code."""

from __future__ import annotations

import copy
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import acap.builder._build as build_module
from acap.builder import BuildContext, BuildOptions, build
from acap.checks import PrivateValue, card_findings, check_card
from acap.checks._urls import card_url_problems, host_problems, mixed_scripts, url_problems
from acap.checks._words import _data, circumstance_words, mentions, revealing_word
from acap.cli import report_json, report_text
from acap.findings import Location
from acap.requirements import checked_at, requirements, rule_ids
from support.cards import places
from support.cases import CARD_CASES, OPERATOR_CASES
from support.languages import shipped_languages
from support.paths import SRC

# -- OR-3.8 word list -----------------------------------------------------------------------


@pytest.mark.parametrize(("path", "word"), [
    ("/bereavement", "bereavement"),
    ("/support/BereavementHelp", "bereavement"),
    ("/funerals/talk", "funerals"),
    ("/d%C3%A9c%C3%A8s", "deces"),  # fr, percent-encoded accents
    ("/Trauerfall", "trauerfall"),  # de, prefix
    ("/hilfe/brustkrebs", "brustkrebs"),  # de, inside a compound
    ("/ayuda-divorcio", "divorcio"),  # es
    ("/hulp/borstkanker", "borstkanker"),  # nl, inside a compound
    ("/sfratto", "sfratto"),  # it
    ("/debt-advice", "debt"),
    ("/ivf", "ivf"),
    # a dental practice's pages that say the person is afraid, in pain or in trouble
    ("/angstpatienten", "angstpatienten"),  # de
    ("/notfall/schmerzen", "notfall"),  # de, the first revealing word
    ("/praxis/Zahnschmerzen", "zahnschmerzen"),  # de, inside a compound
    ("/zahnaerztlicher-notdienst", "notdienst"),  # de
    ("/Zahnarztphobie", "zahnarztphobie"),
    ("/emergency-dentist", "emergency"),  # en
    ("/nervous-patients", "nervous"),
    ("/urgences", "urgences"),  # fr
    ("/anxiete", "anxiete"),
    ("/urgencias-dentales", "urgencias"),  # es
    ("/duelo", "duelo"),
    ("/pazienti-con-paura", "paura"),  # it
    ("/spoedgeval", "spoedgeval"),  # nl
    ("/kiespijn", "kiespijn"),
    ("/tandartsangst", "tandartsangst"),
    ("/luto", "luto"),  # pt
    ("/vel%C3%B3rio", "velorio"),
    ("/falecimento", "falecimento"),
    ("/urgencia-odontologica", "urgencia"),
    ("/d%C3%ADvidas", "dividas"),
])
def test_revealing_words_are_found(path: str, word: str) -> None:
    found = revealing_word(path)
    assert found is not None and found[0] == word


@pytest.mark.parametrize("path", ["/talk", "/ask", "/contact/entscheidung", "/direct-debit",
                                  "/hearing-aids", "/fundamentals", "/services/pricing",
                                  "/environmental", "/terminal",
                                  # everyday words near the new entries
                                  "/langstrecke", "/praxis/behandlung", "/termine", "/team",
                                  "/spoedig", "/pijnacker", "/painting", "/fearless",
                                  "/dolomiti", "/luta", "/precos", "/contato",
                                  "/agendamento", "/mediterraneo", "/peuplier"])
def test_neutral_paths_pass(path: str) -> None:
    assert revealing_word(path) is None


def test_word_list_covers_every_shipped_page_language_and_is_clean() -> None:
    langs = _data("circumstance-words.json")["languages"]
    assert {"en", "fr", "de", "es", "nl", "it", "pt"} <= set(langs)
    assert {tag.split("-")[0] for tag in shipped_languages()} <= set(langs)
    for lang, entries in langs.items():
        assert len(entries) == len(set(entries)), lang
        for e in entries:
            stem = e.strip("*")
            assert len(stem) >= 3 and stem == stem.lower() and stem.isascii(), (lang, e)
    assert len(circumstance_words()) == sum(len(v) for v in langs.values())


def test_heuristic_phrases() -> None:
    assert mentions("reachesStaff", "Rückruf durch einen Mitarbeiter")
    assert mentions("signIn", "The family member must log in first.")
    assert mentions("onRequest", "Prix sur demande.")
    assert not mentions("signIn", "A blog post about logins")
    assert not mentions("reachesStaff", "Opening hours of the chapel")
    # Portuguese
    assert mentions("onRequest", "Valores dos serviços sob consulta.")
    assert mentions("onRequest", "Informamos os preços mediante solicitação.")
    assert mentions("signIn", "É preciso fazer login no portal da família.")
    assert not mentions("onRequest", "Consulta de rotina e limpeza.")
    assert not mentions("signIn", "Sessão de fisioterapia de uma hora.")


# -- URLs ----------------------------------------------------------------------------------


def test_unicode_host_gets_its_a_label() -> None:
    [p] = host_problems("bücher.example")
    assert p.rule == "URL-IDN" and "xn--bcher-kva.example" in p.hint


def test_a_labels_round_trip() -> None:
    assert host_problems("xn--bcher-kva.example") == []
    assert [p.rule for p in host_problems("xn--bcher-kv.example")] == ["URL-IDN"]


@pytest.mark.parametrize(("label", "mixed"), [
    ("pаypal", True),  # Cyrillic а
    ("αpple", True),  # Greek alpha
    ("bücher", False),
    ("ひらがなカタカナ漢字", False),  # Japanese: Han with kana
    ("한국어漢字", False),  # Korean: Hangul with Han
    ("abc-123", False),
    ("кириллица", False),
])
def test_mixed_scripts(label: str, mixed: bool) -> None:
    assert bool(mixed_scripts(label)) is mixed


def test_invisible_characters_and_backslashes_are_refused() -> None:
    assert [p.rule for p in url_problems("https://example.com/\u200btalk")] == ["URL-FORM"]
    assert [p.rule for p in url_problems("https://example.com\\talk")] == ["URL-FORM"]
    assert url_problems("urn:example:binding") == []


def test_card_url_at_the_root() -> None:
    assert card_url_problems("https://example.com/.well-known/agent-card.json") == []
    [p] = card_url_problems("https://owner.github.io/repo/.well-known/agent-card.json")
    assert "custom domain" in p.hint and "owner.github.io" in p.hint
    assert len(card_url_problems("https://example.com/.well-known/agent-card.json?v=2")) == 1


# -- OR-3.9 private values ---------------------------------------------------------------


def _matches(value: str, text: str) -> str | None:
    from acap.checks import find_private_values

    found = list(find_private_values(text, [PrivateValue("s", value, "p.yaml", 1)]))
    return found[0][1] if found else None


@pytest.mark.parametrize(("text", "level"), [
    ("A cremation costs £2,450.", "error"),
    ("A CREMATION COSTS £2,450.", "error"),
    # The same amount however it is written: currency and value, separators aside.
    ("from £2450", "error"),
    ("from £ 2 450", "error"),
    ("from £2\u202f450", "error"),
    ("from GBP 2450", "error"),
    ("from gbp2,450", "error"),
    ("costs 2450 pounds", "error"),
    ("costs 2,450 pounds sterling", "error"),
    ("costs £2,450.00", "error"),
    ("costs £2.450", "error"),
    # Its number alone, or with another currency: perhaps a year or a street number.
    ("costs 2.450 EUR", "warning"),
    ("costs $2,450", "warning"),
    ("costs 2\u202f450", "warning"),
    ("costs £24.50", None),
    ("costs £12,450", None),
    ("reference 24501", None),
    ("open since 1995", None),
])
def test_private_value_matching(text: str, level: str | None) -> None:
    assert _matches("£2,450", text) == level


@pytest.mark.parametrize(("value", "text", "level"), [
    ("2.450 €", "ab 2450 EUR", "error"),
    ("2.450 €", "ab €2,450.00", "error"),
    ("2.450 €", "ab 2,45 €", None),
    ("2,45 €", "ab 2,45 €", "error"),
    ("2,45 €", "ab €2.45", "error"),
    ("2,45 €", "ab 245 €", None),
    ("direct cremation from £1,395", "the direct cremation: £1395", "error"),
    ("kr 1 995", "1995 kr", "error"),
    ("kr 1 995", "1995,-", "error"),
    ("2450", "ab 2,450", "error"),
    ("2450", "ab 2.450,00", "error"),
    ("2450 a month", "since 2,450", "warning"),
])
def test_private_amount_matching_in_other_currencies(value: str, text: str,
                                                     level: str | None) -> None:
    assert _matches(value, text) == level


def test_private_values_are_never_printed(tmp_path: Path) -> None:
    name = "or-3.9-value-in-description"
    shutil.copyfile(OPERATOR_CASES / f"{name}.yaml", tmp_path / "operator.yaml")
    shutil.copyfile(OPERATOR_CASES / f"{name}.private.yaml", tmp_path / "operator.private.yaml")
    result = build(BuildOptions(config=tmp_path / "operator.yaml", write=False))
    text = report_text(result.report) + json.dumps(report_json(result.report), ensure_ascii=False)
    assert "OR-3.9" in text
    assert "1,995" not in text and "1995" not in text


def test_the_site_check_sees_files_added_by_any_later_step(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """OR-3.9 over every built file runs after all steps, including steps added later."""
    shutil.copyfile(OPERATOR_CASES / "valid" / "minimal.yaml", tmp_path / "operator.yaml")
    (tmp_path / "operator.private.yaml").write_text('service-pricing: ["from £1,395"]\n',
                                                    encoding="utf-8")

    def step_leaky_page(ctx: BuildContext) -> None:
        ctx.files.add("https://example.com/prices/", b"<h1>Prices</h1>\n<p>From &pound;1,395</p>\n")

    monkeypatch.setattr(build_module, "STEPS", [*build_module.STEPS, step_leaky_page])
    result = build(BuildOptions(config=tmp_path / "operator.yaml"))
    assert not result.written and not (tmp_path / "site").exists()
    [f] = result.report.errors
    assert (f.rule, f.location, f.level) == ("OR-3.9", Location("example.com/prices/index.html", 2),
                                             "error")


# -- robustness: any card, any shape --------------------------------------------------------

_BASE_CARD: dict[str, Any] = json.loads((CARD_CASES / "valid" / "annex-a-like.json").read_text())
_json = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
                     | st.text(max_size=20),
                     lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=8), c,
                                                                         max_size=3),
                     max_leaves=8)


_PLACES = [p for p in places(_BASE_CARD) if p]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(_PLACES), _json), min_size=1, max_size=4))
def test_any_card_gives_findings_never_an_exception(changes: list[tuple[Any, Any]]) -> None:
    card = copy.deepcopy(_BASE_CARD)
    for place, value in changes:
        target: Any = card
        try:
            for key in place[:-1]:
                target = target[key]
            target[place[-1]] = value
        except (KeyError, IndexError, TypeError):
            continue
    findings = card_findings(card, "card.json", lambda p, _k: Location("card.json", pointer=p),
                          "https://example.com/.well-known/agent-card.json")
    assert all(f.rule in rule_ids() for f in findings)


def test_a_check_that_crashes_is_a_finding(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    import acap.checks._card_check

    def broken(*_a: object, **_k: object) -> list[object]:
        raise RuntimeError("boom")

    monkeypatch.setattr(acap.checks._card_check, "card_findings", broken)
    result = check_card(str(CARD_CASES / "valid" / "annex-a-like.json"))
    assert [(f.rule, f.level) for f in result.report] == [("ACAP-BUG", "error")]


# -- the registry and the code ----------------------------------------------------------------


def test_the_registry_lists_the_23_requirements_with_a_place() -> None:
    reqs = requirements()
    ids = [r.id for r in reqs]
    assert ids == [f"OR-3.{i}" for i in range(1, 10)] + [f"OR-5.{i}" for i in range(1, 11)] \
        + [f"OR-6.{i}" for i in range(1, 5)]
    for r in reqs:
        assert r.where or r.not_checkable, r.id
        assert set(r.where) <= {"build", "card", "reply", "probe"}


_CITED = re.compile(r"""(?:Finding|finding|Problem)\(\s*["']([A-Z][A-Z0-9.-]+)["']""")


def test_every_rule_id_the_code_cites_is_registered() -> None:
    cited = set()
    for path in SRC.rglob("*.py"):
        cited |= set(_CITED.findall(path.read_text(encoding="utf-8")))
    assert len(cited) > 30
    assert cited - rule_ids() == set()


def test_every_id_checked_in_a_card_or_at_build_is_cited_by_the_code() -> None:
    text = "".join(p.read_text(encoding="utf-8") for p in SRC.rglob("*.py"))
    schema = (SRC / "schemas" / "operator.schema.json").read_text()
    for rid in checked_at("build") | checked_at("card"):
        assert f'"{rid}"' in text or f'"{rid}"' in schema or rid.startswith("SCHEMA-"), rid


_MINIMAL = (OPERATOR_CASES / "valid" / "minimal.yaml").read_text(encoding="utf-8")


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_any_text_in_operator_yaml_gives_findings_never_an_exception(data: st.DataObject) -> None:
    """Every string of a valid operator.yaml replaced by arbitrary text (URLs, personEntry,
    phone numbers, hosts, ids): the checks report, they never raise."""
    import tempfile

    import yaml

    from acap.checks import check_operator
    from acap.load import load_operator

    doc = yaml.safe_load(_MINIMAL)
    doc["ownOrigins"] = ["https://book.example.com"]
    doc["hosts"] = {"example.com": {"cname": "example.com"}}
    strings = [p for p in places(doc) if p and isinstance(_get(doc, p), str)]
    for place in data.draw(st.lists(st.sampled_from(strings), min_size=1, max_size=4)):
        parent = _get(doc, place[:-1])
        parent[place[-1]] = data.draw(st.text(min_size=1, max_size=40) | st.sampled_from([
            "https://bücher.example/x", "tel:+44 20", "+1 555", "https://xn--abc.example",
            "http://[::1", "https://a.example:99999/", "javascript:alert(1)", "//x", "?"]))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "operator.yaml"
        path.write_text(json.dumps(doc), encoding="utf-8")
        cfg = load_operator(path)
        # the checks run beside loading and schema errors too (every finding of a run)
        assert all(f.rule in rule_ids() for f in check_operator(cfg))


def _get(doc: Any, place: tuple[Any, ...]) -> Any:
    for key in place:
        doc = doc[key]
    return doc
