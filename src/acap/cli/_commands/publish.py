"""``acap publish``: site/ -> GitHub Pages branches or directories, checked first."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from acap.cli._commands._common import CONFIG_HELP, FORMATS, emit_report


@click.command()
@click.option("-c", "--config", type=click.Path(path_type=Path), default=Path("operator.yaml"),
              show_default=True, help=CONFIG_HELP)
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
    from acap.publisher import publish as run_publish
    from acap.publisher._publish import PublishOptions

    if remote is not None and directory is not None:
        raise click.UsageError("give --remote or --dir, not both")

    def progress(line: str) -> None:
        if fmt == "text":
            click.echo(line, err=True)

    opts = PublishOptions(config=config, site_dir=site_dir, hosts=hosts, remote=remote,
                          branch=branch, dir=directory, dry_run=dry_run, force=force,
                          progress=progress)
    result = run_publish(opts)
    if fmt == "json":
        click.echo(json.dumps({
            "ok": result.ok,
            "hosts": [{
                "host": h.target.host, "target": h.target.describe(), "outcome": h.outcome,
                "commit": h.commit,
                "added": h.plan.added if h.plan else [],
                "changed": h.plan.changed if h.plan else [],
                "removed": h.plan.removed if h.plan else [],
            } for h in result.hosts],
            "findings": [f.to_json() for f in result.report.sorted()],
        }, indent=2, ensure_ascii=False))
        sys.exit(0 if result.ok else 1)
    emit_report(result.report, fmt)
    for h in result.hosts:
        line = f"{h.target.host}: {h.outcome} ({h.target.describe()})"
        if h.commit and h.outcome == "published":
            line += f", commit {h.commit[:12]}"
        click.echo(line)
        if h.plan and (dry_run or h.outcome == "failed"):
            for sign, paths in (("+", h.plan.added), ("~", h.plan.changed),
                                ("-", h.plan.removed)):
                for p in paths:
                    click.echo(f"  {sign} {p}")
    if not result.ok:
        if not result.hosts:
            click.echo("nothing was published", err=True)
        sys.exit(1)
