"""``acap live-check URL``: what a client gets from the published card and JWKS.

``acap check URL --live`` is the documented form; ``acap live-check URL`` stays
as a hidden alias. Both call :func:`acap.publisher._live.live_check`.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from acap.cli._commands._common import ALLOW_PRIVATE, format_option, reporter
from acap.publisher import live_check as run


def pairs(values: tuple[str, ...]) -> dict[str, str]:
    """``("example.com=http://127.0.0.1:8000",)`` -> ``{"example.com": "http://127.0.0.1:8000"}``.

    Raises:
        click.BadParameter: a value is not ``HOST=URL``.
    """
    out: dict[str, str] = {}
    for v in values:
        host, sep, addr = v.partition("=")
        if not sep or not host or not addr:
            raise click.BadParameter(f"{v!r}: write HOST=URL, e.g. "
                                     "example.com=http://127.0.0.1:8000", param_hint="--connect-to")
        out[host.lower()] = addr
    return out


@click.command("live-check", hidden=True)
@click.argument("url")
@click.option("--site-dir", type=click.Path(path_type=Path), default=Path("site"),
              show_default=True, help="Local build to compare the bytes with.")
@click.option("--connect-to", multiple=True, metavar="HOST=URL",
              help="Fetch HOST's URLs from URL instead, with Host: HOST (e.g. "
                   "example.com=http://127.0.0.1:8000 to check acap serve).")
@click.option("--timeout", type=click.FloatRange(0.1, 120), default=10.0, show_default=True,
              help="Seconds per fetch.")
@format_option
@click.option("--strict", is_flag=True, help="Warnings fail too.")
@ALLOW_PRIVATE
def live_check(url: str, site_dir: Path, connect_to: tuple[str, ...], timeout: float, fmt: str,
               strict: bool, allow_private: bool) -> None:
    """Fetch the live card at URL and its JWKS; report status, headers, signature.

    \b
    Reports HTTP status, Content-Type, CORS, Cache-Control max-age, ETag,
    whether each signature verifies with the keys named by jku, and whether
    the bytes equal the local build in site/.
    """

    result = run(url, site_dir=site_dir if site_dir.is_dir() else None,
                 connect_to=pairs(connect_to), timeout=timeout, allow_private=allow_private)
    ok = result.ok and result.report.passes(strict)
    reporter(fmt, strict).live(result, ok)
    sys.exit(0 if ok else 1)
