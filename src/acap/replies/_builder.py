"""Making replies that follow On Request §5 and §6, in A2A 1.0 JSON form.

Each function returns a JSON-ready ``dict`` with a2a.proto's camelCase field
names and enum names (``ROLE_AGENT``, ``TASK_STATE_COMPLETED``), ready to be
sent as a JSON-RPC ``result`` payload (wrap it as ``{"message": ...}`` or
``{"task": ...}``, A2A §9) or parsed into the SDK's types with
``google.protobuf.json_format.ParseDict``.

* :func:`refer_information`: the skill's information is not given; a Message
  says the operator gives it to the person who asks, and where (OR-5.3, §6.2
  row 1). Inside a task it is the final ``TaskStatus.message`` of a task in
  ``TASK_STATE_COMPLETED``.
* :func:`refer_action`: the action is not carried out; the Message says so and
  where the person can do it (OR-5.7, §6.2 row 2); a task ends
  ``TASK_STATE_REJECTED``.
* :func:`give_on_opt_in`: the information, as an Artifact of a task in
  ``TASK_STATE_COMPLETED`` (OR-5.4, §6.2 row 3); :func:`opt_in_artifact` makes the
  Artifact alone (for a ``TaskArtifactUpdateEvent`` when streaming).
* :func:`defer_action`: an action carried out under OR-5.6 whose completion is
  deferred: the task stays ``TASK_STATE_WORKING`` and the text says it is not done
  yet (OR-5.8).

When ``activated`` is true (the request's ``A2A-Extensions`` listed the URI, see
:func:`acap.replies._decide`), the Message or Artifact carries the §6.1 object in
``metadata`` under the extension URI and lists the URI in ``extensions``
(OR-6.1, Annex C item 3). The text is the same either way (OR-5.1, OR-6.2).

Misuse (text that does not give the personEntry, a deferred action text that
says it is done) raises :class:`~acap.errors.ReplyError` (a ValueError): that is a bug in
the agent, not a user error.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from acap.errors import ReplyError
from acap.replies._decide import (
    ACTION_REFERRED,
    COMPLETED,
    GIVEN_ON_OPT_IN,
    ON_REQUEST,
    REJECTED,
    STATUSES,
    WORKING,
    OnRequestSkill,
)
from acap.replies._text import (
    claims_done,
    denies_existence,
    display_person_entry,
    mentions_person_entry,
)
from acap.uris import EXTENSION_URI

ROLE_AGENT = "ROLE_AGENT"

JSON = dict[str, Any]


def reply_object(skill: OnRequestSkill, status: str, *,
                 include_person_entry: bool = True) -> JSON:
    """The §6.1 object: ``{"status", "skillId", "personEntry"}``.

    Args:
        skill: the on-request skill concerned.
        status: ``on-request``, ``action-referred`` or ``given-on-opt-in``.
        include_person_entry: only for ``given-on-opt-in``, where personEntry is
            optional (MAY); the two referral statuses always carry it.

    Raises:
        ReplyError: ``status`` is not a §6.1 status.
    """
    if status not in STATUSES:
        raise ReplyError(f"{status!r} is not a §6.1 status ({', '.join(STATUSES)})")
    obj: JSON = {"status": status, "skillId": skill.id}
    if status != GIVEN_ON_OPT_IN or include_person_entry:
        obj["personEntry"] = skill.person_entry
    return obj


def mark(target: Mapping[str, Any], obj: Mapping[str, Any]) -> JSON:
    """A copy of a Message or Artifact carrying the §6.1 object (OR-6.1).

    Adds the extension URI to ``extensions`` (once) and puts ``obj`` in
    ``metadata`` under the URI, keeping any other extensions and metadata.

    Args:
        target: a Message or Artifact (JSON form).
        obj: the §6.1 object, from :func:`reply_object`.
    """
    out: JSON = copy.deepcopy(dict(target))
    exts = list(out.get("extensions") or [])
    if EXTENSION_URI not in exts:
        exts.append(EXTENSION_URI)
    out["extensions"] = exts
    meta = dict(out.get("metadata") or {})
    meta[EXTENSION_URI] = dict(obj)
    out["metadata"] = meta
    return out


def _message(message_id: str, text: str, context_id: str | None) -> JSON:
    msg: JSON = {"messageId": message_id}
    if context_id:
        msg["contextId"] = context_id
    msg["role"] = ROLE_AGENT
    msg["parts"] = [{"text": text}]
    return msg


def _task(task_id: str, context_id: str, state: str, message: JSON | None = None,
          artifacts: Sequence[JSON] = ()) -> JSON:
    status: JSON = {"state": state}
    if message is not None:
        status["message"] = message
    task: JSON = {"id": task_id, "contextId": context_id, "status": status}
    if artifacts:
        task["artifacts"] = list(artifacts)
    return task


def _check_referral_text(text: str, skill: OnRequestSkill) -> None:
    if not mentions_person_entry(text, skill.person_entry):
        raise ReplyError(f"the reply text must give the personEntry {skill.person_entry} "
                         "(OR-5.3, OR-5.7, OR-6.2)")
    phrase = denies_existence(text)
    if phrase:
        raise ReplyError(f"the reply text reads as if the information did not exist "
                         f"({phrase!r}); say that it is given on request (OR-5.3)")


def _referral(skill: OnRequestSkill, status: str, text: str, *, activated: bool,
              message_id: str, task_id: str | None, context_id: str | None) -> JSON:
    _check_referral_text(text, skill)
    if task_id is not None and not context_id:
        raise ReplyError("a Task needs its contextId as well as its id")
    msg = _message(message_id, text, context_id if task_id is None else None)
    if activated:
        msg = mark(msg, reply_object(skill, status))
    if task_id is None:
        return msg
    assert context_id is not None
    return _task(task_id, context_id, COMPLETED if status == ON_REQUEST else REJECTED, msg)


#: The agent's own sentences in English, as acap's words/en.yaml has them (a test keeps
#: the two the same); each is followed by the address where the person asks.
ENGLISH = {
    "referInformation": "{operator} gives this information to the person who asks. "
                        "You can ask here:",
    "referAction": "I can't do this for you. The person can ask for it here:",
    "deferredAccepted": "Your request has been passed to {operator}'s staff, who will "
                        "complete it. It is not done yet. To follow up:",
}


@dataclass(frozen=True)
class ReplyWords:
    """The agent's own sentences in one language: the words files' ``referInformation``
    (OR-5.3), ``referAction`` (OR-5.7) and ``deferredAccepted`` (OR-5.8), which ``acap
    build`` copies into the agent policy for each page language.

    Attributes:
        language: the language tag (``es``).
        texts: ``{key: text}`` with ``{operator}`` unfilled; a key missing is English.
    """

    language: str = "en"
    texts: Mapping[str, str] | None = None

    def _say(self, key: str, skill: OnRequestSkill, operator: str) -> str:
        text = (self.texts or {}).get(key) or ENGLISH[key]
        # str.replace, not str.format: an operator name is never read as a format
        return f"{text.replace('{operator}', operator)} {display_person_entry(skill.person_entry)}"

    def information(self, skill: OnRequestSkill, operator: str) -> str:
        """The OR-5.3 referral: ``"<operator> gives this information to the person who asks.
        You can ask here: <personEntry>"`` in this language."""
        return self._say("referInformation", skill, operator)

    def action(self, skill: OnRequestSkill, operator: str) -> str:
        """The OR-5.7 referral: ``"I can't do this for you. The person can ask for it here:
        <personEntry>"`` in this language."""
        return self._say("referAction", skill, operator)

    def deferred(self, skill: OnRequestSkill, operator: str) -> str:
        """An action passed to staff (OR-5.8): ``"Your request has been passed to
        <operator>'s staff, who will complete it. It is not done yet. To follow up:
        <personEntry>"`` in this language."""
        return self._say("deferredAccepted", skill, operator)


