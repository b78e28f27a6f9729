"""Web server settings for the Agent Card and its JWKS: Apache, nginx and Caddy.

A client fetches ``/.well-known/agent-card.json`` (A2A 1.0 §8.2) and the JWKS its
signatures name (``jku``) from any origin, often from a browser: both must be served as
``application/json``, readable cross-origin (``Access-Control-Allow-Origin: *``, the
Fetch standard's CORS), with a ``Cache-Control`` max-age (A2A §8.6.1: ``cache.card`` in
operator.yaml) and ``X-Content-Type-Options: nosniff``. Static hosts that read
``_headers`` (:mod:`acap.builder.pages._hosting`) get this from that file; a web server of
one's own needs its own settings, which acap writes here:

* ``<host>/.well-known/.htaccess``: Apache 2.4 reads it from the published folder itself
  (the site's configuration must allow it: ``AllowOverride FileInfo``, and ``mod_headers``
  on). It sits in ``.well-known/`` rather than at the root so that it never collides with
  the ``.htaccess`` of a website acap adds its files to (overlay), and it applies to the
  two files only (``FilesMatch``), never to the website's other files.
* beside the site, never published (``site/.servers/<host>/``): ``apache.conf`` (the
  same for a ``<VirtualHost>``, where ``.htaccess`` files are not read), ``nginx.conf``
  (``include`` it in the host's ``server {}`` block) and ``Caddyfile`` (``import`` it in
  the host's site block, before ``file_server``).

Each was tested against the real server (Debian's apache2, nginx and caddy packages)
serving a built site on 127.0.0.1: ``tests/acceptance/test_web_servers.py``.
"""

from __future__ import annotations

import textwrap

from acap.site import refuse_line_breaks
from acap.uris import CARD_PATH, JWKS_PATH

__all__ = ["APACHE_NO_HEADERS_TYPE", "SERVERS_DIR", "apache_conf", "caddyfile", "htaccess",
           "nginx_conf", "server_files"]

#: Where the settings for a host's own web server go, relative to the site folder: beside
#: the host folders, outside every one of them, so never published.
SERVERS_DIR = ".servers"
#: The file names the snippets match, in the ``.well-known`` folder.
_NAMES = tuple(p.rsplit("/", 1)[1] for p in (CARD_PATH, JWKS_PATH))
_NAMES_RE = "(" + "|".join(n.removesuffix(".json") for n in _NAMES) + r")\.json"
_PATHS = " ".join((CARD_PATH, JWKS_PATH))
#: The type acap's Apache settings give the card and the JWKS where mod_headers is off.
APACHE_NO_HEADERS_TYPE = "application/json; charset=utf-8"
_SAYS = ("It serves the Agent Card and its keys (JWKS) as JSON that any web page may read, "
         "with their cache time.")


def _cache(seconds: int) -> str:
    return f"public, max-age={seconds}" if seconds > 0 else "no-cache"


def _headers(seconds: int) -> list[tuple[str, str]]:
    """The response headers of the card and the JWKS, in order (Content-Type aside)."""
    return [("Access-Control-Allow-Origin", "*"),
            ("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS"),
            ("Cache-Control", _cache(seconds)),
            ("X-Content-Type-Options", "nosniff")]


def _apache_block(seconds: int, indent: str) -> list[str]:
    """The card's settings for Apache. Without mod_headers none of its headers can be
    set; the type then names its charset (``application/json; charset=utf-8``, true of
    any JSON: RFC 8259 §8.1), so that ``acap check --live`` can tell "mod_headers is off"
    from "this file is not read" (:func:`acap.publisher._live.cors_cause`)."""
    lines = [f"{indent}<IfModule mod_headers.c>", f"{indent}    ForceType application/json"]
    lines += [f'{indent}    Header always set {name} "{value}"'
              for name, value in _headers(seconds)]
    return [*lines, f"{indent}</IfModule>", f"{indent}<IfModule !mod_headers.c>",
            f'{indent}    ForceType "{APACHE_NO_HEADERS_TYPE}"', f"{indent}</IfModule>"]


