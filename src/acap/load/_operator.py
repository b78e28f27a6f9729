"""operator.yaml: load it strictly, check it against its schema, and read it.

:func:`load_operator` is the one entry point. It returns an
:class:`OperatorConfig` that keeps both the data (defaults not applied; use
the accessors) and the location of every value, so that any later check can
point at the line to fix. Schema faults are findings with a did-you-mean for
unknown keys and a rule id where the field belongs to a requirement
(``x-rule`` in the schema, e.g. ``OR-3.5`` for ``assistantAccess``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import SplitResult, urlsplit

from acap import schemas
from acap.findings import Finding, Location
from acap.load._files import Root, given_root
from acap.load._schema_findings import schema_findings, text_findings
from acap.load._yaml import START_HINT, Loaded, QuickLoaded, load_bytes, load_file
from acap.uris import card_url, jwks_url

DEFAULT_KEY_FILE = ".acap/signing-key.pem"
DEFAULT_PREVIOUS_KEYS = "keys/previous-keys.json"
#: Environment variable holding the private key itself (PEM or JWK text), for CI secrets.
KEY_ENV = "ACAP_SIGNING_KEY"


@dataclass
class OperatorConfig:
    """A loaded operator.yaml.

    Attributes:
        path: the file.
        loaded: data and value locations from :mod:`acap.load._yaml`.
        findings: loading and schema findings (empty when the file is valid).
    """

    path: Path
    loaded: Loaded
    findings: list[Finding] = field(default_factory=list)

    # -- data access ---------------------------------------------------------------
    # What is read from the data is worked out once (a loaded file's data does not
    # change, and a build asks for the card host a dozen times).
    @property
    def data(self) -> dict[str, Any]:
        """The raw data; ``{}`` when the file could not be read as a mapping."""
        d = self.loaded.data
        return d if isinstance(d, dict) else {}

    @cached_property
    def base_dir(self) -> Path:
        """The folder of operator.yaml; relative paths in it are relative to this."""
        return self.path.parent

    def at(self, pointer: str, *, key: bool = False) -> Location:
        """The location of a JSON pointer into the file (of its key with ``key=True``)."""
        return self.loaded.location(pointer, key=key)

    def skills(self) -> Iterator[tuple[str, dict[str, Any]]]:
        """Each skill with its JSON pointer: ``("/skills/0", {...})``."""
        for i, s in enumerate(self.data.get("skills") or []):
            if isinstance(s, dict):
                yield f"/skills/{i}", s

    def on_request_skills(self) -> Iterator[tuple[str, dict[str, Any]]]:
        """The skills with ``kind: on-request``, with their pointers."""
        return ((p, s) for p, s in self.skills() if s.get("kind") == "on-request")

    @cached_property
    def website(self) -> str:
        """operator.website (AgentCard.provider.url); ``""`` when it is not text."""
        op = self.data.get("operator")
        site = op.get("website") if isinstance(op, dict) else None
        return site if isinstance(site, str) else ""

    @cached_property
    def card_host(self) -> str:
        """Host the card is published on: ``cardHost``, else operator.website's host."""
        host = self.data.get("cardHost")
        return _card_host(host if isinstance(host, str) else None, self.website)

    @cached_property
    def card_url(self) -> str:
        """The card's URL (A2A §8.2 well-known location on the card host)."""
        return card_url(self.card_host)

    @cached_property
    def jwks_url(self) -> str:
        """The JWKS URL put in ``jku``: on the card's own origin."""
        return jwks_url(self.card_host)

    @cached_property
    def hosts(self) -> dict[str, dict[str, Any]]:
        """Every host acap builds, card host first: ``{host: settings}`` (no empty host)."""
        out: dict[str, dict[str, Any]] = {self.card_host: {}} if self.card_host else {}
        hosts = self.data.get("hosts")
        for host, settings in hosts.items() if isinstance(hosts, dict) else ():
            out[str(host).lower()] = settings if isinstance(settings, dict) else {}
        return out

    @cached_property
    def website_host(self) -> str:
        """The host of operator.website (A-label, lower case); ``""`` when there is none."""
        site = _split(self.website)
        return _a_label((site.hostname or "").rstrip(".")) if site else ""

    def overlay(self, host: str) -> bool:
        """Whether acap only adds its own files on ``host`` (``hosts.<host>.overlay``),
        beside a website it did not make, rather than owning the host whole.

        Default: true for the host of operator.website (the operator's own website) and
        for a host with ``ownPages: true`` (a home page of its own), false for any
        other host (acap's own pages, e.g. the personEntry host). On such a host the
        build writes no ``index.html`` and no ``404.html``, and ``acap publish`` adds and
        updates acap's files and removes only files it put there itself.
        """
        host = host.lower()
        settings = self.hosts.get(host, {})
        value = settings.get("overlay")
        if isinstance(value, bool):
            return value
        return host == self.website_host or settings.get("ownPages") is True

    @cached_property
    def own_origins(self) -> list[str]:
        """Origins the operator declares as its own (OR-3.4): website, hosts, ownOrigins."""
        origins = []
        site = _split(self.website)
        if site and site.scheme and site.hostname:
            origins.append(f"{site.scheme}://{site.netloc.lower()}")
        origins += [f"https://{h}" for h in self.hosts]
        own = self.data.get("ownOrigins")
        for o in own if isinstance(own, list) else ():
            u = _split(str(o))
            if u:
                origins.append(f"{u.scheme}://{u.netloc.lower()}")
        return list(dict.fromkeys(origins))

    @property
    def signing(self) -> dict[str, Any]:
        """The ``signing`` section, ``{}`` when absent."""
        s = self.data.get("signing")
        return s if isinstance(s, dict) else {}

    # The paths below are computed once (a build asks for them a dozen times); a loaded
    # file's data does not change.
    @cached_property
    def key_file(self) -> Path:
        """Where the private key lives (absolute), default ``.acap/signing-key.pem``."""
        return self.base_dir / str(self.signing.get("keyFile", DEFAULT_KEY_FILE))

    @cached_property
    def previous_keys_file(self) -> Path:
        """Public JWKS of previous keys kept for rotation (absolute)."""
        return self.base_dir / str(self.signing.get("previousKeys", DEFAULT_PREVIOUS_KEYS))

    def display_path(self, path: Path) -> str:
        """``path`` as messages show it: relative to operator.yaml's folder when it is
        inside it (as written when it is so written, else after resolving links), else
        as is."""
        if path.is_absolute() and ".." not in path.parts and path.is_relative_to(self.base_dir):
            return str(path.relative_to(self.base_dir))
        try:
            return str(path.resolve().relative_to(self.base_dir.resolve()))
        except ValueError:
            return str(path)

    @cached_property
    def root(self) -> Root:
        """The project folder (operator.yaml's), as the root of the files it names: a
        link inside it is followed to a file inside it, never out (see
        :mod:`acap.load._files`)."""
        return Root(self.base_dir, "the project folder", "inside")

    def root_of(self, path: Path) -> Root:
        """The root of a file operator.yaml names: the project folder when the path leads
        into it, else the folder the path names (an absolute ``keyFile`` elsewhere).
        Worked out once a path (a build asks for the key files' roots a dozen times)."""
        roots: dict[str, Root] = self.__dict__.setdefault("_roots", {})
        named = str(path)
        found = roots.get(named)
        if found is None:
            base = str(self.base_dir)
            below = named[len(base) + 1:] if named.startswith(base + os.sep) else None
            if below and ".." not in below.split(os.sep):
                # written inside the project folder, no ``..``: given_root's answer, the
                # project folder, without its path arithmetic (a batch asks per tenant)
                found = self.root
            else:
                found = given_root(path, base=self.base_dir, name="the project folder")
            roots[named] = found
        return found

    @cached_property
    def private_values_file(self) -> Path:
        """The file of values given on request (OR-3.9), never published: beside
        operator.yaml (see :func:`private_path_for`)."""
        return private_path_for(self.path)

    @property
    def key_from_env(self) -> str | None:
        """The private key text from ``ACAP_SIGNING_KEY``, if set and non-empty."""
        return os.environ.get(KEY_ENV) or None


