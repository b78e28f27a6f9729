"""The ``acap`` command: click commands, one module per command, and the reporters that
render every result as text or JSON.

Thin on purpose: a command parses its options, calls one library function, and hands
the result to a reporter (``--format text|json``). Exit status: 0 success (warnings
allowed unless ``--strict``), 1 findings with errors (or a failed verification), 2
usage errors, 130 interrupted. Nothing below this package imports click or prints.

May import: every stage.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from acap._lazy import exports

if TYPE_CHECKING:
    from acap.cli._group import cli as cli
    from acap.cli._group import main as main
    from acap.cli._reporters import REPORTERS as REPORTERS
    from acap.cli._reporters import Echo as Echo
    from acap.cli._reporters import JsonReporter as JsonReporter
    from acap.cli._reporters import Reporter as Reporter
    from acap.cli._reporters import TextReporter as TextReporter
    from acap.cli._reporters import finding_json as finding_json
    from acap.cli._reporters import finding_text as finding_text
    from acap.cli._reporters import report_json as report_json
    from acap.cli._reporters import report_text as report_text
    from acap.cli._reporters import shown as shown
    from acap.cli._reporters import terminal_safe as terminal_safe

__getattr__, __dir__ = exports(__name__)