def _text(name: str, comment: str, body: list[str]) -> bytes:
    """The settings file ``name``: ``comment`` as ``#`` lines, then ``body``; UTF-8, LF
    line ends. Raises :class:`acap.errors.SitePathError` when the comment or a line
    would hold a line break or control character (:func:`acap.site.refuse_line_breaks`;
    judged before ``textwrap``, which would turn a line feed into a space)."""

    refuse_line_breaks(name, [comment, *body], " \t")
    lines = [f"# {line}" for line in textwrap.wrap(comment, 86)]
    return ("\n".join([*lines, *body]) + "\n").encode("utf-8")


def htaccess(host: str, seconds: int) -> bytes:
    """``.well-known/.htaccess`` for Apache 2.4 (see the module docstring).

    Args:
        host: the host the file is for (named in its comment).
        seconds: the card's ``Cache-Control`` max-age (0: ``no-cache``).
    """
    return _text(
        f"{host}/.well-known/.htaccess",
        f"Written by acap build for https://{host}/. {_SAYS} Apache reads this file when "
        "the site allows it (AllowOverride FileInfo) and mod_headers is on (a2enmod "
        f"headers). Where .htaccess files are not read, use apache.conf from "
        f"site/{SERVERS_DIR}/{host}/ in the site's <VirtualHost> instead.",
        [f'<FilesMatch "^{_NAMES_RE}$">', *_apache_block(seconds, "    "), "</FilesMatch>"])


def apache_conf(host: str, seconds: int) -> bytes:
    """``apache.conf``: the same as :func:`htaccess`, for the host's ``<VirtualHost>``."""
    return _text(
        f"{host}/apache.conf",
        f"Written by acap build for https://{host}/: put it inside the <VirtualHost> of "
        f"{host} (or Include it there), then reload Apache. Needs mod_headers (a2enmod "
        f"headers). {_SAYS}",
        [f'<LocationMatch "^/\\.well-known/{_NAMES_RE}$">', *_apache_block(seconds, "    "),
         "</LocationMatch>"])


def nginx_conf(host: str, seconds: int) -> bytes:
    """``nginx.conf``: a ``location`` to ``include`` in the host's ``server {}`` block.

    nginx answers ``OPTIONS`` on a static file with 405; the snippet answers a CORS
    preflight with 204. ``add_header`` lines in a ``location`` replace those of the
    ``server`` block for the files it matches, which the comment says.
    """
    headers = [f'    add_header {name} "{value}" always;' for name, value in _headers(seconds)]
    return _text(
        f"{host}/nginx.conf",
        f"Written by acap build for https://{host}/: put `include /path/to/this/file;` in "
        f"the server {{ }} block of {host}, whose root is the folder acap publishes to, "
        f"then run nginx -s reload. {_SAYS} nginx uses only these add_header lines for the "
        "two files: repeat any add_header of your server block (Strict-Transport-Security, "
        "say) inside this location.",
        [f"location ~ ^/\\.well-known/{_NAMES_RE}$ {{", "    types { }",
         "    default_type application/json;", *headers,
         '    add_header Access-Control-Allow-Headers "*" always;',
         "    if ($request_method = OPTIONS) {", "        return 204;", "    }", "}"])


def caddyfile(host: str, seconds: int) -> bytes:
    """``Caddyfile``: lines to ``import`` in the host's site block, before ``file_server``."""
    headers = [f'\t{name} "{value}"' for name, value in _headers(seconds)]
    return _text(
        f"{host}/Caddyfile",
        f"Written by acap build for https://{host}/: put `import /path/to/this/file` in the "
        f"site block of {host}, before file_server, then run caddy reload. {_SAYS}",
        [f"@acap_card path {_PATHS}", "header @acap_card {", "\tContent-Type application/json",
         *headers, "\tAccess-Control-Allow-Headers *", "}",
         "@acap_preflight {", "\tmethod OPTIONS", f"\tpath {_PATHS}", "}",
         "respond @acap_preflight 204"])


def server_files(host: str, seconds: int) -> list[tuple[str, bytes]]:
    """The settings beside the site for ``host``: ``(path under site/, bytes)``, under
    :data:`SERVERS_DIR`."""
    base = f"{SERVERS_DIR}/{host}"
    return [(f"{base}/apache.conf", apache_conf(host, seconds)),
            (f"{base}/nginx.conf", nginx_conf(host, seconds)),
            (f"{base}/Caddyfile", caddyfile(host, seconds))]
