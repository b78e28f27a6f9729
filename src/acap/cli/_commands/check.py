"""``acap check CARD...``: check any Agent Card (a file or an https URL) against A2A 1.0
and the On Request extension, or an operator file as a build would, before it builds.

Exit status: 0 no errors (warnings allowed), 1 errors (or warnings with
``--strict``), 2 wrong usage (click's own).
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from acap.checks import CardCheck, OperatorCheck, check_card, check_card_file
from acap.cli._commands._common import ALLOW_PRIVATE, format_option, reporter
from acap.findings import Finding, Location
from acap.load import JsonDocument


@click.command()
@click.argument("cards", nargs=-1, required=True, metavar="CARD...")
@click.option("--url", default=None, metavar="URL",
              help="The URL the card is (or will be) served at, for a card file "
                   "[default: a URL given as CARD, or the file's place in site/].")
@click.option("--strict", is_flag=True, help="Warnings fail the check too.")
@format_option
@click.option("--timeout", type=click.FloatRange(min=0.1), default=10.0, show_default=True,
              help="Seconds for the whole fetch of a card URL (each fetch of --live).")
@click.option("--live", is_flag=True,
              help="CARD is a URL: also check what a client gets (status, Content-Type, CORS, "
                   "Cache-Control, ETag, signature with the jku keys, same bytes as site/).")
@click.option("--site-dir", type=click.Path(path_type=Path), default=Path("site"),
              show_default=True, help="With --live: the local build to compare bytes with.")
@click.option("--connect-to", multiple=True, metavar="HOST=URL",
              help="With --live: fetch HOST's URLs from URL instead, with Host: HOST "
                   "(e.g. example.com=http://127.0.0.1:8000 to check acap serve).")
@ALLOW_PRIVATE
def check(cards: tuple[str, ...], url: str | None, strict: bool, fmt: str, timeout: float,
          live: bool, site_dir: Path, connect_to: tuple[str, ...], allow_private: bool) -> None:
    """Check each CARD (a path or an https URL) and report every finding.

    Checks that need operator.yaml (the values given on request, the safeguards of
    an action) are listed as notes; signatures are checked by `acap verify`, or
    here with --live. A CARD ending in .yaml or .yml is an operator file: it is
    checked as `acap build` checks it, without a key and without writing anything
    (the pre-commit hook does this). A CARD of - is read from standard input: a card
    when it starts with {, else an operator file standing in the current folder
    (its operator.private.yaml is read).
    """

    if (live or url) and len(cards) > 1:
        raise click.UsageError("--live and --url are for one CARD")
    card = cards[0]
    if live and not card.startswith(("https://", "http://")):  # - included
        raise click.UsageError("--live checks a URL: give the card's https URL")
    if live:
        # start-up: the live check (http.client, ssl) only with --live
        from acap.cli._commands.live_check import pairs
        from acap.publisher import live_check as run_live  # start-up: as above

        lr = run_live(card, site_dir=site_dir if site_dir.is_dir() else None,
                      connect_to=pairs(connect_to), timeout=timeout,
                      allow_private=allow_private)
        # The content check reads the very bytes the live check fetched.
        # The live check judges the signatures (its report says when it could not).
        from acap.replies import ReplyReading  # OR-3.9 reads skill text as check-reply does

        result = check_card_file(lr.file or JsonDocument(card, findings=list(lr.report.errors)),
                                 url=url or card, signatures_checked=True,
                                 reading=ReplyReading())
        reporter(fmt, strict).card_check(result, lr)
        sys.exit(0 if result.passes(strict) and lr.ok and lr.report.passes(strict) else 1)
    if cards.count("-") > 1:
        raise click.UsageError("give - (standard input) once")
    # start-up: the builder (which an operator file's check is) only for an operator file
    from acap.builder import check_operator_file
    from acap.replies import ReplyReading  # OR-3.9 reads skill text as check-reply does

    results: list[CardCheck | OperatorCheck] = [
        _from_stdin(url) if c == "-" else
        check_operator_file(c) if _is_operator_file(c) else
        check_card(c, url=url, timeout=timeout, allow_private=allow_private,
                   reading=ReplyReading()) for c in cards]
    reporter(fmt, strict).checks(results)
    sys.exit(0 if all(r.passes(strict) for r in results) else 1)


def _is_operator_file(source: str) -> bool:
    """An operator file is named ``*.yaml`` or ``*.yml``; a card is JSON (or a URL)."""
    return "://" not in source and source.lower().endswith((".yaml", ".yml"))


#: How findings name what came from standard input.
STDIN = "<stdin>"


def _from_stdin(url: str | None) -> CardCheck | OperatorCheck:
    """``acap check -``: check what standard input holds, read no further than the larger
    of the two size limits (+1, so that a larger input is reported as such): a card when
    its first character (after a byte order mark and white space) is ``{``, since an
    Agent Card is one JSON object; else an operator file, as if it stood in the current
    folder (``operator.private.yaml`` there is read, OR-3.9)."""
    # start-up: the JSON parser only when standard input is read
    from acap.load import DEFAULT_MAX_BYTES, MAX_BYTES, parse_document

    limit = max(DEFAULT_MAX_BYTES, MAX_BYTES)
    raw = sys.stdin.buffer.read(limit + 1)
    if raw.removeprefix(b"\xef\xbb\xbf").lstrip().startswith(b"{"):
        doc = JsonDocument(STDIN, raw=raw)
        if len(raw) > DEFAULT_MAX_BYTES:
            doc.findings.append(Finding("CARD-READ", "error", f"the card is larger than "
                                        f"{DEFAULT_MAX_BYTES // 1024} KiB", Location(STDIN),
                                        "is this the right input?"))
        else:
            parse_document(doc)
        from acap.replies import ReplyReading  # OR-3.9 reads skill text as check-reply does

        return check_card_file(doc, url=url, reading=ReplyReading())
    # start-up: the builder (which an operator file's check is) only for an operator file
    from acap.builder import check_operator_file

    return check_operator_file(Path("operator.yaml"), raw=raw, display=STDIN)
