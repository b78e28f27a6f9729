"""``acap check-reply``: does an agent's reply follow On Request §5 and §6?"""

from __future__ import annotations

import sys

import click

from acap.cli._commands._common import FORMATS, reporter


@click.command("check-reply")
@click.argument("reply", type=click.Path(dir_okay=False))
@click.option("--card", required=True,
              help="The agent's Agent Card: a path or an https URL.")
@click.option("--activated/--not-activated", default=None,
              help="Whether the request activated the extension [default: as its "
                   "A2A-Extensions value says (--request-extensions), else assumed from "
                   "whether the reply is marked].")
@click.option("--request-extensions", default=None, metavar="VALUE",
              help="The request's A2A-Extensions header value.")
@click.option("--response-extensions", default=None, metavar="VALUE",
              help="The response's A2A-Extensions header value (checks the echo).")
@click.option("--skill", "skill_id", default=None,
              help="The skill the request was for [default: the reply's skillId].")
@click.option("--for-named-person/--for-nobody", default=None,
              help="Whether the caller acts for a named person (OR-5.4) [default: unknown].")
@click.option("--action/--information", "action", default=None,
              help="Whether the skill changes something [default: the card's completion].")
@click.option("--safeguards-hold/--safeguards-fail", default=None,
              help="Whether OR-5.6's four conditions hold [default: unknown].")
@click.option("--compare", "compare", default=None, type=click.Path(dir_okay=False),
              metavar="PLAIN_REPLY",
              help="OR-5.1: the reply to the same request without activation (REPLY is then "
                   "the activated one).")
@click.option("--operator", "operator", default=None, type=click.Path(dir_okay=False),
              metavar="OPERATOR_YAML",
              help="Your operator.yaml: a referral that states a value its "
                   "operator.private.yaml lists is an error (OR-5.3).")
@click.option("--strict", is_flag=True, help="Warnings fail too.")
@click.option("--format", "fmt", type=FORMATS, default="text", show_default=True)
def check_reply(reply: str, card: str, activated: bool | None, request_extensions: str | None,
                response_extensions: str | None, skill_id: str | None,
                for_named_person: bool | None, action: bool | None,
                safeguards_hold: bool | None, compare: str | None, operator: str | None,
                strict: bool, fmt: str) -> None:
    """Check REPLY (a Message, Task or JSON-RPC response, as JSON) against CARD."""
    from acap.findings import Report
    from acap.load import read_card
    from acap.replies import (
        activated_extensions,
        carries_object,
        check_reply,
        compare_replies,
        read_reply,
    )
    from acap.uris import EXTENSION_URI

    if activated is not None and request_extensions is not None:
        raise click.UsageError("give --activated/--not-activated or --request-extensions, "
                               "not both")
    if compare is not None and activated is False:
        raise click.UsageError("with --compare, REPLY is the activated reply")
    report = Report()
    values: list[object] = []
    if operator is not None:
        from pathlib import Path

        from acap.checks import load_private_values
        from acap.load import load_operator

        private = load_private_values(load_operator(Path(operator)))
        report.extend(private.findings)
        values = list(private.values)
    cf = read_card(card)
    report.extend(cf.findings)
    rf = read_reply(reply)
    if cf.data is None or rf.data is None:
        report.extend(rf.findings)
        reporter(fmt).findings(report)
        sys.exit(1)
    if compare is not None:
        report.extend(compare_replies(rf, read_reply(compare), cf.data,
                                      skill_id=skill_id, for_named_person=for_named_person,
                                      action=action, safeguards_hold=safeguards_hold))
    else:
        if request_extensions is not None:
            activated = EXTENSION_URI in activated_extensions(cf.data, request_extensions)
        if activated is None:
            marked = carries_object(rf)
            activated = marked
            click.echo(f"note: checked as {'' if marked else 'not '}activated, since the reply "
                       f"is {'' if marked else 'not '}marked; say --activated or "
                       "--not-activated to check OR-6.1 fully", err=True)
        report.extend(check_reply(rf, cf.data, activated=activated, skill_id=skill_id,
                                     for_named_person=for_named_person, action=action,
                                     safeguards_hold=safeguards_hold,
                                     response_extensions=response_extensions,
                                     private_values=values))
    reporter(fmt).findings(report)
    if fmt == "text":
        click.echo("the reply follows §5 and §6 as far as acap can check" if report.ok(strict)
                   else "the reply does NOT follow §5 and §6")
    sys.exit(0 if report.ok(strict) else 1)
