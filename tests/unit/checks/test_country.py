"""Hints that suggest a telephone number use the operator's country, not +44."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

from acap.checks._country import (
    FALLBACK_EXAMPLE,
    country_of_address,
    country_of_host,
    operator_country,
    phone_example,
    phone_hint,
)
from support.pages import example_data, run_build, write_yaml
from support.paths import REPO, SRC


@pytest.mark.parametrize(("address", "country"), [
    ("1 Example Street, Exampleton EX1 1AA, United Kingdom", "GB"),
    ("Marienplatz 1\n80331 München\nDeutschland", "DE"),
    ("Marienplatz 1, 80331 München, Germany", "DE"),
    ("12 rue de la Paix, 75002 Paris, France", "FR"),
    ("Stephansplatz 1, 1010 Wien, Österreich", "AT"),
    ("Rua Augusta 1, 1100-048 Lisboa, Portugal", "PT"),
    ("Av. Paulista 1000, São Paulo - SP, 01310-100, Brasil", "BR"),
    ("Calle Mayor 1, 28013 Madrid, España", "ES"),
    ("Via Roma 1, 00100 Roma, Italia", "IT"),
    ("Dam 1, 1012 JS Amsterdam, Nederland", "NL"),
    ("1 Example Street, Exampleton EX1 1AA, Royaume-Uni", "GB"),
    ("1 High Street, Cardiff, Wales", "GB"),
    ("ul. Długa 1, 00-001 Warszawa, Polska", "PL"),
    ("Marienplatz 1, 80331 München", None),  # no country named: not guessed
    ("100 Peachtree St, Atlanta, Georgia", None),  # a US state, not the country
    ("", None),
])
def test_the_country_an_address_ends_with(address: str, country: str | None) -> None:
    assert country_of_address(address) == country


@pytest.mark.parametrize(("host", "country"), [
    ("www.zahnarzt-huber-muenchen.de", "DE"), ("example.co.uk", "GB"), ("praxis.at", "AT"),
    ("example.com", None), ("chapel.io", None), ("ask.example.org", None),
    ("xn--zahnrzte-3za.de", "DE"), ("example.de.", "DE"),
])
def test_the_country_of_a_host(host: str, country: str | None) -> None:
    assert country_of_host(host) == country


def test_the_country_comes_from_a_number_then_the_address_then_the_domain() -> None:
    data: dict[str, Any] = {"operator": {"website": "https://praxis.de"},
                            "contact": {"phone": "+33 1 23 45 67 89",
                                        "address": "Via Roma 1, Roma, Italia"}}
    assert operator_country(data) == "FR"
    data["contact"]["phone"] = "089 1234567"  # not international: says nothing
    assert operator_country(data) == "IT"
    data["contact"]["address"] = "Marienplatz 1, 80331 München"
    assert operator_country(data) == "DE"
    data["skills"] = [{"personEntry": "+44 20 7946 0000"}]
    assert operator_country(data) == "GB"
    assert operator_country({"operator": "not a mapping", "contact": ["x"]}) is None


def test_a_local_number_is_given_back_in_international_form() -> None:
    assert phone_hint("089 1234567", "DE") == \
        "write it with + and the country code: +49 89 1234567"
    assert phone_hint("01 23 45 67 89", "FR") == \
        "write it with + and the country code: +33 1 23 45 67 89"
    # not a number there: an example of the country's numbers
    assert phone_hint("1234", "DE") == "write it with + and the country code, e.g. " \
        + phone_example("DE")
    assert phone_example("DE").startswith("+49 ")
    assert phone_hint("020 7946 0000", None) == \
        f"write it with + and the country code, e.g. {FALLBACK_EXAMPLE}"


def _munich(tmp_path: Path, **contact: str) -> Any:
    data = example_data()
    data["operator"]["website"] = "https://www.zahnarzt-huber-muenchen.de"
    data["contact"].update(contact)
    return run_build(write_yaml(tmp_path, data))


def test_a_munich_practice_is_shown_a_german_number(tmp_path: Path) -> None:
    result = _munich(tmp_path, phone="089 1234567", address="Marienplatz 1, 80331 München")
    [f] = result.report.errors
    assert (f.rule, f.hint) == ("PAGE-PHONE",
                                "write it with + and the country code: +49 89 1234567")


def test_a_personentry_number_gets_the_country_of_the_contact_number(tmp_path: Path) -> None:
    data = example_data()
    data["contact"]["phone"] = "+49 89 1234567"
    data["skills"][1]["personEntry"] = "089 7654321"
    [f] = run_build(write_yaml(tmp_path, data)).report.errors
    assert (f.rule, f.hint) == ("OR-3.4",
                                "write it with + and the country code: +49 89 7654321")


def test_the_country_names_are_what_the_script_generates(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("country_names",
                                                  REPO / "scripts" / "country_names.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.main(tmp_path / "country-names.json")
    assert (tmp_path / "country-names.json").read_bytes() == \
        (SRC / "data" / "country-names.json").read_bytes()
