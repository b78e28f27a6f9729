"""``acap build``: operator.yaml -> site/ (or many operator files -> one site/)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ._common import FORMATS, emit_report


@click.command()
@click.argument("configs", nargs=-1, type=click.Path(path_type=Path))
@click.option("-c", "--config", type=click.Path(path_type=Path), default=None,
              help="The operator file [default: operator.yaml].")
@click.option("--site-dir", type=click.Path(path_type=Path), default=None,
              help="Output folder [default: site/ beside the operator file; site/ here "
                   "for several].")
@click.option("--spec-site/--no-spec-site", default=None,
              help="Build the specification site too [default: as operator.yaml says].")
@click.option("--pages/--no-pages", default=True, show_default=True,
              help="Build the HTML pages (--no-pages: card, JWKS and hosting files only).")
@click.option("-j", "--jobs", type=click.IntRange(min=0), default=1, show_default=True,
              help="Processes for several operator files (0: one per CPU).")
@click.option("--strict", is_flag=True, help="Warnings fail the build too.")
@click.option("--force", is_flag=True,
              help="Replace a site folder that holds another card's build, or files the "
                   "last build did not write (they are deleted).")
@click.option("--format", "fmt", type=FORMATS, default="text", show_default=True,
              help="How to print findings.")
def build(configs: tuple[Path, ...], config: Path | None, site_dir: Path | None,
          spec_site: bool | None, pages: bool, jobs: int, strict: bool, force: bool,
          fmt: str) -> None:
    """Build site/ from operator.yaml: signed card, JWKS, pages, hosting files.

    \b
    CONFIGS: operator files or folders of them, built together into one
    site/ (a failed operator keeps its previous folders; the others build).
    """
    if config is not None and configs:
        raise click.UsageError("give operator files as arguments or with -c, not both")
    if len(configs) > 1 or (configs and configs[0].is_dir()):
        _batch(configs, site_dir, spec_site, pages, jobs, strict, fmt, force)
        return
    from ..build import BuildOptions
    from ..build import build as run_build

    config = config or (configs[0] if configs else Path("operator.yaml"))
    result = run_build(BuildOptions(config=config, site_dir=site_dir, spec_site=spec_site,
                                    strict=strict, pages=pages, force=force))
    for note in result.notices:
        click.echo(f"note: {note}", err=True)
    emit_report(result.report, fmt)
    if not result.ok:
        why = "warnings fail the build with --strict" if result.report.ok() else \
            "errors in " + ", ".join(dict.fromkeys(f.location.file for f in result.report.errors))
        kept = f"; {result.site_dir} was left as it was" if result.site_dir.exists() else ""
        click.echo(f"not built: {why}{kept}", err=True)
        sys.exit(1)
    if fmt == "text":
        hosts = ", ".join(result.files.hosts())
        click.echo(f"built {result.site_dir}/ ({len(result.files)} files: {hosts})")
        if result.card_url:
            click.echo(f"card: {result.card_url}")


def _batch(configs: tuple[Path, ...], site_dir: Path | None, spec_site: bool | None,
           pages: bool, jobs: int, strict: bool, fmt: str, force: bool = False) -> None:
    import json

    from ..batch import BatchOptions, build_many, default_jobs

    result = build_many(BatchOptions(configs=configs, site_dir=site_dir or Path("site"),
                                     jobs=jobs or default_jobs(), pages=pages,
                                     spec_site=spec_site, strict=strict, force=force))
    if fmt == "json":
        click.echo(json.dumps({
            "site": str(result.site_dir), "written": result.written,
            "operators": [{"config": str(o.config), "built": o.built, "card": o.card_url,
                           "findings": [f.to_json() for f in o.report.sorted()]}
                          for o in result.outcomes],
            "findings": [f.to_json() for f in result.report.sorted()],
        }, indent=2, ensure_ascii=False))
    else:
        for o in result.outcomes:
            for note in o.notices:
                click.echo(f"note: {o.config}: {note}", err=True)
            if len(o.report):
                click.echo(o.report.format_text(), err=True)
        emit_report(result.report, fmt)
        click.echo(f"built {len(result.built)} of {len(result.outcomes)} operators into "
                   f"{result.site_dir}/" + ("" if result.written else " (nothing written)"))
        for o in result.failed:
            click.echo(f"not built: {o.config} (its previous folders, if any, were kept)",
                       err=True)
    sys.exit(0 if result.outcomes and not result.failed and result.report.ok() else 1)
