"""Odd URLs give one clean finding, never a traceback (trial report item 4).

A URL with a space or a control character makes ``http.client`` raise
``InvalidURL`` (not a ``ValueError``); a bad IPv6 literal makes ``urlsplit``
raise ``ValueError``. Either, given to ``acap verify``, ``acap check`` (with or
without ``--live``) or as ``--jwks``, must end as a finding: ``CARD-READ``,
``LIVE-HTTP`` or ``SIG-KEYS``.

Name resolution is replaced by one that fails at once, so no test touches the
network, and http.client still sees every URL (its own checks are what raised).
"""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from acap.card import verify_card
from acap.checks import check_card
from acap.cli import finding_text, report_text
from acap.errors import FetchError
from acap.load import fetch, read_card
from acap.publisher import live_check
from support.cards import CARD, acap, check_text, run_build

TRIAL_URLS = ["https://exa mple.com/", "https://example.com/x y", "https://[::1/x",
              "https://exa\x01mple.com/", "https://example.com/\x7f", "https://[::1]:99999/",
              "https://localhost:port/", "https://" + "a" * 70 + ".example/",
              "https://example.com/\u202e", "https://example.com/a\nb"]


pytestmark = pytest.mark.usefixtures("offline")  # no name resolves (conftest)


odd_urls = st.one_of(
    st.sampled_from(TRIAL_URLS),
    st.builds(lambda scheme, host, path: scheme + host + path,
              st.sampled_from(["https://", "http://", "HTTPS://", "ftp://", "https:", "", "//"]),
              st.one_of(st.sampled_from(["exa mple.com", "[::1", "[::1]", "[::1]:1", "[",
                                         "127.0.0.1:1", "localhost:99999", "localhost:x",
                                         "example.invalid", "a" * 64 + ".com", "user@",
                                         "ex\u00e4mple.com", "xn--", "%zz", ""]),
                        st.text(max_size=12)),
              st.text(max_size=12)),
    st.text(max_size=40),
)


def _one_line_each(text: str) -> None:
    """Printed findings hold no control, format or line-separator character: each
    line is a finding line or its hint/see line, whatever the URL held."""
    for line in text.splitlines():
        # ZWNJ and ZWJ (Cf) are kept on purpose: words of Persian, Hindi and other
        # scripts need them, and they neither move the cursor nor reorder text
        # (acap.cli._reporters.terminal_safe); every other format character is escaped.
        odd = {unicodedata.category(c) for c in line if c not in "\u200c\u200d"}
        assert not odd & {"Cc", "Cf", "Cs", "Zl", "Zp"}, repr(line)


@settings(max_examples=150, deadline=None)
@given(odd_urls)
def test_fetch_raises_only_fetch_error(url: str) -> None:
    try:
        fetch(url, timeout=0.5)
    except FetchError as exc:
        assert exc.url == url
        assert exc.reason and (len(url) < 12 or url not in exc.reason)
        assert "Errno" not in exc.reason


@settings(max_examples=150, deadline=None)
@given(odd_urls)
@example("\u200c")  # a joiner alone: kept as it is, on one line (found by a CI run)
@example("\u202e.json")  # a bidi override: escaped
def test_read_card_and_check_give_findings(url: str) -> None:
    assume(not Path(url).exists())  # an odd string may name a real file here (.gitignore)
    cf = read_card(url, timeout=0.5)
    assert cf.data is None
    assert [f.rule for f in cf.findings] == ["CARD-READ"]
    result = check_card(url, timeout=0.5)
    assert "CARD-READ" in {f.rule for f in result.report.errors}
    _one_line_each(check_text(result))


@settings(max_examples=100, deadline=None)
@given(odd_urls)
def test_verify_file_gives_findings(url: str) -> None:
    assume(not Path(url).exists())  # an odd string may name a real file here (.gitignore)
    res = verify_card(url)
    assert not res.ok
    assert [f.rule for f in res.report] == ["CARD-READ"]
    _one_line_each(report_text(res.report))


@settings(max_examples=100, deadline=None)
@given(st.sampled_from([u for u in TRIAL_URLS if u.startswith("https://")]) | odd_urls)
def test_live_check_gives_findings(url: str) -> None:
    res = live_check(url, site_dir=None, timeout=0.5)
    assert not res.ok
    assert [f.rule for f in res.report] == ["LIVE-HTTP"]
    _one_line_each(report_text(res.report))


