"""The SFTP target's hints show the forms acap reads (fresh operator trial, MEDIUM).

The trial's operator followed the hint ``sftp: <user@server:folder>``: neither
operator.yaml (keys and values) nor ``--sftp`` (a URL) reads that form. Every hint now
shows the two accepted forms, and an scp-style value is rewritten as each of them; what
a hint shows is then given back to acap and accepted.
"""

from __future__ import annotations

from pathlib import Path

from acap.load import load_operator
from acap.publisher import publish
from acap.publisher._sftp import parse_sftp_url
from acap.publisher._targets import SFTP_KEY_FORM, SFTP_URL_FORM, sftp_hint
from support.publishing import do_build, project, trial


def test_no_publish_target_names_the_forms_acap_reads(tmp_path: Path) -> None:
    config = project(tmp_path)
    do_build(config)
    res = publish(trial(config=config))
    [err] = res.report.errors
    assert (err.rule, err.location.line) == ("PUBLISH-TARGET", _line(config, "hosts:"))
    assert f"{SFTP_KEY_FORM} or remote: <git URL>" in (err.hint or "")
    assert f"--sftp {SFTP_URL_FORM} or" in (err.hint or "")
    assert "user@server:folder" not in (err.hint or "")


def test_an_scp_style_sftp_value_is_rewritten_in_the_hint(tmp_path: Path) -> None:
    config = project(tmp_path)
    do_build(config)
    res = publish(trial(config=config, sftp="praxis@ssh.host.example:public_html"))
    [err] = res.report.errors
    assert (err.rule, str(err.location)) == ("PUBLISH-TARGET", "command line")
    assert err.message == ("--sftp praxis@ssh.host.example:public_html: it does not start "
                           "with sftp://")
    assert err.hint == ("acap reads a URL, not scp's LOGIN@SERVER:FOLDER: --sftp "
                        "sftp://praxis@ssh.host.example/~/public_html; in operator.yaml: "
                        "sftp: {host: ssh.host.example, user: praxis, path: public_html}")
    # what the hint says is read: the same login, server and folder
    address, problem = parse_sftp_url("sftp://praxis@ssh.host.example/~/public_html")
    assert problem == "" and address is not None
    assert (address.user, address.host, address.path) == ("praxis", "ssh.host.example",
                                                          "public_html")
    # an absolute folder stays absolute
    assert "--sftp sftp://praxis@h.example/var/www/x;" in sftp_hint("praxis@h.example:/var/www/x")
    # anything else: the two forms
    assert sftp_hint("sftp:/nowhere").startswith(f"write it as {SFTP_URL_FORM} ")


def test_sftp_as_text_in_operator_yaml_shows_the_keys(tmp_path: Path) -> None:
    """The schema's error at the line of ``sftp:`` gives the form it reads, which then
    loads without a finding."""
    config = project(tmp_path)
    text = config.read_text(encoding="utf-8")
    assert "\nhosts:\n  example.com:\n" in text
    scp = text.replace("\nhosts:\n  example.com:\n",
                       "\nhosts:\n  example.com:\n    publish:\n"
                       "      sftp: praxis@ssh.host.example:public_html\n", 1)
    config.write_text(scp, encoding="utf-8")
    [err] = [f for f in load_operator(config).findings if f.level == "error"]
    assert (err.rule, err.location.line) == ("PUBLISH-TARGET", _line(config, "      sftp:"))
    assert err.hint == ("write keys and values: sftp: {host: ssh.your-hosting.example, "
                        "user: YOUR-LOGIN, path: public_html}")
    config.write_text(scp.replace("praxis@ssh.host.example:public_html",
                                  err.hint.split("sftp: ", 1)[1]), encoding="utf-8")
    assert [f for f in load_operator(config).findings if f.level == "error"] == []


def _line(config: Path, start: str) -> int:
    return next(i for i, line in enumerate(config.read_text(encoding="utf-8").splitlines(), 1)
                if line.startswith(start))
