"""Batch builds (issue 7): many operators into one site/, failures isolated, nothing lost."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from acap.builder.batch import BatchOptions, build_many, find_configs
from acap.card import verify_card
from acap.cli import cli, report_text
from support.paths import REPO
from support.sites import site_tree

sys.path.insert(0, str(REPO / "bench"))
from generate import operator_yaml, write_operators


def tree(site: Path) -> dict[str, str]:
    return site_tree(site)


def built_batch(tmp_path: Path, count: int) -> tuple[list[Path], Path]:
    """``count`` operators under tmp_path/ops, built into tmp_path/site:
    ``(their operator files, the site)``."""
    ops = write_operators(tmp_path / "ops", count)
    site = tmp_path / "site"
    assert build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=site)).written
    return ops, site


def test_every_operator_gets_its_own_signed_card_with_its_own_key(tmp_path: Path) -> None:
    ops = write_operators(tmp_path / "ops", 5)
    res = build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=tmp_path / "site",
                                  jobs=1, pages=False))
    assert res.written and not res.failed and len(res.built) == 5
    keys = set()
    for i, _ in enumerate(ops):
        card = tmp_path / "site" / f"op{i}.example" / ".well-known" / "agent-card.json"
        v = verify_card(str(card))
        assert v.ok, report_text(v.report)
        jwks = json.loads(card.with_name("jwks.json").read_text())
        keys.add(jwks["keys"][0]["x"])
        assert json.loads(card.read_text())["provider"]["url"] == f"https://op{i}.example"
    assert len(keys) == 5  # distinct keys, each operator its own
    # pages off: no HTML written
    assert not [p for p in (tmp_path / "site").rglob("*.html")]


def test_one_broken_operator_is_reported_and_the_others_build(tmp_path: Path) -> None:
    write_operators(tmp_path / "ops", 3)
    broken = tmp_path / "ops" / "op00001" / "operator.yaml"
    broken.write_text(broken.read_text().replace("kind: on-request", "kind: on-requst"))
    res = build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=tmp_path / "site"))
    assert [o.config for o in res.failed] == [broken]
    [err] = res.failed[0].report.errors
    assert err.rule == "SCHEMA-ENUM" and err.location.file == str(broken)
    assert err.location.line == 13
    assert sorted(p.name for p in (tmp_path / "site").iterdir() if not p.name.startswith(".")) \
        == ["op0.example", "op2.example"]


def test_a_failed_operator_keeps_its_previous_folders_byte_for_byte(tmp_path: Path) -> None:
    write_operators(tmp_path / "ops", 3)
    site = tmp_path / "site"
    assert not build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=site)).failed
    before = {k: v for k, v in tree(site).items() if k.startswith("op1.example/")}
    assert before
    # op1 breaks, op2 changes: op1's folder stays as published, op2's is rebuilt.
    op1 = tmp_path / "ops" / "op00001" / "operator.yaml"
    op1.write_text(op1.read_text() + "\nunknownKey: 1\n")
    op2 = tmp_path / "ops" / "op00002" / "operator.yaml"
    op2.write_text(op2.read_text().replace("version: 1.2.2", "version: 9.9.9"))
    res = build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=site))
    assert [o.config for o in res.failed] == [op1]
    after = tree(site)
    assert {k: v for k, v in after.items() if k.startswith("op1.example/")} == before
    card2 = json.loads((site / "op2.example/.well-known/agent-card.json").read_text())
    assert card2["version"] == "9.9.9"


def two_claiming_one_host(tmp_path: Path) -> tuple[Path, Path]:
    """Operators a and b, both building op1.example (distinct names and keys)."""
    import random

    from acap.keys import generate_private_key, write_private_key

    a = tmp_path / "a" / "operator.yaml"
    b = tmp_path / "b" / "operator.yaml"
    for p, seed in ((a, 1), (b, 2)):
        p.parent.mkdir()
        text = operator_yaml(1, random.Random(seed))
        if p == b:
            text = text.replace("Example", "Other").replace("kid: op1-1", "kid: other-1")
        p.write_text(text)
        write_private_key(p.parent / ".acap" / "signing-key.pem", generate_private_key("ES256"))
    return a, b


def test_two_new_operators_claiming_one_host_both_fail_whatever_their_order(
        tmp_path: Path) -> None:
    a, b = two_claiming_one_host(tmp_path)
    for order in ([a, b], [b, a]):
        res = build_many(BatchOptions(configs=order, site_dir=tmp_path / "site"))
        assert res.built == [] and not res.written
        for o, other in zip(res.outcomes, reversed(order), strict=True):
            [err] = o.report.errors
            # the rival is not named: a tenant's findings never show another's files
            assert err.rule == "SITE-HOST" and err.message == (
                "host op1.example is also built by another operator of this batch; a host "
                "belongs to one operator")
            assert str(other.parent) not in err.message + (err.hint or "")
            assert (err.location.file, err.location.line) == (str(o.config), 3)  # website:


def test_the_host_s_last_owner_keeps_it_and_the_newcomer_fails(tmp_path: Path) -> None:
    a, b = two_claiming_one_host(tmp_path)
    site = tmp_path / "site"
    assert build_many(BatchOptions(configs=[a], site_dir=site)).written
    before = tree(site)
    for configs in ([a, b], [b, a], [b]):
        res = build_many(BatchOptions(configs=configs, site_dir=site))
        [newcomer] = [o for o in res.outcomes if o.config == b]
        [err] = newcomer.report.errors
        assert err.rule == "SITE-HOST" and err.location.line == 3
        assert "the last build published it for the card https://op1.example/" in err.message
        assert str(a.parent) not in err.message + (err.hint or "")  # the owner's folder
        assert [o.config for o in res.built] == [c for c in configs if c == a]
        assert {k: v for k, v in tree(site).items() if not k.startswith(".acap/")} == \
            {k: v for k, v in before.items() if not k.startswith(".acap/")}


def test_a_subset_of_the_last_batch_keeps_the_others_and_prune_removes_them(
        tmp_path: Path) -> None:
    ops, site = built_batch(tmp_path, 4)
    before = tree(site)
    res = build_many(BatchOptions(configs=ops[:2], site_dir=site))
    assert res.written and res.kept == ["https://op2.example/.well-known/agent-card.json",
                                        "https://op3.example/.well-known/agent-card.json"]
    assert {k: v for k, v in tree(site).items() if k.startswith(("op2.", "op3."))} == \
        {k: v for k, v in before.items() if k.startswith(("op2.", "op3."))}
    # The kept operators stay kept: they are in the manifest for the next subset too.
    assert build_many(BatchOptions(configs=ops[:1], site_dir=site)).kept == [
        f"https://op{i}.example/.well-known/agent-card.json" for i in (1, 2, 3)]
    pruned = build_many(BatchOptions(configs=ops[:2], site_dir=site, prune=True))
    assert pruned.pruned == ["https://op2.example/.well-known/agent-card.json",
                             "https://op3.example/.well-known/agent-card.json"]
    assert sorted(p.name for p in site.iterdir()) == [".acap", "op0.example", "op1.example"]


def test_prune_keeps_everything_when_a_failed_operator_cannot_be_identified(
        tmp_path: Path) -> None:
    _, site = built_batch(tmp_path, 3)
    moved = tmp_path / "moved"
    (tmp_path / "ops").rename(moved)  # a new checkout path: files no longer match by path
    broken = moved / "op00001" / "operator.yaml"
    broken.write_text("operator: [\n")
    res = build_many(BatchOptions(configs=[moved / "op00000" / "operator.yaml", broken],
                                  site_dir=site, prune=True))
    [warning] = res.report.warnings
    assert warning.rule == "SITE-PRUNE" and warning.location.file == str(broken)
    assert res.pruned == []
    assert {"op1.example", "op2.example"} <= {p.name for p in site.iterdir()}
    # Without the broken file, op1 and op2 have left the batch: pruned.
    res = build_many(BatchOptions(configs=[moved / "op00000"], site_dir=site, prune=True))
    assert res.pruned == ["https://op1.example/.well-known/agent-card.json",
                          "https://op2.example/.well-known/agent-card.json"]


def test_a_failed_operator_keeps_its_folders_when_the_checkout_moved(tmp_path: Path) -> None:
    _, site = built_batch(tmp_path, 3)
    before = {k: v for k, v in tree(site).items() if k.startswith("op1.example/")}
    moved = tmp_path / "workspace-2"
    (tmp_path / "ops").rename(moved)
    op1 = moved / "op00001" / "operator.yaml"
    op1.write_text(op1.read_text() + "\nunknownKey: 1\n")
    res = build_many(BatchOptions(configs=[moved], site_dir=site, prune=True))
    assert [o.config for o in res.failed] == [op1] and res.pruned == []
    assert {k: v for k, v in tree(site).items() if k.startswith("op1.example/")} == before


def test_jobs_give_the_same_site_as_one_process(tmp_path: Path) -> None:
    write_operators(tmp_path / "ops", 6)
    one = build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=tmp_path / "s1", jobs=1))
    two = build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=tmp_path / "s2", jobs=2))
    assert not one.failed and not two.failed
    assert tree(tmp_path / "s1") == tree(tmp_path / "s2")


def test_the_cli_takes_a_folder_and_reports_per_file(tmp_path: Path) -> None:
    write_operators(tmp_path / "ops", 2)
    bad = tmp_path / "ops" / "op00000" / "operator.yaml"
    bad.write_text(bad.read_text().replace("personEntry: https://", "personEntry: http://"))
    res = CliRunner().invoke(cli, ["build", str(tmp_path / "ops"), "--site-dir",
                                   str(tmp_path / "site"), "--no-pages", "-j", "2"])
    assert res.exit_code == 1
    assert f"{bad}:" in res.stderr and "[OR-3.4]" in res.stderr
    assert "built 1 of 2 operators" in res.stdout
    assert (tmp_path / "site" / "op1.example" / ".well-known" / "agent-card.json").is_file()


def test_find_configs_reads_files_and_folders(tmp_path: Path) -> None:
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "a.yaml").write_text("")
    (tmp_path / "x" / "a.private.yaml").write_text("")
    (tmp_path / "x" / "sub").mkdir()
    (tmp_path / "x" / "sub" / "operator.yaml").write_text("")
    (tmp_path / "y.yml").write_text("")
    found = find_configs([tmp_path / "x", tmp_path / "y.yml"])
    assert found == [tmp_path / "x" / "a.yaml", tmp_path / "x" / "sub" / "operator.yaml",
                     tmp_path / "y.yml"]


def test_an_operator_of_a_batch_publishes_its_own_hosts_from_the_shared_site(
        tmp_path: Path) -> None:
    from acap.publisher import publish
    from support.publishing import trial

    write_operators(tmp_path / "ops", 2)
    site = tmp_path / "site"
    assert not build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=site,
                                       pages=False)).failed
    config = tmp_path / "ops" / "op00001" / "operator.yaml"
    res = publish(trial(config=config, site_dir=site, dir=tmp_path / "out"))
    assert res.report.ok, report_text(res.report)
    assert (tmp_path / "out" / ".well-known" / "agent-card.json").read_bytes() == \
        (site / "op1.example" / ".well-known" / "agent-card.json").read_bytes()
    # A changed operator file makes its part of the batch stale: publish refuses.
    config.write_text(config.read_text().replace("version: 1.1.1", "version: 2.0.0"))
    stale = publish(trial(config=config, site_dir=site, dir=tmp_path / "out"))
    assert [f.rule for f in stale.report.errors] == ["PUBLISH-STALE"]


def test_each_operator_of_a_folder_has_its_own_private_file(tmp_path: Path) -> None:
    """chapel.yaml's private values are in chapel.private.yaml (operator.yaml's in
    operator.private.yaml): one operator's prices never apply to another."""
    import random

    ops = tmp_path / "ops"
    ops.mkdir()
    for i in (1, 2):
        text = operator_yaml(i, random.Random(i)).replace(
            "Given to the person who asks, on request.", "From £2,450. Given on request.")
        (ops / f"op{i}.yaml").write_text(text)
    (ops / "op1.private.yaml").write_text('treatment-fees:\n  - "£2,450"\n')
    # op2's own private file lists a skill op2 does not have (op1's): its own error only
    (ops / "op2.private.yaml").write_text('treatment-fees:\n  - "£9,999"\n')
    res = build_many(BatchOptions(configs=[ops], site_dir=tmp_path / "site", pages=False))
    by = {o.config.name: o for o in res.outcomes}
    assert [f.rule for f in by["op1.yaml"].report.errors] == ["OR-3.9"]
    assert by["op1.yaml"].report.errors[0].location.file == str(ops / "op1.yaml")
    assert [(f.rule, f.location.file) for f in by["op2.yaml"].report.errors] == \
        [("PRIVATE-VALUES", str(ops / "op2.private.yaml"))]


