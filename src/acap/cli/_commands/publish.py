"""``acap publish``: site/ -> GitHub Pages branches or directories, checked first."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from acap.cli._commands._common import FORMATS, config_option, reporter
from acap.publisher import PublishOptions
from acap.publisher import publish as run_publish


@click.command()
@config_option
@click.option("--site-dir", type=click.Path(path_type=Path), default=None,
              help="The built site [default: site/ beside the operator file].")
@click.option("--host", "hosts", multiple=True, metavar="HOST",
              help="Publish only this host (repeatable) [default: every host with a target; "
                   "the card host when --remote or --dir is given].")
@click.option("--remote", default=None, metavar="GIT_URL",
              help="Push to this git remote (URL or path) instead of the configured target.")
@click.option("--branch", default=None, metavar="NAME",
              help="Branch to publish to [default: hosts.<host>.publish.branch, else gh-pages].")
@click.option("--dir", "directory", type=click.Path(path_type=Path), default=None,
              metavar="PATH", help="Mirror into this folder instead of the configured target.")
@click.option("--dry-run", is_flag=True, help="List what would be added, changed and removed.")
@click.option("--force", is_flag=True,
              help="Replace files acap did not publish there: on a branch (history is "
                   "kept), or in a folder (deleted). Never a folder holding an acap project "
                   "or a key.")
@click.option("--format", "fmt", type=FORMATS, default="text", show_default=True,
              help="How to print the result.")
def publish(config: Path, site_dir: Path | None, hosts: tuple[str, ...], remote: str | None,
            branch: str | None, directory: Path | None, dry_run: bool, force: bool,
            fmt: str) -> None:
    """Publish each host folder of site/ to its target, after checking it.

    \b
    Checks first, for every host: site/ was built from the current
    operator.yaml and templates; no file changed since; every card signature
    verifies against the built JWKS; no private key anywhere; the target
    serves the host's origin at its root. Nothing goes out if one fails.
    """

    if remote is not None and directory is not None:
        raise click.UsageError("give --remote or --dir, not both")

    def progress(line: str) -> None:
        if fmt == "text":
            click.echo(line, err=True)

    opts = PublishOptions(config=config, site_dir=site_dir, hosts=hosts, remote=remote,
                          branch=branch, dir=directory, dry_run=dry_run, force=force,
                          progress=progress)
    result = run_publish(opts)
    reporter(fmt).publish(result, dry_run)
    sys.exit(0 if result.ok else 1)