def private_path_for(config: Path) -> Path:
    """The private file of an operator file: beside it, named after it with
    ``.private.yaml``: ``operator.yaml`` -> ``operator.private.yaml``, and in a batch
    folder ``chapel.yaml`` -> ``chapel.private.yaml`` (each operator its own)."""
    return config.with_name(config.stem + ".private.yaml")


def _split(url: str) -> SplitResult | None:
    """``urlsplit(url)``, or ``None`` for text it cannot read (``https://[``); the
    properties above stay total so that checks can report what is wrong."""
    try:
        u = urlsplit(url)
        u.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError:
        return None
    return u


@lru_cache(maxsize=256)
def _card_host(card_host: str | None, website: str) -> str:
    """:attr:`OperatorConfig.card_host` from its two inputs (kept: a build asks often)."""
    host = card_host
    if not host:
        site = _split(website)
        host = (site.hostname if site else None) or ""
    return _a_label(host.lower().rstrip("."))


def _a_label(host: str) -> str:
    """An internationalised host name in its ASCII (A-label) form, IDNA 2008 (RFC 5891):
    the form DNS, TLS certificates and static hosts use. Other hosts are returned as is."""
    if host.isascii():
        return host
    import idna  # only for non-ASCII hosts

    try:
        return str(idna.encode(host, uts46=True).decode("ascii"))
    except idna.IDNAError:
        return host


