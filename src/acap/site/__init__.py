"""Site: the folder on disk that a build writes and publish reads.

* :class:`SiteFiles`: files addressed by URL (``https://example.com/talk`` ->
  ``example.com/talk/index.html``: :func:`url_to_path`), assembled in memory;
* :func:`write_site`: the new site/ written beside the old one and swapped in, under a
  lock (:func:`site_lock`), or not at all;
* the build manifest, ``site/.acap/manifest.json`` (:class:`Manifest`,
  :func:`read_manifest`): this package is its one reader and writer;
* the signatures a batch recorded of the files it read and wrote
  (``site/.acap/file-stats.json``: :func:`read_file_stats`, :func:`record_file_stats`),
  so that the next batch tells an unchanged file by its ``stat``;
* a live batch site changed tenant by tenant, each unit of change journaled first
  (:class:`LiveSite`, :func:`repair`: :mod:`acap.site._tenants`);
* the record of a publish (:class:`PublishRecord`): which files acap put at a target,
  signed; its one reader and writer;
* the guard (:func:`site_dir_findings`): may this folder be replaced (``SITE-PATH``);
* the preview server of ``acap serve`` (:func:`start_preview`), which serves every host
  by its ``Host`` header and calls back to rebuild;
* HTTP caching of what acap serves itself (:func:`strong_etag`, :func:`not_modified`,
  :data:`MAX_AGE`), shared with the agent's card routes.

May import: :mod:`acap.load` and the modules below it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from acap._lazy import exports

if TYPE_CHECKING:
    from acap.site._file_stats import FILE_STATS as FILE_STATS
    from acap.site._file_stats import FileStats as FileStats
    from acap.site._file_stats import output_stamp as output_stamp
    from acap.site._file_stats import read_file_stats as read_file_stats
    from acap.site._file_stats import record_file_stats as record_file_stats
    from acap.site._file_stats import settled as settled
    from acap.site._file_stats import settled_folder as settled_folder
    from acap.site._file_stats import signature as signature
    from acap.site._file_stats import stamp as stamp
    from acap.site._file_stats import unchanged_output as unchanged_output
    from acap.site._files import SiteBusy as SiteBusy
    from acap.site._files import SiteFiles as SiteFiles
    from acap.site._files import new_site_folder as new_site_folder
    from acap.site._files import path_fault as path_fault
    from acap.site._files import real_site_dir as real_site_dir
    from acap.site._files import refuse_line_breaks as refuse_line_breaks
    from acap.site._files import site_lock as site_lock
    from acap.site._files import swap_in as swap_in
    from acap.site._files import url_to_path as url_to_path
    from acap.site._files import write_failure as write_failure
    from acap.site._files import write_files as write_files
    from acap.site._files import write_site as write_site
    from acap.site._guard import batch_site_findings as batch_site_findings
    from acap.site._guard import site_dir_findings as site_dir_findings
    from acap.site._guard import stray_files as stray_files
    from acap.site._guard import stray_finding as stray_finding
    from acap.site._guard import tenant_site_findings as tenant_site_findings
    from acap.site._http_cache import MAX_AGE as MAX_AGE
    from acap.site._http_cache import not_modified as not_modified
    from acap.site._http_cache import strong_etag as strong_etag
    from acap.site._manifest import MANIFEST as MANIFEST
    from acap.site._manifest import Manifest as Manifest
    from acap.site._manifest import OperatorRecord as OperatorRecord
    from acap.site._manifest import Place as Place
    from acap.site._manifest import read_manifest as read_manifest
    from acap.site._manifest import write_manifest as write_manifest
    from acap.site._preview import PreviewServer as PreviewServer
    from acap.site._preview import host_from_header as host_from_header
    from acap.site._preview import serve_forever as serve_forever
    from acap.site._preview import start_preview as start_preview
    from acap.site._publish_record import MAX_DEPTH as MAX_DEPTH
    from acap.site._publish_record import RECORD_LIMIT as RECORD_LIMIT
    from acap.site._publish_record import RECORD_NAME as RECORD_NAME
    from acap.site._publish_record import PublishRecord as PublishRecord
    from acap.site._publish_record import RecordProblem as RecordProblem
    from acap.site._publish_record import RecordSigner as RecordSigner
    from acap.site._publish_record import path_problem as path_problem
    from acap.site._publish_record import record_beside as record_beside
    from acap.site._tenants import LiveSite as LiveSite
    from acap.site._tenants import Unit as Unit
    from acap.site._tenants import repair as repair

__getattr__, __dir__ = exports(__name__)
