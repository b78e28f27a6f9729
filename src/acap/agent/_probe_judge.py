"""``acap probe``'s verdicts on what a live agent answered (the requests are
:mod:`acap.agent._probe`'s).

* **A pair** (the same prompt without and with ``A2A-Extensions``, from a caller acting for
  nobody): as :func:`acap.replies.compare_replies` judges it, the one judgement of each
  fact that ``acap check-reply`` makes too (OR-5.1, its words a warning; OR-5.3 and OR-5.7
  with the operator's private values; OR-5.8, its words a warning; OR-6.1, OR-6.2, the
  §6.2 task state, the ``A2A-Extensions`` echo), and the leaks below.
* **A named person's request** (``--as-named-person``: acap's provisional assertion,
  :mod:`acap.agent._assertion`): as :func:`acap.replies.check_reply` judges it for a caller
  acting for a named person (OR-5.4, OR-5.6 to OR-5.8), and the leaks below for what is
  not opened to assistants.
* **Leaks**, what only the probe knows: it asked the skill's own example question, as a
  caller not entitled to the answer, so an amount of money in the answer is the
  information given, not a guess: an error under the extension's ids (OR-5.3 for
  information not opened to assistants, OR-5.4 for information opened but asked by a
  caller acting for nobody, OR-5.7 for an action), as is a value of ``--private-values``
  of any skill (the reply checker's finding of the skill's own is not said twice). The
  whole reply is read as the egress guard reads it (:func:`acap.replies.reading_of`,
  :func:`acap.replies.find_leaks`: every string, number, key, id, metadata, history
  message, raw part and file part of every event, folded and joined across events), but
  the ids the SDK made (UUID task and context ids) and the probe's own message. A part
  acap cannot read is a warning (it cannot tell what the part gives). The reply
  checker's "amount of money" warning on the same reply is then left out: the error says
  more.
* **Reaching a person** (OR-5.10's MUST half): where the card has no skill saying how to
  reach staff, the probe asks to speak to a member of staff in the card's language. No
  words at all is an error; words that do not seem to speak of reaching a person (none of
  acap's ``reachesStaff`` phrases) a warning, as a heuristic.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from acap.checks import PrivateValue, mentions
from acap.findings import Finding, Location
from acap.load import shorten
from acap.replies import (
    Leak,
    OnRequestSkill,
    check_reply,
    compare_replies,
    find_leaks,
    reading_of,
    sdk_ids,
)

__all__ = ["STAFF_PROMPTS", "Exchange", "judge_named", "judge_pair", "judge_staff"]

#: The question the probe asks to reach a person, in each language acap reads skills in
#: (heuristic-words.json's ``reachesStaff`` languages).
STAFF_PROMPTS = {
    "en": "Can I speak to a member of staff?",
    "fr": "Puis-je parler à un membre du personnel ?",
    "de": "Kann ich mit einem Mitarbeiter sprechen?",
    "es": "¿Puedo hablar con una persona del personal?",
    "nl": "Kan ik met een medewerker spreken?",
    "it": "Posso parlare con un operatore?",
    "pt": "Posso falar com um atendente?",
}


@dataclass
class Exchange:
    """One request and what came back.

    Attributes:
        skill_id: the skill asked (``""`` for the request to reach a person).
        prompt: what was asked.
        mode: ``unary`` (``SendMessage``) or ``streaming`` (``SendStreamingMessage``).
        activated: the request's ``A2A-Extensions`` named the extension.
        reply: the events received, as A2A 1.0 JSON (one for unary), or ``None``.
        echo: the response's ``A2A-Extensions`` header (``""`` when absent), or ``None``.
        error: why there is no reply, or ``None``.
        named: the request asserted a named person (``--as-named-person``).
        sent: the message the probe sent, as A2A JSON (a Task's history may repeat it:
            that is not read as the agent's).
    """

    skill_id: str
    prompt: str
    mode: str
    activated: bool
    reply: list[dict[str, Any]] | None = None
    echo: str | None = None
    error: str | None = None
    named: bool = False
    sent: dict[str, Any] | None = None


def _leak_rule(skill: OnRequestSkill) -> str:
    if skill.declared_action:
        return "OR-5.7"
    return "OR-5.4" if skill.assistant_access else "OR-5.3"


def _leak_finding(rule: str, lk: Leak, skill: OnRequestSkill, place: str) -> Finding:
    """A leak the probe found, as a finding under ``rule`` (never the private value)."""
    at = Location(place, pointer=lk.pointer or None)
    refer = f"refer the person to {skill.person_entry}"
    if lk.value is not None:
        what = "a value" if lk.level == "error" else \
            "the number of a value (alone, it may be a year or a street number)"
        return Finding(rule, lk.level, f"the reply gives {what} the operator gives on request "
                       f"({lk.value.ref}) to a caller not entitled to it", at,
                       f"never give on-request values to such a caller; {refer}")
    if lk.kind == "amount":
        return Finding(rule, "error", "the reply names an amount of money "
                       f"({shorten(lk.shown, 40)}) in answer to {skill.id}, which this caller "
                       "is not entitled to", at,
                       f"{refer}: say where to ask, give nothing of the information")
    return Finding(rule, "warning", f"the reply to {skill.id}, which this caller is not "
                   f"entitled to, carries {lk.why} (a guess: acap cannot tell whether it "
                   "gives the information)", at, f"{refer} in words alone")


def leaks(replies: Mapping[str, Exchange], skill: OnRequestSkill,
          values: Sequence[PrivateValue], entitled: bool,
          reported: Sequence[Finding] = ()) -> list[Finding]:
    """What only the probe judges of a reply (module docstring): an amount of money, a
    value of any skill, or a part acap cannot read, reaching a caller not entitled to them.

    Args:
        replies: ``{place: exchange}``, the place as findings name it.
        skill: the skill asked.
        values: the operator's private values (all skills').
        entitled: the caller may have this skill's information (a named person, the skill
            opened): its values and amounts are then no leak.
        reported: the reply checker's findings on the same replies: a value it reported
            at a place is not reported again.
    """
    rule = _leak_rule(skill)
    found: list[Finding] = []
    mine = [v for v in values if not (entitled and v.skill == skill.id)]
    for place, ex in replies.items():
        said = [f for f in reported if f.location.file == place]
        reading = reading_of(ex.reply, exempt=sdk_ids(ex.reply),
                             own=[ex.sent] if ex.sent else ())
        given = False
        for lk in find_leaks(reading, mine, any_amount=not entitled, locate=True):
            if lk.value is not None and any(lk.value.ref in f.message for f in said):
                given |= lk.level == "error"
                continue  # the reply checker said it
            if lk.kind == "amount" and (given or any(
                    f.level == "error" and v.ref in f.message for f in said for v in values)):
                continue  # a value given says more
            if lk.kind in ("unreadable", "unsure") and \
                    any("cannot read" in f.message for f in said):
                continue
            given |= lk.kind == "value" and lk.level == "error"
            found.append(_leak_finding(rule, lk, skill, place))
    return found


def _request_errors(exchanges: Sequence[Exchange], where: str,
                    stopped: str | None) -> list[Finding]:
    out = []
    for ex in exchanges:
        if ex.error is not None and ex.error != stopped:
            how = "as a named person" if ex.named else \
                ("with" if ex.activated else "without") + " A2A-Extensions"
            out.append(Finding("PROBE-REQUEST", "error", f"{how} the agent gave no reply: "
                               f"{ex.error}", Location(where), "the agent must answer every "
                               "request, referring on-request skills to personEntry"))
    return out


def _without_amount_warnings(found: list[Finding], leaked: list[Finding]) -> list[Finding]:
    """The reply checker's "amount of money" warnings where the probe reports the same
    reply's leak as an error (the error says more)."""
    places = {str(f.location) for f in leaked if f.level == "error"}
    return [f for f in found if not (f.level == "warning" and "amount of money" in f.message
                                     and any(str(f.location).startswith(p) for p in places))]


