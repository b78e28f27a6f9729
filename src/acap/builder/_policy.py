"""The agent's runtime policy: what an agent needs from operator.yaml that the card does not
carry, written by ``acap build`` beside the signing key and never published.

The card says which skills are on request, where a person asks and whether assistants
may have them (§3). It does not say which skills are public or need sign-in in
operator.yaml's words, nor whether the four conditions of OR-5.6 hold for an action
opened to assistants: those are facts about the operator, kept out of the card on
purpose. An agent that restated them in code would let them drift from operator.yaml,
so the build writes them here and :mod:`acap.agent` reads them with the card.

The file is ``.acap/<operator file's stem>.agent-policy.json`` beside the operator file
(``operator.yaml`` -> ``.acap/operator.agent-policy.json``): outside site/, so no publish
target and no static host ever gets it, and in the folder ``acap init``'s ``.gitignore``
keeps out of git. It is written only after site/ was replaced, and names the SHA-256 of
the card it goes with, so that an agent never pairs it with another build's card::

    {"acap": version, "card": card URL, "cardSha256": hex,
     "operator": provider.organization,
     "languages": [page.languages, the operator's own first],
     "words": {tag: {"referInformation" | "referAction" | "deferredAccepted": text}},
     "skills": {id: {"kind": "public" | "on-request" | "sign-in",
                     "action": bool, "completion": "in-conversation" | "deferred",
                     "safeguards": {as declared in operator.yaml},
                     "safeguardsHold": {"a": bool, "b": bool, "c": bool, "d": bool}}}}

``action``, ``completion``, ``safeguards`` and ``safeguardsHold`` are given for
on-request skills only. ``words`` are the agent's own sentences in each language, from
the page's words files (:func:`acap.builder.pages.reply_words`), ``{operator}`` unfilled;
a policy without them (an older build) gives English. This module is the one writer and
the one reader of the format.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acap._package import __version__
from acap.checks import missing_safeguards
from acap.errors import AcapError, FileRefused
from acap.load import OperatorConfig, Root, given_root, read_file

__all__ = ["AgentPolicy", "SkillPolicy", "agent_policy", "policy_bytes", "policy_path_for",
           "read_agent_policy"]

#: The folder beside the operator file that holds the key and the policy (git-ignored).
POLICY_DIR = ".acap"
_KINDS = ("public", "on-request", "sign-in")
_LETTERS = ("a", "b", "c", "d")


def policy_path_for(config: Path) -> Path:
    """Where ``acap build`` writes the policy of an operator file:
    ``dir/operator.yaml`` -> ``dir/.acap/operator.agent-policy.json`` (each operator file of
    a folder its own)."""
    return config.parent / POLICY_DIR / f"{config.stem}.agent-policy.json"


@dataclass(frozen=True)
class SkillPolicy:
    """One skill, as the agent needs it at run time.

    Attributes:
        id: the AgentSkill id.
        kind: ``public``, ``on-request`` or ``sign-in`` (operator.yaml's ``kind``).
        action: the skill changes something in the operator's systems (``action: true``).
        completion: ``in-conversation``, ``deferred`` or ``None`` (OR-3.6).
        safeguards: operator.yaml's ``safeguards`` mapping as declared (OR-5.6), ``{}``.
        safeguards_hold: for each condition of OR-5.6, ``a`` to ``d``, whether it holds.
    """

    id: str
    kind: str
    action: bool = False
    completion: str | None = None
    safeguards: Mapping[str, Any] = field(default_factory=dict)
    safeguards_hold: Mapping[str, bool] = field(default_factory=dict)

    @property
    def all_safeguards_hold(self) -> bool:
        """True when the four conditions of OR-5.6 hold (then an opted-in action MAY be
        carried out at an assistant's request; otherwise it is referred, OR-5.7)."""
        return all(self.safeguards_hold.get(k) is True for k in _LETTERS)


@dataclass(frozen=True)
class AgentPolicy:
    """The policy file of one operator (see the module docstring).

    Attributes:
        card_url: the card's URL.
        card_sha256: SHA-256 (hex) of the card file it was built with.
        operator: ``provider.organization``, for the agent's own words.
        skills: every skill of operator.yaml, by id, in file order.
        acap_version: the acap that wrote it.
        languages: ``page.languages``, the operator's own language first.
        words: ``{tag: {key: text}}``, the agent's sentences in each of ``languages``.
    """

    card_url: str
    card_sha256: str
    operator: str
    skills: Mapping[str, SkillPolicy]
    acap_version: str = __version__
    languages: tuple[str, ...] = ("en",)
    words: Mapping[str, Mapping[str, str]] = field(default_factory=dict)

    def matches(self, card_bytes: bytes) -> bool:
        """True when ``card_bytes`` are the card this policy was built with."""
        return hashlib.sha256(card_bytes).hexdigest() == self.card_sha256

    def to_json(self) -> dict[str, Any]:
        """The JSON document (the format of the module docstring)."""
        skills: dict[str, Any] = {}
        for s in self.skills.values():
            entry: dict[str, Any] = {"kind": s.kind}
            if s.kind == "on-request":
                entry["action"] = s.action
                if s.completion:
                    entry["completion"] = s.completion
                if s.action:
                    entry["safeguards"] = dict(s.safeguards)
                    entry["safeguardsHold"] = {k: bool(s.safeguards_hold.get(k))
                                               for k in _LETTERS}
            skills[s.id] = entry
        return {"$comment": "acap agent policy, written by acap build from operator.yaml for "
                            "the agent (acap.agent); never published. Do not edit: rebuild.",
                "acap": self.acap_version, "card": self.card_url,
                "cardSha256": self.card_sha256, "operator": self.operator,
                "languages": list(self.languages),
                "words": {tag: dict(texts) for tag, texts in self.words.items()},
                "skills": skills}


def agent_policy(cfg: OperatorConfig, card_bytes: bytes, languages: tuple[str, ...] = ("en",),
                 words: Mapping[str, Mapping[str, str]] | None = None) -> AgentPolicy:
    """The policy of a checked operator.yaml and the card file built from it.

    Args:
        cfg: operator.yaml, checked without error (the values are read as the schema
            gives them).
        card_bytes: the card file as built (its SHA-256 binds the two).
        languages, words: the agent's languages and sentences
            (:func:`acap.builder.pages.reply_words`).
    """
    skills: dict[str, SkillPolicy] = {}
    for _, s in cfg.skills():
        sid, kind = s.get("id"), s.get("kind")
        if not isinstance(sid, str) or kind not in _KINDS or sid in skills:
            continue
        action = kind == "on-request" and s.get("action") is True
        guards = s.get("safeguards")
        guards = dict(guards) if isinstance(guards, dict) and action else {}
        missing = {m[0] for m in missing_safeguards(guards)}
        opened = s.get("assistantAccess") is True
        comp = s.get("completion")
        skills[sid] = SkillPolicy(
            sid, str(kind), action, comp if isinstance(comp, str) and action else None, guards,
            {k: opened and k not in missing for k in _LETTERS} if action else {})
    op = cfg.data.get("operator")
    name = op.get("name") if isinstance(op, dict) else None
    return AgentPolicy(cfg.card_url, hashlib.sha256(card_bytes).hexdigest(),
                       name if isinstance(name, str) else "", skills,
                       languages=tuple(languages), words=dict(words or {}))


def policy_bytes(policy: AgentPolicy) -> bytes:
    """The policy file's bytes: JSON, 2-space indent, final newline."""
    return (json.dumps(policy.to_json(), indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def read_agent_policy(path: Path, root: Root | None = None) -> AgentPolicy:
    """Read a policy file written by ``acap build``.

    Args:
        path: the file (:func:`policy_path_for` of the operator file).
        root: the folder it must lie in, links followed only inside it (see
            :func:`acap.load.read_file`); default: the folder acap runs in, or the
            folder the path names (:func:`acap.load.given_root`).

    Returns:
        The :class:`AgentPolicy`.

    Raises:
        AcapError: the file is missing, refused (a link out of ``root``, a FIFO, a
            device), larger than 1 MiB, not JSON, or not the format of the module
            docstring (the hint says to run ``acap build``).
    """
    hint = "run acap build: it writes the policy beside the signing key, from operator.yaml"
    try:
        data = json.loads(read_file(path, root or given_root(path), 1024 * 1024))
    except FileNotFoundError as exc:
        raise AcapError(f"{path} is not a policy file acap build wrote", hint) from exc
    except FileRefused as exc:
        raise AcapError(f"{path} is not a policy file acap build wrote: {exc.reason}",
                        hint) from exc
    except (OSError, ValueError) as exc:
        raise AcapError(f"{path} cannot be read as an agent policy ({exc})", hint) from exc
    if not isinstance(data, dict) or not isinstance(data.get("skills"), dict) \
            or not isinstance(data.get("cardSha256"), str):
        raise AcapError(f"{path} is not an agent policy written by acap build", hint)
    skills: dict[str, SkillPolicy] = {}
    for sid, e in data["skills"].items():
        if not isinstance(e, dict) or e.get("kind") not in _KINDS:
            raise AcapError(f"{path}: skill {sid!r} has no kind acap knows", hint)
        hold = e.get("safeguardsHold")
        guards = e.get("safeguards")
        comp = e.get("completion")
        skills[str(sid)] = SkillPolicy(
            str(sid), e["kind"], e.get("action") is True, comp if isinstance(comp, str) else None,
            guards if isinstance(guards, dict) else {},
            {k: hold.get(k) is True for k in _LETTERS} if isinstance(hold, dict) else {})
    langs = data.get("languages")
    words = data.get("words")
    return AgentPolicy(str(data.get("card", "")), data["cardSha256"],
                       str(data.get("operator") or ""), skills, str(data.get("acap", "")),
                       tuple(str(t) for t in langs) if isinstance(langs, list) and langs
                       else ("en",),
                       {str(t): {str(k): v for k, v in w.items() if isinstance(v, str)}
                        for t, w in words.items() if isinstance(w, dict)}
                       if isinstance(words, dict) else {})
