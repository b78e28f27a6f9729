"""Write the table of acap's deliberate differences from the official SDKs into
docs/verifying.md, between its ``<!-- DIFFERENCES ... -->`` and ``<!-- /DIFFERENCES -->``
lines, from the one table the code has (``acap.card.DIFFERENCES``, read from
src/acap/data/sdk-differences.json). Run it after changing that file:

    .venv/bin/python scripts/differences_table.py

tests/unit/card/test_differential.py fails while the page and the table differ.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from acap.card import differences_markdown

PAGE = Path(__file__).resolve().parents[1] / "docs" / "verifying.md"
BLOCK = re.compile(r"(<!-- DIFFERENCES:[^\n]*-->\n)(.*?)(\n<!-- /DIFFERENCES -->)", re.S)


def rendered(page: str) -> str:
    """``page`` with the block replaced by the table as the code has it."""
    if not BLOCK.search(page):
        raise SystemExit(f"{PAGE}: no <!-- DIFFERENCES: ... --> block")
    return BLOCK.sub(lambda m: m.group(1) + differences_markdown() + m.group(3), page)


def main() -> int:
    page = PAGE.read_text(encoding="utf-8")
    new = rendered(page)
    if new != page:
        PAGE.write_text(new, encoding="utf-8")
        print(f"wrote the table into {PAGE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
