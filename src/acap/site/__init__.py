"""Site: the folder on disk that a build writes and publish reads.

* :class:`SiteFiles`: files addressed by URL (``https://example.com/talk`` ->
  ``example.com/talk/index.html``: :func:`url_to_path`), assembled in memory;
* :func:`write_site`: the new site/ written beside the old one and swapped in, under a
  lock (:func:`site_lock`), or not at all;
* the build manifest, ``site/.acap/manifest.json`` (:class:`Manifest`,
  :func:`read_manifest`): this package is its one reader and writer;
* the guard (:func:`site_dir_findings`): may this folder be replaced (``SITE-PATH``);
* the preview server of ``acap serve`` (:func:`start_preview`), which serves every host
  by its ``Host`` header and calls back to rebuild.

May import: :mod:`acap.load` and the modules below it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from acap._lazy import exports

if TYPE_CHECKING:
    from acap.site._files import (
        SiteBusy as SiteBusy,
        SiteFiles as SiteFiles,
        new_site_folder as new_site_folder,
        real_site_dir as real_site_dir,
        site_lock as site_lock,
        swap_in as swap_in,
        url_to_path as url_to_path,
        write_failure as write_failure,
        write_file_atomic as write_file_atomic,
        write_files as write_files,
        write_site as write_site,
    )
    from acap.site._guard import (
        batch_site_findings as batch_site_findings,
        site_dir_findings as site_dir_findings,
        stray_files as stray_files,
    )
    from acap.site._manifest import (
        MANIFEST as MANIFEST,
        Manifest as Manifest,
        forget_manifests as forget_manifests,
        read_manifest as read_manifest,
        write_manifest as write_manifest,
    )
    from acap.site._preview import (
        PreviewServer as PreviewServer,
        content_type as content_type,
        host_from_header as host_from_header,
        serve_forever as serve_forever,
        site_hosts as site_hosts,
        start_preview as start_preview,
        watched_files as watched_files,
    )

__getattr__, __all__ = exports(__name__, {
    "_files": [
        "SiteBusy", "SiteFiles", "new_site_folder", "real_site_dir", "site_lock", "swap_in",
        "url_to_path", "write_failure", "write_file_atomic", "write_files", "write_site",
    ],
    "_manifest": ["MANIFEST", "Manifest", "forget_manifests", "read_manifest", "write_manifest"],
    "_guard": ["batch_site_findings", "site_dir_findings", "stray_files"],
    "_preview": [
        "PreviewServer", "content_type", "host_from_header", "serve_forever", "site_hosts",
        "start_preview", "watched_files",
    ],
})