def test_a_batch_never_replaces_a_folder_acap_did_not_write(tmp_path: Path) -> None:
    write_operators(tmp_path / "ops", 2)
    site = tmp_path / "mine"
    site.mkdir()
    (site / "notes.txt").write_text("mine")
    res = build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=site))
    [err] = res.report.errors
    assert err.rule == "SITE-PATH" and "not written by acap build" in err.message
    assert not res.written and (site / "notes.txt").read_text() == "mine"
    # nor one inside an operator's templates/: refused, nothing written
    inside = tmp_path / "ops" / "op00000" / "templates" / "out"
    res = build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=inside))
    assert [f.rule for f in res.report.errors] == ["SITE-PATH"] and not res.written
    assert not inside.exists()


def test_an_interrupted_batch_leaves_site_and_its_parent_as_they_were(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import acap.builder.batch._build

    write_operators(tmp_path / "ops", 3)
    site = tmp_path / "site"
    assert not build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=site)).failed
    before, beside = tree(site), sorted(p.name for p in tmp_path.iterdir())
    real = acap.builder.batch._build.build_one
    calls = []

    def interrupted(*args: object, **kwargs: object) -> object:
        calls.append(args[0])
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(acap.builder.batch._build, "build_one", interrupted)
    with pytest.raises(KeyboardInterrupt):  # --full: nothing changed, yet all are built
        build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=site, full=True))
    assert tree(site) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == beside  # no half-written folder


