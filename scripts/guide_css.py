"""Write docs/css/highlight.css: the colours of code in the user guide.

The guide colours code when it is built (Python-Markdown's codehilite with Pygments,
mkdocs.yml), not in the reader's browser: MkDocs' theme would load highlight.js from a
CDN, and the guide loads nothing from another site. This writes Pygments' ``default``
style for the light theme and ``monokai`` for the dark one.

Run: ``.venv/bin/python scripts/guide_css.py``.
"""

from __future__ import annotations

from pathlib import Path

from pygments.formatters import HtmlFormatter

OUT = Path(__file__).resolve().parent.parent / "docs" / "css" / "highlight.css"


def text() -> str:
    """The stylesheet's text."""
    light = HtmlFormatter(style="default").get_style_defs(".codehilite")
    dark = HtmlFormatter(style="monokai").get_style_defs('[data-bs-theme="dark"] .codehilite')
    return ("/* Code colours of the user guide: Pygments' 'default' style (light) and "
            "'monokai' (dark),\n   written by scripts/guide_css.py; codehilite (mkdocs.yml) "
            "colours code at build time, so\n   the guide loads no script and nothing from "
            "another site. */\n" + light + "\n" + dark + "\n")


if __name__ == "__main__":
    OUT.write_text(text(), encoding="utf-8")
    print(f"wrote {OUT}")
