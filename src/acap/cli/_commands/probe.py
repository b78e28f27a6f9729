"""``acap probe URL``: does a live agent keep its card's On Request promises?"""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from urllib.parse import urlsplit

import click

from acap.cli._commands.live_check import pairs

#: ``--format`` of ``acap probe``: the reporters' text and JSON, and JUnit XML for CI.
PROBE_FORMATS = click.Choice(["text", "json", "sarif", "github", "junit"])
INSTALL = ("acap probe needs the agent extra (it brings a2a-sdk): in your copy of acap's "
           "repository, run pip install '.[agent]' (acap is not on PyPI)")


def _origin(value: str) -> str:
    """``--allow-origin``'s value as an origin (``scheme://host[:port]``), or a usage error."""
    from acap.load import origin  # start-up: as the command's other imports

    got = origin(value)
    u = urlsplit(value)
    if got is None or u.scheme.lower() not in ("https", "http") \
            or u.path not in ("", "/") or u.query or u.fragment or "@" in u.netloc:
        raise click.BadParameter(f"'{value}' is not an origin: give scheme://host[:port], "
                                 "as https://agent.example.net", param_hint="--allow-origin")
    return got


@click.command("probe")
@click.argument("url")
@click.option("--prompts", "prompts_file", type=click.Path(dir_okay=False, path_type=Path),
              help="A probe file: YAML mapping on-request skill ids to prompts [default: "
                   "each skill's examples in the card].")
@click.option("--private-values", type=click.Path(dir_okay=False, path_type=Path),
              help="The operator's operator.private.yaml: none of its values may reach a "
                   "caller acting for nobody.")
@click.option("--connect-to", multiple=True, metavar="HOST=URL",
              help="Send HOST's requests to URL instead, with Host: HOST (e.g. "
                   "agent.example.com=http://127.0.0.1:8000 for a local copy).")
@click.option("--allow-private", is_flag=True,
              help="Allow private, loopback and link-local addresses.")
@click.option("--allow-origin", "allow_origins", multiple=True, metavar="ORIGIN",
              callback=lambda _ctx, _param, value: tuple(_origin(v) for v in value),
              help="Also probe an interface on ORIGIN (https://agent.example.net), when the "
                   "card names one off its own host and its subdomains. Repeatable.")
@click.option("--budget", type=click.IntRange(1, 1000), default=40, show_default=True,
              help="Most HTTP requests to send (card and JWKS included).")
@click.option("--delay", type=click.FloatRange(0, 60), default=1.0, show_default=True,
              help="Seconds between two requests.")
@click.option("--deadline", type=click.FloatRange(1, 3600), default=120.0, show_default=True,
              help="Seconds for the whole probe.")
@click.option("--timeout", type=click.FloatRange(0.1, 600), default=15.0, show_default=True,
              help="Seconds for one request.")
@click.option("--streaming/--unary", default=None,
              help="Only streaming (SendStreamingMessage) or only unary (SendMessage) "
                   "[default: both, when the card says the agent streams].")
@click.option("--max-prompts", type=click.IntRange(1, 20), default=2, show_default=True,
              help="Prompts sent per skill at most.")
@click.option("--as-named-person", "named_person", is_flag=True,
              help="Also ask as an assistant acting for a named person (acap's provisional "
                   "assertion, OR-5.5), to exercise OR-5.4 and OR-5.6. An action opened to "
                   "assistants may then really be carried out: probe a test instance.")
@click.option("--strict", is_flag=True, help="Warnings fail too.")
@click.option("--format", "fmt", type=PROBE_FORMATS, default="text", show_default=True,
              help="How to print the findings: as every command's --format (text, json, "
                   "sarif, github), or JUnit XML for CI (junit).")
def probe(url: str, prompts_file: Path | None, private_values: Path | None,
          connect_to: tuple[str, ...], allow_private: bool, allow_origins: tuple[str, ...],
          budget: int, delay: float,
          deadline: float, timeout: float, streaming: bool | None, max_prompts: int,
          named_person: bool, strict: bool, fmt: str) -> None:
    """Probe the live agent whose card is at URL (or on the origin URL).

    \b
    Reads the card (its signature must verify), then sends each on-request
    skill's example prompts to the card's own interface (on the card's host
    or a subdomain of it, or an origin of --allow-origin), with and without
    A2A-Extensions, as a caller acting for nobody (and, with --as-named-person,
    as an assistant acting for a named person), and judges the replies:
    OR-5.1, OR-5.3, OR-5.4, OR-5.7, OR-5.8, OR-6.1, OR-6.2 and the
    A2A-Extensions echo; a value of --private-values or an amount of money
    reaching a caller not entitled to it is an error. Where the card names no
    way to reach staff, it asks for one (OR-5.10). Exit status 0 when nothing
    is wrong, 1 when something is (or nothing could be judged), 2 for wrong
    usage.
    """
    try:
        import a2a  # noqa: F401 - only to say how to install it
    except ImportError:
        raise click.ClickException(INSTALL) from None
    # after the check above: without the extra (a2a-sdk) the command says how to install
    # it instead of failing at import
    from acap.agent import ProbeOptions, read_probe_file
    from acap.agent import probe as run  # after the check: as above
    from acap.checks import PrivateValue, read_private_values  # after the check: as above
    from acap.cli._formats import PROBE_REPORTERS  # after the check: as above
    from acap.findings import Report  # after the check: as above

    logging.getLogger("a2a").setLevel(logging.CRITICAL)  # the SDK's tracebacks: not findings
    early = Report()
    prompts = None
    if prompts_file is not None:
        prompts, found = read_probe_file(prompts_file)
        early.extend(found)
    values: list[PrivateValue] = []
    if private_values is not None:
        pv = read_private_values(private_values, str(private_values))
        early.extend(pv.findings)
        values = pv.values
    reporter = PROBE_REPORTERS[fmt](strict=strict)
    if not early.ok:
        reporter.findings(early)
        sys.exit(1)
    result = run(ProbeOptions(url, prompts=prompts, private_values=values,
                              connect_to=pairs(connect_to), allow_private=allow_private,
                              budget=budget, delay=delay, deadline=deadline, timeout=timeout,
                              streaming=streaming, max_prompts=max_prompts,
                              named_person=named_person, allow_origins=allow_origins))
    result.report.extend(early)
    reporter.probe(result, strict)
    sys.exit(0 if result.passes(strict) else 1)

