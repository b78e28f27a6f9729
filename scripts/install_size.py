"""Measure a default install of acap: site-packages size, package count, install time.

For each SOURCE (a wheel, a project folder, or any pip requirement) this makes a fresh
virtual environment with ``python -m venv`` (so pip and setuptools as that Python's venv
brings them, counted in the size), installs SOURCE with pip, and measures. Several
SOURCEs are measured in one run, on one machine, one after the other, each ``--runs``
times (the time is the median), so that before and after compare like with like.

pip's cache is used as it is (say so when quoting the numbers): ``--warm`` first installs
each SOURCE once unmeasured, so every timed run finds every wheel already downloaded.

Run: ``python scripts/install_size.py --warm --runs 3 BEFORE.whl AFTER.whl``.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def size(folder: Path) -> tuple[int, int]:
    """(bytes of the files, bytes of disk they take) under ``folder``."""
    files = disk = 0
    for p in folder.rglob("*"):
        st = p.lstat()
        files += st.st_size
        disk += st.st_blocks * 512
    return files, disk


def install(source: str) -> tuple[float, int, int, int]:
    """One fresh venv with ``source`` installed: (seconds pip took, bytes of files, bytes
    of disk, distributions installed, pip and setuptools included)."""
    with tempfile.TemporaryDirectory() as tmp:
        venv = Path(tmp) / "venv"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        py = str(venv / "bin" / "python")
        start = time.perf_counter()
        subprocess.run([py, "-m", "pip", "install", "-q", source], check=True,
                       stderr=subprocess.DEVNULL)
        seconds = time.perf_counter() - start
        [site] = (venv / "lib").glob("python3*/site-packages")
        files, disk = size(site)
        listed = subprocess.run([py, "-m", "pip", "list", "--format=freeze"], check=True,
                                capture_output=True, text=True).stdout
        return seconds, files, disk, len(listed.splitlines())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("sources", nargs="+")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--warm", action="store_true", help="install each once first, unmeasured")
    args = ap.parse_args()
    if args.warm:
        for s in args.sources:
            install(s)
    print(f"Python {sys.version.split()[0]}, {args.runs} runs each, median time")
    for s in args.sources:
        runs = [install(s) for _ in range(args.runs)]
        seconds = statistics.median(r[0] for r in runs)
        _, files, disk, n = runs[-1]
        print(f"{s}: {files / 1e6:.1f} MB of files ({disk / 1e6:.1f} MB of disk), "
              f"{n} distributions, pip install {seconds:.1f} s")


if __name__ == "__main__":
    main()
