"""YAML syntax errors in plain words, at the line the mistake is most likely on.

libyaml reports where it *noticed* a mistake, which is often a line or more after
the mistake itself: a key without its colon is noticed on the next line ("mapping
values are not allowed in this context"), an unclosed quote where the next quote
happens to be ("did not find expected key", many lines down), a missing ``]`` on
the next line. Its words are a parser's. :func:`explain` turns one libyaml error
into a message an operator can act on, naming the line to look at (and the other
candidate line when there are two), with a hint saying what to check. It reads
libyaml's tokens up to the error (``yaml.scan``) to tell the cases apart: PyYAML
offers no such explanation, hence this module.

Tabs in indentation are not handled here: :func:`acap.load._yaml.load_text` reports
every such line (``YAML-TAB``) and reads on with the tabs expanded.
"""

from __future__ import annotations

__all__ = ["SyntaxProblem", "explain", "explain_reader_error", "missing_dash_spaces"]

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import yaml


@dataclass(frozen=True)
class SyntaxProblem:
    """One YAML syntax error, explained.

    Attributes:
        line: 1-based line of the most likely place.
        column: 1-based column there.
        message: what is wrong, without parser jargon (no "mapping values").
        hint: what to check or change.
    """

    line: int
    column: int
    message: str
    hint: str


_MISSING_COLON_HINT = ("end the key with a colon and a space (kind: public); text that "
                       "holds ': ' goes in quotes (description: \"Open: 9 to 5\")")


def _lines(text: str) -> list[str]:
    return text.split("\n")


def _previous_content_line(lines: list[str], line: int) -> int | None:
    """The nearest line above ``line`` (1-based) that is neither blank nor a comment."""
    for n in range(line - 1, 0, -1):
        s = lines[n - 1].strip() if n - 1 < len(lines) else ""
        if s and not s.startswith("#"):
            return n
    return None


def _first_text_column(lines: list[str], line: int) -> int:
    """1-based column of the first character of ``line`` that is not indentation."""
    s = lines[line - 1] if 0 < line <= len(lines) else ""
    return len(s) - len(s.lstrip(" -")) + 1 if s.strip() else 1


def _tokens_before(text: str, line0: int, col0: int, loader: Any) -> list[Any]:
    """The tokens ``loader`` scans before the 0-based (line, column), as far as it scans."""
    out: list[Any] = []
    try:
        for tok in yaml.scan(text, Loader=loader):
            m = tok.start_mark
            if (m.line, m.column) >= (line0, col0):
                break
            out.append(tok)
    except yaml.YAMLError:
        pass
    return out


def _open_quote(tokens: list[Any]) -> Any | None:
    """The last quoted scalar that runs over more than one line: an unclosed quote
    that ran on until the next quote character."""
    for tok in reversed(tokens):
        if isinstance(tok, yaml.ScalarToken) and tok.style in ("'", '"') \
                and tok.end_mark.line > tok.start_mark.line:
            return tok
    return None


@dataclass(frozen=True)
class _Error:
    """One libyaml error as the explanations read it: where it was noticed (``line``,
    ``col``), where its context started (``ctx_line``, ``ctx_col``), libyaml's problem and
    context words, and the text."""

    text: str
    lines: list[str]
    line: int
    col: int
    ctx_line: int
    ctx_col: int
    problem: str
    context: str
    loader: Any


def explain(text: str, exc: yaml.MarkedYAMLError, loader: Any) -> SyntaxProblem:
    """Explain a libyaml syntax error.

    libyaml gives no error codes: its problem and context texts, fixed strings of its
    scanner and parser, are the only way to tell one error from another, so they are
    matched in one table (:data:`_EXPLANATIONS`), each row with its explanation.

    Args:
        text: the YAML text that failed (tabs already expanded).
        exc: the error ``yaml.compose`` raised.
        loader: the PyYAML loader class that raised it (its scanner reads the tokens
            before the error; :data:`acap.load._yaml.YamlLoader`).

    Returns:
        A :class:`SyntaxProblem`; its line is the most likely line of the
        mistake (which may be above the line libyaml names).
    """
    mark = exc.problem_mark or exc.context_mark
    line = mark.line + 1 if mark else 1
    col = mark.column + 1 if mark else 1
    ctx = exc.context_mark
    ctx_line, ctx_col = (ctx.line + 1, ctx.column + 1) if ctx else (line, col)
    e = _Error(text, _lines(text), line, col, ctx_line, ctx_col, exc.problem or "",
               exc.context or "", loader)
    for matches, explanation in _EXPLANATIONS:
        if matches(e):
            return explanation(e)
    return SyntaxProblem(line, col, e.problem or "not valid YAML",
                         "check the indentation and the punctuation (: - [ ] { } quotes) on "
                         "this line and the one above")


def _missing_colon(e: _Error) -> SyntaxProblem:
    return SyntaxProblem(e.ctx_line, e.ctx_col, f"line {e.ctx_line} is missing a colon after "
                         "its key", _MISSING_COLON_HINT)


