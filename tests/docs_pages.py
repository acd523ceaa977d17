"""The pages of docs/ as the site shows them: their `<!-- site:... -->` markers rendered from
the declarations, as the MkDocs hook (docs/hooks/pages.py) renders them when it builds the
site. The tests that hold the docs to the code read these."""

from __future__ import annotations

from pathlib import Path

from knobregistry.docsite import render_page
from tests.conftest import REPO

DOCS = REPO / "docs"


def docs_page(name: str) -> str:
    """The page ``name`` of docs/ (``checks.md``), rendered."""
    return render_page(name, (DOCS / name).read_text(encoding="utf-8"))


def rendered_docs(folder: Path) -> Path:
    """Every page of docs/, rendered, written into ``folder``/docs beside a copy of the
    repository's registry.yaml (so that `knobs docs --check` runs on the pages the site
    shows); the folder."""
    (folder / "docs").mkdir(parents=True)
    for page in sorted(DOCS.glob("*.md")):
        (folder / "docs" / page.name).write_text(docs_page(page.name), encoding="utf-8")
    registry = (REPO / "registry.yaml").read_text(encoding="utf-8")
    (folder / "registry.yaml").write_text(registry, encoding="utf-8")
    return folder
