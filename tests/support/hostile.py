"""Hostile inputs for operator.yaml (``acap build``) and for cards (``acap check``), each with
the rule id it must give. Made here rather than kept as files: some are large, some are
not text.
"""

from __future__ import annotations

TEN_MB = 10 * 1024 * 1024


def alias_bomb() -> bytes:
    """A "billion laughs": nine levels of nine aliases, 9**9 values once expanded."""
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, 10):
        prev = f"*a{i - 1}"
        lines.append(f"a{i}: &a{i} [{', '.join([prev] * 9)}]")
    return ("\n".join(lines) + "\n").encode()


#: name -> (bytes of operator.yaml, rule id it must give)
OPERATOR: dict[str, tuple[bytes, str]] = {
    "malformed-yaml": (b"operator:\n  name: [Example Chapel\n  website: https://example.com\n",
                       "YAML-SYNTAX"),
    "tabs": (b"operator:\n\tname: Example Chapel\n", "YAML-TAB"),
    "alias-bomb": (alias_bomb(), "YAML-ALIAS"),
    "ten-megabytes": (b"# " + b"x" * TEN_MB + b"\n", "YAML-SIZE"),
    "non-utf8-bytes": (b"operator:\n  name: Caf\xe9 \xff\xfe\n", "YAML-ENCODING"),
    "utf16": ("operator:\n  name: x\n".encode("utf-16"), "YAML-ENCODING"),
    "empty": (b"", "YAML-EMPTY"),
    "only-comments": (b"# nothing here yet\n", "YAML-EMPTY"),
    "list-at-top": (b"- operator\n- agent\n- skills\n", "SCHEMA-TYPE"),
    "list-where-mapping": (b"operator: [Example Chapel, https://example.com]\nagent: {}\n"
                           b"skills: []\n", "SCHEMA-TYPE"),
    "deep-nesting": (b"operator: " + b"[" * 5000 + b"]" * 5000 + b"\n", "YAML-SYNTAX"),
    "nul-bytes": (b"operator:\n  name: \x00\x00\n", "YAML-SYNTAX"),
}

#: name -> (bytes of a card file, rule id it must give)
CARD: dict[str, tuple[bytes, str]] = {
    "malformed-json": (b'{"name": "Example", "skills": [\n', "CARD-JSON"),
    "tabs-in-strings": (b'{"name": "Example\tChapel"}', "CARD-JSON"),
    "alias-bomb": (alias_bomb(), "CARD-JSON"),
    "ten-megabytes": (b'{"name": "' + b"x" * TEN_MB + b'"}', "CARD-READ"),
    "non-utf8-bytes": (b'{"name": "Caf\xe9 \xff"}', "CARD-JSON"),
    "empty": (b"", "CARD-JSON"),
    "list-at-top": (b'[{"name": "Example"}]', "CARD-JSON"),
    "list-where-object": (b'{"name": "x", "description": "x", "version": "1", '
                          b'"supportedInterfaces": {"url": "https://a.example"}, '
                          b'"capabilities": [], "defaultInputModes": "text/plain", '
                          b'"defaultOutputModes": [[]], "skills": [[], {"id": []}], '
                          b'"provider": [], "securitySchemes": [], '
                          b'"signatures": {}}', "A2A-TYPE"),
    "deep-nesting": (b'{"a":' * 100_000 + b"1" + b"}" * 100_000, "CARD-JSON"),
    "number-too-large": (b'{"name": 1e999999}', "A2A-TYPE"),
}

#: What the hostile inputs prove, for the registry meta-test (tests/test_cases.py).
HOSTILE_COVERS: dict[str, set[str]] = {
    "build": {rule for _, rule in OPERATOR.values()} | {"FILE"},
    "card": {rule for _, rule in CARD.values()} | {"CARD-READ"},
}
