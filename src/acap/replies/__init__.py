"""Replies that follow the On Request extension's §5 and §6, for agent developers.

Decide, then build (A2A 1.0 JSON)::

    from acap.replies import Outcome, decide, refer_information

    d = decide(card, "service-pricing",
               request_extensions=headers.get("A2A-Extensions"), for_named_person=True)
    if d.outcome is Outcome.REFER_INFORMATION:
        reply = refer_information(d.skill, activated=d.activated, message_id="m-2",
                                  operator="Example Memorial Chapel", what="its prices")
    # send `reply`, with the response header A2A-Extensions: d.echo_header (if not None)

Check a reply::

    from acap.replies import check_reply
    findings = check_reply(reply, card, activated=True)

Parts: deciding (OR-5.1 to OR-5.8: what to do; the ``A2A-Extensions`` header), building
(§6: the Message, Task or Artifact), and checking a reply: where the §6.1 object is and
what it says (placement, OR-6.x) and what the agent did (behaviour, OR-5.x).

May import: :mod:`acap.checks`, :mod:`acap.card`, :mod:`acap.load` and the modules below.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from acap._lazy import exports

if TYPE_CHECKING:
    from acap.load import parse_reply as parse_reply, read_reply as read_reply
    from acap.replies._builder import (
        action_text as action_text,
        defer_action as defer_action,
        give_on_opt_in as give_on_opt_in,
        information_text as information_text,
        mark as mark,
        opt_in_artifact as opt_in_artifact,
        refer_action as refer_action,
        refer_information as refer_information,
        reply_object as reply_object,
    )
    from acap.replies._check import (
        carries_object as carries_object,
        check_reply as check_reply,
        compare_replies as compare_replies,
    )
    from acap.replies._decide import (
        ACTION_REFERRED as ACTION_REFERRED,
        GIVEN_ON_OPT_IN as GIVEN_ON_OPT_IN,
        ON_REQUEST as ON_REQUEST,
        Decision as Decision,
        OnRequestSkill as OnRequestSkill,
        Outcome as Outcome,
        Safeguards as Safeguards,
        activated_extensions as activated_extensions,
        decide as decide,
        on_request_skills as on_request_skills,
        operator_name as operator_name,
        parse_extensions_header as parse_extensions_header,
        skill_from_card as skill_from_card,
    )
    from acap.uris import EXTENSION_URI as EXTENSION_URI, EXTENSIONS_HEADER as EXTENSIONS_HEADER

__getattr__, __all__ = exports(__name__, {
    "acap.uris": ["EXTENSIONS_HEADER", "EXTENSION_URI"],
    "_decide": [
        "ACTION_REFERRED", "Decision", "GIVEN_ON_OPT_IN", "ON_REQUEST", "OnRequestSkill",
        "Outcome", "Safeguards", "activated_extensions", "decide", "on_request_skills",
        "operator_name", "parse_extensions_header", "skill_from_card",
    ],
    "_builder": [
        "action_text", "defer_action", "give_on_opt_in", "information_text", "mark",
        "opt_in_artifact", "refer_action", "refer_information", "reply_object",
    ],
    "_check": ["carries_object", "check_reply", "compare_replies"],
    "acap.load": ["parse_reply", "read_reply"],
})
