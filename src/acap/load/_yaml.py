"""Strict YAML loading for operator.yaml, with a line and column for every value.

PyYAML (with libyaml when present) parses the file into a node tree; this
module then turns the tree into plain JSON-shaped data itself, guided by the
JSON Schema the data must match. It does so for two reasons that PyYAML's own
constructors cannot serve:
* **YAML 1.1 surprises.** PyYAML resolves plain scalars by YAML 1.1 rules, so
  ``no`` becomes ``False``, ``1.10`` the float ``1.1``, ``10:30`` the integer
  630, ``01234`` the octal 668 and ``2026-01-01`` a date. Here a plain scalar
  in a place where the schema expects text is always the text the user typed;
  in a place that expects ``true``/``false`` or a number, only the YAML 1.2
  core forms are accepted and anything ambiguous is rejected with the fix.
* **Locations.** Every value and every key keeps its ``line:column`` so that a
  finding raised much later (by JSON Schema or a requirement check) can name
  the line to edit.

Duplicate keys, merge keys (``<<``), explicit tags, anchors that expand too far,
non-UTF-8 bytes, oversized files and deep nesting are reported as findings.
All faults of a file are collected; loading never stops at the first one.
"""

from __future__ import annotations

__all__ = ["SHALLOW", "Loaded", "QuickLoaded", "YamlLoader", "dash_candidates", "expand_tabs",
           "load_bytes",
           "load_file", "load_text", "odd_space_lines", "schema_properties", "schema_requires",
           "tab_lines"]

import operator
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import yaml

from acap.errors import FileRefused
from acap.findings import Finding, Location
from acap.load._files import Root, given_root, read_file, read_regular
from acap.load._pointer import pointer_join
from acap.uris import OPERATORS_PAGE

#: The hint for an operator file with nothing to build from (empty, or not keys): where
#: a commented operator.yaml comes from. An operator who installed acap has no README or
#: docs/ folder, so the hint names the command and the published page for operators.
START_HINT = ("run `acap init new-project`: it makes a folder new-project with a commented "
              f"operator.yaml to start from (step by step: {OPERATORS_PAGE})")

YamlLoader: Any
try:  # libyaml is ~10x faster; both give the same nodes and marks
    from yaml import CSafeLoader as YamlLoader
except ImportError:  # pragma: no cover - depends on how PyYAML was built
    from yaml import SafeLoader as YamlLoader

#: An operator file is a few kilobytes; anything past this is refused unread.
MAX_BYTES = 1024 * 1024
#: Nodes visited while expanding anchors and aliases (guards "billion laughs").
MAX_NODES = 50_000
#: Nesting deeper than this is refused (no operator.yaml needs more than ~6).
MAX_DEPTH = 40

_STR = "tag:yaml.org,2002:str"
#: The tags a plain (untagged) YAML value resolves to; any other tag was written.
_PLAIN_TAGS = {"str", "int", "float", "bool", "null", "timestamp", "map", "seq", "merge",
               "value"}
#: Tags accepted as written: ``!!str`` says "this is text", which operator.yaml reads anyway.
_STR_TAGS = {"!!str", "!<tag:yaml.org,2002:str>", _STR}
#: A node's properties at its start: an anchor and a tag, in either order.
_PROPERTIES = re.compile(r"(?:&\S+\s+)?(?P<tag>!\S*)?")
_MERGE = "tag:yaml.org,2002:merge"
_NULL_FORMS = {"", "~", "null", "Null", "NULL"}
_TRUE_FORMS = {"true", "True", "TRUE"}
_FALSE_FORMS = {"false", "False", "FALSE"}
_YAML11_BOOLS = {
    v for w in ("yes", "no", "on", "off", "y", "n") for v in (w, w.capitalize(), w.upper())
}
#: Every plain scalar read where true or false is expected (the others stay text).
_BOOLEAN_FORMS = _TRUE_FORMS | _FALSE_FORMS | _YAML11_BOOLS
_INT_RE = re.compile(r"[-+]?(0|[1-9][0-9]*)")
_FLOAT_RE = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")
#: Plain scalars YAML 1.1 reads as something other than what YAML 1.2 (and the
#: user) means, in a place that expects a number: octal, base 60, a date.
_OCTAL_RE = re.compile(r"[-+]?0[0-9_]+")
_SEXAGESIMAL_RE = re.compile(r"[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)?")
_DATE_RE = re.compile(r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}([Tt ].*)?")


