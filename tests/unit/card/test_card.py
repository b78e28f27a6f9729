"""Issue 2, item 4: the AgentCard acap builds, beyond the Annex A example.

* Field names are a2a.proto v1.0.1's: a card using every operator.yaml feature
  survives a round trip through a2a-sdk's proto types unchanged (the SDK would
  silently drop a misspelt field), and validates against the shipped schemas.
* The card never holds an empty string, array or object, nor a null.
* Each ``signIn`` kind maps to its SecurityScheme ``oneof`` member; OAuth has one flow
  (that an entry names exactly one kind and one flow is checked by acap.checks._run).
* ``capabilities`` is REQUIRED and never empty: with nothing else to say it says
  ``streaming: false`` (an empty object is dropped before signing by the SDKs).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from a2a.client.card_resolver import parse_agent_card
from google.protobuf.json_format import MessageToDict

from acap import schemas
from acap.card import build_card
from acap.load import load_operator
from acap.uris import EXTENSION_URI
from support.cards import leaves

Write = Callable[..., Path]

RICH = """\
operator:
  name: Clinic
  website: https://clinic.example
cardHost: agents.clinic.example
agent:
  name: Clinic agent
  description: Answers for the clinic.
  version: 2.1.0
  interfaces:
    - url: https://agent.clinic.example/a2a
    - url: https://agent.clinic.example/grpc
      binding: GRPC
      protocolVersion: "1.0"
      tenant: main
  pushNotifications: true
  extendedAgentCard: true
  inputModes: [text/plain, application/json]
  outputModes: [text/plain]
  documentationUrl: https://clinic.example/docs
  iconUrl: https://clinic.example/icon.png
signIn:
  oidc:
    openIdConnectUrl: https://id.clinic.example/.well-known/openid-configuration
  code:
    description: Patients' portal
    oauth2:
      metadataUrl: https://id.clinic.example/.well-known/oauth-authorization-server
      authorizationCode:
        authorizationUrl: https://id.clinic.example/authorize
        tokenUrl: https://id.clinic.example/token
        refreshUrl: https://id.clinic.example/refresh
        scopes: {records: Read your records}
        pkceRequired: true
  machines:
    oauth2:
      clientCredentials:
        tokenUrl: https://id.clinic.example/token
        scopes: {partners: Partner access}
  tv:
    oauth2:
      deviceCode:
        deviceAuthorizationUrl: https://id.clinic.example/device
        tokenUrl: https://id.clinic.example/token
        scopes: {kiosk: Kiosk access}
  key:
    apiKey: {location: header, name: X-Api-Key}
  bearer:
    http: {scheme: Bearer, bearerFormat: JWT}
  certs:
    description: Partner hospitals
    mutualTls: certificates issued by the regional health CA
skills:
  - id: hours
    kind: public
    name: Hours
    description: Opening hours.
    tags: [hours]
    inputModes: [text/plain]
    outputModes: [text/html]
  - id: fees
    kind: on-request
    name: Fees
    description: Fees, given to the patient who asks.
    tags: [fees]
    personEntry: "+44 20 7946 0000"
  - id: booking
    kind: on-request
    name: Booking
    description: Books an appointment.
    tags: [booking]
    personEntry: https://clinic.example/ask
    assistantAccess: true
    action: true
    completion: deferred
  - id: records
    kind: sign-in
    name: Records
    description: Your records.
    tags: [records]
    signIn:
      - {code: [records]}
      - {oidc: [openid, profile], key: [read]}
