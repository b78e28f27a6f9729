"""From operator.yaml to an A2A 1.0 AgentCard with the On Request extension.

The card follows a2a.proto at tag v1.0.1 (JSON names in camelCase) and the
extension's §3 (OR-3.1 to OR-3.3). It never holds an empty string, array or
object, a null, or a field outside the 1.0 schema, so it signs to the same
bytes under the specification's text and under the official SDKs
(:mod:`acap.card._canonical`). Key order follows the spec's Annex A.1.
"""

from __future__ import annotations

from typing import Any

from acap.card._person_entry import normalise_person_entry
from acap.errors import CardBuildError
from acap.load import OperatorConfig
from acap.uris import EXTENSION_URI

DEFAULT_MODES = ["text/plain"]


def default_extension_description(operator_name: str) -> str:
    """The AgentExtension.description used when operator.yaml gives none."""
    return (f"Skills whose information {operator_name} gives to the person who asks, "
            "and where a person asks.")


def build_card(cfg: OperatorConfig) -> dict[str, Any]:
    """The unsigned AgentCard for a valid operator.yaml.

    Args:
        cfg: a loaded operator.yaml with no error findings.

    Returns:
        The card as a JSON-ready dict, without ``signatures``.

    Raises:
        CardBuildError: ``cfg`` has error findings (the card would be incomplete).
    """
    if any(f.level == "error" for f in cfg.findings):
        raise CardBuildError(f"{cfg.loaded.file} has errors (see its findings); no card is built")
    d = cfg.data
    agent = d["agent"]
    card: dict[str, Any] = {
        "name": agent["name"],
        "description": agent["description"],
        "supportedInterfaces": [_interface(i) for i in agent["interfaces"]],
        "provider": {"organization": d["operator"]["name"], "url": d["operator"]["website"]},
        "version": agent["version"],
    }
    if "documentationUrl" in agent:
        card["documentationUrl"] = agent["documentationUrl"]
    card["capabilities"] = _capabilities(cfg)
    if d.get("signIn"):
        card["securitySchemes"] = {name: security_scheme(s) for name, s in d["signIn"].items()}
    card["defaultInputModes"] = list(agent.get("inputModes") or DEFAULT_MODES)
    card["defaultOutputModes"] = list(agent.get("outputModes") or DEFAULT_MODES)
    card["skills"] = [_skill(s) for _, s in cfg.skills()]
    if "iconUrl" in agent:
        card["iconUrl"] = agent["iconUrl"]
    return card


def _interface(i: dict[str, Any]) -> dict[str, Any]:
    out = {"url": i["url"], "protocolBinding": i.get("binding", "JSONRPC"),
           "protocolVersion": i.get("protocolVersion", "1.0")}
    if i.get("tenant"):
        out["tenant"] = i["tenant"]
    return out


def _capabilities(cfg: OperatorConfig) -> dict[str, Any]:
    agent = cfg.data["agent"]
    caps: dict[str, Any] = {}
    for name in ("streaming", "pushNotifications"):
        if name in agent:
            caps[name] = agent[name]
    entries = [extension_entry(s) for _, s in cfg.on_request_skills()]
    if entries:  # OR-3.1: declared when any skill is on request
        description = (cfg.data.get("onRequest") or {}).get("description") or \
            default_extension_description(cfg.data["operator"]["name"])
        caps["extensions"] = [{
            "uri": EXTENSION_URI,
            "description": description,
            "required": False,  # OR-3.1
            "params": {"skills": entries},  # OR-3.2
        }]
    if "extendedAgentCard" in agent:
        caps["extendedAgentCard"] = agent["extendedAgentCard"]
    if not caps:
        # AgentCapabilities is REQUIRED, but the SDKs drop an empty object before
        # verifying; saying "no streaming" keeps it present under every reading.
        caps["streaming"] = False
    return caps


