"""The agent's own sentences in the operator's languages, from the same words files as the
page (:data:`acap.builder.pages._words.AGENT_KEYS`): a referral of information (OR-5.3),
of an action (OR-5.7), and an action passed to staff (OR-5.8).

``acap build`` writes them into the agent policy (:mod:`acap.builder._policy`) for each
language of ``page.languages``, so that :mod:`acap.agent` refers in the language a request
asks for, in the operator's own wording (``templates/words/<tag>.yaml``, or acap's) and in
a language added with ``acap words`` once its file is translated. A words file without
these keys (written before they existed) takes acap's own words for that language, else
English, and the build warns (``PAGE-WORDS``).
"""

from __future__ import annotations

from acap.builder.pages import _templating as templating
from acap.builder.pages._pages import plan_languages
from acap.builder.pages._words import AGENT_KEYS, REFERENCE, parse_words, words_names
from acap.findings import Finding, Location
from acap.load import OperatorConfig

__all__ = ["reply_words"]


def _shipped(t: templating.Templates, tag: str) -> dict[str, str]:
    """acap's own words for ``tag`` (its base language's when acap has no file for the
    tag itself), ``{}`` when acap ships none."""
    for name in words_names(tag):
        src = templating.source(t, f"acap/{name}")
        if src is not None:
            res = parse_words(tag, src.text, f"acap/templates/{name}", None)
            return dict(res.words.texts) if res.words is not None else {}
    return {}


def reply_words(cfg: OperatorConfig, tenant: bool = False
                ) -> tuple[list[str], dict[str, dict[str, str]], list[Finding]]:
    """The agent's sentences in every page language of ``cfg``.

    Args:
        cfg: the operator file (``page.languages``, its ``templates/words/``).
        tenant: the operator is a batch tenant (its templates folder is confined).

    Returns:
        ``(languages, {tag: {key: text}}, findings)``: the page languages in order (the
        first is the operator's own; ``["en"]`` when none is usable), for each the texts
        of :data:`AGENT_KEYS` with ``{operator}`` unfilled, and a ``PAGE-WORDS`` warning
        for each key a words file lacks (said in acap's words for that language, or in
        English). Errors in ``page.languages`` are the page step's to report.
    """
    t = templating.templates(templating.override_dir_for(cfg.base_dir), tenant=tenant)
    plan = plan_languages(cfg, t)
    english = _shipped(t, REFERENCE)
    languages = plan.languages or [REFERENCE]
    out: dict[str, dict[str, str]] = {}
    findings: list[Finding] = []
    for tag in languages:
        words = plan.words.get(tag)
        own = dict(words.texts) if words is not None else {}
        shipped = _shipped(t, tag)
        texts: dict[str, str] = {}
        for key in AGENT_KEYS:
            if key in own:
                texts[key] = own[key]
                continue
            texts[key] = shipped.get(key) or english[key]
            if words is not None and key not in shipped:
                findings.append(Finding(
                    "PAGE-WORDS", "warning", f"{words.file} has no '{key}': the agent says it "
                    f"in English to a request in {tag}", Location(words.file, 1, 1),
                    f"add {key}: with the text of acap's words/en.yaml {key}, translated "
                    f"(acap words {tag} writes a fresh copy of every key to translate)"))
        out[tag] = texts
    return languages, out, findings
