"""``acap check-reply``: does an agent's reply follow On Request §5 and §6?"""

from __future__ import annotations

import sys

import click

from acap.cli._commands._common import format_option, reporter


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
@format_option
def check_reply(reply: str, card: str, activated: bool | None, request_extensions: str | None,
                response_extensions: str | None, skill_id: str | None,
                for_named_person: bool | None, action: bool | None,
                safeguards_hold: bool | None, compare: str | None, operator: str | None,
                strict: bool, fmt: str) -> None:
    """Check REPLY (a Message, Task or JSON-RPC response, as JSON) against CARD."""
    # start-up: the reply checker loads when the command runs, not when click lists it
    from acap.replies import check_reply as run_check
    from acap.replies import compare_replies  # start-up: as above

    if activated is not None and request_extensions is not None:
        raise click.UsageError("give --activated/--not-activated or --request-extensions, "
                               "not both")
    if compare is not None and activated is False:
        raise click.UsageError("with --compare, REPLY is the activated reply")
    if compare is not None:
        result = compare_replies(reply, compare, card, skill_id=skill_id,
                                 for_named_person=for_named_person, action=action,
                                 safeguards_hold=safeguards_hold, operator=operator)
    else:
        result = run_check(reply, card, activated=activated,
                           request_extensions=request_extensions,
                           response_extensions=response_extensions, skill_id=skill_id,
                           for_named_person=for_named_person, action=action,
                           safeguards_hold=safeguards_hold, operator=operator)
    reporter(fmt, strict).reply_check(result, strict)
    sys.exit(0 if result.passes(strict) else 1)
