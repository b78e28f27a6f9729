"""What a build is asked to do, the state its steps share, and what it did.

:class:`BuildOptions` -> the steps fill one :class:`BuildContext` -> :class:`BuildResult`.
The steps (:mod:`acap.builder._steps`, the page steps, the spec site) read and add to the
context only; nothing here runs a step, so every step can import this module.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acap.findings import Finding, Report, Result
from acap.keys import SigningKey
from acap.load import OperatorConfig
from acap.site import SiteFiles

__all__ = ["BuildContext", "BuildOptions", "BuildResult"]


@dataclass
class BuildOptions:
    """What to build.

    Attributes:
        config: operator.yaml.
        site_dir: output folder; default ``site`` beside operator.yaml.
        spec_site: build the specification site; ``None`` follows operator.yaml
            ``specSite`` (default false).
        create_key: create a signing key when none exists.
        write: write site/ (``False`` checks and builds in memory only).
        strict: warnings fail the build too (nothing is written).
        pages: build the HTML pages (personEntry, root and 404 pages, spec
            site); ``False`` builds the signed card, JWKS and hosting files only
            (batch builds for hosting platforms).
        force: replace a site folder holding another card's build, or files the
            previous build did not write (:mod:`acap.site._guard`).
        key_dirs: a batch tenant's build: the folders, besides the operator's own, that
            its key files may lie in (``--key-dir``); ``None`` (a build of one's own):
            key files may lie anywhere (:func:`acap.keys.resolve_signing_key`).
        check_only: ``acap check operator.yaml``: every check of a build, with nothing
            written and no key needed (a missing key is made in memory for this run
            and forgotten; ``write`` is ignored).
        template_seconds: how long the operator's page templates may take to render,
            all its pages together (seconds); past it the build stops with a
            ``PAGE-TEMPLATE`` error (attacker trial, HIGH 3).
    """

    config: Path = Path("operator.yaml")
    site_dir: Path | None = None
    spec_site: bool | None = None
    create_key: bool = True
    write: bool = True
    strict: bool = False
    pages: bool = True
    force: bool = False
    key_dirs: tuple[Path, ...] | None = None
    template_seconds: float = 5.0
    check_only: bool = False

    def resolved_site_dir(self) -> Path:
        """``site_dir``, or ``site`` next to operator.yaml."""
        return self.site_dir if self.site_dir is not None else self.config.parent / "site"


@dataclass
class BuildContext:
    """State shared by the build steps.

    Attributes:
        cfg: the loaded operator.yaml.
        options: the build options.
        files: the files built so far, by path under site/.
        report: every finding so far.
        card: the signed AgentCard (set by the card step).
        jwks: the JWKS document (set by the card step).
        notices: things the user must be told (a key was created).
        key: the signing key (set by the card step; never written anywhere).
        history: the findings of the kid history check (:func:`acap.keys.dropped_kids`),
            also in ``report``: they judge the JWKS site/ holds for the card's host, and a
            batch drops them for an operator refused that host because it is another
            operator's (``SITE-HOST``): that history is not this operator's.
        render_meter: the deadline and total of the operator's page renders, shared by
            the page steps (``acap.builder.pages._bounded.Meter``; set on first render).
    """

    cfg: OperatorConfig
    options: BuildOptions
    files: SiteFiles = field(default_factory=SiteFiles)
    report: Report = field(default_factory=Report)
    card: dict[str, Any] | None = None
    jwks: dict[str, Any] | None = None
    notices: list[str] = field(default_factory=list)
    key: SigningKey | None = None
    history: list[Finding] = field(default_factory=list)
    render_meter: Any = None

    @property
    def site_dir(self) -> Path:
        """The output folder (``options.site_dir``, else ``site`` beside operator.yaml)."""
        return self.options.resolved_site_dir()

    @property
    def spec_site(self) -> bool:
        """Whether the specification site is built this time (never with ``pages`` off:
        the spec site is pages too)."""
        if not self.options.pages:
            return False
        if self.options.spec_site is not None:
            return self.options.spec_site
        return bool(self.cfg.data.get("specSite", False))


@dataclass(repr=False)
class BuildResult(Result):
    """What a build did.

    Attributes:
        report: all findings; ``report.ok`` tells success.
        files: the files built (complete only when the build succeeded).
        site_dir: where they were (or would have been) written.
        card: the signed card, or ``None``.
        notices: messages for the user (never key material).
        written: whether site/ was replaced.
        card_url: where the card is published (A2A §8.2), or ``None`` when
            operator.yaml could not be read far enough to say.
        strict: whether warnings failed the build (``BuildOptions.strict``).
        overlay: ``{host: True}`` for each host built where acap only adds its files
            beside the operator's own website, ``False`` where acap's files are the
            whole site (:meth:`acap.load.OperatorConfig.overlay`), in site order.
        servers: the folders under site/ holding web server settings for a host
            (Apache, nginx, Caddy; :mod:`acap.builder.pages._servers`), as written.
    """

    report: Report
    files: SiteFiles
    site_dir: Path
    card: dict[str, Any] | None
    notices: list[str]
    written: bool
    card_url: str | None = None
    strict: bool = False
    overlay: dict[str, bool] = field(default_factory=dict)
    servers: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when the build succeeded (no error; no warning either with ``strict``)."""
        return self.passes(self.strict)

    def _subject(self) -> str:
        return self.card_url or ""
