"""``acap build``: operator.yaml -> site/."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ._common import FORMATS, emit_report


@click.command()
@click.option("-c", "--config", type=click.Path(path_type=Path), default=Path("operator.yaml"),
              show_default=True, help="The operator file.")
@click.option("--site-dir", type=click.Path(path_type=Path), default=None,
              help="Output folder [default: site/ beside the operator file].")
@click.option("--spec-site/--no-spec-site", default=None,
              help="Build the specification site too [default: as operator.yaml says].")
@click.option("--strict", is_flag=True, help="Warnings fail the build too.")
@click.option("--format", "fmt", type=FORMATS, default="text", show_default=True,
              help="How to print findings.")
def build(config: Path, site_dir: Path | None, spec_site: bool | None, strict: bool,
          fmt: str) -> None:
    """Build site/ from operator.yaml: signed card, JWKS, pages, hosting files."""
    from ..build import BuildOptions
    from ..build import build as run_build

    opts = BuildOptions(config=config, site_dir=site_dir, spec_site=spec_site)
    if strict:
        opts.write = False
    result = run_build(opts)
    for note in result.notices:
        click.echo(f"note: {note}", err=True)
    emit_report(result.report, fmt)
    if strict and result.report.ok() and not result.report.ok(strict=True):
        click.echo("not written: warnings fail the build with --strict", err=True)
        sys.exit(1)
    if strict and result.report.ok():
        opts.write = True
        result = run_build(opts)
    if not result.report.ok():
        click.echo(f"not built: {config} has errors; site/ was left as it was", err=True)
        sys.exit(1)
    if fmt == "text":
        hosts = ", ".join(result.files.hosts())
        click.echo(f"built {result.site_dir}/ ({len(result.files)} files: {hosts})")
        if result.card is not None:
            from ..operator_config import load_operator

            click.echo(f"card: {load_operator(config).card_url}")