"""


@pytest.fixture
def rich(write_operator: Write) -> dict[str, Any]:
    cfg = load_operator(write_operator(RICH))
    assert cfg.findings == []
    return build_card(cfg)


def test_rich_card_validates_against_the_shipped_schemas(rich: dict[str, Any]) -> None:
    assert list(schemas.validator(schemas.AGENT_CARD).iter_errors(rich)) == []
    params = rich["capabilities"]["extensions"][0]["params"]
    assert list(schemas.validator(schemas.EXTENSION).iter_errors(params)) == []


def test_rich_card_survives_the_sdk_proto_types(rich: dict[str, Any]) -> None:
    import copy

    through_sdk = MessageToDict(parse_agent_card(copy.deepcopy(rich)))
    expected = copy.deepcopy(rich)
    del expected["capabilities"]["extensions"][0]["required"]  # false: the proto default
    assert through_sdk == expected


def test_no_empty_value_or_null_anywhere(rich: dict[str, Any]) -> None:
    def walk(v: Any) -> None:
        assert v not in (None, "", [], {})
        if isinstance(v, dict):
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)

    walk(rich)
    assert len(list(leaves(rich))) > 50


def test_security_schemes_one_member_each(rich: dict[str, Any]) -> None:
    s = rich["securitySchemes"]
    assert s["oidc"] == {"openIdConnectSecurityScheme": {
        "openIdConnectUrl": "https://id.clinic.example/.well-known/openid-configuration"}}
    assert s["code"] == {"oauth2SecurityScheme": {
        "description": "Patients' portal",
        "flows": {"authorizationCode": {
            "authorizationUrl": "https://id.clinic.example/authorize",
            "tokenUrl": "https://id.clinic.example/token",
            "refreshUrl": "https://id.clinic.example/refresh",
            "scopes": {"records": "Read your records"},
            "pkceRequired": True}},
        "oauth2MetadataUrl": "https://id.clinic.example/.well-known/oauth-authorization-server"}}
    assert s["machines"]["oauth2SecurityScheme"]["flows"] == {"clientCredentials": {
        "tokenUrl": "https://id.clinic.example/token", "scopes": {"partners": "Partner access"}}}
    assert list(s["tv"]["oauth2SecurityScheme"]["flows"]) == ["deviceCode"]
    assert s["key"] == {"apiKeySecurityScheme": {"location": "header", "name": "X-Api-Key"}}
    assert s["bearer"] == {"httpAuthSecurityScheme": {"scheme": "Bearer", "bearerFormat": "JWT"}}
    assert s["certs"] == {"mtlsSecurityScheme": {
        "description": "Partner hospitals certificates issued by the regional health CA"}}


def test_sign_in_alternatives(rich: dict[str, Any]) -> None:
    records = rich["skills"][3]
    assert records["securityRequirements"] == [
        {"schemes": {"code": {"list": ["records"]}}},
        {"schemes": {"oidc": {"list": ["openid", "profile"]}, "key": {"list": ["read"]}}},
    ]
    assert all("securityRequirements" not in s for s in rich["skills"][:3])


def test_extension_entries(rich: dict[str, Any]) -> None:
    [ext] = rich["capabilities"]["extensions"]
    assert ext["uri"] == EXTENSION_URI
    assert ext["required"] is False
    assert ext["description"] == ("Skills whose information Clinic gives to the person who "
                                  "asks, and where a person asks.")
    assert ext["params"] == {"skills": [
        {"id": "fees", "personEntry": "tel:+44-20-7946-0000", "assistantAccess": False},
        {"id": "booking", "personEntry": "https://clinic.example/ask", "assistantAccess": True,
         "completion": "deferred"},
    ]}


def test_agent_fields(rich: dict[str, Any]) -> None:
    assert rich["supportedInterfaces"] == [
        {"url": "https://agent.clinic.example/a2a", "protocolBinding": "JSONRPC",
         "protocolVersion": "1.0"},
        {"url": "https://agent.clinic.example/grpc", "protocolBinding": "GRPC",
         "protocolVersion": "1.0", "tenant": "main"},
    ]
    assert rich["capabilities"]["pushNotifications"] is True
    assert rich["capabilities"]["extendedAgentCard"] is True
    assert "streaming" not in rich["capabilities"]
    assert rich["defaultInputModes"] == ["text/plain", "application/json"]
    assert rich["documentationUrl"] == "https://clinic.example/docs"
    assert list(rich)[-1] == "iconUrl"
    assert rich["skills"][0]["inputModes"] == ["text/plain"]
    assert rich["skills"][0]["outputModes"] == ["text/html"]


def test_card_host_and_jku(write_operator: Write) -> None:
    cfg = load_operator(write_operator(RICH))
    assert cfg.card_url == "https://agents.clinic.example/.well-known/agent-card.json"
    assert cfg.jwks_url == "https://agents.clinic.example/.well-known/jwks.json"
    cfg2 = load_operator(write_operator(RICH.replace("cardHost: agents.clinic.example\n", "")))
    assert cfg2.card_url == "https://clinic.example/.well-known/agent-card.json"


MINIMAL = """\
operator: {name: A, website: https://a.example}
agent:
  name: A
  description: B
  version: "1"
  interfaces: [{url: https://a.example/a2a}]
skills:
  - {id: s, kind: public, name: S, description: D, tags: [t]}
"""


def test_capabilities_are_never_empty(write_operator: Write) -> None:
    card = build_card(load_operator(write_operator(MINIMAL)))
    assert card["capabilities"] == {"streaming": False}
    assert "securitySchemes" not in card
    assert card["defaultInputModes"] == card["defaultOutputModes"] == ["text/plain"]


@pytest.mark.parametrize("scopes", ["{}", "{openid: ''}"])
def test_oauth_scopes_need_text(write_operator: Write, scopes: str) -> None:
    entry = ("{oauth2: {clientCredentials: {tokenUrl: 'https://a.example/t', scopes: "
             + scopes + "}}}")
    cfg = load_operator(write_operator(MINIMAL + f"signIn:\n  x: {entry}\n"))
    assert [f.rule for f in cfg.findings] == ["SCHEMA-EMPTY"]


def test_build_card_refuses_a_file_with_errors(write_operator: Write) -> None:
    cfg = load_operator(write_operator("specSite: maybe\n"))
    with pytest.raises(ValueError, match="has errors"):
        build_card(cfg)


def test_international_host_is_published_under_its_a_label(write_operator: Write) -> None:
    text = MINIMAL.replace("https://a.example}", "https://Pompes-Funèbres.example}")
    cfg = load_operator(write_operator(text))
    assert cfg.findings == []
    assert cfg.card_host == "pompes-funèbres.example".encode("idna").decode()  # stdlib IDNA 2003
    assert cfg.jwks_url == "https://xn--pompes-funbres-4jb.example/.well-known/jwks.json"


@pytest.mark.parametrize(("text", "website", "host"), [
    ("operator: [a, b]\nhosts: [x]\nownOrigins: {a: b}\n", "", ""),
    ("operator: {website: 'https://['}\nownOrigins: ['https://a:b', 'https://[']\n",
     "https://[", ""),
    ("operator: {website: [5]}\n", "", ""),
])
def test_operator_properties_never_raise_on_malformed_files(write_operator: Write, text: str,
                                                            website: str, host: str) -> None:
    cfg = load_operator(write_operator(text))
    assert cfg.findings
    assert (cfg.website, cfg.card_host) == (website, host)
    assert cfg.own_origins == []
    assert cfg.hosts == {}
