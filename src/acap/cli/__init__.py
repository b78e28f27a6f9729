"""The ``acap`` command: click commands, one module per command, and the reporters that
render every result as text, JSON, SARIF or GitHub workflow commands.

Thin on purpose: a command parses its options, calls one library function, and hands
the result to a reporter (``--format text|json|sarif|github``). Exit status: 0 success (warnings
allowed unless ``--strict``), 1 findings with errors (or a failed verification), 2
usage errors, 130 interrupted. Nothing below this package imports click or prints.

May import: every stage.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from acap._lazy import exports

if TYPE_CHECKING:
    from acap.cli._ci_formats import GithubReporter as GithubReporter
    from acap.cli._ci_formats import SarifReporter as SarifReporter
    from acap.cli._ci_formats import annotation as annotation
    from acap.cli._ci_formats import sarif_log as sarif_log
    from acap.cli._formats import REPORTERS as REPORTERS
    from acap.cli._group import cli as cli
    from acap.cli._group import main as main
    from acap.cli._reference import cli_reference as cli_reference
    from acap.cli._reporters import OUTPUT_VERSION as OUTPUT_VERSION
    from acap.cli._reporters import Echo as Echo
    from acap.cli._reporters import JsonReporter as JsonReporter
    from acap.cli._reporters import Reporter as Reporter
    from acap.cli._reporters import TextReporter as TextReporter
    from acap.cli._reporters import finding_json as finding_json
    from acap.cli._reporters import finding_text as finding_text
    from acap.cli._reporters import findings_of as findings_of
    from acap.cli._reporters import output_json as output_json
    from acap.cli._reporters import report_json as report_json
    from acap.cli._reporters import report_text as report_text
    from acap.cli._reporters import shown as shown
    from acap.cli._reporters import terminal_safe as terminal_safe
    from acap.cli._reporters import use_color as use_color

__getattr__, __dir__ = exports(__name__)
