"""The publish tests every store must pass (issue 20): a folder on this machine, a folder
over SFTP (Debian's OpenSSH on 127.0.0.1) and a git branch, each run through the one
engine. A planted record (with and without digests, and one signed by a stranger's key),
an edited record, a deleted record, a link on acap's way, folders nested deeper than acap
walks, a missing target, a page of the website where acap's page would go, and a second
computer without the key: each is a finding, and every file of the website is byte for
byte as before.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from acap.cli import report_text
from acap.findings import Finding
from acap.keys import SigningKey, generate_private_key
from acap.publisher import PublishResult, publish
from acap.site import PublishRecord
from support.publishing import add_to_site, change, do_build, project, set_version, snapshot
from support.servers import Sshd
from support.stores import STORES, WEBSITE, Harness

CARD = ".well-known/agent-card.json"


@pytest.fixture(params=STORES)
def target(request: pytest.FixtureRequest, tmp_path: Path, sshd_server: Sshd,
           no_users_ssh: None) -> Harness:
    """The bundled example's project, publishing example.com (the practice's website's
    host: acap adds its files beside the website) to one store of each kind."""
    kind = request.param
    root = tmp_path / ("pages.git" if kind == "branch" else "srv/praxis")
    return Harness(kind, project(tmp_path), root, sshd_server)


def _whole(h: Harness) -> Harness:
    """``h`` for a project where acap owns example.com whole (no website of its own)."""
    change(h.config, lambda d: d["hosts"]["example.com"].__setitem__("overlay", False))
    return h


def _messages(res: PublishResult, rule: str, level: str = "error") -> list[str]:
    return [f.message for f in res.report.findings if f.rule == rule and f.level == level]


def _intact(h: Harness) -> None:
    """Every file of the website is there, byte for byte."""
    served = h.served()
    assert {rel: served.get(rel) for rel in WEBSITE} == WEBSITE


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _stranger(kid: str) -> SigningKey:
    """A key that is not the operator's."""
    return SigningKey(generate_private_key("ES256"), "ES256", kid)


def test_publish_beside_the_website_then_nothing_then_a_change(target: Harness) -> None:
    h = target
    h.website()
    do_build(h.config)
    res = publish(h.options())
    assert res.ok, report_text(res.report)
    assert res.hosts[0].outcome == "published"
    assert res.hosts[0].target.describe() == h.describe()
    _intact(h)
    built = snapshot(h.config.parent / "site/example.com")
    assert h.served()[CARD] == built[CARD]
    record = PublishRecord.from_bytes(h.record() or b"")
    assert record.host == "example.com" and record.kid == "chapel-1"
    assert record.files[CARD] == (_sha(built[CARD]),)
    assert not set(record.files) & set(WEBSITE)  # acap's files only, never the website's

    again = publish(h.options())
    assert again.ok and again.hosts[0].outcome == "up to date"
    set_version(h.config, "2.0.0")
    do_build(h.config)
    third = publish(h.options())
    assert third.ok, report_text(third.report)
    assert third.hosts[0].plan is not None and third.hosts[0].plan.changed == [CARD]
    _intact(h)


def test_a_planted_record_with_the_websites_digests_deletes_nothing(target: Harness) -> None:
    """The review's case: a record listing the website's index.html with its real digest
    made an overlay publish delete it. Here it is even signed, with a key of the operator's
    kid but not the operator's: it does not verify, so it says nothing."""
    h = target
    h.website()
    do_build(h.config)
    planted = PublishRecord("example.com", {"index.html": (_sha(WEBSITE["index.html"]),),
                                            "blog/post.html": (_sha(WEBSITE["blog/post.html"]),)})
    h.put_record(planted.to_bytes(_stranger("chapel-1")))
    res = publish(h.options())
    assert res.ok, report_text(res.report)
    assert _messages(res, "PUBLISH-RECORD", "warning") == [
        f"example.com: {h.describe()} holds a record of acap's publish that acap does not trust: "
        "its signature (kid chapel-1) does not verify: someone changed it, or another key "
        "made it; acap deletes nothing it lists, and replaces only the files it recognises as "
        "its own"]
    _intact(h)