def _unclosed_quote(e: _Error) -> SyntaxProblem:
    return SyntaxProblem(e.ctx_line, e.ctx_col,
                         f"the quote opened on line {e.ctx_line} is never closed",
                         "end the text with the same quote it starts with")


def _unclosed_flow(e: _Error) -> SyntaxProblem:
    close, kind = ("]", "list") if "]" in e.problem else ("}", "set of keys")
    return SyntaxProblem(e.ctx_line, e.ctx_col,
                         f"the {kind} opened with {'[' if close == ']' else '{'} on line "
                         f"{e.ctx_line} is not closed with {close}",
                         f"add the {close} at the end of line {e.ctx_line}, and check the "
                         "commas between the items; text holding a comma goes in quotes")


def _bad_start(e: _Error) -> SyntaxProblem:
    here = e.lines[e.line - 1] if 0 < e.line <= len(e.lines) else ""
    ch = here[e.col - 1] if e.col - 1 < len(here) else "?"
    return SyntaxProblem(e.line, e.col, f"a value cannot start with the character '{ch}'",
                         f"put the text in quotes: \"{ch}...\"")


def _anchor_or_alias(e: _Error) -> SyntaxProblem:
    ch = "&" if "anchor" in e.context else "*"
    return SyntaxProblem(e.ctx_line, e.ctx_col, f"a value cannot start with '{ch}' followed "
                         "by a space or nothing", f"put the text in quotes: \"{ch} ...\"")


def _said(message: str, hint: str) -> Callable[[_Error], SyntaxProblem]:
    """An explanation that is one fixed message and hint, at the line libyaml names."""
    return lambda e: SyntaxProblem(e.line, e.col, message, hint)


#: libyaml's error texts, each with its explanation, in the order they are tried.
_EXPLANATIONS: list[tuple[Callable[[_Error], bool], Callable[[_Error], SyntaxProblem]]] = [
    (lambda e: e.problem.startswith("mapping values are not allowed"),
     lambda e: _colon_problem(e.text, e.lines, e.line, e.col, e.loader)),
    (lambda e: e.problem == "could not find expected ':'", _missing_colon),
    (lambda e: "end of stream" in e.problem and "quoted scalar" in e.context, _unclosed_quote),
    (lambda e: e.problem == "did not find expected key" or "expected '-' indicator" in e.problem,
     lambda e: _key_problem(e.text, e.lines, e.line, e.col, e.ctx_line, e.loader)),
    (lambda e: e.problem.startswith(("did not find expected ',' or ']'",
                                     "did not find expected ',' or '}'")), _unclosed_flow),
    (lambda e: "cannot start any token" in e.problem, _bad_start),
    (lambda e: "while scanning an anchor" in e.context or "while scanning an alias" in e.context,
     _anchor_or_alias),
    (lambda e: e.problem == "found undefined alias",
     _said("a value starting with '*' refers to an anchor (&name) that is not defined",
           "if it is text, put it in quotes")),
    (lambda e: "escape" in e.problem or "hexdecimal" in e.problem,
     _said("a backslash inside double quotes starts an escape sequence that is not valid",
           "write the text in single quotes ('C:\\path'), or double each backslash inside "
           "double quotes")),
    (lambda e: "block scalar" in e.context,
     _said("after | or > only a comment may follow on the same line",
           "start the text on the next line, indented")),
    (lambda e: "another document" in e.problem,
     _said("the file holds a second document (a --- line)",
           "delete the --- line: operator.yaml is one document")),
    (lambda e: "nesting depth" in e.problem,
     _said("the file nests too deeply",
           "an operator file nests a few levels deep; look for stray [ or {")),
    (lambda e: "tab character" in e.problem,
     _said("a tab character", "YAML indents with spaces, never tabs: replace it")),
]


def _colon_problem(text: str, lines: list[str], line: int, col: int,
                   loader: Any) -> SyntaxProblem:
    """libyaml's "mapping values are not allowed in this context": a colon where a value
    cannot hold one. Either a key above has no colon, so that its line and this one read
    as one text, or this line has a colon inside unquoted text (or is indented deeper
    than the key above it)."""
    tokens = _tokens_before(text, line - 1, col - 1, loader)
    scalar = next((t for t in reversed(tokens) if isinstance(t, yaml.ScalarToken)), None)
    prev = _previous_content_line(lines, line)
    if scalar is not None and scalar.start_mark.line + 1 < line:
        # Text starting on an earlier line ran on to here.
        start = scalar.start_mark.line + 1
        i = tokens.index(scalar)
        # The value of a key on the same line ("b: 1"), continued by a line indented
        # deeper; else text alone on its line: a key that lost its colon.
        is_value = i > 0 and isinstance(tokens[i - 1], yaml.ValueToken) \
            and tokens[i - 1].start_mark.line == scalar.start_mark.line
        if is_value:
            return SyntaxProblem(
                line, _first_text_column(lines, line),
                f"line {start} or {line}: line {line} is indented deeper than the key above "
                f"it (so it reads as more text of line {start}), or has a colon inside "
                "unquoted text",
                f"line up line {line} with the keys above it, or put its text in quotes")
        return SyntaxProblem(
            start, scalar.start_mark.column + 1,
            f"line {start} or {line}: a line here is missing a colon after its key, or has "
            "a colon inside unquoted text", f"on line {start}: " + _MISSING_COLON_HINT)
    both = f"line {prev} or {line}" if prev else f"line {line}"
    return SyntaxProblem(
        line, col, f"{both}: a line here or just above is missing a colon after its key, "
        "or has a colon inside unquoted text",
        f"on line {line}, put text that holds ': ' in quotes (description: \"Open: 9 to "
        f"5\"); check that the key{' on line ' + str(prev) if prev else ''} ends with a colon")


