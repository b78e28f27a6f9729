"""A fresh-user trial (a German dental practice, a directory service): every hint is
plain words and a fix that works when followed.

Each test starts from the smallest operator.yaml that shows the fault, asserts the rule
id, the line and the hint, and where the hint suggests a value, builds with that value.
"""

from __future__ import annotations

from pathlib import Path

from acap.builder import BuildOptions, build
from acap.findings import Finding

#: The smallest valid operator.yaml: one on-request skill, one public staff skill.
MINIMAL = """\
operator:
  name: Zahnarztpraxis Müller
  website: https://zahnarzt-mueller.de
agent:
  name: Praxis Müller assistant
  description: Answers questions for the practice.
  version: 1.0.0
  interfaces:
    - url: https://agent.zahnarzt-mueller.de/a2a/v1
skills:
  - id: preise
    kind: on-request
    name: Prices
    description: What treatments cost, given to the person who asks.
    tags: [prices]
    personEntry: https://zahnarzt-mueller.de/fragen
  - id: staff
    kind: public
    reachesStaff: true
    name: Speak to a member of staff
    description: A member of staff calls back on the next working day.
    tags: [human]
"""


def build_text(tmp_path: Path, text: str) -> list[Finding]:
    """Build ``text`` as operator.yaml in memory; every finding."""
    path = tmp_path / "operator.yaml"
    path.write_text(text, encoding="utf-8")
    return list(build(BuildOptions(config=path, spec_site=False, write=False)).report)


def test_the_minimal_operator_builds(tmp_path: Path) -> None:
    assert build_text(tmp_path, MINIMAL) == []


# 1. "write a list" suggests items the list accepts


def test_a_single_origin_is_suggested_as_a_list_of_https_origins(tmp_path: Path) -> None:
    [f] = build_text(tmp_path, MINIMAL + "ownOrigins: termine.zahnarzt-mueller.de\n")
    assert (f.rule, f.location.line) == ("SCHEMA-TYPE", 23)
    assert f.hint == ("write a list: ownOrigins: [https://termine.zahnarzt-mueller.de], or "
                      "one '- ' line per item under ownOrigins:")
    # the suggestion, followed, builds
    assert build_text(tmp_path, MINIMAL + "ownOrigins: [https://termine.zahnarzt-mueller.de]\n") \
        == []


def test_a_list_of_plain_text_is_suggested_as_written(tmp_path: Path) -> None:
    text = MINIMAL.replace("tags: [prices]", "tags: prices")
    [f] = build_text(tmp_path, text)
    assert (f.rule, f.location.line) == ("SCHEMA-TYPE", 15)
    assert f.hint == "write a list: tags: [prices], or one '- ' line per item under tags:"


def test_a_personentry_elsewhere_shows_the_ownorigins_list_form(tmp_path: Path) -> None:
    text = MINIMAL.replace("https://zahnarzt-mueller.de/fragen",
                           "https://termine.zahnarzt-mueller.de/fragen")
    [f] = build_text(tmp_path, text)
    assert (f.rule, f.location.line) == ("OR-3.4", 16)
    assert f.hint is not None
    assert f.hint.endswith("declare the origin at the top level: "
                           "ownOrigins: [https://termine.zahnarzt-mueller.de] (beside any "
                           "origin already listed there)")
    # followed, it builds; acap builds no page there, and says so
    [w] = build_text(tmp_path, text + "ownOrigins: [https://termine.zahnarzt-mueller.de]\n")
    assert (w.rule, w.level, w.location.line) == ("PAGE-NOT-BUILT", "warning", 16)
    page = "https://termine.zahnarzt-mueller.de/fragen"
    assert w.message == (f"acap builds no page at {page}: termine.zahnarzt-mueller.de is one "
                         "of your origins (ownOrigins), not a host acap builds, so the signed "
                         "card sends people to a page you must provide yourself")
    assert w.hint == (f"make sure {page} exists and is where a person can ask (once it is "
                      "published, acap check https://zahnarzt-mueller.de/.well-known/"
                      "agent-card.json --live fetches it); if acap should build that page, "
                      "add hosts: {termine.zahnarzt-mueller.de: {}} at the top level and "
                      "publish termine.zahnarzt-mueller.de too")
    # the other way the OR-3.4 hint offers, followed: acap builds the page there
    assert "add at the top level: hosts: {termine.zahnarzt-mueller.de: {}}" in f.hint
    built = text + "hosts: {termine.zahnarzt-mueller.de: {}}\n"
    assert build_text(tmp_path, built) == []
    res = build(BuildOptions(config=tmp_path / "operator.yaml", spec_site=False, write=False))
    assert any(str(rel).startswith("termine.zahnarzt-mueller.de/fragen")
               and str(rel).endswith(".html") for rel in res.files)


def test_a_personentry_on_the_website_of_a_card_elsewhere_is_not_built(tmp_path: Path) -> None:
    """With the card on another host (cardHost), the website's host is the operator's but
    not built: the warning says which declaration makes it the operator's."""
    [w] = build_text(tmp_path, MINIMAL + "cardHost: agent.zahnarzt-mueller.de\n")
    assert (w.rule, w.level, w.location.line) == ("PAGE-NOT-BUILT", "warning", 16)
    assert "zahnarzt-mueller.de is your website's host (operator.website), not a host " \
        "acap builds" in w.message


# 2. a telephone number with letters is never "fixed" into keypad digits


