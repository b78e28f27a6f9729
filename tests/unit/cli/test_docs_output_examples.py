"""Every JSON output the docs show is the shape acap prints: each ```json block of the
user guide, README.md, ARCHITECTURE.md, CHANGELOG.md and the specification site's pages
that is an ``--format json`` document validates against the schema acap ships
(src/acap/schemas/acap-output.schema.json), closed here (a member the schema does not
describe is refused, as a card result's ``card`` was), and every inline ``"member":
value`` naming a member of that document is JSON its schema accepts. The docs cannot
drift from the output again without this failing.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from click.testing import CliRunner

from acap import schemas
from acap.cli import cli
from support.cases import CARD_CASES
from support.paths import REPO

PAGES = sorted([*(REPO / "docs").glob("*.md"), REPO / "README.md", REPO / "ARCHITECTURE.md",
                REPO / "CHANGELOG.md", *(REPO / "src" / "acap" / "spec" / "docs").glob("*.md")])
#: The members only an --format json document has at its top.
DOCUMENT_MEMBERS = {"formatVersion", "findings", "results"}
BLOCK = re.compile(r"^( *)```json\n(.*?)^\1```", re.S | re.M)
INLINE = re.compile(r"(?<!`)`([^`]+)`(?!`)")
MEMBER = re.compile(r'^"([A-Za-z]+)":\s*(.+)$', re.S)


def _closed(node: Any) -> Any:
    """The output schema with ``unevaluatedProperties: false`` wherever it lists
    ``properties`` (but in an ``if``, which only tests a result's kind)."""
    if isinstance(node, list):
        return [_closed(n) for n in node]
    if not isinstance(node, dict):
        return node
    out = {k: v if k == "if" else _closed(v) for k, v in node.items()}
    if "properties" in node:
        out["unevaluatedProperties"] = False
    return out


def _closed_schema() -> dict[str, Any]:
    raw = copy.deepcopy(schemas.schema(schemas.OUTPUT))
    kinds = {rule["then"]["$ref"].rsplit("/", 1)[1]
             for rule in raw["$defs"]["result"]["allOf"]}
    out: dict[str, Any] = _closed(raw)
    for kind in kinds:  # open again at their top: the result, which applies them, is closed
        out["$defs"][kind] = {k: v for k, v in out["$defs"][kind].items()
                              if k != "unevaluatedProperties"}
    return out


CLOSED = jsonschema.Draft202012Validator(_closed_schema())


def _strict_json(text: str) -> Any:
    def no_twice(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        names = [k for k, _ in pairs]
        assert len(names) == len(set(names)), f"a member written twice: {names}"
        return dict(pairs)

    return json.loads(text, object_pairs_hook=no_twice)


def _problems(doc: Any) -> list[str]:
    return [f"/{'/'.join(map(str, e.absolute_path))}: {e.message}"
            for e in CLOSED.iter_errors(doc)]


def _blocks() -> list[tuple[str, str]]:
    out = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for m in BLOCK.finditer(text):
            line = text[:m.start()].count("\n") + 1
            body = "\n".join(x[len(m.group(1)):] for x in m.group(2).splitlines())
            out.append((f"{page.relative_to(REPO)}:{line}", body))
    return out


def _schema_members(node: Any) -> dict[str, list[Any]]:
    """Every member name the output schema describes, with each place's subschema."""
    out: dict[str, list[Any]] = {}
    todo = [node]
    while todo:
        n = todo.pop()
        if isinstance(n, dict):
            for name, sub in (n.get("properties") or {}).items():
                out.setdefault(name, []).append(sub)
            todo.extend(n.values())
        elif isinstance(n, list):
            todo.extend(n)
    return out


def _inline() -> list[tuple[str, str]]:
    """``(page, code)`` of each inline code span outside code blocks."""
    out = []
    for page in PAGES:
        text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
        out.extend((str(page.relative_to(REPO)), m.group(1).replace("\n", " "))
                   for m in INLINE.finditer(text))
    return out


def _inline_members() -> list[tuple[str, str, str]]:
    """``(page, name, value text)`` of each inline ``"name": value`` outside code blocks."""
    return [(page, member.group(1), member.group(2)) for page, code in _inline()
            if (member := MEMBER.match(code))]


def test_an_inline_output_document_is_one() -> None:
    """An inline ``{...}`` holding a document's own members is a whole valid document
    (``{"findings": [...], "errors": N}`` was not, and not what acap prints)."""
    for page, code in _inline():
        if code.startswith("{") and any(f'"{m}"' in code for m in DOCUMENT_MEMBERS):
            try:
                doc = _strict_json(code)
            except ValueError:
                raise AssertionError(f"{page}: `{code}` is not JSON") from None
            assert _problems(doc) == [], f"{page}: `{code}`"


OUTPUT_BLOCKS = [(where, body) for where, body in _blocks()
                 if isinstance(doc := _strict_json(body), dict) and DOCUMENT_MEMBERS & set(doc)]


def test_the_docs_show_output_documents() -> None:
    """Not vacuous: the pages that show the output (checking, commands) are found."""
    pages = {where.split(":")[0] for where, _ in OUTPUT_BLOCKS}
    assert {"docs/checking.md", "docs/commands.md"} <= pages


@pytest.mark.parametrize(("where", "body"), OUTPUT_BLOCKS, ids=[w for w, _ in OUTPUT_BLOCKS])
def test_each_output_example_is_valid_against_the_shipped_schema(where: str,
                                                                 body: str) -> None:
    assert _problems(_strict_json(body)) == [], where


def test_every_json_block_in_the_docs_is_json() -> None:
    for where, body in _blocks():
        try:
            _strict_json(body)
        except ValueError as exc:
            raise AssertionError(f"{where}: {exc}") from None


def test_every_inline_output_member_is_json_the_schema_accepts() -> None:
    members = _schema_members(schemas.schema(schemas.OUTPUT))
    seen = []
    for page, name, value in _inline_members():
        if name not in members:
            continue  # a member of something else (a card, a message)
        seen.append(name)
        try:
            parsed = _strict_json(value)
        except ValueError:
            raise AssertionError(f'{page}: `"{name}": {value}` is not JSON') from None
        fits = [sub for sub in members[name]
                if not list(jsonschema.Draft202012Validator(
                    {"$defs": schemas.schema(schemas.OUTPUT)["$defs"], **sub}
                ).iter_errors(parsed))]
        assert fits, f'{page}: `"{name}": {value}` is no value the output schema allows'
    assert {"kind", "hosts"} <= set(seen)


def test_the_closed_schema_accepts_what_acap_prints(tmp_path: Path) -> None:
    """The docs are held to the schema closed; acap's own output passes it too, so a doc
    may show every member acap prints."""
    bad = CARD_CASES / "or-3.8-query.json"
    for args in (["check", str(bad), str(REPO / "operator.yaml")],
                 ["check", str(CARD_CASES / "a2a-empty-optional.json")],
                 ["build", "-c", str(REPO / "operator.yaml"), "--site-dir",
                  str(tmp_path / "site")]):
        out = CliRunner().invoke(cli, [*args, "--format", "json"])
        assert _problems(json.loads(out.stdout)) == [], args


def test_the_closed_schema_refuses_a_member_it_does_not_describe() -> None:
    """What the docs said before: a card result with ``card``, several inputs as a list."""
    doc = json.loads(CliRunner().invoke(
        cli, ["check", str(CARD_CASES / "or-3.8-query.json"), "--format", "json"]).stdout)
    with_card = copy.deepcopy(doc)
    with_card["results"][0]["card"] = "card.json"
    assert any("'card' was unexpected" in p for p in _problems(with_card))
    assert _problems(doc["results"])
    assert _problems({**doc, "findings": [{**doc["findings"][0], "file": "x"}]})


def test_the_checking_pages_example_is_what_acap_prints(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/checking.md shows `acap check card.json operator.yaml --format json`: the same
    members, results and findings (messages, lines, columns) as acap prints for the card
    case it was made from and the repository's operator.yaml."""
    [body] = [b for w, b in OUTPUT_BLOCKS if w.startswith("docs/checking.md")]
    shown = _strict_json(body)
    (tmp_path / "card.json").write_bytes((CARD_CASES / "or-3.8-query.json").read_bytes())
    (tmp_path / "operator.yaml").write_bytes((REPO / "operator.yaml").read_bytes())
    monkeypatch.chdir(tmp_path)
    real = json.loads(CliRunner().invoke(cli, [
        "check", "card.json", "operator.yaml", "--format", "json"]).stdout)
    assert list(shown) == list(real)
    assert [list(r) for r in shown["results"]] == [list(r) for r in real["results"]]
    assert [(r["kind"], r["ok"], r["errors"]) for r in shown["results"]] == \
        [(r["kind"], r["ok"], r["errors"]) for r in real["results"]]
    assert shown["findings"] == real["findings"]
    assert [r["findings"] for r in shown["results"]] == [r["findings"] for r in real["results"]]
    real_skipped = real["results"][0]["skipped"]
    assert all(s in real_skipped for s in shown["results"][0]["skipped"])
