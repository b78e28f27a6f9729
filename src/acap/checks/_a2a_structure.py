"""A2A 1.0 structure (a2a.proto at tag v1.0.1) of a card, and the parts of operator.yaml
that become it.

Rule ids:
* ``A2A-REQUIRED``: every REQUIRED field is present and not empty (a required
  list has at least one element: skills, tags, supportedInterfaces, the
  default modes).
* ``A2A-TYPE``: every field has its proto type; a oneof holds exactly one member.
* ``A2A-LEGACY``: no A2A 0.3 field (``url``, ``preferredTransport``,
  ``additionalInterfaces``, ``supportsAuthenticatedExtendedCard``, top-level
  ``security`` ...); the finding names the 1.0 replacement.
* ``A2A-UNKNOWN-FIELD`` and ``A2A-EMPTY``: fields outside 1.0, empty values
  (found by :func:`acap.card._verifier.uncovered_fields` and
  :func:`acap.card._verifier.empty_values`).
* ``A2A-BINDING``: ``protocolBinding`` is JSONRPC, GRPC, HTTP+JSON or a URI (A2A §5.8).
* ``A2A-PROTOCOL-VERSION``: ``protocolVersion`` is a version A2A defines for the card
  (``1.0``), written ``Major.Minor`` (see :func:`version_problems`).
* ``A2A-SECURITY``: every scheme a security requirement names is declared in
  ``securitySchemes``; a scheme is one kind.
* ``A2A-OAUTH-FLOWS``: an OAuth 2.0 scheme has exactly one flow (``OAuthFlows``
  is a proto oneof); implicit and password are deprecated.
* ``A2A-SKILL-ID`` (in :mod:`acap.checks._declaration`).

URLs in these places are checked by :mod:`acap.checks._url_fields`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from acap import schemas
from acap.checks._facts import Subject, as_dict, as_list
from acap.checks._urls import Problem, split
from acap.findings import Finding
from acap.load import OperatorConfig, dotted, pointer_join, pointer_of, type_words, value_words

STANDARD_BINDINGS = ("JSONRPC", "GRPC", "HTTP+JSON")
_BINDING_ALIASES = {"JSON-RPC": "JSONRPC", "JSON_RPC": "JSONRPC", "JSONRPC2": "JSONRPC",
                    "REST": "HTTP+JSON", "HTTP": "HTTP+JSON", "HTTP_JSON": "HTTP+JSON",
                    "HTTPJSON": "HTTP+JSON", "HTTP+REST": "HTTP+JSON", "GRPC-WEB": "GRPC"}
#: The A2A versions whose cards acap builds and checks (the card schema is a2a.proto v1.0.1).
A2A_VERSIONS = ("1.0",)
CURRENT_VERSION = "1.0"
#: Earlier A2A versions: their interfaces speak another protocol than the card says.
EARLIER_VERSIONS = ("0.1", "0.2", "0.3")
_VERSION_LIKE = re.compile(r"[vV]?(?P<major>[0-9]{1,4})\.(?P<minor>[0-9]{1,4})(\.[0-9]{1,4})?")
OAUTH_FLOWS = ("authorizationCode", "clientCredentials", "deviceCode")
DEPRECATED_FLOWS = ("implicit", "password")
SCHEME_KINDS = ("apiKeySecurityScheme", "httpAuthSecurityScheme", "oauth2SecurityScheme",
                "openIdConnectSecurityScheme", "mtlsSecurityScheme")
OPERATOR_SCHEME_KINDS = ("openIdConnectUrl", "oauth2", "apiKey", "http", "mutualTls")

#: A2A 0.3 fields and their 1.0 replacement, by where they sit (``*`` = any index or name).
LEGACY: dict[str, str] = {
    "/url": "supportedInterfaces[0].url",
    "/preferredTransport": "supportedInterfaces[].protocolBinding",
    "/additionalInterfaces": "supportedInterfaces (one entry per interface, the preferred first)",
    "/supportsAuthenticatedExtendedCard": "capabilities.extendedAgentCard",
    "/security": "securityRequirements ([{\"schemes\": {NAME: {\"list\": [SCOPES]}}}])",
    "/protocolVersion": "supportedInterfaces[].protocolVersion",
    "/skills/*/security": "securityRequirements on the skill",
    "/supportedInterfaces/*/transport": "protocolBinding",
    "/securitySchemes/*/type": "one member named for the kind: " + ", ".join(SCHEME_KINDS),
}


def binding_problems(binding: Any) -> list[Problem]:
    """A2A §5.8: ``protocolBinding`` is JSONRPC, GRPC, HTTP+JSON, or a URI for another binding."""
    if binding in STANDARD_BINDINGS or not isinstance(binding, str) or not binding:
        return []
    key = binding.strip().upper()
    near = key if key in STANDARD_BINDINGS else _BINDING_ALIASES.get(key)
    if near:
        return [Problem("A2A-BINDING", "error", f"protocolBinding '{binding}' is not one of "
                        f"{', '.join(STANDARD_BINDINGS)}", f"write {near}")]
    parts = split(binding)
    if parts and parts.scheme and (parts.netloc or parts.scheme in ("urn", "tag")) \
            and " " not in binding:
        return []
    import difflib  # only for a did-you-mean: not at start-up

    near_list = difflib.get_close_matches(key, STANDARD_BINDINGS, n=1, cutoff=0.5)
    hint = (f"did you mean {near_list[0]}?" if near_list else
            "write JSONRPC, GRPC or HTTP+JSON; a binding of your own is named by a URI")
    return [Problem("A2A-BINDING", "error", f"protocolBinding '{binding}' is neither "
                    f"{', '.join(STANDARD_BINDINGS)} nor a URI", hint)]


def version_problems(version: Any, others: list[Any] | None = None) -> list[Problem]:
    """``protocolVersion`` is a version A2A defines for the card, written ``Major.Minor``
    (A2A §3.6: patch numbers SHOULD NOT be used in Agent Cards).

    acap builds, and ``acap check`` reads, A2A 1.0 cards: ``1.0`` is right. An
    earlier version (``0.3``) is an error when no interface of the card is ``1.0``
    (§3.6.2 lets an agent list an interface per version, so next to a 1.0 interface
    it is a warning); a version A2A does not define (``9.9``, ``1.1``) is a warning;
    text that is no version at all (``banana``, ``v1``) is an error.

    Args:
        version: the value of ``protocolVersion``.
        others: the ``protocolVersion`` values of every interface of the card.
    """
    if not isinstance(version, str) or not version or version in A2A_VERSIONS:
        return []
    rule = "A2A-PROTOCOL-VERSION"
    written = _VERSION_LIKE.fullmatch(version.strip())
    if not written:
        return [Problem(rule, "error", f"protocolVersion '{version}' is not a version number",
                        f"write {CURRENT_VERSION} (Major.Minor: this card is A2A "
                        f"{CURRENT_VERSION})")]
    major_minor = f"{int(written['major'])}.{int(written['minor'])}"
    if major_minor in EARLIER_VERSIONS:
        with_current = any(v in A2A_VERSIONS for v in others or ())
        if with_current:
            return [Problem(rule, "warning", f"protocolVersion '{version}' is the earlier A2A "
                            f"{major_minor}, beside a {CURRENT_VERSION} interface",
                            f"keep it only if this endpoint still serves A2A {major_minor} "
                            "clients")]
        return [Problem(rule, "error", f"protocolVersion '{version}' is the earlier A2A "
                        f"{major_minor}; this card is A2A {CURRENT_VERSION}",
                        f"write {CURRENT_VERSION}")]
    if major_minor in A2A_VERSIONS:  # 1.0.1, v1.0: the right version, written otherwise
        return [Problem(rule, "warning", f"protocolVersion '{version}' is written otherwise "
                        "than Major.Minor",
                        f"write {major_minor}: the version has no third number")]
    return [Problem(rule, "warning", f"protocolVersion '{version}' is not a version A2A "
                    f"defines for this card ({', '.join(A2A_VERSIONS)})",
                    f"write {CURRENT_VERSION}")]


# -- operator.yaml ------------------------------------------------------------------------


def operator_structure(sub: Subject, cfg: OperatorConfig) -> Iterator[Finding]:
    """A2A-BINDING, A2A-PROTOCOL-VERSION, A2A-SECURITY, A2A-OAUTH-FLOWS in operator.yaml."""
    interfaces = as_list(as_dict(cfg.data.get("agent")).get("interfaces"))
    yield from _interface_findings(sub, interfaces, "agent.interfaces", "binding",
                                   CURRENT_VERSION)
    declared = as_dict(cfg.data.get("signIn"))
    for name, scheme in declared.items():
        ptr = pointer_join("/signIn", name)
        scheme = as_dict(scheme)
        kinds = [k for k in OPERATOR_SCHEME_KINDS if k in scheme]
        if len(kinds) != 1:
            found = ", ".join(kinds) if kinds else "none"
            yield sub.finding("A2A-SECURITY", "error", f"signIn '{name}' must be exactly one way "
                              f"to sign in (found: {found})", ptr,
                              "give one of: " + ", ".join(OPERATOR_SCHEME_KINDS), key=True)
        if "oauth2" in scheme:
            flows = [k for k in as_dict(scheme["oauth2"]) if k != "metadataUrl"]
            if len(flows) != 1:
                yield sub.finding("A2A-OAUTH-FLOWS", "error", f"signIn '{name}' oauth2 must have "
                                  f"exactly one flow, found {len(flows)}"
                                  + (f" ({', '.join(flows)})" if flows else ""),
                                  f"{ptr}/oauth2", "keep one of: " + ", ".join(OAUTH_FLOWS)
                                  + " (A2A OAuthFlows is a oneof); declare another signIn "
                                  "entry for another flow", key=True)
    known = not any(p == "/signIn" or p.startswith("/signIn/") for p in sub.reported)
    yield from _operator_requirements(sub, set(declared) if known else None)


def _operator_requirements(sub: Subject, declared: set[str] | None) -> Iterator[Finding]:
    """A2A-SECURITY: a sign-in skill's schemes are declared under signIn, with a scope.

    ``declared`` is ``None`` when the top-level signIn has a reported fault: which
    schemes it declares is then not known, and is not checked."""
    for s in sub.skills:
        if s.kind != "sign-in" or s.sign_in_ptr is None:
            continue
        value = s.data["signIn"]
        alts = value if isinstance(value, list) else [value]
        for i, alt in enumerate(alts):
            base = f"{s.sign_in_ptr}/{i}" if isinstance(value, list) else s.sign_in_ptr
            for name, scopes in as_dict(alt).items():
                where = pointer_join(base, name)
                if declared is not None and name not in declared:
                    yield sub.finding("A2A-SECURITY", "error", f"sign-in scheme '{name}' is not "
                                      "declared under signIn", where,
                                      "declare it under the top-level signIn:, or fix the name",
                                      key=True)
                if not scopes:
                    yield sub.finding("A2A-SECURITY", "error", f"sign-in scheme '{name}' lists "
                                      "no scope", where, "name at least one scope: A2A's signed "
                                      "form drops an empty list, and the requirement with it")


# -- a card -------------------------------------------------------------------------------


def _legacy_key(ptr: str) -> str:
    return re.sub(r"^/(skills|supportedInterfaces|securitySchemes)/[^/]+/", r"/\1/*/", ptr)


def legacy_fields(sub: Subject, card: dict[str, Any]) -> list[str]:
    """Pointers of A2A 0.3 fields in ``card`` (see :data:`LEGACY`)."""
    out = [f"/{k}" for k in card if f"/{k}" in LEGACY]
    for coll in ("skills", "supportedInterfaces"):
        for i, item in enumerate(as_list(card.get(coll))):
            out += [f"/{coll}/{i}/{k}" for k in as_dict(item) if f"/{coll}/*/{k}" in LEGACY]
    for name, s in as_dict(card.get("securitySchemes")).items():
        if "type" in as_dict(s):
            out.append(pointer_join(pointer_join("/securitySchemes", name), "type"))
    return out


def card_structure(sub: Subject, card: dict[str, Any]) -> Iterator[Finding]:
    """Every A2A 1.0 structure check of a card."""
    # start-up: a card's signed form (rfc8785) only when a card is checked, not operator.yaml
    from acap.card import empty_values, uncovered_fields

    legacy = legacy_fields(sub, card)
    for ptr in legacy:
        yield sub.finding("A2A-LEGACY", "error", f"{dotted(ptr)} is an A2A 0.3 field, not in "
                          "1.0", ptr, f"1.0 uses {LEGACY[_legacy_key(ptr)]}")
    reported = set(legacy)
    # A 0.3 scheme ({"type": ..., "openIdConnectUrl": ...}) also breaks the 1.0 oneof: one
    # finding (the legacy one, which names the fix) is enough.
    legacy_schemes = {p.rsplit("/", 1)[0] for p in legacy if p.startswith("/securitySchemes/")}
    for f in _schema_findings(sub, card):
        if f.location.pointer in legacy_schemes:
            continue
        reported.add(f.location.pointer or "")
        yield f
    reported |= legacy_schemes
    for ptr in uncovered_fields(card):
        if ptr in reported or any(ptr.startswith(r + "/") for r in reported):
            continue
        reported.add(ptr)
        yield sub.finding("A2A-UNKNOWN-FIELD", "error", f"{dotted(ptr)} is not an A2A 1.0 "
                          "field: SDK verifiers drop it, so no signature covers it and clients "
                          "ignore it",
                          ptr, "remove it, or move it into an extension's params")
    # The On Request params are checked by their own rules (OR-3.2 says what is empty).
    own = {f"{p}/params" for p, _ in sub.declarations}
    for ptr in empty_values(card):
        if any(ptr == r or ptr.startswith(r + "/") for r in reported | own):
            continue
        yield sub.finding("A2A-EMPTY", "warning", f"{dotted(ptr)} is empty: SDK verifiers drop "
                          "it while the specification keeps it, so signatures may not verify "
                          "everywhere",
                          ptr, "leave the field out instead of writing it empty")
    yield from _interfaces(sub, card)
    yield from _security(sub, card)


def _schema_findings(sub: Subject, card: dict[str, Any]) -> Iterator[Finding]:
    for err in sorted(schemas.errors(schemas.AGENT_CARD, card),
                      key=lambda e: list(map(str, e.path))):
        ptr = pointer_of(err.absolute_path)
        kw = err.validator
        where = dotted(ptr)
        if kw == "additionalProperties":
            continue  # unknown and 0.3 fields: reported with their own rule
        if kw == "required":
            missing = err.message.split("'")[1] if "'" in err.message else err.message
            yield sub.finding("A2A-REQUIRED", "error", f"{where} needs '{missing}' (REQUIRED in "
                              "A2A 1.0)", ptr, f"add {missing}")
        elif kw in ("minItems", "minLength"):
            need = ("an empty list; a REQUIRED list needs at least one element"
                    if kw == "minItems" else "empty; a REQUIRED field needs a value")
            yield sub.finding("A2A-REQUIRED", "error", f"{where} is {need}", ptr, "give it a value")
        elif kw in ("minProperties", "maxProperties") and ptr.endswith("/flows"):
            flows = list(as_dict(err.instance))
            yield sub.finding("A2A-OAUTH-FLOWS", "error", f"{where} must hold exactly one flow, "
                              f"found {len(flows)}" + (f" ({', '.join(flows)})" if flows else ""),
                              ptr, "keep one of: " + ", ".join(OAUTH_FLOWS) + " (OAuthFlows is a "
                              "proto oneof); declare another scheme for another flow")
        elif kw in ("minProperties", "maxProperties"):
            members = list(as_dict(err.instance))
            yield sub.finding("A2A-TYPE", "error", f"{where} must hold exactly one of "
                              f"{', '.join(SCHEME_KINDS)}, found {len(members)}", ptr,
                              "a SecurityScheme is a proto oneof: one member")
        elif kw == "type":
            want = type_words(err.validator_value, json=True)
            yield sub.finding("A2A-TYPE", "error", f"{where} must be {want}, found "
                              f"{value_words(err.instance, json=True)}", ptr, f"write {want} there")
        else:
            yield sub.finding("A2A-TYPE", "error", f"{where}: {err.message}", ptr)


def _interfaces(sub: Subject, card: dict[str, Any]) -> Iterator[Finding]:
    yield from _interface_findings(sub, as_list(card.get("supportedInterfaces")),
                                   "supportedInterfaces", "protocolBinding", None)


def _interface_findings(sub: Subject, interfaces: list[Any], where: str, binding: str,
                        default_version: str | None) -> Iterator[Finding]:
    """A2A-BINDING and A2A-PROTOCOL-VERSION for each interface: in operator.yaml
    (``agent.interfaces``, ``binding``, version 1.0 when left out) or in a card
    (``supportedInterfaces``, ``protocolBinding``)."""
    versions = [as_dict(i).get("protocolVersion", default_version) for i in interfaces]
    ptr = "/" + where.replace(".", "/")
    for i, itf in enumerate(interfaces):
        itf = as_dict(itf)
        named = f".{binding}" if binding == "binding" else ""  # operator.yaml names the key
        for p in binding_problems(itf.get(binding)):
            yield sub.finding(p.rule, p.level, f"{where}[{i}]{named}: {p.message}",
                              f"{ptr}/{i}/{binding}", p.hint)
        for p in version_problems(itf.get("protocolVersion"), versions):
            yield sub.finding(p.rule, p.level, f"{where}[{i}]: {p.message}",
                              f"{ptr}/{i}/protocolVersion", p.hint)


def _security(sub: Subject, card: dict[str, Any]) -> Iterator[Finding]:
    """A2A-SECURITY (schemes named exist) and A2A-OAUTH-FLOWS (deprecated flows)."""
    schemes = as_dict(card.get("securitySchemes"))
    places = [("/securityRequirements", card.get("securityRequirements"))]
    places += [(f"/skills/{i}/securityRequirements", as_dict(s).get("securityRequirements"))
               for i, s in enumerate(as_list(card.get("skills")))]
    for base, reqs in places:
        for j, req in enumerate(as_list(reqs)):
            for name in as_dict(as_dict(req).get("schemes")):
                if name not in schemes:
                    yield sub.finding("A2A-SECURITY", "error", f"security scheme '{name}' is not "
                                      "declared in securitySchemes",
                                      pointer_join(f"{base}/{j}/schemes", name),
                                      "declare it in securitySchemes, or fix the name")
    for name, s in schemes.items():
        flows = as_dict(as_dict(as_dict(s).get("oauth2SecurityScheme")).get("flows"))
        for flow in DEPRECATED_FLOWS:
            if flow in flows:
                ptr = pointer_join(pointer_join("/securitySchemes", name),
                                   f"oauth2SecurityScheme/flows/{flow}")
                yield sub.finding("A2A-OAUTH-FLOWS", "warning", f"the {flow} flow of '{name}' is "
                                  "no longer allowed in A2A 1.0: it is not safe", ptr,
                                  "use authorizationCode (with PKCE) or deviceCode")
