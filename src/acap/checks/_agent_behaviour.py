"""Spec §5, agent behaviour, as far as a card or operator.yaml shows it: OR-5.5, OR-5.6,
OR-5.7, OR-5.9 and OR-5.10.

OR-5.1 to OR-5.4 and OR-5.8 are about replies (the reply checker); what a card
can show of §5 is here:
* OR-5.5: turning ``assistantAccess`` on accepts the assistant's own word (warning).
* OR-5.6 / OR-5.7: an action opened to assistants needs the four safeguards of
  OR-5.6, declared under ``safeguards`` in operator.yaml; each one missing is a
  warning, and OR-5.7 says what follows: the agent refers every such request.
* OR-5.9: sign-in is A2A's (``kind: sign-in`` with ``signIn``; securityRequirements
  in a card).
* OR-5.10: some skill tells a person how to reach staff (``reachesStaff: true``;
  in a card that declares the extension, read from the skills' words where the card's
  language is one acap has words for).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from acap.checks._facts import SkillFacts, Subject
from acap.checks._words import language_name, mentions, staff_languages, text_language
from acap.findings import Finding

#: OR-5.6 (a): the attestation level the trust framework calls "legal entity".
REQUIRED_ATTESTATION = 2


def assistant_access_accepts_assertion(sub: Subject) -> Iterator[Finding]:
    """OR-5.5: assistantAccess: true accepts the assistant's own assertion (operator.yaml).

    The spec asks that whatever turns ``assistantAccess`` on says so (the control the
    operator uses): this warning is that saying. Once the operator has read it, they
    acknowledge it with ``acceptAssistantsWord: true`` on the skill, which stays out of
    the card, and the warning is not given again (so that ``--strict`` can pass). The
    acknowledgment on a skill whose assistantAccess is not true has no effect: warned.
    """
    if sub.is_card:
        return
    for s in sub.skills:
        opened = s.entry is not None and s.data.get("assistantAccess") is True
        accepted = s.data.get("acceptAssistantsWord")
        if opened and accepted is not True:
            yield sub.finding("OR-5.5", "warning", f"assistantAccess: true on {s.label} gives it "
                              "to any assistant that says it acts for a person, and there is no "
                              "way yet to check that it does: you take the assistant's word for "
                              "it", s.field_ptr("assistantAccess"),
                              "if that is acceptable for this skill, write acceptAssistantsWord: "
                              "true beside it (it stays out of the card, and this warning goes); "
                              "if not, write assistantAccess: false")
        elif "acceptAssistantsWord" in s.data and not opened and \
                f"{s.ptr}/assistantAccess" not in sub.reported:
            why = ("the skill is not given to assistants (assistantAccess is not true)"
                   if s.entry is not None else "only an on-request skill is given to assistants")
            yield sub.finding("OR-5.5", "warning", f"acceptAssistantsWord on {s.label} has no "
                              f"effect: {why}", f"{s.ptr}/acceptAssistantsWord",
                              "remove acceptAssistantsWord" + (
                                  ", or set assistantAccess: true" if s.entry is not None
                                  else ""), key=True)


def missing_safeguards(g: dict[str, Any]) -> list[tuple[str, str, str]]:
    """What OR-5.6 still lacks, from operator.yaml's ``safeguards`` mapping of one skill, in
    plain words (the spec's terms, a level-2 attestation under the trust framework, are on
    the requirement's page, which the finding links to).

    Args:
        g: the ``safeguards`` mapping (``{}`` when none is declared).

    Returns:
        ``(letter, field, what is missing)`` for each condition (a) to (d) not met, e.g.
        ``("b", "reversibleByStaff", "a way for your staff to undo the change")``; empty
        when all four hold.
    """
    out = []
    level = g.get("attestationLevel")
    if not isinstance(level, int) or level < REQUIRED_ATTESTATION:
        now = f"you declare level {level}" if isinstance(level, int) else "none is declared"
        out.append(("a", "attestationLevel", "an independent check that your business is who "
                    f"it says it is (attestation level 2; {now})"))
    if g.get("reversibleByStaff") is not True:
        out.append(("b", "reversibleByStaff", "a way for your staff to undo the change"))
    if not g.get("staffNotified"):
        out.append(("b", "staffNotified", "a named member of staff who is told of each change"))
    if not g.get("limitPerAssistant"):
        out.append(("c", "limitPerAssistant", "a limit on the requests of each assistant"))
    if not g.get("limitTotal"):
        out.append(("c", "limitTotal", "a limit on the requests of all assistants together"))
    if g.get("personConfirms") is not True:
        out.append(("d", "personConfirms", "the person's own confirmation, on a screen they "
                    "see, of anything that cannot be undone"))
    return out


def action_safeguards(sub: Subject) -> Iterator[Finding]:
    """OR-5.6 and OR-5.7 at build: what an action opened to assistants still lacks."""
    for s in sub.skills:
        access = s.data.get("assistantAccess")
        if s.action is None or not isinstance(access, (bool, type(None))):
            continue  # action or assistantAccess is not true or false: reported already
        opened = s.entry is not None and access is True
        if "safeguards" in s.data and not (opened and s.action):
            yield sub.finding("OR-5.6", "warning", f"safeguards on {s.label} have no effect: they "
                              "apply to an action (action: true) opened to assistants "
                              "(assistantAccess: true)", f"{s.ptr}/safeguards",
                              "remove safeguards, or set action and assistantAccess", key=True)
        if not (opened and s.action):
            continue
        yield from _safeguards_of(sub, s)


def _safeguards_of(sub: Subject, s: SkillFacts) -> Iterator[Finding]:
    base = f"{s.ptr}/safeguards"
    if any(p == base or p.startswith(base + "/") for p in sub.reported):
        return  # what the safeguards say is not known: a fault in them is reported
    g = s.data.get("safeguards")
    g = g if isinstance(g, dict) else {}
    base = base if "safeguards" in s.data else s.field_ptr("assistantAccess")
    missing = missing_safeguards(g)
    for _letter, name, what in missing:
        ptr = f"{base}/{name}" if name in g else base
        yield sub.finding("OR-5.6", "warning", f"{s.label} lets assistants change something, "
                          f"but lacks {what}", ptr,
                          f"once you have it, declare safeguards.{name}", key=name not in g)
    if missing:
        yield sub.finding("OR-5.7", "warning", f"until {s.label} has every safeguard above, your "
                          "agent must not carry it out when an assistant asks: it sends the "
                          "assistant to the personEntry instead", s.field_ptr("assistantAccess"),
                          "make sure your agent does so; or put the safeguards in place and "
                          "declare them under safeguards")


def sign_in_is_a2a(sub: Subject) -> Iterator[Finding]:
    """OR-5.9: a skill needing sign-in declares it A2A's way."""
    for s in sub.skills:
        if not sub.is_card:
            if s.kind == "sign-in" and s.sign_in_ptr is None \
                    and f"{s.ptr}/signIn" not in sub.reported:
                yield sub.finding("OR-5.9", "error", f"sign-in {s.label} does not say how to "
                                  "sign in", f"{s.ptr}/kind", "add signIn: {<scheme name>: "
                                  "[<scope>]} naming a scheme under the top-level signIn")
                continue
            if s.kind == "public" and s.sign_in_ptr is not None:
                yield sub.finding("OR-5.9", "error", f"public {s.label} has signIn",
                                  s.sign_in_ptr, "make it kind: sign-in, or remove signIn",
                                  key=True)
                continue
        desc = s.data.get("description")
        if s.kind == "public" and isinstance(desc, str) and mentions("signIn", desc):
            fix = ("declare securityRequirements on the skill (A2A §4.4)" if sub.is_card
                   else "make it kind: sign-in with signIn, so the card declares it")
            yield sub.finding("OR-5.9", "warning", f"{s.label} says the person signs in, but "
                              "declares no securityRequirements", f"{s.ptr}/description", fix)


def staff_reachable(sub: Subject) -> Iterator[Finding]:
    """OR-5.10: a skill tells a person how to reach a member of staff (warning).

    In operator.yaml, from ``reachesStaff``, a fact the operator states. In a card, from
    the skills' words, and only where that can be judged (:func:`card_staff_judged`): for
    a card that declares the On Request extension (OR-5.10 is its requirement), written
    in a language acap has words for. A card in another language is not judged: that
    acap cannot read its words does not mean nobody can be reached."""
    if not sub.skills:
        return
    if sub.is_card:
        language = card_staff_judged(sub)
        if language is None:
            return
        yield sub.finding("OR-5.10", "warning", "no skill seems to tell a person how to reach a "
                          f"member of staff (a guess from the skills' words, read in "
                          f"{language_name(language)}, the card's language)",
                          "/skills", "add a skill whose description says how "
                          "(transfer, callback), when and in which languages; where nobody can "
                          "be reached, the agent must say so when asked")
        return
    if not any(s.reaches_staff is not False for s in sub.skills):
        yield sub.finding("OR-5.10", "warning", "no skill has reachesStaff: true: nothing tells a "
                          "person how to reach a member of staff", "/skills",
                          "add a skill with reachesStaff: true whose description says how "
                          "(transfer, callback), when and in which languages", key=True)


def card_staff_judged(sub: Subject) -> str | None:
    """For a card: the language (ISO 639-1) in which its skills' words were read and no
    skill says how to reach staff; ``None`` when OR-5.10 has nothing to say: the card
    does not declare the extension, a skill says how (in any language acap has words
    for), or the card's language is not one acap has words for."""
    if not sub.declarations:
        return None
    texts: list[str] = []
    for s in sub.skills:
        words = [s.data.get(k) for k in ("id", "name", "description")]
        tags = s.data.get("tags")
        words += [t for t in tags if isinstance(t, str)] if isinstance(tags, list) else []
        if any(isinstance(w, str) and mentions("reachesStaff", w.replace("-", " "))
               for w in words):
            return None
        texts += [w for w in words[1:] if isinstance(w, str)]
    language = text_language(" ".join(texts))
    return language if language in staff_languages() else None
