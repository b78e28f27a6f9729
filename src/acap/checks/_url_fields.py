"""Which values are URLs or host names, in operator.yaml and in a card, and their checks.

The rules themselves (``URL-FORM``, ``URL-IDN``, ``URL-SCRIPT``, ``URL-HTTPS``,
``CARD-URL``) are in :mod:`acap.checks._urls`; personEntry is checked with
OR-3.4 in :mod:`acap.checks._person_entry_rules`.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterator
from typing import Any

from acap.checks._facts import Subject, as_dict, as_list
from acap.checks._urls import (
    card_url_problems,
    host_problems,
    site_host_problems,
    split,
    url_problems,
)
from acap.findings import Finding
from acap.load import OperatorConfig, pointer_join

_FLOW_URLS = ("authorizationUrl", "tokenUrl", "refreshUrl", "deviceAuthorizationUrl")

UrlField = tuple[str, str, Any, bool]  # pointer, label, value, must be https


#: A gRPC address: host and port, no scheme (A2A 1.0 §5.8: gRPC names its target as
#: ``host:port``; the pending 1.0.2 text says it for AgentInterface.url).
_GRPC_ADDRESS = re.compile(r"(?P<host>\[[0-9A-Fa-f:.]+\]|[^\s:/\[\]@]+):(?P<port>[0-9]{1,5})")


def grpc_address(value: str) -> str | None:
    """The host of a gRPC address written ``host:port`` (``grpc.example.com:443``), or
    ``None`` when ``value`` is not one (a URL, or anything else)."""
    m = _GRPC_ADDRESS.fullmatch(value)
    if not m or not 0 < int(m["port"]) < 65536:
        return None
    return m["host"].strip("[]")


def _emit(sub: Subject, fields: list[UrlField], grpc: frozenset[str] | set[str] = frozenset()
          ) -> Iterator[Finding]:
    """The URL findings of ``fields``; a field whose pointer is in ``grpc`` may also be a
    gRPC address, ``host:port``, whose host is judged as any host."""

    for ptr, label, value, secure in fields:
        if not isinstance(value, str) or not value:
            continue
        host = grpc_address(value) if ptr in grpc else None
        if host is not None:
            try:
                ipaddress.ip_address(host)
                problems = []
            except ValueError:
                problems = host_problems(host, what=f"the host of {label}")
        else:
            problems = url_problems(value, secure=secure, what=label)
        for p in problems:
            yield sub.finding(p.rule, p.level, p.message, ptr, p.hint)


def _interfaces(fields: list[UrlField], interfaces: Any, where: str,
                binding: str) -> set[str]:
    """Add each interface's url to ``fields`` (it must be https); return the pointers of
    those whose ``binding`` is GRPC (their address may be ``host:port``)."""
    grpc: set[str] = set()
    for i, itf in enumerate(as_list(interfaces)):
        ptr = "/" + where.replace(".", "/") + f"/{i}/url"
        fields.append((ptr, f"{where}[{i}].url", as_dict(itf).get("url"), True))
        if as_dict(itf).get(binding) == "GRPC":
            grpc.add(ptr)
    return grpc


def operator_urls(sub: Subject, cfg: OperatorConfig) -> Iterator[Finding]:
    """URL and host rules for every URL and host name in operator.yaml, and CARD-URL."""
    d = cfg.data
    agent = as_dict(d.get("agent"))
    fields: list[UrlField] = [("/operator/website", "operator.website",
                               as_dict(d.get("operator")).get("website"), True)]
    grpc = _interfaces(fields, agent.get("interfaces"), "agent.interfaces", "binding")
    for name in ("documentationUrl", "iconUrl"):
        fields.append((f"/agent/{name}", f"agent.{name}", agent.get(name), False))
    for name, scheme in as_dict(d.get("signIn")).items():
        base = pointer_join("/signIn", name)
        scheme = as_dict(scheme)
        fields.append((f"{base}/openIdConnectUrl", f"signIn.{name}.openIdConnectUrl",
                       scheme.get("openIdConnectUrl"), True))
        oauth = as_dict(scheme.get("oauth2"))
        fields.append((f"{base}/oauth2/metadataUrl", f"signIn.{name}.oauth2.metadataUrl",
                       oauth.get("metadataUrl"), True))
        for flow, fl in oauth.items():
            for u in _FLOW_URLS:
                fields.append((f"{base}/oauth2/{flow}/{u}", f"signIn.{name}.oauth2.{flow}.{u}",
                               as_dict(fl).get(u), True))
    origins = as_list(d.get("ownOrigins"))
    for i, o in enumerate(origins):
        fields.append((f"/ownOrigins/{i}", f"ownOrigins[{i}]", o, True))
    yield from _emit(sub, fields, grpc)
    for i, o in enumerate(origins):
        parts = split(o) if isinstance(o, str) else None
        if parts and parts.hostname and (parts.path not in ("", "/") or parts.query):
            yield sub.finding("URL-FORM", "warning", f"ownOrigins[{i}] has a path; an origin is "
                              "scheme and host only, so the path is ignored", f"/ownOrigins/{i}",
                              f"write https://{parts.netloc}")
    yield from _operator_hosts(sub, cfg)
    yield from _operator_card_url(sub, cfg)


def _operator_hosts(sub: Subject, cfg: OperatorConfig) -> Iterator[Finding]:
    """The hosts the operator publishes on (cardHost, else operator.website's host; each
    key of ``hosts:``): host rules, and :func:`site_host_problems`."""
    d = cfg.data
    host = d.get("cardHost")
    if isinstance(host, str) and host:
        for p in host_problems(host, what="cardHost") or site_host_problems(
                host, what="cardHost"):
            yield sub.finding(p.rule, p.level, p.message, "/cardHost", p.hint)
    else:
        website = as_dict(d.get("operator")).get("website")
        website = website if isinstance(website, str) else ""
        parts = split(website)
        if parts is not None and parts.hostname and not url_problems(website):
            for p in site_host_problems(parts.hostname, what="the host of operator.website"):
                yield sub.finding(p.rule, p.level, p.message, "/operator/website", p.hint)
    for name, settings in as_dict(d.get("hosts")).items():
        ptr = pointer_join("/hosts", name)
        for p in host_problems(str(name), what="the hosts entry") or site_host_problems(
                str(name), what="the hosts entry"):
            yield sub.finding(p.rule, p.level, p.message, ptr, p.hint, key=True)
        cname = as_dict(settings).get("cname")
        if isinstance(cname, str) and cname:
            for p in host_problems(cname, what=f"hosts.{name}.cname"):
                yield sub.finding(p.rule, p.level, p.message, f"{ptr}/cname", p.hint)


def _operator_card_url(sub: Subject, cfg: OperatorConfig) -> Iterator[Finding]:
    """CARD-URL at build: a website on a GitHub project site cannot hold the card at its root."""
    parts = split(cfg.website)
    if not parts or not parts.hostname or not parts.hostname.endswith(".github.io"):
        return
    if parts.path in ("", "/") or cfg.card_host != parts.hostname:
        return
    owner = parts.hostname[: -len(".github.io")]
    ptr = "/cardHost" if "cardHost" in cfg.data else "/operator/website"
    yield sub.finding("CARD-URL", "error", f"your website is a GitHub project site "
                      f"({parts.hostname}{parts.path}); the card must be at the root, "
                      f"{cfg.card_url}, which a project site cannot serve", ptr,
                      f"give the site a custom domain (hosts.<domain>.cname, and cardHost), or "
                      f"publish from the repository named {owner}.github.io")


def card_urls(sub: Subject, card: dict[str, Any]) -> Iterator[Finding]:
    """URL and host rules for every URL field of an A2A 1.0 card."""
    fields: list[UrlField] = []
    grpc = _interfaces(fields, card.get("supportedInterfaces"), "supportedInterfaces",
                       "protocolBinding")
    fields.append(("/provider/url", "provider.url", as_dict(card.get("provider")).get("url"),
                   False))
    for name in ("documentationUrl", "iconUrl"):
        fields.append((f"/{name}", name, card.get(name), False))
    for name, scheme in as_dict(card.get("securitySchemes")).items():
        base = pointer_join("/securitySchemes", name)
        oidc = as_dict(as_dict(scheme).get("openIdConnectSecurityScheme"))
        fields.append((f"{base}/openIdConnectSecurityScheme/openIdConnectUrl",
                       f"securitySchemes.{name} openIdConnectUrl", oidc.get("openIdConnectUrl"),
                       True))
        oauth = as_dict(as_dict(scheme).get("oauth2SecurityScheme"))
        fields.append((f"{base}/oauth2SecurityScheme/oauth2MetadataUrl",
                       f"securitySchemes.{name} oauth2MetadataUrl", oauth.get("oauth2MetadataUrl"),
                       True))
        for flow, fl in as_dict(oauth.get("flows")).items():
            for u in _FLOW_URLS:
                fields.append((f"{base}/oauth2SecurityScheme/flows/{flow}/{u}",
                               f"securitySchemes.{name} {flow}.{u}", as_dict(fl).get(u), True))
    for i, ext in enumerate(as_list(as_dict(card.get("capabilities")).get("extensions"))):
        fields.append((f"/capabilities/extensions/{i}/uri", f"extension {i} uri",
                       as_dict(ext).get("uri"), False))
    yield from _emit(sub, fields, grpc)


def card_location(sub: Subject, url: str) -> Iterator[Finding]:
    """CARD-URL: where the card is served is the root of its origin (A2A §8.2)."""
    for p in card_url_problems(url):
        yield Finding(p.rule, p.level, p.message, sub.at(""), p.hint)