def test_an_operator_whose_files_cannot_be_written_fails_alone(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import errno

    write_operators(tmp_path / "ops", 3)
    site = tmp_path / "site"
    assert not build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=site)).failed
    kept = {k: v for k, v in tree(site).items() if k.startswith("op1.example/")}
    real = os.open

    def full(path: str, flags: int, *args: object, **kwargs: object) -> int:
        parts = Path(path).parts
        if flags & os.O_CREAT and "op1.example" in parts and ".acap" in parts:  # its own
            raise OSError(errno.ENOSPC, "No space left on device")  # write, staged
        return real(path, flags, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", full)
    op1 = tmp_path / "ops" / "op00001" / "operator.yaml"
    res = build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=site, full=True))
    monkeypatch.undo()
    assert [o.config for o in res.failed] == [op1]
    [err] = res.failed[0].report.errors
    assert err.rule == "SITE-WRITE" and "No space left on device" in err.message
    assert err.location.file == str(op1)
    assert res.written
    assert {k: v for k, v in tree(site).items() if k.startswith("op1.example/")} == kept


def test_worker_processes_write_their_operators_files(tmp_path: Path) -> None:
    """With --jobs, the parent receives digests, not file contents, and the site holds
    every operator's files as the manifest lists them."""
    write_operators(tmp_path / "ops", 4)
    res = build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=tmp_path / "site",
                                  jobs=2, pages=False))
    assert len(res.built) == 4
    manifest = json.loads((tmp_path / "site" / ".acap" / "manifest.json").read_text())
    assert manifest["files"] == {k: v for k, v in tree(tmp_path / "site").items()
                                 if k != ".acap/manifest.json"}
    assert all(set(o.digests) <= set(manifest["files"]) for o in res.outcomes)


