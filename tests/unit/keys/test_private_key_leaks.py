"""A private key never reaches site/ (second trial report, items 1 and 6).

The trial put the signing key into site/ four ways: a link
``templates/footer.html -> ../.acap/signing-key.pem``, a copy of the PEM in
``templates/footer.html`` or ``templates/page.css``, and a PEM pasted into a
skill's description. Each built and served; ``acap check`` on the card found no
problem. Now ``acap build`` refuses each (KEY-PRIVATE at the place the text
came from, or PAGE-TEMPLATE naming the link) and leaves site/ as it was, and
``acap check`` refuses a card holding key material. The keys here are made by
the tests; the PEM blocks written into files are truncated, not keys.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

import pytest

from acap.builder._build import BuildResult
from acap.checks import check_card
from acap.cli import report_json, report_text
from acap.findings import Finding
from acap.keys import KeyMaterial, in_bytes, in_value
from support.cards import (
    CARD,
    acap,
    check_text,
    new_private,
    pem,
    run_build,
    secret_markers,
    set_key_file,
    tree,
)

FAKE_PEM = ("-----BEGIN PRIV" "ATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg\n"
            "-----END PRIVATE KEY-----\n")


def _first_build(example: Path) -> tuple[Path, dict[str, bytes], bytes]:
    """Build once with a key made here; returns site/, its files and the key's PEM."""
    private = new_private("ES256")
    set_key_file(example, private)
    res = run_build(example)
    assert res.ok, report_text(res.report)
    site = example.parent / "site"
    return site, tree(site), pem(private)


def _only(res: BuildResult, rule: str) -> list[Finding]:
    assert not res.ok and not res.written
    assert {f.rule for f in res.report.errors} == {rule}, report_text(res.report)
    return res.report.errors


def _no_secret(res: BuildResult, private_pem: bytes) -> None:
    text = report_text(res.report) + json.dumps(report_json(res.report), ensure_ascii=False)
    for line in private_pem.decode().splitlines()[1:-1]:
        assert line not in text


def test_linked_key_in_templates_is_refused_naming_the_link(example: Path) -> None:
    site, before, key = _first_build(example)
    tpl = example.parent / "templates"
    tpl.mkdir()
    (tpl / "footer.html").symlink_to(Path("..") / ".acap" / "signing-key.pem")
    res = run_build(example)
    [f] = _only(res, "PAGE-TEMPLATE")
    assert f.level == "error"
    assert f.location.file == str(example.parent / "templates" / "footer.html")
    # judged before any template is read, in every build (issue 22)
    assert "templates/footer.html is a link that leads outside the templates folder" \
        in f.message
    _no_secret(res, key)
    assert tree(site) == before
    assert not any(b"PRIVATE KEY" in data for data in tree(site).values())


def test_link_to_a_words_file_outside_is_refused(example: Path, tmp_path: Path) -> None:
    _first_build(example)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "fr.yaml").write_text("howHeading: x\n", encoding="utf-8")
    words = example.parent / "templates" / "words"
    words.mkdir(parents=True)
    (words / "fr.yaml").symlink_to(outside / "fr.yaml")
    text = example.read_text(encoding="utf-8")
    example.write_text(text + "page:\n  languages: [en, fr]\n" if "\npage:" not in text else
                       text, encoding="utf-8")
    res = run_build(example)
    links = [f for f in res.report if f.rule == "PAGE-TEMPLATE"]
    assert [f.location.file for f in links] == [str(words / "fr.yaml")], \
        report_text(res.report)


def test_a_link_inside_templates_is_followed(example: Path) -> None:
    _first_build(example)
    tpl = example.parent / "templates"
    (tpl / "parts").mkdir(parents=True)
    (tpl / "parts" / "foot.html").write_text("<p>Family run since 1921.</p>\n",
                                             encoding="utf-8")
    (tpl / "footer.html").symlink_to(Path("parts") / "foot.html")
    res = run_build(example)
    assert res.ok, report_text(res.report)
    assert b"Family run since 1921." in res.files["ask.example.com/talk/index.html"]


