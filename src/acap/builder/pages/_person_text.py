"""What the personEntry page says about a skill, for the person reading it.

A skill's ``description`` is written for agents (AgentSkill.description):
"Checks director availability and books an arrangement meeting". The page is
read by a person (a bereaved family, a patient), so a skill may carry a
``forPeople`` text of the operator's, in plain words, and the page shows that
in place of the description (translated under
``page.translations.<tag>.skills.<id>.forPeople``).

Without one the page falls back on the description, cleaned by
:func:`clean_description`: a sentence that only says the information is given
to the person who asks, on request ("Given to the person who asks, on
request."), is dropped, because the page's lead and its "Why this page"
section already say so in acap's words.

Own code rather than a library: what counts as such a sentence is a small
word list per language acap has words for (English and French), nothing a
language library knows.
"""

from __future__ import annotations

import re

#: Words a sentence may be made of and still say no more than the page's lead does
#: (that the operator gives this to the person who asks, on request), by language.
#: A sentence with any other word ("chapel", "booking", "us") says something more and
#: stays.
_LEAD_WORDS: dict[str, frozenset[str]] = {
    "en": frozenset((
        # small words
        "a", "an", "the", "this", "it", "its", "that", "these", "those", "is", "are", "be",
        "will", "we", "our", "they", "them", "their", "to", "at", "by", "in", "on", "upon",
        "only", "just", "and", "or", "when", "here", "directly", "personally",
        # giving, on request
        "given", "give", "gives", "giving", "provided", "provide", "available", "shown",
        "told", "request", "requested", "requests",
        # to the person who asks, at the address
        "person", "persons", "people", "who", "whoever", "anyone", "someone", "asks", "ask",
        "asking", "asked", "information", "details", "address", "stated", "above",
        "personentry",
    )),
    "fr": frozenset((
        # petits mots
        "un", "une", "le", "la", "les", "l", "ce", "cet", "cette", "ces", "il", "elle",
        "ils", "elles", "est", "sont", "sera", "seront", "nous", "notre", "nos", "leur",
        "leurs", "à", "a", "au", "aux", "de", "des", "du", "d", "en", "sur", "par", "ici",
        "et", "ou", "quand", "uniquement", "seulement", "directement",
        # donné, sur demande
        "donné", "donnée", "donnés", "données", "donne", "donnons", "donnent", "fourni",
        "fournie", "fournis", "fournies", "disponible", "disponibles", "communiqué",
        "communiquée", "communiqués", "communiquées", "demande", "demandé", "demandée",
        "demandent", "demander",
        # à la personne qui le demande, à l'adresse indiquée
        "personne", "personnes", "qui", "quiconque", "information", "informations",
        "renseignement", "renseignements", "adresse", "indiquée", "indiquées", "ci",
        "dessus",
    )),
}
#: One of these must be in the sentence: it speaks of asking or of a request.
_MARKERS = frozenset({"request", "requested", "requests", "asks", "ask", "asking", "asked",
                      "demande", "demandé", "demandée", "demandent", "demander"})
_ALL_LEAD_WORDS = frozenset().union(*_LEAD_WORDS.values())
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+")
_WORD = re.compile(r"\w+", re.UNICODE)


def only_restates_the_lead(sentence: str) -> bool:
    """True when ``sentence`` says nothing but that the information is given to the
    person who asks, on request ("Given to the person who asks, on request.",
    "Available on request.", "Donné à la personne qui le demande.").

    Args:
        sentence: one sentence, in English or French (the word lists of both are
            used, so a mixed or unlabelled text is judged the same way).

    Returns:
        ``True`` if every word of it is one of those words and it names a request
        or asking; ``False`` for anything that says more, or for no words at all.
    """
    words = [w.lower() for w in _WORD.findall(sentence.replace("’", "'"))]
    return bool(words) and bool(_MARKERS.intersection(words)) and \
        all(w in _ALL_LEAD_WORDS for w in words)


def clean_description(text: str) -> str:
    """A skill description as the personEntry page shows it: without the sentences
    that only restate the page's lead (see :func:`only_restates_the_lead`), spaces
    collapsed.

    ``"Costs and inclusions of the chapel's services. Given to the person who asks,
    on request."`` -> ``"Costs and inclusions of the chapel's services."``

    Returns:
        The remaining text; empty when every sentence only restated the lead.
    """
    text = " ".join(text.split())
    kept = [s for s in _SENTENCE_END.split(text) if s and not only_restates_the_lead(s)]
    return " ".join(kept)
