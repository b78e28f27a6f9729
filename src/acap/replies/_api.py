"""Replies that follow the On Request extension's §5 and §6, for agent developers.

Decide, then build (A2A 1.0 JSON)::

    from acap.replies._api import decide, refer_information, Outcome

    d = decide(card, "service-pricing",
               request_extensions=headers.get("A2A-Extensions"), for_named_person=True)
    if d.outcome is Outcome.REFER_INFORMATION:
        reply = refer_information(d.skill, activated=d.activated, message_id="m-2",
                                  operator="Example Memorial Chapel", what="its prices")
    # send `reply`, with the response header A2A-Extensions: d.echo_header (if not None)

Check a reply (imports the JSON Schema machinery, so it lives in its own module)::

    from acap.replies._check import check_reply
    findings = check_reply(reply, card, activated=True)

Modules: :mod:`.decide` (OR-5.1 to OR-5.8: what to do; the ``A2A-Extensions``
header), :mod:`.builder` (§6: the Message, Task or Artifact), :mod:`.text`
(what the words say), :mod:`.check` and :mod:`.view` (the reply checker).
"""

from __future__ import annotations

from acap.replies._builder import (
    action_text,
    defer_action,
    give_on_opt_in,
    information_text,
    mark,
    opt_in_artifact,
    refer_action,
    refer_information,
    reply_object,
)
from acap.replies._decide import (
    ACTION_REFERRED,
    EXTENSION_URI,
    EXTENSIONS_HEADER,
    GIVEN_ON_OPT_IN,
    ON_REQUEST,
    Decision,
    OnRequestSkill,
    Outcome,
    Safeguards,
    activated_extensions,
    decide,
    on_request_skills,
    operator_name,
    parse_extensions_header,
    skill_from_card,
)

__all__ = [
    "ACTION_REFERRED",
    "EXTENSIONS_HEADER",
    "EXTENSION_URI",
    "GIVEN_ON_OPT_IN",
    "ON_REQUEST",
    "Decision",
    "OnRequestSkill",
    "Outcome",
    "Safeguards",
    "action_text",
    "activated_extensions",
    "decide",
    "defer_action",
    "give_on_opt_in",
    "information_text",
    "mark",
    "on_request_skills",
    "operator_name",
    "opt_in_artifact",
    "parse_extensions_header",
    "refer_action",
    "refer_information",
    "reply_object",
    "skill_from_card",
]
