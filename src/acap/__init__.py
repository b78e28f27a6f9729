"""acap: build, sign, check and publish an A2A 1.0 Agent Card with the On Request extension.

The library is the product; the ``acap`` command is a thin layer over it::

    from pathlib import Path
    import acap

    result = acap.build(acap.BuildOptions(config=Path("operator.yaml")))
    for finding in result.report:            # every problem, at its file and line
        print(finding.location, finding.rule, finding.message, finding.hint)

    checked = acap.check_card("https://example.com/.well-known/agent-card.json")
    verified = acap.verify_card("site/example.com/.well-known/agent-card.json")

The names below are the public API; every other module is private (``_``-prefixed) or
a stage's own API (:mod:`acap.load`, :mod:`acap.checks`, :mod:`acap.keys`,
:mod:`acap.card`, :mod:`acap.site`, :mod:`acap.builder`, :mod:`acap.publisher`,
:mod:`acap.replies`). Names load on first use, so ``import acap`` costs nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from acap._lazy import exports

if TYPE_CHECKING:
    from acap._package import __version__ as __version__
    from acap.builder import (
        BuildOptions as BuildOptions,
        BuildResult as BuildResult,
        build as build,
    )
    from acap.builder.batch import (
        BatchOptions as BatchOptions,
        BatchResult as BatchResult,
        build_many as build_many,
    )
    from acap.card import (
        Signer as Signer,
        Verification as Verification,
        Verifier as Verifier,
        verify_card as verify_card,
    )
    from acap.checks import CardCheck as CardCheck, check_card as check_card
    from acap.errors import AcapError as AcapError
    from acap.findings import Finding as Finding, Location as Location, Report as Report
    from acap.keys import SigningKey as SigningKey, load_signing_key as load_signing_key
    from acap.load import OperatorConfig as OperatorConfig, load_operator as load_operator
    from acap.publisher import (
        PublishOptions as PublishOptions,
        PublishResult as PublishResult,
        publish as publish,
    )
    from acap.replies import check_reply as check_reply, decide as decide

__getattr__, __all__ = exports(__name__, {
    "acap._package": ["__version__"],
    "acap.findings": ["Finding", "Location", "Report"],
    "acap.errors": ["AcapError"],
    "acap.load": ["OperatorConfig", "load_operator"],
    "acap.builder": ["BuildOptions", "BuildResult", "build"],
    "acap.builder.batch": ["BatchOptions", "BatchResult", "build_many"],
    "acap.checks": ["CardCheck", "check_card"],
    "acap.card": ["Signer", "Verification", "Verifier", "verify_card"],
    "acap.keys": ["SigningKey", "load_signing_key"],
    "acap.replies": ["check_reply", "decide"],
    "acap.publisher": ["PublishOptions", "PublishResult", "publish"],
})