def information_text(skill: OnRequestSkill, operator: str, what: str = "this") -> str:
    """The default OR-5.3 text.

    ``"<operator> gives <what> to the person who asks. You can ask here: <personEntry>"``.
    A ``tel:`` personEntry is written as a person dials it (``+44 20 7946 0000``).
    """
    return (f"{operator} gives {what} to the person who asks. "
            f"You can ask here: {display_person_entry(skill.person_entry)}")


def action_text(skill: OnRequestSkill, action: str = "do this",
                person_can: str = "ask for it") -> str:
    """The default OR-5.7 text.

    ``"I can't <action> for you. The person can <person_can> here: <personEntry>"``.
    """
    return (f"I can't {action} for you. The person can {person_can} here: "
            f"{display_person_entry(skill.person_entry)}")


def refer_information(skill: OnRequestSkill, *, activated: bool, message_id: str,
                      text: str | None = None, operator: str | None = None,
                      what: str = "this", task_id: str | None = None,
                      context_id: str | None = None) -> JSON:
    """Refer a request for on-request information to the person (OR-5.3, OR-5.4; §6.2 row 1).

    Args:
        skill: the on-request skill asked for.
        activated: the request activated the extension (mark the Message, OR-6.1).
        message_id: ``Message.messageId``.
        text: the reply text; default :func:`information_text` (needs ``operator``).
            It must give the personEntry and must not read as if the information
            did not exist.
        operator: the operator's name for the default text (``AgentCard.provider.organization``).
        what: what is given on request, for the default text (``"its prices"``).
        task_id, context_id: when the agent made a task: the Task's ids. The Message
            is then the final ``TaskStatus.message`` and the state ``TASK_STATE_COMPLETED``.

    Returns:
        A Message (no task) or a Task, as JSON. With ``operator="Example Memorial
        Chapel"``, ``what="its prices"``, ``message_id="m-2"`` and ``activated=True``
        for the Annex A.1 ``service-pricing`` skill it is the spec's Annex A.2.

    Raises:
        ReplyError: no text and no operator; the text fails OR-5.3/OR-6.2; a task id
            without a context id.
    """
    if text is None:
        if operator is None:
            raise ReplyError("give the reply text, or the operator's name for the default text")
        text = information_text(skill, operator, what)
    return _referral(skill, ON_REQUEST, text, activated=activated, message_id=message_id,
                     task_id=task_id, context_id=context_id)


