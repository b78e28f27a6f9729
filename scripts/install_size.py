"""Measure a default install of acap: site-packages size, package count, install time.

For each SOURCE (a wheel, a project folder, or any pip requirement) this makes a fresh
virtual environment with ``python -m venv`` (so pip and setuptools as that Python's venv
brings them, counted in the size), installs SOURCE with pip, and measures. Several
SOURCEs are measured in one run, on one machine, taking turns (``--runs`` rounds, each
installing every SOURCE once), so that before and after compare like with like on a
machine whose load changes. The time is the median of the runs: the wall-clock time of
``pip install``, and the processor time it and its children used (user + system), which
other work on a shared machine disturbs less.

pip's cache is used as it is (say so when quoting the numbers): ``--warm`` first installs
each SOURCE once unmeasured, so every timed run finds every wheel already downloaded.

Run: ``python scripts/install_size.py --warm --runs 3 BEFORE.whl AFTER.whl``.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: Sizes are given in MiB (2**20 bytes), the unit of ``du -sm`` in which issue 23 measured
#: a default install (146 MB, of which 48 MB phonenumbers) and set its bar of 100.
MIB = 2**20


def size(folder: Path) -> tuple[int, int]:
    """(bytes of the files, bytes of disk they take) under ``folder``."""
    files = disk = 0
    for p in folder.rglob("*"):
        st = p.lstat()
        files += st.st_size
        disk += st.st_blocks * 512
    return files, disk


def install(source: str) -> tuple[float, float, int, int, int]:
    """One fresh venv with ``source`` installed: (wall-clock seconds pip took, processor
    seconds it used, bytes of files, bytes of disk, distributions installed, pip and
    setuptools included)."""
    with tempfile.TemporaryDirectory() as tmp:
        venv = Path(tmp) / "venv"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        py = str(venv / "bin" / "python")
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run([py, "-m", "pip", "install", "-q", source], check=True,
                       stderr=subprocess.DEVNULL)
        seconds = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        [site] = (venv / "lib").glob("python3*/site-packages")
        files, disk = size(site)
        listed = subprocess.run([py, "-m", "pip", "list", "--format=freeze"], check=True,
                                capture_output=True, text=True).stdout
        return seconds, cpu, files, disk, len(listed.splitlines())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("sources", nargs="+")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--warm", action="store_true", help="install each once first, unmeasured")
    args = ap.parse_args()
    if args.warm:
        for s in args.sources:
            install(s)
    print(f"Python {sys.version.split()[0]}, {args.runs} runs each, taking turns; "
          "median times")
    runs: dict[str, list[tuple[float, float, int, int, int]]] = {s: [] for s in args.sources}
    for _ in range(args.runs):
        for s in args.sources:
            runs[s].append(install(s))
    for s, done in runs.items():
        seconds = statistics.median(r[0] for r in done)
        cpu = statistics.median(r[1] for r in done)
        _, _, files, disk, n = done[-1]
        print(f"{s}: {files / MIB:.1f} MiB of files ({disk / MIB:.1f} MiB of disk, as du -sm "
              f"counts), {n} distributions, pip install {seconds:.1f} s ({cpu:.1f} s of "
              "processor)")


if __name__ == "__main__":
    main()
