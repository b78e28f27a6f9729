"""No function in acap.publisher is above McCabe 10 (ruff C901; issue 20, item 5): where
an operator's website is at stake, each step must be one a reader can follow. (The bar
for the rest of acap is 12.)"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from support.paths import REPO, SRC

MAX_COMPLEXITY = 10


def _c901(path: str, limit: int) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--select",
                           "C901", "--config", f"lint.mccabe.max-complexity={limit}", path],
                          cwd=REPO, capture_output=True, text=True)


def test_no_function_in_the_publisher_is_above_mccabe_10() -> None:
    proc = _c901(str(SRC / "publisher"), MAX_COMPLEXITY)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_check_finds_a_function_above_the_bar(tmp_path: Path) -> None:
    """The check can fail: one function with eleven branches is found."""
    body = "".join(f"    if x == {i}:\n        return {i}\n" for i in range(MAX_COMPLEXITY))
    (tmp_path / "branchy.py").write_text(f"def branchy(x):\n{body}    return -1\n")
    proc = _c901(str(tmp_path / "branchy.py"), MAX_COMPLEXITY)
    assert proc.returncode == 1 and "`branchy` is too complex (11 > 10)" in proc.stdout