def refer_action(skill: OnRequestSkill, *, activated: bool, message_id: str,
                 text: str | None = None, action: str = "do this",
                 person_can: str = "ask for it", task_id: str | None = None,
                 context_id: str | None = None) -> JSON:
    """Refuse to carry out an action and refer the person (OR-5.7; §6.2 row 2).

    Args:
        skill, activated, message_id: as :func:`refer_information`.
        text: the reply text; default :func:`action_text`. It must say the action was
            not done and give the personEntry.
        action, person_can: words for the default text (``"book this meeting"``, ``"book it"``).
        task_id, context_id: when the agent made a task; it ends ``TASK_STATE_REJECTED``.

    Returns:
        A Message or a Task, as JSON. With ``action="book this meeting"``,
        ``person_can="book it"``, ``message_id="m-7"``, ``task_id="t-41"``,
        ``context_id="c-9"`` for ``arrangement-booking`` it is the spec's Annex A.3.

    Raises:
        ReplyError: the text does not give the personEntry; a task id without a context id.
    """
    if text is None:
        text = action_text(skill, action, person_can)
    return _referral(skill, ACTION_REFERRED, text, activated=activated, message_id=message_id,
                     task_id=task_id, context_id=context_id)


def opt_in_artifact(skill: OnRequestSkill, *, activated: bool, artifact_id: str,
                    text: str | None = None, parts: Sequence[Mapping[str, Any]] | None = None,
                    name: str | None = None, description: str | None = None,
                    include_person_entry: bool = True) -> JSON:
    """The Artifact that carries information given on opt-in (OR-5.4; §6.2 row 3).

    Args:
        skill: an on-request skill with ``assistant_access`` true.
        activated: mark the Artifact with ``given-on-opt-in`` (OR-6.1).
        artifact_id: ``Artifact.artifactId``.
        text: the information as text, or
        parts: the Artifact's Parts (A2A 1.0 JSON), when not plain text.
        name, description: optional Artifact fields.
        include_person_entry: put personEntry in the §6.1 object so the person can
            follow up (MAY).

    Raises:
        ReplyError: the skill is not opened to assistants (OR-5.4); neither or both of
            ``text`` and ``parts``.
    """
    if not skill.assistant_access:
        raise ReplyError(f"{skill.id} is not opened to assistants (assistantAccess is not true); "
                         "refer instead (OR-5.3, OR-5.4)")
    if (text is None) == (parts is None):
        raise ReplyError("give exactly one of text and parts")
    art: JSON = {"artifactId": artifact_id}
    if name:
        art["name"] = name
    if description:
        art["description"] = description
    art["parts"] = [{"text": text}] if text is not None else [dict(p) for p in parts or ()]
    if not art["parts"]:
        raise ReplyError("an Artifact needs at least one Part")
    if activated:
        art = mark(art, reply_object(skill, GIVEN_ON_OPT_IN,
                                     include_person_entry=include_person_entry))
    return art