@dataclass
class Loaded:
    """The result of loading one YAML file.

    Attributes:
        file: the path as given (used in every :class:`Location`).
        data: JSON-shaped data (dict/list/str/bool/int/float/None), or ``None``
            when the file could not be parsed at all.
        values: JSON pointer -> (line, column) of each value, 1-based.
        keys: JSON pointer -> (line, column) of the key that names each value.
        quoted: JSON pointers of scalars written in quotes (or as ``|``/``>``
            blocks), so that a hint can say "remove the quotes" only to a user
            who wrote them.
        findings: everything wrong found while loading.
    """

    file: str
    data: Any = None
    values: dict[str, tuple[int, int]] = field(default_factory=dict)
    keys: dict[str, tuple[int, int]] = field(default_factory=dict)
    quoted: set[str] = field(default_factory=set)
    findings: list[Finding] = field(default_factory=list)

    def location(self, pointer: str, *, key: bool = False) -> Location:
        """Location of ``pointer`` (its key with ``key=True``), or of its nearest parent."""
        table = self.keys if key else self.values
        p = pointer
        while True:
            if p in table:
                line, col = table[p]
                return Location(self.file, line, col, pointer)
            if p in self.values:
                line, col = self.values[p]
                return Location(self.file, line, col, pointer)
            if not p:
                return Location(self.file, 1, 1, pointer)
            p = p.rsplit("/", 1)[0]


#: The depth down to which the quick way records places (``/signing/keyFile``,
#: ``/hosts/<host>``: the places a batch keeps for every operator).
SHALLOW = 2


@dataclass
class QuickLoaded(Loaded):
    """A file loaded the quick way (:func:`load_text` with ``quick``): its data as the
    located way gives it, and the places of the values and keys down to
    :data:`SHALLOW`. The place of anything deeper is found when it is first asked for
    (a finding about it): the file's text is then loaded the located way, once, and
    answers; so every place is the one the located way gives.

    Attributes:
        text: the file's text (as YAML read it).
        schema: its schema (as given to :func:`load_text`).
    """

    text: str = ""
    schema: Mapping[str, Any] = field(default_factory=dict)
    _located: Loaded | None = field(default=None, repr=False, compare=False)

    def located(self) -> Loaded:
        """The same file loaded the located way (loaded on first use)."""
        if self._located is None:
            self._located = load_text(self.text, self.schema, self.file)
        return self._located

    def location(self, pointer: str, *, key: bool = False) -> Location:
        """As :meth:`Loaded.location`; deeper than :data:`SHALLOW`, the located way's."""
        if pointer.count("/") > SHALLOW:
            return self.located().location(pointer, key=key)
        return super().location(pointer, key=key)


def load_file(path: str | Path, schema: Mapping[str, Any], display: str | None = None, *,
              inside: Sequence[Path] | None = None, root: Root | None = None,
              quick: bool = False) -> Loaded:
    """Read and load a YAML file; never raises for bad content.

    Args:
        path: the file to read.
        schema: the JSON Schema (a dict, with local ``$ref`` only) the data is
            meant to match; used only to decide how plain scalars are typed.
        display: the file name to show in findings (default: ``str(path)``).
        inside: folders the file must lie in once links are followed (a batch
            tenant's, see :func:`acap.load.read_regular`), or ``None``.
        root: the folder the file must lie in, links followed only inside it (see
            :func:`acap.load.read_file`); default (without ``inside``): the folder
            acap runs in, or the folder the path names (:func:`acap.load.given_root`).
        quick: try the quick way first (see :func:`load_text`).

    Returns:
        A :class:`Loaded`; check ``findings`` for errors. A missing or
        unreadable file is a finding (``FILE``), not an exception.
    """

    name = display or str(path)
    try:
        # Only a regular file, looked at before it is opened, and opened without
        # blocking: a FIFO in a tenant's folder would hang a batch, a device is no
        # operator file (issue 12); within its folder, through no link out of it
        # (issue 22).
        if inside is not None:
            raw = read_regular(path, MAX_BYTES, inside=inside)
        else:
            raw = read_file(path, root or given_root(path), MAX_BYTES)
    except FileRefused as exc:
        if exc.outside:
            return _fail(name, "FILE", f"cannot read {name}: it is a link that leads out of "
                         "its folder", "make it a regular file in the operator's folder",
                         None)
        if exc.too_large:
            return _too_large(name)
        return _fail(name, "FILE", f"cannot read {name}: {exc.reason}",
                     "give the operator file itself" if exc.link is None else
                     "give the operator file itself, not a link to it", None)
    except OSError as exc:
        return _fail(name, "FILE", f"cannot read {name}: {exc.strerror or exc}",
                     "check the path; `acap init` starts a new project with an operator.yaml",
                     None)
    return load_bytes(raw, schema, name, quick=quick)


