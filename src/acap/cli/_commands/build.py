"""``acap build``: operator.yaml -> site/ (or many operator files -> one site/)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from acap.builder import BuildOptions
from acap.builder import build as run_build
from acap.cli._commands._common import format_option, reporter

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
@click.option("-j", "--jobs", type=click.IntRange(min=0), default=None,
              help="Processes for several operator files [default: one per CPU this "
                   "process may use; 0 too].")
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
@click.option("--key-dir", "key_dirs", multiple=True, type=click.Path(path_type=Path),
              help="Several operator files: a folder the operators' key files may lie in "
                   "besides each one's own folder (repeatable; a folder no tenant writes).")
@click.option("--full", is_flag=True,
              help="Several operator files: rebuild every operator, also those whose files "
                   "and outputs did not change since the last build.")
@format_option
def build(configs: tuple[Path, ...], config: Path | None, site_dir: Path | None,
          spec_site: bool | None, pages: bool, jobs: int | None, strict: bool, force: bool,
          prune: bool, new_keys: bool, key_dirs: tuple[Path, ...], full: bool,
          fmt: str) -> None:
    """Build site/ from operator.yaml: signed card, JWKS, pages, hosting files.

    \b
    CONFIGS: operator files or folders of them, built together into one
    site/ (a failed operator keeps its previous folders; the others build;
    operators of the last build not among them are kept unless --prune).
    """
    if config is not None and configs:
        raise click.UsageError("give operator files as arguments or with -c, not both")
    if len(configs) > 1 or (configs and configs[0].is_dir()):
        # start-up: the batch machinery only for several operator files
        from acap.builder.batch import BatchOptions, default_jobs

        _batch(BatchOptions(configs=configs, site_dir=site_dir or Path("site"),
                            jobs=jobs or default_jobs(), pages=pages, spec_site=spec_site,
                            strict=strict, force=force, prune=prune, new_keys=new_keys,
                            key_dirs=key_dirs, full=full), fmt)
        return
    if prune or new_keys or key_dirs or full:
        raise click.UsageError("--prune, --new-keys, --key-dir and --full are for several "
                               "operator files")

    config = config or (configs[0] if configs else Path("operator.yaml"))
    result = run_build(BuildOptions(config=config, site_dir=site_dir, spec_site=spec_site,
                                    strict=strict, pages=pages, force=force))
    reporter(fmt, strict).build(result)
    sys.exit(0 if result.ok else 1)


def _batch(options: BatchOptions, fmt: str) -> None:
    # start-up: the batch machinery only for several operator files
    from acap.builder.batch import build_many

    result = build_many(options)
    reporter(fmt, options.strict).batch(result, options)
    sys.exit(0 if result.outcomes and not result.failed and result.report.ok else 1)