def test_copied_key_in_footer_is_refused_at_the_template_line(example: Path) -> None:
    site, before, key = _first_build(example)
    tpl = example.parent / "templates"
    tpl.mkdir()
    (tpl / "footer.html").write_bytes(b"<p>footer</p>\n" + key)
    res = run_build(example)
    [f] = _only(res, "KEY-PRIVATE")
    assert (f.location.file, f.location.line) == (str(tpl / "footer.html"), 2)
    msg = f.message
    assert msg.startswith(f"a PEM private key in {tpl / 'footer.html'} would be written into ")
    assert str(site / "ask.example.com" / "talk" / "index.html") in msg
    _no_secret(res, key)
    assert tree(site) == before


def test_copied_key_in_page_css_is_refused_at_its_line(example: Path) -> None:
    site, before, _ = _first_build(example)
    tpl = example.parent / "templates"
    tpl.mkdir()
    (tpl / "page.css").write_text("body { margin: 0 }\n/*\n" + FAKE_PEM + "*/\n",
                                  encoding="utf-8")
    res = run_build(example)
    [f] = _only(res, "KEY-PRIVATE")
    assert (f.location.file, f.location.line) == (str(tpl / "page.css"), 3)
    assert tree(site) == before


def test_key_pasted_into_a_description_is_refused_at_its_line(example: Path) -> None:
    site, before, key = _first_build(example)
    lines = example.read_text(encoding="utf-8").splitlines(keepends=True)
    at = lines.index("  - id: service-pricing\n")
    desc = next(i for i in range(at, len(lines)) if lines[i].startswith("    description:"))
    block = "".join("      " + line + "\n" for line in key.decode().splitlines())
    lines[desc] = "    description: |-\n      Costs of our services.\n" + block
    del lines[desc + 1:next(i for i in range(desc + 1, len(lines))
                             if not lines[i].startswith("      "))]
    example.write_text("".join(lines), encoding="utf-8")
    res = run_build(example)
    [f] = _only(res, "KEY-PRIVATE")
    header = example.read_text(encoding="utf-8").splitlines().index(
        "      -----BEGIN PRIV" "ATE KEY-----") + 1
    assert (f.location.file, f.location.line, f.location.column) == (str(example), header, 7)
    assert f.location.pointer == "/skills/1/description"
    assert f.message.startswith("/skills/1/description holds a PEM private key")
    _no_secret(res, key)
    assert tree(site) == before


def test_private_jwk_text_in_operator_yaml_is_refused(example: Path) -> None:
    _first_build(example)
    jwk = json.dumps({"kty": "EC", "crv": "P-256", "x": "AA", "y": "AA", "d": "AA"})
    text = example.read_text(encoding="utf-8")
    text = text.replace("    description: States the chapel's opening hours and where to find it.",
                        f"    description: '{jwk}'")
    example.write_text(text, encoding="utf-8")
    res = run_build(example)
    [f] = _only(res, "KEY-PRIVATE")
    assert f.location.line == text.splitlines().index(f"    description: '{jwk}'") + 1
    assert "/skills/0/description holds a private JWK" in f.message


def _jwk_text(private: object) -> str:
    from support.cards import private_jwk

    return json.dumps(private_jwk(private))


@pytest.mark.parametrize("line_start", [
    "  hours:",  # went into every page
    "    description: States the chapel's opening hours",  # went into the signed card
])
def test_the_signing_key_as_a_jwk_inside_text_is_refused_at_its_line(
        example: Path, line_start: str) -> None:
    """Trial 5, item 1: the real signing key, as a private JWK with words around it, in
    a contact value and in a skill's description. Both built, and publish sent them out."""
    site, before, _ = _first_build(example)
    key = new_private("ES256")
    set_key_file(example, key)
    jwk = _jwk_text(key).replace('"', '\\"')
    lines = example.read_text(encoding="utf-8").splitlines(keepends=True)
    at = next(i for i, t in enumerate(lines) if t.startswith(line_start))
    lines[at] = line_start.split(":")[0] + f': "Our key: {jwk} (keep it)"\n'
    example.write_text("".join(lines), encoding="utf-8")
    res = run_build(example)
    [f] = _only(res, "KEY-PRIVATE")
    assert (f.location.file, f.location.line) == (str(example), at + 1)
    assert "holds a private JWK" in f.message
    _no_secret(res, pem(key))
    assert tree(site) == before