def _too_large(file: str) -> Loaded:
    """The ``YAML-SIZE`` failure of a file larger than :data:`MAX_BYTES`."""
    return _fail(file, "YAML-SIZE", f"{file} is larger than {MAX_BYTES // 1024} KiB",
                 "an operator file is a few kilobytes; is this the right file?", None)


def load_bytes(raw: bytes, schema: Mapping[str, Any], file: str, *,
               quick: bool = False) -> Loaded:
    """Load YAML from bytes; see :func:`load_file` for the arguments and result."""
    if len(raw) > MAX_BYTES:
        return _too_large(file)
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        return _fail(file, "YAML-ENCODING", f"{file} is UTF-16, not UTF-8",
                     "save the file as UTF-8 (your editor's 'Save with encoding')", (1, 1))
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = raw[: exc.start].decode("utf-8", "replace")
        line = before.count("\n") + 1
        col = len(before) - (before.rfind("\n") + 1) + 1
        return _fail(file, "YAML-ENCODING",
                     f"byte 0x{raw[exc.start]:02x} is not UTF-8 text",
                     "save the file as UTF-8 (your editor's 'Save with encoding')", (line, col))
    return load_text(text, schema, file, quick=quick)


def load_text(text: str, schema: Mapping[str, Any], file: str, *,
              quick: bool = False) -> Loaded:
    """Load YAML from text; see :func:`load_file` for the arguments and result.

    With ``quick`` (a batch, issue 24), a file the located way would load with no
    finding is loaded without the place of every value (:class:`QuickLoaded`: places
    found when asked for); any other file, at the first sign of a finding, is loaded
    the located way, as without ``quick``. The data are the same either way.

    A tab in the indentation of a line is a ``YAML-TAB`` error for each such
    line; the text is then read on with those tabs expanded to spaces (as if
    the user had replaced them), so that the file's other faults are reported
    in the same run. The same for a space that is not one to YAML (a no-break
    space, ``YAML-SPACE``) and for a list item without its space after the dash
    (``-id: x``, ``YAML-SYNTAX``): each is reported at its own line, which a
    parser's error would miss, and read as meant.
    """
    found = _load_quick(text, schema, file) if quick else None
    return found if found is not None else _load_located(text, schema, file)


def _load_located(text: str, schema: Mapping[str, Any], file: str) -> Loaded:
    """:func:`load_text` the located way."""
    text, loaded_tabs = _as_meant(text, file)
    try:
        root = yaml.compose(text, Loader=YamlLoader)
    except yaml.MarkedYAMLError as exc:
        # start-up: the syntax explainer loads only for a file that is not valid YAML
        from acap.load._yaml_syntax import explain

        problem = explain(text, exc, YamlLoader)
        out = _fail(file, "YAML-SYNTAX", f"not valid YAML: {problem.message}", problem.hint,
                    (problem.line, problem.column))
        out.findings[:0] = loaded_tabs
        return out
    except yaml.reader.ReaderError as exc:
        # start-up: the syntax explainer loads only for a file that is not valid YAML
        from acap.load._yaml_syntax import explain_reader_error

        problem = explain_reader_error(text, exc)
        return _fail(file, "YAML-SYNTAX", f"not valid YAML: {problem.message}", problem.hint,
                     (problem.line, problem.column))
    except yaml.YAMLError as exc:  # pragma: no cover - every libyaml error is marked
        return _fail(file, "YAML-SYNTAX", f"not valid YAML: {exc}", None, (1, 1))
    loaded = Loaded(file, findings=loaded_tabs)
    if root is None:
        loaded.findings.append(Finding(
            "YAML-EMPTY", "error", f"{file} is empty", Location(file, 1, 1, ""),
            START_HINT))
        return loaded
    _Builder(loaded, schema, text).run(root)
    return loaded