def test_letters_in_contact_phone_are_named_not_dialled(tmp_path: Path) -> None:
    text = MINIMAL + "contact:\n  phone: 0049-30-12345678-tel\n"
    [f] = build_text(tmp_path, text)
    assert (f.rule, f.location.line) == ("PAGE-PHONE", 24)
    assert f.hint == "a telephone number has only digits, spaces, +, - and ( ): remove 'tel'"
    assert "835" not in f"{f.message} {f.hint}"  # no keypad digits for t, e, l


def test_letters_after_a_country_code_are_not_accepted_as_keypad_digits(
        tmp_path: Path) -> None:
    [f] = build_text(tmp_path, MINIMAL + "contact:\n  phone: +49-30-12345678-tel\n")
    assert (f.rule, f.location.line) == ("PAGE-PHONE", 24)
    assert f.hint == "a telephone number has only digits, spaces, +, - and ( ): remove 'tel'"


def test_letters_in_a_personentry_number_are_named(tmp_path: Path) -> None:
    text = MINIMAL.replace("https://zahnarzt-mueller.de/fragen", "+49 30 1234 PRAXIS")
    [f] = build_text(tmp_path, text)
    assert (f.rule, f.location.line) == ("OR-3.4", 16)
    assert f.hint == ("a telephone number has only digits, spaces, +, - and ( ): "
                      "remove 'PRAXIS'")


def test_an_extension_and_tel_are_not_letters(tmp_path: Path) -> None:
    assert build_text(tmp_path, MINIMAL + "contact:\n  phone: +49 30 12345678 ext 12\n") == []
    text = MINIMAL.replace("https://zahnarzt-mueller.de/fragen", "tel:+49-30-12345678")
    assert build_text(tmp_path, text) == []


# 3. a key outdented out of its mapping: the two findings name each other


def test_an_outdented_key_is_one_fault_named_twice(tmp_path: Path) -> None:
    text = MINIMAL.replace("  website: https://zahnarzt-mueller.de",
                           "website: https://zahnarzt-mueller.de")
    found = sorted(build_text(tmp_path, text), key=lambda f: f.location.line)
    assert [(f.rule, f.location.line, f.location.column) for f in found] == [
        ("SCHEMA-REQUIRED", 2, 3), ("SCHEMA-UNKNOWN-KEY", 3, 1)]
    hint = ("line 3 'website' is not indented under 'operator:'; indent it like the other "
            "lines of 'operator' (2 spaces)")
    assert [f.hint for f in found] == [hint, hint]


def test_a_top_level_key_indented_under_another_is_named(tmp_path: Path) -> None:
    text = MINIMAL.replace("agent:\n", "  agent:\n").replace("\n  name: Praxis",
                                                            "\n    name: Praxis")
    for key in ("description: Answers", "version: 1.0.0", "interfaces:"):
        text = text.replace(f"\n  {key}", f"\n    {key}")
    text = text.replace("\n    - url: https://agent", "\n      - url: https://agent")
    found = sorted(build_text(tmp_path, text), key=lambda f: f.location.line)
    assert [(f.rule, f.location.line) for f in found] == [
        ("SCHEMA-REQUIRED", 1), ("SCHEMA-UNKNOWN-KEY", 4)]
    assert {f.hint for f in found} == {
        "line 4 'agent' is indented, but it belongs at the top level; write it at the start "
        "of the line, like the other top-level keys"}


def test_a_missing_key_points_to_pages_an_installed_acap_has(tmp_path: Path) -> None:
    text = MINIMAL.replace("  website: https://zahnarzt-mueller.de\n", "")
    [f] = build_text(tmp_path, text)
    assert (f.rule, f.location.line) == ("SCHEMA-REQUIRED", 2)
    assert f.hint == ("add website: ... (see "
                      "https://agent-capability.org/ext/on-request/v1/operators.html, or the "
                      "commented operator.yaml that `acap init` writes)")


# 4. a kind with a typo: no follow-on finding that shows the typo back as a kind


def test_an_unknown_kind_gives_no_follow_on_private_values_finding(tmp_path: Path) -> None:
    (tmp_path / "operator.private.yaml").write_text('preise: ["150 EUR"]\n', encoding="utf-8")
    text = MINIMAL.replace("kind: on-request", "kind: onrequest")
    [f] = build_text(tmp_path, text)
    assert (f.rule, f.location.line, f.hint) == ("SCHEMA-ENUM", 12, "did you mean 'on-request'?")
    # with the kind corrected, the private values are the skill's
    assert build_text(tmp_path, MINIMAL) == []


def test_a_known_kind_that_is_not_on_request_still_says_so(tmp_path: Path) -> None:
    (tmp_path / "operator.private.yaml").write_text('staff: ["150 EUR"]\n', encoding="utf-8")
    [f] = build_text(tmp_path, MINIMAL)
    assert (f.rule, f.location.line, f.message) == (
        "PRIVATE-VALUES", 1, "'staff' is a public skill, not an on-request one: nothing it "
                             "says is given on request")


# 6. a website without https:// is said once, at its line (final fresh-user trial)


def test_a_website_without_its_scheme_gives_no_personentry_error_besides(
        tmp_path: Path) -> None:
    text = MINIMAL.replace("website: https://zahnarzt-mueller.de", "website: zahnarzt-mueller.de")
    [f] = build_text(tmp_path, text)  # not also OR-3.4 at the personEntry, whose fix is wrong
    assert (f.rule, f.location.line) == ("URL-FORM", 3)
    assert f.hint == "write it in full, starting with https://"
