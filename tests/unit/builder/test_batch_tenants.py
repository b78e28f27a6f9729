"""One tenant of a batch against another, or against the build machine (issue 12).

A hosting platform builds many tenants' folders in one batch, each folder edited by
its business. Each test gives one tenant the smallest hostile input that worked
before, and asserts the refusal, its rule id and place, and that nothing else
changed: every other tenant's folders byte for byte.
"""

from __future__ import annotations

import json
import os
import random
import sys
from pathlib import Path

import pytest

from acap.builder.batch import BatchOptions, BatchResult, build_many
from acap.cli import report_text
from acap.findings import Finding
from support.paths import REPO
from support.sites import site_tree

sys.path.insert(0, str(REPO / "bench"))
from generate import operator_yaml, write_operators


def tree(site: Path) -> dict[str, str]:
    return site_tree(site)


def hosts_of(files: dict[str, str], *hosts: str) -> dict[str, str]:
    return {k: v for k, v in files.items() if k.split("/", 1)[0] in hosts}


def batch(tmp_path: Path, count: int = 3, **kw: object) -> tuple[list[Path], Path]:
    """``count`` tenants (op0.example ...) built into tmp_path/site; their operator files."""
    ops = write_operators(tmp_path / "ops", count)
    site = tmp_path / "site"
    res = build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=site, **kw))  # type: ignore[arg-type]
    assert res.written and not res.failed, [report_text(o.report) for o in res.failed]
    return ops, site


def rebuild(tmp_path: Path, **kw: object) -> BatchResult:
    return build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=tmp_path / "site",
                                   **kw))  # type: ignore[arg-type]


def only_error(res: BatchResult, config: Path) -> Finding:
    """The one error of the tenant ``config``, which did not build; every other built."""
    failed = [o for o in res.outcomes if not o.built]
    assert [o.config for o in failed] == [config], [report_text(o.report) for o in failed]
    [err] = failed[0].report.errors
    return err


def line_of(config: Path, text: str) -> int:
    return config.read_text(encoding="utf-8").splitlines().index(text) + 1


# -- 1. templates are rendered in the sandbox -------------------------------------------

ESCAPES = [
    "{{ lipsum.__globals__['os'].popen('touch PWNED').read() }}",
    "{{ cycler.__init__.__globals__.os.popen('touch PWNED').read() }}",
    "{{ ''.__class__.__mro__[1].__subclasses__() }}",
    "{{ page.__class__.__init__.__globals__['sys'].modules['os'].popen('touch PWNED') }}",
    "{{ words.__call__.__globals__['__builtins__']['open']('../op00001/.acap/"
    "signing-key.pem').read()|reverse }}",
    "{% for x in range(3) %}{{ x }}{% endfor %}",
]