def _as_meant(text: str, file: str) -> tuple[str, list[Finding]]:
    """``text`` with what YAML would stop at read as meant (tabs and odd spaces in an
    indentation, a list item without its space after the dash), and a finding for each
    (see :func:`load_text`)."""
    tabs = tab_lines(text)
    loaded_tabs = [Finding("YAML-TAB", "error", f"line {n} is indented with a tab",
                           Location(file, n, c), "YAML indents with spaces, never tabs: "
                           "replace the tab with spaces (acap read it as spaces to check "
                           "the rest of the file)") for n, c in tabs]
    if tabs:
        text = expand_tabs(text, [n for n, _ in tabs])
    spaces = odd_space_lines(text)
    for n, c, name in spaces:
        loaded_tabs.append(Finding(
            "YAML-SPACE", "error", f"line {n} is indented with a {name}, which looks like a "
            "space but is not one to YAML", Location(file, n, c),
            f"retype the spaces at the start of line {n} (acap read it as an ordinary space "
            "to check the rest of the file)"))
    if spaces:
        text = _LEAD.sub(lambda m: _ODD_SPACE.sub(" ", m.group(0)), text)
    candidates = dash_candidates(text)
    if candidates:
        from acap.load._yaml_syntax import missing_dash_spaces  # start-up: only for a broken file

        dashes = missing_dash_spaces(text, YamlLoader, candidates)
        for n, c, key in dashes:
            loaded_tabs.append(Finding(
                "YAML-SYNTAX", "error", f"not valid YAML: line {n} starts a list item without "
                f"a space after the dash ('-{key}:')", Location(file, n, c + 1),
                f"write '- {key}:', with a space after the dash (acap read it so to check the "
                "rest of the file)"))
        if dashes:
            rows = text.split("\n")
            for n, c, _ in dashes:
                rows[n - 1] = rows[n - 1][:c + 1] + " " + rows[n - 1][c + 1:]
            text = "\n".join(rows)
    return text, loaded_tabs


def _load_quick(text: str, schema: Mapping[str, Any], file: str) -> QuickLoaded | None:
    """The quick way of :func:`load_text`, or ``None`` at the first sign of a finding (a
    tab or an odd space in an indentation, a list item that may lack its space, text
    YAML does not read, an empty file, or anything the walk would report)."""
    if tab_lines(text) or odd_space_lines(text) or dash_candidates(text):
        return None
    try:
        root = yaml.compose(text, Loader=_QuickComposer)
    except yaml.YAMLError:
        return None
    if root is None:
        return None
    loaded = QuickLoaded(file, text=text, schema=schema)
    try:
        _Builder(loaded, schema, text, shallow=SHALLOW).run(root)
    except _Quick:
        return None
    return loaded


class _QuickComposer(YamlLoader):  # type: ignore[misc]
    """:data:`YamlLoader` for the quick way: the same nodes and tags, for less work per
    value (a batch composes thousands of files; issue 24).

    * A plain scalar's tag is worked out once per value and kind, not once per node:
      PyYAML's resolution (:meth:`yaml.resolver.BaseResolver.resolve`) depends on the
      node's kind, its text and whether it was written plain, and on path resolvers,
      which acap never adds (checked below), so the same three give the same tag. At
      most :data:`_RESOLVED_MAX` values of at most 64 characters are remembered.
    * Without path resolvers, libyaml's composer calls ``descend_resolver`` and
      ``ascend_resolver`` around each node to do nothing: here they are C built-ins
      that do nothing either, not two Python calls a node.
    """

    #: (kind, text, implicit) -> tag, shared by every composer of the process.
    _resolved: ClassVar[dict[tuple[Any, Any, Any], str]] = {}

    def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
        key = (kind, value, implicit)
        tag = self._resolved.get(key)
        if tag is None:
            tag = super().resolve(kind, value, implicit)
            if (value is None or len(value) <= 64) and not self.yaml_path_resolvers:
                if len(self._resolved) >= _RESOLVED_MAX:
                    self._resolved.clear()
                self._resolved[key] = tag
        return tag


#: The most tags :class:`_QuickComposer` remembers.
_RESOLVED_MAX = 4096
if not YamlLoader.yaml_path_resolvers:  # PyYAML adds none unless asked (acap never asks)
    _QuickComposer.descend_resolver = operator.is_  # (parent, index) -> ignored
    _QuickComposer.ascend_resolver = tuple  # () -> ignored


