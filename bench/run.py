"""acap benchmarks: every figure next to a reference measured in the same run.

Usage::

    python bench/run.py                  # all benchmarks, table + bench/results/latest.json
    python bench/run.py --quick          # fewer repeats
    python bench/run.py --only sign      # one group: process, cli, sign, verify, specsite,
                                         # guard, batch
    python bench/run.py --only batch --count 1000 --runs 5   # the batch figures of issue 16

Timing is the standard library's ``time.perf_counter``; each figure is the
median of repeated runs with min and max shown. Targets (issue 7) are ratios
of a figure to its reference from the same run, so a noisy machine moves both.
The batch figures (issue 16) are whole processes, wall and CPU time (the process
and its workers, ``getrusage``), on a memory file system where there is one, each
run paired with its reference run, alternating; the ratio is per pair, shown as
the median and range. Run it on an otherwise idle machine for stable numbers.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
PY = sys.executable
#: The libraries the issue names as the reference import (acap's heaviest runtime deps).
DEP_IMPORTS = "import yaml, jinja2, jsonschema, cryptography.hazmat.primitives.asymmetric.ec, click"


@dataclass
class Figure:
    """One measured figure (seconds per operation) and its reference."""

    name: str
    samples: list[float]
    reference: str | None = None
    target: str | None = None
    ratio_limit: float | None = None  # figure / reference must be <= this (or >= if negative)
    unit: str = "ms"
    extra: dict[str, float] = field(default_factory=dict)

    @property
    def median(self) -> float:
        return statistics.median(self.samples)


def time_process(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> float:
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"benchmark command failed: {' '.join(cmd)}\n{proc.stderr.decode()}")
    return elapsed


def interleaved(commands: dict[str, Callable[[], float]], repeats: int) -> dict[str, list[float]]:
    """Run each measurement ``repeats`` times, alternating, so drift hits all alike."""
    out: dict[str, list[float]] = {k: [] for k in commands}
    for fn in commands.values():  # warm caches (disk, pyc)
        fn()
    for _ in range(repeats):
        for name, fn in commands.items():
            out[name].append(fn())
    return out


def per_call(fn: Callable[[], object], n: int) -> float:
    start = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - start) / n


_LIST_DEPS = """
import sys
from acap.cli import main  # not the console script's main: it ends the process
try:
    main(["build", "--no-spec-site"])
except SystemExit:
    pass
std = set(sys.stdlib_module_names)
mods = sorted(m for m in list(sys.modules)
              if m.split(".")[0] not in std and m.split(".")[0] != "acap"
              and not m.split(".")[0].startswith("_") and not m.startswith("__")
              and getattr(sys.modules[m.split(".")[0]], "__spec__", None) is not None)
