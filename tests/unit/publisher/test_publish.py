"""acap publish to a git branch (GitHub Pages): history, determinism, refusals, failures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from acap.cli import cli, report_text
from acap.findings import Finding
from acap.publisher import PublishResult, publish
from support.publishing import (
    add_to_site,
    bare_repo,
    branch_tip,
    do_build,
    git,
    host_manifest_files,
    project,
    publish_to,
    set_cname,
    set_overlay,
    set_version,
    snapshot,
    tree_files,
    trial,
)

#: Files each published host must carry, whatever else the build adds. Hosts are
#: checked when the build writes them; extend the lists as the build grows.
REQUIRED = {
    "example.com": [".nojekyll", "CNAME", ".well-known/agent-card.json", ".well-known/jwks.json"],
    "ask.example.com": [".nojekyll", "CNAME", "talk/index.html"],  # the personEntry page
}


def _rules(result: PublishResult) -> list[str]:
    return [f.rule for f in result.report.errors]


def _errors(result: PublishResult, rule: str) -> list[Finding]:
    return [f for f in result.report.errors if f.rule == rule]


#: Hosting files GitHub Pages does not read (Netlify's and Cloudflare's ``_headers``,
#: Apache's ``.htaccess``): never published to a Pages branch.
NOT_FOR_PAGES = {"_headers", ".well-known/.htaccess"}


def _assert_complete(repo: Path, rev: str, site: Path, host: str) -> dict[str, bytes]:
    files = tree_files(repo, rev)
    for name in REQUIRED.get(host, []):
        assert name in files, f"{name} missing from {host} at {rev}"
    # Exactly what the build wrote for the host that GitHub Pages reads, plus what Pages
    # needs (.nojekyll, and CNAME for a custom domain: the bundled example sets cname =
    # host); never the build manifest.
    published = host_manifest_files(site, host) - NOT_FOR_PAGES
    assert set(files) == published | {".nojekyll", "CNAME"}
    assert not any(p.startswith(".acap") for p in files)
    for rel in published:
        assert files[rel] == (site / host / rel).read_bytes(), rel
    assert files["CNAME"].strip() == host.encode()
    assert files[".nojekyll"] == b""
    return files


def _rename_operator(config: Path, name: str) -> None:
    """A change that reaches every host's files (the card's provider, the pages' text)."""
    from support.publishing import change

    change(config, lambda d: d["operator"].__setitem__("name", name))


def test_publish_twice_with_a_change_then_unchanged(tmp_path: Path) -> None:
    config = project(tmp_path)
    site = config.parent / "site"
    remotes = {}
    for host in ("example.com", "ask.example.com"):  # the bundled example's hosts
        remotes[host] = bare_repo(tmp_path / f"{host}.git")
        publish_to(config, host, remote=str(remotes[host]))
    do_build(config)
    built = sorted(h for h in remotes if (site / h).is_dir())
    assert "example.com" in built

    first = publish(trial(config=config))
    assert first.ok, report_text(first.report)
    assert sorted((h.target.host, h.outcome) for h in first.hosts) == \
        [(h, "published") for h in built]
    c1 = {h: branch_tip(remotes[h]) for h in built}
    assert c1 == {h.target.host: h.commit for h in first.hosts}
    tree1 = {h: _assert_complete(remotes[h], c1[h], site, h) for h in built}

    _rename_operator(config, "Example Memorial Chapel Ltd")
    do_build(config)
    second = publish(trial(config=config))
    assert second.ok, report_text(second.report)
    for h in built:
        c2 = branch_tip(remotes[h])
        assert c2 != c1[h]
        assert git("rev-parse", f"{c2}^", cwd=remotes[h]).strip() == c1[h]  # on the tip
        tree2 = _assert_complete(remotes[h], c2, site, h)
        assert tree2 != tree1[h]
    card = ".well-known/agent-card.json"
    assert json.loads(tree1["example.com"][card])["provider"]["organization"] == \
        "Example Memorial Chapel"
    assert json.loads(tree_files(remotes["example.com"], "gh-pages")[card])["provider"][
        "organization"] == "Example Memorial Chapel Ltd"

    third = publish(trial(config=config))
    assert third.ok
    assert {(h.outcome, h.commit) for h in third.hosts} == {("up to date", None)}
    for h in built:
        assert git("rev-list", "--count", "gh-pages", cwd=remotes[h]).strip() == "2"
    log = git("log", "--format=%an <%ae>|%B", "-1", "gh-pages", cwd=remotes["example.com"])
    assert log.startswith("acap <acap@publish.invalid>|Publish example.com")
    assert "Published-by: acap" in log


