"""``acap serve``: preview site/ on localhost, rebuilt when operator.yaml changes."""

from __future__ import annotations

import gc
import socket
import sys
from pathlib import Path

import click

from acap.builder import BuildOptions, build
from acap.cli._commands._common import config_option
from acap.cli._reporters import report_text
from acap.site import serve_forever, start_preview


@click.command()
@config_option
@click.option("--site-dir", type=click.Path(path_type=Path), default=None,
              help="The site to serve [default: site/ beside the operator file].")
@click.option("--bind", default="127.0.0.1", show_default=True,
              help="Address to listen on (a preview stays on this machine by default).")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True,
              help="The port to serve on; 0 picks a free one.")
@click.option("--build/--no-build", "build_first", default=True, show_default=True,
              help="Build once before serving.")
@click.option("--watch/--no-watch", default=True, show_default=True,
              help="Rebuild when operator.yaml, templates/ or the previous keys change.")
@click.option("-v", "--verbose", is_flag=True, help="Log every request.")
def serve(config: Path, site_dir: Path | None, bind: str, port: int, build_first: bool,
          watch: bool, verbose: bool) -> None:
    """Preview site/ at http://localhost:PORT/, every host on one port.

    \b
    Each host is reachable by its name: http://example.com.localhost:8000/
    serves site/example.com/ (or send "Host: example.com"); plain
    http://localhost:8000/ serves the card's host. JSON is served as
    application/json with Access-Control-Allow-Origin: *, as GitHub Pages does.
    """


    gc.enable()  # a long-running server (the CLI turns the collector off)

    site = site_dir if site_dir is not None else config.parent / "site"
    if port:  # a port in use fails now, not after a build
        _exit_if_port_taken(bind, port)

    def rebuild() -> bool:
        result = build(BuildOptions(config=config, site_dir=site_dir))
        if len(result.report):
            click.echo(report_text(result.report), err=True)
        click.echo("rebuilt site/" if result.written else
                   "not rebuilt: fix the errors above; still serving the previous site/",
                   err=True)
        return result.written

    if build_first:
        _build_before_serving(config, site_dir, site)
    elif not site.is_dir():
        click.echo(f"nothing to serve: {site}/ does not exist (run acap build)", err=True)
        sys.exit(1)
    try:
        server = start_preview(site, bind=bind, port=port, config=config if watch else None,
                               rebuild=rebuild,
                               log=(lambda m: click.echo(m, err=True)) if verbose else None)
    except OSError as exc:
        click.echo(f"cannot listen on {bind}:{port}: {exc.strerror or exc}", err=True)
        sys.exit(1)
    if bind not in ("127.0.0.1", "localhost", "::1"):
        click.echo(f"warning: listening on {bind}: other machines can reach this preview",
                   err=True)
    click.echo(f"serving {site}/ on {server.url()} (Ctrl-C stops)")
    for what, url in server.entry_points():
        click.echo(f"  {what:<28} {url}")
    click.echo("each host folder of site/:")
    for host in server.hosts():
        mark = "  (also at " + server.url() + ")" if host == server.default_host else ""
        click.echo(f"  {host:<28} {server.url(host)}{mark}")
    serve_forever(server)


def _exit_if_port_taken(bind: str, port: int) -> None:
    """Exit 1, saying why, when ``bind:port`` cannot be listened on."""
    try:
        socket.create_server((bind, port)).close()
    except OSError as exc:
        import os  # start-up: only to word a port that cannot be used

        why = os.strerror(exc.errno) if exc.errno else str(exc)
        click.echo(f"cannot listen on {bind}:{port}: {why} "
                   "(use --port to pick another, or --port 0 for a free one)", err=True)
        sys.exit(1)


def _build_before_serving(config: Path, site_dir: Path | None, site: Path) -> None:
    """The first build, its notes and report on stderr; exit 1 when it failed and there
    is no previous ``site`` to serve instead."""
    first = build(BuildOptions(config=config, site_dir=site_dir))
    for note in first.notices:
        click.echo(f"note: {note}", err=True)
    if len(first.report):
        click.echo(report_text(first.report), err=True)
    if not first.written and not site.is_dir():
        click.echo("nothing to serve: the build failed and there is no previous site/",
                   err=True)
        sys.exit(1)
