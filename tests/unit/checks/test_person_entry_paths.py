"""personEntry paths as file names of site/ (attack-report HIGH 2a, MEDIUM 4, MEDIUM 5).

A percent-escape that decodes to a control character, a backslash or bytes that are not
UTF-8, and ``%2F``, are URL-FORM errors at the personEntry line, from ``acap check``
too; a folder starting with a dot (``.git``) is SITE-PATH; ``.well-known`` is acap's.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from acap.builder import check_operator_file
from support.paths import REPO

OPERATOR = REPO / "tests" / "cases" / "operator" / "private-values-faults.yaml"
ENTRY = "personEntry: https://example.com/talk"


def findings_for(tmp_path: Path, path: str) -> tuple[list[tuple[str, int | None]], int]:
    text = OPERATOR.read_text(encoding="utf-8")
    assert ENTRY in text
    line = text[:text.index(ENTRY)].count("\n") + 1
    op = tmp_path / "operator.yaml"
    op.write_text(text.replace(ENTRY, f"personEntry: https://example.com/{path}"),
                  encoding="utf-8")
    return [(f.rule, f.location.line) for f in check_operator_file(op).report.errors
            if f.location.file == str(op)], line


@pytest.mark.parametrize("path", ["ask%00x", "ask%0A/*%0A%20%20Access-Control-Allow-Origin:%20x",
                                  "ask%1B]0;owned%07", "a%5Cb", "a%2Fb", "a%2fb", "a%FFb",
                                  "a%C2%85b",
                                  # re-trial LOW 2: Unicode Z separators but the plain space
                                  "ask%E2%80%A8/*%E2%80%A8%20%20Access-Control-Allow-Origin:"
                                  "%20https://evil", "a%E2%80%A9b", "a%C2%A0b", "a%E3%80%80b"])
def test_a_path_that_cannot_be_a_file_name_is_url_form(tmp_path: Path, path: str) -> None:
    found, line = findings_for(tmp_path, path)
    assert found == [("URL-FORM", line)]


@pytest.mark.parametrize("path", [".git/x", "a/.htaccess", ".env", "a/../b"])
def test_a_dot_folder_is_site_path(tmp_path: Path, path: str) -> None:
    found, line = findings_for(tmp_path, path)
    assert found == [("SITE-PATH", line)]


@pytest.mark.parametrize("path", ["talk", ".well-known/ask", "caf%C3%A9", "a.b/c", "a%20b"])
def test_a_plain_path_passes(tmp_path: Path, path: str) -> None:
    assert findings_for(tmp_path, path)[0] == []
