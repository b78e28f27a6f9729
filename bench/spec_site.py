"""What the specification site adds to ``acap build``, against plain MkDocs on the same pages.

Target (issue 7): the spec-site step costs at most 1.2x a plain ``mkdocs build``
of the same pages. Both sides are measured in the same run, medians over
repeated, interleaved runs (min and max shown):

1. whole fresh processes. The step is ``acap build --spec-site`` minus
   ``acap build --no-spec-site`` (the bundled example, written to a temporary
   site/); the reference is ``mkdocs build -f src/acap/spec/mkdocs.yml`` (the
   MkDocs command on the same sources, hooks and SOURCE_DATE_EPOCH) minus
   ``python -c pass``;
2. in one process, with everything imported and warmed up:
   ``acap.builder.specsite._site.build_spec_site`` (examples checked, MkDocs run, files read
   back) against MkDocs' ``load_config`` + ``build`` of the same configuration.
   This isolates acap's own pre- and post-processing.

Usage: ``python bench/spec_site.py [--runs N] [--json FILE]``.
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
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> float:
    """Wall-clock seconds of one run of ``cmd``."""
    start = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def whole_processes(runs: int) -> dict[str, list[float]]:
    """Each case as a fresh process, ``runs`` times, interleaved."""
    from acap.builder.specsite._site import SOURCES, source_date_epoch

    py = sys.executable
    config = str(Path(str(SOURCES)) / "mkdocs.yml")
    with tempfile.TemporaryDirectory(prefix="acap-bench-") as tmp:
        work = Path(tmp)
        shutil.copyfile(REPO / "operator.yaml", work / "operator.yaml")
        env = dict(os.environ, SOURCE_DATE_EPOCH=str(source_date_epoch()))
        env.pop("ACAP_SIGNING_KEY", None)
        subprocess.run([py, "-m", "acap", "build"], cwd=work, env=env, check=True,
                       capture_output=True)  # creates the key once
        cases = {
            "python -c pass": [py, "-c", "pass"],
            "mkdocs build (same sources)": [py, "-m", "mkdocs", "build", "-q", "-f", config,
                                            "-d", str(work / "mkdocs-out")],
            "acap build --no-spec-site": [py, "-m", "acap", "build", "--no-spec-site"],
            "acap build --spec-site": [py, "-m", "acap", "build", "--spec-site"],
        }
        times: dict[str, list[float]] = {k: [] for k in cases}
        for _ in range(runs):
            for name, cmd in cases.items():  # interleaved, so drift hits every case alike
                times[name].append(timed(cmd, work, env))
    return times


def in_process(runs: int) -> dict[str, list[float]]:
    """The spec-site step and a plain MkDocs build of the same configuration, alternated."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    from acap.builder.specsite import build_spec_site
    from acap.builder.specsite._site import HOOKS, SOURCES, run_mkdocs
    from acap.findings import Report

    config = Path(str(SOURCES)) / "mkdocs.yml"
    times: dict[str, list[float]] = {"acap spec-site step": [], "mkdocs build": []}
    with tempfile.TemporaryDirectory(prefix="acap-bench-") as tmp:
        out = Path(tmp)
        run_mkdocs(config, out)  # warm-up: imports, theme, Markdown extensions
        assert build_spec_site(Report()) is not None
        for _ in range(runs):
            start = time.perf_counter()
            build_spec_site(Report())
            times["acap spec-site step"].append(time.perf_counter() - start)
            start = time.perf_counter()
            build(load_config(str(config), site_dir=str(out), hooks=[str(HOOKS)]))
            times["mkdocs build"].append(time.perf_counter() - start)
    return times


def table(times: dict[str, list[float]]) -> dict[str, float]:
    """Print median, min and max of each case; return the medians."""
    med = {k: statistics.median(v) for k, v in times.items()}
    for name, values in times.items():
        print(f"{name:32} {med[name] * 1000:8.1f}ms {min(values) * 1000:8.1f}ms "
              f"{max(values) * 1000:8.1f}ms")
    return med


def main() -> None:
    """Run both measurements, print them (and write JSON with ``--json``)."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()

    procs = whole_processes(args.runs)
    print(f"{'whole processes':32} {'median':>10} {'min':>10} {'max':>10}")
    med = table(procs)
    step = med["acap build --spec-site"] - med["acap build --no-spec-site"]
    reference = med["mkdocs build (same sources)"] - med["python -c pass"]
    ratio = step / reference
    print(f"{'  spec-site step (on - off)':32} {step * 1000:8.1f}ms")
    print(f"{'  mkdocs build (- python)':32} {reference * 1000:8.1f}ms")
    verdict = "met" if ratio <= 1.2 else "NOT met"
    print(f"{'  ratio':32} {ratio:8.2f}x  (target <= 1.20x: {verdict})")

    warm = in_process(args.runs * 3)
    print(f"\n{'one process, warm':32} {'median':>10} {'min':>10} {'max':>10}")
    wmed = table(warm)
    wratio = wmed["acap spec-site step"] / wmed["mkdocs build"]
    wmin = min(warm["acap spec-site step"]) / min(warm["mkdocs build"])
    print(f"{'  ratio of medians':32} {wratio:8.2f}x  (target <= 1.20x: "
          f"{'met' if wratio <= 1.2 else 'NOT met'}); ratio of minima {wmin:.2f}x")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({
            "runs": args.runs, "processes": procs, "step": step, "reference": reference,
            "ratio": ratio, "warm": warm, "warm_ratio": wratio, "warm_ratio_min": wmin},
            indent=2) + "\n")


if __name__ == "__main__":
    main()
