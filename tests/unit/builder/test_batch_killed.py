"""A tenant is the unit of change of a batch (issue 24): a batch killed with SIGKILL at
random points leaves every host folder whole, and, once the next batch has finished what
the killed one began (acap.site.repair, its first step), every tenant wholly old or wholly
new, the manifest saying what is on disk, and the next incremental build byte for byte
what a full build gives.

Each kill is a real ``kill -9`` of a process building the batch: a child forked from the
test, killed at a randomly chosen step of the batch's writing (each rename, exchange,
journal entry, manifest and removal is a step) or at a random moment of its whole run.
The seed is in every assertion's message."""

from __future__ import annotations

import os
import random
import shutil
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from acap.builder.batch import BatchOptions, build_many
from acap.cli import report_text
from acap.site import read_manifest, repair, site_lock
from support.paths import REPO
from support.sites import site_tree

sys.path.insert(0, str(REPO / "bench"))
from generate import write_operators

#: Kills at a chosen step of the writing, and at a random moment of the run.
STEP_KILLS = 20
TIME_KILLS = 4


def two_host_tenants(ops: Path, count: int) -> list[Path]:
    """``count`` tenants, each with its card host and a personEntry host of its own."""
    paths = write_operators(ops, count)
    for i, p in enumerate(paths):
        text = p.read_text().replace(f"personEntry: https://op{i}.example/ask",
                                     f"personEntry: https://ask.op{i}.example/talk")
        p.write_text(text + f"hosts:\n  ask.op{i}.example: {{}}\n")
    return paths


def new_version(paths: list[Path]) -> None:
    """The batch's next version: every tenant changed but the first (kept as it is), the
    second gives up its personEntry host (a host folder that goes), and a new tenant."""
    for i, p in enumerate(paths):
        text = p.read_text()
        if i == 0:
            continue
        text = text.replace("assistant\n", "helper\n")
        if i == 1:
            text = text.replace("https://ask.op1.example/talk", "https://op1.example/talk")
            text = text.replace("hosts:\n  ask.op1.example: {}\n", "")
        p.write_text(text)
    write_operators(paths[0].parent.parent / "new", 1)
    shutil.move(paths[0].parent.parent / "new" / "op00000",
                paths[0].parent.parent / "op00099")
    shutil.rmtree(paths[0].parent.parent / "new")
    late = paths[0].parent.parent / "op00099" / "operator.yaml"
    late.write_text(late.read_text().replace("op0.example", "op99.example")
                    .replace("op0-1", "op99-1").replace(" 0\n", " 99\n"))


def hosts_of(tree: dict[str, str]) -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    for rel, digest in tree.items():
        host, _, _ = rel.partition("/")
        if not host.startswith("."):
            out.setdefault(host, {})[rel] = digest
    return out


def tenant_of(host: str) -> str:
    return host.removeprefix("ask.")


def batch(ops: Path, site: Path, **kw: Any) -> None:
    res = build_many(BatchOptions(configs=[ops], site_dir=site, jobs=1, **kw))
    assert res.written and not res.failed, [report_text(o.report) for o in res.failed]