sys.stdout = sys.__stdout__
print("\\n".join(mods))
"""


def build_dependencies(project: Path, env: dict[str, str]) -> list[str]:
    """Every third-party module an ``acap build`` of the example imports (measured)."""
    proc = subprocess.run([PY, "-c", _LIST_DEPS], cwd=project, env=env, capture_output=True,
                          text=True, check=True)
    return [line for line in proc.stdout.splitlines()[-2000:] if line and " " not in line
            and not line.startswith(("built ", "card:"))]


def runtime_modules() -> list[str]:
    """The top-level module of each runtime dependency in pyproject.toml (``pyyaml`` ->
    ``yaml``), as installed."""
    import re
    from importlib.metadata import packages_distributions

    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    block = text.split("dependencies = [", 1)[1].split("]", 1)[0]
    wanted = {re.split(r"[<>=\[; ]", d.strip().strip('",'))[0].lower().replace("_", "-")
              for d in re.findall(r'"[^"]+"', block)}
    found = {mod for mod, dists in packages_distributions().items()
             if not mod.startswith("_") and mod.isidentifier()
             and any(d.lower().replace("_", "-") in wanted for d in dists)}
    return sorted(found)


def bench_process(repeats: int, work: Path) -> list[Figure]:
    """Whole-process ``acap build`` (spec site off) against importing its dependencies.

    Two references: the third-party modules this very build imports (measured,
    imported and nothing else done: what the build cannot avoid), and the five
    libraries issue 7 names (pyyaml, jinja2, jsonschema, cryptography, click).
    """
    project = work / "process"
    project.mkdir()
    shutil.copyfile(REPO / "operator.yaml", project / "operator.yaml")
    env = dict(os.environ)
    env.pop("ACAP_SIGNING_KEY", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # any value, even "0", disables .pyc files
    subprocess.run([PY, "-m", "compileall", "-q", str(REPO / "src" / "acap")], env=env,
                   stdout=subprocess.DEVNULL, check=False)
    acap = [shutil.which("acap", path=str(Path(PY).parent)) or "acap"]  # as users run it
    time_process([*acap, "build", "--no-spec-site"], project, env)  # creates the key once
    deps = build_dependencies(project, env)
    deps_import = "import " + ", ".join(deps)
    res = interleaved({
        "build": lambda: time_process([*acap, "build", "--no-spec-site"], project, env),
        "deps": lambda: time_process([PY, "-c", deps_import], project, env),
        "five": lambda: time_process([PY, "-c", DEP_IMPORTS], project, env),
        "all": lambda: time_process([PY, "-c", "import " + ", ".join(runtime_modules())],
                                    project, env),
    }, repeats)
    tops = sorted({d.split(".")[0] for d in deps})
    return [
        Figure("acap build (whole process, spec site off)", res["build"],
               f"import what it imports ({', '.join(tops)})", "<= 1.3x reference", 1.3,
               extra={"reference_median": statistics.median(res["deps"])}),
        Figure("acap build (whole process, spec site off) ", res["build"],
               "import yaml, jinja2, jsonschema, cryptography, click", "(issue 7's figure)",
               None, extra={"reference_median": statistics.median(res["five"])}),
        Figure("acap build (whole process, spec site off)  ", res["build"],
               f"import every runtime dependency ({', '.join(runtime_modules())})",
               "<= 1.3x reference", 1.3,
               extra={"reference_median": statistics.median(res["all"])}),
    ]


def bench_cli(repeats: int, work: Path) -> list[Figure]:
    """``acap --version`` and ``acap --help`` against ``python -c pass``."""
    script = shutil.which("acap", path=str(Path(PY).parent)) or "acap"
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    res = interleaved({
        "version": lambda: time_process([script, "--version"], work, env),
        "help": lambda: time_process([script, "--help"], work, env),
        "pass": lambda: time_process([PY, "-c", "pass"], work, env),
    }, repeats)
    ref = statistics.median(res["pass"])
    return [
        Figure("acap --version", res["version"], "python -c pass", "<= 5x reference", 5.0,
               extra={"reference_median": ref}),
        Figure("acap --help", res["help"], "python -c pass", "<= 5x reference", 5.0,
               extra={"reference_median": ref}),
    ]


def _example_card_and_key() -> tuple[dict[str, object], object, dict[str, object]]:
    from acap.card import build_card
    from acap.keys import SigningKey, generate_private_key
    from acap.load import load_operator

    cfg = load_operator(REPO / "operator.yaml")
    card = build_card(cfg)
    private = generate_private_key("ES256")
    key = SigningKey(private, "ES256", "bench-1")
    return card, key, key.public_jwk()


def bench_sign(repeats: int, n: int) -> list[Figure]:
    """Sign: acap's Signer, a2a-sdk 1.3's signer, and bare RFC 8785 + ECDSA."""
    import rfc8785
    from a2a.client.card_resolver import parse_agent_card
    from a2a.utils.signing import create_agent_card_signer
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec
    from jwt.api_jwk import PyJWK

    from acap.card import Signer

    card, key, jwk = _example_card_and_key()
    signer = Signer(key, jku="https://example.com/.well-known/jwks.json")  # type: ignore[arg-type]
    card_json = json.dumps(card)
    private_jwk = PyJWK({**jwk, "d": _d_of(key)})
    sdk_sign = create_agent_card_signer(private_jwk, {"alg": "ES256", "typ": "JOSE",
                                                      "kid": "bench-1", "jku": None})
    from acap.card import payload_object

    pk = key.private  # type: ignore[attr-defined]
    payload_obj = payload_object(card)  # the same object JCS sees inside the Signer

    def acap_sign() -> object:
        return signer.sign(card)

    def sdk() -> object:
        return sdk_sign(parse_agent_card(json.loads(card_json)))

    def bare() -> object:
        data = rfc8785.dumps(payload_obj)
        return pk.sign(data, ec.ECDSA(hashes.SHA256(), deterministic_signing=True))

    res = interleaved({"acap": lambda: per_call(acap_sign, n), "sdk": lambda: per_call(sdk, n),
                       "bare": lambda: per_call(bare, n)}, repeats)
    sdk_m, bare_m = statistics.median(res["sdk"]), statistics.median(res["bare"])
    return [
        Figure("sign example card: acap Signer", res["acap"], "a2a-sdk 1.3 signer (from JSON)",
               ">= 4x faster than a2a-sdk", 1 / 4, extra={"reference_median": sdk_m}),
        Figure("sign example card: acap Signer ", res["acap"], "bare RFC 8785 + ECDSA P-256",
               "<= 1.5x bare", 1.5, extra={"reference_median": bare_m}),
        Figure("sign: a2a-sdk 1.3 signer (from JSON)", res["sdk"]),
        Figure("sign: bare RFC 8785 + ECDSA", res["bare"]),
    ]


def bench_guard(repeats: int, chunks: int) -> list[Figure]:
    """The egress guard (issue 19): a streamed answer of ``chunks`` artifact chunks, one
    word each, through the guard of a caller a private value is kept from, beside the same
    stream through the guard of a caller nothing is kept from (it passes events unread)."""
    import asyncio

    from a2a.types import Artifact, Part, TaskArtifactUpdateEvent

    from acap.agent._guard import Entitlement, GuardedQueue
    from acap.checks import PrivateValue
    from acap.replies import OnRequestSkill

    skills = {"service-pricing": OnRequestSkill("service-pricing", "https://ask.example.com/t")}
    values = [PrivateValue("service-pricing", "£1,395", "operator.private.yaml", 2)]
    words = ["Our", "chapel", "helps", "families", "plan", "a", "dignified", "farewell",
             "for", "a", "loved", "one", "at", "any", "time", "of", "day", "or", "night"]
    events = [TaskArtifactUpdateEvent(
        task_id="t", context_id="c", append=i > 0,
        artifact=Artifact(artifact_id="a", parts=[Part(text=words[i % len(words)] + " ")]))
        for i in range(chunks)]

    class Sink:
        async def enqueue_event(self, event: object) -> None:
            return None

    def stream(entitled: frozenset[str]) -> float:
        async def go() -> None:
            sink: Any = Sink()  # the SDK's queue, which the guard passes events on to
            guard = GuardedQueue(sink, Entitlement(entitled, amounts=True, unreadable=True),
                                 skills, values, None)
            for ev in events:
                await guard.enqueue_event(ev)
            await guard.flush()

        start = time.perf_counter()
        asyncio.run(go())
        return (time.perf_counter() - start) / chunks

    res = interleaved({"guarded": lambda: stream(frozenset()),
                       "idle": lambda: stream(frozenset({"service-pricing"}))}, repeats)
    return [Figure(f"egress guard: per chunk of a {chunks}-chunk stream", res["guarded"],
                   "the same stream, nothing kept from the caller",
                   extra={"reference_median": statistics.median(res["idle"])})]


def _d_of(key: object) -> str:
    from acap.keys import b64url

    priv = key.private  # type: ignore[attr-defined]
    return b64url(priv.private_numbers().private_value.to_bytes(32, "big"))


def bench_verify(repeats: int, n: int) -> list[Figure]:
    """Verify: acap's verifier, a2a-sdk 1.3's verifier, and bare RFC 8785 + ECDSA verify."""
    import rfc8785
    from a2a.client.card_resolver import parse_agent_card
    from a2a.utils.signing import create_signature_verifier
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
    from jwt.api_jwk import PyJWK

    from acap.card import Signer, Verifier
    from acap.keys import b64url, b64url_decode

    card, key, jwk = _example_card_and_key()
    signed = Signer(key).sign(card)  # type: ignore[arg-type]
    card_json = json.dumps(signed)
    pub = PyJWK(jwk)
    sdk_verify = create_signature_verifier(lambda kid, jku: pub, ["ES256"])
    pk = key.private.public_key()  # type: ignore[attr-defined]
    sig = signed["signatures"][0]  # type: ignore[index]
    raw = b64url_decode(sig["signature"])
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    from acap.card import payload_object

    body = payload_object(signed)  # the object the signature covers

    verifier = Verifier(lambda kid, jku: (jwk, "bench"))

    def acap_v() -> object:
        res = verifier.verify(signed)
        assert res.ok
        return res

    def sdk() -> None:
        sdk_verify(parse_agent_card(json.loads(card_json)))

    def bare() -> None:
        payload = b64url(rfc8785.dumps(body))
        pk.verify(der, f"{sig['protected']}.{payload}".encode(), ec.ECDSA(hashes.SHA256()))

    res = interleaved({"acap": lambda: per_call(acap_v, n), "sdk": lambda: per_call(sdk, n),
                       "bare": lambda: per_call(bare, n)}, repeats)
    return [
        Figure("verify example card: acap", res["acap"], "a2a-sdk 1.3 verifier (from JSON)",
               None, None, extra={"reference_median": statistics.median(res["sdk"])}),
        Figure("verify example card: acap ", res["acap"], "bare RFC 8785 + ECDSA verify",
               None, None, extra={"reference_median": statistics.median(res["bare"])}),
    ]


def bench_spec_site(repeats: int) -> list[Figure]:
    """The spec-site step against a plain ``mkdocs build`` of the same pages (see
    bench/spec_site.py): whole processes (step = build with minus without the site)
    and one warm process."""
    sys.path.insert(0, str(REPO / "bench"))
    import spec_site

    procs = spec_site.whole_processes(repeats)
    on, off = procs["acap build --spec-site"], procs["acap build --no-spec-site"]
    mk, py = procs["mkdocs build (same sources)"], procs["python -c pass"]
    step = [a - b for a, b in zip(on, off, strict=True)]
    ref = [a - b for a, b in zip(mk, py, strict=True)]
    warm = spec_site.in_process(repeats * 3)
    return [
        Figure("spec site step (whole processes: on - off)", step,
               "mkdocs build of the same pages (- python -c pass)", "<= 1.2x reference", 1.2,
               extra={"reference_median": statistics.median(ref)}),
        Figure("spec site step (one warm process)", warm["acap spec-site step"],
               "mkdocs load_config + build, same config", "<= 1.2x reference", 1.2,
               extra={"reference_median": statistics.median(warm["mkdocs build"])}),
    ]


def make_operators(folder: Path, count: int) -> list[Path]:
    """``count`` distinct operators (names, skills, keys), one folder each."""
    sys.path.insert(0, str(REPO / "bench"))
    from generate import write_operators

    return write_operators(folder, count)


@dataclass
class Pairs:
    """One batch figure: per alternating run, acap's time and its reference's (seconds),
    wall and CPU; the ratio of each run's pair is what the target judges."""

    name: str
    reference: str
    target: str
    limit: float | None
    wall: list[tuple[float, float]] = field(default_factory=list)
    cpu: list[tuple[float, float]] = field(default_factory=list)
    judged: str = "cpu"  # which of the two the target is about
    #: When set, the figure is milliseconds per item of ``per`` items (acap's time less
    #: its reference's), not a ratio.
    per: int | None = None

    def ratios(self, kind: str) -> list[float]:
        if self.per:
            return [(a - b) / self.per * 1000 for a, b in getattr(self, kind)]
        return [a / b for a, b in getattr(self, kind)]


