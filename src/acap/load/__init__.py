"""Load: bytes -> data with a line and column for every value.

The lowest stage: everything acap reads comes through here, and nothing here judges
more than the form of what it reads.

* YAML, strictly (:func:`load_file`: YAML 1.2 typing guided by the schema, duplicate
  keys, anchors, tabs, encodings), with syntax errors explained in plain words;
* JSON text, strictly (:func:`json_loads`, RFC 8259: no NaN, no duplicate keys unseen);
* fetches over HTTPS, bounded in time and size (:func:`fetch`);
* located JSON documents: a card or a reply from a file or a URL, with the line of
  every member (:func:`read_card`, :func:`read_reply`, :class:`JsonDocument`);
* operator.yaml (:func:`load_operator` -> :class:`OperatorConfig`) with its schema and
  text findings (:func:`schema_findings`, :func:`text_findings`);
* JSON pointers (:func:`pointer_join`, :func:`dotted`) and the text rules every stage
  applies to text (:func:`blank`, :func:`hidden_characters`).

May import: :mod:`acap.findings`, :mod:`acap.errors`, :mod:`acap.uris`, :mod:`acap.schemas`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from acap._lazy import exports

if TYPE_CHECKING:
    from acap.load._document import (
        CARD as CARD,
        REPLY as REPLY,
        DocumentKind as DocumentKind,
        JsonDocument as JsonDocument,
        for_positions as for_positions,
        json_lines as json_lines,
        locate as locate,
        parse_document as parse_document,
        parse_reply as parse_reply,
        read_card as read_card,
        read_document as read_document,
        read_reply as read_reply,
    )
    from acap.load._fetch import (
        DEFAULT_MAX_BYTES as DEFAULT_MAX_BYTES,
        DEFAULT_TIMEOUT as DEFAULT_TIMEOUT,
        Response as Response,
        allowed_url as allowed_url,
        fetch as fetch,
        url_problem as url_problem,
    )
    from acap.load._json import json_loads as json_loads, plain_message as plain_message
    from acap.load._operator import (
        DEFAULT_KEY_FILE as DEFAULT_KEY_FILE,
        DEFAULT_PREVIOUS_KEYS as DEFAULT_PREVIOUS_KEYS,
        KEY_ENV as KEY_ENV,
        OperatorConfig as OperatorConfig,
        load_operator as load_operator,
        private_path_for as private_path_for,
    )
    from acap.load._pointer import (
        dotted as dotted,
        pointer_join as pointer_join,
        pointer_of as pointer_of,
        pointer_tokens as pointer_tokens,
    )
    from acap.load._schema_findings import (
        place as place,
        required_at as required_at,
        schema_findings as schema_findings,
        text_findings as text_findings,
    )
    from acap.load._text import (
        CARD_LIMIT as CARD_LIMIT,
        NAME_LIMIT as NAME_LIMIT,
        TEXT_LIMIT as TEXT_LIMIT,
        blank as blank,
        describe as describe,
        hidden_characters as hidden_characters,
        kid_problem as kid_problem,
        length_limit as length_limit,
        strings as strings,
    )
    from acap.load._yaml import (
        Loaded as Loaded,
        YamlLoader as YamlLoader,
        expand_tabs as expand_tabs,
        load_bytes as load_bytes,
        load_file as load_file,
        load_text as load_text,
        schema_properties as schema_properties,
        schema_requires as schema_requires,
        tab_lines as tab_lines,
    )
    from acap.load._yaml_syntax import (
        SyntaxProblem as SyntaxProblem,
        explain as explain,
        explain_reader_error as explain_reader_error,
    )

__getattr__, __all__ = exports(__name__, {
    "_yaml": [
        "Loaded", "YamlLoader", "expand_tabs", "load_bytes", "load_file", "load_text",
        "schema_properties", "schema_requires", "tab_lines",
    ],
    "_yaml_syntax": ["SyntaxProblem", "explain", "explain_reader_error"],
    "_pointer": ["dotted", "pointer_join", "pointer_of", "pointer_tokens"],
    "_json": ["json_loads", "plain_message"],
    "_fetch": [
        "DEFAULT_MAX_BYTES", "DEFAULT_TIMEOUT", "Response", "allowed_url", "fetch", "url_problem",
    ],
    "_document": [
        "CARD", "DocumentKind", "JsonDocument", "REPLY", "for_positions", "json_lines", "locate",
        "parse_document", "parse_reply", "read_card", "read_document", "read_reply",
    ],
    "_operator": [
        "DEFAULT_KEY_FILE", "DEFAULT_PREVIOUS_KEYS", "KEY_ENV", "OperatorConfig", "load_operator",
        "private_path_for",
    ],
    "_schema_findings": ["place", "required_at", "schema_findings", "text_findings"],
    "_text": [
        "CARD_LIMIT", "NAME_LIMIT", "TEXT_LIMIT", "blank", "describe", "hidden_characters",
        "kid_problem", "length_limit", "strings",
    ],
})