def test_same_content_gives_the_same_commit(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Deterministic tree, message, author, committer and date (SOURCE_DATE_EPOCH)."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")
    config = project(tmp_path)
    do_build(config)
    commits = []
    for name in ("a.git", "b.git"):
        remote = bare_repo(tmp_path / name)
        res = publish(trial(config=config, remote=str(remote)))
        assert res.ok, report_text(res.report)
        commits.append(branch_tip(remote))
    assert commits[0] == commits[1]
    assert git("log", "-1", "--format=%at %ct", "gh-pages", cwd=tmp_path / "a.git").strip() \
        == "1767225600 1767225600"


def test_docs_flow_build_then_publish_remote(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """`acap build && acap publish --remote <bare repo>`, as docs/publishing.md says."""
    from support.paths import REPO

    assert "acap build && acap publish --create --remote /tmp/pages.git" in \
        (REPO / "docs" / "publishing.md").read_text("utf-8")
    config = project(tmp_path)
    remote = bare_repo(tmp_path / "pages.git")
    monkeypatch.chdir(config.parent)
    runner = CliRunner()
    built = runner.invoke(cli, ["build"])
    assert built.exit_code == 0, built.output
    res = runner.invoke(cli, ["publish", "--create", "--allow-example-hosts",
                              "--remote", str(remote)])
    assert res.exit_code == 0, res.output
    assert "example.com: published (branch gh-pages of" in res.stdout
    assert "example.com: reading branch gh-pages of" in res.stderr  # progress, per host
    tip = branch_tip(remote)
    assert tip is not None
    assert ".well-known/agent-card.json" in tree_files(remote, tip)
    # A relative remote path works from the project folder too.
    res = runner.invoke(cli, ["publish", "--create", "--allow-example-hosts",
                              "--remote", "../pages.git", "--branch", "site"])
    assert res.exit_code == 0, res.output
    assert branch_tip(remote, "site") is not None


def _repo_state(folder: Path) -> tuple[str, str, bytes, dict[str, bytes]]:
    return (git("for-each-ref", cwd=folder), git("status", "--porcelain", "--ignored", cwd=folder),
            (folder / ".git/index").read_bytes(),
            {k: v for k, v in snapshot(folder).items() if not k.startswith(".git/")})


def test_rejected_push_leaves_remote_and_local_as_they_were(tmp_path: Path) -> None:
    remote = bare_repo(tmp_path / "pages.git")
    config = project(tmp_path)
    folder = config.parent
    (folder / ".gitignore").write_text("/site/\n/.acap/\n", encoding="utf-8")
    git("init", "-q", cwd=folder)
    git("add", "-A", cwd=folder)
    git("commit", "-q", "-m", "operator project", cwd=folder)
    do_build(config)
    assert publish(trial(config=config, remote=str(remote))).ok
    c1 = branch_tip(remote)
    remote_refs = git("for-each-ref", cwd=remote)

    hook = remote / "hooks/pre-receive"
    hook.write_text("#!/bin/sh\necho 'refused by the test policy' >&2\nexit 1\n")
    hook.chmod(0o755)
    set_version(config, "2.0.0")
    do_build(config)
    before = _repo_state(folder)

    res = CliRunner().invoke(cli, ["publish", "--create", "--allow-example-hosts",
                                   "-c", str(config), "--remote", str(remote)])
    assert res.exit_code == 1, res.output
    assert "[PUBLISH-FAILED]" in res.stderr
    assert "refused by the test policy" in res.stderr          # the hook's own words
    assert "pre-receive hook declined" in res.stderr           # git's own message
    assert "example.com: failed" in res.stdout
    # the progress line does not count as done what the failure undid (final trial)
    assert "failed: " not in res.output
    assert git("for-each-ref", cwd=remote) == remote_refs
    assert branch_tip(remote) == c1
    assert _repo_state(folder) == before
    assert "gh-pages" not in git("branch", "-a", cwd=folder)


def test_tampered_card_is_refused(tmp_path: Path) -> None:
    remote = bare_repo(tmp_path / "pages.git")
    config = project(tmp_path)
    do_build(config)
    card = config.parent / "site/example.com/.well-known/agent-card.json"
    data = bytearray(card.read_bytes())
    i = data.index(b"Example Memorial Chapel assistant")
    data[i] = ord("e")  # one byte
    card.write_bytes(bytes(data))
    res = publish(trial(config=config, remote=str(remote)))
    assert not res.ok
    bad = _errors(res, "PUBLISH-INTEGRITY")
    assert len(bad) == 1
    assert bad[0].location.file == str(card)
    assert "changed after acap build" in bad[0].message
    assert res.hosts == []
    assert git("ls-remote", str(remote)) == ""  # nothing went out


def test_every_signature_is_checked_even_when_the_manifest_agrees(tmp_path: Path) -> None:
    """A card changed *with* its manifest entry still fails: its signature does not verify."""
    remote = bare_repo(tmp_path / "pages.git")
    config = project(tmp_path)
    do_build(config)
    site = config.parent / "site"
    rel = "example.com/.well-known/agent-card.json"
    card = json.loads((site / rel).read_text("utf-8"))
    card["description"] = "Something else entirely."
    add_to_site(site, rel, (json.dumps(card, indent=2) + "\n").encode())
    res = publish(trial(config=config, remote=str(remote)))
    assert "PUBLISH-INTEGRITY" not in _rules(res)
    sig = _errors(res, "PUBLISH-SIGNATURE")
    assert len(sig) == 1
    assert "signature 0" in sig[0].message and "kid chapel-1" in sig[0].message
    assert sig[0].location.line is not None  # points into the card
    assert "SIG-INVALID" in _rules(res)
    assert git("ls-remote", str(remote)) == ""


@pytest.mark.parametrize("rel,data,where", [
    ("example.com/keys/signing-key.pem",
     b"-----BEGIN PRIV" b"ATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg\n"
     b"-----END PRIVATE KEY-----\n", None),
    ("example.com/notes.txt", b"backup:\n-----BEGIN EC PRIV" b"ATE KEY-----\nAAAA\n", None),
    ("example.com/.well-known/other-keys.json",
     json.dumps({"keys": [{"kty": "EC", "crv": "P-256", "x": "AA", "y": "AA", "d": "AA"}]})
     .encode(), "/keys/0"),
    # a JWK inside a JSON string and inside a page, with text around it (trial 5, item 1)
    ("example.com/.well-known/notes.json",
     json.dumps({"note": 'our key {"kty": "EC", "crv": "P-256", "x": "AA", "y": "AA", '
                         '"d": "AA"} - do not share'}).encode(), "/note"),
    ("example.com/.well-known/escaped.json",  # quoted once more (trial 6)
     json.dumps({"note": json.dumps('{"kty": "EC", "crv": "P-256", "x": "AA", "y": "AA", '
                                    '"d": "AA"}')}).encode(), "/note"),
    ("example.com/about.html",
     b'<p>\n<!-- {&#34;kty&#34;: &#34;OKP&#34;, &#34;crv&#34;: &#34;Ed25519&#34;, '
     b'&#34;x&#34;: &#34;AA&#34;, &#34;d&#34;: &#34;AA&#34;} --></p>', None),
])
def test_private_key_material_is_refused(tmp_path: Path, rel: str, data: bytes,
                                         where: str | None) -> None:
    remote = bare_repo(tmp_path / "pages.git")
    config = project(tmp_path)
    do_build(config)
    site = config.parent / "site"
    add_to_site(site, rel, data)
    res = publish(trial(config=config, remote=str(remote)))
    found = _errors(res, "PUBLISH-PRIVATE-KEY")
    assert len(found) == 1, report_text(res.report)
    assert found[0].location.file == str(site / rel)
    assert found[0].location.pointer == where
    # where such text comes from (a key pasted into operator.yaml was told "keep keys
    # outside site/", which misled: the second trial, item 1)
    assert found[0].hint is not None and "from operator.yaml" in found[0].hint
    assert "from templates/" in found[0].hint and "outside site/" not in found[0].hint
    assert _rules(res) == ["PUBLISH-PRIVATE-KEY"]
    assert git("ls-remote", str(remote)) == ""


def test_json_without_private_members_is_not_flagged(tmp_path: Path) -> None:
    """A "d" key outside a JWK (no "kty") is ordinary data, not a key."""
    remote = bare_repo(tmp_path / "pages.git")
    config = project(tmp_path)
    do_build(config)
    add_to_site(config.parent / "site", "example.com/data.json", b'{"d": 1, "k": [1]}')
    res = publish(trial(config=config, remote=str(remote)))
    assert res.ok, report_text(res.report)


def test_stale_site_is_refused(tmp_path: Path) -> None:
    remote = bare_repo(tmp_path / "pages.git")
    config = project(tmp_path)
    res = publish(trial(config=config, remote=str(remote)))
    assert _rules(res) == ["PUBLISH-STALE"] and res.report.errors[0].hint == "run acap build"
    do_build(config)
    set_version(config, "1.0.1")
    res = publish(trial(config=config, remote=str(remote)))
    assert _rules(res) == ["PUBLISH-STALE"]
    assert "not built from the current" in res.report.errors[0].message
    do_build(config)
    tpl = config.parent / "templates"
    tpl.mkdir()
    (tpl / "page.html").write_text("<p>mine</p>\n", encoding="utf-8")
    res = publish(trial(config=config, remote=str(remote)))
    assert _rules(res) == ["PUBLISH-STALE"]
    out = CliRunner().invoke(cli, ["publish", "--create", "--allow-example-hosts",
                                   "-c", str(config), "--remote", str(remote)])
    assert out.exit_code == 1
    assert "run acap build" in out.stderr
    assert git("ls-remote", str(remote)) == ""


def test_a_value_declared_private_after_the_build_stops_the_publish(tmp_path: Path) -> None:
    """The built files may hold the value: only a new build (whose OR-3.9 scan sees it)
    may go out."""
    remote = bare_repo(tmp_path / "pages.git")
    config = project(tmp_path)
    do_build(config)
    (config.parent / "operator.private.yaml").write_text(
        'service-pricing:\n  - "£2,450"\n', encoding="utf-8")
    res = publish(trial(config=config, remote=str(remote)))
    assert _rules(res) == ["PUBLISH-STALE"]
    assert git("ls-remote", str(remote)) == ""


@pytest.mark.parametrize("remote,cname,served", [
    ("https://github.com/someone/chapel-site.git", None, "https://someone.github.io/chapel-site/"),
    ("git@github.com:someone/someone.github.io.git", None, "https://someone.github.io/"),
    ("https://github.com/someone/chapel-site", "www.example.com", "https://www.example.com/"),
])
def test_target_must_serve_the_card_at_the_root_of_its_origin(
        tmp_path: Path, remote: str, cname: str | None, served: str) -> None:
    config = project(tmp_path)
    set_cname(config, "example.com", cname)
    do_build(config)
    res = publish(trial(config=config, remote=remote))
    found = _errors(res, "PUBLISH-ORIGIN")
    assert len(found) == 1, report_text(res.report)
    assert f"serves {served}" in found[0].message
    assert "https://example.com/.well-known/agent-card.json" in found[0].message
    assert res.hosts == []  # refused before contacting the remote


def test_github_user_site_with_matching_host_passes_the_origin_check(tmp_path: Path) -> None:
    from acap.publisher import Target
    from acap.publisher._preflight import origin_findings

    t = Target("someone.github.io", "branch", remote="https://github.com/Someone/someone.github.io")
    assert origin_findings(t, {}, "someone.github.io") == []
    unknown = origin_findings(Target("example.com", "branch", remote="/srv/x.git"), {},
                              "example.com")
    assert [f.level for f in unknown] == ["warning"]


def test_dry_run_lists_changes_and_changes_nothing(tmp_path: Path) -> None:
    remote = bare_repo(tmp_path / "pages.git")
    config = project(tmp_path)
    do_build(config)
    assert publish(trial(config=config, remote=str(remote))).ok
    c1 = branch_tip(remote)
    set_version(config, "1.2.0")
    set_cname(config, "example.com", None)
    do_build(config)
    res = CliRunner().invoke(cli, ["publish", "--create", "--allow-example-hosts",
                                   "-c", str(config), "--remote", str(remote),
                                   "--dry-run"])
    assert res.exit_code == 0, res.output
    assert "example.com: dry run" in res.stdout
    assert "  ~ .well-known/agent-card.json" in res.stdout
    assert "  - CNAME" in res.stdout
    assert "  + " not in res.stdout
    assert branch_tip(remote) == c1


def test_branch_with_files_acap_did_not_publish_needs_force(tmp_path: Path) -> None:
    remote = bare_repo(tmp_path / "pages.git")
    work = tmp_path / "someone-else"
    git("init", "-q", "-b", "gh-pages", str(work))
    (work / "my-page.html").write_text("<h1>my own site</h1>\n", encoding="utf-8")
    (work / ".well-known").mkdir()
    (work / ".well-known/agent-card.json").write_text("{}\n", encoding="utf-8")
    git("add", "-A", cwd=work)
    git("commit", "-q", "-m", "hand-made site", cwd=work)
    git("push", "-q", str(remote), "gh-pages", cwd=work)
    foreign = branch_tip(remote)
    config = project(tmp_path, overlay=False)  # acap owns example.com whole
    do_build(config)

    res = publish(trial(config=config, remote=str(remote)))
    found = _errors(res, "PUBLISH-FOREIGN")
    assert len(found) == 1
    assert "overlay: true" in (found[0].hint or "")  # the way to keep the page, said
    # Replaced (a card someone put there) and removed (their page): both need --force.
    assert ".well-known/agent-card.json, my-page.html" in found[0].message
    assert branch_tip(remote) == foreign

    res = publish(trial(config=config, remote=str(remote), force=True))
    assert res.ok, report_text(res.report)
    tip = branch_tip(remote)
    assert git("rev-parse", f"{tip}^", cwd=remote).strip() == foreign  # history kept
    assert "my-page.html" not in tree_files(remote, tip)
    assert "my-page.html" in tree_files(remote, foreign)
    # Once acap owns the branch, its own stale files go without --force.
    set_cname(config, "example.com", None)
    do_build(config)
    res = publish(trial(config=config, remote=str(remote)))
    assert res.ok and res.hosts[0].plan is not None and res.hosts[0].plan.removed == ["CNAME"]


def test_targets_from_operator_yaml_and_their_mistakes(tmp_path: Path) -> None:
    config = project(tmp_path)
    do_build(config)
    # No target anywhere: an error naming what to add; built hosts unpublished are warned.
    res = publish(trial(config=config))
    assert _rules(res) == ["PUBLISH-TARGET"]
    assert "no publish target" in res.report.errors[0].message
    hint = res.report.errors[0].hint or ""  # every kind of target, not only git (trial)
    assert all(t in hint for t in ("dir: ", "sftp: ", "remote: ", "--dir", "--sftp"))
    assert any("site/example.com/ is not published" in w.message for w in res.report.warnings)
    # An unknown host on the command line.
    res = publish(trial(config=config, hosts=("nowhere.example",), remote="/x.git"))
    assert _rules(res) == ["PUBLISH-TARGET"] and "no folder for nowhere.example" in \
        res.report.errors[0].message
    # remote and dir together in operator.yaml, pointing at the line.
    publish_to(config, "example.com", remote="../pages.git", dir="../www")
    do_build(config)
    res = publish(trial(config=config))
    err = _errors(res, "PUBLISH-TARGET")
    assert len(err) == 1 and "gives remote and dir" in err[0].message
    assert err[0].location.file.endswith("operator.yaml") and err[0].location.line is not None
    # A directory target that is the project itself: refused, with a hint that is not
    # "the folder your web server serves" again (issue 15: that is the folder given).
    res = publish(trial(config=config, dir=config.parent))
    [err] = _errors(res, "PUBLISH-TARGET")
    assert "it holds your project (or site/): publishing would write acap's files into " \
        "it" in err.message  # example.com: acap adds its files beside a website there
    assert err.hint == ("give the folder your web server serves as https://example.com/, "
                        "outside your acap project")
    set_overlay(config, "example.com", False)
    do_build(config)
    res = publish(trial(config=config, dir=config.parent))
    assert "it holds your project (or site/): mirroring would delete it" in \
        _errors(res, "PUBLISH-TARGET")[0].message
    res = publish(trial(config=config, remote="/x.git", branch="bad..name"))
    assert "not a branch name" in _errors(res, "PUBLISH-TARGET")[0].message


def test_two_hosts_on_one_branch_are_refused(tmp_path: Path) -> None:
    config = project(tmp_path)
    do_build(config)
    res = publish(trial(config=config, hosts=("example.com", "agent-capability.org"),
                                 remote=str(tmp_path / "pages.git")))
    err = _errors(res, "PUBLISH-TARGET")
    assert len(err) == 1 and "same branch gh-pages" in err[0].message
    assert res.hosts == []
    # Each on its own branch is fine.
    bare_repo(tmp_path / "pages.git")
    publish_to(config, "example.com", remote="../pages.git")
    publish_to(config, "agent-capability.org", remote="../pages.git", branch="spec")
    do_build(config)
    res = publish(trial(config=config))
    assert [(h.target.host, h.outcome) for h in res.hosts] == \
        [("agent-capability.org", "published"), ("example.com", "published")]


def test_unreachable_remote_fails_with_gits_reason(tmp_path: Path) -> None:
    config = project(tmp_path)
    do_build(config)
    res = CliRunner().invoke(cli, ["publish", "--create", "--allow-example-hosts",
                                   "-c", str(config), "--remote",
                                   str(tmp_path / "no-such-repo.git")])
    assert res.exit_code == 1
    assert "[PUBLISH-FAILED]" in res.stderr
    assert "does not appear to be a git repository" in res.stderr  # git's own words


def test_every_rule_id_publish_and_live_use_is_registered() -> None:
    import re

    import acap
    from acap.requirements import rule_ids

    src = Path(acap.__file__).parent
    used: set[str] = set()
    for path in sorted((src / "publisher").glob("*.py")):
        text = path.read_text("utf-8")
        used |= set(re.findall(r'Finding\(\s*"([A-Z0-9.-]+)"', text))
        used |= set(re.findall(r'"((?:PUBLISH|LIVE|SITE)-[A-Z-]+)"', text))  # TargetRefused
    assert {"PUBLISH-STALE", "PUBLISH-ORIGIN", "LIVE-CORS", "PUBLISH-HOST-KEY"} <= used
    assert used - rule_ids() == set()


def test_the_users_global_hooks_do_not_run(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A core.hooksPath in the user's git config must not veto acap's own push."""
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    (hooks / "pre-push").write_text("#!/bin/sh\necho 'user hook ran' >&2\nexit 1\n")
    (hooks / "pre-push").chmod(0o755)
    gitconfig = tmp_path / "gitconfig"
    gitconfig.write_text(f"[core]\n\thooksPath = {hooks}\n", encoding="utf-8")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(gitconfig))
    remote = bare_repo(tmp_path / "pages.git")
    config = project(tmp_path)
    do_build(config)
    res = publish(trial(config=config, remote=str(remote)))
    assert res.ok, report_text(res.report)
    assert branch_tip(remote) is not None


def test_card_host_without_its_card_is_refused(tmp_path: Path) -> None:
    """Deleting the card *and* its manifest entry still cannot publish a card host without it."""
    config = project(tmp_path)
    do_build(config)
    site = config.parent / "site"
    rel = "example.com/.well-known/agent-card.json"
    (site / rel).unlink()
    man = json.loads((site / ".acap/manifest.json").read_text("utf-8"))
    del man["files"][rel]
    (site / ".acap/manifest.json").write_text(json.dumps(man), encoding="utf-8")
    res = publish(trial(config=config, remote=str(tmp_path / "pages.git")))
    assert [f.message for f in _errors(res, "PUBLISH-INTEGRITY")] == \
        ["site/example.com/ has no Agent Card (.well-known/agent-card.json)"]


@pytest.mark.parametrize(("first", "second", "how"), [
    ("../pub", "../pub", "into the same folder"),
    ("../pub", "../pub/ask", "into folders inside one another"),
])
def test_two_hosts_sharing_or_nesting_folders_get_one_clear_error(
        tmp_path: Path, first: str, second: str, how: str) -> None:
    config = project(tmp_path)
    publish_to(config, "example.com", dir=first)
    publish_to(config, "ask.example.com", dir=second)
    do_build(config)
    res = publish(trial(config=config))
    [err] = _errors(res, "PUBLISH-TARGET")
    assert how in err.message and "one would delete the other's files" in err.message
    assert ".." not in err.message  # paths shown resolved
    assert not (tmp_path / "pub").exists()


# -- the order of hosts; a card held back; example hosts ---------------------------------------

def _refusing_hook(remote: Path) -> None:
    hook = remote / "hooks/pre-receive"
    hook.write_text("#!/bin/sh\necho 'remote: rejected by policy' >&2\nexit 1\n")
    hook.chmod(0o755)


def test_the_card_is_held_back_when_its_person_entry_host_fails(tmp_path: Path) -> None:
    """A fresh user's trial: the personEntry host's push was refused, the card's host was
    published anyway, and the live card pointed to a page that was not there."""
    config = project(tmp_path)
    remote = bare_repo(tmp_path / "pages.git")
    _refusing_hook(remote)
    publish_to(config, "example.com", dir="../www")
    publish_to(config, "ask.example.com", remote=str(remote))
    do_build(config)
    res = CliRunner().invoke(cli, ["publish", "--create", "--allow-example-hosts",
                                   "-c", str(config), "--host", "example.com",
                                   "--host", "ask.example.com"])
    assert res.exit_code == 1, res.output
    assert res.stdout.splitlines() == [
        f"ask.example.com: failed (branch gh-pages of {remote})",
        f"example.com: held back (directory {tmp_path / 'project/../www'})"]
    assert not (tmp_path / "www").exists()  # the card did not go out
    assert ("error: example.com: not published: held back because ask.example.com failed, so "
            "the card does not point to a page that is not there [PUBLISH-HELD]") in res.stderr
    # git's words, one line each, the server's own "remote:" given once
    assert "failed; it is as it was. could not push to gh-pages" in res.stderr
    assert "\n    > remote: rejected by policy\n" in res.stderr
    assert "remote: remote:" not in res.stderr and " | " not in res.stderr
    assert "(pre-receive hook declined)" in res.stderr

    (remote / "hooks/pre-receive").unlink()
    lines: list[str] = []
    ok = publish(trial(config=config, hosts=("example.com", "ask.example.com"),
                       progress=lines.append))
    assert ok.ok, report_text(ok.report)
    assert [h.target.host for h in ok.hosts] == ["ask.example.com", "example.com"]
    assert [h.outcome for h in ok.hosts] == ["published", "published"]


def test_the_specification_site_the_card_names_holds_the_card_back_too(tmp_path: Path) -> None:
    """The card's extension URI is on the specification site acap builds: it goes out
    first; the pages of the other hosts still go out."""
    config = project(tmp_path)
    remote = bare_repo(tmp_path / "spec.git")
    _refusing_hook(remote)
    publish_to(config, "example.com", dir="../www")
    publish_to(config, "ask.example.com", dir="../ask")
    publish_to(config, "agent-capability.org", remote=str(remote))
    do_build(config)
    res = publish(trial(config=config))
    assert [(h.target.host, h.outcome) for h in res.hosts][-1] == ("example.com", "held back")
    assert {h.target.host: h.outcome for h in res.hosts} == {
        "agent-capability.org": "failed", "ask.example.com": "published",
        "example.com": "held back"}
    assert [f.rule for f in res.report.errors] == ["PUBLISH-FAILED", "PUBLISH-HELD"]
    assert res.report.errors[1].message.startswith(
        "example.com: not published: held back because agent-capability.org failed")
    assert not (tmp_path / "www").exists() and (tmp_path / "ask").is_dir()


def test_acap_inits_example_website_is_not_published(tmp_path: Path) -> None:
    """A fresh user's trial: an untouched ``acap init`` project built and published to a
    real folder put a card for example.org there."""
    runner = CliRunner()
    assert runner.invoke(cli, ["init", str(tmp_path / "p")]).exit_code == 0
    config = tmp_path / "p/operator.yaml"
    built = runner.invoke(cli, ["build", "-c", str(config)])
    assert built.exit_code == 0, built.output
    www = tmp_path / "www"
    res = runner.invoke(cli, ["publish", "--create", "-c", str(config), "--dir", str(www)])
    assert res.exit_code == 1
    assert (f"{config}:18:12: error: example.org is an example address (reserved for examples "
            "by RFC 2606 and RFC 6761, never anyone's website): acap does not publish it "
            "[PUBLISH-PLACEHOLDER]\n    hint: operator.yaml still has the example website "
            "from acap init: put your own website's address in `website:` and build again (to "
            "try acap out with the example, acap publish --allow-example-hosts publishes it "
            "anyway)") in res.stderr
    assert not www.exists()
    tried = runner.invoke(cli, ["publish", "--create", "-c", str(config), "--dir", str(www),
                                "--allow-example-hosts"])
    assert tried.exit_code == 0, tried.output
    assert (www / ".well-known/agent-card.json").is_file()


@pytest.mark.parametrize(("host", "reserved"), [
    ("example.org", True), ("ask.example.com", True), ("EXAMPLE.NET.", True),
    ("op13.example", True), ("shop.test", True), ("a.invalid", True), ("x.localhost", True),
    ("example.org.praxis.de", False), ("myexample.org", False), ("example.de", False),
    ("testing.de", False), ("praxis-beispiel.de", False)])
def test_example_hosts_are_the_reserved_names(host: str, reserved: bool) -> None:
    from acap.uris import is_example_host

    assert is_example_host(host) is reserved