def _key_problem(text: str, lines: list[str], line: int, col: int,
                 ctx_line: int, loader: Any) -> SyntaxProblem:
    """libyaml's "did not find expected key": most often an unclosed quote that ran on to
    the next quote character; else a line not lined up with the keys around it."""
    tokens = _tokens_before(text, line - 1, col - 1, loader)
    last = tokens[-1] if tokens else None
    if isinstance(last, yaml.ScalarToken) and last.style in ("'", '"') \
            and last.start_mark.line == last.end_mark.line == line - 1:
        return SyntaxProblem(line, col, f"line {line} has text after the closing quote",
                             "put all of the text inside the quotes")
    quote = _open_quote(tokens)
    if quote is not None:
        start = quote.start_mark.line + 1
        return SyntaxProblem(start, quote.start_mark.column + 1,
                             f"the quote opened on line {start} is not closed on that line "
                             f"(the text runs on to line {quote.end_mark.line + 1})",
                             f"end the text on line {start} with the quote it starts with "
                             f"({quote.style})")
    here = lines[line - 1].lstrip() if 0 < line <= len(lines) else ""
    if here.startswith("- ") or here == "-":
        return SyntaxProblem(line, col, f"line {line} is a list item ('- ') where a key is "
                             "expected", "check its indentation, and that the key above it "
                             "ends with a colon and nothing after it")
    return SyntaxProblem(line, col, f"line {line} is not lined up with the lines above it",
                         "indent it by the same number of spaces as the other keys at its "
                         "level")


def missing_dash_spaces(text: str, loader: Any, candidates: list[tuple[int, int, str]]
                        ) -> list[tuple[int, int, str]]:
    """The lines that start a list item without a space after the dash (``-id: x``), as
    YAML really reads them: ``(line, 0-based column of the dash, key)``.

    Such a line is a key named ``-id`` to YAML. libyaml then reports the line after it
    as misaligned, or none at all when the file still parses (``skills: {-id: x}``),
    and the schema a wrong shape elsewhere. A candidate from
    :func:`acap.load._yaml.dash_candidates` counts when YAML reads it as a key starting
    with ``-`` (the file parses), or when the file does not parse and the line is not
    inside a text that runs over several lines (``description: |`` and the lines under it).

    Args:
        text: the YAML text.
        loader: the PyYAML loader class (:data:`acap.load._yaml.YamlLoader`).
        candidates: :func:`acap.load._yaml.dash_candidates` of ``text``.

    Returns:
        The candidates that are such lines.
    """
    try:
        root = yaml.compose(text, Loader=loader)
    except yaml.YAMLError:
        spans = [(t.start_mark.line + 1, t.end_mark.line + 1) for t in _tokens_before(
            text, len(text), 0, loader) if isinstance(t, yaml.ScalarToken)]
        return [c for c in candidates if not any(a < c[0] <= b for a, b in spans)]
    keys: set[int] = set()
    stack = [root] if root is not None else []
    while stack:
        node = stack.pop()
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                if isinstance(k, yaml.ScalarNode) and not k.style and k.value.startswith("-"):
                    keys.add(k.start_mark.line + 1)
                stack += [k, v]
        elif isinstance(node, yaml.SequenceNode):
            stack += node.value
    return [c for c in candidates if c[0] in keys]


def explain_reader_error(text: str, exc: yaml.reader.ReaderError) -> SyntaxProblem:
    """A character YAML does not allow in a file (a control character such as NUL)."""
    pos = exc.position if isinstance(exc.position, int) else 0
    before = text[:pos]
    line = before.count("\n") + 1
    col = pos - (before.rfind("\n") + 1) + 1
    code = exc.character if isinstance(exc.character, int) else ord(str(exc.character)[:1] or
                                                                      "\0")
    return SyntaxProblem(line, col, f"the file holds a control character (U+{code:04X}), "
                         "which YAML does not allow", "delete it: operator.yaml is plain text")