@pytest.mark.parametrize("escape", ESCAPES)
def test_a_template_cannot_reach_python_or_files(tmp_path: Path, escape: str,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    ops, site = batch(tmp_path)
    before = tree(site)
    monkeypatch.chdir(ops[0].parent)
    tpl = ops[0].parent / "templates"
    tpl.mkdir()
    (tpl / "footer.html").write_text("<p>hello</p>\n" + escape + "\n", encoding="utf-8")
    res = rebuild(tmp_path)
    err = only_error(res, ops[0])
    assert err.rule == "PAGE-TEMPLATE"
    assert (err.location.file, err.location.line) == (str(tpl / "footer.html"), 2)
    assert "sandbox" in err.message or "a name acap does not give it" in err.message
    assert not (ops[0].parent / "PWNED").exists()
    after = tree(site)
    assert hosts_of(after, "op1.example", "op2.example") == \
        hosts_of(before, "op1.example", "op2.example")
    assert hosts_of(after, "op0.example") == hosts_of(before, "op0.example")  # kept as it was
    key = (ops[1].parent / ".acap" / "signing-key.pem").read_text()
    body = "".join(key.splitlines()[1:-1])
    assert not any(body[:20] in (site / k).read_text("latin-1") or
                   body[::-1][:20] in (site / k).read_text("latin-1") for k in after)


def test_a_template_includes_only_from_its_own_folder(tmp_path: Path) -> None:
    ops, site = batch(tmp_path)
    before = tree(site)
    other = ops[1].parent / "templates"
    other.mkdir()
    (other / "secret.html").write_text("<p>op1's own words</p>\n", encoding="utf-8")
    tpl = ops[0].parent / "templates"
    tpl.mkdir()
    (tpl / "footer.html").write_text('{% include "../../op00001/templates/secret.html" %}\n',
                                     encoding="utf-8")
    res = rebuild(tmp_path)
    [failed] = res.failed
    assert failed.config == ops[0]
    [err] = failed.report.errors
    assert err.rule == "PAGE-TEMPLATE" and "not found" in err.message
    assert err.location.file == str(tpl / "footer.html")
    after = tree(site)
    assert hosts_of(after, "op0.example", "op2.example") == \
        hosts_of(before, "op0.example", "op2.example")


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_a_template_that_is_no_regular_file_is_refused_unread(tmp_path: Path,
                                                              kind: str) -> None:
    ops, site = batch(tmp_path)
    before = tree(site)
    tpl = ops[0].parent / "templates"
    tpl.mkdir()
    if kind == "fifo":
        os.mkfifo(tpl / "footer.html")
    else:
        (tpl / "footer.html").symlink_to("/dev/zero")
    res = rebuild(tmp_path)  # returns: nothing waits on the FIFO or reads /dev/zero
    err = only_error(res, ops[0])
    assert err.rule == "PAGE-TEMPLATE"
    assert err.location.file == str(tpl / "footer.html")
    assert ("FIFO" if kind == "fifo" else "outside the templates folder") in err.message
    assert hosts_of(tree(site), "op0.example", "op1.example", "op2.example") == \
        hosts_of(before, "op0.example", "op1.example", "op2.example")


def test_a_template_hard_linked_to_another_tenant_s_key_is_refused(tmp_path: Path) -> None:
    """A hard link is the other file itself: no path check sees it. A tenant's template
    with other names is refused unread, so another tenant's key cannot be published
    through it (reversed, say, past the private-key check)."""
    ops, site = batch(tmp_path)
    before = tree(site)
    tpl = ops[0].parent / "templates"
    tpl.mkdir()
    os.link(ops[1].parent / ".acap" / "signing-key.pem", tpl / "footer.html")
    res = rebuild(tmp_path)
    err = only_error(res, ops[0])
    assert (err.rule, err.location.file) == ("PAGE-TEMPLATE", str(tpl / "footer.html"))
    assert "hard links" in err.message and "a copy, not a link" in (err.hint or "")
    assert hosts_of(tree(site), "op0.example", "op1.example", "op2.example") == \
        hosts_of(before, "op0.example", "op1.example", "op2.example")


def test_an_operator_s_own_hard_linked_template_builds_outside_a_batch(tmp_path: Path) -> None:
    """Outside a batch the operator's folder is its own: a hard-linked template (a
    backup made with cp -al) is read as it always was."""
    from acap.builder import BuildOptions, build

    [config] = write_operators(tmp_path / "ops", 1)
    tpl = config.parent / "templates"
    tpl.mkdir()
    (tmp_path / "footer.html").write_text("<p>Open 9 to 5</p>\n", encoding="utf-8")
    os.link(tmp_path / "footer.html", tpl / "footer.html")
    res = build(BuildOptions(config=config, site_dir=tmp_path / "site"))
    assert res.ok, report_text(res.report)
    pages = [p for p in (tmp_path / "site").rglob("*.html")
             if "Open 9 to 5" in p.read_text(encoding="utf-8")]
    assert pages


# -- 2. a tenant owns only what it can prove ---------------------------------------------

def add_signing(config: Path, line: str) -> int:
    """Append ``line`` under ``signing:`` (the generated files end with it); its line."""
    text = config.read_text(encoding="utf-8")
    assert text.endswith("signing:\n" + text.rsplit("signing:\n", 1)[1])
    config.write_text(text + line + "\n", encoding="utf-8")
    return len(text.splitlines()) + 1


def unchanged_except(res: BatchResult, site: Path, before: dict[str, str],
                     config: Path) -> None:
    """``config`` failed alone, and every host folder is byte for byte as before."""
    assert [o.config for o in res.failed] == [config]
    assert {k: v for k, v in tree(site).items() if not k.startswith(".acap/")} == \
        {k: v for k, v in before.items() if not k.startswith(".acap/")}


def test_a_key_file_in_another_tenant_s_folder_is_refused(tmp_path: Path) -> None:
    ops, site = batch(tmp_path)
    before = tree(site)
    line = add_signing(ops[0], "  keyFile: ../op00001/.acap/signing-key.pem")
    res = rebuild(tmp_path)
    err = only_error(res, ops[0])
    assert err.rule == "KEY-FILE" and (err.location.file, err.location.line) == \
        (str(ops[0]), line)
    assert "lies outside this operator's folder" in err.message
    unchanged_except(res, site, before, ops[0])


def test_a_linked_key_folder_leading_to_another_tenant_is_refused(tmp_path: Path) -> None:
    ops, site = batch(tmp_path)
    before = tree(site)
    own = ops[0].parent / ".acap"
    for f in own.iterdir():
        f.unlink()
    own.rmdir()
    own.symlink_to(ops[1].parent / ".acap")  # no keyFile line: the default path leads out
    res = rebuild(tmp_path)
    err = only_error(res, ops[0])
    assert err.rule == "KEY-FILE" and err.location.line == line_of(ops[0], "signing:")
    unchanged_except(res, site, before, ops[0])


def test_previous_keys_outside_the_tenant_s_folder_are_refused(tmp_path: Path) -> None:
    ops, site = batch(tmp_path)
    before = tree(site)
    (tmp_path / "shared.json").write_text('{"keys": []}\n')
    line = add_signing(ops[2], "  previousKeys: ../../shared.json")
    res = rebuild(tmp_path)
    err = only_error(res, ops[2])
    assert err.rule == "KEY-FILE" and err.location.line == line
    assert "the previous-keys file" in err.message
    unchanged_except(res, site, before, ops[2])


@pytest.mark.parametrize("member", ["keyFile", "previousKeys"])
@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_a_key_file_that_is_a_fifo_or_a_device_is_refused_unread(
        tmp_path: Path, member: str, kind: str) -> None:
    """A FIFO hung the whole batch; /dev/zero grew without bound. Now: refused at the line
    naming it, in a batch (the link to /dev/zero also leads out of the folder) and in a
    build of one's own (where a link in the project folder leads nowhere out of it:
    issue 22)."""
    from acap.builder import BuildOptions, build

    ops, site = batch(tmp_path)
    before = tree(site)
    target = ops[0].parent / "keys" / "odd"
    target.parent.mkdir()
    if kind == "fifo":
        os.mkfifo(target)
    else:
        target.symlink_to("/dev/zero")
    line = add_signing(ops[0], f"  {member}: keys/odd")
    res = rebuild(tmp_path)
    err = only_error(res, ops[0])
    assert err.rule == "KEY-FILE" and err.location.line == line
    assert ("FIFO" if kind == "fifo" else "outside this operator's folder") in err.message
    unchanged_except(res, site, before, ops[0])
    alone = build(BuildOptions(config=ops[0], site_dir=tmp_path / "alone"))
    [err] = alone.report.errors
    assert err.rule == "KEY-FILE" and err.location.line == line
    assert ("a named pipe (FIFO)" if kind == "fifo" else
            "keys/odd is a symbolic link that leads out of the project folder") in err.message
    assert not (tmp_path / "alone").exists()


def test_a_key_dir_named_by_the_platform_is_allowed(tmp_path: Path) -> None:
    ops, _ = batch(tmp_path)
    keys = tmp_path / "platform-keys"
    keys.mkdir()
    os.rename(ops[0].parent / ".acap" / "signing-key.pem", keys / "op0.pem")
    add_signing(ops[0], f"  keyFile: {keys / 'op0.pem'}")
    res = rebuild(tmp_path, key_dirs=[keys])
    assert res.written and not res.failed, [report_text(o.report) for o in res.failed]
    assert only_error(rebuild(tmp_path), ops[0]).rule == "KEY-FILE"  # not without it


def public_jwk_of(site: Path, host: str) -> dict[str, str]:
    return json.loads((site / host / ".well-known" / "jwks.json").read_text())["keys"][0]


def test_listing_another_tenant_s_public_key_takes_over_nothing(tmp_path: Path) -> None:
    """The attack: op2 copied op1's public key from op1's published JWKS into its previous
    keys, took op1's host, and a subset build with --prune removed op1's folders. Now op2
    fails (its previous keys name another's key), op1's folders stay byte for byte, and
    op1 builds its own host afterwards."""
    ops, site = batch(tmp_path)
    before = tree(site)
    stolen = public_jwk_of(site, "op1.example")
    prev = ops[2].parent / "keys" / "previous-keys.json"
    prev.parent.mkdir()
    prev.write_text(json.dumps({"keys": [{**stolen, "kid": "op2-0"}]}))
    text = ops[2].read_text(encoding="utf-8")
    ops[2].write_text(text.replace("op2.example", "op1.example"))  # op1's card and host
    for prune in (False, True):
        res = build_many(BatchOptions(configs=[ops[2]], site_dir=site, prune=prune))
        [o] = res.outcomes
        assert not o.built and [f.rule for f in o.report.errors] == ["KEY-OWNER"]
        assert o.report.errors[0].location.line == line_of(ops[2], "signing:")
        assert res.pruned == []
        assert hosts_of(tree(site), "op1.example") == hosts_of(before, "op1.example")
    owner = build_many(BatchOptions(configs=[ops[1]], site_dir=site, full=True))
    assert owner.written and not owner.failed, report_text(owner.outcomes[0].report)
    assert hosts_of(tree(site), "op1.example") == hosts_of(before, "op1.example")


def test_a_copy_of_another_tenant_s_key_signs_nothing(tmp_path: Path) -> None:
    """A new tenant with a copy of another's key file (inside its own folder, under a kid
    of its own): the key signed the other's card last time, so the copier fails, in the
    batch and alone; the owner keeps building."""
    ops, site = batch(tmp_path)
    before = tree(site)
    copier = tmp_path / "ops" / "op00003" / "operator.yaml"
    (copier.parent / ".acap").mkdir(parents=True)
    copier.write_text(operator_yaml(3, random.Random(3)), encoding="utf-8")
    (copier.parent / ".acap" / "signing-key.pem").write_bytes(
        (ops[1].parent / ".acap" / "signing-key.pem").read_bytes())
    res = rebuild(tmp_path)
    err = only_error(res, copier)
    # the other tenant is not named: a tenant's findings never show another's files
    assert err.rule == "KEY-OWNER" and "same key as another operator of this batch" in err.message
    assert str(ops[1].parent) not in err.message + (err.hint or "")
    assert err.location.line == line_of(copier, "signing:")
    unchanged_except(res, site, before, copier)
    assert not (site / "op3.example").exists()
    alone = build_many(BatchOptions(configs=[copier], site_dir=site))  # op1 not in it
    [o] = alone.outcomes
    assert [f.rule for f in o.report.errors] == ["KEY-OWNER"]
    assert "signed another operator's card in the last build" in o.report.errors[0].message
    assert hosts_of(tree(site), "op1.example") == hosts_of(before, "op1.example")


def test_a_claim_on_the_spec_site_s_host_fails_the_claimant_alone(tmp_path: Path) -> None:
    ops = write_operators(tmp_path / "ops", 3)
    ops[0].write_text(ops[0].read_text() + "specSite: true\n")
    ops[2].write_text(ops[2].read_text() + "specSite: true\ncache:\n  card: 60\n")
    text = ops[1].read_text()
    ops[1].write_text(text + "hosts:\n  agent-capability.org: {}\n")
    site = tmp_path / "site"
    res = build_many(BatchOptions(configs=ops, site_dir=site))
    err = only_error(res, ops[1])
    assert err.rule == "SITE-HOST" and err.location.line == len(text.splitlines()) + 2
    spec = site / "agent-capability.org" / "ext" / "on-request" / "v1" / "index.html"
    assert res.written and spec.is_file()
    assert {o.config for o in res.built} == {ops[0], ops[2]}  # cache settings: both alike


CNAME = "  ask.op0.example:\n    cname: "


@pytest.mark.parametrize("hosts", ["  'ask\\\\op0.example': {}",
                                   CNAME + '"ask.op0.example\\nevil.example"',
                                   CNAME + "ask.op0.example evil.example"])
def test_host_names_and_cnames_are_one_line_of_a_host_name(tmp_path: Path,
                                                           hosts: str) -> None:
    ops, site = batch(tmp_path)
    before = tree(site)
    text = ops[0].read_text()
    ops[0].write_text(text + "hosts:\n" + hosts + "\n")
    err = only_error(rebuild(tmp_path), ops[0])
    assert err.rule == "URL-FORM"
    assert err.location.line == len(text.splitlines()) + (2 if "cname" not in hosts else 3)
    unchanged_except(rebuild(tmp_path), site, before, ops[0])
    assert not [p for p in site.iterdir() if "\\" in p.name or "\n" in p.name]


def test_an_operator_file_that_is_a_fifo_is_refused_unread(tmp_path: Path) -> None:
    ops, site = batch(tmp_path)
    before = tree(site)
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)
    res = build_many(BatchOptions(configs=[fifo, ops[0]], site_dir=site))  # returns
    [err] = res.outcomes[0].report.errors
    assert (err.rule, err.location.file) == ("FILE", str(fifo))
    assert "not a regular file" in err.message
    assert res.written and hosts_of(tree(site), "op0.example", "op1.example") == \
        hosts_of(before, "op0.example", "op1.example")


