"""Which reporter answers each ``--format`` (:mod:`acap.cli._reporters`,
:mod:`acap.cli._ci_formats`)."""

from __future__ import annotations

from acap.cli._ci_formats import GithubReporter, SarifReporter
from acap.cli._reporters import JsonReporter, JUnitReporter, Reporter, TextReporter

__all__ = ["PROBE_REPORTERS", "REPORTERS"]

#: The reporter of each ``--format`` of every command that reports findings.
REPORTERS: dict[str, type[Reporter]] = {
    r.name: r for r in (TextReporter, JsonReporter, SarifReporter, GithubReporter)}

#: The reporter of each ``acap probe --format`` (JUnit XML is the probe's alone).
PROBE_REPORTERS: dict[str, type[Reporter]] = {**REPORTERS, JUnitReporter.name: JUnitReporter}
