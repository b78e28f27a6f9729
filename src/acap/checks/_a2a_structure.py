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
* ``A2A-UNKNOWN-FIELD``, ``A2A-FIELD-NAME``, ``A2A-EMPTY``, ``A2A-MEDIA-TYPE``: members
  outside 1.0, written with their proto names, empty or null, modes that are no media
  type. These, A2A-REQUIRED, A2A-TYPE and A2A-LEGACY are the member judgements that
  ``acap verify`` makes too: :func:`acap.card._members.member_findings`.
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

from acap.card import OAUTH_FLOWS
from acap.checks._facts import Subject, as_dict, as_list
from acap.checks._urls import Problem, split
from acap.findings import Finding
from acap.load import OperatorConfig, pointer_join

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
DEPRECATED_FLOWS = ("implicit", "password")
OPERATOR_SCHEME_KINDS = ("openIdConnectUrl", "oauth2", "apiKey", "http", "mutualTls")

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


def card_structure(sub: Subject, card: dict[str, Any]) -> Iterator[Finding]:
    """Every A2A 1.0 structure check of a card: the member judgements ``acap verify``
    makes too (:func:`acap.card.member_findings`), then interfaces and security."""
    # start-up: a card's signed form (rfc8785) only when a card is checked, not operator.yaml
    from acap.card import member_findings

    yield from member_findings(card, lambda ptr: sub.at(ptr))
    yield from _interfaces(sub, card)
    yield from _security(sub, card)


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
