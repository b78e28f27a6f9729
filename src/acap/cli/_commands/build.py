"""``acap build``: operator.yaml -> site/ (or many operator files -> one site/)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from acap.cli._commands._common import FORMATS, emit_report

if TYPE_CHECKING:
    from acap.builder.batch import BatchOptions


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
@click.option("--prune", is_flag=True,
              help="Several operator files: remove the folders of operators the last build "
                   "had that are not among them (kept otherwise).")
@click.option("--new-keys", is_flag=True,
              help="Several operator files: make a signing key for an operator that has "
                   "none (otherwise it fails).")
@click.option("--format", "fmt", type=FORMATS, default="text", show_default=True,
              help="How to print findings.")
def build(configs: tuple[Path, ...], config: Path | None, site_dir: Path | None,
          spec_site: bool | None, pages: bool, jobs: int, strict: bool, force: bool,
          prune: bool, new_keys: bool, fmt: str) -> None:
    """Build site/ from operator.yaml: signed card, JWKS, pages, hosting files.

    \b
    CONFIGS: operator files or folders of them, built together into one
    site/ (a failed operator keeps its previous folders; the others build;
    operators of the last build not among them are kept unless --prune).
    """
    if config is not None and configs:
        raise click.UsageError("give operator files as arguments or with -c, not both")
    if len(configs) > 1 or (configs and configs[0].is_dir()):
        from acap.builder.batch import BatchOptions, default_jobs

        _batch(BatchOptions(configs=configs, site_dir=site_dir or Path("site"),
                            jobs=jobs or default_jobs(), pages=pages, spec_site=spec_site,
                            strict=strict, force=force, prune=prune, new_keys=new_keys), fmt)
        return
    if prune or new_keys:
        raise click.UsageError("--prune and --new-keys are for several operator files")
    from acap.builder import BuildOptions
    from acap.builder import build as run_build

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


def _batch(options: BatchOptions, fmt: str) -> None:
    import json

    from acap.builder.batch import build_many

    result = build_many(options)
    errors, warnings = result.totals()
    if fmt == "json":
        click.echo(json.dumps({
            "site": str(result.site_dir), "written": result.written,
            "operators": [{"config": str(o.config), "built": o.built, "card": o.card_url,
                           "findings": [f.to_json() for f in o.report.sorted()]}
                          for o in result.outcomes],
            "kept": result.kept, "pruned": result.pruned,
            "findings": [f.to_json() for f in result.report.sorted()],
            "errors": errors, "warnings": warnings,
        }, indent=2, ensure_ascii=False))
    else:
        for o in result.outcomes:
            for note in o.notices:
                click.echo(f"note: {o.config}: {note}", err=True)
            if len(o.report):
                click.echo(o.report.format_text(summary=False), err=True)
        if len(result.report):
            click.echo(result.report.format_text(summary=False), err=True)
        click.echo(f"{errors} error{'s' * (errors != 1)}, {warnings} "
                   f"warning{'s' * (warnings != 1)} in {len(result.outcomes)} operator files",
                   err=True)
        n, total = len(result.built), len(result.outcomes)
        if result.written:
            click.echo(f"built {n} of {total} operators into {result.site_dir}/")
        else:
            click.echo(f"nothing written to {result.site_dir}/ ({n} of {total} operators "
                       "built without error)")
        for o in result.failed:
            click.echo(f"not built: {o.config} (its previous folders, if any, were kept)",
                       err=True)
        if result.kept and result.written:
            n_kept = len(result.kept)
            why = "not pruned: see the warning above" if options.prune else \
                "--prune removes them"
            click.echo(f"kept: {n_kept} operator{'s' * (n_kept != 1)} of the last build that "
                       f"{'are' if n_kept != 1 else 'is'} not in this one ({why})", err=True)
        if result.pruned:
            click.echo(f"pruned: {', '.join(result.pruned)}", err=True)
    sys.exit(0 if result.outcomes and not result.failed and result.report.ok() else 1)
