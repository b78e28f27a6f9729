"""Helpers for the personEntry page tests: build, parse a page, read _headers."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import yaml

from acap.builder import BuildOptions, build
from acap.builder._build import BuildResult
from support.paths import EXAMPLE


def example_data() -> dict[str, Any]:
    """The bundled operator.yaml as data (to change and write back)."""
    data: dict[str, Any] = yaml.safe_load(EXAMPLE.read_text(encoding="utf-8"))
    return data


def write_yaml(folder: Path, data: dict[str, Any]) -> Path:
    """Write ``data`` as operator.yaml in ``folder``; returns the path."""
    path = folder / "operator.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return path


def run_build(config: Path, *, write: bool = False) -> BuildResult:
    """Build without the specification site."""
    return build(BuildOptions(config=config, spec_site=False, write=write))


def page_text(result: BuildResult, rel: str) -> str:
    """A built file as text."""
    return result.files[rel].decode("utf-8")


class Scan(HTMLParser):
    """Every start tag with its attributes, the text outside script/style, and the
    text of each script, as the browser's tokenizer would split them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.text: list[str] = []
        self.scripts: list[str] = []
        self._in: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, {k: v or "" for k, v in attrs}))
        if tag in ("script", "style"):
            self._in = tag
            if tag == "script":
                self.scripts.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == self._in:
            self._in = None

    def handle_data(self, data: str) -> None:
        if self._in == "script":
            self.scripts[-1] += data
        elif self._in is None:
            self.text.append(data)

    def all_text(self) -> str:
        """The visible text, spaces collapsed."""
        return re.sub(r"\s+", " ", " ".join(self.text))

    def find(self, tag: str, **attrs: str) -> list[dict[str, str]]:
        """Attributes of each ``tag`` element whose attributes include ``attrs``."""
        return [a for t, a in self.tags
                if t == tag and all(a.get(k.replace("_", "-")) == v for k, v in attrs.items())]

    def jsonld(self) -> list[Any]:
        """Each JSON-LD block, parsed."""
        return [json.loads(s) for s in self.scripts]


def scan(html: str) -> Scan:
    """Parse a page."""
    s = Scan()
    s.feed(html)
    s.close()
    return s


def strings_in(value: Any) -> list[str]:
    """Every string anywhere in a JSON value (keys excluded)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings_in(v)]
    if isinstance(value, list):
        return [s for v in value for s in strings_in(v)]
    return []


def keys_in(value: Any) -> set[str]:
    """Every key anywhere in a JSON value."""
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in keys_in(v)}
    if isinstance(value, list):
        return {k for v in value for k in keys_in(v)}
    return set()


def parse_headers(text: str) -> list[tuple[str, list[tuple[str, str]]]]:
    """A ``_headers`` file (Netlify / Cloudflare Pages format) as (path, headers) rules."""
    rules: list[tuple[str, list[tuple[str, str]]]] = []
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if not line[0].isspace():
            rules.append((line.strip(), []))
        else:
            name, _, value = line.strip().partition(":")
            rules[-1][1].append((name.strip(), value.strip()))
    return rules


def headers_for(rules: list[tuple[str, list[tuple[str, str]]]], path: str
                ) -> list[tuple[str, str]]:
    """Every header a request for ``path`` gets: all matching rules (a trailing ``*``
    matches any rest of the path), in order, repeated names kept so tests can see them."""
    out: list[tuple[str, str]] = []
    for rule, headers in rules:
        hit = path.startswith(rule[:-1]) if rule.endswith("*") else path == rule
        if hit:
            out += headers
    return out


#: Markup that must come out as text wherever operator.yaml puts it on a page.
PAYLOADS = ["<script>alert(1)</script>", '"><img src=x onerror=alert(1)>']


def everything_set_to(payload: str) -> dict[str, Any]:
    """The example's data with every text a page shows set to ``payload``."""
    data = example_data()
    data["operator"]["name"] = payload
    for s in data["skills"]:
        s["name"] = payload
        s["description"] = payload
        s.pop("forPeople", None)
    data["skills"][1]["forPeople"] = payload  # the page's text for one skill, descriptions
    data["contact"].update(email=payload, address=payload, hours=payload,  # for the others
                           languages=["en", payload])
    tr = {"intro": payload, "hours": payload, "address": payload,
          "skills": {s["id"]: {"name": payload, "description": payload}
                     for s in data["skills"]}}
    tr["skills"][data["skills"][1]["id"]]["forPeople"] = payload
    data["page"] = {"languages": ["en", "fr"], "intro": payload, "translations": {"fr": tr}}
    return data
