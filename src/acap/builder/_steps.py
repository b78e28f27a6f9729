"""The build steps after loading and checking, in order: each adds files to the
context's :class:`~acap.site.SiteFiles` and findings to its report.

``load + schema -> requirement checks`` (:func:`acap.builder._build.assemble`), then
:data:`STEPS`: the AgentCard, checked against the A2A and extension schemas, signed
(JWS) with its JWKS -> the schemas at the extension URI -> the spec site -> the
personEntry pages -> the hosting files; then :data:`FINAL_CHECKS` over every built file.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import orjson

from acap import schemas
from acap.builder._context import BuildContext
from acap.builder.pages import final_check_pages_taken, step_hosting_files, step_person_entry_pages
from acap.card import Signer, build_card
from acap.checks import check_site, key_material_in_site, signing_key_in_site
from acap.errors import CanonicalizationError, KeyProblem
from acap.findings import Finding, Location
from acap.keys import dropped_kids, jwks, resolve_signing_key
from acap.uris import SPEC_BASE

__all__ = ["FINAL_CHECKS", "STEPS", "Step", "bug_finding", "json_bytes"]


def json_bytes(data: Any) -> bytes:
    """Pretty JSON as published: 2-space indent, UTF-8 with non-ASCII as is, final newline.

    Written by orjson (the standard library's ``indent=2`` runs its pure-Python encoder:
    a quarter of a batch card's JSON time, issue 16), with the very bytes
    ``json.dumps(data, indent=2, ensure_ascii=False)`` gives (a test compares them):
    data orjson would write otherwise (a float, whose exponent it spells differently;
    an integer beyond 64 bits; a lone surrogate) goes to the standard library."""

    if not _has_float(data):
        try:
            return orjson.dumps(data, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE)
        except TypeError:  # orjson.JSONEncodeError: an integer beyond 64 bits, a surrogate
            pass
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def _has_float(data: Any) -> bool:
    """Whether ``data`` holds a float anywhere (orjson writes floats unlike json.dumps)."""
    stack = [data]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
        elif isinstance(v, float):
            return True
    return False


def bug_finding(message: str, file: str) -> Finding:
    """``ACAP-BUG``: a fault of acap's own, at the operator file, asking for a report."""
    return Finding("ACAP-BUG", "error", message, Location(file),
                   "this is a bug in acap, not in your file: please report it with your "
                   "operator.yaml")


def step_card(ctx: BuildContext) -> None:
    """Build the AgentCard, check it against the shipped schemas, sign it, add the JWKS."""
    cfg = ctx.cfg
    try:
        card = build_card(cfg)
    except (KeyError, TypeError, ValueError) as exc:  # a check that should have caught it
        ctx.report.add(bug_finding("the card could not be built from a checked operator.yaml: "
                                   f"{type(exc).__name__}: {exc}", cfg.loaded.file))
        return
    targets = [(schemas.AGENT_CARD, card, "A2A 1.0 AgentCard")]
    targets += [(schemas.EXTENSION, e.get("params"), "On Request params")
                for e in card["capabilities"].get("extensions", ())]
    for name, value, label in targets:
        for err in schemas.errors(name, value):
            ctx.report.add(bug_finding(f"the built card breaks the {label} schema at "
                                       f"/{'/'.join(map(str, err.absolute_path))}: "
                                       f"{err.message}", cfg.loaded.file))
    if not ctx.report.ok:
        return
    dirs = ctx.options.key_dirs
    check_only = ctx.options.check_only
    resolved = resolve_signing_key(cfg, ctx.site_dir, create=ctx.options.create_key or check_only,
                                   confine=None if dirs is None else (cfg.base_dir, *dirs),
                                   in_memory=check_only)
    ctx.report.extend(resolved.findings)
    ctx.notices.extend(resolved.notices)
    if resolved.key is None:
        return
    try:
        ctx.jwks = jwks(resolved.key, resolved.previous)
        ctx.history = dropped_kids(cfg, ctx.site_dir, ctx.jwks, resolved.site_keys)
        ctx.report.extend(ctx.history)
        ctx.card = Signer(resolved.key, jku=cfg.jwks_url).sign(card)
        ctx.key = resolved.key
    except KeyProblem as exc:
        ctx.report.add(Finding("KEY", "error", str(exc), cfg.at("/signing", key=True), exc.hint))
        return
    except CanonicalizationError as exc:
        ctx.report.add(bug_finding(str(exc), cfg.loaded.file))
        return
    ctx.files.add(cfg.card_url, json_bytes(ctx.card))
    ctx.files.add(cfg.jwks_url, json_bytes(ctx.jwks))


def step_schemas(ctx: BuildContext) -> None:
    """Publish the shipped schemas at the extension URI (spec site builds only)."""
    if not ctx.spec_site:
        return
    for name in schemas.ALL:
        ctx.files.add(SPEC_BASE + name, schemas.schema_bytes(name))


def final_check_site(ctx: BuildContext) -> None:
    """OR-3.9: no value of operator.private.yaml in any built file (card, pages, anything)."""
    ctx.report.extend(check_site(ctx.cfg, ((rel, ctx.files[rel]) for rel in ctx.files)))


def final_check_private_keys(ctx: BuildContext) -> None:
    """KEY-PRIVATE: no PEM private key block and no JWK with private members in any
    built file (:func:`acap.checks.key_material_in_site`): a private key is never
    written into site/, whatever operator.yaml or templates/ hold."""

    files = [(rel, ctx.files[rel]) for rel in ctx.files]
    found = key_material_in_site(ctx.cfg, files, ctx.site_dir)
    if not found and ctx.key is not None:
        found = signing_key_in_site(ctx.cfg, ctx.key.private, files,
                                     ctx.site_dir)
    ctx.report.extend(found)


def step_spec_site(ctx: BuildContext) -> None:
    """Build the specification site at the extension URI (spec site builds only).

    See :mod:`acap.builder.specsite._site`; imported here only when needed, so that MkDocs is
    loaded only by builds that make the site.
    """
    if ctx.spec_site:
        # start-up: MkDocs and the spec sources only when the spec site is built
        from acap.builder.specsite import add_spec_site

        add_spec_site(ctx)


Step = Callable[[BuildContext], None]
#: The steps after loading and checking, in order. Each adds files and findings.
STEPS: list[Step] = [step_card, step_schemas, step_spec_site, step_person_entry_pages,
                     step_hosting_files]  # hosting files last: they list every host's files
#: Checks of the finished site, run after every step has added its files.
FINAL_CHECKS: list[Step] = [final_check_site, final_check_private_keys, final_check_pages_taken]