def load_operator(path: str | Path, display: str | None = None, *,
                  inside: Sequence[Path] | None = None, quick: bool = False,
                  raw: bytes | None = None) -> OperatorConfig:
    """Load operator.yaml and check it against ``operator.schema.json``.

    Args:
        path: the file.
        display: how to name the file in findings (default: as given).
        inside: folders the file must lie in once links are followed (a batch
            tenant's own folder), or ``None``; a file outside is a ``FILE`` error,
            unread (see :func:`acap.load.read_regular`).
        quick: the quick way (a batch, issue 24): a file that loads with no finding and
            passes the schema keeps the place of each value only down to
            :data:`acap.load._yaml.SHALLOW`, deeper places found when a finding asks
            for one (:class:`acap.load._yaml.QuickLoaded`); any other is loaded the
            located way. The data and every finding are the same either way.
        raw: the file's bytes when they come from elsewhere (``acap check -``: standard
            input, read by the caller within :data:`acap.load._yaml.MAX_BYTES` + 1);
            ``path`` is then not read, only where the file stands (its folder holds
            operator.private.yaml and templates/). Always loaded the located way.

    Returns:
        An :class:`OperatorConfig`; ``findings`` holds every loading and schema
        fault (rules ``YAML-*``, ``SCHEMA-*`` or the field's ``OR-*`` rule).
        Never raises for bad content or a missing file.
    """
    p = Path(path)
    schema = schemas.schema(schemas.OPERATOR)
    if raw is not None:
        loaded: Loaded | QuickLoaded = load_bytes(raw, schema, display or str(path))
    else:
        loaded = load_file(p, schema, display or str(path), inside=inside, quick=quick)
    if isinstance(loaded, QuickLoaded):
        if isinstance(loaded.data, dict) and not schemas.errors(schemas.OPERATOR, loaded.data):
            return OperatorConfig(p, loaded, text_findings(loaded, schemas.OPERATOR, set()))
        loaded = loaded.located()  # its schema findings say what they say the located way
    cfg = OperatorConfig(p, loaded, list(loaded.findings))
    if loaded.data is None and loaded.findings:
        return cfg
    if not isinstance(loaded.data, dict):
        what = "a list" if isinstance(loaded.data, list) else "a single value"
        cfg.findings.append(Finding(
            "SCHEMA-TYPE", "error", f"the top level of {loaded.file} must be keys "
            f"(operator:, agent:, skills: ...), found {what}", loaded.location(""),
            START_HINT))
        return cfg
    already = {f.location.pointer for f in loaded.findings}
    found = schema_findings(loaded, schemas.OPERATOR, skip=already)
    cfg.findings.extend(found)
    cfg.findings.extend(text_findings(loaded, schemas.OPERATOR,
                                      skip=already | {f.location.pointer for f in found}))
    return cfg