#: The indentation of a line: spaces and tabs, and list markers ("- ") among them.
_INDENT = re.compile(r"[ \t]*(?:-[ \t]+)*")
#: Characters that look like a space but are not one to YAML (Unicode's other space
#: separators, and the zero-width no-break space an editor may leave).
_ODD = "\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000\ufeff"
_ODD_SPACE = re.compile(f"[{_ODD}]")
#: The indentation of a line as a person sees it: any kind of space, and list markers.
_LEAD = re.compile(f"(?m)^[ \\t{_ODD}]*(?:-[ \\t{_ODD}]+)*")
#: Quick test for :data:`_DASH_KEY` (a literal newline first, which the regex engine finds
#: fast): a dash right before a letter at the start of a line, after spaces and dashes.
_DASH_HINT = re.compile(r"\n[ -]*-[A-Za-z_]")
#: A line that starts a list item with no space after its dash: ``  -id: x``.
_DASH_KEY = re.compile(r"(?m)^(?P<lead>[ ]*(?:-[ ]+)*)-(?P<key>[A-Za-z_][^\s:#]*):(?=\s|$)")


def odd_space_lines(text: str) -> list[tuple[int, int, str]]:
    """Lines whose indentation holds a character that looks like a space but is not one
    to YAML (a no-break space, U+00A0, which word processors and web pages put in):
    ``(line, column, its name)``, 1-based, the name in words (``no-break space
    (U+00A0)``). libyaml reports such a line as misaligned, often at the line after.
    """
    if text.isascii() or not _ODD_SPACE.search(text):  # every such character is not ASCII
        return []
    import unicodedata  # start-up: only for a file holding odd spaces

    out = []
    for n, m in enumerate(_LEAD.finditer(text), 1):
        odd = _ODD_SPACE.search(m.group(0))
        if odd:
            ch = odd.group(0)
            name = unicodedata.name(ch, "space").lower()
            out.append((n, odd.start() + 1, f"{name} (U+{ord(ch):04X})"))
    return out


def dash_candidates(text: str) -> list[tuple[int, int, str]]:
    """Lines that look like a list item written without the space after its dash
    (``  -id: x``): ``(line, 0-based column of the dash, the key)``. Only candidates:
    :func:`acap.load._yaml_syntax.missing_dash_spaces` checks how YAML reads them."""
    if not _DASH_HINT.search("\n" + text):
        return []
    import bisect  # start-up: only when a list item lost its space

    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    return [(bisect.bisect_right(starts, m.start()), len(m.group("lead")), m.group("key"))
            for m in _DASH_KEY.finditer(text)]


def tab_lines(text: str) -> list[tuple[int, int]]:
    """Lines with a tab in their indentation: ``(line, column of the first tab)``, 1-based.

    YAML never allows a tab there (YAML 1.2 §6.1); libyaml stops at the first
    one, which would hide every other fault of the file.
    """
    if "\t" not in text:  # the common case, without a look at each line
        return []
    out = []
    for n, line in enumerate(text.split("\n"), 1):
        indent = _INDENT.match(line)
        head = indent.group(0) if indent else ""
        if "\t" in head:
            out.append((n, head.index("\t") + 1))
    return out


def expand_tabs(text: str, lines: list[int]) -> str:
    """``text`` with the tabs in the indentation of ``lines`` replaced by spaces.

    The tab width is the one that makes the file read (tried: the file's own
    indentation step, then 2, 4 and 8 columns), else 2: what the user meant is
    what their editor showed, which acap cannot see.
    """
    rows = text.split("\n")
    indents = [_INDENT.match(r).group(0) for r in rows if r.strip()]  # type: ignore[union-attr]
    steps = sorted({len(i) for i in indents if "\t" not in i} - {0})
    widths = list(dict.fromkeys(([steps[0]] if steps else []) + [2, 4, 8]))
    first = ""
    for width in widths:
        out = list(rows)
        for n in lines:
            row = out[n - 1]
            head = _INDENT.match(row).group(0)  # type: ignore[union-attr]
            out[n - 1] = head.expandtabs(width) + row[len(head):]
        candidate = "\n".join(out)
        first = first or candidate
        try:
            yaml.compose(candidate, Loader=YamlLoader)
        except yaml.YAMLError:
            continue
        return candidate
    return first


def _fail(file: str, rule: str, msg: str, hint: str | None,
          at: tuple[int, int] | None) -> Loaded:
    loc = Location(file, *at) if at else Location(file)
    return Loaded(file, findings=[Finding(rule, "error", msg, loc, hint)])


