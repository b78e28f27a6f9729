"""What a non-programmer reads when operator.yaml is wrong (trial report items 8, 10, 12).

* YAML syntax errors are in plain words and point at the line of the mistake,
  not the line after it where libyaml noticed it;
* a tab in the indentation is reported on every line that has one, and the rest
  of the file is still checked;
* every explicit tag but ``!!str`` is one ``YAML-TAG`` error and its value is never
  used;
* schema findings name list items by what they are, and never suggest deleting a
  required line.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from acap.cli import finding_text
from acap.findings import Finding
from acap.load import load_operator
from support.cards import acap, run_build
from support.paths import EXAMPLE

Write = Callable[..., Path]

EXAMPLE_LINES = EXAMPLE.read_text(
    encoding="utf-8").split("\n")


def edited(line: int, old: str, new: str) -> str:
    """The bundled operator.yaml with ``old`` replaced by ``new`` on ``line`` (1-based)."""
    lines = list(EXAMPLE_LINES)
    assert old in lines[line - 1], lines[line - 1]
    lines[line - 1] = lines[line - 1].replace(old, new, 1)
    return "\n".join(lines)


def line_of(text: str) -> int:
    """The 1-based line of the bundled operator.yaml that holds ``text`` (first one)."""
    return next(i for i, line in enumerate(EXAMPLE_LINES, 1) if text in line)


def only(findings: list[Finding], rule: str) -> Finding:
    hits = [f for f in findings if f.rule == rule]
    assert len(hits) == 1, [finding_text(f) for f in findings]
    return hits[0]


# -- syntax errors: the line of the mistake, in plain words -------------------------------------

def test_missing_colon_names_its_line_and_the_next(write_operator: Write) -> None:
    # operator.yaml line 12 is "  name: Example Memorial Chapel"; libyaml notices the
    # missing colon at 13:10 ("mapping values are not allowed in this context").
    f = only(load_operator(write_operator(edited(12, "name:", "name"))).findings,
             "YAML-SYNTAX")
    assert (f.level, f.location.line, f.location.column) == ("error", 12, 3)
    assert f.message.startswith("not valid YAML: line 12 or 13: ")
    assert "missing a colon after its key" in f.message
    assert "mapping values" not in f.message
    assert f.hint is not None and "on line 12" in f.hint


def test_colon_inside_unquoted_text_names_the_line_above_too(write_operator: Write) -> None:
    text = edited(51, "States the chapel's opening hours",
                  "Hours: the chapel's opening hours")
    f = only(load_operator(write_operator(text)).findings, "YAML-SYNTAX")
    assert (f.location.line, f.location.column) == (51, 23)
    assert f.message == ("not valid YAML: line 50 or 51: a line here or just above is missing "
                         "a colon after its key, or has a colon inside unquoted text")
    assert f.hint is not None and "quotes" in f.hint


def test_missing_colon_in_a_skill(write_operator: Write) -> None:
    f = only(load_operator(write_operator(edited(49, "kind:", "kind"))).findings,
             "YAML-SYNTAX")
    assert (f.location.line, f.location.column) == (49, 5)
    assert f.message == "not valid YAML: line 49 is missing a colon after its key"
    assert f.hint is not None and "kind: public" in f.hint


def test_unclosed_quote_names_the_line_it_opens_on(write_operator: Write) -> None:
    # phone: "+44 20 7946 0000" loses its closing quote; libyaml notices lines later,
    # at the next quote.
    n = line_of('phone: "+44 20 7946 0000"')
    f = only(load_operator(write_operator(edited(n, '0000"', "0000"))).findings,
             "YAML-SYNTAX")
    assert (f.location.line, f.location.column) == (n, 10)
    later = next(i for i, line in enumerate(EXAMPLE_LINES, 1) if i > n and '"' in line)
    assert f.message == (f"not valid YAML: the quote opened on line {n} is not closed on that "
                         f"line (the text runs on to line {later})")


def test_missing_bracket_names_the_line_it_opens_on(write_operator: Write) -> None:
    f = only(load_operator(write_operator(edited(52, "]", ""))).findings, "YAML-SYNTAX")
    assert (f.location.line, f.location.column) == (52, 11)
    assert f.message == "not valid YAML: the list opened with [ on line 52 is not closed with ]"
    assert f.hint is not None and "line 52" in f.hint


@pytest.mark.parametrize(("text", "line", "words"), [
    ('a:\n  b: "x" y\n', 2, "line 2 has text after the closing quote"),
    ("a: 1\n- b\n", 2, "line 2 is a list item ('- ') where a key is expected"),
    ("a:\n  b: 1\n c: 2\n", 3, "line 3 is not lined up with the lines above it"),
    ("a: @x\n", 1, "a value cannot start with the character '@'"),
    ("a: 'x\n", 1, "the quote opened on line 1 is never closed"),
    ("a: \x00\n", 1, "the file holds a control character (U+0000)"),
])
def test_other_syntax_errors_in_plain_words(write_operator: Write, text: str, line: int,
                                            words: str) -> None:
    f = only(load_operator(write_operator(text)).findings, "YAML-SYNTAX")
    assert f.location.line == line
    assert words in f.message


# -- tabs: every line, and the rest of the file still checked ----------------------------------

def test_every_tab_line_is_reported_with_the_other_faults(write_operator: Write) -> None:
    text = edited(12, "  name:", "\tname:").replace("  website: https://example.com",
                                                    "\twebsite: https://example.com", 1)
    text = text.replace("    kind: public\n", "    kind: publc\n", 1)
    cfg = load_operator(write_operator(text))
    got = sorted((f.rule, f.level, f.location.line) for f in cfg.findings)
    assert got == [("SCHEMA-ENUM", "error", 49), ("YAML-TAB", "error", 12),
                   ("YAML-TAB", "error", 13)]


def test_a_file_with_a_tab_is_not_built(write_operator: Write) -> None:
    path = write_operator(edited(12, "  name:", "\tname:"))
    result = run_build(path)
    assert [(f.rule, f.location.line) for f in result.report.errors] == [("YAML-TAB", 12)]
    assert not result.written and not (path.parent / "site").exists()


def test_tabs_in_a_file_indented_with_tabs_throughout(write_operator: Write) -> None:
    cfg = load_operator(write_operator("operator:\n\tname: A\n\twebsite: https://a.example\n"
                                       "agent:\n\tname: B\n"))
    assert [f.location.line for f in cfg.findings if f.rule == "YAML-TAB"] == [2, 3, 5]
    assert cfg.data["operator"] == {"name": "A", "website": "https://a.example"}


# -- tags: one clear error each, the value never used ------------------------------------------

@pytest.mark.parametrize(("value", "tag"), [
    ("!!binary aGVsbG8=", "!!binary"),
    ("!!python/name:os.system", "!!python/name:os.system"),
    ("!!python/object/apply:os.system\n    - ls", "!!python/object/apply:os.system"),
    ('!!int "5"', "!!int"),
    ("!!int 5", "!!int"),
    ("!custom x", "!custom"),
    ("&a !!binary aGVsbG8=", "!!binary"),
    ("!<tag:yaml.org,2002:binary> aGVsbG8=", "!<tag:yaml.org,2002:binary>"),
])
def test_every_explicit_tag_is_one_yaml_tag_error(write_operator: Write, value: str,
                                                  tag: str) -> None:
    cfg = load_operator(write_operator(edited(12, "Example Memorial Chapel", value)))
    assert [(f.rule, f.level, f.location.line, f.location.column)
            for f in cfg.findings] == [("YAML-TAG", "error", 12, 9)]
    f = cfg.findings[0]
    assert f.message == f"'{tag}' is a YAML tag; operator.yaml takes plain values, not tagged ones"
    assert cfg.data["operator"]["name"] is None  # never read, never published


def test_a_tagged_value_is_never_published(write_operator: Write) -> None:
    path = write_operator(edited(51, "States the chapel's opening hours and where to find it.",
                                 "!!binary aGVsbG8="))
    result = run_build(path)
    assert [f.rule for f in result.report.errors] == ["YAML-TAG"]
    assert not (path.parent / "site").exists()


def test_str_tag_is_text(write_operator: Write) -> None:
    cfg = load_operator(write_operator(edited(22, "version: 1.0.0", "version: !!str 1.10")))
    assert cfg.findings == []
    assert cfg.data["agent"]["version"] == "1.10"


# -- schema messages: items by name, hints that can be followed -------------------------------

def test_skills_and_interfaces_are_named_not_numbered(write_operator: Write) -> None:
    text = (edited(51, "    description: States the chapel's opening hours and where to "
                   "find it.", "")
            .replace("  - id: service-pricing\n    kind: on-request\n",
                     "  - kind: on-request\n", 1)
            .replace("    - url: https://agent.example.com/a2a/v1\n      binding: JSONRPC",
                     "    - binding: JSONRPC", 1))
    cfg = load_operator(write_operator(text))
    messages = sorted(f.message for f in cfg.findings)
    assert messages == ["interface 1 needs 'url'",
                        "skill 'opening-hours' needs 'description'",
                        "the 2nd skill (no id yet) needs 'id'"]
    assert not any("'0'" in m or "'1'" in m for m in messages)


def test_a_tag_is_named_by_its_skill(write_operator: Write) -> None:
    cfg = load_operator(write_operator(edited(52, "[hours, location]", '[hours, ""]')))
    f = only(cfg.findings, "SCHEMA-EMPTY")
    assert f.message == "tag 2 of skill 'opening-hours' is empty"
    assert f.location.line == 52


def test_empty_required_text_is_not_told_to_delete_the_line(write_operator: Write) -> None:
    text = edited(18, "description: >-", 'description: ""')
    text = text.replace("    Answers questions for Example Memorial Chapel. Gives public "
                        "information to\n    any caller. Information the chapel gives on "
                        "request is given to the person\n    who asks, at the address "
                        "stated.\n", "", 1)
    f = only(load_operator(write_operator(text)).findings, "SCHEMA-EMPTY")
    assert (f.location.line, f.message, f.hint) == (18, "'description' is empty",
                                                    "write the text")


def test_empty_optional_text_may_be_deleted(write_operator: Write) -> None:
    n = line_of("email: ask@example.com")
    f = only(load_operator(write_operator(edited(n, "ask@example.com", '""'))).findings,
             "SCHEMA-EMPTY")
    assert f.hint == "write the text, or delete the line"


def test_required_key_without_value_is_not_told_to_delete_the_line(
        write_operator: Write) -> None:
    f = only(load_operator(write_operator(edited(12, "Example Memorial Chapel", ""))).findings,
             "SCHEMA-EMPTY")
    assert (f.message, f.hint) == ("'name' has no value", "write a value after the colon")


def test_write_a_list_shows_the_list(write_operator: Write) -> None:
    f = only(load_operator(write_operator(edited(29, "[text/plain]", "text/plain"))).findings,
             "SCHEMA-TYPE")
    assert f.hint == ("write a list: inputModes: [text/plain], or one '- ' line per item "
                      "under inputModes:")


def test_ambiguous_word_without_yaml_versions(write_operator: Write) -> None:
    f = only(load_operator(write_operator(edited(27, "false", "yes"))).findings,
             "YAML-AMBIGUOUS")
    assert f.message == "'yes' could be read as true or false, or as the word yes"
    assert "1.1" not in f.message and "1.2" not in f.message


def test_http_message_has_no_stray_colon(write_operator: Write) -> None:
    path = write_operator(edited(24, "https://agent.example.com", "http://agent.example.com"))
    f = only(list(run_build(path).report), "URL-HTTPS")
    assert f.message.endswith("must be https, not http")


def test_host_name_is_quoted_once(write_operator: Write) -> None:
    text = "\n".join(EXAMPLE_LINES).replace("  ask.example.com:\n", "  ask.example.com/talk:\n",
                                            1)
    path = write_operator(text)
    found = [f for f in run_build(path).report if f.rule == "URL-FORM"]
    assert found, "no URL-FORM finding"
    assert found[0].message == "the hosts entry 'ask.example.com/talk' is not a host name"


# -- the build's last line names the files with errors ----------------------------------------

def test_not_built_names_the_private_file(example: Path) -> None:
    (example.parent / "operator.private.yaml").write_text("service-pricng:\n  - \"£2,450\"\n",
                                                          encoding="utf-8")
    res = acap("build", "-c", str(example), "--no-spec-site")
    assert res.exit_code == 1
    private = example.parent / "operator.private.yaml"
    assert f"not built: errors in {private}\n" in res.stderr  # no site/ yet: nothing kept
    assert f"errors in {example}" not in res.stderr


# -- a list item without its space, and spaces that are not spaces (issue 15) ---------------------

@pytest.mark.parametrize("text", ["  - id: opening-hours", "  - id: service-pricing",
                                  "  - id: speak-to-staff", "    - url: https://agent"])
def test_a_dash_without_its_space_is_named_at_its_own_line(write_operator: Write,
                                                           text: str) -> None:
    """``-id: x`` is a key named '-id' to YAML; libyaml complained of the line after it (or
    of its alignment). The error is at the dash, says what is missing, and the rest of the
    file is read as meant: no second error."""
    n = line_of(text)
    key = text.strip()[2:].split(":")[0]
    findings = load_operator(write_operator(edited(n, "- ", "-"))).findings
    assert [(f.rule, f.location.line) for f in findings] == [("YAML-SYNTAX", n)]
    f = findings[0]
    assert f.location.column == text.index("-") + 1
    assert f.message == (f"not valid YAML: line {n} starts a list item without a space after "
                         f"the dash ('-{key}:')")
    assert f.hint == (f"write '- {key}:', with a space after the dash (acap read it so to "
                      "check the rest of the file)")


def test_a_dash_key_that_still_parses_is_named_too(write_operator: Write) -> None:
    """``skills:\\n  -id: x`` parses (skills is then a mapping): the dash is still the fault."""
    start = line_of("skills:")
    short = "\n".join(EXAMPLE_LINES[:start]) + "\n  -id: opening-hours\n"
    findings = load_operator(write_operator(short)).findings
    f = only(findings, "YAML-SYNTAX")
    assert (f.location.line, f.location.column) == (start + 1, 3)


def test_a_dash_in_text_over_several_lines_is_text(write_operator: Write) -> None:
    n = line_of("What each of our services costs")
    text = edited(n, "What each", "-note: what each")
    assert [f.rule for f in load_operator(write_operator(text)).findings
            if f.rule.startswith("YAML")] == []


@pytest.mark.parametrize(("text", "old", "new"), [
    ("    name: Service costs", "    name", "\u00a0   name"),
    ("  - id: service-pricing", "  - id", "\u00a0 - id"),
    ("  name: Example Memorial Chapel", "  name", "\u00a0 name"),
    ("    kind: on-request", "    kind", "  \u2007 kind"),
])
def test_a_no_break_space_in_the_indentation_is_named_at_its_line(
        write_operator: Write, text: str, old: str, new: str) -> None:
    """A no-break space (from a web page or a word processor) looks like a space: libyaml
    reported the line after it, or a misalignment. Each such line is named, and the file is
    read on as if it were a space."""
    n = line_of(text)
    findings = load_operator(write_operator(edited(n, old, new))).findings
    assert [(f.rule, f.location.line) for f in findings] == [("YAML-SPACE", n)]
    f = findings[0]
    ch = new.lstrip(" ")[0]
    name = "no-break space (U+00A0)" if ch == "\u00a0" else "figure space (U+2007)"
    assert f.location.column == new.index(ch) + 1
    assert f.message == (f"line {n} is indented with a {name}, which looks like a space but "
                         "is not one to YAML")


def test_a_no_break_space_inside_a_text_is_text(write_operator: Write) -> None:
    n = line_of("hours: Monday to Friday")
    cfg = load_operator(write_operator(edited(n, "09:00 to", "09:00\u00a0to")))
    assert cfg.findings == []
    assert cfg.data["contact"]["hours"] == "Monday to Friday 09:00\u00a0to 17:00"
