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
    from acap.builder import BuildOptions as BuildOptions
    from acap.builder import BuildResult as BuildResult
    from acap.builder import build as build
    from acap.builder.batch import BatchOptions as BatchOptions
    from acap.builder.batch import BatchResult as BatchResult
    from acap.builder.batch import build_many as build_many
    from acap.card import Signer as Signer
    from acap.card import Verification as Verification
    from acap.card import Verifier as Verifier
    from acap.card import verify_card as verify_card
    from acap.checks import CardCheck as CardCheck
    from acap.checks import check_card as check_card
    from acap.errors import AcapError as AcapError
    from acap.findings import Finding as Finding
    from acap.findings import Location as Location
    from acap.findings import Report as Report
    from acap.findings import Result as Result
    from acap.keys import SigningKey as SigningKey
    from acap.keys import load_signing_key as load_signing_key
    from acap.load import OperatorConfig as OperatorConfig
    from acap.load import load_operator as load_operator
    from acap.publisher import PublishOptions as PublishOptions
    from acap.publisher import PublishResult as PublishResult
    from acap.publisher import publish as publish
    from acap.replies import ReplyCheck as ReplyCheck
    from acap.replies import check_reply as check_reply
    from acap.replies import decide as decide

__getattr__, __dir__ = exports(__name__)
