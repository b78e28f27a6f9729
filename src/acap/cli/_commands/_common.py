"""Helpers shared by the command modules: output formats and printing findings."""

from __future__ import annotations

from typing import Any

import click

FORMATS = click.Choice(["text", "json"])
CONFIG_HELP = "The operator file."


def emit_report(report: Any, fmt: str) -> None:
    """Print a :class:`~acap.findings.Report`: JSON on stdout, or text on stderr."""
    if fmt == "json":
        click.echo(report.format_json())
    elif len(report):
        click.echo(report.format_text(), err=True)
