"""Every finding of a run is reported: the requirement checks run beside loading and
schema errors, never crash on a value of the wrong shape, and never say one fault twice.

(tests/cases/operator/every-layer-in-one-run.yaml holds one fault of each layer.)
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from acap.builder import BuildOptions, build
from acap.checks import check_operator
from acap.findings import Finding
from acap.load import load_operator
from acap.requirements import rule_ids
from support.cases import OPERATOR_CASES
from support.paths import REPO

MINIMAL = (OPERATOR_CASES / "valid" / "minimal.yaml").read_text(encoding="utf-8")
#: The places of the minimal file the tests below edit.
PERSON_ENTRY = "    personEntry: https://example.com/talk\n"
WEBSITE = "  website: https://example.com\n"


def run(text: str, tmp_path: Path) -> list[Finding]:
    path = tmp_path / "operator.yaml"
    path.write_text(text, encoding="utf-8")
    result = build(BuildOptions(config=path, write=False))
    assert result.card is None or result.report.ok
    return list(result.report)


def rules(findings: list[Finding]) -> list[tuple[str, int | None]]:
    return sorted((f.rule, f.location.line) for f in findings)


def test_a_tab_does_not_hide_an_http_website(tmp_path: Path) -> None:
    text = MINIMAL.replace(WEBSITE, "  website: http://example.com\n") \
        .replace("    tags: [pricing]\n", "\ttags: [pricing]\n")
    found = run(text, tmp_path)
    assert rules(found) == [("URL-HTTPS", 4), ("YAML-TAB", 16)]


def test_a_kid_fault_does_not_hide_a_query_string(tmp_path: Path) -> None:
    text = MINIMAL.replace(PERSON_ENTRY, "    personEntry: https://example.com/talk?x=1\n") \
        + "signing:\n  kid: chapel 1\n"
    assert rules(run(text, tmp_path)) == [("KEY-ID", 25), ("OR-3.8", 17)]


def test_a_value_the_schema_reports_is_not_reported_again_by_a_check(tmp_path: Path) -> None:
    # personEntry as a list: the schema says it (OR-3.4, its x-rule); the personEntry check
    # would say "must be text" at the same place.
    text = MINIMAL.replace(PERSON_ENTRY, "    personEntry: [https://example.com/talk]\n")
    found = run(text, tmp_path)
    assert [(f.rule, f.location.line, f.message) for f in found] == [
        ("OR-3.4", 17, "'personEntry' must be text, found a list")]


def test_blank_text_is_not_also_a_url_fault(tmp_path: Path) -> None:
    found = run(MINIMAL.replace(WEBSITE, '  website: "   "\n'), tmp_path)
    assert [(f.rule, f.location.line) for f in found if f.location.line == 4] == [
        ("SCHEMA-EMPTY", 4)]


def test_an_invisible_character_in_a_url_is_said_once(tmp_path: Path) -> None:
    text = MINIMAL.replace(PERSON_ENTRY, "    personEntry: https://example.com/ta\u200blk?x=1\n")
    found = run(text, tmp_path)
    # the query string is another fault, and is reported; the URL-FORM finding "contains
    # the invisible character" would repeat TEXT-INVISIBLE
    assert rules(found) == [("OR-3.8", 17), ("TEXT-INVISIBLE", 17)]


def test_a_mistyped_kind_does_not_make_its_keys_faults_too(tmp_path: Path) -> None:
    text = MINIMAL.replace("    kind: on-request\n", "    kind: on-requst\n") \
        .replace(PERSON_ENTRY, "    personEntry: https://example.com/talk?x=1\n")
    # no OR-3.2 "personEntry belongs to on-request skills": the skill is read as the
    # on-request skill its keys show, so its personEntry is still checked
    assert rules(run(text, tmp_path)) == [("OR-3.8", 17), ("SCHEMA-ENUM", 13)]


def test_a_misspelled_key_is_not_also_missing(tmp_path: Path) -> None:
    text = MINIMAL.replace(PERSON_ENTRY, "    personEntery: https://example.com/talk\n")
    # no OR-3.4 "has no personEntry": the did-you-mean of the unknown key says it
    assert rules(run(text, tmp_path)) == [("SCHEMA-UNKNOWN-KEY", 17)]
    text = MINIMAL.replace("    reachesStaff: true\n", "    reachesStaf: true\n")
    assert rules(run(text, tmp_path)) == [("SCHEMA-UNKNOWN-KEY", 20)]


def test_a_quoted_true_is_not_read_as_false(tmp_path: Path) -> None:
    # action: "true" is a schema fault; the check must not go on to say that completion
    # needs an action (OR-3.6), which the user did write
    text = MINIMAL.replace(PERSON_ENTRY, PERSON_ENTRY + '    action: "true"\n'
                           "    completion: deferred\n")
    assert rules(run(text, tmp_path)) == [("SCHEMA-TYPE", 18)]


def test_a_faulty_website_does_not_make_person_entry_a_foreign_origin(tmp_path: Path) -> None:
    text = MINIMAL.replace("operator:\n  name: Example Chapel\n" + WEBSITE,
                           "operator: [Example Chapel]\n")
    assert rules(run(text, tmp_path)) == [("SCHEMA-TYPE", 2)]


def test_a_top_level_that_is_not_a_mapping_gets_no_requirement_check(tmp_path: Path) -> None:
    assert rules(run("- a\n- b\n", tmp_path)) == [("SCHEMA-TYPE", 1)]


# -- any shape, no crash ----------------------------------------------------------------------

#: Values of every JSON shape, and text that breaks URLs, phone numbers and hosts.
ODD_VALUES: list[Any] = [None, 0, -3, 1.5, True, "x", "  ", [], ["x"], [None], {}, {"a": 1},
                         [{}], "https://a.example/x?y=1", "+44", "tel:"]


def _places(doc: Any, place: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield place
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from _places(v, (*place, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from _places(v, (*place, i))


def test_every_value_of_the_example_of_any_shape_never_crashes_the_checks(
        tmp_path: Path) -> None:
    """Each value of the bundled operator.yaml replaced in turn by values of every shape:
    the checks run (the file is a mapping), report only registered rules, and never at a
    place whose value loading or the schema already reported."""
    doc = yaml.safe_load((REPO / "operator.yaml").read_text(encoding="utf-8"))
    path = tmp_path / "operator.yaml"
    known = rule_ids()
    runs = 0
    for place in [p for p in _places(doc) if p]:
        for value in ODD_VALUES:
            edited = copy.deepcopy(doc)
            parent = edited
            for key in place[:-1]:
                parent = parent[key]
            parent[place[-1]] = value
            path.write_text(json.dumps(edited), encoding="utf-8")
            cfg = load_operator(path)
            found = check_operator(cfg)  # raises on a crash: the test fails with it
            runs += 1
            assert {f.rule for f in found} <= known
            errors = {f.location.pointer for f in cfg.findings if f.level == "error"
                      and f.rule not in ("TEXT-INVISIBLE", "YAML-DUPLICATE-KEY")}
            assert not [f for f in found if f.location.pointer in errors], (place, value)
    assert runs > 1000
