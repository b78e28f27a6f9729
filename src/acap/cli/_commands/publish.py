"""``acap publish``: site/ -> GitHub Pages branches or directories, checked first."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from acap.builder.pages import HOSTING_KINDS
from acap.cli._commands._common import config_option, format_option, reporter
from acap.cli._reporters import shown
from acap.publisher import PublishOptions
from acap.publisher import publish as run_publish


@click.command()
@config_option
@click.option("--site-dir", type=click.Path(path_type=Path), default=None,
              help="The built site [default: site/ beside the operator file].")
@click.option("--host", "hosts", multiple=True, metavar="HOST",
              help="Publish only this host (repeatable) [default: every host with a target; "
                   "the card host when --remote, --dir or --sftp is given].")
@click.option("--remote", default=None, metavar="GIT_URL",
              help="Push to this git remote (URL or path) instead of the configured target.")
@click.option("--branch", default=None, metavar="NAME",
              help="Branch to publish to [default: hosts.<host>.publish.branch, else gh-pages].")
@click.option("--dir", "directory", type=click.Path(path_type=Path), default=None,
              metavar="PATH", help="Publish into this folder instead of the configured target.")
@click.option("--sftp", default=None, metavar="URL",
              help="Upload to this folder on an SFTP server instead of the configured target: "
                   "sftp://NAME@SERVER/FOLDER (sftp://NAME@SERVER/~/public_html: a folder in "
                   "your login folder). The server's key must be in ~/.ssh/known_hosts.")
@click.option("--create", is_flag=True,
              help="Make the target (folder or branch) if it does not exist yet: the first "
                   "publish there. Without it a missing target is refused, so that a typo "
                   "never publishes into a new folder no web server serves.")
@click.option("--hosting", type=click.Choice(HOSTING_KINDS), default=None,
              help="What serves the target, when operator.yaml's hosts.<host>.hosting does "
                   "not say: acap sends only the hosting files it reads [default: detected "
                   "from the target].")
@click.option("--dry-run", is_flag=True, help="List what would be added, changed and removed.")
@click.option("--force", is_flag=True,
              help="Replace files acap cannot prove it published there: on a branch (history "
                   "is kept), or in a folder (deleted where acap owns the host whole). Never "
                   "a folder holding an acap project, a key or a git repository.")
@click.option("--allow-example-hosts", is_flag=True,
              help="Publish hosts reserved for examples (example.org, *.test ...), for "
                   "trying acap out with its example; without it acap refuses them, so "
                   "that acap init's placeholders never go out to a real server.")
@format_option
def publish(config: Path, site_dir: Path | None, hosts: tuple[str, ...], remote: str | None,
            branch: str | None, directory: Path | None, sftp: str | None, create: bool,
            hosting: str | None, dry_run: bool, force: bool, allow_example_hosts: bool,
            fmt: str) -> None:
    """Publish each host folder of site/ to its target, after checking it.

    \b
    Checks first, for every host: site/ was built from the current
    operator.yaml and templates; no file changed since; every card signature
    verifies against the built JWKS; no private key anywhere; the target
    serves the host's origin at its root. Nothing goes out if one fails.
    Where your website lives (the host of operator.website, unless
    overlay: false), acap adds its files beside it and changes nothing else.
    """

    if sum(x is not None for x in (remote, directory, sftp)) > 1:
        raise click.UsageError("give one of --remote, --dir and --sftp")

    def progress(line: str) -> None:
        if fmt == "text":  # a line may name a file of site/, a path or a host: escaped
            click.echo(shown(line), err=True)

    opts = PublishOptions(config=config, site_dir=site_dir, hosts=hosts, remote=remote,
                          branch=branch, dir=directory, sftp=sftp, dry_run=dry_run,
                          force=force, allow_example_hosts=allow_example_hosts,
                          progress=progress, create=create, hosting=hosting)
    result = run_publish(opts)
    reporter(fmt).publish(result, dry_run)
    sys.exit(0 if result.ok else 1)
