"""The live card's key is never replaced by accident, even where the target does not show
it (issue 20, item 4): a second computer publishing to a new place (the hosting moved)
finds the live card signed with a kid it lacks, and refuses."""

from __future__ import annotations

import functools
import shutil
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from acap.cli import report_text
from acap.publisher import publish
from support.publishing import do_build, project, snapshot, trial


@contextmanager
def _live(folder: Path) -> Iterator[str]:
    """Python's static server over ``folder``: the live site; yields its origin."""

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0),
                                functools.partial(Quiet, directory=str(folder)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_a_live_card_signed_with_a_key_this_computer_lacks_is_not_replaced(
        tmp_path: Path) -> None:
    first = project(tmp_path / "first")
    do_build(first)
    old_host = tmp_path / "old-hosting"
    assert publish(trial(config=first, dir=old_host)).ok
    clone = tmp_path / "clone"
    clone.mkdir()
    shutil.copyfile(first, clone / "operator.yaml")
    do_build(clone / "operator.yaml")  # a new key: nothing on this computer shows the old
    new_host = tmp_path / "new-hosting"
    with _live(old_host) as origin:
        res = publish(trial(config=clone / "operator.yaml", dir=new_host,
                            connect_to={"example.com": origin}))
    [err] = res.report.errors
    assert err.rule == "PUBLISH-KEY"
    assert err.message == ("example.com: the live card at https://example.com/.well-known/"
                           "agent-card.json is signed with kid chapel-1, a key this computer "
                           "does not have: publishing would replace the live card's key "
                           "without a rotation")
    assert "ACAP_SIGNING_KEY" in (err.hint or "")
    assert res.hosts == [] and snapshot(new_host) == {}  # nothing went out
    # The first computer, which has the key, publishes to the new place.
    with _live(old_host) as origin:
        ok = publish(trial(config=first, dir=new_host, connect_to={"example.com": origin}))
    assert ok.ok, report_text(ok.report)