def children_of(pid: int) -> list[str]:
    """The process ids whose parent is ``pid`` (from /proc: Linux)."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[1] == str(pid):
            out.append(stat.parent.name)
    return out


def batch_with_workers(tmp_path: Path) -> tuple[subprocess.Popen[bytes], list[str]]:
    """A `-j 2` batch of 300 operators in its own process, once both workers are up."""
    write_operators(tmp_path / "ops", 300)
    code = ("import sys\nfrom acap.cli._group import main\n"
            f"main(['build', {str(tmp_path / 'ops')!r}, '--site-dir', "
            f"{str(tmp_path / 'site')!r}, '-j', '2', '--no-pages'])\n")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    children: list[str] = []
    while len(children) < 2:  # the workers are up: they are building
        assert time.monotonic() < deadline and proc.poll() is None
        children = children_of(proc.pid)
    return proc, children


def gone(pid: str) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return True
    return "State:\tZ" in status


def test_sigkill_to_the_batch_ends_its_workers(tmp_path: Path) -> None:
    proc, children = batch_with_workers(tmp_path)
    proc.kill()
    proc.communicate(timeout=60)  # returns only once no process holds the pipes
    deadline = time.monotonic() + 10
    while not all(gone(pid) for pid in children):
        assert time.monotonic() < deadline, "a worker outlived the killed batch"
        time.sleep(0.01)
    assert not (tmp_path / "site").exists()


def test_sigterm_to_the_batch_leaves_no_worker_and_no_folder_behind(tmp_path: Path) -> None:
    """A CI cancel or `timeout` signals acap's own process only: the workers must not
    outlive it, and the new site folder must not be left half-written beside site/."""
    proc, children = batch_with_workers(tmp_path)
    site = tmp_path / "site"
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=60)  # returns only once no process holds the pipes
    assert proc.returncode == 128 + signal.SIGTERM
    assert all(gone(pid) for pid in children)
    assert not site.exists()
    assert [p.name for p in tmp_path.iterdir()] == ["ops"]


def test_sigterm_to_the_batchs_process_group_ends_it(tmp_path: Path) -> None:
    """`timeout`, CI runners and supervisors signal the whole process group: a worker
    killed while it held the pool's queue lock left the batch waiting for ever in
    Pool.terminate() (attacker re-trial). The workers have a group of their own, so
    the batch alone gets the signal and ends them itself."""
    ops = write_operators(tmp_path / "ops", 3)
    # one tenant's page takes seconds (up to its render deadline): one worker is busy
    # with it while the other, done, waits for work holding the queue's lock
    slow = ops[0].parent / "templates" / "footer.html"
    slow.parent.mkdir()
    slow.write_text('{{ ("y"*50000)|list|select("in", ("x"*50000)|list)|list|length }}')
    code = ("from acap.cli._group import main\n"
            f"main(['build', {str(tmp_path / 'ops')!r}, '--site-dir', "
            f"{str(tmp_path / 'site')!r}, '-j', '2'])\n")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.monotonic() + 60
    children: list[str] = []
    while len(children) < 2:  # the workers are up
        assert time.monotonic() < deadline and proc.poll() is None
        children = children_of(proc.pid)
    time.sleep(1.5)  # the two fast tenants built; the slow one still rendering
    assert proc.poll() is None
    os.killpg(proc.pid, signal.SIGTERM)
    proc.communicate(timeout=60)  # a batch that hangs fails here
    assert proc.returncode == 128 + signal.SIGTERM
    assert all(gone(pid) for pid in children)
    assert [p.name for p in tmp_path.iterdir()] == ["ops"]


def test_the_next_build_removes_what_a_killed_build_left_beside_site(tmp_path: Path) -> None:
    write_operators(tmp_path / "ops", 2)
    left = [tmp_path / ".site-new-abcd1234", tmp_path / ".site-old-zz_9zz99"]
    for d in left:
        (d / "x.example").mkdir(parents=True)
    (tmp_path / ".site-new-not-ours").mkdir()  # not a name acap makes: left alone
    assert build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=tmp_path / "site")
                      ).written
    assert sorted(p.name for p in tmp_path.iterdir()) == [".site-new-not-ours", "ops", "site"]


def test_a_build_while_another_writes_the_same_site_is_refused(tmp_path: Path) -> None:
    from acap.site import site_lock

    write_operators(tmp_path / "ops", 2)
    with site_lock(tmp_path / "site") as held:  # as another acap process would hold it
        assert held is None
        res = build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=tmp_path / "site"))
        # another site folder beside it is another lock (trial 6: /var/www/a and b)
        beside = build_many(BatchOptions(configs=[tmp_path / "ops"],
                                         site_dir=tmp_path / "other-site"))
    assert not res.written and not (tmp_path / "site").exists()
    [err] = res.report.errors
    assert err.rule == "SITE-BUSY" and err.location.file == str(tmp_path / "site")
    assert beside.written and not beside.report.errors


def test_no_pages_over_a_site_with_pages_says_what_it_removes(tmp_path: Path) -> None:
    _, site = built_batch(tmp_path, 2)
    assert list(site.rglob("*.html"))
    res = build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=site, pages=False))
    assert res.written and not list(site.rglob("*.html"))
    for o in res.outcomes:
        [w] = o.report.warnings
        assert w.rule == "SITE-PAGES" and "personEntry" in w.message
    again = build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=site, pages=False))
    assert not [w for o in again.outcomes for w in o.report.warnings]  # nothing left to remove


def test_one_file_named_many_ways_is_built_once(tmp_path: Path) -> None:
    [op] = write_operators(tmp_path / "ops", 1)
    (tmp_path / "link").symlink_to(tmp_path / "ops" / "op00000")
    spellings = [op, tmp_path / "ops" / "op00000" / ".." / "op00000" / "operator.yaml",
                 tmp_path / "ops", tmp_path / "link"]
    assert find_configs(spellings) == [op]


def test_a_linked_operator_folder_is_built_from_its_own_folder(tmp_path: Path) -> None:
    """A folder of links to operators elsewhere: a linked folder is followed (its key and
    .private.yaml are the real folder's); a linked operator file must lead into the
    link's own folder (re-trial MEDIUM 1), else it is a FILE error, unread."""
    [op, other] = write_operators(tmp_path / "ops", 2)
    (tmp_path / "links").mkdir()
    (tmp_path / "links" / "chapel").symlink_to(op.parent)
    (tmp_path / "links" / "out.yaml").symlink_to(other)
    (tmp_path / "links" / "gone.yaml").symlink_to(tmp_path / "nowhere.yaml")
    (tmp_path / "links" / "gone-folder").symlink_to(tmp_path / "nowhere")
    found = find_configs([tmp_path / "links"])
    assert found[0] == tmp_path / "links" / "chapel" / "operator.yaml"
    res = build_many(BatchOptions(configs=[tmp_path / "links"], site_dir=tmp_path / "site"))
    assert [o.config for o in res.built] == [found[0]]
    assert not (tmp_path / "links" / ".acap").exists()  # no new key beside the link
    errors = sorted((f.rule, f.location.file) for o in res.failed for f in o.report.errors)
    assert errors == [("FILE", str(tmp_path / "links" / "gone-folder" / "operator.yaml")),
                      ("FILE", str(tmp_path / "links" / "gone.yaml")),
                      ("FILE", str(tmp_path / "links" / "out.yaml"))]


def test_operators_sharing_a_key_file_both_fail(tmp_path: Path) -> None:
    """Issue 12: two tenants never sign with one key (it was a warning): neither had it
    last time, so both fail, each at the line saying which key, and nothing is written."""
    import random

    from acap.keys import generate_private_key, write_private_key

    flat = tmp_path / "flat"
    flat.mkdir()
    for i, name in ((1, "a.yaml"), (2, "b.yaml")):
        (flat / name).write_text(operator_yaml(i, random.Random(i)))
    write_private_key(flat / ".acap" / "signing-key.pem", generate_private_key("ES256"))
    res = build_many(BatchOptions(configs=[flat], site_dir=tmp_path / "site"))
    assert res.built == [] and not res.written and not (tmp_path / "site").exists()
    for o, other in zip(res.outcomes, ("b.yaml", "a.yaml"), strict=True):
        [err] = o.report.errors
        assert err.rule == "KEY-OWNER" and "same key as another operator" in err.message
        assert other not in err.message + (err.hint or "")  # never another tenant's file
        lines = o.config.read_text().splitlines()
        assert (err.location.file, err.location.line) == (str(o.config),
                                                          lines.index("signing:") + 1)


def test_a_batch_makes_keys_only_when_asked(tmp_path: Path) -> None:
    import random

    op = tmp_path / "op" / "operator.yaml"
    op.parent.mkdir()
    op.write_text(operator_yaml(1, random.Random(1)))
    res = build_many(BatchOptions(configs=[op], site_dir=tmp_path / "site"))
    [err] = res.failed[0].report.errors
    assert err.rule == "KEY" and "no signing key at .acap/signing-key.pem" in err.message
    assert "--new-keys" in (err.hint or "") and not (op.parent / ".acap").exists()
    # one key in the environment would sign every tenant's card: not offered in a batch
    assert "ACAP_SIGNING_KEY" not in (err.hint or "")
    made = build_many(BatchOptions(configs=[op], site_dir=tmp_path / "site", new_keys=True))
    assert made.written and (op.parent / ".acap" / "signing-key.pem").is_file()
    assert "created a new ES256 signing key" in made.outcomes[0].notices[0]


def test_a_folder_without_operator_files_is_an_error_that_says_so(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    res = CliRunner().invoke(cli, ["build", str(tmp_path / "empty"), "--site-dir",
                                   str(tmp_path / "site"), "--format", "json"])
    assert res.exit_code == 1
    out = json.loads(res.stdout)
    assert out["errors"] == 1 and out["warnings"] == 0
    [f] = out["findings"]
    assert f["rule"] == "FILE" and f"no operator files in {tmp_path / 'empty'}" in f["message"]


def test_batch_json_counts_every_operator_s_findings(tmp_path: Path) -> None:
    write_operators(tmp_path / "ops", 2)
    bad = tmp_path / "ops" / "op00000" / "operator.yaml"
    bad.write_text(bad.read_text() + "\nunknownKey: 1\n")
    res = CliRunner().invoke(cli, ["build", str(tmp_path / "ops"), "--site-dir",
                                   str(tmp_path / "site"), "--format", "json"])
    out = json.loads(res.stdout)
    assert (out["errors"], out["warnings"]) == (1, 0)
    operators = [r for r in out["results"] if r["kind"] == "build"]
    assert [o["built"] for o in operators] == [False, True]
    assert [r["kind"] for r in out["results"]][-1] == "batch"
    text = CliRunner().invoke(cli, ["build", str(tmp_path / "ops"), "--site-dir",
                                    str(tmp_path / "site")])
    assert "1 error, 0 warnings in 2 operator files" in text.stderr
    assert "built 1 of 2 operators into" in text.stdout


def test_a_host_with_the_same_files_is_still_one_operator_s(tmp_path: Path) -> None:
    """With --no-pages a host without the card holds the same three files whoever
    builds it: claiming it must fail all the same, and the owner must stay the owner."""
    ops = write_operators(tmp_path / "ops", 2)
    site = tmp_path / "site"
    for op in ops:  # each its own ask.<host>
        i = op.parent.name[-1]
        op.write_text(op.read_text() + f"hosts:\n  ask.op{i}.example: {{}}\n")
    assert build_many(BatchOptions(configs=ops, site_dir=site, pages=False)).written
    claimant = ops[1]
    text = claimant.read_text()
    claimant.write_text(text + "  ask.op0.example: {}\n")
    line = len(text.splitlines()) + 1
    res = build_many(BatchOptions(configs=ops, site_dir=site, pages=False))
    [err] = res.outcomes[1].report.errors
    assert err.rule == "SITE-HOST" and (err.location.file, err.location.line) == \
        (str(claimant), line)
    assert [o.config for o in res.built] == [ops[0]]
    owner_alone = build_many(BatchOptions(configs=ops[:1], site_dir=site))
    assert owner_alone.written and not owner_alone.failed


def test_the_owner_is_recognised_by_its_key_when_the_files_moved_away_from_site(
        tmp_path: Path) -> None:
    _, site = built_batch(tmp_path, 3)
    before = tree(site)
    moved = tmp_path / "elsewhere" / "checkout"
    moved.parent.mkdir()
    (tmp_path / "ops").rename(moved)
    taker = moved / "op00002" / "operator.yaml"  # takes op1's card, with its own key
    taker.write_text(taker.read_text().replace("op2.example", "op1.example"))
    for prune in (False, True):
        res = build_many(BatchOptions(configs=[moved], site_dir=site, prune=prune))
        assert [o.config for o in res.failed] == [taker]
        [err] = [f for f in res.failed[0].report.errors]
        assert err.rule == "SITE-HOST" and "op1.example" in err.message
        assert res.pruned == [] and res.kept == []
        after = tree(site)
        for host in ("op1.example/", "op2.example/"):  # op1 rebuilt as it was; op2 kept
            assert {k: v for k, v in after.items() if k.startswith(host)} == \
                {k: v for k, v in before.items() if k.startswith(host)}


def test_kept_lists_only_operators_that_are_not_in_the_batch(tmp_path: Path) -> None:
    ops, site = built_batch(tmp_path, 3)
    ops[0].write_text("operator: [\n")
    res = build_many(BatchOptions(configs=ops[:2], site_dir=site))
    assert [o.config for o in res.failed] == [ops[0]]
    assert res.kept == ["https://op2.example/.well-known/agent-card.json"]
    out = CliRunner().invoke(cli, ["build", str(ops[0]), str(ops[1]), "--site-dir", str(site),
                                   "--prune"])
    assert "warning: nothing was pruned" in out.stderr
    assert out.stderr.count("[SITE-PRUNE]") == 1
    assert "kept: 1 operator of the last build that is not in this one (not pruned: see " \
        "the warning above)" in out.stderr


def test_a_site_dir_that_is_a_link_is_built_into_its_target(tmp_path: Path) -> None:
    write_operators(tmp_path / "ops", 2)
    (tmp_path / "real").mkdir()
    (tmp_path / "served").symlink_to(tmp_path / "real")
    for _ in range(2):
        res = build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=tmp_path / "served"))
        assert res.written
        assert (tmp_path / "served").is_symlink()
        assert (tmp_path / "real" / "op1.example" / ".well-known" / "agent-card.json").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ops", "real", "served"]


