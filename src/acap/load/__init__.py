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
  applies to text (:func:`blank`, :func:`hidden_characters`);
* the one way acap opens a file it did not just create, for every stage: confined to a
  named folder (:class:`Root`), no link followed out of it, only regular files of
  bounded size (:func:`read_file`), written by a temporary file renamed into place
  (:func:`write_file`); see :mod:`acap.load._files`.

May import: :mod:`acap.findings`, :mod:`acap.errors`, :mod:`acap.uris`, :mod:`acap.schemas`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from acap._lazy import exports

if TYPE_CHECKING:
    from acap.load._document import CARD as CARD
    from acap.load._document import REPLY as REPLY
    from acap.load._document import DocumentKind as DocumentKind
    from acap.load._document import JsonDocument as JsonDocument
    from acap.load._document import document_from as document_from
    from acap.load._document import for_positions as for_positions
    from acap.load._document import json_lines as json_lines
    from acap.load._document import parse_document as parse_document
    from acap.load._document import parse_reply as parse_reply
    from acap.load._document import read_card as read_card
    from acap.load._document import read_document as read_document
    from acap.load._document import read_reply as read_reply
    from acap.load._document import status_hint as status_hint
    from acap.load._fetch import DEFAULT_MAX_BYTES as DEFAULT_MAX_BYTES
    from acap.load._fetch import DEFAULT_TIMEOUT as DEFAULT_TIMEOUT
    from acap.load._fetch import Response as Response
    from acap.load._fetch import address_refusal as address_refusal
    from acap.load._fetch import allowed_url as allowed_url
    from acap.load._fetch import embedded_ipv4 as embedded_ipv4
    from acap.load._fetch import fetch as fetch
    from acap.load._fetch import origin as origin
    from acap.load._fetch import url_problem as url_problem
    from acap.load._files import KEY_FILE_LIMIT as KEY_FILE_LIMIT
    from acap.load._files import Root as Root
    from acap.load._files import file_kind as file_kind
    from acap.load._files import file_status as file_status
    from acap.load._files import given_root as given_root
    from acap.load._files import move_file as move_file
    from acap.load._files import read_file as read_file
    from acap.load._files import read_regular as read_regular
    from acap.load._files import remove_file as remove_file
    from acap.load._files import rename_file as rename_file
    from acap.load._files import swap_file as swap_file
    from acap.load._files import write_check as write_check
    from acap.load._files import write_file as write_file
    from acap.load._json import IJSON_MAX_INT as IJSON_MAX_INT
    from acap.load._json import JsonFault as JsonFault
    from acap.load._json import StrictJson as StrictJson
    from acap.load._json import json_loads as json_loads
    from acap.load._json import plain_message as plain_message
    from acap.load._json import read_json as read_json
    from acap.load._operator import DEFAULT_KEY_FILE as DEFAULT_KEY_FILE
    from acap.load._operator import KEY_ENV as KEY_ENV
    from acap.load._operator import OperatorConfig as OperatorConfig
    from acap.load._operator import load_operator as load_operator
    from acap.load._operator import private_path_for as private_path_for
    from acap.load._paths import forget_real_paths as forget_real_paths
    from acap.load._paths import is_inside as is_inside
    from acap.load._paths import real_path as real_path
    from acap.load._paths import real_path_lstat as real_path_lstat
    from acap.load._paths import under as under
    from acap.load._pointer import dotted as dotted
    from acap.load._pointer import pointer_join as pointer_join
    from acap.load._pointer import pointer_of as pointer_of
    from acap.load._pointer import pointer_tokens as pointer_tokens
    from acap.load._schema_findings import schema_findings as schema_findings
    from acap.load._schema_findings import type_words as type_words
    from acap.load._schema_findings import value_words as value_words
    from acap.load._shown import SHOWN_LIMIT as SHOWN_LIMIT
    from acap.load._shown import shorten as shorten
    from acap.load._text import CARD_LIMIT as CARD_LIMIT
    from acap.load._text import blank as blank
    from acap.load._text import describe as describe
    from acap.load._text import hidden_characters as hidden_characters
    from acap.load._text import length_limit as length_limit
    from acap.load._text import strings as strings
    from acap.load._yaml import MAX_BYTES as MAX_BYTES
    from acap.load._yaml import Loaded as Loaded
    from acap.load._yaml import YamlLoader as YamlLoader
    from acap.load._yaml import load_bytes as load_bytes
    from acap.load._yaml import load_file as load_file
    from acap.load._yaml import load_text as load_text
    from acap.load._yaml import schema_properties as schema_properties

__getattr__, __dir__ = exports(__name__)