class Steps:
    """Counts the steps of the batch's writing, and kills this process (SIGKILL) before
    step ``kill_at``."""

    def __init__(self, kill_at: int | None) -> None:
        self.kill_at, self.count = kill_at, 0

    def wrap(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        def step(*args: Any, **kwargs: Any) -> Any:
            self.count += 1
            if self.count == self.kill_at:
                os.kill(os.getpid(), signal.SIGKILL)
            return fn(*args, **kwargs)
        return step

    def install(self) -> None:
        import acap.site._tenants as tenants

        os.rename = self.wrap(os.rename)  # type: ignore[assignment]
        os.replace = self.wrap(os.replace)  # type: ignore[assignment]
        shutil.rmtree = self.wrap(shutil.rmtree)  # type: ignore[assignment]
        tenants._exchange = self.wrap(tenants._exchange)  # type: ignore[assignment]


def run_child(ops: Path, site: Path, kill_at: int | None = None,
              after: float | None = None) -> tuple[int, int]:
    """Build the batch in a forked child, killed at step ``kill_at`` or after ``after``
    seconds: ``(how it ended: the signal, or 0 for done; steps it counted)``."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: build, report its step count, end without cleanup
        code = 1
        try:
            os.close(r)
            steps = Steps(kill_at)
            steps.install()
            build_many(BatchOptions(configs=[ops], site_dir=site, jobs=1))
            os.write(w, str(steps.count).encode())
            code = 0
        finally:
            os._exit(code)
    os.close(w)
    if after is not None:
        time.sleep(after)
        os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    with os.fdopen(r, "rb") as pipe:
        counted = pipe.read()
    how = os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
    return how, int(counted or 0)


def check(site: Path, old: dict[str, dict[str, str]], new: dict[str, dict[str, str]],
          why: str, repaired: bool) -> None:
    """Every host folder whole (old or new); once repaired, every tenant wholly old or
    wholly new, and the manifest saying what is on disk."""
    now = hosts_of(site_tree(site))
    tenants: dict[str, set[str]] = {}
    for host in sorted(set(old) | set(new) | set(now)):
        is_old, is_new = now.get(host) == old.get(host), now.get(host) == new.get(host)
        assert is_old or is_new, f"{why}: {host} is neither old nor new"
        tenants.setdefault(tenant_of(host), set()).add(
            "both" if is_old and is_new else "old" if is_old else "new")
    if not repaired:
        return
    for tenant, seen in tenants.items():
        assert len(seen - {"both"}) <= 1, f"{why}: {tenant} is partly old, partly new"
    manifest = read_manifest(site)
    assert manifest is not None, why
    on_disk = {rel: d for rel, d in site_tree(site).items() if not rel.startswith(".acap/")}
    assert manifest.files == on_disk, f"{why}: the manifest does not say what is on disk"
    assert not (site / ".acap" / "batch").exists(), why


def test_a_batch_killed_anywhere_leaves_each_tenant_wholly_old_or_new(tmp_path: Path) -> None:
    seed = int.from_bytes(os.urandom(4), "big")
    rng = random.Random(seed)
    ops, site = tmp_path / "ops", tmp_path / "site"
    paths = two_host_tenants(ops, 5)
    batch(ops, site)
    old_site = tmp_path / "old"
    shutil.copytree(site, old_site)
    new_version(paths)
    full = tmp_path / "full"
    shutil.copytree(old_site, full)
    batch(ops, full, full=True)  # what the new version is, built whole over the same history
    old, new = hosts_of(site_tree(old_site)), hosts_of(site_tree(full))
    assert set(new) - set(old) == {"op99.example"} and set(old) - set(new) == {"ask.op1.example"}

    scratch = tmp_path / "scratch"
    shutil.copytree(old_site, scratch)
    how, total = run_child(ops, scratch)  # not killed: how many steps a whole batch takes
    assert (how, site_tree(scratch)) == (0, site_tree(full)), f"seed {seed}"
    start = time.monotonic()
    shutil.rmtree(scratch)
    shutil.copytree(old_site, scratch)
    run_child(ops, scratch)
    whole = time.monotonic() - start

    points = [("step", k) for k in rng.sample(range(1, total + 1), min(STEP_KILLS, total))]
    points += [("time", rng.uniform(0, whole)) for _ in range(TIME_KILLS)]
    assert len(points) >= 20
    for kind, at in points:
        shutil.rmtree(site)
        shutil.copytree(old_site, site)
        why = f"seed {seed}, killed at {kind} {at}"
        how, _ = run_child(ops, site, kill_at=int(at)) if kind == "step" else \
            run_child(ops, site, after=float(at))
        assert how in (signal.SIGKILL, 0), why
        check(site, old, new, why, repaired=False)
        if rng.random() < 0.3:  # the next batch killed too, while it repairs or builds
            run_child(ops, site, kill_at=rng.randint(1, total))
            check(site, old, new, why + ", then again", repaired=False)
        with site_lock(site) as busy:  # the next batch's first step
            assert busy is None, why
            repair(site)
        check(site, old, new, why, repaired=True)
        batch(ops, site)  # the next batch: incremental, byte for byte a full build's
        assert site_tree(site) == site_tree(full), why
    leftovers = [p.name for p in tmp_path.iterdir() if p.name.startswith(".")]
    assert leftovers == [], f"seed {seed}: {leftovers}"


def test_tenants_trading_a_host_are_one_unit_of_change(tmp_path: Path) -> None:
    """A host one tenant gives up and another takes in the same batch: both tenants'
    records and the host are one unit (journaled together), so that no manifest, however
    far a killed batch got, gives the host to both or to neither; a tenant alone is a
    unit of its own."""
    from acap.builder.batch._assemble import SitePlan
    from acap.builder.batch._write import units
    from acap.site import Manifest, OperatorRecord

    def rec(card: str, *hosts: str, state: str = "1") -> OperatorRecord:
        return OperatorRecord(card=card, config=f"/ops/{card}", hosts=hosts, state=state)

    a, b, c = "https://a.example/c", "https://b.example/c", "https://c.example/c"
    old = Manifest.of_batch([rec(a, "a.example", "shared.example"), rec(c, "c.example")],
                            {"a.example/x": "1", "shared.example/y": "2", "c.example/z": "3"})
    plan = SitePlan(records={b: rec(b, "b.example", "shared.example"),
                             c: rec(c, "c.example", state="2")},
                    files={"b.example/x": "4", "shared.example/y": "5", "c.example/z": "6"},
                    staged={"b.example": tmp_path / "1" / "b.example",
                            "shared.example": tmp_path / "1" / "shared.example",
                            "c.example": tmp_path / "2" / "c.example"},
                    staged_files={"b.example": {"b.example/x": "4"},
                                  "shared.example": {"shared.example/y": "5"},
                                  "c.example": {"c.example/z": "6"}},
                    owned={"b.example", "shared.example", "c.example"})
    [trade, alone] = units(old, plan)
    assert trade.records == {a: None, b: plan.records[b]}
    assert trade.hosts == {"a.example": None, "b.example": plan.staged["b.example"],
                           "shared.example": plan.staged["shared.example"]}
    assert trade.files == {"a.example": {}, "b.example": {"b.example/x": "4"},
                           "shared.example": {"shared.example/y": "5"}}
    assert (alone.records, alone.hosts) == ({c: plan.records[c]},
                                           {"c.example": plan.staged["c.example"]})
    changed = old.changed(trade.records, trade.files).changed(alone.records, alone.files)
    assert changed.data == plan.manifest().data


@pytest.mark.parametrize("member", [None, ("signer", None), ("hosts", ["a", 1]),
                                    ("places", {"a": [1, True]}), ("extra", 1),
                                    ("warnings", [{"rule": "X", "level": "warning"}])])
def test_a_record_is_written_as_read_only_when_it_reads_back_the_same(
        member: tuple[str, object] | None) -> None:
    """A batch rewrites the records it kept with the JSON it read (issue 24: thousands of
    them), but only a record that its one writer would write the same way."""
    from acap.site import OperatorRecord

    data: dict[str, object] = {
        "config": "/ops/a/operator.yaml", "configFromSite": "ops/a/operator.yaml",
        "card": "https://a.example/.well-known/agent-card.json", "inputs": "i",
        "hosts": ["a.example"], "keys": ["k1", "k0"], "signer": "k1", "keyFile": None,
        "state": "s", "reads": ["r", "", "", ""], "warnings": [],
        "places": {"a.example": [3, 12]}, "keyPlace": None, "previousPlace": [4, 1]}
    if member is not None:
        data[member[0]] = member[1]
    rec = OperatorRecord.of("https://a.example/.well-known/agent-card.json", data)
    assert rec is not None
    assert (rec.json is data) == (member is None)
    again = OperatorRecord.of(rec.card, rec.data())
    assert again == rec and again.data() == rec.data()