def test_a_stop_during_the_swap_waits_and_the_build_ends_as_it_would_have(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A first batch into an (empty) folder swaps the whole new folder in."""
    import os

    import acap.site._files

    write_operators(tmp_path / "ops", 2)
    site = tmp_path / "site"
    site.mkdir()
    real_rename = os.rename
    calls = []

    def rename_then_ctrl_c(a: object, b: object) -> None:
        real_rename(a, b)  # type: ignore[arg-type]
        if Path(str(a)) == site or Path(str(b)) == site:
            calls.append(b)
        if Path(str(a)) == site:  # between the swap's two renames: site/ is gone a moment
            os.kill(os.getpid(), signal.SIGINT)

    monkeypatch.setattr(acap.site._files.os, "rename", rename_then_ctrl_c)
    res = build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=site))
    monkeypatch.undo()
    assert res.written and len(calls) == 2
    assert (site / "op1.example" / ".well-known" / "agent-card.json").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ops", "site"]


def test_a_stop_while_a_tenant_is_swapped_in_waits_for_the_batch_to_end(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Over a batch site, tenant by tenant: Ctrl-C during the renames is held until every
    changed tenant is in and the manifest written, with the bytes of a full build."""
    import os
    import shutil

    import acap.site._tenants

    ops, site = built_batch(tmp_path, 3)
    for op in ops[:2]:
        op.write_text(op.read_text().replace("assistant\n", "helper\n"))
    shutil.copytree(site, tmp_path / "full")
    assert build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=tmp_path / "full",
                                   full=True)).written
    real_rename = os.rename
    stops = []

    def rename_then_ctrl_c(a: object, b: object) -> None:
        real_rename(a, b)  # type: ignore[arg-type]
        if not stops:
            stops.append(b)
            os.kill(os.getpid(), signal.SIGINT)

    monkeypatch.setattr(acap.site._tenants.os, "rename", rename_then_ctrl_c)
    res = build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=site))
    monkeypatch.undo()
    assert res.written and stops and len(res.reused) == 1
    assert tree(site) == tree(tmp_path / "full")
    assert not (site / ".acap" / "batch").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["full", "ops", "site"]


def test_operators_building_the_spec_site_share_its_host(tmp_path: Path) -> None:
    ops = write_operators(tmp_path / "ops", 2)
    for op in ops:
        op.write_text(op.read_text() + "specSite: true\n")
    site = tmp_path / "site"
    res = build_many(BatchOptions(configs=ops, site_dir=site))
    assert res.written and len(res.built) == 2
    spec = site / "agent-capability.org" / "ext" / "on-request" / "v1" / "index.html"
    assert spec.is_file()
    again = build_many(BatchOptions(configs=ops[1:], site_dir=site))  # op0 kept, op1 rebuilt
    assert again.written and not again.failed and spec.is_file()


def test_ctrl_c_stops_the_batch_with_status_130_and_says_what_was_kept(
        tmp_path: Path) -> None:
    proc, children = batch_with_workers(tmp_path)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert "interrupted: stopped before it was done" in err.decode()
    assert "Traceback" not in err.decode()
    assert all(gone(pid) for pid in children)
    assert [p.name for p in tmp_path.iterdir()] == ["ops"]