def judge_pair(card: Mapping[str, Any], skill: OnRequestSkill, label: str, interface: str,
               plain: Exchange, active: Exchange, values: Sequence[PrivateValue],
               stopped: str | None) -> list[Finding] | None:
    """The findings of one pair of replies (module docstring); ``None`` when the pair was
    not run (the probe stopped before either was answered)."""
    where = f"{label} ({interface})"
    found = _request_errors((plain, active), where, stopped)
    if plain.reply is None or active.reply is None:
        return found or None
    sources = (f"{label}, activated", f"{label}, not activated")
    found += compare_replies(active.reply, plain.reply, card, skill_id=skill.id,
                             for_named_person=False, private_values=values, sources=sources,
                             response_extensions=(active.echo, plain.echo)).findings
    leaked = leaks({sources[0]: active, sources[1]: plain}, skill, values, False, found)
    return _without_amount_warnings(found, leaked) + leaked


def judge_named(card: Mapping[str, Any], skill: OnRequestSkill, label: str, interface: str,
                ex: Exchange, values: Sequence[PrivateValue],
                stopped: str | None) -> list[Finding] | None:
    """The findings of a named person's request (module docstring); ``None`` when not run."""
    found = _request_errors((ex,), f"{label} ({interface})", stopped)
    if ex.reply is None:
        return found or None
    found += check_reply(ex.reply, card, activated=True, skill_id=skill.id,
                         for_named_person=True, response_extensions=ex.echo,
                         private_values=values if not skill.assistant_access else (),
                         source=label).findings
    leaked = leaks({label: ex}, skill, values, skill.assistant_access, found)
    return _without_amount_warnings(found, leaked) + leaked


def judge_staff(label: str, interface: str, ex: Exchange,
                stopped: str | None) -> list[Finding] | None:
    """OR-5.10: the answer to "can I speak to a member of staff?" where the card names no
    way to reach one (module docstring); ``None`` when not run."""
    found = _request_errors((ex,), f"{label} ({interface})", stopped)
    if ex.reply is None:
        return found or None
    text = " ".join(reading_of(ex.reply, own=[ex.sent] if ex.sent else ()).words().split())
    hint = ("where nobody can be reached, say so when asked; where someone can, add a skill "
            "whose description says how (transfer, callback), when and in which languages")
    if not text:
        found.append(Finding("OR-5.10", "error", "asked to speak to a member of staff, the "
                             "agent said nothing in words", Location(label), hint))
    elif not mentions("reachesStaff", text):
        found.append(Finding("OR-5.10", "warning", "asked to speak to a member of staff, the "
                             "agent's reply does not seem to say whether a person can be "
                             f"reached ({shorten(text, 80)!r}; a heuristic: check the words)",
                             Location(label), hint))
    return found
