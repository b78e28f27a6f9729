"""An operator's hosts are public DNS names (attack-report LOW 9).

An IP literal in any form a resolver accepts, localhost and names under it, and a
single label are URL-FORM errors at their line: each would become a folder of site/
that a wildcard web server serves for requests by address or to internal names.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from acap.builder import check_operator_file
from support.paths import REPO

OPERATOR = REPO / "tests" / "cases" / "operator" / "private-values-faults.yaml"
WEBSITE = "  website: https://example.com\n"


def errors(tmp_path: Path, text: str) -> list[tuple[str, int | None]]:
    op = tmp_path / "operator.yaml"
    op.write_text(text, encoding="utf-8")
    return [(f.rule, f.location.line) for f in check_operator_file(op).report.errors
            if f.rule == "URL-FORM"]


def line(text: str, needle: str) -> int:
    return text[:text.index(needle)].count("\n") + 1


@pytest.mark.parametrize("host", ["127.0.0.1", "0x7f.1", "127.1", "2130706433", "[::1]",
                                  "localhost", "a.localhost", "acap", "10.0.0.1",
                                  # re-trial LOW 3: special-use names and the names under them
                                  "localhost.localdomain", "foo.local", "foo.home.arpa",
                                  "metadata.google.internal", "a.internal", "a.localdomain",
                                  "abc.onion", "a.invalid", "a.test", "a.alt", "FOO.Local."])
def test_a_hosts_entry_that_is_no_public_name_is_url_form(tmp_path: Path, host: str) -> None:
    base = OPERATOR.read_text(encoding="utf-8")
    text = base + f"hosts:\n  '{host}': {{}}\n"
    assert errors(tmp_path, text) == [("URL-FORM", line(text, f"  '{host}'"))]


@pytest.mark.parametrize("host", ["0x7f.1", "localhost", "intranet"])
def test_card_host_and_website_are_judged_too(tmp_path: Path, host: str) -> None:
    base = OPERATOR.read_text(encoding="utf-8")
    text = base + f"cardHost: {host}\n"
    assert errors(tmp_path, text) == [("URL-FORM", line(text, "cardHost:"))]
    text = base.replace(WEBSITE, f"  website: https://{host}\n")
    assert ("URL-FORM", line(text, "  website:")) in errors(tmp_path, text)


@pytest.mark.parametrize("host", ["ask.example.com", "op0.example", "local.example.com",
                                  "test.example.org", "onion.example", "1.2.3.4.nip.io"])
def test_a_public_name_passes(tmp_path: Path, host: str) -> None:
    base = OPERATOR.read_text(encoding="utf-8")
    assert errors(tmp_path, base + f"hosts:\n  {host}: {{}}\n") == []