def test_a_planted_record_without_digests_deletes_nothing_where_acap_owns_the_host(
        target: Harness) -> None:
    """The review's case: a record acap never wrote, listing index.html and blog/post.html
    without digests, made acap delete both on a host it owns whole, without --force."""
    h = _whole(target)
    h.website()
    do_build(h.config)
    h.put_record(json.dumps({"publishedBy": "acap", "host": "example.com",
                             "files": ["index.html", "blog/post.html"]}).encode())
    res = publish(h.options())
    assert [f.rule for f in res.report.errors] == ["PUBLISH-FOREIGN"]
    assert _messages(res, "PUBLISH-FOREIGN")[0].startswith(
        f"{h.describe()} holds 4 files that acap did not publish there")
    assert _messages(res, "PUBLISH-RECORD", "warning") == [
        f"example.com: {h.describe()} holds a record of acap's publish that acap does not trust: "
        "it lists its files without their SHA-256, as only an acap before signed records did "
        "(or someone else); acap deletes nothing it lists, and replaces only the files it "
        "recognises as its own"]
    _intact(h)


def test_a_record_signed_with_a_key_this_computer_lacks_is_refused(target: Harness) -> None:
    h = target
    h.website()
    do_build(h.config)
    before = h.served()
    h.put_record(PublishRecord("example.com", {"index.html": (_sha(WEBSITE["index.html"]),)})
                 .to_bytes(_stranger("other-1")))
    res = publish(h.options())
    [err] = [f for f in res.report.errors]
    assert err.rule == "PUBLISH-KEY"
    assert err.message == (f"example.com: the record of acap's last publish in {h.describe()} "
                           "is signed with kid other-1, a key this computer does not have: "
                           "publishing would replace the live card's key without a rotation")
    assert "ACAP_SIGNING_KEY" in (err.hint or "") and "--old-kid other-1" in (err.hint or "")
    assert h.served() == before


def _remove_booking(config: Path) -> None:
    change(config, lambda d: d.__setitem__(
        "skills", [s for s in d["skills"] if s["id"] != "arrangement-booking"]))


def _pages_on_the_website(config: Path) -> None:
    """personEntry pages on the practice's own host (example.com/talk, /book)."""
    def move(d: dict[str, object]) -> None:
        for s in d["skills"]:  # type: ignore[attr-defined]
            if s["id"] == "service-pricing":
                s["personEntry"] = "https://example.com/talk"
            if s["id"] == "arrangement-booking":
                s["personEntry"] = "https://example.com/book"
    change(config, move)


@pytest.mark.parametrize("copy", [True, False])
def test_an_edited_record_is_not_trusted(target: Harness, copy: bool) -> None:
    """acap's own record, edited to claim the website's home page: its signature no longer
    verifies. With acap's copy of the record in the project, acap goes by that; without it
    (a fresh clone), it trusts no record and removes nothing."""
    h = target
    _pages_on_the_website(h.config)
    h.website()
    do_build(h.config)
    assert publish(h.options()).ok
    doc = json.loads(h.record() or b"")
    doc["files"]["index.html"] = [_sha(WEBSITE["index.html"])]
    h.put_record(json.dumps(doc, indent=1).encode())
    if not copy:
        shutil.rmtree(h.config.parent / ".acap/published")
    _remove_booking(h.config)
    do_build(h.config)
    before = h.served()
    res = publish(h.options())
    [note] = _messages(res, "PUBLISH-RECORD", "warning")
    reason = ("its signature (kid chapel-1) does not verify: someone changed it, or another "
              "key made it")
    if copy:
        assert res.ok, report_text(res.report)
        assert note == (f"example.com: the record of acap's publish in {h.describe()} is not "
                        f"acap's ({reason}): acap uses its own copy of it in the project")
        assert res.hosts[0].plan is not None
        assert res.hosts[0].plan.removed == ["book.html", "book/index.html"]
        assert "index.html" not in json.loads(h.record() or b"")["files"]
    else:
        assert note.startswith(f"example.com: {h.describe()} holds a record of acap's publish "
                               f"that acap does not trust: {reason}")
        # The /talk page changed too: it lists every on-request skill, the booking until
        # now (issue 23). Without a record it can trust, acap cannot prove the page at the
        # target is its own: it replaces nothing and removes nothing.
        assert [f.rule for f in res.report.errors] == ["SITE-PAGE-TAKEN"], \
            report_text(res.report)
        assert "book/index.html" in h.served()  # acap cannot prove it is its own: it stays
        assert h.served() == before
    _intact(h)