def test_the_signing_key_in_a_form_no_detector_reads_is_still_refused(example: Path) -> None:
    """Whatever the text around it (here a YAML-style mapping, no JSON), the signing key's
    own private member d never reaches site/: it is searched for as it is."""
    site, before, _ = _first_build(example)
    from acap.keys._key import parse_private_key
    from support.cards import private_jwk

    key, _, _ = parse_private_key((example.parent / ".acap" / "signing-key.pem").read_bytes())
    d = private_jwk(key)["d"]
    lines = example.read_text(encoding="utf-8").splitlines(keepends=True)
    at = next(i for i, t in enumerate(lines) if t.startswith("  hours:"))
    lines[at] = f'  hours: "backup {{kty: EC, crv: P-256, d: {d}}}"\n'
    example.write_text("".join(lines), encoding="utf-8")
    res = run_build(example)
    found = _only(res, "KEY-PRIVATE")
    assert {(f.location.file, f.location.line) for f in found} == {(str(example), at + 1)}
    assert "would hold the private part of the signing key" in found[0].message
    shown = report_text(res.report) + json.dumps(report_json(res.report), ensure_ascii=False)
    assert d not in shown
    assert tree(site) == before


def test_a_jwk_in_a_template_comment_is_refused_at_the_template_line(example: Path) -> None:
    site, before, _ = _first_build(example)
    tpl = example.parent / "templates"
    tpl.mkdir()
    jwk = _jwk_text(new_private("EdDSA"))
    (tpl / "footer.html").write_text(f"<p>footer</p>\n<!-- {jwk} -->\n", encoding="utf-8")
    res = run_build(example)
    [f] = _only(res, "KEY-PRIVATE")
    assert (f.location.file, f.location.line) == (str(tpl / "footer.html"), 2)
    assert "a private JWK" in f.message
    assert tree(site) == before


def test_key_text_from_nowhere_known_names_the_built_file_and_the_places(example: Path) -> None:
    """A template that assembles the header (no literal key text anywhere): the built file
    is named, with its line, and the hint says where such text comes from."""
    site, before, _ = _first_build(example)
    tpl = example.parent / "templates"
    tpl.mkdir()
    (tpl / "footer.html").write_text('<p>x</p>\n{{ "-----BEGIN " ~ "PRIVATE KEY-----" }}\n',
                                     encoding="utf-8")
    res = run_build(example)
    found = _only(res, "KEY-PRIVATE")
    files = {f.location.file for f in found}
    assert str(site / "ask.example.com" / "talk" / "index.html") in files
    f = next(f for f in found if f.location.file.endswith("talk/index.html"))
    assert f.location.line is not None
    assert "would hold a PEM private key" in f.message
    assert "operator.yaml" in f.hint and "templates/" in f.hint
    assert tree(site) == before


def test_check_refuses_a_card_holding_a_pem_key(example: Path, tmp_path: Path) -> None:
    site, _, key = _first_build(example)
    card = json.loads((site / CARD).read_bytes())
    card["skills"][0]["description"] += "\n" + key.decode()
    path = tmp_path / "card.json"
    path.write_text(json.dumps(card, indent=2), encoding="utf-8")
    res = check_card(str(path))
    found = [f for f in res.report if f.rule == "KEY-PRIVATE"]
    assert [(f.level, f.location.pointer) for f in found] == [("error", "/skills/0/description")]
    line = path.read_text(encoding="utf-8").splitlines().index(
        next(ln for ln in path.read_text(encoding="utf-8").splitlines() if "BEGIN" in ln)) + 1
    assert found[0].location.line == line
    assert "no problems found" not in check_text(res)
    for marker in secret_markers(new_private("ES256"))[1:]:
        assert marker not in check_text(res)