def give_on_opt_in(skill: OnRequestSkill, *, activated: bool, task_id: str, context_id: str,
                   artifact_id: str, text: str | None = None,
                   parts: Sequence[Mapping[str, Any]] | None = None, name: str | None = None,
                   description: str | None = None, include_person_entry: bool = True) -> JSON:
    """Give on-request information to an assistant for a named person (OR-5.4; §6.2 row 3).

    Call it only when :func:`acap.replies._decide` says ``GIVE_ON_OPT_IN``.

    Returns:
        A Task in ``TASK_STATE_COMPLETED`` with one Artifact (see :func:`opt_in_artifact`).
        With the ids, name and text of Annex A.4 it is Annex A.4.

    Raises:
        ReplyError: as :func:`opt_in_artifact`.
    """
    art = opt_in_artifact(skill, activated=activated, artifact_id=artifact_id, text=text,
                          parts=parts, name=name, description=description,
                          include_person_entry=include_person_entry)
    return _task(task_id, context_id, COMPLETED, artifacts=[art])


def defer_action(skill: OnRequestSkill, *, message_id: str, task_id: str, context_id: str,
                 text: str | None = None, operator: str | None = None) -> JSON:
    """Accept an action carried out under OR-5.6 that staff complete later (OR-5.8).

    The task stays ``TASK_STATE_WORKING`` (A2A: still being processed); the agent
    moves it to ``TASK_STATE_COMPLETED`` only when staff have finished. The reply
    is not marked: §6.1 has no status for an action carried out (§9, item 2).

    Args:
        skill: an on-request action with ``completion: deferred``.
        text: default: the request has been passed on to the operator's staff and is
            not done yet, with the personEntry for follow-up.
        operator: the operator's name for the default text.

    Raises:
        ReplyError: the skill is not deferred; the text says the action is done.
    """
    if not skill.deferred:
        raise ReplyError(f"{skill.id} is not declared with completion: deferred")
    if text is None:
        who = f"{operator}'s staff" if operator else "a member of staff"
        text = (f"Your request has been passed to {who}, who will complete it. It is not done "
                f"yet. To follow up: {display_person_entry(skill.person_entry)}")
    phrase = claims_done(text)
    if phrase:
        raise ReplyError(f"the text says the action is done ({phrase!r}); completion is "
                         "deferred (OR-5.8)")
    return _task(task_id, context_id, WORKING, _message(message_id, text, None))