class _Schema:
    """Just enough of JSON Schema to know what a place in the data expects.

    Answers are memoised per subschema (by identity: the shipped schemas live
    for the whole process), so a batch of files walks each schema path once.
    """

    def __init__(self, root: Mapping[str, Any]) -> None:
        self.root = root
        self._types: dict[int, set[str]] = {}
        self._children: dict[tuple[int, str | int], Mapping[str, Any] | None] = {}

    @classmethod
    def for_root(cls, root: Mapping[str, Any]) -> _Schema:
        """The memoising instance for ``root`` (one per schema per process)."""
        found = _SCHEMAS.get(id(root))
        if found is None or found.root is not root:
            found = _SCHEMAS[id(root)] = cls(root)
        return found

    def resolve(self, node: Mapping[str, Any] | None) -> list[Mapping[str, Any]]:
        """Flatten ``$ref``/``allOf``/``anyOf``/``oneOf`` into candidate subschemas."""
        out: list[Mapping[str, Any]] = []
        stack = [node] if node is not None else []
        while stack:
            s = stack.pop()
            if not isinstance(s, Mapping):
                continue
            ref = s.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/"):
                target: Any = self.root
                for part in ref[2:].split("/"):
                    target = target[part]
                stack.append(target)
            for kw in ("allOf", "anyOf", "oneOf"):
                stack.extend(s.get(kw, ()))
            out.append(s)
        return out

    def types(self, node: Mapping[str, Any] | None) -> set[str]:
        """JSON types the place may hold; empty when the schema does not say."""
        key = id(node)
        if key not in self._types:
            self._types[key] = self._compute_types(node)
        return self._types[key]

    def _compute_types(self, node: Mapping[str, Any] | None) -> set[str]:
        found: set[str] = set()
        for s in self.resolve(node):
            t = s.get("type")
            if isinstance(t, str):
                found.add(t)
            elif isinstance(t, list):
                found.update(t)
            if "enum" in s or "const" in s:
                vals = s.get("enum", [s.get("const")])
                found.update(_json_type(v) for v in vals)
        return found

    def child(self, node: Mapping[str, Any] | None, key: str | int) -> Mapping[str, Any] | None:
        """Subschema for a mapping key or a sequence index, if the schema has one."""
        memo = (id(node), 0 if isinstance(key, int) else key)
        if memo not in self._children:
            self._children[memo] = self._compute_child(node, key)
        return self._children[memo]

    def _compute_child(self, node: Mapping[str, Any] | None,
                       key: str | int) -> Mapping[str, Any] | None:
        for s in self.resolve(node):
            if isinstance(key, int):
                if isinstance(s.get("items"), Mapping):
                    return s["items"]  # type: ignore[no-any-return]
                continue
            props = s.get("properties", {})
            if key in props:
                return props[key]  # type: ignore[no-any-return]
            for pattern, sub in s.get("patternProperties", {}).items():
                if re.search(pattern, key):
                    return sub  # type: ignore[no-any-return]
            if isinstance(s.get("additionalProperties"), Mapping):
                return s["additionalProperties"]  # type: ignore[no-any-return]
        return None


_SCHEMAS: dict[int, _Schema] = {}


def schema_requires(schema: Mapping[str, Any], path: list[str | int]) -> bool:
    """True when the JSON Schema ``schema`` requires the key at ``path`` (``["skills", 0,
    "name"]``); an item of a list counts as required when the list is.

    Only ``properties``/``required`` (through ``$ref`` and ``allOf``/``anyOf``/``oneOf``)
    are read: enough for acap's shipped schemas.
    """
    if not path:
        return True
    if isinstance(path[-1], int):
        return schema_requires(schema, path[:-1])
    walker = _Schema.for_root(schema)
    node: Mapping[str, Any] | None = walker.root
    for token in path[:-1]:
        node = walker.child(node, token)
        if node is None:
            return False
    return any(path[-1] in s.get("required", ()) for s in walker.resolve(node))


def schema_properties(schema: Mapping[str, Any], path: list[str | int]) -> list[str]:
    """The keys the JSON Schema ``schema`` names for the mapping at ``path`` (``["skills",
    0]``), in schema order; empty where it names none. Read like :func:`schema_requires`."""
    walker = _Schema.for_root(schema)
    node: Mapping[str, Any] | None = walker.root
    for token in path:
        node = walker.child(node, token)
        if node is None:
            return []
    names: list[str] = []
    for s in walker.resolve(node):
        names += [k for k in s.get("properties", {}) if k not in names]
    return names


def _json_type(v: Any) -> str:
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "number"
    if isinstance(v, str):
        return "string"
    return "null"


class _Quick(Exception):
    """The quick way (:func:`load_quick`) met what only the located way reports."""