def extension_entry(skill: dict[str, Any]) -> dict[str, Any]:
    """The params.skills entry of an on-request skill (OR-3.3 to OR-3.6).

    ``assistantAccess`` is always written, ``false`` when operator.yaml leaves
    it out (OR-3.5: absent means false), so that no reader has to know the default.
    """
    entry: dict[str, Any] = {"id": skill["id"],
                             "personEntry": normalise_person_entry(skill["personEntry"]),
                             "assistantAccess": bool(skill.get("assistantAccess", False))}
    if skill.get("completion"):
        entry["completion"] = skill["completion"]
    return entry


def _skill(s: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"id": s["id"], "name": s["name"], "description": s["description"],
                           "tags": list(s["tags"])}
    for name in ("examples", "inputModes", "outputModes"):
        if s.get(name):
            out[name] = list(s[name])
    if s.get("kind") == "sign-in" and s.get("signIn"):
        out["securityRequirements"] = security_requirements(s["signIn"])
    return out


def security_requirements(sign_in: dict[str, Any] | list[dict[str, Any]]) -> list[dict[str, Any]]:
    """AgentSkill.securityRequirements from operator.yaml's ``signIn`` of a skill.

    ``{family-portal: [openid]}`` -> ``[{"schemes": {"family-portal": {"list": ["openid"]}}}]``;
    a list of such mappings gives alternatives (one SecurityRequirement each).
    """
    alternatives = sign_in if isinstance(sign_in, list) else [sign_in]
    return [{"schemes": {name: {"list": list(scopes)} for name, scopes in alt.items()}}
            for alt in alternatives]


def security_scheme(s: dict[str, Any]) -> dict[str, Any]:
    """One A2A SecurityScheme from an operator.yaml ``signIn`` entry (a2a.proto v1.0.1).

    SecurityScheme is a proto ``oneof``: the entry names exactly one kind
    (operator.schema.json enforces it), and the result has exactly one member,
    ``openIdConnectSecurityScheme``, ``oauth2SecurityScheme``,
    ``apiKeySecurityScheme``, ``httpAuthSecurityScheme`` or ``mtlsSecurityScheme``.
    OAuthFlows is a ``oneof`` too: one flow. ``pkceRequired: false`` is the proto
    default and is left out.

    Raises:
        CardBuildError: the entry names no kind of scheme (a schema-valid file never does).
    """
    desc = {"description": s["description"]} if s.get("description") else {}
    if "openIdConnectUrl" in s:
        return {"openIdConnectSecurityScheme": {**desc, "openIdConnectUrl": s["openIdConnectUrl"]}}
    if "apiKey" in s:
        return {"apiKeySecurityScheme": {**desc, "location": s["apiKey"]["location"],
                                         "name": s["apiKey"]["name"]}}
    if "http" in s:
        h = {**desc, "scheme": s["http"]["scheme"]}
        if s["http"].get("bearerFormat"):
            h["bearerFormat"] = s["http"]["bearerFormat"]
        return {"httpAuthSecurityScheme": h}
    if "oauth2" in s:
        o = s["oauth2"]
        flows = {}
        for kind in ("authorizationCode", "clientCredentials", "deviceCode"):
            if kind in o:
                flow = {k: (dict(v) if isinstance(v, dict) else v) for k, v in o[kind].items()
                        if not (k == "pkceRequired" and v is False)}
                flows[kind] = flow
        out: dict[str, Any] = {**desc, "flows": flows}
        if o.get("metadataUrl"):
            out["oauth2MetadataUrl"] = o["metadataUrl"]
        return {"oauth2SecurityScheme": out}
    if "mutualTls" in s:
        # MutualTlsSecurityScheme has only a description: say which certificates count.
        text = " ".join(t for t in (s.get("description"), s.get("mutualTls")) if t)
        return {"mtlsSecurityScheme": {"description": text}}
    raise CardBuildError("a signIn entry names no kind of scheme")