@pytest.fixture(scope="module")
def built_card(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import shutil

    from support.paths import EXAMPLE

    folder = tmp_path_factory.mktemp("built")
    shutil.copyfile(EXAMPLE, folder / "operator.yaml")
    assert run_build(folder / "operator.yaml").ok
    return folder / "site" / CARD


@settings(max_examples=100, deadline=None)
@given(odd_urls.filter(bool))
def test_an_odd_jwks_url_is_keys_unavailable(built_card: Path, url: str) -> None:
    res = verify_card(str(built_card), jwks=url)
    assert not res.ok
    assert [s.checked for s in res.signatures] == [False]
    assert [f.rule for f in res.report] == ["SIG-KEYS"]


@pytest.mark.parametrize("url", ["https://exa mple.com/", "https://example.com/x y",
                                 "https://[::1/x"])
@pytest.mark.parametrize("command", [["verify"], ["check"], ["check", "--live"]])
def test_the_trial_report_urls_on_the_command_line(command: list[str], url: str) -> None:
    res = acap(*command, url)
    assert res.exit_code == 1
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
    rule = "LIVE-HTTP" if "--live" in command else "CARD-READ"
    assert f"[{rule}]" in res.stderr + res.stdout
    assert "Traceback" not in res.stderr + res.stdout


def test_trial_report_jwks_url_on_the_command_line(built_card: Path) -> None:
    res = acap("verify", str(built_card), "--jwks", "https://exa mple.com/j")
    assert res.exit_code == 1
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
    assert ("signature 0: kid chapel-1, alg ES256: NOT CHECKED (cannot read the JWKS "
            "https://exa mple.com/j: it is not a URL: it holds a space or a control "
            "character)") in res.stdout
    assert "[SIG-KEYS]" in res.stderr


@pytest.mark.parametrize(("url", "reason"), [
    ("https://exa mple.com/", "it is not a URL: it holds a space or a control character"),
    ("https://[::1/x", "it is not a valid URL (check the host name, brackets and port)"),
    ("https://example.com:port/", "it is not a valid URL (check the host name, brackets and "
                                  "port)"),
    ("http://example.com/", "only https URLs are fetched (plain http only to a local "
                            "preview, with --allow-private)"),
    ("https:///path", "it is not a valid URL: it names no host"),
    ("https://example.com/", None),
    ("http://127.0.0.1:8000/x", "only https URLs are fetched (plain http only to a local "
                                "preview, with --allow-private)"),
    ("https://127.0.0.1:8000/x", "its host 127.0.0.1 is a loopback address: acap does not "
                                 "fetch private, loopback or link-local addresses: they are the "
                                 "machine's and its network's, not the Web's (give "
                                 "--allow-private to check a local test server)"),
])
def test_url_problem_says_why_in_plain_words(url: str, reason: str | None) -> None:
    from acap.load import url_problem

    assert url_problem(url) == reason


@pytest.mark.parametrize("url", ["http://127.0.0.1:8000/x", "https://127.0.0.1/x",
                                 "https://[::1]/x", "https://localhost/x",
                                 "https://10.1.2.3/x", "https://169.254.169.254/x",
                                 "https://[::ffff:127.0.0.1]/x"])
def test_local_addresses_only_with_allow_private(url: str) -> None:
    from acap.load import url_problem

    assert url_problem(url) is not None
    assert url_problem(url, allow_private=True) is None


def test_a_host_that_is_not_found_is_one_short_sentence() -> None:
    with pytest.raises(FetchError) as info:
        fetch("https://nowhere.example/card.json")
    assert info.value.reason == "the host name was not found (DNS)"
    assert str(info.value) == "https://nowhere.example/card.json: the host name was not found (DNS)"
    cf = read_card("https://nowhere.example/card.json")
    [f] = cf.findings
    assert finding_text(f).splitlines()[0] == (
        "https://nowhere.example/card.json: error: cannot read the card: the host name was "
        "not found (DNS) [CARD-READ]")


@pytest.mark.parametrize("jku", ["https://[::1/x", "https://exa mple.com/j", "https://x:port/"])
def test_publish_signature_check_with_an_odd_jku(built_card: Path, jku: str) -> None:
    """A hand-edited card in the site folder: acap publish's signature check reports it."""
    import json

    from acap.keys import b64url, b64url_decode
    from acap.publisher._preflight import signature_findings

    card = json.loads(built_card.read_bytes())
    header = json.loads(b64url_decode(card["signatures"][0]["protected"]))
    header["jku"] = jku
    card["signatures"][0]["protected"] = b64url(json.dumps(header).encode())
    found = signature_findings({".well-known/agent-card.json": json.dumps(card).encode()},
                               "example.com", Path("site/example.com"))
    assert "PUBLISH-SIGNATURE" in {f.rule for f in found}