#: The tags libyaml's resolution gives a value written without one.
_RESOLVED = frozenset(f"tag:yaml.org,2002:{t}" for t in _PLAIN_TAGS)


class _Builder:
    """Walks the node tree once, building data, locations and findings.

    With ``shallow`` (the quick way, :func:`load_quick`), only the places of the values
    and keys down to that depth are recorded, and the first finding stops the walk
    (:class:`_Quick`): the located way then reads the file again and reports it."""

    def __init__(self, loaded: Loaded, schema: Mapping[str, Any], text: str,
                 shallow: int | None = None) -> None:
        self.loaded = loaded
        self.schema = _Schema.for_root(schema)
        self.budget = MAX_NODES
        self.bombed = False
        self.any_bang = "!" in text  # without one, no tag was written anywhere
        self.lines = text.split("\n") if self.any_bang else []
        self.quick = shallow is not None
        self.deep = MAX_DEPTH + 1 if shallow is None else shallow  # deepest place recorded

    def run(self, root: yaml.Node) -> None:
        self.loaded.data = self.node(root, "", self.schema.root, 0)

    def error(self, rule: str, msg: str, node: yaml.Node, hint: str | None,
              pointer: str) -> None:
        if self.quick:
            raise _Quick(rule)
        m = node.start_mark
        self.loaded.findings.append(
            Finding(rule, "error", msg, Location(self.loaded.file, m.line + 1, m.column + 1,
                                                 pointer), hint))

    def node(self, node: yaml.Node, ptr: str, schema: Mapping[str, Any] | None,
             depth: int) -> Any:
        self.budget -= 1
        if self.budget < 0:
            if not self.bombed:
                self.bombed = True
                self.error("YAML-ALIAS", "anchors and aliases expand to too many values",
                           node, "write the values out instead of using * aliases", ptr)
            return None
        if depth > MAX_DEPTH:
            self.error("YAML-DEPTH", f"nested more than {MAX_DEPTH} levels deep", node,
                       "an operator file nests a few levels deep; look for stray indentation",
                       ptr)
            return None
        if depth <= self.deep:
            mark = node.start_mark
            self.loaded.values[ptr] = (mark.line + 1, mark.column + 1)
        kind = type(node)
        if self.any_bang or node.tag not in _RESOLVED:
            tag = self.explicit_tag(node)
            if tag is not None and not (tag in _STR_TAGS and kind is yaml.ScalarNode):
                # Every explicit tag but !!str is refused, and its value is never used: a
                # !!binary, !!python/... or custom tag must not reach the card in any form.
                shown = tag if tag.startswith("!") else f"!<{tag}>"
                self.error("YAML-TAG", f"'{shown}' is a YAML tag; operator.yaml takes plain "
                           "values, not tagged ones", node,
                           f"delete '{shown}' and write the value itself (text that starts "
                           "with ! goes in quotes)", ptr)
                return None
        if kind is yaml.MappingNode:
            return self.mapping(node, ptr, schema, depth)  # type: ignore[arg-type]
        if kind is yaml.SequenceNode:
            item = self.schema.child(schema, 0)
            if depth + 1 > self.deep:  # no place recorded below: no pointer made
                return [self.node(n, ptr, item, depth + 1) for n in node.value]
            return [self.node(n, f"{ptr}/{i}", item, depth + 1)
                    for i, n in enumerate(node.value)]
        assert kind is yaml.ScalarNode
        return self.scalar(node, ptr, schema)  # type: ignore[arg-type]

    def explicit_tag(self, node: yaml.Node) -> str | None:
        """The tag written before ``node`` (``!!binary``, ``!custom``), or ``None``.

        The node tree does not say whether a tag was written or resolved (``!!int 5``
        and ``5`` give the same node), so the source is read at the node's start,
        where YAML puts its properties (an anchor and a tag, in either order).
        Tags that plain YAML never resolves to are refused wherever they are written.
        """
        if self.any_bang:
            m = node.start_mark
            row = self.lines[m.line] if m.line < len(self.lines) else ""
            found = _PROPERTIES.match(row, m.column)
            if found and found.group("tag"):
                return found.group("tag")
        if not node.tag.startswith("tag:yaml.org,2002:") or \
                node.tag.removeprefix("tag:yaml.org,2002:") not in _PLAIN_TAGS:
            return node.tag
        return None

    def mapping(self, node: yaml.MappingNode, ptr: str, schema: Mapping[str, Any] | None,
                depth: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        placed = depth + 1 <= self.deep
        keys = self.loaded.keys
        child_schema = self.schema.child
        for knode, vnode in node.value:
            ktag = knode.tag
            if ktag == _MERGE:
                self.error("YAML-MERGE", "merge keys (<<) are not supported", knode,
                           "write the keys out in full", ptr)
                continue
            written = self.explicit_tag(knode) if self.any_bang or ktag not in _RESOLVED \
                else None
            if type(knode) is not yaml.ScalarNode or (written and written not in _STR_TAGS):
                self.error("YAML-KEY", "a key must be a plain name", knode,
                           "write the key as a word followed by a colon", ptr)
                continue
            key = knode.value
            child = pointer_join(ptr, key) if placed else ptr
            if key in out:  # the first one's place is recorded (or the quick way stops)
                first = keys.get(child, (0, 0))[0]
                self.error("YAML-DUPLICATE-KEY",
                           f"duplicate key '{key}' (first at line {first})", knode,
                           f"keep one '{key}' and delete the other", child)
                continue
            if placed:
                mark = knode.start_mark
                keys[child] = (mark.line + 1, mark.column + 1)
            out[key] = self.node(vnode, child, child_schema(schema, key), depth + 1)
        return out

    def scalar(self, node: yaml.ScalarNode, ptr: str, schema: Mapping[str, Any] | None) -> Any:
        text: str = node.value
        if node.style:  # quoted, literal | or folded >
            if not self.quick:
                self.loaded.quoted.add(ptr)
            return text
        if node.tag == _STR and text not in _NULL_FORMS:
            # Explicit !!str, or libyaml resolved it as text: text it is.
            return text
        want = self.schema.types(schema)
        if "string" in want or not want:
            # Where text is expected, a plain scalar is exactly what was typed:
            # `no`, `1.10`, `10:30`, `+441234567890`, `01234`, `2026-01-01` all stay text.
            return None if text in _NULL_FORMS else text
        if text in _NULL_FORMS:
            return None
        if "boolean" in want and text in _BOOLEAN_FORMS:
            return self.boolean(node, ptr)
        if want & {"integer", "number"}:
            return self.number(node, ptr, "number" in want)
        return text  # the wrong type: JSON Schema reports it with the place's rule

    def boolean(self, node: yaml.ScalarNode, ptr: str) -> bool | None:
        """A plain scalar where true or false is expected (one of :data:`_BOOLEAN_FORMS`):
        YAML 1.1's yes/no/on/off could be read as the word too (``YAML-AMBIGUOUS``)."""
        text: str = node.value
        if text in _TRUE_FORMS:
            return True
        if text in _FALSE_FORMS:
            return False
        self.error("YAML-AMBIGUOUS",
                   f"'{text}' could be read as true or false, or as the word {text}",
                   node, "write true or false", ptr)
        return None

    def number(self, node: yaml.ScalarNode, ptr: str, real: bool) -> Any:
        """A plain scalar where a number is expected (a real one with ``real``): plain
        digits are read; a leading zero, a time or a date is ``YAML-AMBIGUOUS``; anything
        else stays text, for the schema to report with the place's rule. The fix is a
        number in plain digits: quoting would make it text, which a number place does not
        take either."""
        text: str = node.value
        if _INT_RE.fullmatch(text):
            size = len(text.lstrip("+-").replace("_", ""))
            if size > 100:  # int() refuses over 4,300 digits; no place takes 100
                self.error("SCHEMA-VALUE", f"a number of {size:,} digits is far beyond "
                           "what this place takes", node, "write a smaller number", ptr)
                return None
            return int(text)
        if real and _FLOAT_RE.fullmatch(text):
            return float(text)
        if _OCTAL_RE.fullmatch(text):
            digits = text.replace("_", "").lstrip("+-").lstrip("0") or "0"
            sign = "-" if text.startswith("-") else ""
            self.error("YAML-AMBIGUOUS",
                       f"'{text}' has a leading zero, so it could be read as an octal "
                       "number (base 8)",
                       node, f"write {sign}{digits}, without the leading zero", ptr)
            return None
        if _SEXAGESIMAL_RE.fullmatch(text) or _DATE_RE.fullmatch(text):
            what = "it reads as a date" if _DATE_RE.fullmatch(text) else \
                "it could be read as a time or as a base-60 number"
            self.error("YAML-AMBIGUOUS", f"'{text}' is not a number: {what}", node,
                       "write the number in plain digits, e.g. 2", ptr)
            return None
        return text