def measured(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float, str]:
    """Run ``cmd`` as a whole process: ``(wall seconds, CPU seconds of it and its children,
    its standard output)``."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"benchmark command failed: {' '.join(cmd)}\n"
                         f"{proc.stdout.decode()[-2000:]}{proc.stderr.decode()[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc.stdout.decode()


def bench_batch(runs: int, work: Path, counts: list[int]) -> list[Pairs]:
    """Batch builds of generated operators, pages off, whole processes (``acap build DIR``
    as platforms run it), each against a reference measured in the same run, alternating:

    * the full build (``-j 1 --full``) against the floor (``bench/floor.py``: the library
      calls alone, nothing of acap's own), for each of ``counts``;
    * at the largest count, the rebuild of the whole folder with 10 operators changed
      against the full build (issue 24: judged at 10,000), and the folder built again
      with nothing changed, per tenant, less Python's imports (what a kept tenant costs);
    * at the first count, ``-j 2`` against ``-j 1`` (full builds).
    """
    acap = shutil.which("acap", path=str(Path(PY).parent)) or "acap"
    env = dict(os.environ)
    env.pop("ACAP_SIGNING_KEY", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)

    def build(ops: Path, site: Path, *extra: str) -> tuple[float, float]:
        wall, cpu, _ = measured([acap, "build", str(ops), "--site-dir", str(site),
                                 "--no-pages", *extra], work, env)
        return wall, cpu

    out: list[Pairs] = []
    first: tuple[Path, int] | None = None
    last: tuple[Path, int] | None = None
    for count in counts:
        print(f"  {count} operators ...", file=sys.stderr)
        ops = work / f"ops-{count}"
        make_operators(ops, count)
        ref = work / f"ref-{count}"
        build(ops, ref, "-j", "1")  # the floor's data; warms the disk cache and .pyc files
        fig = Pairs(f"batch build, {count:,} operators, 1 job, whole process",
                    "the floor: library calls alone (bench/floor.py), whole process",
                    "CPU <= 2.0x floor", 2.0)
        for r in range(runs):
            site = work / f"site-{count}-{r}"
            a_wall, a_cpu = build(ops, site, "-j", "1", "--full")
            shutil.rmtree(site)
            floor_out = work / f"floor-{count}-{r}"
            f_wall, f_cpu, text = measured([PY, str(REPO / "bench" / "floor.py"), str(ops),
                                            str(ref), str(floor_out)], work, env)
            pre = json.loads(text.strip().splitlines()[-1])
            shutil.rmtree(floor_out)
            fig.wall.append((a_wall, f_wall - pre["preload_wall"]))
            fig.cpu.append((a_cpu, f_cpu - pre["preload_cpu"]))
        out.append(fig)
        if first is None:
            first = (ops, count)
        last = (ops, count)
    assert first is not None and last is not None
    rebuilds = _bench_rebuild(runs, work, env, last, build)
    return [*out, *rebuilds, *_bench_jobs(runs, work, env, first, build)]


#: What a build imports, as one ``python -c`` (the part of a rebuild no rebuild avoids).
DEPS = ("import acap.builder.batch._build, acap.builder._build, acap.builder.pages, "
        "acap.checks, acap.card, acap.keys, acap.load, acap.site, yaml, cryptography, "
        "jsonschema_rs, rfc8785, orjson")


def _bench_rebuild(runs: int, work: Path, env: dict[str, str], at: tuple[Path, int],
                   build: Callable[..., tuple[float, float]]) -> list[Pairs]:
    """The rebuild of the whole folder of ``at`` with 10 operators changed, against the
    full build just before it and against Python importing what a build imports; then
    the same folder built again with nothing changed, less those imports, per tenant
    (what a kept tenant costs)."""
    ops, count = at
    configs = sorted(ops.glob("*/operator.yaml"))[:10]
    texts = [c.read_text(encoding="utf-8") for c in configs]
    rebuild = Pairs(f"rebuild of the {count:,} with 10 changed (whole folder, 1 job)",
                    "the full build (-j 1 --full) just before it", "<= 0.05x full build",
                    0.05, judged="wall")
    imports = Pairs(f"rebuild of the {count:,} with 10 changed", "importing what a build "
                    "imports (python -c, whole process)", "(the part no rebuild avoids)", None,
                    judged="wall")
    kept = Pairs(f"a kept tenant: the {count:,} built again, nothing changed, per tenant",
                 "importing what a build imports", "<= 0.05 ms a tenant", 0.05,
                 judged="wall", per=count)
    site = work / "site-rebuild"
    for r in range(runs):
        shutil.rmtree(site, ignore_errors=True)
        full = build(ops, site, "-j", "1", "--full")
        for c, t in zip(configs, texts, strict=True):
            c.write_text(t.replace("assistant\n", f"assistant {r}\n"), encoding="utf-8")
        inc = build(ops, site, "-j", "1")
        same = build(ops, site, "-j", "1")
        for c, t in zip(configs, texts, strict=True):
            c.write_text(t, encoding="utf-8")
        imp = measured([PY, "-c", DEPS], work, env)
        rebuild.wall.append((inc[0], full[0]))
        rebuild.cpu.append((inc[1], full[1]))
        imports.wall.append((inc[0], imp[0]))
        imports.cpu.append((inc[1], imp[1]))
        kept.wall.append((same[0], imp[0]))
        kept.cpu.append((same[1], imp[1]))
    shutil.rmtree(site, ignore_errors=True)
    return [rebuild, imports, kept]


def _bench_jobs(runs: int, work: Path, env: dict[str, str], at: tuple[Path, int],
                build: Callable[..., tuple[float, float]]) -> list[Pairs]:
    """``-j 2`` against ``-j 1`` (full builds of ``at``), and what this machine gives two
    processes at all."""
    ops, count = at
    jobs = Pairs(f"batch build, {count:,} operators, 2 jobs", "the same with 1 job",
                 "<= 0.6x 1 job", 0.6, judged="wall")
    # What this machine gives two processes: the same bare-Python work in two processes
    # of half each, against one process doing all of it (0.5 on two free cores).
    ceiling = Pairs("this machine: bare Python work in 2 processes", "the same work in 1",
                    "(the machine's own ceiling for 2 jobs)", None, judged="wall")
    spin = "import sys\nx = 0\nfor i in range(int(sys.argv[1])): x += i\n"
    halves = ("import subprocess, sys\nps = [subprocess.Popen([sys.executable, '-c', "
              f"{spin!r}, str(int(sys.argv[1]) // 2)]) for _ in range(2)]\n"
              "sys.exit(max(p.wait() for p in ps))\n")
    for _ in range(runs):
        one = build(ops, work / "site-j1", "-j", "1", "--full")
        two = build(ops, work / "site-j2", "-j", "2", "--full")
        shutil.rmtree(work / "site-j1")
        shutil.rmtree(work / "site-j2")
        jobs.wall.append((two[0], one[0]))
        jobs.cpu.append((two[1], one[1]))
        whole = measured([PY, "-c", spin, "40000000"], work, env)
        split = measured([PY, "-c", halves, "40000000"], work, env)
        ceiling.wall.append((split[0], whole[0]))
        ceiling.cpu.append((split[1], whole[1]))
    return [jobs, ceiling]


def batch_report(figures: list[Pairs]) -> str:
    """The batch figures: each side's median (min to max) and the ratio of each run's pair."""
    def span(values: list[float], fmt: str) -> str:
        return f"{statistics.median(values):{fmt}} ({min(values):{fmt}}-{max(values):{fmt}})"

    rows = [("figure", "kind", "acap s", "reference s", "ratio", "target", "met")]
    for f in figures:
        for kind in ("cpu", "wall"):
            pairs = getattr(f, kind)
            ratios = f.ratios(kind)
            met = ""
            if f.limit is not None and kind == f.judged:
                met = "yes" if statistics.median(ratios) <= f.limit else "NO"
            shown = span(ratios, ".3f") + " ms" if f.per else span(ratios, ".2f") + "x"
            rows.append((f.name, kind, span([a for a, _ in pairs], ".2f"),
                         span([b for _, b in pairs], ".2f"), shown,
                         f.target if kind == f.judged else "", met))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = [" | ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    lines.insert(1, "-+-".join("-" * w for w in widths))
    return "\n".join(lines)


def report(figures: list[Figure]) -> str:
    rows = [("figure", "median", "min", "max", "reference (median)", "ratio", "target", "met")]
    for f in figures:
        scale = 1000.0
        med, lo, hi = f.median * scale, min(f.samples) * scale, max(f.samples) * scale
        ref = f.extra.get("reference_median")
        ratio = f.median / ref if ref else None
        met = ""
        if f.ratio_limit and ratio is not None:
            met = "yes" if ratio <= f.ratio_limit else "NO"
        ratio_s = f"{ratio:.2f}x" if ratio is not None else ""
        rows.append((f.name.strip(), f"{med:.3f} ms", f"{lo:.3f}", f"{hi:.3f}",
                     f"{f.reference or ''} {ref * scale:.3f} ms" if ref else "", ratio_s,
                     f.target or "", met))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = [" | ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    lines.insert(1, "-+-".join("-" * w for w in widths))
    return "\n".join(lines)


def memory_tmp() -> str | None:
    """A memory file system for the batch figures (the floor is a disk's speed otherwise),
    when this machine has one."""
    shm = Path("/dev/shm")
    return str(shm) if shm.is_dir() and os.access(shm, os.W_OK) else None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer repeats")
    ap.add_argument("--only", choices=["process", "cli", "sign", "verify", "specsite", "guard",
                                        "batch"],
                    default=None)
    ap.add_argument("--count", type=int, action="append", default=None,
                    help="operators in the batch builds (repeatable) [default: 1000 and "
                         "10000; --quick: 1000]")
    ap.add_argument("--runs", type=int, default=None,
                    help="alternating runs of each batch figure [default: 5; --quick: 3]")
    ap.add_argument("--out", type=Path, default=REPO / "bench" / "results" / "latest.json")
    args = ap.parse_args()
    repeats = 5 if args.quick else 15
    counts = args.count or ([1000] if args.quick else [1000, 10000])
    figures: list[Figure] = []
    pairs: list[Pairs] = []
    with tempfile.TemporaryDirectory(prefix="acap-bench-") as tmp, \
            tempfile.TemporaryDirectory(prefix="acap-bench-", dir=memory_tmp()) as mem:
        work = Path(tmp)
        groups: dict[str, Callable[[], list[Figure]]] = {
            "process": lambda: bench_process(repeats, work),
            "cli": lambda: bench_cli(repeats, work),
            "sign": lambda: bench_sign(repeats, 200),
            "verify": lambda: bench_verify(repeats, 100),
            "specsite": lambda: bench_spec_site(repeats),
            "guard": lambda: bench_guard(max(3, repeats // 3), 200),
        }
        for name, fn in groups.items():
            if args.only in (None, name):
                print(f"running {name} ...", file=sys.stderr)
                figures.extend(fn())
        if args.only in (None, "batch"):
            print(f"running batch (in {mem}) ...", file=sys.stderr)
            pairs = bench_batch(args.runs or (3 if args.quick else 5), Path(mem), counts)
    if figures:
        print(report(figures))
    if pairs:
        print(("\n" if figures else "") + batch_report(pairs))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({
        "python": sys.version.split()[0], "cpus": os.cpu_count(),
        "cpus_usable": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
        else os.cpu_count(),
        "figures": [{"name": f.name.strip(), "median_s": f.median, "min_s": min(f.samples),
                     "max_s": max(f.samples), "reference": f.reference, "target": f.target,
                     **f.extra} for f in figures],
        "batch": [{"name": p.name, "reference": p.reference, "target": p.target,
                   "judged": p.judged, "limit": p.limit,
                   "wall_s": p.wall, "cpu_s": p.cpu,
                   "ratio_median": {k: statistics.median(p.ratios(k)) for k in ("cpu", "wall")},
                   "ratio_range": {k: [min(p.ratios(k)), max(p.ratios(k))]
                                   for k in ("cpu", "wall")}} for p in pairs],
    }, indent=2) + "\n", encoding="utf-8")
    print(f"\nwrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