@pytest.mark.parametrize("copy", [True, False])
def test_a_deleted_record(target: Harness, copy: bool) -> None:
    """The trial's case: with its record deleted acap disowned its own card and suggested
    --force. Now acap goes by its copy of the record, or, without one, recognises its card
    by its signature and its JWKS by its keys, and says so."""
    h = target
    h.website()
    do_build(h.config)
    assert publish(h.options()).ok
    h.drop_record()
    if not copy:
        shutil.rmtree(h.config.parent / ".acap/published")
    set_version(h.config, "2.0.0")
    do_build(h.config)
    res = publish(h.options())
    assert res.ok, report_text(res.report)
    [note] = _messages(res, "PUBLISH-RECORD", "warning")
    if copy:
        assert note == (f"example.com: the record of acap's publish in {h.describe()} is "
                        "missing: acap uses its own copy of it in the project")
    else:
        assert note.startswith(f"example.com: {h.describe()} holds acap's own card (signed with "
                               "a key of this project) but no record of what acap published "
                               "there")
        assert "--force" not in str(res.report.findings)
    assert h.served()[CARD] == (h.config.parent / "site/example.com" / CARD).read_bytes()
    _intact(h)
    assert CARD in PublishRecord.from_bytes(h.record() or b"").files  # written again


def test_a_link_on_acaps_way_is_refused(target: Harness, tmp_path: Path) -> None:
    """The record of a folder reached through a link (to a record of acap's elsewhere), or,
    on a branch, ``.well-known`` as a link: never followed, never written through."""
    h = target
    h.website()
    do_build(h.config)
    assert publish(h.options()).ok
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    h.link_on_acaps_way(elsewhere)
    before, kept = h.served(), snapshot(elsewhere)
    set_version(h.config, "2.0.0")
    do_build(h.config)
    res = publish(h.options())
    [err] = res.report.errors
    assert err.rule == "PUBLISH-TARGET" and "is a symbolic link" in err.message
    assert h.served() == before and snapshot(elsewhere) == kept
    _intact(h)


def test_a_target_nested_deeper_than_acap_walks_is_refused(target: Harness) -> None:
    """The review's case: a target with folders nested ~1,100 deep ended in a
    RecursionError traceback. It is a finding now, even with --force."""
    h = _whole(target)
    h.website()
    deep = h.nest(1100)
    do_build(h.config)
    before = h.served()
    try:
        res = publish(h.options(force=True))
        [err] = res.report.errors
        assert err.rule == "PUBLISH-TARGET", report_text(res.report)
        assert "more than 64 folders deep" in err.message
        assert h.served() == before and deep.as_posix() in before
    finally:
        h.unnest()


def test_a_missing_target_is_refused_and_made_only_with_create(target: Harness) -> None:
    """The trial's case: a typo in the folder (/www -> /wwww) made a new folder and said
    "published ... 7 added" while the real site got nothing."""
    h = target
    do_build(h.config)
    res = publish(h.options(create=False))
    [err] = res.report.errors
    assert (err.rule, err.message) == (
        "PUBLISH-TARGET", f"example.com: {h.describe()} does not exist, so no website is served "
        "from it: acap makes no new target unless told to")
    assert err.hint == ("check the target (a typo in a folder or branch name?); if this is the "
                        "first publish there, run acap publish --create")
    assert not h.exists()
    made = publish(h.options(create=True))
    assert made.ok, report_text(made.report)
    assert CARD in h.served()


def test_a_page_of_the_website_where_acaps_page_would_go_is_refused(target: Harness) -> None:
    """The trial's case: personEntry on the clinic's own /contacto page (here /talk); the
    hint never suggests --force or renaming the website's page."""
    h = target
    _pages_on_the_website(h.config)
    h.website()
    h.put({"talk/index.html": b"<!doctype html><title>Kontakt</title>\n"})
    before = h.served()
    err = _the_refusal(h)
    assert err.rule == "SITE-PAGE-TAKEN"
    if h.kind == "dir":  # a folder on this machine: the build sees the page and refuses
        assert err.message.startswith(
            "personEntry https://example.com/talk is a page of your website already")
    else:
        assert err.message == (f"{h.describe()} holds a page of the website where acap would "
                               "put its page for https://example.com/talk: talk/index.html; "
                               "publishing would replace it")
    assert "--force" not in (err.hint or "") and "another address" in (err.hint or "")
    assert h.served() == before


