"""MkDocs hook: each page's `<!-- site:... -->` markers rendered from the declarations.

The rules' sections and their tables of codes, the compare modes' table and the launcher
languages are written once, beside their code; the pages hold markers where they go, and
this hook renders them when the site is built (knobregistry.docsite), as Ruff renders its
rules' pages from their doc comments. A marker the site cannot render fails the build.
"""

from __future__ import annotations

from typing import Any

from knobregistry.docsite import render_page


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """The page's Markdown with its markers rendered."""
    return render_page(page.file.src_uri, markdown)
