"""Replies that follow the On Request extension's §5 and §6, for agent developers.

Decide, then build (A2A 1.0 JSON)::
    from acap.replies import Outcome, decide, refer_information

    d = decide(card, "service-pricing",
               request_extensions=headers.get("A2A-Extensions"), for_named_person=True)
    if d.outcome is Outcome.REFER_INFORMATION:
        reply = refer_information(d.skill, activated=d.activated, message_id="m-2",
                                  operator="Example Memorial Chapel", what="its prices")
    # send `reply`, with the response header A2A-Extensions: d.echo_header (if not None)

Check a reply (a path, an https URL, JSON bytes, parsed JSON or a2a-sdk objects; the card
likewise)::
    from acap.replies import check_reply
    result = check_reply(reply, card, activated=True)
    if not result.ok:
        for finding in result.findings: ...

Parts: deciding (OR-5.1 to OR-5.8: what to do; the ``A2A-Extensions`` header), building
(§6: the Message, Task or Artifact), and checking a reply: where the §6.1 object is and
what it says (placement, OR-6.x) and what the agent did (behaviour, OR-5.x). What a reply
gives away is read once for every judge of it (``reading_of``, ``find_leaks``: the egress
guard of :mod:`acap.agent`, ``acap probe`` and ``acap check-reply``).

May import: :mod:`acap.checks`, :mod:`acap.card`, :mod:`acap.load` and the modules below.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from acap._lazy import exports

if TYPE_CHECKING:
    from acap.load import parse_reply as parse_reply
    from acap.load import read_reply as read_reply
    from acap.replies._builder import ReplyWords as ReplyWords
    from acap.replies._builder import action_text as action_text
    from acap.replies._builder import defer_action as defer_action
    from acap.replies._builder import give_on_opt_in as give_on_opt_in
    from acap.replies._builder import information_text as information_text
    from acap.replies._builder import mark as mark
    from acap.replies._builder import opt_in_artifact as opt_in_artifact
    from acap.replies._builder import refer_action as refer_action
    from acap.replies._builder import refer_information as refer_information
    from acap.replies._builder import reply_object as reply_object
    from acap.replies._check import ReplyCheck as ReplyCheck
    from acap.replies._check import carries_object as carries_object
    from acap.replies._check import check_reply as check_reply
    from acap.replies._check import compare_replies as compare_replies
    from acap.replies._check import reply_text as reply_text
    from acap.replies._checking import sdk_to_json as sdk_to_json
    from acap.replies._decide import ACTION_REFERRED as ACTION_REFERRED
    from acap.replies._decide import GIVEN_ON_OPT_IN as GIVEN_ON_OPT_IN
    from acap.replies._decide import ON_REQUEST as ON_REQUEST
    from acap.replies._decide import Decision as Decision
    from acap.replies._decide import OnRequestSkill as OnRequestSkill
    from acap.replies._decide import Outcome as Outcome
    from acap.replies._decide import Safeguards as Safeguards
    from acap.replies._decide import activated_extensions as activated_extensions
    from acap.replies._decide import decide as decide
    from acap.replies._decide import on_request_skills as on_request_skills
    from acap.replies._decide import operator_name as operator_name
    from acap.replies._decide import parse_extensions_header as parse_extensions_header
    from acap.replies._decide import skill_from_card as skill_from_card
    from acap.replies._language import choose_language as choose_language
    from acap.replies._leaks import READERS as READERS
    from acap.replies._leaks import Leak as Leak
    from acap.replies._leaks import find_leaks as find_leaks
    from acap.replies._leaks import fold as fold
    from acap.replies._leaks import may_continue as may_continue
    from acap.replies._published import ReplyReading as ReplyReading
    from acap.replies._reading import Piece as Piece
    from acap.replies._reading import Reading as Reading
    from acap.replies._reading import reading_of as reading_of
    from acap.replies._reading import sdk_ids as sdk_ids
    from acap.replies._text import claims_done as claims_done
    from acap.uris import EXTENSION_URI as EXTENSION_URI
    from acap.uris import EXTENSIONS_HEADER as EXTENSIONS_HEADER

__getattr__, __dir__ = exports(__name__)
