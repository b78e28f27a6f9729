"""Credentials in any URL acap is given are never printed (issue 20, item 3).

The trial's case: ``--sftp sftp://root:PASSWORD@...`` printed the password back. A token in
a git remote (``https://x-access-token:TOKEN@github.com/...``) is as secret: acap shows the
target with ``***`` in its place, in the text and the JSON output, in progress lines and
in git's own words.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from acap.cli import cli
from acap.publisher._targets import redacted, scrubbed
from support.publishing import do_build, project, publish_to

SECRET = "s3cr3t-T0KEN-value"


def _run(config: Path, *args: str, fmt: str = "text") -> str:
    res = CliRunner().invoke(cli, ["publish", "--allow-example-hosts", "--create", "-c",
                                   str(config), "--format", fmt, *args])
    assert res.exit_code == 1, res.output
    return res.stdout + res.stderr


@pytest.mark.parametrize("url", [
    f"sftp://root:{SECRET}@127.0.0.1/srv/www",
    f"sftp://root:{SECRET}/srv/www",  # not a URL: the "port" is the secret
    f"sftp://{SECRET}@127.0.0.1:0/srv/www"])
@pytest.mark.parametrize("fmt", ["text", "json"])
def test_an_sftp_url_with_a_password_is_refused_without_printing_it(
        tmp_path: Path, url: str, fmt: str) -> None:
    config = project(tmp_path)
    do_build(config)
    out = _run(config, "--sftp", url, fmt=fmt)
    assert "PUBLISH-" in out
    assert SECRET not in out or url.startswith(f"sftp://{SECRET}@")  # a login name is shown


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_a_token_in_a_git_remote_is_never_printed(tmp_path: Path, fmt: str) -> None:
    config = project(tmp_path)
    do_build(config)
    remote = f"https://x-access-token:{SECRET}@127.0.0.1:9/YOU/site.git"  # nothing listens
    out = _run(config, "--remote", remote, fmt=fmt)
    assert SECRET not in out
    assert "https://***@127.0.0.1:9/YOU/site.git" in out
    if fmt == "json":
        doc = json.loads(out[:out.rindex("}") + 1])
        [published] = doc["results"]
        assert published["hosts"][0]["target"] == \
            "branch gh-pages of https://***@127.0.0.1:9/YOU/site.git"
    # the same from operator.yaml
    publish_to(config, "example.com", remote=remote)
    do_build(config)
    assert SECRET not in _run(config, fmt=fmt)


def test_what_is_hidden_and_what_is_kept() -> None:
    assert redacted(f"https://user:{SECRET}@github.com/a/b.git") == "https://***@github.com/a/b.git"
    assert redacted(f"https://{SECRET}@github.com/a/b.git") == "https://***@github.com/a/b.git"
    assert redacted(f"sftp://praxis:{SECRET}@host/x") == "sftp://praxis:***@host/x"
    assert redacted(f"ssh://git:{SECRET}@host/x") == "ssh://git:***@host/x"
    assert redacted("git@github.com:YOU/site.git") == "git@github.com:YOU/site.git"
    assert redacted("sftp://praxis@host/x") == "sftp://praxis@host/x"
    assert redacted("sftp://praxis@[::1]:2222/x") == "sftp://praxis@[::1]:2222/x"
    assert redacted("https://[::1]:8443/x.git") == "https://[::1]:8443/x.git"
    assert redacted(f"sftp://root:{SECRET}/x") == "sftp://root:***/x"
    said = f"fatal: unable to access 'https://x:{SECRET}@h/': {SECRET} rejected"
    assert SECRET not in scrubbed(said, f"https://x:{SECRET}@h/")