def test_a_tenant_refused_another_s_host_is_not_told_to_rotate_its_key(tmp_path: Path) -> None:
    """A fresh user's trial: op00012, pointed at op13.example (op00013's), was refused
    with SITE-HOST, and also warned that kid op13-1 "was published ... run acap keys
    rotate --lost --old-kid op13-1": another tenant's key."""
    ops, _site = batch(tmp_path, 14)
    text = ops[12].read_text()
    ops[12].write_text(text.replace("https://op12.example", "https://op13.example"))
    res = rebuild(tmp_path)
    err = only_error(res, ops[12])
    assert err.rule == "SITE-HOST" and err.message.startswith(
        "host op13.example belongs to another operator")
    [o] = [o for o in res.outcomes if o.config == ops[12]]
    assert [(f.rule, f.level) for f in o.report] == [("SITE-HOST", "error")]
    assert not any("op13-1" in f.message for o in res.outcomes for f in o.report)


@pytest.mark.parametrize("link", ["templates", "keys"])
def test_a_tenant_linking_into_the_site_folder_fails_alone(tmp_path: Path, link: str) -> None:
    """A tenant's templates/ (or keys/) made a link to the batch's site folder held back
    every tenant of the batch (a batch-wide SITE-PATH) before a tenant was the unit of
    change (issue 24): it fails alone, at its operator file (the link leads out of its
    folder), and the others build."""
    ops, site = batch(tmp_path)
    for op in ops:
        op.write_text(op.read_text().replace("assistant\n", "helper\n"))
    (ops[1].parent / link).symlink_to(site, target_is_directory=True)
    before = tree(site)
    res = rebuild(tmp_path)
    err = only_error(res, ops[1])
    assert (err.rule, err.location.file) == (
        "PAGE-TEMPLATE" if link == "templates" else "KEY-FILE", str(ops[1]))
    assert res.written and not res.report.errors
    after = tree(site)
    assert hosts_of(after, "op1.example") == hosts_of(before, "op1.example")
    assert hosts_of(after, "op0.example") != hosts_of(before, "op0.example")


def test_a_link_inside_a_tenants_folder_to_the_site_folder_fails_that_tenant(
        tmp_path: Path) -> None:
    """The site folder inside a tenant's folder (the platform's choice), and the tenant's
    templates/ a link to it, within its folder: that tenant fails (SITE-PATH: its
    templates would be the site the batch writes), the others build."""
    ops = write_operators(tmp_path / "ops", 3)
    site = ops[1].parent / "out"
    (ops[1].parent / "templates").symlink_to("out", target_is_directory=True)
    res = build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=site))
    err = only_error(res, ops[1])
    assert (err.rule, err.location.file) == ("SITE-PATH", str(ops[1]))
    assert f"templates/ of this operator (templates, through a link) holds the site folder " \
        f"of the batch, {site}" in err.message
    assert res.written and sorted(p.name for p in site.iterdir() if p.name[0] != ".") == \
        ["op0.example", "op2.example"]