def _the_refusal(h: Harness) -> Finding:
    """The one error that stops ``h``'s project: the build's, or else the publish's."""
    from acap.builder import BuildOptions, build

    built = build(BuildOptions(config=h.config))
    if not built.report.ok:
        [err] = built.report.errors
        return err
    [err] = publish(h.options()).report.errors
    return err


def test_a_second_computer_without_the_key_is_refused(target: Harness, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The trial's case: a fresh clone built with a new key, and the next publish replaced
    the live card's key. Now the build or the publish refuses (the build where it can see
    the target: a folder on this machine), the target is unchanged, and bringing the key
    (ACAP_SIGNING_KEY) lets both go ahead."""
    h = target
    h.website()
    do_build(h.config)
    assert publish(h.options()).ok
    before = h.served()
    key = (h.config.parent / ".acap/signing-key.pem").read_text("utf-8")
    clone = tmp_path / "clone"
    clone.mkdir()
    shutil.copyfile(h.config, clone / "operator.yaml")
    other = Harness(h.kind, clone / "operator.yaml", h.root, h.server)
    err = _the_refusal(other)
    if h.kind == "dir":  # the build reads the target's card: refused before a key is made
        assert err.rule == "KEY"
        assert err.message == (
            "this computer has no signing key (.acap/signing-key.pem), but this project's card "
            f"was published with kid chapel-1 (the card in {h.root}): a new key would replace "
            "the live card's key without a rotation, and clients that cached the card would "
            "see a key they cannot check")
        assert "ACAP_SIGNING_KEY" in (err.hint or "")
        assert not (clone / ".acap/signing-key.pem").exists()
    else:
        assert err.rule == "PUBLISH-KEY"
        assert err.message == (f"example.com: the card at {h.describe()} is signed under kid "
                               "chapel-1 with another key than this project's key of that kid: "
                               "publishing would give kid chapel-1 two keys")
        assert "remove site/" in (err.hint or "")
    assert h.served() == before
    # The key brought, in place of the one this computer made, and site/ built again.
    (clone / ".acap/signing-key.pem").unlink(missing_ok=True)
    shutil.rmtree(clone / "site", ignore_errors=True)
    monkeypatch.setenv("ACAP_SIGNING_KEY", key)
    do_build(other.config)
    set_version(other.config, "2.0.0")
    do_build(other.config)
    res = publish(other.options())
    assert res.ok, report_text(res.report)
    _intact(h)


def test_a_second_computer_whose_key_is_lost_rotates_on_purpose(target: Harness,
                                                                tmp_path: Path) -> None:
    """The key of the live card is lost for good: the second computer keeps its public key
    from the published JWKS (acap keys rotate --lost --jwks), signs with a new kid, and
    publishes; cards clients cached still verify against the new JWKS."""
    from click.testing import CliRunner

    from acap.builder import BuildOptions, build
    from acap.card import verify_card
    from acap.cli import cli

    h = target
    h.website()
    do_build(h.config)
    assert publish(h.options()).ok
    cached = tmp_path / "cached-card.json"
    cached.write_bytes(h.served()[CARD])
    jwks = tmp_path / "published-jwks.json"
    jwks.write_bytes(h.served()[".well-known/jwks.json"])
    clone = tmp_path / "clone"
    clone.mkdir()
    shutil.copyfile(h.config, clone / "operator.yaml")
    other = Harness(h.kind, clone / "operator.yaml", h.root, h.server)
    build(BuildOptions(config=other.config))  # refused (dir) or a key made here (the others)
    shutil.rmtree(clone / "site", ignore_errors=True)  # as the refusal says
    rotated = CliRunner().invoke(cli, ["keys", "rotate", "--lost", "--jwks", str(jwks),
                                       "-c", str(other.config)])
    assert rotated.exit_code == 0, rotated.output
    assert "kept the published public key of chapel-1" in rotated.stdout
    do_build(other.config)
    res = publish(other.options())
    assert res.ok, report_text(res.report)
    live = json.loads(h.served()[".well-known/jwks.json"])
    assert [k["kid"] for k in live["keys"]] == ["chapel-2", "chapel-1"]
    (tmp_path / "live-jwks.json").write_bytes(h.served()[".well-known/jwks.json"])
    assert verify_card(str(cached), str(tmp_path / "live-jwks.json")).ok
    _intact(h)


# -- another writer between acap's survey and its commit ------------------------------------

#: What another person or tool does to the target while acap publishes: the path it
#: touches and its bytes (``None``: it deletes the file). acap replaces the card, adds
#: ``new.html`` and removes ``old.html``; on a folder the act comes just before acap
#: changes that path (after the files before it went in place: they must be put back),
#: on a branch between acap's fetch and its push.
RACES = {"edits the card acap replaces": (CARD, b'{"theirs": true}\n'),
         "deletes the card acap replaces": (CARD, None),
         "creates the page acap adds": ("new.html", b"<p>their new page</p>\n"),
         "edits the page acap removes": ("old.html", b"<p>their edit</p>\n")}


def _race(h: Harness, monkeypatch: pytest.MonkeyPatch, rel: str, act: Callable[[], None]
          ) -> list[str]:
    """Run ``act`` once, as another writer, at the moment acap is about to change ``rel``
    (a folder: just before the move that puts it in place, replaces it or takes it away;
    a branch: just before the push). Returns what acap had done before (paths)."""
    from acap.publisher import _git_branch, _local, _sftp

    done: list[str] = []
    if h.kind == "branch":
        real_commit = _git_branch.BranchStore.commit

        def commit(store: Any, *args: Any) -> Any:
            act()
            return real_commit(store, *args)
        monkeypatch.setattr(_git_branch.BranchStore, "commit", commit)
        return done
    fs = _local.LocalFs if h.kind == "dir" else _sftp.SftpFs
    acted: list[bool] = []
    for method in ("place", "swap", "move"):
        real = getattr(fs, method)

        def racing(self: Any, src: str, dst: str, *more: Any, real: Any = real) -> None:
            path = src if ".acap-stage/" in dst else dst  # a removal moves it away first
            if not acted and path == f"{h.root}/{rel}":
                acted.append(True)
                act()
            elif not acted and path.startswith(f"{h.root}/"):
                done.append(path[len(str(h.root)) + 1:])
            real(self, src, dst, *more)
        monkeypatch.setattr(fs, method, racing)
    return done


@pytest.mark.parametrize("race", list(RACES))
def test_a_file_another_writer_changes_during_the_publish_is_theirs_and_the_site_as_it_was(
        target: Harness, monkeypatch: pytest.MonkeyPatch, race: str) -> None:
    """The attacker trial's case: a file changed by someone else between acap's look at the
    target and its commit was overwritten or deleted. Now acap stops (``PUBLISH-CHANGED``,
    naming the file), puts back what this publish had changed, and the other writer's
    change stands: the target is the previous site with their change, nothing else."""
    rel, theirs = RACES[race]
    h = target
    h.website()
    do_build(h.config)
    add_to_site(h.config.parent / "site", "example.com/old.html", b"<p>acap's old page</p>\n")
    assert publish(h.options()).ok
    set_version(h.config, "2.0.0")
    do_build(h.config)  # the card changes, old.html is built no more
    add_to_site(h.config.parent / "site", "example.com/new.html", b"<p>acap's new page</p>\n")
    before, record = h.served(), h.record()
    expected = {**before, rel: theirs} if theirs is not None else \
        {p: b for p, b in before.items() if p != rel}

    def other_writer() -> None:
        (h.put({rel: theirs}, "their change") if theirs is not None else h.delete(rel))
    done = _race(h, monkeypatch, rel, other_writer)
    res = publish(h.options())
    [err] = res.report.errors
    assert err.rule == "PUBLISH-CHANGED", report_text(res.report)
    if h.kind == "branch":
        assert err.message.startswith(f"example.com: {h.describe()} changed while acap was "
                                      "publishing (it was at ")
        assert "acap never force-pushes, so its push was refused" in err.message
    else:
        assert f"{h.root}/{rel}" in err.message and "while acap was publishing" in err.message
        assert "acap stopped and put back what this publish had changed" in err.message
        if rel != "new.html":  # what went in place before (new.html first, the card last)
            assert "new.html" in done
    assert h.served() == expected  # their bytes (or their deletion), the rest as before
    if h.kind != "branch":
        assert h.record() == record
        assert not (h.root.parent / f".{h.root.name}.acap-stage").exists()
    _intact(h)

    monkeypatch.undo()  # the next publish reads the target as it is now: theirs stays
    again = publish(h.options())
    assert not any(f.rule == "PUBLISH-CHANGED" for f in again.report.findings)
    if theirs is not None:  # (a card of acap's someone deleted, acap puts back)
        assert h.served()[rel] == theirs, report_text(again.report)
    _intact(h)


@pytest.mark.parametrize("move", ["deleted", "reset"])
def test_a_branch_deleted_or_reset_during_the_publish_is_left_as_they_left_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, move: str) -> None:
    """Moves a plain push would not notice: the branch deleted (the push would make it
    again) or reset to an older commit (acap's commit would still be a fast-forward of
    it). The push names the tip acap read, so git refuses it (``PUBLISH-CHANGED``)."""
    from support.publishing import branch_tip, git

    h = Harness("branch", project(tmp_path), tmp_path / "pages.git")
    h.website()
    first = branch_tip(h.root)
    do_build(h.config)
    assert publish(h.options()).ok
    set_version(h.config, "2.0.0")
    do_build(h.config)

    def other_writer() -> None:
        if move == "deleted":
            git("update-ref", "-d", "refs/heads/gh-pages", cwd=h.root)
        else:
            git("update-ref", "refs/heads/gh-pages", str(first), cwd=h.root)
    _race(h, monkeypatch, CARD, other_writer)
    res = publish(h.options())
    [err] = res.report.errors
    assert err.rule == "PUBLISH-CHANGED", report_text(res.report)
    assert ("it was deleted" if move == "deleted" else f"it is at {str(first)[:12]}") \
        in err.message
    assert branch_tip(h.root) == (None if move == "deleted" else first)


def test_a_file_force_removes_that_someone_rewrites_meanwhile_keeping_its_size_and_time(
        target: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    """``--force`` removes the hand-made site where acap owns the host whole; acap listed
    those files and read none. One rewritten while acap uploads, with the same size and
    its modification time set back (all a listing over SFTP shows), is still seen: acap
    read it before it began, and checks those bytes before it removes it."""
    import os

    h = _whole(target)
    h.website()
    do_build(h.config)
    rel = "blog/post.html"
    theirs = WEBSITE[rel].replace(b"Neu", b"Alt")
    assert len(theirs) == len(WEBSITE[rel])
    before = h.served()

    def other_writer() -> None:
        if h.kind == "branch":
            h.put({rel: theirs}, "their change")
            return
        st = (h.root / rel).stat()
        (h.root / rel).write_bytes(theirs)
        os.utime(h.root / rel, ns=(st.st_atime_ns, st.st_mtime_ns))
    _race(h, monkeypatch, rel, other_writer)
    res = publish(h.options(force=True))
    [err] = res.report.errors
    assert err.rule == "PUBLISH-CHANGED", report_text(res.report)
    assert h.served() == {**before, rel: theirs}


def test_files_named_like_acaps_temporary_files_are_never_removed_nor_hidden(
        target: Harness) -> None:
    """The attacker trial's case: any ``*.acap-new-*`` file was deleted, and left out of
    the listing, on its name alone. Now ``x.acap-new-123`` at the target is a file like
    any other: where acap owns the host whole it is named and refused
    (``PUBLISH-FOREIGN``); in acap's staging folder, one under a token no record of
    acap's names is left and named (``PUBLISH-LEFTOVER``)."""
    h = _whole(target)
    do_build(h.config)
    assert publish(h.options(create=True)).ok
    planted = {"x.acap-new-123": b"someone's notes\n",
               ".well-known/.agent-card.json.acap-new-1a2b3c": b"{"}
    h.put(planted, "their files")
    set_version(h.config, "2.0.0")
    do_build(h.config)
    before = h.served()
    res = publish(h.options())
    [err] = res.report.errors
    assert err.rule == "PUBLISH-FOREIGN", report_text(res.report)
    assert all(rel in err.message for rel in planted)
    assert h.served() == before
    if h.kind == "branch":  # a branch has no staging folder
        return
    stage = h.root.parent / f".{h.root.name}.acap-stage"
    stage.mkdir()
    theirs = {"x.acap-new-123": b"someone's", "0123456789abcdef.new.1": b"not acap's"}
    for name, data in theirs.items():
        (stage / name).write_bytes(data)
    res = publish(h.options(force=True))
    assert res.ok, report_text(res.report)
    [note] = _messages(res, "PUBLISH-LEFTOVER", "warning")
    assert all(name in note for name in theirs)
    assert {p.name: p.read_bytes() for p in stage.iterdir()} == theirs
