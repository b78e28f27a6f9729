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

    result = run_build(BuildOptions(config=config, site_dir=site_dir, spec_site=spec_site,
                                    strict=strict))
    for note in result.notices:
        click.echo(f"note: {note}", err=True)
    emit_report(result.report, fmt)
    if not result.ok:
        why = "warnings fail the build with --strict" if result.report.ok() else \
            f"{config} has errors"
        click.echo(f"not built: {why}; {result.site_dir} was left as it was", err=True)
        sys.exit(1)
    if fmt == "text":
        hosts = ", ".join(result.files.hosts())
        click.echo(f"built {result.site_dir}/ ({len(result.files)} files: {hosts})")
        if result.card_url:
            click.echo(f"card: {result.card_url}")