def test_check_refuses_a_card_holding_private_jwk_members(tmp_path: Path) -> None:
    text = ('{\n  "name": "x",\n  "capabilities": {"extensions": [{"uri": "urn:x", "params":\n'
            '    {"key": {"kty": "OKP", "crv": "Ed25519", "x": "AA", "d": "AA"}}}]}\n}\n')
    path = tmp_path / "card.json"
    path.write_text(text, encoding="utf-8")
    res = check_card(str(path))
    found = [f for f in res.report if f.rule == "KEY-PRIVATE"]
    assert [(f.level, f.location.line, f.location.pointer) for f in found] == [
        ("error", 4, "/capabilities/extensions/0/params/key")]


def test_check_command_exit_status(tmp_path: Path) -> None:
    path = tmp_path / "card.json"
    path.write_text(json.dumps({"name": "x", "description": FAKE_PEM}), encoding="utf-8")
    res = acap("check", str(path))
    assert res.exit_code == 1
    assert "[KEY-PRIVATE]" in res.output


def test_detector_kinds() -> None:
    """One detector for build, check and publish: every PEM private key label, JWKs as
    data and as JSON text in a string, escaped JSON and HTML character references."""
    for label in ("PRIVATE KEY", "EC PRIVATE KEY", "RSA PRIVATE KEY", "ENCRYPTED PRIVATE KEY",
                  "OPENSSH PRIVATE KEY", "PGP PRIVATE KEY BLOCK"):
        assert in_bytes(f"a\n-----BEGIN {label}-----\nAAAA\n".encode()) == [
            KeyMaterial("pem", line=2)], label
    assert in_bytes(b"-----BEGIN PUBLIC KEY-----\nAAAA\n") == []
    assert in_bytes(b"-----BEGIN CERTIFICATE-----\nAAAA\n") == []
    assert in_bytes(b'{"a": ["\\u002d----BEGIN PRIV' b'ATE KEY-----"]}', "x.json") == [
        KeyMaterial("pem", "/a/0")]
    assert in_bytes(b"<p>\n&#45;----BEGIN PRIV" b"ATE KEY-----</p>", "x.html") == [
        KeyMaterial("pem", line=2)]
    jwk = {"kty": "RSA", "n": "AA", "e": "AQAB", "p": "AA"}
    assert in_value({"keys": [jwk]}) == [KeyMaterial("jwk", "/keys/0")]
    assert in_value({"d": "AA", "x": "AA"}) == []  # no kty: ordinary data
    assert in_value({"kty": "EC", "x": "AA", "y": "AA"}) == []  # public
    assert in_value({"t": json.dumps(jwk)}) == [KeyMaterial("jwk", "/t")]
    # with words around it, nested, or escaped for HTML; a public one stays fine
    assert in_value({"t": f"key: {json.dumps({'a': jwk})}!"}) == [KeyMaterial("jwk", "/t")]
    public = json.dumps({"kty": "EC", "crv": "P-256", "x": "AA", "y": "AA"})
    assert in_value({"t": f"our public key {public}, and a brace {{"}) == []
    text = json.dumps(jwk)
    for form in (json.dumps(text), json.dumps(json.dumps(text)), text.replace('"', '\\"'),
                 text.replace('"', "&quot;"), str(jwk)):  # trial 6: escaped, quoted again
        assert in_value({"t": f"text {form} more"}) == [KeyMaterial("jwk", "/t")], form
    assert in_value({"t": str({"kty": "EC", "x": "AA", "y": "AA"})}) == []
    page = f"<html>\n<p>{html.escape(json.dumps(jwk))}</p>".encode()
    assert in_bytes(page, "a.html") == [KeyMaterial("jwk", line=2)]
    assert in_bytes(f"<p>{html.escape(public)}</p>".encode(), "a.html") == []
